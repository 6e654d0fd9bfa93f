"""The operational and definitional scores, with their paired bootstrap replicates."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from stebkit.published import OBJECT_OF_STUDY
from stebkit.scores.grouping import (
    DEFAULT_THRESHOLD,
    MIN_RELIABLE_MODELS,
    _declared_groups,
    _grouping_excluded,
    _unlisted,
    correlation_groups,
    fixed_groups,
    reference_clusters,
)
from stebkit.scores.inputs import (
    DEFAULT_EXCLUDE,
    DEFINITIONAL_COLUMNS,
    MissingResultsWarning,
    _tidy_frame,
    _with_missing,
    apply_exclusions,
    main_frame,
    score_matrix,
    select_episode_size,
)
from stebkit.tasks import FAMILIES

log = logging.getLogger("stebkit.scores")

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
