"""Linguistic-feature probing datasets, built the way the STEB reference builds them.

For a pool of real texts, one LFTK feature is measured on every text, the values are
cut into quantile bins (the label is the bin), the bins are balanced by
down-sampling each to the size of the smallest one, and every bin is split
80/10/10 into train/validation/test. A probe trained on embeddings then shows how
much of the feature an embedding keeps.

The reference procedure, step by step (STEB ``scripts/probing``):

1. keep texts of at least 32 spaCy tokens (``t_word`` counts every token);
2. shuffle the texts once with the seed;
3. ``pandas.qcut`` into ``n_bins`` quantile bins with ``duplicates="drop"``: when
   ties make two bin edges equal, the bins merge and fewer labels remain; a value on
   an edge falls into the lower bin (intervals are closed on the right);
4. ``n = min(smallest bin, max_total // number of bins)`` texts are drawn at random
   from every bin, shuffled, and the first ``int(0.8 n)`` go to train, the next
   ``int(0.1 n)`` to validation and the rest to test.

The lite datasets measure five of the reference's foundation features on a fixed
subset of UD English-EWT web documents (answers, e-mail, newsgroups, reviews,
weblogs): the 600 source files whose sha256 sorts first (listed in
``_pools/ud_ewt_probing_files.txt``), of which the first 500 long enough texts are
used (smoke: the first 240 files, at most 200 texts). All five share one text set, so
features are computed once per process and embeddings can be cached across them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stebkit.datasets.lite import LITE_SUITES
from stebkit.datasets.readers.text import report_dropped
from stebkit.datasets.spec import DatasetSpec, License, Source, TaskConfig

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MIN_TOKENS", "PROBING_FEATURES", "SPECS", "probing_records"]

MIN_TOKENS = 32
"""The reference's minimum text length in spaCy tokens."""


_EWT = ("https://raw.githubusercontent.com/UniversalDependencies/UD_English-EWT/"
        "15d613d8447b3478787d4c278730a1e48a945efb/")
_FILE_LIST = "ud_ewt_probing_files.txt"
_SIZES = {False: (600, 500), True: (240, 200)}  # smoke -> (files read, texts kept)

PROBING_FEATURES: dict[str, str] = {
    "t_punct": "number of punctuation marks",
    "t_stopword": "number of stop words",
    "t_subtlex_us_zipf": "summed SUBTLEX-US Zipf word frequency",
    "n_pron": "number of pronouns",
    "n_adj": "number of adjectives",
}
"""The foundation features that get a lite probing dataset: feature key -> meaning."""


def probing_records(texts: Sequence[str], values: Sequence[float], *, feature_name: str,
                    seed: int = 42, n_bins: int = 5, max_total: int = 38_400) -> pd.DataFrame:
    """Probing records for one feature: quantile-bin labels and balanced splits.

    Parameters
    ----------
    texts : sequence of str
        The texts.
    values : sequence of float
        The feature value of each text. Texts whose value is NaN are left out, with a
        :class:`~stebkit.datasets.readers.text.DroppedRowsWarning` giving the count.
    feature_name : str
        Name of the feature, recorded in the ``feature`` column.
    seed : int, default 42
        Seeds the shuffle, the down-sampling and the splits.
    n_bins : int, default 5
        Number of quantile bins (fewer when tied edges merge bins).
    max_total : int, default 38400
        At most ``max_total // number of bins`` texts per bin (the reference's cap).

    Returns
    -------
    pandas.DataFrame
        Columns ``text``, ``label`` (the bin, ``"0"`` = lowest values), ``split``
        (train/validation/test), ``value`` and ``feature``; every bin has the same
        number of rows. Rows keep the order of ``texts``.

    Examples
    --------
    >>> texts = [f"text {i}" for i in range(50)]
    >>> df = probing_records(texts, list(range(50)), feature_name="toy", seed=0)
    >>> df.groupby("label").size().tolist()
    [10, 10, 10, 10, 10]
    >>> df.groupby("label")["split"].value_counts().unstack().iloc[0].to_dict()
    {'test': 1, 'train': 8, 'validation': 1}
    """
    import numpy as np
    import pandas as pd

    vals = _checked_values(texts, values, feature_name=feature_name, n_bins=n_bins,
                           max_total=max_total)
    keep = ~np.isnan(vals)
    report_dropped(f"probing {feature_name}", int((~keep).sum()), len(vals), "no feature value")
    frame = pd.DataFrame({"text": list(texts), "value": vals})[keep]
    out = _binned_splits(frame, feature_name=feature_name, seed=seed, n_bins=n_bins,
                         max_total=max_total)
    out["feature"] = feature_name
    return out[["text", "label", "split", "value", "feature"]].reset_index(drop=True)


def _checked_values(texts: Sequence[str], values: Sequence[float], *, feature_name: str,
                    n_bins: int, max_total: int) -> Any:
    """The feature values as a float64 array (NaN for a missing one), after checking the
    arguments of :func:`probing_records`."""
    import numpy as np

    if isinstance(texts, str) or isinstance(values, str):
        raise TypeError("texts and values must be sequences, not a single string")
    if len(texts) != len(values):
        raise ValueError(f"texts and values differ in length ({len(texts)} vs {len(values)})")
    if not isinstance(n_bins, int) or n_bins < 2:
        raise ValueError(f"n_bins must be an int >= 2, got {n_bins!r}")
    if not isinstance(max_total, int) or max_total < n_bins:
        raise ValueError(f"max_total must be an int >= n_bins, got {max_total!r}")
    try:
        vals = np.asarray(values, dtype="float64")
    except (TypeError, ValueError) as err:
        raise TypeError(f"values for {feature_name!r} must be numbers: {err}") from err
    if np.isinf(vals).any():
        raise ValueError(f"values for {feature_name!r} contain infinities")
    return vals


def _binned_splits(frame: pd.DataFrame, *, feature_name: str, seed: int, n_bins: int,
                   max_total: int) -> pd.DataFrame:
    """The rows of ``frame`` (texts with a value) in quantile bins of equal size, each bin
    split 80/10/10 into train, validation and test, in the order of ``frame``."""
    import numpy as np
    import pandas as pd

    if len(frame) < n_bins:
        raise ValueError(f"probing {feature_name!r}: {len(frame)} texts with a value, need at "
                         f"least n_bins={n_bins}")
    if frame["value"].nunique() < 2:
        raise ValueError(f"probing {feature_name!r}: all values are equal, nothing to probe")
    rng = np.random.default_rng(seed)
    frame = frame.iloc[rng.permutation(len(frame))]
    bins = pd.qcut(frame["value"], q=n_bins, labels=False, duplicates="drop")
    n_labels = int(bins.max()) + 1
    counts = bins.value_counts()
    per_bin = int(min(counts.min(), max_total // n_labels))
    n_train, n_val = int(0.8 * per_bin), int(0.1 * per_bin)
    parts = []
    for label in range(n_labels):
        members = np.flatnonzero(bins.to_numpy() == label)
        chosen = rng.permutation(rng.choice(members, size=per_bin, replace=False))
        split = (["train"] * n_train + ["validation"] * n_val
                 + ["test"] * (per_bin - n_train - n_val))
        part = frame.iloc[chosen].assign(label=str(label), split=split)
        parts.append(part)
    return pd.concat(parts).sort_index()


def _file_list() -> list[tuple[str, str]]:
    """(url, sha256) of the fixed UD EWT document subset, in selection order."""
    text = (Path(__file__).parent / "_pools" / _FILE_LIST).read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            sha, path = line.split("  ", 1)
            rows.append((_EWT + path, sha))
    return rows


@cache
def _ewt_feature_table(smoke: bool) -> Any:
    """Texts of the subset (>= MIN_TOKENS tokens) with their probing feature values."""
    from stebkit.datasets.features import lftk_features
    from stebkit.datasets.readers.conllu import read_document
    from stebkit.sources import fetch

    n_files, n_texts = _SIZES[smoke]
    texts = [" ".join(read_document(fetch(url, sha256=sha, show_progress=False))["paragraphs"])
             for url, sha in _file_list()[:n_files]]
    table = lftk_features(texts, features=["t_word", *PROBING_FEATURES])
    table.insert(0, "text", texts)
    long_enough = table[table["t_word"] >= MIN_TOKENS]
    report_dropped("UD EWT probing texts", len(table) - len(long_enough), len(table),
                   f"fewer than {MIN_TOKENS} tokens")
    return long_enough.head(n_texts).reset_index(drop=True)


def read_ewt_probing(spec: DatasetSpec, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Reader of the UD EWT probing datasets (``spec.reader_options['feature']``)."""
    feature = spec.reader_options["feature"]
    table = _ewt_feature_table(bool(smoke))
    return probing_records(table["text"].tolist(), table[feature].tolist(),
                           feature_name=feature, seed=seed)


SPECS: list[DatasetSpec] = [
    DatasetSpec(
        name=f"ud-ewt-probing-{feature}",
        description=(f"UD English-EWT web documents (answers, e-mail, newsgroups, reviews, "
                     f"weblogs); label = quintile of the {meaning} (LFTK {feature}), balanced "
                     f"bins, 80/10/10 splits"),
        languages=("en",),
        source=Source(urls=tuple(_file_list()),
                      note="UniversalDependencies/UD_English-EWT not-to-release/sources, "
                           "fixed 600-document subset"),
        license=License("CC-BY-SA-4.0",
                        url="https://creativecommons.org/licenses/by-sa/4.0/"),
        label=f"quantile bin of {feature}",
        tasks={"probing": TaskConfig(episode_sizes=(1,), episodes_per_label=1)},
        category="linguistic_features",
        application="linguistic_probing",
        citation=("Silveira et al. (2014), A Gold Standard Dependency Corpus for English, "
                  "LREC; Lee & Lee (2023), LFTK: Handcrafted Features in Computational "
                  "Linguistics, BEA"),
        reader=read_ewt_probing,
        reader_version=2,  # 2: larger smoke text set, so every split has texts
        reader_options={"feature": feature},
        offline=True,
        suites=LITE_SUITES,
        tested_on="mirror",  # tests/test_probing_sets.py reads the real documents
    )
    for feature, meaning in PROBING_FEATURES.items()
]
"""One lite probing dataset per feature of :data:`PROBING_FEATURES`."""
