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
from stebkit.encoders.long_docs import truncated_ids
from stebkit.encoders.tokens import out_of_memory
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
        """Embed each episode in one forward pass.

        Episodes of one size are batched, longest first, at most ``batch_size`` of them
        and at most :attr:`batch_tokens` tokens (episodes x texts x padded width) a
        batch; an out-of-memory error halves the batch, as for every token encoder.
        """
        episodes = [check_texts(ep) for ep in episodes]
        for i, ep in enumerate(episodes):
            if not ep:
                raise ValueError(f"episodes[{i}] is empty: every episode needs a text")
        self._ensure_loaded()
        ids = truncated_ids([t for ep in episodes for t in ep], self.tokenizer,
                            self.max_length)
        ends = np.cumsum([len(ep) for ep in episodes])
        texts = [ids[end - len(ep):end] for ep, end in zip(episodes, ends, strict=True)]
        widths = np.array([max(map(len, ep)) for ep in texts], dtype=np.int64)
        sizes = np.array([len(ep) for ep in texts], dtype=np.int64)
        order = np.lexsort((-widths, sizes))  # by size, then longest first
        out = np.zeros((len(episodes), self.embedding_dim), dtype=np.float32)
        with self._progress_bar(show_progress, total=len(episodes), unit="episode") as bar:
            start = 0
            while start < len(order):
                size, width = int(sizes[order[start]]), int(widths[order[start]])
                head = order[start:start + batch_size]
                idx = head[sizes[head] == size][:max(1, self.batch_tokens // (size * width))]
                try:
                    out[idx] = self._episode_pass([texts[i] for i in idx], size, width)
                except Exception as err:
                    if not out_of_memory(err):
                        raise
                    self.batch_tokens = self._halve(err, idx, size * width)
                    continue
                start += len(idx)
                if bar is not None:
                    bar.update(len(idx))
        return out

    def _episode_pass(self, episodes: list[list[list[int]]], size: int,
                      width: int) -> np.ndarray:
        """The model's vectors of equal-sized episodes of token ids, padded to ``width``."""
        torch = self._torch
        flat = [t for ep in episodes for t in ep]
        input_ids, mask = self._padded(flat, np.array([len(t) for t in flat]),
                                       np.arange(len(flat)), width)
        shape = (len(episodes), size, width)
        with torch.inference_mode():
            emb = self.model(input_ids=torch.from_numpy(input_ids).reshape(shape).to(self.device),
                             attention_mask=torch.from_numpy(mask).reshape(shape).to(self.device))
        return emb.float().cpu().numpy()
