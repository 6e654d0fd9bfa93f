"""The operational and definitional scores, with their paired bootstrap replicates."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from stebkit.errors import warn
from stebkit.published import OBJECT_OF_STUDY
from stebkit.scores.grouping import (
    DEFAULT_THRESHOLD,
    MIN_RELIABLE_MODELS,
    REFERENCE_EXCLUDED_MODELS,
    _declared_groups,
    _grouping_excluded,
    _unlisted,
    check_grouping_models,
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
    episode_configs,
    main_frame,
    score_matrix,
    select_episode_config,
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
    model (paired). ``task_replicates`` holds the same per task. ``skipped_tasks`` maps a
    task left without an operational score to the reason (too few models, or no
    dataset that every model has);
    ``not_scored`` lists the models left out of both scores (the reference's excluded
    models); ``grouping_note`` is the one line :func:`operational` warns with (empty when
    there is nothing to say).
    """

    models: list[str]
    tasks: dict[str, TaskAggregate]
    task_scores: pd.DataFrame
    steb: pd.Series
    replicates: np.ndarray
    task_replicates: dict[str, np.ndarray]
    excluded: dict[str, list[str]]
    skipped_tasks: dict[str, str] = field(default_factory=dict)
    not_scored: list[str] = field(default_factory=list)
    grouping_note: str = ""


def _not_scored(df: pd.DataFrame, grouping_models: str) -> tuple[pd.DataFrame, list[str]]:
    """Leave out the reference's excluded models under the reference's rule."""
    if check_grouping_models(grouping_models) != "reference" or df.empty:
        return df, []
    out = df["model"].isin(REFERENCE_EXCLUDED_MODELS)
    return df[~out].reset_index(drop=True), sorted(df.loc[out, "model"].unique())


def _grouping_note(tasks: Mapping[str, TaskAggregate], too_few: Mapping[str, int],
                   left_out: Iterable[str], not_scored: Sequence[str], min_models: int) -> str:
    """One line on the correlation grouping: how many models enter it, which were left
    out and why, and which tasks got no operational score."""
    parts = []
    counts = sorted({a.matrix.shape[0] - len(a.grouping_excluded) for a in tasks.values()
                     if a.low_confidence})
    if counts:
        n = "/".join(map(str, counts))
        parts.append(f"correlation grouping from {n} model(s) (fewer than "
                     f"{MIN_RELIABLE_MODELS}): unreliable, it moves when models are added; "
                     "consider grouping='fixed'")
    if too_few:
        by_n: dict[int, list[str]] = {}
        for task, n in too_few.items():
            by_n.setdefault(n, []).append(task)
        parts += [f"{', '.join(names)}: only {n} model(s) with results; the correlation "
                  f"grouping needs {min_models}, so no operational score for "
                  f"{'these tasks' if len(names) > 1 else 'this task'} (as the reference)"
                  for n, names in sorted(by_n.items())]
    excluded = sorted(set(left_out))
    if parts and excluded:
        parts.append(f"left out of the grouping, still scored: {', '.join(excluded)} "
                     "(grouping_models='stebkit')")
    if parts and not_scored:
        parts.append(f"not scored: {', '.join(not_scored)} (the reference's excluded models)")
    return "; ".join(parts)


def operational(results: Any, *, grouping: str | Mapping[str, Any] = "correlation",
                exclude: Iterable[str] | None = DEFAULT_EXCLUDE,
                threshold: float = DEFAULT_THRESHOLD, episode_size: int | None = None,
                min_models: int = 3, n_resamples: int = 1000, seed: int = 42,
                complete_datasets: bool = True, include_unlisted: bool | None = None,
                grouping_models: str = "reference") -> Operational:
    """Operational STEB aggregation (see the module docstring for the recipe).

    The defaults are the reference's newest recipe (:data:`REFERENCE`); the former
    stebkit rules are ``threshold=1.0, complete_datasets=False,
    grouping_models="stebkit"``.

    Parameters
    ----------
    results : Results or DataFrame
        Evaluation results (anything :func:`main_frame` accepts).
    grouping : {"correlation", "fixed"} or mapping
        How redundant datasets are grouped inside a task.
    exclude : iterable of str or None
        Exclusions for :func:`apply_exclusions`.
    threshold : float, default 0.5
        Ward cut height for ``grouping="correlation"`` (the reference's newest
        ``__main__.py``; 1.0 in its older versions).
    episode_size : int or None
        Episode size to use (None: the reference rule, see :func:`select_episode_size`).
    min_models : int, default 3
        ``grouping="correlation"``: a task with fewer models (after the missing-result
        rule) gets no operational score, as the reference's ``analyze_task`` skips it.
    complete_datasets : bool, default True
        Missing results (a model without a value for a dataset, e.g. a failed record):
        True drops, per task, the datasets that not every model of the task has, as the
        reference's newest ``__main__.py`` always does (a model with no result in a task
        at all is not part of that task, as it is absent from the reference's matrix);
        False (the former default, the reference's older default) leaves out the models
        that miss a dataset (with a :class:`MissingResultsWarning`).
    include_unlisted : bool or None
        Datasets absent from the reference's cluster file: False leaves them out, True
        scores them; None (default) leaves them out unless no dataset of the results is
        listed (an offline or custom suite), in which case all are scored.
    grouping_models : {"reference", "stebkit"}, default "reference"
        "reference": the reference's excluded models
        (:data:`REFERENCE_EXCLUDED_MODELS`) are not scored and every other model, the
        random baseline included, enters the correlation grouping; "stebkit" (the
        former rule): every model is scored and :data:`GROUPING_EXCLUDED_MODELS` are left
        out of the grouping.
    n_resamples : int
        Bootstrap replicates (0: none).
    seed : int
        Seed of the bootstrap.

    Warns once (a ``UserWarning`` attributed to the caller's line, never to a library
    file) when the correlation grouping is unreliable or a task has too few models,
    saying how many models entered the grouping and which were left out.

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
    df, not_scored = _not_scored(df, grouping_models)
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
    skipped: dict[str, str] = {}
    too_few: dict[str, int] = {}
    left_out: set[str] = set()  # of the grouping, by grouping_models="stebkit"
    for task in FAMILIES:  # STEB's families, then those of user suites
        raw = _with_missing(score_matrix(df, task), missing_rows, task)
        if raw.empty:
            continue
        raw = raw.dropna(axis=1, how="all")  # no model has it: not a missing result
        gone: dict[str, list[str]] = {}
        if complete_datasets:  # the reference's newest rule
            absent = raw.index[raw.isna().all(axis=1)]  # no result in this task at all
            gone = {m: sorted(raw.columns) for m in absent}
            mat = raw.drop(index=absent).dropna(axis=1, how="any")
            dropped = sorted(set(raw.columns) - set(mat.columns))
            if dropped:
                log.info("%s: dropped %d dataset(s) not evaluated by every model: %s",
                         task, len(dropped), dropped)
        else:  # the former rule: drop the models that miss a dataset
            mat = raw.dropna(axis=0, how="any")
            dropped = []
            gone = {m: sorted(raw.columns[raw.loc[m].isna()]) for m in raw.index
                    if m not in mat.index}
            if gone:
                warn(f"{task}: left out {len(gone)} model(s) with missing results "
                     f"(model: missing datasets) {gone}; complete_datasets=True drops those "
                     "datasets instead", MissingResultsWarning)
        if mat.shape[1] == 0 or mat.shape[0] == 0:
            skipped[task] = ("no dataset that every model has" if complete_datasets
                             else "no model with a result for every dataset")
            continue
        grouping_mat = mat
        if grouping_models == "stebkit":
            grouping_mat = mat.drop(index=[m for m in mat.index if _grouping_excluded(m)])
            left_out.update(set(mat.index) - set(grouping_mat.index))
        n_models = grouping_mat.shape[0]
        low = False
        if isinstance(grouping, Mapping):
            groups = _declared_groups(list(mat.columns), grouping)
        elif grouping == "fixed":
            groups = fixed_groups(list(mat.columns))
        elif n_models < min_models:
            too_few[task] = n_models
            skipped[task] = (f"only {n_models} model(s) with results (the correlation "
                             f"grouping needs {min_models})")
            continue
        else:
            if n_models < MIN_RELIABLE_MODELS and mat.shape[1] > 1:
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
                                    pd.DataFrame(gscores, index=models), dropped, low, gone,
                                    sorted(set(mat.index) - set(grouping_mat.index)))
    if not tasks and not skipped:
        raise ValueError("no task has results left after exclusions; check `exclude` and "
                         "that the results hold main-metric values")
    width = 1 + (n_resamples if rng is not None else 0)
    task_scores = pd.DataFrame({t: r[:, 0] for t, r in task_reps.items()}, index=models)
    steb_reps = (_nanmean(np.stack(list(task_reps.values())), axis=0) if task_reps
                 else np.full((len(models), width), np.nan))
    steb = pd.Series(steb_reps[:, 0], index=models, name="steb_score")
    note = _grouping_note(tasks, too_few, left_out, not_scored, min_models)
    if note:
        warn(note)
    return Operational(models, tasks, task_scores, steb, steb_reps, task_reps, excluded,
                       skipped, not_scored, note)


@dataclass
class Definitional:
    """Definitional scores: one column per cluster and axis, plus paired replicates;
    ``configs`` holds the episode configuration each dataset and task entered with
    (:func:`~stebkit.scores.inputs.episode_configs`)."""

    scores: pd.DataFrame
    replicates: np.ndarray
    columns: dict[str, dict[tuple[str, str], list[str]]]
    configs: pd.DataFrame = field(default_factory=pd.DataFrame)


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
                 n_resamples: int = 1000, seed: int = 42, complete_datasets: bool = True,
                 include_unlisted: bool | None = None,
                 grouping_models: str = "reference") -> Definitional:
    """Definitional STEB scores (see the module docstring for the recipe).

    ``clusters`` replaces the reference's clusters: ``{cluster: [dataset or
    {"name", "oa_metric", "oa_only"}]}`` with cluster names among genre, register, time,
    demographics, dialect, idiolect, predefined_features and style_vs_content.
    Missing results (``complete_datasets=True``, the default, as the reference's newest
    ``__main__.py`` forces ``mc_complete_datasets``): each column keeps the datasets that
    every model with a result in that column has; a model with no result in a column
    is scored on the columns it has. ``complete_datasets=False`` (the former default)
    averages, per model, the datasets it has. ``grouping_models="reference"`` leaves the
    reference's excluded models out, as :func:`operational`.
    ``include_unlisted`` as :func:`operational` (so AuthBench, absent from the cluster
    file, does not join idiolect by its category unless asked).
    Records enter at one episode configuration per dataset and task, size and episodes
    per label alike: the benchmark preset's, as the reference's ``manual_cluster.py``,
    else the run's own (:func:`~stebkit.scores.inputs.episode_configs`; ``episode_size``
    fixes the size).

    Examples
    --------
    >>> df = pd.DataFrame({"model": ["m1", "m2"], "dataset": "g", "task": "clustering",
    ...                    "value": [0.2, 0.4], "dataset_category": "genre"})
    >>> definitional(df, n_resamples=0).scores["genre"].to_dict()
    {'m1': 0.2, 'm2': 0.4}
    """
    main = _not_scored(main_frame(results, keep_missing=True), grouping_models)[0]
    main = apply_exclusions(main, exclude)[0]
    main, unlisted = _unlisted(main, include_unlisted)
    configs = episode_configs(main, episode_size)
    main = select_episode_config(main, configs)
    main = main[main["value"].notna()].reset_index(drop=True)
    tidy = _tidy_frame(results)
    if tidy is not None:
        tidy = tidy[~tidy["dataset"].isin(unlisted)]
        tidy = _not_scored(tidy, grouping_models)[0]
        tidy = select_episode_config(apply_exclusions(tidy, exclude)[0], configs)
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
        if complete_datasets:  # over the models that have a result in this column
            complete = mat.columns[mat[mat.notna().any(axis=1)].notna().all(axis=0)]
            dropped = sorted(set(mat.columns) - set(complete))
            if dropped:
                log.info("definitional %s / %s (%s): dropped incomplete dataset(s) %s",
                         cluster, task, metric, dropped)
        else:  # the former rule (the reference's older default): average what exists
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
    return Definitional(scores, reps["definitional_score"], used, configs)
