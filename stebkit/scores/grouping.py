"""Dataset groupings of the operational score: the reference's correlation grouping
(Spearman, Ward), its fixed clusters and declared groupings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

MIN_RELIABLE_MODELS = 10
"""Below this many models the correlation grouping is flagged low-confidence."""

REFERENCE = "rrivera1849/STEB, scripts/benchmark_clustering (newest version)"
"""Where the default recipe comes from: the reference's aggregation package in the version
whose ``__main__.py`` writes ``scores.xlsx`` by default (its ``STEB_operational`` and
``STEB_definitional`` sheets feed the published leaderboard) and sets
``_DEFAULT_THRESHOLD = 0.5`` (stored at an unrecorded commit; the older stored versions,
e.g. commit 2919bdfb13d69db0a35fe6c67a272578bcdef0b2, cut at 1.0 and keep
``--complete-datasets`` optional)."""

DEFAULT_THRESHOLD = 0.5
"""Ward cut height (``_DEFAULT_THRESHOLD`` of the reference's newest ``__main__.py``;
its older versions and stebkit before used 1.0)."""

REFERENCE_EXCLUDED_MODELS = ("avgs_typetoken_read.yaml", "lftk", "tfidf", "tfidfngrams")
"""Models the reference never scores (``EXCLUDED_MODELS`` of its
``scripts/benchmark_clustering/config.py``; ``discovery.py`` skips them): with
``grouping_models="reference"`` (the default) they are left out of both scores."""

GROUPING_EXCLUDED_MODELS = (*REFERENCE_EXCLUDED_MODELS, "tfidf-word", "tfidf-char", "random")
"""Models left out of the correlation grouping, still scored, with
``grouping_models="without_baselines"``: the reference's excluded models, stebkit's
TF-IDF baselines and its random baseline. Names starting with ``tfidfngrams`` are left out
too."""

NON_ENGLISH_DATASETS = (
    *(f"pan13_authorship_verification_{lang}_test" for lang in ("greek", "spanish")),
    *(f"pan14_authorship_verification_corpus{c}_{part}_test" for c in (1, 2)
      for part in ("dutch_essays", "dutch_reviews", "greek_articles", "spanish_articles")),
    *(f"pan15_authorship_verification_{lang}_test" for lang in ("dutch", "greek", "spanish")),
    *(f"pan18_cross_domain_authorship_attribution_{lang}"
      for lang in ("french", "italian", "polish", "spanish")),
)
"""The datasets the reference leaves out as non-English (``NON_ENGLISH_DATASETS`` of its
``scripts/benchmark_clustering/config.py``, commit 5aa5811ee8e4 and the newest stored
version): 17 PAN sets. Its AuthBench attribution sets in other languages are not listed,
so the reference scores them."""


def _grouping_excluded(model: str) -> bool:
    return model in GROUPING_EXCLUDED_MODELS or model.startswith("tfidfngrams")


def reference_datasets() -> set[str]:
    """Every name (stebkit's and the reference's) of a dataset the reference supports:
    the STEB catalogue's entries (``discovery.discover_scores`` reads every supported
    dataset, listed in the cluster file or not)."""
    try:
        from stebkit.datasets.catalogue import SPECS
    except ImportError:
        return set()
    return {n for s in SPECS if s.steb_name for n in (s.name, s.steb_name)}


def listed_datasets() -> set[str]:
    """Every name (stebkit's and the reference's) of a dataset in the reference's cluster
    file (``stebkit/data/dataset_clusters.yaml``)."""
    return {a for entries in reference_clusters().values() for e in entries
            for a in e["aliases"]}


def unlisted_datasets(df: pd.DataFrame, unlisted: str, score: str
                      ) -> tuple[pd.DataFrame, list[str]]:
    """Leave out the datasets the reference does not score (the recipe's ``unlisted``,
    :data:`~stebkit.scores.recipe.UNLISTED`) for ``score`` ("operational" or
    "definitional"); return the kept rows and the names left out.

    >>> df = pd.DataFrame({"dataset": ["authbench_attribution_de", "core", "mine"]})
    >>> unlisted_datasets(df, "reference_datasets", "operational")[1]
    ['mine']
    >>> unlisted_datasets(df, "cluster_file", "operational")[1]
    ['authbench_attribution_de', 'mine']
    """
    if unlisted == "all" or df.empty:
        return df, []
    known = (reference_datasets() if unlisted == "reference_datasets" and
             score == "operational" else listed_datasets())
    out = sorted(set(df["dataset"]) - known)
    if len(out) == df["dataset"].nunique():
        return df, []  # an offline or custom suite: nothing to follow, score everything
    return df[~df["dataset"].isin(out)].reset_index(drop=True), out


def dataset_correlation(matrix: pd.DataFrame) -> pd.DataFrame:
    """Pairwise Spearman correlation of the dataset columns across models.

    Each pair is ``scipy.stats.spearmanr`` of its two columns, as the reference's
    ``auto_cluster.compute_correlation_matrix`` (``scripts/benchmark_clustering``, commit
    60a1442358d0) computes it, so a correlation exactly at the cut decides as there:
    ranks (1, 2, 3) and (1, 3, 2) give 0.5 exactly, not 0.4999999999999999 as a product
    of centred ranks does. An undefined correlation (a constant column) counts as 0.

    >>> m = pd.DataFrame({"a": [1, 2, 3], "b": [2, 4, 9], "c": [3, 2, 1], "d": [1, 3, 2]})
    >>> dataset_correlation(m).values.tolist()[0]
    [1.0, 1.0, -1.0, 0.5]
    """
    x = matrix.to_numpy(dtype=float)
    if np.isnan(x).any():
        raise ValueError("matrix has missing values; drop incomplete datasets first")
    import warnings

    from scipy.stats import spearmanr

    n = x.shape[1]
    corr = np.ones((n, n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant column: undefined, counted as 0
        for i in range(n):
            for j in range(i + 1, n):
                rho = float(spearmanr(x[:, i], x[:, j])[0])
                corr[i, j] = corr[j, i] = 0.0 if np.isnan(rho) else rho
    return pd.DataFrame(corr, index=matrix.columns, columns=matrix.columns)


def dataset_linkage(corr: pd.DataFrame) -> np.ndarray:
    """Ward linkage of the datasets from their correlation matrix (reference recipe).

    Distance ``clip(1 - rho, 0, 2)``, zero diagonal, symmetrised, condensed with
    ``squareform`` and linked with ``scipy.cluster.hierarchy.linkage(method="ward")``.
    """
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    dist = np.clip(1.0 - corr.to_numpy(dtype=float), 0.0, 2.0)
    np.fill_diagonal(dist, 0.0)
    dist = (dist + dist.T) / 2.0
    return linkage(squareform(dist, checks=False), method="ward")


def correlation_groups(matrix: pd.DataFrame, *, threshold: float = DEFAULT_THRESHOLD
                       ) -> dict[str, list[str]]:
    """Group redundant datasets: Ward clusters of Spearman distances cut at ``threshold``.

    Returns ``{"cluster_<k>": [datasets]}`` with scipy's ``fcluster`` labels.

    >>> m = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 2, 4, 3], "c": [4, 3, 2, 1]})
    >>> correlation_groups(m)
    {'cluster_1': ['a', 'b'], 'cluster_2': ['c']}
    """
    cols = list(matrix.columns)
    if len(cols) < 2:
        return {"cluster_1": cols} if cols else {}
    from scipy.cluster.hierarchy import fcluster

    labels = fcluster(dataset_linkage(dataset_correlation(matrix)), t=threshold,
                      criterion="distance")
    groups: dict[str, list[str]] = {}
    for name, lab in zip(cols, labels, strict=True):
        groups.setdefault(f"cluster_{lab}", []).append(name)
    return dict(sorted(groups.items()))


@lru_cache(maxsize=1)
def _reference_yaml() -> dict[str, list[dict[str, Any]]]:
    from importlib.resources import files

    import yaml

    raw = yaml.safe_load((files("stebkit") / "data" / "dataset_clusters.yaml").read_text())
    out: dict[str, list[dict[str, Any]]] = {}
    for cluster, body in raw.items():
        entries: list[dict[str, Any]] = []
        for item in body["datasets"]:
            for one in (item if isinstance(item, list) else [item]):
                entry = {"name": one} if isinstance(one, str) else dict(one)
                entry.setdefault("oa_metric", None)
                entry.setdefault("oa_only", False)
                entries.append(entry)
        out[cluster] = entries
    return out


def _name_map() -> dict[str, str]:
    """Reference dataset name -> stebkit dataset name, from the catalogue's specs."""
    try:
        from stebkit.datasets.catalogue import SPECS
    except ImportError:
        return {}
    return {s.steb_name: s.name for s in SPECS if s.steb_name}


def reference_clusters() -> dict[str, list[dict[str, Any]]]:
    """The reference's fixed clusters, with dataset names mapped to stebkit names.

    Each entry is ``{"name", "oa_metric", "oa_only", "aliases"}`` (``aliases``: the
    stebkit and the reference name, both recognised in results); see
    ``stebkit/data/dataset_clusters.yaml``.

    >>> sorted(reference_clusters())[:3]
    ['authorship_retrieval', 'authorship_verification', 'demographics']
    """
    names = _name_map()
    return {c: [{**e, "name": names.get(e["name"], e["name"]),
                 "aliases": (names.get(e["name"], e["name"]), e["name"])} for e in entries]
            for c, entries in _reference_yaml().items()}


def fixed_groups(datasets: Sequence[str]) -> dict[str, list[str]]:
    """Partition ``datasets`` by the reference's fixed clusters (first listing wins).

    Datasets the reference does not list form one group each.

    >>> fixed_groups(["pan20_authorship_verification_test", "enron_authorship_corpus",
    ...               "my_offline_set"])  # doctest: +NORMALIZE_WHITESPACE
    {'authorship_verification': ['enron_authorship_corpus',
                                 'pan20_authorship_verification_test'],
     'my_offline_set': ['my_offline_set']}
    """
    owner: dict[str, str] = {}
    for cluster, entries in reference_clusters().items():
        for e in entries:
            for alias in e["aliases"]:
                owner.setdefault(alias, cluster)
    return _partition(datasets, owner)


def _partition(datasets: Sequence[str], owner: Mapping[str, str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for d in sorted(datasets):
        groups.setdefault(owner.get(d, d), []).append(d)
    return groups


def _declared_groups(datasets: Sequence[str], grouping: Mapping[str, Any]
                     ) -> dict[str, list[str]]:
    owner: dict[str, str] = {}
    for key, value in grouping.items():
        if isinstance(value, str):
            owner[key] = value
        elif isinstance(value, Iterable):
            for d in value:
                owner[d] = key
        else:
            raise TypeError(f"grouping[{key!r}] must be a group name or a list of datasets, "
                            f"got {type(value).__name__}")
    return _partition(datasets, owner)
