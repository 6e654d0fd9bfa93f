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
bundle could hold a token pattern whose matching never ends, or just other numbers). The
published files are not mirrored, so their sha256 is not recorded yet: until it is, the
copy met first is trusted on first use, with a warning naming its sha256. Either way the
bundle's settings must be the reference's (:func:`load_vectorizers`) before it is used.
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
    copy met first is trusted on first use (its sha256 is recorded at its first download,
    and a later change of it is refused), with a warning naming it, and its settings are
    checked before use (:func:`load_vectorizers`)."""


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
    :class:`RestrictedUnpickler` and check it.

    The sha256 is checked first: a file that differs is not unpickled at all (even the
    allowed types can carry a tokenizer pattern whose matching never ends). ``None`` (a
    bundle whose published sha256 is not recorded) skips that check only. Every bundle's
    settings are then checked against the reference's (:data:`ANALYZERS`, the word token
    pattern :data:`WORD_TOKEN_PATTERN`, n-grams of at most 5 units), so a planted pattern
    is refused before it can match anything.

    Returns
    -------
    dict
        ``char_vec``, ``tok_vec``, ``pos_vec``: fitted ``TfidfVectorizer`` objects.

    Raises
    ------
    UnsafePickle
        The file's sha256 is not ``sha256``, it names a forbidden global, or it is not a
        bundle of three fitted vectorizers with string analyzers (no callables).
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
    for key in BUNDLE_KEYS:
        vec = bundle[key]
        if not isinstance(vec, TfidfVectorizer) or not hasattr(vec, "vocabulary_"):
            raise UnsafePickle(f"{path}: {key!r} is not a fitted TfidfVectorizer")
        if not isinstance(vec.analyzer, str) or vec.tokenizer is not None or \
                vec.preprocessor is not None:
            raise UnsafePickle(f"{path}: {key!r} carries a callable analyzer, tokenizer or "
                               "preprocessor")
        _check_settings(path, key, vec)
    return {k: bundle[k] for k in BUNDLE_KEYS}


def _check_settings(path: Path, key: str, vec: Any) -> None:
    """Refuse a vectorizer whose settings are not those the reference fits with."""
    low, high = (vec.ngram_range if isinstance(vec.ngram_range, tuple) and
                 len(vec.ngram_range) == 2 else (None, None))
    problems = []
    if vec.analyzer != ANALYZERS[key]:
        problems.append(f"analyzer {vec.analyzer!r} (the reference: {ANALYZERS[key]!r})")
    if vec.analyzer == "word" and vec.token_pattern != WORD_TOKEN_PATTERN:
        problems.append(f"token_pattern {vec.token_pattern!r} (the reference: "
                        f"{WORD_TOKEN_PATTERN!r})")
    if not (isinstance(low, int) and isinstance(high, int) and 1 <= low <= high <= 5):
        problems.append(f"ngram_range {vec.ngram_range!r} (expected 1 <= low <= high <= 5)")
    if problems:
        raise UnsafePickle(f"{path}: {key!r} is not a vectorizer of the reference's bundles: "
                           f"{'; '.join(problems)}; it was not used")


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
    from stebkit.features import _spacy_pipeline

    nlp = _spacy_pipeline("en")
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
    >>> enc.name, enc.revision
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
        self.revision = REFERENCE_PICKLES[name].commit
        self._vecs: dict[str, Any] | None = None

    def _load(self) -> dict[str, Any]:
        if self._vecs is None:
            pin = REFERENCE_PICKLES[self.name].sha256
            if self._path is None:
                from stebkit.sources import fetch

                self._path = fetch(pickle_url(self.name), sha256=pin)
            if pin is None:
                import warnings

                from stebkit.sources import file_sha256

                warnings.warn(
                    f"{self.name}: stebkit records no published sha256 for it, so the copy "
                    f"{self._path} (sha256 {file_sha256(self._path)}) is trusted on first "
                    "use: its settings are checked, and a later change of a downloaded copy "
                    "is refused", UserWarning, stacklevel=2)
            self._vecs = load_vectorizers(self._path, sha256=pin)
        return self._vecs

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
        return path.name  # no published sha256 to compare: trusted on first use, checked
    raise UnsafePickle(f"{path}: sha256 {actual} is none of the published reference "
                       "vectorizer bundles, so it is not loaded (a pickle can run code, and "
                       "only the published bundles are known to be safe and to give the "
                       f"published numbers); use a name of {sorted(REFERENCE_PICKLES)}")
