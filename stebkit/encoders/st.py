"""sentence-transformers models (optional extra ``stebkit[st]``) and the adapter for any
object with an ``encode`` method."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stebkit.encoders.base import BaseEncoder, Encoder, check_texts
from stebkit.encoders.hf import DEFAULT_MAX_LENGTH, MAX_CAUSAL_LENGTH, chunk_text, unavailable


class STEncoder(BaseEncoder):
    """A sentence-transformers checkpoint with the model's own pooling.

    Long texts are chunked and pooled (or truncated) as in :mod:`stebkit.encoders.hf`,
    with the length cap of the model's ``max_seq_length`` (at most 10,240).
    Needs ``sentence-transformers`` (``pip install stebkit[st]``).
    """

    def __init__(self, model_name_or_path: str, *, name: str | None = None,
                 revision: str | None = None, truncate: bool = False,
                 max_tokens: int | None = None, device: str | None = None,
                 trust_remote_code: bool = False, sentence_splitter: str = "rules") -> None:
        self.path = str(model_name_or_path)
        self.name = name or self.path
        self.revision = revision or "main"
        self.truncate = truncate
        self.max_tokens = max_tokens
        self.device_name = device
        self.trust_remote_code = trust_remote_code
        self.sentence_splitter = sentence_splitter
        self.model: Any = None

    @property
    def cache_config(self) -> dict[str, Any]:
        mode = "truncate" if self.truncate else f"chunk/{self.sentence_splitter}"
        return {"pooling": "sentence_transformers", "long_documents": mode,
                "max_tokens": self.max_tokens}

    def _ensure_loaded(self) -> None:
        if self.model is not None:
            return
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as err:
            raise unavailable(self.name, "sentence-transformers: pip install stebkit[st]",
                              err) from err
        from stebkit.encoders.hf import _torch_device

        device = _torch_device(self.device_name)
        try:
            model = SentenceTransformer(self.path, device=str(device),
                                        revision=None if self.revision == "main"
                                        else self.revision,
                                        trust_remote_code=self.trust_remote_code)
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
        sums = np.zeros((len(texts), emb.shape[1]))
        np.add.at(sums, owners, emb)
        return (sums / np.bincount(owners, minlength=len(texts))[:, None]).astype(np.float32)


class EncoderAdapter(BaseEncoder):
    """Wrap any object with an ``encode(texts)`` method (sentence-transformers, MTEB-style).

    ``encode`` is called with ``batch_size`` when the object accepts it; the result is
    converted to a float32 ``(n, d)`` array. The object's own ``encode_episodes`` is used
    when it has one, otherwise episodes are the mean of their text embeddings.
    """

    def __init__(self, obj: Any, *, name: str | None = None, revision: str | None = None):
        self.obj = obj
        self.name = name or str(getattr(obj, "name", None) or getattr(obj, "model_name", None)
                                or type(obj).__name__)
        self.revision = revision or str(getattr(obj, "revision", None) or "n/a")
        self.max_length = getattr(obj, "max_length", None) or getattr(obj, "max_seq_length",
                                                                      None)
        self._dim = getattr(obj, "embedding_dim", None)

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        if self._dim is None:
            get = (getattr(self.obj, "get_embedding_dimension", None)
                   or getattr(self.obj, "get_sentence_embedding_dimension", None))
            self._dim = int(get()) if get else int(self.encode(["a"]).shape[1])
        return int(self._dim)

    @property
    def cache_config(self) -> dict[str, Any]:
        return {"adapter": type(self.obj).__name__}

    def encode(self, texts: Sequence[str], *, batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts)
        try:
            emb = self.obj.encode(texts, batch_size=batch_size)
        except TypeError:
            emb = self.obj.encode(texts)
        if hasattr(emb, "detach"):
            emb = emb.detach().cpu().numpy()
        emb = np.asarray(emb, dtype=np.float32)
        if emb.ndim != 2 or emb.shape[0] != len(texts):
            raise ValueError(f"{self.name}.encode returned shape {emb.shape}, expected "
                             f"({len(texts)}, d)")
        return emb

    def encode_episodes(self, episodes: Sequence[Sequence[str]], *, batch_size: int = 32,
                        show_progress: bool = False) -> np.ndarray:
        own = getattr(self.obj, "encode_episodes", None)
        if own is None:
            return super().encode_episodes(episodes, batch_size=batch_size,
                                           show_progress=show_progress)
        return np.asarray(own(episodes, batch_size=batch_size), dtype=np.float32)


def as_encoder(obj: Any) -> Encoder:
    """Return ``obj`` if it already is a stebkit encoder, else wrap it in an adapter.

    Examples
    --------
    >>> class Lengths:
    ...     def encode(self, texts):
    ...         return [[len(t)] for t in texts]
    >>> as_encoder(Lengths()).encode(["ab", "abc"])
    array([[2.],
           [3.]], dtype=float32)
    """
    if isinstance(obj, BaseEncoder) or (isinstance(obj, Encoder)
                                        and hasattr(obj, "cache_config")):
        return obj
    if not callable(getattr(obj, "encode", None)):
        raise TypeError(f"an encoder needs an encode(texts) method; got {type(obj).__name__}")
    return EncoderAdapter(obj)
