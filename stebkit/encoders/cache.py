"""On-disk embedding cache around any encoder.

Shards are entries of the store (:mod:`stebkit.store`) below ``<cache_dir>``: in the folder
keyed by the model's name, its revision and its ``cache_config`` (every option that
changes a vector: pooling, long-document mode, max tokens, precision, the forward pass and
device type of a Hugging Face model, ...), so vectors made one way are never served for
another. Each ``encode`` call that computes new embeddings writes one shard, a NumPy
``.npz`` (never pickled) named by its sha256, holding ``keys`` (sha256 of each text,
``uint8 (n, 32)``) and ``embeddings`` (``float32 (n, d)``). Writes are atomic, so two
processes filling the same cache never clash (each writes its own shards; duplicates are
harmless). A shard the store refuses (not the bytes it was written with, another user's,
a link or FIFO in its place) or whose arrays are not ``uint8 (n, 32)`` keys and ``float32
(n, d)`` vectors with the width the encoder declares (or, when it cannot say without
loading, the width of the other shards and of its fresh vectors) is moved aside with a
warning naming it and what is wrong, and its texts are encoded again.
A vector with NaN or infinite values is returned but never cached (and one cached by an
older version is encoded again), so a rerun after a fix really re-encodes.
A full cache hit never touches the wrapped encoder's weights.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.encoders.base import BaseEncoder, check_texts
from stebkit.store import KINDS, Store, store_of


def text_key(text: str) -> bytes:
    """sha256 of the UTF-8 text: the per-text cache key."""
    return hashlib.sha256(text.encode("utf-8")).digest()


class CachedEncoder(BaseEncoder):
    """An encoder whose embeddings are stored on disk and reused (see module docstring).

    Attributes ``name``, ``revision``, ``embedding_dim``, ``max_length`` and
    ``cache_config`` are those of the wrapped encoder; ``hits`` and ``misses`` count
    texts served from disk and encoded, over the wrapper's life.
    """

    def __init__(self, encoder: Any, cache_dir: str | os.PathLike[str] | None = None) -> None:
        from stebkit.encoders.base import as_encoder

        self.encoder = as_encoder(encoder)
        self.name = self.encoder.name
        self.scoring = str(getattr(self.encoder, "scoring", "cosine"))
        self.store = store_of("embeddings") if cache_dir is None \
            else Store(cache_dir, KINDS["embeddings"])
        self.cache_dir = self.store.root
        self.hits = 0
        self.misses = 0
        self._index: dict[bytes, tuple[Path, int]] | None = None
        self._indexed: Path | None = None  # the folder ``_index`` describes
        self._seen: set[str] = set()

    # -- identity -----------------------------------------------------------------------
    @property
    def revision(self) -> str:  # type: ignore[override]
        return str(self.encoder.revision)

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        return int(self.encoder.embedding_dim)

    @property
    def max_length(self) -> int | None:  # type: ignore[override]
        return self.encoder.max_length

    @property
    def cache_config(self) -> dict[str, Any]:
        return dict(getattr(self.encoder, "cache_config", {}) or {})

    @property
    def directory(self) -> Path:
        """Folder holding this encoder's shards: the store's folder of its name, revision
        and :attr:`cache_config` (:meth:`stebkit.store.Store.folder`)."""
        return self.store.folder(self.name, self.revision, settings=self.cache_config)

    # -- storage ------------------------------------------------------------------------
    def _width(self) -> int | None:
        """The vector width the wrapped encoder declares (None when it cannot say yet)."""
        try:
            width = int(self.encoder.embedding_dim)
        except Exception:  # an encoder that must load something first: judged by its shards
            return None
        return width if width > 0 else None

    def _scan(self, width: int | None = None) -> dict[bytes, tuple[Path, int]]:
        """Index every shard not yet seen that checks out (vectors of ``width``, when
        known). The index is of one folder: an encoder whose key changed (a fast pass that
        fell back to the model's own) starts a new one."""
        folder = self.directory
        if self._index is None or folder != self._indexed:
            self._index, self._seen, self._indexed = {}, set(), folder
        for shard in self.store.entries(folder, ".npz"):
            if shard.name in self._seen:
                continue
            arrays = self._read(shard, width)
            self._seen.add(shard.name)
            if arrays is None:
                continue
            for row, k in enumerate(arrays["keys"]):
                self._index.setdefault(k.tobytes(), (shard, row))
        return self._index

    def _read(self, shard: Path, width: int | None = None) -> dict[str, np.ndarray] | None:
        """A shard's ``keys`` and ``embeddings`` once the store has checked its bytes and
        both arrays are checked: keys ``uint8 (n, 32)``, vectors ``float32 (n, width)``. A
        shard that fails is moved aside with a warning naming it and what is wrong; None
        is returned."""
        def check(arrays: dict[str, np.ndarray]) -> str | None:
            keys, emb = arrays.get("keys"), arrays.get("embeddings")
            if keys is None or emb is None:
                return f"holds {sorted(arrays)}, not keys and embeddings"
            if keys.dtype != np.uint8 or keys.ndim != 2 or keys.shape[1] != 32:
                return f"its keys are {keys.dtype} {keys.shape}, expected uint8 (n, 32)"
            if emb.dtype != np.float32 or emb.ndim != 2 or emb.shape[0] != len(keys) or \
                    emb.shape[1] < 1 or (width is not None and emb.shape[1] != width):
                want = f"float32 ({len(keys)}, {width if width else 'd > 0'})"
                return f"holds vectors of {emb.dtype} {emb.shape}, expected {want}"
            return None

        arrays = self.store.get_arrays(shard, check)
        if arrays is None:
            self._forget(shard)
        return arrays

    def _reject(self, shard: Path, why: str) -> None:
        self.store.reject(shard, why)
        self._forget(shard)

    def _forget(self, shard: Path) -> None:
        """Forget a bad shard (the store moved it aside)."""
        if self._index is not None:
            self._index = {k: v for k, v in self._index.items() if v[0] != shard}
        self._seen.add(shard.name)

    def _write(self, keys: list[bytes], emb: np.ndarray) -> None:
        index = self._scan()  # the folder of the vectors' key, now they are made
        key_array = np.frombuffer(b"".join(keys), dtype=np.uint8).reshape(len(keys), 32)
        path = self.store.put_arrays(self._indexed, keys=key_array,
                                     embeddings=emb.astype(np.float32))
        if path is not None:  # None: a folder the store does not trust, nothing kept
            self._seen.add(path.name)
            index.update((k, (path, row)) for row, k in enumerate(keys))

    # -- encoding -----------------------------------------------------------------------
    def _lookup(self, keys: list[bytes], width: int | None
                ) -> tuple[np.ndarray | None, list[int], set[Path]]:
        """The cached vectors of ``keys`` (rows of the missing ones unset), the positions
        missing, and the shards read. Every shard is checked; a bad one is dropped and the
        lookup starts again without it."""
        while True:
            index = self._scan(width)
            by_shard: dict[Path, list[tuple[int, int]]] = {}
            missing = []
            for i, k in enumerate(keys):
                hit = index.get(k)
                if hit is None:
                    missing.append(i)
                else:
                    by_shard.setdefault(hit[0], []).append((i, hit[1]))
            out: np.ndarray | None = None
            seen_width = width
            for shard, pairs in by_shard.items():
                arrays = self._read(shard, seen_width)
                if arrays is None:
                    break
                emb = arrays["embeddings"]
                seen_width = emb.shape[1]  # unknown width: the shards must agree
                if out is None:
                    out = np.empty((len(keys), emb.shape[1]), dtype=np.float32)
                rows = np.fromiter((r for _, r in pairs), dtype=np.int64)
                out[[i for i, _ in pairs]] = emb[rows]
            else:
                return out, missing, set(by_shard)

    def encode(self, texts: Sequence[str], *, batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        """Embeddings of ``texts``: from disk where cached, else encoded and stored."""
        texts = check_texts(texts, warn_empty=False)
        keys = [text_key(t) for t in texts]
        width = self._width() if self.directory.is_dir() else None  # only to check shards
        out, missing, shards = self._lookup(keys, width)
        if out is not None and missing != list(range(len(texts))):
            # vectors cached by an older stebkit may be non-finite: encode those again
            bad = set(np.flatnonzero(~np.isfinite(out).all(axis=1)).tolist()) - set(missing)
            missing = sorted({*missing, *bad})
        if missing:
            new = self._encode_missing(texts, keys, missing, batch_size, show_progress)
            if out is not None and new.shape[1] != out.shape[1]:
                for shard in shards:  # the encoder's own vectors say the cached ones are bad
                    self._reject(shard, f"holds vectors of width {out.shape[1]}, but "
                                 f"{self.name} encodes {new.shape[1]}")
                missing = list(range(len(texts)))
                new = self._encode_missing(texts, keys, missing, batch_size, show_progress)
                out = None
            if out is None:
                out = np.empty((len(texts), new.shape[1]), dtype=np.float32)
            out[missing] = new
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if out is None:  # no texts at all
            return np.zeros((0, self.embedding_dim), dtype=np.float32)
        return out

    def _encode_missing(self, texts: list[str], keys: list[bytes], missing: list[int],
                        batch_size: int, show_progress: bool) -> np.ndarray:
        """Vectors of ``texts[missing]``, each distinct text encoded once; the finite ones
        are stored (a NaN/inf vector is never cached)."""
        first: dict[bytes, int] = {}
        for i in missing:
            first.setdefault(keys[i], i)
        todo = list(first.values())
        new = np.asarray(self.encoder.encode([texts[i] for i in todo], batch_size=batch_size,
                                             show_progress=show_progress), dtype=np.float32)
        if new.ndim != 2 or new.shape[0] != len(todo):
            raise ValueError(f"{self.name}.encode returned shape {new.shape} for {len(todo)} "
                             "texts, expected (n, d); nothing was cached")
        finite = np.isfinite(new).all(axis=1)
        if finite.any():
            self._write([keys[i] for i, ok in zip(todo, finite, strict=True) if ok],
                        new[finite])
        pos = {keys[i]: j for j, i in enumerate(todo)}
        return new[[pos[keys[i]] for i in missing]]

    def encode_episodes(self, episodes: Sequence[Sequence[str]], *, batch_size: int = 32,
                        show_progress: bool = False) -> np.ndarray:
        """Episode embeddings: the mean of cached text embeddings, or for an encoder with
        its own ``encode_episodes`` (LUAR) whole episodes cached under their texts."""
        if not _has_own_episodes(self.encoder):
            return super().encode_episodes(episodes, batch_size=batch_size,
                                           show_progress=show_progress)
        episodes = [check_texts(ep, warn_empty=False) for ep in episodes]
        view = CachedEncoder(_EpisodeView(self.encoder), self.cache_dir)
        return view.encode([json.dumps(ep) for ep in episodes], batch_size=batch_size,
                           show_progress=show_progress)

    def __repr__(self) -> str:
        return f"cached({self.encoder!r}, cache_dir={str(self.cache_dir)!r})"


def _has_own_episodes(encoder: Any) -> bool:
    target = getattr(encoder, "obj", encoder)  # look through the adapter
    own = getattr(type(target), "encode_episodes", None)
    return own is not None and own is not BaseEncoder.encode_episodes


class _EpisodeView(BaseEncoder):
    """An episode encoder seen as a text encoder over JSON-encoded episodes."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self.name = f"{encoder.name}#episodes"
        self.revision = encoder.revision
        self.cache_config = dict(getattr(encoder, "cache_config", {}) or {})

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        return int(self.encoder.embedding_dim)

    def encode(self, texts: Sequence[str], *, batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        return self.encoder.encode_episodes([json.loads(t) for t in texts],
                                            batch_size=batch_size,
                                            show_progress=show_progress)


def cached(encoder: Any, cache_dir: str | os.PathLike[str] | None = None) -> CachedEncoder:
    """Wrap ``encoder`` with the on-disk embedding cache.

    Parameters
    ----------
    encoder : Encoder or object with ``encode``
        What computes embeddings on a miss.
    cache_dir : path, optional
        Root folder (default ``$STEBKIT_CACHE/embeddings``).

    Examples
    --------
    >>> import tempfile
    >>> from stebkit.encoders import get_encoder
    >>> enc = cached(get_encoder("random"), tempfile.mkdtemp())
    >>> a = enc.encode(["one", "two"]); b = enc.encode(["two", "three"])
    >>> enc.hits, enc.misses, bool((a[1] == b[0]).all())
    (1, 3, True)
    """
    if isinstance(encoder, CachedEncoder) and (cache_dir is None
                                               or Path(cache_dir) == encoder.cache_dir):
        return encoder
    return CachedEncoder(encoder, cache_dir)
