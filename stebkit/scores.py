"""Operational and definitional STEB scores, with bootstrap intervals.

The STEB reference reports two scores (its ``scripts/benchmark_clustering`` package
and ``docs/leaderboard.md``):

Operational score
    Per task, a models x datasets matrix of the task's main metric (default
    exclusions: non-English and semantic-control datasets; datasets that not every
    model has are dropped). Datasets are grouped so that redundant datasets count once:

    - ``grouping="correlation"`` (the reference): Spearman correlation between the
      dataset columns across models (an undefined correlation counts as 0), distance
      ``clip(1 - rho, 0, 2)`` with a zero diagonal, Ward linkage of the condensed
      distance matrix (``scipy.cluster.hierarchy.linkage(squareform(d), "ward")``),
      flat clusters cut with ``fcluster(Z, t=threshold, criterion="distance")``.
      The cut defaults to ``threshold=1.0`` (roughly: datasets whose rankings
      correlate positively fall together), the reference's library default and the
      command-line default of most of its versions (one version's command line uses
      0.5, which splits more finely). The grouping moves when models are added and is
      unreliable with fewer than 10 models (a warning says so).
    - ``grouping="fixed"``: the reference's hand-made clusters
      (``stebkit/data/dataset_clusters.yaml``, transcribed from the reference's
      ``scripts/dataset_clusters.yaml``); a dataset listed in several clusters belongs
      to the first. Datasets the reference does not list (the offline suites) form one
      group each. Scores do not move when models are added.
    - a mapping ``{dataset: group}`` or ``{group: [datasets]}``: a declared grouping;
      unlisted datasets form one group each.

    Task score = mean over groups of the group means; STEB score = mean of the task
    scores a model has. Results of user suites (:mod:`stebkit.suites`: classification,
    nDCG retrieval and the STEB families on the suite's datasets) are aggregated by the
    same recipe, so the score of a suite-only run is its tasks' mean. With several
    episode sizes, each (model, dataset, task) uses the first episode size of the
    reference preset for the task (size 1 for clustering and all-to-all pairs), else its
    smallest size, as the reference does.

Definitional score (Wegmann et al.'s definition of style, as the reference computes it)
    For each definitional cluster — genre, register, time, demographics, dialect,
    idiolect, linguistic features (the reference's ``predefined_features``) and content
    independence (``style_vs_content``) — one column per (task, metric): the mean over
    the cluster's datasets evaluated by every model of that column; the cluster score is
    the mean of its columns. Order alignment enters the style clusters with its plain
    accuracy (``acc_mean``) and content independence with its distractor accuracy
    (``distractor_acc_mean``, order-alignment results only). Object of Study = mean of
    the six object clusters; Definitional score = mean of Object of Study, Linguistic
    Features and Content Independence. Datasets the reference does not list join the
    cluster of their declared ``dataset_category``, and every order-alignment dataset
    also joins content independence, as all of the reference's do.

Intervals are percentile bootstrap intervals over datasets. Operational: a two-stage
(clustered) bootstrap inside every task — resample the task's groups, and the datasets
inside each group, with replacement (tasks themselves are fixed). Definitional: resample
the datasets inside every cluster column (clusters and axes are fixed by the
definition). The grouping is kept fixed, and the same draw serves every model, so
replicates are paired across models.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from stebkit._io import write_text
from stebkit.published import DEFINITIONAL_AXES, OBJECT_OF_STUDY
from stebkit.tasks import FAMILIES

log = logging.getLogger(__name__)

MIN_RELIABLE_MODELS = 10
"""Below this many models the correlation grouping is flagged low-confidence."""

DEFAULT_THRESHOLD = 1.0
"""Ward cut height of the reference's leaderboard (its command-line default)."""

DEFAULT_EXCLUDE = ("non_english", "semantic_control")
"""Default dataset exclusions, as the reference's (non-English and semantic sets)."""

GROUPING_EXCLUDED_MODELS = ("lftk", "tfidf", "tfidfngrams", "avgs_typetoken_read.yaml",
                            "tfidf-word", "tfidf-char", "random")
"""Models left out of the correlation grouping (they are still scored): the reference's
exclusion list (its LFTK, TF-IDF, TF-IDF n-gram and type-token baselines, in
``scripts/benchmark_clustering/config.py``), stebkit's TF-IDF baselines and its random
baseline (chance, not a model whose ranking should shape the groups). Names starting with
``tfidfngrams`` are left out too."""


CHANCE_MODELS = ("random",)
"""Models that mark the chance level: shown as a reference line, never ranked."""


class MissingResultsWarning(UserWarning):
    """Some model lacks a result (missing, failed or skipped) that the others have."""


DEFINITIONAL_COLUMNS = (*OBJECT_OF_STUDY, *DEFINITIONAL_AXES, "definitional_score")
"""The definitional score columns of a leaderboard (the published file's order)."""

# stebkit definitional category -> the reference's cluster name.
_CATEGORY_CLUSTER = {
    "genre": "genre", "register": "register", "time": "time",
    "demographics": "demographics", "dialect": "dialect", "idiolect": "idiolect",
    "linguistic_features": "predefined_features", "style_vs_content": "style_vs_content",
}
# definitional column -> reference cluster
_DEF_CLUSTERS = {**{c: c for c in OBJECT_OF_STUDY},
                 "linguistic_features": "predefined_features",
                 "content_independence": "style_vs_content"}
_OA = "order_alignment"
_OA_ACC = "acc_mean"
_OA_DISTRACTOR = "distractor_acc_mean"


# --------------------------------------------------------------------------- inputs
def main_frame(results: Any, *, keep_missing: bool = False) -> pd.DataFrame:
    """The main-metric rows of ``results`` as a frame.

    Accepts a :class:`stebkit.results.Results` (anything with ``main_frame()``), a tidy
    frame with ``metric`` and ``is_main`` columns, or a frame already holding one main
    value per row. Rows without a value (failed or skipped results) are dropped (the count
    is logged) unless ``keep_missing``.

    >>> df = pd.DataFrame({"model": ["a"], "dataset": ["d"], "task": ["clustering"],
    ...                    "value": [0.5]})
    >>> main_frame(df)[["model", "value"]].to_dict("records")
    [{'model': 'a', 'value': 0.5}]
    """
    if hasattr(results, "main_frame"):
        df = results.main_frame()
    elif isinstance(results, pd.DataFrame):
        df = results
        if "is_main" in df.columns:
            df = df[df["is_main"].astype(bool)]
    else:
        raise TypeError("results must be a stebkit Results object (with main_frame()) or a "
                        f"pandas DataFrame, got {type(results).__name__}")
    missing = {"model", "dataset", "task", "value"} - set(df.columns)
    if missing:
        raise ValueError(f"results frame lacks column(s) {sorted(missing)}; pass "
                         "Results.main_frame() or Results.to_frame()")
    df = df.copy()
    df["value"] = pd.to_numeric(df["value"], errors="coerce")
    if keep_missing:
        return df.reset_index(drop=True)
    n_nan = int(df["value"].isna().sum())
    if n_nan:
        log.info("dropped %d result row(s) without a value", n_nan)
        df = df[df["value"].notna()]
    return df.reset_index(drop=True)


def _tidy_frame(results: Any) -> pd.DataFrame | None:
    """All metric rows (``to_frame()``) when available, else None."""
    if hasattr(results, "to_frame"):
        df = results.to_frame()
    elif isinstance(results, pd.DataFrame) and "metric" in results.columns:
        df = results
    else:
        return None
    df = df.copy()
    df["value"] = pd.to_numeric(df["value"], errors="coerce")
    return df[df["value"].notna()].reset_index(drop=True)


def apply_exclusions(df: pd.DataFrame, exclude: Iterable[str] | None = DEFAULT_EXCLUDE
                     ) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """Drop excluded datasets; return the kept rows and what was excluded, by reason.

    ``exclude`` holds ``"non_english"`` (``language`` not English),
    ``"semantic_control"`` (``dataset_category == "semantic_control"``) and/or dataset
    names.

    >>> df = pd.DataFrame({"dataset": ["a", "b", "c"], "language": ["en", "de", "en"],
    ...                    "dataset_category": ["genre", "genre", "semantic_control"]})
    >>> kept, why = apply_exclusions(df)
    >>> list(kept["dataset"]), why
    (['a'], {'non_english': ['b'], 'semantic_control': ['c']})
    """
    exclude = [] if exclude is None else ([exclude] if isinstance(exclude, str)
                                          else list(exclude))
    drop = pd.Series(False, index=df.index)
    why: dict[str, list[str]] = {}
    for item in exclude:
        if item == "non_english":
            if "language" not in df.columns:
                continue
            lang = df["language"].astype(str).str.lower()
            english = lang.eq("en") | lang.str.startswith("en-") | lang.str.startswith("en_")
            mask = df["language"].notna() & ~english
        elif item == "semantic_control":
            if "dataset_category" not in df.columns:
                continue
            mask = df["dataset_category"].eq("semantic_control")
        else:
            mask = df["dataset"].eq(item)
        names = sorted(df.loc[mask & ~drop, "dataset"].unique())
        if names:
            why[item] = names
        drop |= mask
    if why:
        log.info("excluded datasets: %s", why)
    return df[~drop].reset_index(drop=True), why


def select_episode_size(df: pd.DataFrame, episode_size: int | None = None) -> pd.DataFrame:
    """Keep one episode size per (dataset, task), the same for every model.

    With ``episode_size=None``: the first size of the family's reference preset when any
    model has a result row at it (``1`` for clustering and all-to-all pairs), else the
    smallest size present for that dataset and task. With an int: exactly that size.
    The size is chosen over every model's rows, failed ones included (pass
    ``main_frame(results, keep_missing=True)``), so a model whose result at that size
    failed has a missing cell there and is never scored on another size than the others.

    >>> df = pd.DataFrame({"model": ["m", "m", "m", "n", "n"], "dataset": "d",
    ...                    "task": "clustering", "episode_size": [5, 1, 2, 1, 2],
    ...                    "value": [0.9, 0.3, 0.5, float("nan"), 0.6]})
    >>> select_episode_size(df)[["model", "episode_size", "value"]].to_dict("records")
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'model': 'm', 'episode_size': 1, 'value': 0.3},
     {'model': 'n', 'episode_size': 1, 'value': nan}]
    """
    if "episode_size" not in df.columns or df.empty:
        return df
    size = pd.to_numeric(df["episode_size"], errors="coerce")
    if episode_size is not None:
        return df[size.eq(episode_size)].reset_index(drop=True)
    preferred = df["task"].map(lambda t: FAMILIES[t].episode_sizes[0]
                               if t in FAMILIES else np.nan)
    order = pd.DataFrame({
        "pref": (~size.eq(preferred)).astype(int),
        # -1 (all texts of a label) sorts after every fixed size
        "size": size.where(size > 0, np.inf),
    }, index=df.index)
    keys = ["dataset", "task"]
    chosen = (pd.concat([df[keys], order, size.rename("_s")], axis=1)
              .sort_values(["pref", "size"], kind="stable")
              .drop_duplicates(keys)[keys + ["_s"]])
    merged = df.assign(_s=size).merge(chosen, on=keys + ["_s"], how="inner")
    unknown = df[size.isna()]  # rows without an episode size: nothing to choose between
    return pd.concat([merged.drop(columns="_s"), unknown], ignore_index=True)


def score_matrix(df: pd.DataFrame, task: str) -> pd.DataFrame:
    """Models x datasets matrix of one task's values (first value per cell)."""
    sub = df[df["task"] == task]
    if sub.empty:
        return pd.DataFrame()
    mat = sub.pivot_table(index="model", columns="dataset", values="value", aggfunc="first")
    mat.columns.name = None
    return mat.sort_index().sort_index(axis=1)


def _grouping_excluded(model: str) -> bool:
    return model in GROUPING_EXCLUDED_MODELS or model.startswith("tfidfngrams")


def _with_missing(matrix: pd.DataFrame, missing: pd.DataFrame, task: str) -> pd.DataFrame:
    """``matrix`` with a NaN cell for every failed or skipped result of ``task``."""
    rows = missing[missing["task"] == task]
    if rows.empty:
        return matrix
    models = sorted(set(matrix.index) | set(rows["model"]))
    datasets = sorted(set(matrix.columns) | set(rows["dataset"]))
    return matrix.reindex(index=models, columns=datasets)


def listed_datasets() -> set[str]:
    """Every name (stebkit's and the reference's) of a dataset in the reference's cluster
    file (``stebkit/data/dataset_clusters.yaml``)."""
    return {a for entries in reference_clusters().values() for e in entries
            for a in e["aliases"]}


def _unlisted(df: pd.DataFrame, include: bool | None) -> tuple[pd.DataFrame, list[str]]:
    """Leave out the datasets absent from the reference's cluster file (see
    :func:`operational`'s ``include_unlisted``); return the kept rows and the names."""
    if include or df.empty:
        return df, []
    listed = listed_datasets()
    out = sorted(set(df["dataset"]) - listed)
    if include is None and len(out) == df["dataset"].nunique():
        return df, []  # an offline or custom suite: nothing to follow, score everything
    return df[~df["dataset"].isin(out)].reset_index(drop=True), out


# --------------------------------------------------------------------------- grouping
def dataset_correlation(matrix: pd.DataFrame) -> pd.DataFrame:
    """Pairwise Spearman correlation of the dataset columns across models.

    An undefined correlation (a constant column) counts as 0, as in the reference.

    >>> m = pd.DataFrame({"a": [1, 2, 3], "b": [2, 4, 9], "c": [3, 2, 1]})
    >>> dataset_correlation(m).round(2).values.tolist()
    [[1.0, 1.0, -1.0], [1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]]
    """
    x = matrix.to_numpy(dtype=float)
    if np.isnan(x).any():
        raise ValueError("matrix has missing values; drop incomplete datasets first")
    from scipy.stats import rankdata

    r = rankdata(x, axis=0)
    r = r - r.mean(axis=0)
    norm = np.sqrt((r ** 2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = (r.T @ r) / np.outer(norm, norm)
    corr = np.where(np.isfinite(corr), corr, 0.0)
    np.fill_diagonal(corr, 1.0)
    return pd.DataFrame(np.clip(corr, -1.0, 1.0), index=matrix.columns,
                        columns=matrix.columns)


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


# --------------------------------------------------------------------------- aggregation
def _nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    """Mean ignoring NaN; NaN where every value is NaN (no warning)."""
    ok = np.isfinite(x)
    n = ok.sum(axis=axis)
    s = np.where(ok, x, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, s / np.maximum(n, 1), np.nan)


def _group_reps(mat: np.ndarray, rng: np.random.Generator | None, n_resamples: int
                ) -> np.ndarray:
    """Group mean per model: point value (models, 1) plus ``n_resamples`` replicates."""
    point = _nanmean(mat, axis=1)[:, None]
    if rng is None or n_resamples == 0:
        return point
    n = mat.shape[1]
    idx = rng.integers(0, n, size=(n_resamples, n))
    reps = _nanmean(mat[:, idx], axis=2)  # (models, B)
    return np.concatenate([point, reps], axis=1)


def _resample_groups(reps: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
    """Mean over groups of (groups, models, 1 + B) replicates; each bootstrap replicate
    also resamples the groups themselves (a two-stage, clustered bootstrap)."""
    point = _nanmean(reps[:, :, :1], axis=0)
    if rng is None or reps.shape[2] == 1:
        return point
    n_groups, _, width = reps.shape
    b = width - 1
    idx = rng.integers(0, n_groups, size=(b, n_groups))
    picked = reps[:, :, 1:][idx, :, np.arange(b)[:, None]]  # (B, groups, models)
    return np.concatenate([point, _nanmean(picked, axis=1).T], axis=1)


@dataclass
class TaskAggregate:
    """One task's operational aggregation: matrix, groups, scores and replicates."""

    task: str
    matrix: pd.DataFrame
    groups: dict[str, list[str]]
    group_scores: pd.DataFrame
    dropped_datasets: list[str] = field(default_factory=list)
    low_confidence: bool = False
    dropped_models: dict[str, list[str]] = field(default_factory=dict)
    grouping_excluded: list[str] = field(default_factory=list)


@dataclass
class Operational:
    """Operational scores of every model: per task, STEB score, and paired replicates.

    ``replicates`` has shape (n_models, 1 + n_resamples): column 0 is the point
    estimate, the rest are bootstrap replicates drawn with the same datasets for every
    model (paired). ``task_replicates`` holds the same per task.
    """

    models: list[str]
    tasks: dict[str, TaskAggregate]
    task_scores: pd.DataFrame
    steb: pd.Series
    replicates: np.ndarray
    task_replicates: dict[str, np.ndarray]
    excluded: dict[str, list[str]]


def operational(results: Any, *, grouping: str | Mapping[str, Any] = "correlation",
                exclude: Iterable[str] | None = DEFAULT_EXCLUDE,
                threshold: float = DEFAULT_THRESHOLD, episode_size: int | None = None,
                min_models: int = 3, n_resamples: int = 1000, seed: int = 42,
                complete_datasets: bool = False,
                include_unlisted: bool | None = None) -> Operational:
    """Operational STEB aggregation (see the module docstring for the recipe).

    Parameters
    ----------
    results : Results or DataFrame
        Evaluation results (anything :func:`main_frame` accepts).
    grouping : {"correlation", "fixed"} or mapping
        How redundant datasets are grouped inside a task.
    exclude : iterable of str or None
        Exclusions for :func:`apply_exclusions`.
    threshold : float
        Ward cut height for ``grouping="correlation"``.
    episode_size : int or None
        Episode size to use (None: the reference rule, see :func:`select_episode_size`).
    min_models : int
        With fewer models, correlation grouping is impossible: every dataset forms its
        own group (with a warning).
    complete_datasets : bool, default False
        Missing results (a model without a value for a dataset, e.g. a failed record):
        by default the model is left out of that task, as the reference does (with a
        :class:`MissingResultsWarning` naming model and datasets); True keeps every model
        and drops the datasets not every model has (the reference's
        ``--complete-datasets``).
    include_unlisted : bool or None
        Datasets absent from the reference's cluster file: False leaves them out, True
        scores them; None (default) leaves them out unless no dataset of the results is
        listed (an offline or custom suite), in which case all are scored.
    n_resamples : int
        Bootstrap replicates (0: none).
    seed : int
        Seed of the bootstrap.

    Examples
    --------
    >>> rows = [("m1", "a", .1), ("m1", "b", .2), ("m2", "a", .3), ("m2", "b", .6)]
    >>> df = pd.DataFrame(rows, columns=["model", "dataset", "value"]).assign(
    ...     task="retrieval")
    >>> op = operational(df, grouping={"a": "g", "b": "g"}, n_resamples=0)
    >>> op.steb.round(3).to_dict()
    {'m1': 0.15, 'm2': 0.45}
    """
    df = main_frame(results, keep_missing=True)
    df, excluded = apply_exclusions(df, exclude)
    df, unlisted = _unlisted(df, include_unlisted)
    if unlisted:
        excluded["not_in_cluster_file"] = unlisted
    df = select_episode_size(df, episode_size)
    missing_rows = df[df["value"].isna()]
    all_models = sorted(df["model"].unique())
    df = df[df["value"].notna()].reset_index(drop=True)
    unknown = sorted(set(df["task"]) - set(FAMILIES))
    if unknown:
        raise ValueError(f"unknown task(s) {unknown} in results; known tasks are "
                         f"{list(FAMILIES)}")
    if not isinstance(grouping, Mapping) and grouping not in ("correlation", "fixed"):
        raise ValueError(f"grouping must be 'correlation', 'fixed' or a mapping, got "
                         f"{grouping!r}")
    models = all_models
    rng = np.random.default_rng(seed) if n_resamples else None
    tasks: dict[str, TaskAggregate] = {}
    task_reps: dict[str, np.ndarray] = {}
    dropped_models: dict[str, dict[str, list[str]]] = {}
    too_few: dict[int, list[str]] = {}  # models in the grouping -> tasks, warned once
    unreliable: dict[int, list[str]] = {}
    for task in FAMILIES:  # STEB's families, then those of user suites
        raw = _with_missing(score_matrix(df, task), missing_rows, task)
        if raw.empty:
            continue
        raw = raw.dropna(axis=1, how="all")  # no model has it: not a missing result
        if complete_datasets:
            mat = raw.dropna(axis=1, how="any")
            dropped = sorted(set(raw.columns) - set(mat.columns))
            if dropped:
                log.info("%s: dropped %d dataset(s) not evaluated by every model: %s",
                         task, len(dropped), dropped)
        else:  # the reference's default: drop the models that miss a dataset
            mat = raw.dropna(axis=0, how="any")
            dropped = []
            gone = {m: sorted(raw.columns[raw.loc[m].isna()]) for m in raw.index
                    if m not in mat.index}
            if gone:
                dropped_models[task] = gone
                warnings.warn(f"{task}: left out {len(gone)} model(s) with missing results "
                              f"(model: missing datasets) {gone}; pass "
                              "complete_datasets=True to drop those datasets instead",
                              MissingResultsWarning, stacklevel=2)
        if mat.shape[1] == 0 or mat.shape[0] == 0:
            continue
        grouping_mat = mat.drop(index=[m for m in mat.index if _grouping_excluded(m)])
        n_models = grouping_mat.shape[0]
        low = False
        if isinstance(grouping, Mapping):
            groups = _declared_groups(list(mat.columns), grouping)
        elif grouping == "fixed":
            groups = fixed_groups(list(mat.columns))
        elif n_models < min_models:
            too_few.setdefault(n_models, []).append(task)
            groups = {d: [d] for d in mat.columns}
            low = True
        else:
            if n_models < MIN_RELIABLE_MODELS and mat.shape[1] > 1:
                unreliable.setdefault(n_models, []).append(task)
                low = True
            groups = correlation_groups(grouping_mat, threshold=threshold)
        full = mat.reindex(models)
        reps = []
        gscores = {}
        for name, cols in groups.items():
            r = _group_reps(full[cols].to_numpy(dtype=float), rng, n_resamples)
            reps.append(r)
            gscores[name] = r[:, 0]
        task_reps[task] = _resample_groups(np.stack(reps), rng)
        tasks[task] = TaskAggregate(task, mat, groups,
                                    pd.DataFrame(gscores, index=models), dropped, low,
                                    dropped_models.get(task, {}),
                                    sorted(set(mat.index) - set(grouping_mat.index)))
    for n, names in too_few.items():
        warnings.warn(f"{', '.join(names)}: only {n} model(s) (correlation grouping needs "
                      f"{min_models}); every dataset forms its own group",
                      UserWarning, stacklevel=2)
    for n, names in unreliable.items():
        warnings.warn(f"{', '.join(names)}: correlation grouping from {n} models (fewer than "
                      f"{MIN_RELIABLE_MODELS}) is unreliable and moves when models are added; "
                      "consider grouping='fixed'", UserWarning, stacklevel=2)
    if not tasks:
        raise ValueError("no task has results left after exclusions; check `exclude` and "
                         "that the results hold main-metric values")
    task_scores = pd.DataFrame({t: r[:, 0] for t, r in task_reps.items()}, index=models)
    steb_reps = _nanmean(np.stack(list(task_reps.values())), axis=0)
    steb = pd.Series(steb_reps[:, 0], index=models, name="steb_score")
    return Operational(models, tasks, task_scores, steb, steb_reps, task_reps, excluded)


# --------------------------------------------------------------------------- definitional
@dataclass
class Definitional:
    """Definitional scores: one column per cluster and axis, plus paired replicates."""

    scores: pd.DataFrame
    replicates: np.ndarray
    columns: dict[str, dict[tuple[str, str], list[str]]]


def _definitional_entries(frame: pd.DataFrame, clusters: Mapping[str, Sequence[Any]] | None
                          ) -> list[tuple[str, str, str | None, bool]]:
    """(cluster, dataset, oa_metric, oa_only) membership for the datasets in ``frame``."""
    present = set(frame["dataset"])
    entries: list[tuple[str, str, str | None, bool]] = []
    listed: set[str] = set()
    source = reference_clusters() if clusters is None else {
        c: [e if isinstance(e, Mapping) else {"name": e} for e in v]
        for c, v in clusters.items()}
    for cluster, items in source.items():
        for e in items:
            aliases = e.get("aliases", (e["name"],))
            listed.update(aliases)
            for name in dict.fromkeys(a for a in aliases if a in present):
                entries.append((cluster, name, e.get("oa_metric"),
                                bool(e.get("oa_only", False))))
    if clusters is None and "dataset_category" in frame.columns:
        cats = frame.drop_duplicates("dataset").set_index("dataset")["dataset_category"]
        oa_sets = set(frame.loc[frame["task"] == _OA, "dataset"])
        for d in sorted(present - listed):
            cluster = _CATEGORY_CLUSTER.get(cats.get(d))
            if cluster == "style_vs_content":
                entries.append((cluster, d, _OA_DISTRACTOR, False))
                continue
            if cluster is not None:
                entries.append((cluster, d, _OA_ACC, False))
            if d in oa_sets:
                entries.append(("style_vs_content", d, _OA_DISTRACTOR, True))
    return entries


def definitional(results: Any, *, exclude: Iterable[str] | None = DEFAULT_EXCLUDE,
                 clusters: Mapping[str, Sequence[Any]] | None = None,
                 episode_size: int | None = None, models: Sequence[str] | None = None,
                 n_resamples: int = 1000, seed: int = 42, complete_datasets: bool = False,
                 include_unlisted: bool | None = None) -> Definitional:
    """Definitional STEB scores (see the module docstring for the recipe).

    ``clusters`` replaces the reference's clusters: ``{cluster: [dataset or
    {"name", "oa_metric", "oa_only"}]}`` with cluster names among genre, register, time,
    demographics, dialect, idiolect, predefined_features and style_vs_content.
    Missing results: each column averages the datasets a model has, as the reference's
    manual clusters (``complete_datasets=True``: only datasets every model has).
    ``include_unlisted`` as :func:`operational` (so AuthBench, absent from the cluster
    file, does not join idiolect by its category unless asked).

    Examples
    --------
    >>> df = pd.DataFrame({"model": ["m1", "m2"], "dataset": "g", "task": "clustering",
    ...                    "value": [0.2, 0.4], "dataset_category": "genre"})
    >>> definitional(df, n_resamples=0).scores["genre"].to_dict()
    {'m1': 0.2, 'm2': 0.4}
    """
    main = apply_exclusions(main_frame(results, keep_missing=True), exclude)[0]
    main, unlisted = _unlisted(main, include_unlisted)
    main = select_episode_size(main, episode_size)
    main = main[main["value"].notna()].reset_index(drop=True)
    tidy = _tidy_frame(results)
    if tidy is not None:
        tidy = tidy[~tidy["dataset"].isin(unlisted)]
        tidy = select_episode_size(apply_exclusions(tidy, exclude)[0], episode_size)
    all_models = sorted(main["model"].unique()) if models is None else list(models)
    main_metric = {}
    if "metric" in main.columns:
        main_metric = dict(zip(zip(main["dataset"], main["task"], strict=True),
                               main["metric"], strict=True))
    entries = _definitional_entries(main, clusters)
    # (cluster, task, metric) -> {dataset: Series(model -> value)}
    cells: dict[tuple[str, str, str], dict[str, pd.Series]] = {}
    warned = False
    for cluster, dataset, oa_metric, oa_only in entries:
        rows = main[main["dataset"] == dataset]
        for task in sorted(rows["task"].unique()):
            if oa_only and task != _OA:
                continue
            metric = main_metric.get((dataset, task), "main")
            if task == _OA and oa_metric and oa_metric != metric:
                if tidy is None or not (tidy["metric"] == oa_metric).any():
                    if not warned:
                        warnings.warn(f"results hold only main metrics: order alignment "
                                      f"enters definitional clusters with its main metric "
                                      f"instead of {oa_metric!r}; pass Results or "
                                      "Results.to_frame()", UserWarning, stacklevel=2)
                        warned = True
                    vals = rows[rows["task"] == task]
                else:
                    metric = oa_metric
                    vals = tidy[(tidy["dataset"] == dataset) & (tidy["task"] == task)
                                & (tidy["metric"] == metric)]
            else:
                vals = rows[rows["task"] == task]
            s = vals.groupby("model")["value"].first()
            if len(s):
                cells.setdefault((cluster, task, metric), {})[dataset] = s
    rng = np.random.default_rng(seed) if n_resamples else None
    width = 1 + (n_resamples if rng is not None else 0)
    nan_rep = np.full((len(all_models), width), np.nan)
    cluster_cols: dict[str, list[np.ndarray]] = {}
    used: dict[str, dict[tuple[str, str], list[str]]] = {}
    for (cluster, task, metric), per_ds in sorted(cells.items()):
        mat = pd.DataFrame(per_ds).reindex(all_models)
        if complete_datasets:
            complete = mat.columns[mat.notna().all(axis=0)]
            dropped = sorted(set(mat.columns) - set(complete))
            if dropped:
                log.info("definitional %s / %s (%s): dropped incomplete dataset(s) %s",
                         cluster, task, metric, dropped)
        else:  # the reference: average what exists
            complete = mat.columns[mat.notna().any(axis=0)]
        if len(complete) == 0:
            continue
        full = mat[sorted(complete)].reindex(all_models).to_numpy(dtype=float)
        cluster_cols.setdefault(cluster, []).append(_group_reps(full, rng, n_resamples))
        used.setdefault(cluster, {})[(task, metric)] = sorted(complete)
    reps: dict[str, np.ndarray] = {}
    for col, cluster in _DEF_CLUSTERS.items():
        cols = cluster_cols.get(cluster)
        reps[col] = _nanmean(np.stack(cols), axis=0) if cols else nan_rep
    reps["object_of_study"] = _nanmean(np.stack([reps[c] for c in OBJECT_OF_STUDY]), axis=0)
    reps["definitional_score"] = _nanmean(np.stack(
        [reps[c] for c in ("object_of_study", "linguistic_features", "content_independence")]),
        axis=0)
    scores = pd.DataFrame({c: reps[c][:, 0] for c in DEFINITIONAL_COLUMNS}, index=all_models)
    return Definitional(scores, reps["definitional_score"], used)


# --------------------------------------------------------------------------- leaderboard
def _ci(reps: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    if reps.shape[1] < 2:
        nan = np.full(reps.shape[0], np.nan)
        return nan, nan
    r = reps[:, 1:]
    lo = np.full(r.shape[0], np.nan)
    hi = np.full(r.shape[0], np.nan)
    for i, row in enumerate(r):
        row = row[np.isfinite(row)]
        if row.size:
            lo[i], hi[i] = np.quantile(row, [alpha / 2, 1 - alpha / 2])
    return lo, hi


class Leaderboard(pd.DataFrame):
    """The frame :func:`leaderboard` returns: a DataFrame whose printout shows every
    column (no score is elided) and then :func:`leaderboard_summary`. Frames derived
    from it (selections, sorts, copies) are plain DataFrames.

    >>> print(Leaderboard({"model": ["a", "b"], "steb_score": [0.5, 0.25]}))
    model  steb_score
        a        0.50
        b        0.25
    """

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def __repr__(self) -> str:
        with pd.option_context("display.precision", 6):  # whatever a notebook set
            text = pd.DataFrame.to_string(self, index=False)
        notes = leaderboard_summary(self)
        return text + ("\n\n" + "\n".join(notes) if notes else "")

    def _repr_html_(self) -> str | None:
        with pd.option_context("display.max_columns", None):
            return super()._repr_html_()


def is_significant(p_value: float, low: float, high: float, alpha: float = 0.05) -> bool:
    """A paired difference is significant: ``p_value < alpha`` and its interval
    ``[low, high]`` excludes zero (a NaN p-value never is).

    >>> is_significant(0.01, 0.02, 0.10), is_significant(0.01, -0.01, 0.10)
    (True, False)
    """
    return bool(np.isfinite(p_value) and p_value < alpha and (low > 0 or high < 0))


def paired_difference(a: np.ndarray, b: np.ndarray, *, alpha: float = 0.05
                      ) -> dict[str, Any]:
    """The difference of two models' scores from their paired bootstrap replicates.

    ``a`` and ``b`` are rows of replicates as :class:`Operational` and
    :class:`Definitional` hold them: column 0 the point estimate, the others bootstrap
    replicates drawn with the same datasets for both models. Returns ``diff`` (point
    estimates), ``low``/``high`` (percentile interval at ``1 - alpha``), ``p_value``
    (twice the smaller share of replicated differences on either side of zero, capped at
    1; NaN when the replicates cannot vary, e.g. one dataset per group) and
    ``significant`` (``p_value < alpha`` and an interval that excludes zero).

    >>> a = np.array([0.60, 0.55, 0.62, 0.58, 0.61])
    >>> b = np.array([0.50, 0.52, 0.49, 0.50, 0.51])
    >>> r = paired_difference(a, b)
    >>> round(r["diff"], 2), r["p_value"], r["significant"]
    (0.1, 0.0, True)
    """
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    boot = d[1:][np.isfinite(d[1:])]
    if boot.size == 0:
        return {"diff": float(d[0]), "low": np.nan, "high": np.nan, "p_value": np.nan,
                "significant": False}
    lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    p = np.nan if np.ptp(boot) == 0 else min(1.0, 2 * min(np.mean(boot <= 0),
                                                           np.mean(boot >= 0)))
    return {"diff": float(d[0]), "low": float(lo), "high": float(hi), "p_value": float(p),
            "significant": is_significant(p, lo, hi, alpha)}


def rank_tiers(resolved: Sequence[bool]) -> list[int]:
    """Tier of each model in rank order, from whether each step to the next model down is
    resolved (``resolved[i]``: model ``i`` is significantly above model ``i + 1``; the
    last entry is ignored). Models joined by unresolved steps share a tier.

    >>> rank_tiers([False, True, False, False])
    [1, 1, 2, 2]
    """
    tiers = [1] if len(resolved) else []
    for step in list(resolved)[:-1]:
        tiers.append(tiers[-1] + int(bool(step)))
    return tiers


def _significance(models: Sequence[str], replicates: Mapping[str, np.ndarray],
                  alpha: float) -> list[dict[str, Any]]:
    """Paired comparisons of a leaderboard: every ranked model against the chance level,
    and each model against the next one down, per score."""
    out: list[dict[str, Any]] = []
    for score, reps in replicates.items():
        if reps.shape[1] < 2:
            continue
        idx = {m: i for i, m in enumerate(models)}
        valid = [m for m in models if np.isfinite(reps[idx[m], 0])]
        ranked = sorted((m for m in valid if m not in CHANCE_MODELS),
                        key=lambda m: (-reps[idx[m], 0], m))
        for chance in (m for m in valid if m in CHANCE_MODELS):
            out += [{"score": score, "kind": "chance", "model": m, "other": chance,
                     **paired_difference(reps[idx[m]], reps[idx[chance]], alpha=alpha)}
                    for m in ranked]
        out += [{"score": score, "kind": "adjacent", "model": a, "other": b,
                 **paired_difference(reps[idx[a]], reps[idx[b]], alpha=alpha)}
                for a, b in zip(ranked[:-1], ranked[1:], strict=True)]
    return out


def leaderboard(results: Any, *, grouping: str | Mapping[str, Any] = "correlation",
                exclude: Iterable[str] | None = DEFAULT_EXCLUDE, with_ci: bool = True,
                threshold: float = DEFAULT_THRESHOLD, episode_size: int | None = None,
                min_models: int = 3, n_resamples: int = 1000, alpha: float = 0.05,
                seed: int = 42, complete_datasets: bool = False,
                include_unlisted: bool | None = None) -> pd.DataFrame:
    """The STEB leaderboard: per-task scores, operational and definitional STEB scores.

    Parameters
    ----------
    results : Results or DataFrame
        Evaluation results (``Results``, ``Results.to_frame()`` or ``main_frame()``;
        the tidy frame lets order alignment enter definitional clusters with its plain
        accuracy, as the reference does).
    grouping : {"correlation", "fixed"} or mapping
        Dataset grouping inside each task (module docstring). ``"correlation"`` is the
        reference's; ``"fixed"`` keeps scores stable when models are added.
    exclude : iterable of str or None
        ``"non_english"``, ``"semantic_control"`` and/or dataset names.
    with_ci : bool
        Add percentile bootstrap intervals (over datasets) of both STEB scores.
    threshold, episode_size, min_models, complete_datasets, include_unlisted
        See :func:`operational` (missing results: by default a model without a result
        for a dataset is left out of that task and named in ``attrs["dropped_models"]``).
    n_resamples, alpha, seed
        Bootstrap replicates, interval level (``1 - alpha``) and seed.

    Returns
    -------
    Leaderboard
        A DataFrame (printed with every column, then :func:`leaderboard_summary`): one
        row per model, best first, then the chance level (the random baseline,
        ``chance`` True, no rank: a reference line, not a contender): ``rank``,
        ``model``, ``model_category``, one
        column per task, ``steb_score`` (with ``steb_ci_low``/``steb_ci_high``), the six
        object-of-study clusters, ``object_of_study``, ``linguistic_features``,
        ``content_independence``, ``definitional_score`` (with its interval).
        ``attrs`` holds ``groups`` (task -> group -> datasets), ``n_datasets``,
        ``excluded`` (datasets, by reason), ``dropped_models`` (task -> model -> missing
        datasets), ``grouping_excluded_models``, ``chance``, ``significance`` (paired
        bootstrap comparisons of each model with the chance level and with the next model
        down, for both STEB scores: :func:`paired_difference` on the replicates behind
        the intervals), ``low_confidence_grouping`` (tasks grouped from too few models)
        and the settings.

    Examples
    --------
    >>> rows = [(m, d, t, v) for m, vals in {"m1": (.1, .2), "m2": (.3, .6)}.items()
    ...         for (d, t), v in zip([("a", "retrieval"), ("b", "clustering")], vals)]
    >>> df = pd.DataFrame(rows, columns=["model", "dataset", "task", "value"])
    >>> lb = leaderboard(df, grouping="fixed", with_ci=False)
    >>> lb[["rank", "model", "retrieval", "clustering", "steb_score"]].round(2).values.tolist()
    [[1, 'm2', 0.3, 0.6, 0.45], [2, 'm1', 0.1, 0.2, 0.15]]
    """
    n_boot = n_resamples if with_ci else 0
    op = operational(results, grouping=grouping, exclude=exclude, threshold=threshold,
                     episode_size=episode_size, min_models=min_models,
                     n_resamples=n_boot, seed=seed, complete_datasets=complete_datasets,
                     include_unlisted=include_unlisted)
    de = definitional(results, exclude=exclude, episode_size=episode_size,
                      models=op.models, n_resamples=n_boot, seed=seed + 1,
                      complete_datasets=complete_datasets, include_unlisted=include_unlisted)
    main = main_frame(results)
    if "model_category" in main.columns:
        cat = main.drop_duplicates("model").set_index("model")["model_category"]
    else:
        cat = pd.Series(dtype=object)
    out = pd.DataFrame({"model": op.models})
    out["model_category"] = [cat.get(m, "other") for m in op.models]
    for t in op.task_scores.columns:
        out[t] = op.task_scores[t].to_numpy()
    out["steb_score"] = op.steb.to_numpy()
    if with_ci:
        out["steb_ci_low"], out["steb_ci_high"] = _ci(op.replicates, alpha)
    for c in DEFINITIONAL_COLUMNS:
        out[c] = de.scores[c].reindex(op.models).to_numpy()
    if with_ci:
        out["definitional_ci_low"], out["definitional_ci_high"] = _ci(de.replicates, alpha)
    out["chance"] = [m in CHANCE_MODELS for m in out["model"]]
    out = Leaderboard(out.sort_values(["chance", "steb_score", "model"],
                                      ascending=[True, False, True], na_position="last",
                                      kind="stable").reset_index(drop=True))
    ranked = out["steb_score"].where(~out["chance"])
    out.insert(0, "rank", ranked.rank(ascending=False, method="min").astype("Int64"))
    out.attrs.update({
        "chance": [m for m in out["model"] if m in CHANCE_MODELS],
        "dropped_models": {t: a.dropped_models for t, a in op.tasks.items()
                           if a.dropped_models},
        "grouping_excluded_models": sorted({m for a in op.tasks.values()
                                            for m in a.grouping_excluded}),
        "groups": {t: a.groups for t, a in op.tasks.items()},
        "n_datasets": {t: a.matrix.shape[1] for t, a in op.tasks.items()},
        "dropped_datasets": {t: a.dropped_datasets for t, a in op.tasks.items()
                             if a.dropped_datasets},
        "excluded": op.excluded,
        "grouping": grouping if isinstance(grouping, str) else "declared",
        "threshold": threshold,
        "low_confidence_grouping": sorted(t for t, a in op.tasks.items() if a.low_confidence),
        "n_grouping_models": max((a.matrix.shape[0] - len(a.grouping_excluded)
                                  for a in op.tasks.values()), default=0),
        "n_resamples": n_boot, "alpha": alpha,
        "significance": _significance(op.models, {"steb_score": op.replicates,
                                                  "definitional_score": de.replicates},
                                      alpha),
        "definitional_columns": {c: {f"{t} ({m})": ds for (t, m), ds in cols.items()}
                                 for c, cols in de.columns.items()},
    })
    return out


def leaderboard_notes(board: pd.DataFrame) -> list[str]:
    """What a leaderboard left out and why, one line each (from its ``attrs``).

    >>> board = pd.DataFrame({"model": ["m"]})
    >>> board.attrs = {"dropped_models": {"retrieval": {"m2": ["d1"]}},
    ...                "excluded": {"non_english": ["x"]}, "chance": ["random"]}
    >>> for line in leaderboard_notes(board): print(line)
    retrieval: left out m2 (no result for d1); the reference drops models with missing results
    excluded datasets (non_english): x
    chance level, not ranked: random
    """
    attrs = board.attrs
    lines = []
    for task, models in (attrs.get("dropped_models") or {}).items():
        for model, missing in models.items():
            lines.append(f"{task}: left out {model} (no result for {', '.join(missing)}); "
                         "the reference drops models with missing results")
    for task, datasets in (attrs.get("dropped_datasets") or {}).items():
        lines.append(f"{task}: dropped dataset(s) not every model has: {', '.join(datasets)}")
    for reason, datasets in (attrs.get("excluded") or {}).items():
        lines.append(f"excluded datasets ({reason}): {', '.join(datasets)}")
    if attrs.get("grouping_excluded_models"):
        lines.append("left out of the correlation grouping (still scored): "
                     + ", ".join(attrs["grouping_excluded_models"]))
    if attrs.get("chance"):
        lines.append("chance level, not ranked: " + ", ".join(attrs["chance"]))
    return lines


def _names(models: Sequence[str]) -> str:
    return ", ".join(models) if models else "none"


def leaderboard_summary(board: pd.DataFrame, *, scale: float = 100.0, digits: int = 2
                        ) -> list[str]:
    """What the leaderboard's numbers support, one line each (from its ``attrs``): for
    both STEB scores, which models are significantly above or below the chance level and
    which adjacent ranks are resolved (the paired bootstrap of :func:`leaderboard`), and
    that the operational score depends on the set of models compared.

    >>> values = {"a": (.9, .8, .85), "b": (.5, .3, .45), "c": (.45, .35, .4),
    ...           "random": (.1, .2, .15)}
    >>> df = pd.DataFrame([(m, d, "retrieval", v) for m, vals in values.items()
    ...                    for d, v in zip("xyz", vals)],
    ...                   columns=["model", "dataset", "task", "value"])
    >>> lines = leaderboard_summary(leaderboard(df, grouping="fixed", n_resamples=200))
    >>> print(lines[1])  # doctest: +NORMALIZE_WHITESPACE
    - STEB score: significantly above the chance level (random, 15.00): a, b, c;
      not distinguishable from it: none; significantly below it: none
    >>> print(lines[2])
    - STEB score: adjacent ranks resolved: a > b (+43.33 [+40.00, +46.67]); tiers: 1 a | 2 b, c
    """
    attrs = board.attrs
    records = attrs.get("significance") or []
    lines: list[str] = []
    if records:
        lines.append(f"Which differences are significant (paired bootstrap over datasets, "
                     f"{attrs.get('n_resamples')} resamples with the same datasets for every "
                     f"model; {1 - attrs.get('alpha', 0.05):.0%} intervals, "
                     f"p < {attrs.get('alpha', 0.05):g}):")

    def fmt(v: float) -> str:
        return f"{v * scale:+.{digits}f}"

    for score, label in (("steb_score", "STEB score"),
                         ("definitional_score", "definitional score")):
        mine = [r for r in records if r["score"] == score]
        chance = [r for r in mine if r["kind"] == "chance"]
        if chance:
            ref = chance[0]["other"]
            value = board.loc[board["model"] == ref, score]
            above = [r["model"] for r in chance if r["significant"] and r["diff"] > 0]
            below = [r["model"] for r in chance if r["significant"] and r["diff"] < 0]
            tied = [r["model"] for r in chance if not r["significant"]]
            point = f", {value.iloc[0] * scale:.{digits}f}" if len(value) else ""
            lines.append(f"- {label}: significantly above the chance level ({ref}{point}): "
                         f"{_names(above)}; not distinguishable from it: {_names(tied)}; "
                         f"significantly below it: {_names(below)}")
            lower = [r["model"] for r in chance if r["diff"] < 0]
            if lower:
                lines.append(f"- {label}: the chance level scores above {len(lower)} of the "
                             f"{len(chance)} models ({_names(lower)})")
        steps = [r for r in mine if r["kind"] == "adjacent"]
        if steps:
            order = [steps[0]["model"]] + [r["other"] for r in steps]
            tiers = rank_tiers([r["significant"] for r in steps] + [False])
            joined = " | ".join(
                f"{t} " + ", ".join(m for m, k in zip(order, tiers, strict=True) if k == t)
                for t in dict.fromkeys(tiers))
            resolved = [f"{r['model']} > {r['other']} ({fmt(r['diff'])} "
                        f"[{fmt(r['low'])}, {fmt(r['high'])}])"
                        for r in steps if r["significant"]]
            lines.append(f"- {label}: adjacent ranks resolved: {'; '.join(resolved) or 'none'}"
                         f"; tiers: {joined}")
    if attrs.get("grouping") == "correlation":
        few = attrs.get("low_confidence_grouping") or []
        lines.append(
            "- The operational (STEB) score depends on the set of models compared: inside "
            "each task, datasets are grouped by how these models rank on them "
            f"(grouping='correlation', {attrs.get('n_grouping_models')} models"
            + (f", fewer than {MIN_RELIABLE_MODELS}: unreliable" if few else "")
            + "), so adding or removing a model can change every model's score; "
            "grouping='fixed' does not move")
    return lines


# --------------------------------------------------------------------------- export
_TEXT_COLUMNS = ("rank", "model", "model_category")


def _score_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if c not in _TEXT_COLUMNS and c != "chance"
            and not c.endswith("_ci_low") and not c.endswith("_ci_high")
            and pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]


def _cells(df: pd.DataFrame, scale: float, digits: int, bold: tuple[str, str]
           ) -> tuple[list[str], list[list[str]]]:
    cols = [c for c in _TEXT_COLUMNS if c in df.columns] + _score_columns(df)
    chance = df["chance"].eq(True) if "chance" in df.columns else \
        pd.Series(False, index=df.index)
    best = {c: df.loc[~chance, c].max() for c in _score_columns(df)}
    rows = []
    for i, r in df.iterrows():
        cells = []
        for c in cols:
            v = r[c]
            if c == "model" and chance[i]:
                cells.append(f"{v} (chance level)")
                continue
            if c in best:
                if pd.isna(v):
                    cells.append("–")
                    continue
                s = f"{v * scale:.{digits}f}"
                base = c.removesuffix("_score") if c.endswith("_score") else c
                lo, hi = r.get(f"{base}_ci_low"), r.get(f"{base}_ci_high")
                if lo is not None and hi is not None and pd.notna(lo) and pd.notna(hi):
                    s += f" [{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"
                if v == best[c] and not chance[i]:
                    s = f"{bold[0]}{s}{bold[1]}"
                cells.append(s)
            else:
                cells.append("" if pd.isna(v) else str(v))
        rows.append(cells)
    return cols, rows


def to_markdown(df: pd.DataFrame, *, scale: float = 100.0, digits: int = 2) -> str:
    """Render a leaderboard as a Markdown table (scores x ``scale``, best in bold).

    >>> lb = pd.DataFrame({"rank": [1, 2], "model": ["a", "b"], "steb_score": [.5, .25]})
    >>> print(to_markdown(lb))
    | rank | model | steb_score |
    |---|---|---|
    | 1 | a | **50.00** |
    | 2 | b | 25.00 |
    """
    cols, rows = _cells(df, scale, digits, ("**", "**"))
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(["---"] * len(cols)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def _latex_escape(s: str) -> str:
    s = s.replace("\\", "\0")
    for ch in "&%$#_{}":
        s = s.replace(ch, "\\" + ch)
    return s.replace("\0", r"\textbackslash{}")


def to_latex(df: pd.DataFrame, path: str | os.PathLike[str] | None = None, *,
             scale: float = 100.0, digits: int = 2, caption: str | None = None,
             label: str | None = None) -> str:
    """Render a leaderboard as a booktabs LaTeX table, best per column in bold.

    Writes it to ``path`` (atomically) when given; returns the LaTeX text.

    >>> lb = pd.DataFrame({"model": ["a_1", "b"], "steb_score": [.5, .25]})
    >>> print(to_latex(lb))
    \\begin{tabular}{lr}
    \\toprule
    model & steb\\_score \\\\
    \\midrule
    a\\_1 & \\textbf{50.00} \\\\
    b & 25.00 \\\\
    \\bottomrule
    \\end{tabular}
    """
    cols, rows = _cells(df, scale, digits, (r"\textbf{", "}"))
    n_text = sum(c in _TEXT_COLUMNS for c in cols)
    spec = "l" * n_text + "r" * (len(cols) - n_text)
    body = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
            " & ".join(_latex_escape(c) for c in cols) + r" \\", r"\midrule"]
    for r in rows:
        body.append(" & ".join(cell if cell.startswith(r"\textbf{") else _latex_escape(cell)
                               for cell in r) + r" \\")
    body += [r"\bottomrule", r"\end{tabular}"]
    if caption or label:
        inner = [r"\begin{table}[t]", r"\centering", *body]
        if caption:
            inner.append(rf"\caption{{{caption}}}")
        if label:
            inner.append(rf"\label{{{label}}}")
        body = [*inner, r"\end{table}"]
    text = "\n".join(body)
    if path is not None:
        write_text(path, text + "\n")
    return text


def to_csv(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write a leaderboard (raw values) to CSV atomically; return the path."""
    return write_text(path, df.to_csv(index=False))
