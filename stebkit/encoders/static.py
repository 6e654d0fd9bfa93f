"""WordLlama static token embeddings (package ``wordllama``, model l2_supercat, 256 d).

A text's embedding is WordLlama's average of its token embeddings (not normalised).
WordLlama does not truncate, so a long document is averaged over all its tokens; texts
are batched by length with a bound on the padded batch size to keep memory flat.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.encoders._runtime import package_revision
from stebkit.encoders.base import BaseEncoder, check_texts

_MAX_BATCH_CHARS = 250_000  # characters >= tokens: bounds a padded batch to ~256 MB


def _import_wordllama() -> Any:
    """The ``wordllama`` module, without the side effect of its import: it calls
    ``logging.basicConfig(level=INFO)``, which would print every INFO message of every
    library (stebkit's included) for the rest of the process."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return wordllama


class WordLlamaEncoder(BaseEncoder):
    """WordLlama l2_supercat, loaded from the files the ``wordllama`` wheel ships.

    Examples
    --------
    >>> WordLlamaEncoder().encode(["Tea, please.", "Coffee!"]).shape
    (2, 256)
    """

    name = "wordllama-l2-supercat"
    embedding_dim = 256
    max_length = None
    cache_config = {"pooling": "mean"}

    def __init__(self) -> None:
        self.revision = package_revision(self.name, "wordllama")
        self.model: Any = None

    def encode(self, texts: Sequence[str], *, batch_size: int = 64,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts)
        out = np.zeros((len(texts), self.embedding_dim), dtype=np.float32)
        if not texts:
            return out
        if self.model is None:
            wordllama = _import_wordllama()
            self.model = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent,
                                        disable_download=True)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batch: list[int] = []
        for i in order + [-1]:
            full = batch and (i < 0 or len(batch) >= batch_size
                              or (len(batch) + 1) * len(texts[i]) > _MAX_BATCH_CHARS)
            if full:
                emb = self.model.embed([texts[j] for j in batch], norm=False,
                                       batch_size=len(batch))
                out[batch] = emb
                batch = []
            if i >= 0:
                batch.append(i)
        return out
