"""sentence-transformers models (optional extra ``stebkit[st]``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stebkit.encoders._runtime import quiet_weights, torch_device, unavailable
from stebkit.encoders.base import BaseEncoder, check_texts, mean_by_owner
from stebkit.encoders.long_docs import (
    DEFAULT_MAX_LENGTH,
    MAX_CAUSAL_LENGTH,
    check_splitter,
    check_token_cap,
    chunk_text,
    long_document_mode,
    warn_long_texts,
)
from stebkit.encoders.precision import check_dtype, load_kwargs, resolve_dtype


class STEncoder(BaseEncoder):
    """A sentence-transformers checkpoint with the model's own pooling.

    Long texts are chunked and pooled (or truncated) as in :mod:`stebkit.encoders.long_docs`,
    with the length cap of the model's ``max_seq_length`` (at most 10,240). ``dtype`` and
    ``declared_dtype`` as :class:`~stebkit.encoders.hf.HFEncoder`'s (the declared dtype
    defaults to float32). Needs ``sentence-transformers`` (``pip install stebkit[st]``).
    """

    def __init__(self, model_name_or_path: str, *, name: str | None = None,
                 revision: str | None = None, truncate: bool = False,
                 max_tokens: int | None = None, device: str | None = None,
                 trust_remote_code: bool = False, sentence_splitter: str = "rules",
                 dtype: str = "auto", declared_dtype: str | None = None) -> None:
        self.path = str(model_name_or_path)
        self.name = name or self.path
        self.revision = revision or "main"
        self.truncate = bool(truncate)
        self.max_tokens = check_token_cap(max_tokens)
        self.device_name = device
        self.trust_remote_code = trust_remote_code
        self.sentence_splitter = check_splitter(sentence_splitter)
        self.dtype_name = check_dtype(dtype)
        self.declared_dtype = check_dtype(declared_dtype or "float32")
        self.model: Any = None

    @property
    def compute_dtype(self) -> str:
        """The dtype the model computes in (size unknown: float32 on a CPU unless asked)."""
        device = self.model.device if self.model is not None else torch_device(self.device_name)
        return resolve_dtype(self.dtype_name, self.declared_dtype, device.type, params=None)

    @property
    def cache_config(self) -> dict[str, Any]:
        mode = long_document_mode(self.truncate, self.sentence_splitter)
        device = self.model.device if self.model is not None else torch_device(self.device_name)
        return {"pooling": "sentence_transformers", "long_documents": mode,
                "max_tokens": self.max_tokens, "device": device.type,
                "dtype": self.compute_dtype}

    def _ensure_loaded(self) -> None:
        if self.model is not None:
            return
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as err:
            raise unavailable(self.name, "sentence-transformers: pip install stebkit[st]",
                              err) from err
        device = torch_device(self.device_name)
        try:
            with quiet_weights():
                model = SentenceTransformer(self.path, device=str(device),
                                            revision=None if self.revision == "main"
                                            else self.revision,
                                            trust_remote_code=self.trust_remote_code,
                                            model_kwargs=load_kwargs(self.compute_dtype))
        except (OSError, ValueError) as err:
            raise unavailable(self.name, "its weights from the Hugging Face Hub (network) or "
                              "a local copy", err) from err
        native = min(model.get_max_seq_length() or DEFAULT_MAX_LENGTH, MAX_CAUSAL_LENGTH)
        model.max_seq_length = native if self.max_tokens is None else min(native,
                                                                         self.max_tokens)
        self.model = model.eval()

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        self._ensure_loaded()
        get = (getattr(self.model, "get_embedding_dimension", None)
               or self.model.get_sentence_embedding_dimension)
        return int(get())

    @property
    def max_length(self) -> int:  # type: ignore[override]
        self._ensure_loaded()
        return int(self.model.max_seq_length)

    def encode(self, texts: Sequence[str], *, batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts)
        self._ensure_loaded()
        if self.truncate:
            pieces, owners = texts, np.arange(len(texts))
        else:
            warn_long_texts(texts, self.name)
            pieces, own = [], []
            for i, t in enumerate(texts):
                chunks = chunk_text(t, self.model.tokenizer, self.max_length,
                                    sentence_splitter=self.sentence_splitter)
                pieces.extend(chunks)
                own.extend([i] * len(chunks))
            owners = np.asarray(own, dtype=np.int64)
        emb = np.asarray(self.model.encode(pieces, batch_size=batch_size,
                                           show_progress_bar=show_progress,
                                           convert_to_numpy=True), dtype=np.float32)
        if len(pieces) == len(texts):
            return emb.reshape(len(texts), -1)
        return mean_by_owner(emb, owners, len(texts))
