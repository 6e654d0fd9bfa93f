"""The reference's own TF-IDF baselines: its pickled, fitted vectorizers, loaded safely.

Four rows of the published leaderboard (``tfidfngrams_*.pkl``) are bundles of three
fitted scikit-learn ``TfidfVectorizer`` objects — character n-grams of the raw text,
word n-grams of the lowercased spaCy tokens, and n-grams of the spaCy part-of-speech
tags — stored in the reference's repository (``models/``) and fetched here by URL at a
pinned commit (:data:`REFERENCE_PICKLES`). An episode is embedded as its texts joined by
a space, as the reference does; the embedding is the concatenation of the three TF-IDF
vectors.

A pickle can run any code when it is loaded, so these files are opened with
:class:`RestrictedUnpickler`, which admits only the scikit-learn, NumPy and SciPy types a
fitted vectorizer is made of (:data:`ALLOWED_GLOBALS`) and refuses everything else with
:class:`UnsafePickle`, naming the file and the refused name. Before that, a file is
checked against the sha256 of the published bundle where :data:`REFERENCE_PICKLES`
records one: a bundle that differs is never unpickled, wherever it was found (a changed
bundle could hold a token pattern whose matching never ends, or just other numbers).

The published files are not mirrored, so their sha256 is not recorded yet. Until it is,
the pin is the sha256 recorded when stebkit downloaded the file itself
(:func:`stebkit.sources.downloaded_sha256`): that copy is trusted on first use, and every
later copy, in the cache, a mirror or a local path, must have its sha256. A copy in the
download cache that stebkit did not download (no download record) is refused; a mirror or
local copy met while no pin is recorded is used with a warning naming its sha256, on every
load, never pinned.

What a bundle's vectors are keyed by is its bytes: the encoder's ``revision`` is the
sha256 of the copy it found and admitted (``sha256:<digest>``), so the embedding cache
(:mod:`stebkit.encoders.cache`) and every record name those bytes, never the published
commit: vectors made from an unpinned copy are served only to a run that finds that very
copy again and admits it, never once the copy is gone or refused.

Whatever its origin, a bundle is never used as unpickled: each vectorizer's settings are
checked against the reference's (:data:`REFERENCE_SETTINGS`), and a new
``TfidfVectorizer`` is built from those checked settings and the checked vocabulary and
IDF arrays only (:func:`load_vectorizers`), so no other attribute of the file (``input``,
``decode_error``, a planted pattern, ...) reaches the vectorizer that reads the texts.
"""

from __future__ import annotations

import io
import os
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.encoders.baselines import _ConcatenatedEpisodes
from stebkit.errors import StebkitError

REFERENCE_REPOSITORY = "rrivera1849/STEB"


@dataclass(frozen=True)
class ReferencePickle:
    """Where one of the reference's vectorizer files lies and what its bytes are."""

    commit: str
    """The commit of :data:`REFERENCE_REPOSITORY` it is fetched at."""
    sha256: str | None
    """The sha256 of the published file; ``None`` while it is not recorded here: then the
    copy stebkit downloads itself is trusted on first use and pinned, and every other copy
    is checked against that pin (see the module docstring)."""


REFERENCE_PICKLES: Mapping[str, ReferencePickle] = {
    "tfidfngrams_fineweb_sample10bt_1-2grams.pkl":
        ReferencePickle("dcff17589544511d2fe34db738936aa4cfd9ccd7", None),
    "tfidfngrams_fineweb_sample10bt_1-3grams.pkl":
        ReferencePickle("63f649ce48d45bb0410a0fa9986568d93026de0b", None),
    "tfidfngrams_mud_subset_1-2grams.pkl":
        ReferencePickle("aa8f06614faa6a66faa8df489ff612dd71fcca3c", None),
    "tfidfngrams_mud_subset_1-3grams.pkl":
        ReferencePickle("e600cb4f14e513836da97044021fa46f791051b1", None),
}
"""File name in the reference's ``models/`` folder -> its pinned commit and sha256. Where a
sha256 is recorded, only a file with it is ever unpickled, wherever it was found (download
cache, mirror, a local path)."""

WORD_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
"""The token pattern of the reference's word and part-of-speech vectorizers (scikit-learn's
default); a bundle with any other pattern is refused (a pattern can take forever to match)."""

ANALYZERS = {"char_vec": "char", "tok_vec": "word", "pos_vec": "word"}
"""The analyzer each vectorizer of a bundle uses in the reference."""

REFERENCE_SETTINGS: Mapping[str, Any] = {
    "input": "content", "encoding": "utf-8", "decode_error": "strict",
    "strip_accents": None, "lowercase": True, "preprocessor": None, "tokenizer": None,
    "stop_words": None, "token_pattern": WORD_TOKEN_PATTERN, "binary": False,
    "norm": "l2", "use_idf": True, "smooth_idf": True, "sublinear_tf": False,
}
"""The settings every vectorizer of the reference's bundles is fitted with (besides its
analyzer, :data:`ANALYZERS`, its n-gram range and ``dtype`` float64); a bundle whose value
differs, or is of another type, is refused. Settings that act only while fitting
(``max_features``, ``min_df``, ``max_df``) are not read."""

MAX_NGRAM = 5
"""The longest n-grams a bundle may use (the reference's: 5 characters, 3 words)."""

BUNDLE_KEYS = ("char_vec", "tok_vec", "pos_vec")

_NUMPY_CORE = {"_reconstruct", "scalar"}
ALLOWED_GLOBALS: Mapping[str, frozenset[str]] = {
    module: frozenset(names) for module, names in {
        "sklearn.feature_extraction.text": {"TfidfVectorizer", "TfidfTransformer",
                                            "CountVectorizer"},
        "numpy": {"ndarray", "dtype", "float64", "float32", "int64", "int32", "intc",
                  "bool_"},
        "numpy.core.multiarray": _NUMPY_CORE,
        "numpy._core.multiarray": _NUMPY_CORE,
        "numpy.core.numeric": {"_frombuffer"},
        "numpy._core.numeric": {"_frombuffer"},
        "scipy.sparse._csr": {"csr_matrix"},
        "scipy.sparse.csr": {"csr_matrix"},
        "scipy.sparse._dia": {"dia_matrix"},
        "scipy.sparse.dia": {"dia_matrix"},
        "copyreg": {"_reconstructor"},
        "copy_reg": {"_reconstructor"},  # the names protocols 0-2 write
        "builtins": {"object", "set", "frozenset"},
        "__builtin__": {"object", "set", "frozenset"},
        "collections": {"OrderedDict"},
        "_codecs": {"encode"},
    }.items()
}
"""The only globals a vectorizer pickle may name: the vectorizer classes, NumPy arrays,
dtypes and scalars, SciPy sparse matrices, plain containers, and the string-to-bytes
codec that pickle protocols 0-2 use for array buffers."""


class UnsafePickle(StebkitError, pickle.UnpicklingError):
    """A pickle names something outside :data:`ALLOWED_GLOBALS` (or is not a vectorizer
    bundle); it was not loaded."""


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that resolves only the globals of :data:`ALLOWED_GLOBALS`.

    Examples
    --------
    >>> import io, os, pickle
    >>> class Bomb:
    ...     def __reduce__(self):
    ...         return (os.system, ("echo hi",))
    >>> RestrictedUnpickler(io.BytesIO(pickle.dumps(Bomb())), where="bomb.pkl").load()
    Traceback (most recent call last):
    ...
    stebkit.encoders.tfidf_pickle.UnsafePickle: bomb.pkl: refused to load 'posix.system' ...
    """

    def __init__(self, file: Any, *, where: str = "pickle") -> None:
        super().__init__(file)
        self.where = where

    def find_class(self, module: str, name: str) -> Any:
        if name in ALLOWED_GLOBALS.get(module, ()):
            return super().find_class(module, name)
        raise UnsafePickle(
            f"{self.where}: refused to load {module + '.' + name!r} (a pickle can run code "
            "when it is loaded; only the scikit-learn, NumPy and SciPy types of a fitted "
            "TF-IDF vectorizer are allowed). Use the reference's own file, or refit the "
            "vectorizers")


def load_vectorizers(path: str | os.PathLike[str], *, sha256: str | None) -> dict[str, Any]:
    """Load a vectorizer bundle whose bytes have ``sha256`` through
    :class:`RestrictedUnpickler`, check it and rebuild its vectorizers.

    The sha256 is checked first: a file that differs is not unpickled at all. ``None`` (a
    bundle whose published sha256 is not recorded) skips that check only. Each
    vectorizer's settings are then checked against the reference's
    (:data:`REFERENCE_SETTINGS`, :data:`ANALYZERS`, n-grams of at most
    :data:`MAX_NGRAM` units, ``dtype`` float64), its vocabulary must map distinct strings
    to the columns ``0 .. n-1`` and its IDF weights must be ``n`` finite numbers >= 1 (the
    smoothed IDF). What is returned is built anew from those checked values alone.

    Returns
    -------
    dict
        ``char_vec``, ``tok_vec``, ``pos_vec``: ``TfidfVectorizer`` objects made here.

    Raises
    ------
    UnsafePickle
        The file's sha256 is not ``sha256``, it names a forbidden global, it is not a
        bundle of three fitted vectorizers, or a setting or array is not the reference's
        kind (the message names the vectorizer and the setting).

    Examples
    --------
    >>> import pickle, tempfile, pathlib
    >>> from sklearn.feature_extraction.text import TfidfVectorizer
    >>> docs = ["the cat sat", "the dog ran"]
    >>> bundle = {k: TfidfVectorizer(analyzer=a, ngram_range=(1, 2)).fit(docs)
    ...           for k, a in ANALYZERS.items()}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "b.pkl"
    >>> _ = path.write_bytes(pickle.dumps(bundle))
    >>> sorted(load_vectorizers(path, sha256=None)["tok_vec"].vocabulary_)[:3]
    ['cat', 'cat sat', 'dog']
    >>> bundle["tok_vec"].input = "filename"  # would open() every text as a path
    >>> _ = path.write_bytes(pickle.dumps(bundle))
    >>> load_vectorizers(path, sha256=None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stebkit.encoders.tfidf_pickle.UnsafePickle: ...'tok_vec' ...: input 'filename' ...
    """
    from sklearn.feature_extraction.text import TfidfVectorizer

    from stebkit.sources import file_sha256

    path = Path(path)
    actual = file_sha256(path)
    if sha256 is not None and actual != sha256.lower():
        raise UnsafePickle(f"{path}: sha256 {actual} is not the expected {sha256}; the file "
                           "was not loaded (a pickle can run code, and a changed bundle "
                           "changes every number)")
    with open(path, "rb") as fh:
        try:
            bundle = RestrictedUnpickler(io.BufferedReader(fh), where=str(path)).load()
        except UnsafePickle:
            raise
        except Exception as err:  # truncated or corrupt file
            raise UnsafePickle(f"{path}: not a readable pickle ({type(err).__name__}: "
                               f"{err})") from None
    if not isinstance(bundle, dict) or any(k not in bundle for k in BUNDLE_KEYS):
        raise UnsafePickle(f"{path}: expected a dict with {list(BUNDLE_KEYS)}, got "
                           f"{type(bundle).__name__}")
    out = {}
    for key in BUNDLE_KEYS:
        vec = bundle[key]
        if not isinstance(vec, TfidfVectorizer) or "vocabulary_" not in vars(vec):
            raise UnsafePickle(f"{path}: {key!r} is not a fitted TfidfVectorizer")
        out[key] = _rebuild(path, key, vars(vec))
    return out


def _same(value: Any, expected: Any) -> bool:
    """``value`` is ``expected`` with its exact type (no look-alike objects)."""
    return type(value) is type(expected) and value == expected


def _rebuild(path: Path, key: str, state: Mapping[str, Any]) -> Any:
    """A new vectorizer from the checked settings and arrays of one unpickled vectorizer;
    refuse one whose settings are not those the reference fits with."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    problems = []
    expected = {**REFERENCE_SETTINGS, "analyzer": ANALYZERS[key]}
    for name, want in expected.items():
        if name not in state or not _same(state[name], want):
            problems.append(f"{name} {state.get(name, '(missing)')!r} (the reference: "
                            f"{want!r})")
    ngrams = state.get("ngram_range")
    if not (isinstance(ngrams, tuple) and len(ngrams) == 2 and
            all(type(n) is int for n in ngrams) and 1 <= ngrams[0] <= ngrams[1] <= MAX_NGRAM):
        problems.append(f"ngram_range {ngrams!r} (expected 1 <= low <= high <= {MAX_NGRAM})")
    if state.get("dtype") is not np.float64:
        problems.append(f"dtype {state.get('dtype')!r} (the reference: numpy.float64)")
    if problems:
        raise UnsafePickle(f"{path}: {key!r} is not a vectorizer of the reference's bundles: "
                           f"{'; '.join(problems)}; it was not used")
    vocabulary = _vocabulary(path, key, state["vocabulary_"])
    idf = _idf(path, key, state.get("_tfidf"), len(vocabulary))
    vec = TfidfVectorizer(analyzer=ANALYZERS[key], ngram_range=ngrams, lowercase=True,
                          norm="l2", vocabulary=vocabulary)
    vec.idf_ = idf
    return vec


def _vocabulary(path: Path, key: str, vocabulary: Any) -> dict[str, int]:
    """The vocabulary as a plain dict, checked: distinct strings onto ``0 .. n-1``."""
    bad = f"{path}: {key!r}: vocabulary_ "
    if type(vocabulary) is not dict or not vocabulary:
        raise UnsafePickle(bad + f"must be a non-empty dict, got {type(vocabulary).__name__}")
    out = {}
    for term, column in vocabulary.items():
        if type(term) is not str or not isinstance(column, (int, np.integer)) or \
                isinstance(column, bool):
            raise UnsafePickle(bad + f"maps {term!r} to {column!r}; expected strings to "
                               "column numbers")
        out[term] = int(column)
    if sorted(out.values()) != list(range(len(out))):
        raise UnsafePickle(bad + f"does not number its {len(out)} terms 0 .. {len(out) - 1} "
                           "once each")
    return out


def _idf(path: Path, key: str, transformer: Any, size: int) -> np.ndarray:
    """The IDF weights (scikit-learn >= 1.5 keeps ``idf_``, older ones a diagonal matrix
    ``_idf_diag``), checked: ``size`` finite float64 values >= 1 (smoothed IDF)."""
    from sklearn.feature_extraction.text import TfidfTransformer

    state = vars(transformer) if isinstance(transformer, TfidfTransformer) else {}
    idf = state.get("idf_")
    if idf is None and "_idf_diag" in state:
        idf = np.asarray(state["_idf_diag"].diagonal())
    if not isinstance(idf, np.ndarray) or idf.dtype != np.float64 or idf.shape != (size,) \
            or not np.isfinite(idf).all() or (idf < 1).any():
        what = (f"{idf.dtype} {idf.shape}" if isinstance(idf, np.ndarray)
                else type(idf).__name__)
        raise UnsafePickle(f"{path}: {key!r}: its IDF weights are {what}; expected {size} "
                           "finite float64 values >= 1 (one per vocabulary term)")
    return idf.copy()


def pickle_url(name: str) -> str:
    """The pinned URL of one of the reference's vectorizer files.

    >>> pickle_url("tfidfngrams_mud_subset_1-2grams.pkl")[:80]
    'https://raw.githubusercontent.com/rrivera1849/STEB/aa8f06614faa6a66faa8df489ff61'
    """
    if name not in REFERENCE_PICKLES:
        raise ValueError(f"unknown reference vectorizer {name!r}; known: "
                         f"{sorted(REFERENCE_PICKLES)}")
    return (f"https://raw.githubusercontent.com/{REFERENCE_REPOSITORY}/"
            f"{REFERENCE_PICKLES[name].commit}/models/{name}")


def representations(texts: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """The three views the vectorizers read: raw texts, lowercased spaCy tokens joined by
    spaces, and spaCy part-of-speech tags joined by spaces (English pipeline)."""
    from stebkit.datasets.features import spacy_pipeline

    nlp = spacy_pipeline("en")
    tokens, tags = [], []
    for doc in nlp.pipe(list(texts), batch_size=200):
        tokens.append(" ".join(t.text.lower() for t in doc))
        tags.append(" ".join(t.pos_ for t in doc))
    return list(texts), tokens, tags


class PickledTfidfEncoder(_ConcatenatedEpisodes):
    """One of the reference's fitted TF-IDF vectorizer bundles as an encoder.

    Parameters
    ----------
    source : str or path
        A name of :data:`REFERENCE_PICKLES` (fetched at its pinned commit through
        :func:`stebkit.sources.fetch`, so a mirror or cache copy works offline), or a
        local copy of one of those files (recognised by its sha256, or by its file name
        where no sha256 is recorded). Any other file is refused (:class:`UnsafePickle`)
        before it is unpickled.

    Examples
    --------
    >>> enc = PickledTfidfEncoder("tfidfngrams_mud_subset_1-3grams.pkl")  # nothing loaded yet
    >>> enc.name, enc.commit
    ('tfidfngrams_mud_subset_1-3grams.pkl', 'e600cb4f14e513836da97044021fa46f791051b1')
    """

    max_length = None

    def __init__(self, source: str | os.PathLike[str]) -> None:
        name = str(source)
        self._path: Path | None = None
        if name not in REFERENCE_PICKLES:  # a local file: which published bundle is it?
            self._path = Path(source)
            name = _published_name(self._path)
        self.name = name
        self.commit = REFERENCE_PICKLES[name].commit
        self._sha256: str | None = None  # of the copy found and admitted (:meth:`_resolve`)
        self._vecs: dict[str, Any] | None = None

    @property
    def revision(self) -> str:  # type: ignore[override]
        """``sha256:<digest>`` of the bundle's bytes: what the embedding cache is keyed by
        and what a record names, so that vectors are served only to a run that found
        these very bytes and admitted them. Before a copy is found (none here, or one
        refused): ``<commit> (no admitted copy)``, which keys nothing that was ever
        stored."""
        try:
            return f"sha256:{self._resolve()}"
        except (StebkitError, OSError):
            return f"{self.commit} (no admitted copy)"

    def _resolve(self) -> str:
        """Find the bundle's copy (fetched at the pinned commit unless a local file was
        given), admit it (:meth:`_trust`) and return its sha256; once per encoder."""
        if self._sha256 is None:
            from stebkit import sources

            url = self._url()
            published = REFERENCE_PICKLES[self.name].sha256
            pin = published or sources.downloaded_sha256(url)
            path = self._path if self._path is not None else self._fetch(url, pin)
            actual = sources.file_sha256(path)
            if published is None:
                self._trust(url, pin, path, actual)
            elif actual != published:
                raise UnsafePickle(f"{path}: sha256 {actual} is not the published {published}"
                                   f" of {self.name}; the file was not loaded")
            self._path, self._sha256 = path, actual
        return self._sha256

    def _fetch(self, url: str, pin: str | None) -> Path:
        """The bundle's file from the cache, a mirror or the network; one that cannot be
        had is a :class:`~stebkit.errors.ModelUnavailable` naming the missing model file
        (never a dataset that could not be loaded)."""
        from stebkit import sources
        from stebkit.errors import DataUnavailable, ModelUnavailable

        try:
            return sources.fetch(url, sha256=pin)
        except DataUnavailable as err:
            raise ModelUnavailable(f"model {self.name}: its model file (the reference's "
                                   f"fitted TF-IDF bundle) is missing: {err}") from None

    def _load(self) -> dict[str, Any]:
        if self._vecs is None:
            digest = self._resolve()
            assert self._path is not None
            # the bytes unpickled are those the revision names (checked again on reading)
            self._vecs = load_vectorizers(self._path, sha256=digest)
        return self._vecs

    def _url(self) -> str:
        return pickle_url(self.name)

    def _trust(self, url: str, pin: str | None, path: Path, actual: str) -> None:
        """Decide whether a copy of a bundle without a published sha256 may be used: one
        that stebkit downloaded itself is pinned (trusted on first use), any other copy is
        checked against that pin; a download-cache copy stebkit did not download is
        refused, and an unpinned mirror or local copy is used with a warning."""
        import warnings

        from stebkit import sources

        own = sources.downloaded_sha256(url)
        if pin is not None:
            if actual != pin:
                raise UnsafePickle(f"{path}: sha256 {actual} is not {pin}, the sha256 "
                                   f"pinned when stebkit downloaded {self.name}; the file was "
                                   "not loaded. Replace it with the downloaded copy")
            return
        if path == sources.cache_path(url):
            if own is None:
                raise UnsafePickle(
                    f"{path}: this copy of {self.name} is in the download cache, but "
                    "stebkit did not download it (no download record), so it is not trusted; "
                    f"delete it and {sources.record_path(path)} to download the "
                    "reference's file")
            warnings.warn(f"{self.name}: stebkit records no published sha256 for it; the copy "
                          f"it downloaded, {path} (sha256 {own}), is trusted on first "
                          "use and pinned: every later copy must have this sha256",
                          UserWarning, stacklevel=3)
            return
        warnings.warn(f"{self.name}: stebkit records no published sha256 for it and has not "
                      f"downloaded it, so the mirror or local copy of {url} (file "
                      f"{path.name}, sha256 {actual}) cannot be verified: it is used "
                      "unpinned (its settings checked, its vectorizers rebuilt from its "
                      "arrays), and its numbers are as good as its source",
                      UserWarning, stacklevel=3)

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        """The width of the concatenated vectors (0 until the vectorizers are loaded)."""
        if self._vecs is None:
            return 0
        return sum(len(v.vocabulary_) for v in self._vecs.values())

    def encode(self, texts: Sequence[str], *, batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        from stebkit.encoders.base import check_texts

        del batch_size, show_progress
        vecs = self._load()
        views = representations(check_texts(texts, warn_empty=False))
        parts = [vecs[k].transform(v).toarray() for k, v in zip(BUNDLE_KEYS, views,
                                                                 strict=True)]
        return np.concatenate(parts, axis=1).astype(np.float32)


def _published_name(path: Path) -> str:
    """The name of the published bundle ``path`` is a copy of (by its sha256)."""
    from stebkit.sources import file_sha256

    if not path.is_file():
        raise UnsafePickle(f"{path}: no such file, and not a name of a reference vectorizer "
                           f"bundle ({', '.join(sorted(REFERENCE_PICKLES))})")
    actual = file_sha256(path)
    for name, ref in REFERENCE_PICKLES.items():
        if ref.sha256 is not None and ref.sha256 == actual:
            return name
    if path.name in REFERENCE_PICKLES and REFERENCE_PICKLES[path.name].sha256 is None:
        return path.name  # no published sha256: checked against the pin, if one is recorded
    raise UnsafePickle(f"{path}: sha256 {actual} is none of the published reference "
                       "vectorizer bundles, so it is not loaded (a pickle can run code, and "
                       "only the published bundles are known to be safe and to give the "
                       f"published numbers); use a name of {sorted(REFERENCE_PICKLES)}")
