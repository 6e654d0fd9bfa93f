"""The pipeline shared by every tokenizer-based encoder (PyTorch or ONNX Runtime), and
:func:`pool_tokens`, the one step that turns token states into a piece's embedding."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence
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

BATCH_TOKENS = 16_384
"""The default token budget of a batch (rows x padded width): a batch of 32 pieces of up
to 512 tokens, fewer rows of longer pieces (a causal LM's 10,240-token chunks go alone)."""

TOKENIZE_BLOCK = 2_048
"""Texts tokenized at a time when tokenizing overlaps the forward passes
(:attr:`TokenEncoder.overlap`): the next block is tokenized in a background thread while
the model encodes this one."""

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

    With ``overlap`` (default: on when the model runs on a GPU, see :meth:`overlaps`),
    the texts are tokenized in blocks of :data:`TOKENIZE_BLOCK`, the next block in a
    background thread while the model encodes this one, so the device does not wait for
    the tokenizer; pieces are then sorted within their block, which changes the batches
    and so the vectors by float rounding only.

    A batch holds at most ``batch_size`` pieces and at most ``batch_tokens`` tokens
    (rows x padded width, default :data:`BATCH_TOKENS`; a longer piece goes alone). When
    the device runs out of memory (``torch.OutOfMemoryError``), the batch is halved and
    the encoding goes on with that budget (kept for the next calls); one
    ``ResourceWarning`` per encoder says so. A single piece that does not fit raises the
    error, naming its length.
    Subclasses implement ``_load`` (setting ``tokenizer`` and the model) and
    ``_forward(input_ids, attention_mask) -> float32 (b, d)`` (pooling the token states
    with :func:`pool_tokens` in the mode :attr:`pooling`), and may override
    ``_native_max_length``.
    """

    pooling = "mean"
    padding_side = "right"
    add_special_tokens = True

    def __init__(self, *, truncate: bool = False, max_tokens: int | None = None,
                 sentence_splitter: str = "rules", batch_tokens: int | None = None,
                 overlap: bool | None = None) -> None:
        if overlap is not None and not isinstance(overlap, bool):
            raise ValueError(f"overlap must be True, False or None (on a GPU), got {overlap!r}")
        self.overlap = overlap
        if batch_tokens is not None and (isinstance(batch_tokens, bool)
                                         or not isinstance(batch_tokens, int)
                                         or batch_tokens < 1):
            raise ValueError(f"batch_tokens must be a positive int (tokens per batch), got "
                             f"{batch_tokens!r}")
        self.batch_tokens = BATCH_TOKENS if batch_tokens is None else batch_tokens
        self._halved = False  # whether an out-of-memory error has halved the batches
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
        with self._progress_bar(show_progress) as bar:
            if len(texts) <= TOKENIZE_BLOCK or not self.overlaps():
                ids, owners = self.tokenize(texts)
                return self._run(ids, owners, len(texts), batch_size, bar)
            return self._run_overlapped(texts, batch_size, bar)

    @contextlib.contextmanager
    def _progress_bar(self, show: bool, *, total: int = 0,
                      unit: str = "piece") -> Iterator[Any]:
        """A progress bar of this encoder's work, closed on leaving; None when ``show`` is
        false. By default it counts the pieces :meth:`_run` encodes, its total growing as
        they become known."""
        if not show:
            yield None
            return
        from tqdm.auto import tqdm

        from stebkit.escape import text_cell

        bar = tqdm(total=total, desc=text_cell(f"Encoding ({self.name})"), unit=unit)
        try:
            yield bar
        finally:
            bar.close()

    def overlaps(self) -> bool:
        """Whether tokenizing overlaps the forward passes: :attr:`overlap` when set, else
        whether the model runs on a GPU (on a CPU the two would share the same cores)."""
        return bool(self.overlap) if self.overlap is not None else self._on_gpu()

    def _on_gpu(self) -> bool:
        return False

    def _run_overlapped(self, texts: list[str], batch_size: int, bar: Any) -> np.ndarray:
        """:meth:`_run` block by block, each next block tokenized in a background thread
        (a fast tokenizer releases the GIL, as does a device's forward pass)."""
        from concurrent.futures import ThreadPoolExecutor

        self._ensure_loaded()
        _ = self.max_length  # worked out here, not in the thread
        blocks = [texts[i:i + TOKENIZE_BLOCK] for i in range(0, len(texts), TOKENIZE_BLOCK)]
        parts = []
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="stebkit-tokenize") as pool:
            pending = pool.submit(self.tokenize, blocks[0])
            for k, block in enumerate(blocks):
                ids, owners = pending.result()
                if k + 1 < len(blocks):
                    pending = pool.submit(self.tokenize, blocks[k + 1])
                parts.append(self._run(ids, owners, len(block), batch_size, bar))
        return np.concatenate(parts)

    def _run(self, ids: list[list[int]], owners: np.ndarray, n_texts: int,
             batch_size: int, bar: Any) -> np.ndarray:
        """The vectors of ``n_texts`` texts from their pieces' token ids (``owners``: each
        piece's text), sorted longest first and batched; ``bar`` (or None) counts pieces."""
        eos = getattr(self.tokenizer, "eos_token_id", None)
        filler = [int(eos) if eos is not None else self._pad_id()]  # an empty text, no specials
        ids = [x if len(x) else filler for x in ids]
        lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
        order = np.argsort(-lengths, kind="stable")
        out: np.ndarray | None = None
        if bar is not None:  # a block's pieces join the total once they are known
            bar.total += len(ids)
            bar.refresh()
        start, budget = 0, self.batch_tokens
        while start < len(ids):
            width = int(lengths[order[start]])  # the longest piece left: sorted longest first
            idx = order[start:start + max(1, min(batch_size, budget // width))]
            try:
                emb = self._forward(*self._padded(ids, lengths, idx, width))
            except Exception as err:
                if not out_of_memory(err):
                    raise
                budget = self.batch_tokens = self._halve(err, idx, width)
                continue
            if out is None:
                out = np.empty((len(ids), emb.shape[1]), dtype=np.float32)
            out[idx] = emb
            start += len(idx)
            if bar is not None:
                bar.update(len(idx))
        if out is None:
            return np.zeros((0, self.embedding_dim), dtype=np.float32)
        if len(ids) == n_texts:  # one piece per text, in text order
            return out
        return mean_by_owner(out, owners, n_texts)

    def _padded(self, ids: list[list[int]], lengths: np.ndarray, idx: np.ndarray,
                width: int) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and attention mask of the pieces ``idx``, padded to ``width``."""
        input_ids = np.full((len(idx), width), self._pad_id(), dtype=np.int64)
        mask = np.zeros((len(idx), width), dtype=np.int64)
        for row, j in enumerate(idx):
            n = lengths[j]
            cols = slice(width - n, width) if self.padding_side == "left" else slice(0, n)
            input_ids[row, cols] = ids[j]
            mask[row, cols] = 1
        return input_ids, mask

    def _halve(self, err: BaseException, idx: np.ndarray, width: int) -> int:
        """The token budget after an out-of-memory error on the batch ``idx``: half its
        rows (the error itself when it was one piece); warns once per encoder."""
        if len(idx) == 1:
            raise type(err)(f"model {self.name!r} ran out of device memory on one piece of "
                            f"{width} tokens: give max_tokens= a smaller cap, or use another "
                            f"device ({err})") from err
        _free_device_memory()
        if not self._halved:
            self._halved = True
            warnings.warn(f"model {self.name!r} ran out of device memory on a batch of "
                          f"{len(idx)} pieces of up to {width} tokens; halving the batches "
                          "and going on", ResourceWarning, stacklevel=4)
        return (len(idx) // 2) * width


def out_of_memory(err: BaseException) -> bool:
    """Whether ``err`` is torch's out-of-memory error (of CUDA or another device)."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is there for every token encoder
        return False
    return isinstance(err, torch.OutOfMemoryError)


def _free_device_memory() -> None:
    """Hand the memory torch's CUDA allocator holds back before the smaller batch."""
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()
