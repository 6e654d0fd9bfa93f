"""LUAR episode encoders (rrivera1849/LUAR-MUD, rrivera1849/LUAR-CRUD).

LUAR embeds an *episode* (several texts by one author) in one pass: its input is shaped
``batch x episode x tokens`` and it attends over the episode's texts. ``encode`` treats
each text as an episode of one; ``encode_episodes`` feeds whole episodes (texts
truncated to 512 tokens, as the reference). The checkpoints ship their own modelling
code, so loading them needs an explicit ``trust_remote_code=True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stebkit.encoders.base import check_texts
from stebkit.encoders.hf import HFEncoder
from stebkit.errors import ModelUnavailable

LUAR_MAX_LENGTH = 512


class LUAREncoder(HFEncoder):
    """A LUAR checkpoint as an episode encoder (512-dimensional).

    Examples
    --------
    >>> LUAREncoder("rrivera1849/LUAR-MUD")
    Traceback (most recent call last):
    ...
    stebkit.errors.ModelUnavailable: model 'rrivera1849/LUAR-MUD' runs its own modelling \
code: pass trust_remote_code=True to get_encoder after reviewing the code on the Hub
    """

    pooling = "luar_episode"

    def __init__(self, model_name_or_path: str, *, trust_remote_code: bool = False,
                 **kwargs: Any) -> None:
        kwargs.pop("truncate", None)  # LUAR always truncates each text to 512 tokens
        super().__init__(model_name_or_path, trust_remote_code=trust_remote_code,
                         truncate=True, **kwargs)
        if not trust_remote_code:
            raise ModelUnavailable(
                f"model {self.name!r} runs its own modelling code: pass "
                "trust_remote_code=True to get_encoder after reviewing the code on the Hub"
            )

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        return 512

    def _native_max_length(self) -> int:
        return LUAR_MAX_LENGTH

    def encode(self, texts: Sequence[str], *, batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        return self.encode_episodes([[t] for t in check_texts(texts)],
                                    batch_size=batch_size, show_progress=show_progress)

    def encode_episodes(self, episodes: Sequence[Sequence[str]], *, batch_size: int = 32,
                        show_progress: bool = False) -> np.ndarray:
        """Embed each episode in one forward pass; episodes of equal size are batched."""
        episodes = [check_texts(ep) for ep in episodes]
        for i, ep in enumerate(episodes):
            if not ep:
                raise ValueError(f"episodes[{i}] is empty: every episode needs a text")
        self._ensure_loaded()
        torch = self._torch
        out = np.zeros((len(episodes), self.embedding_dim), dtype=np.float32)
        by_size: dict[int, list[int]] = {}
        for i, ep in enumerate(episodes):
            by_size.setdefault(len(ep), []).append(i)
        groups = [(size, idx[s:s + batch_size]) for size, idx in sorted(by_size.items())
                  for s in range(0, len(idx), batch_size)]
        if show_progress:
            from tqdm.auto import tqdm

            from stebkit.escape import text_cell

            groups = tqdm(groups, desc=text_cell(f"Encoding ({self.name})"), unit="batch")
        for size, idx in groups:
            flat = [t for i in idx for t in episodes[i]]
            tok = self.tokenizer(flat, max_length=self.max_length, truncation=True,
                                 padding="longest", return_tensors="pt")
            shape = (len(idx), size, tok["input_ids"].shape[1])
            with torch.inference_mode():
                emb = self.model(input_ids=tok["input_ids"].reshape(shape).to(self.device),
                                 attention_mask=tok["attention_mask"].reshape(shape)
                                 .to(self.device))
            out[idx] = emb.float().cpu().numpy()
        return out
