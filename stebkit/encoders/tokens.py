"""The pipeline shared by every tokenizer-based encoder (PyTorch or ONNX Runtime), and
:func:`pool_tokens`, the one step that turns token states into a piece's embedding."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stebkit.encoders.base import BaseEncoder, check_texts, mean_by_owner
from stebkit.encoders.long_docs import (
    BLOCK_CHARS,
    check_splitter,
    check_token_cap,
    chunk_text,
    long_document_mode,
    token_ids,
    truncated_ids,
    warn_long_texts,
)

POOLING_MODES = ("mean", "last_token")
"""How :func:`pool_tokens` reduces token states: ``mean`` over the attention mask, or the
``last_token`` (the last position: left padding puts each sequence's last token there)."""


def pool_tokens(hidden: Any, attention_mask: Any, mode: str = "mean") -> Any:
    """Token states ``(batch, tokens, hidden)`` -> one vector per sequence ``(batch, hidden)``.

    ``hidden`` and ``attention_mask`` are both NumPy arrays or both torch tensors, and the
    result is of the same kind and of ``hidden``'s dtype. ``mean``: the mask, cast to that
    dtype, weights the states, summed over the tokens and divided by the mask's count
    (at least 1e-9). ``last_token``: the states at the last position (left padding).

    Examples
    --------
    >>> import numpy as np
    >>> hidden = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    >>> mask = np.array([[1, 1, 0], [1, 1, 1]])
    >>> pool_tokens(hidden, mask).tolist()
    [[1.0, 2.0], [8.0, 9.0]]
    >>> pool_tokens(hidden, mask, "last_token").tolist()
    [[4.0, 5.0], [10.0, 11.0]]
    >>> pool_tokens(hidden, mask, "max")
    Traceback (most recent call last):
    ...
    ValueError: pooling mode must be one of ('mean', 'last_token'), got 'max'
    """
    if mode == "last_token":
        return hidden[:, -1, :]
    if mode != "mean":
        raise ValueError(f"pooling mode must be one of {POOLING_MODES}, got {mode!r}")
    if isinstance(hidden, np.ndarray):
        m = attention_mask[:, :, None].astype(hidden.dtype)
        return (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    m = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)


class TokenEncoder(BaseEncoder):
    """Shared pipeline of every tokenizer-based encoder.

    Validates the texts, splits long ones (chunk-and-pool) or truncates them, sorts the
    pieces by token length to cut padding, batches them, runs ``_forward`` and averages
    the chunk embeddings of each text. Weights load lazily on the first ``encode``.
    Subclasses implement ``_load`` (setting ``tokenizer`` and the model) and
    ``_forward(input_ids, attention_mask) -> float32 (b, d)`` (pooling the token states
    with :func:`pool_tokens` in the mode :attr:`pooling`), and may override
    ``_native_max_length``.
    """

    pooling = "mean"
    padding_side = "right"
    add_special_tokens = True

    def __init__(self, *, truncate: bool = False, max_tokens: int | None = None,
                 sentence_splitter: str = "rules") -> None:
        self.sentence_splitter = check_splitter(sentence_splitter)
        self.truncate = bool(truncate)
        self.max_tokens = check_token_cap(max_tokens)
        self.tokenizer: Any = None
        self._loaded = False
        self._max_length: int | None = None

    # -- to implement -------------------------------------------------------------------
    def _load(self) -> None:
        raise NotImplementedError

    def _native_max_length(self) -> int:
        raise NotImplementedError

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------------------
    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self._load()
            self._loaded = True

    @property
    def max_length(self) -> int:  # type: ignore[override]
        """Token cap per chunk (or per text with ``truncate``); loads the tokenizer."""
        if self._max_length is None:
            self._ensure_loaded()
            native = self._native_max_length()
            self._max_length = native if self.max_tokens is None else min(native,
                                                                          self.max_tokens)
        return self._max_length

    @property
    def cache_config(self) -> dict[str, Any]:
        """What besides name and revision changes the embeddings (cache key)."""
        return {"pooling": self.pooling,
                "long_documents": long_document_mode(self.truncate, self.sentence_splitter),
                "max_tokens": self.max_tokens}

    def split(self, text: str) -> list[str]:
        """The pieces ``text`` is encoded as (one piece unless chunk-and-pool splits it)."""
        limit = self.max_length  # loads the tokenizer
        if self.truncate:
            return [text]
        return chunk_text(text, self.tokenizer, limit, add_special_tokens=self.add_special_tokens,
                          sentence_splitter=self.sentence_splitter)

    def _pad_id(self) -> int:
        pad = getattr(self.tokenizer, "pad_token_id", None)
        return int(pad) if pad is not None else 0

    def tokenize(self, texts: list[str]) -> tuple[list[list[int]], np.ndarray]:
        """Token ids of the pieces of ``texts`` and, for each piece, its text's index."""
        self._ensure_loaded()
        limit, tok, special = self.max_length, self.tokenizer, self.add_special_tokens
        if self.truncate:
            return (truncated_ids(texts, tok, limit, special),
                    np.arange(len(texts), dtype=np.int64))
        short = [i for i, t in enumerate(texts) if len(t) <= BLOCK_CHARS]
        whole = dict(zip(short, token_ids([texts[i] for i in short], tok,
                                          add_special_tokens=special), strict=True))
        ids: list[list[int]] = []
        owners: list[int] = []
        for i, text in enumerate(texts):
            t_ids = whole.get(i)
            if t_ids is not None and len(t_ids) <= limit:
                ids.append(t_ids)
                owners.append(i)
                continue
            pieces = chunk_text(text, tok, limit, add_special_tokens=special,
                                sentence_splitter=self.sentence_splitter)
            ids.extend(truncated_ids(pieces, tok, limit, special))
            owners.extend([i] * len(pieces))
        return ids, np.asarray(owners, dtype=np.int64)

    def encode(self, texts: Sequence[str], *, batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        """Embed texts as a float32 array ``(len(texts), embedding_dim)``.

        Examples
        --------
        >>> from stebkit.encoders import get_encoder
        >>> enc = get_encoder("all-MiniLM-L6-v2")
        >>> enc.encode(["A short text.", "Another one."]).shape
        (2, 384)
        """
        texts = check_texts(texts)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if not self.truncate:
            warn_long_texts(texts, self.name)
        ids, owners = self.tokenize(texts)
        return self._run(ids, owners, len(texts), batch_size, show_progress)

    def _run(self, ids: list[list[int]], owners: np.ndarray, n_texts: int,
             batch_size: int, show_progress: bool) -> np.ndarray:
        pad = self._pad_id()
        eos = getattr(self.tokenizer, "eos_token_id", None)
        filler = [int(eos) if eos is not None else pad]  # an empty text without special tokens
        ids = [x if len(x) else filler for x in ids]
        lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
        order = np.argsort(-lengths, kind="stable")
        out: np.ndarray | None = None
        starts = range(0, len(ids), batch_size)
        if show_progress:
            from tqdm.auto import tqdm

            from stebkit.escape import text_cell

            starts = tqdm(starts, desc=text_cell(f"Encoding ({self.name})"), unit="batch")
        for start in starts:
            idx = order[start:start + batch_size]
            width = int(lengths[idx].max())
            input_ids = np.full((len(idx), width), pad, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, j in enumerate(idx):
                n = lengths[j]
                if self.padding_side == "left":
                    input_ids[row, width - n:] = ids[j]
                    mask[row, width - n:] = 1
                else:
                    input_ids[row, :n] = ids[j]
                    mask[row, :n] = 1
            emb = self._forward(input_ids, mask)
            if out is None:
                out = np.empty((len(ids), emb.shape[1]), dtype=np.float32)
            out[idx] = emb
        if out is None:
            return np.zeros((0, self.embedding_dim), dtype=np.float32)
        if len(ids) == n_texts:  # one piece per text, in text order
            return out
        return mean_by_owner(out, owners, n_texts)
