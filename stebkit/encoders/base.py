"""The Encoder protocol and helpers shared by every encoder.

An encoder turns texts into a float32 array of shape ``(n, d)``. Anything with an
``encode(texts)`` method — a sentence-transformers model, an MTEB-style model, a
stebkit encoder — can be passed wherever an encoder is expected; :func:`as_encoder`
adapts it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np


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
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    sums = np.add.reduceat(emb.astype(np.float64), starts, axis=0) if len(flat) else emb
    return (sums / sizes[:, None]).astype(np.float32)


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
    """

    name: str = "encoder"
    revision: str = "n/a"
    embedding_dim: int = 0
    max_length: int | None = None

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
