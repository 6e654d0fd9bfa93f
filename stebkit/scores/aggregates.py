"""The operational and definitional scores, with their paired bootstrap replicates."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from stebkit.errors import NothingToScore, warn
from stebkit.scores.grouping import (
    MIN_RELIABLE_MODELS,
    _declared_groups,
    _grouping_excluded,
    correlation_groups,
    fixed_groups,
    reference_clusters,
)
from stebkit.scores.inputs import (
    DEFINITIONAL_COLUMNS,
    MissingResultsWarning,
    choose_configurations,
    episode_configs,
    scored_frame,
    select_episode_config,
)
from stebkit.scores.published import OBJECT_OF_STUDY
from stebkit.scores.recipe import ScoreRecipe, as_recipe
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
    there is nothing to say); ``recipe`` is the :class:`ScoreRecipe` applied and
    ``configs`` the episode configuration each scored number comes from (``task``,
    ``dataset``, ``model``, ``configuration`` as the reference's folder name, ``others``:
    that model's other configurations holding a value).
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
    recipe: ScoreRecipe = field(default_factory=ScoreRecipe)
    configs: pd.DataFrame = field(default_factory=pd.DataFrame)


def _grouping_note(tasks: Mapping[str, TaskAggregate], too_few: Mapping[str, int],
                   not_scored: Sequence[str], models: Sequence[str],
                   recipe: ScoreRecipe) -> str:
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
    by_n: dict[int, list[str]] = {}
    for task, n in too_few.items():
        by_n.setdefault(n, []).append(task)
    parts += [f"{', '.join(names)}: only {n} model(s) with results; the correlation "
              f"grouping needs {recipe.min_models}, so no operational score for "
              f"{'these tasks' if len(names) > 1 else 'this task'} (as the reference)"
              for n, names in sorted(by_n.items())]
    excluded = ([m for m in models if _grouping_excluded(m)]
                if recipe.grouping_models == "without_baselines" else [])
    if parts and excluded:
        parts.append(f"left out of the grouping, still scored: {', '.join(excluded)} "
                     "(grouping_models='without_baselines')")
    if parts and not_scored:
        parts.append(f"not scored: {', '.join(not_scored)} (the reference's excluded models)")
    return "; ".join(parts)


def _task_matrix(df: pd.DataFrame, task: str, recipe: ScoreRecipe
                 ) -> tuple[pd.DataFrame, list[str], dict[str, list[str]]] | str:
    """The complete models x datasets matrix of ``task`` under the recipe's ``missing``
    rule, the datasets dropped and the models left out (model -> missing datasets); or
    why the task has none (an empty string: no results at all)."""
    sub = df[df["task"] == task]
    if sub.empty:
        return ""
    raw = sub.set_index(["model", "dataset"])["value"].unstack().sort_index().sort_index(
        axis=1)
    raw.columns.name = raw.index.name = None
    raw = raw.dropna(axis=1, how="all")  # no model has it: not a missing result
    if recipe.missing == "drop_datasets":  # the reference's newest rule
        absent = raw.index[raw.isna().all(axis=1)]  # no result in this task at all
        gone = {m: sorted(raw.columns) for m in absent}
        mat = raw.drop(index=absent).dropna(axis=1, how="any")
        dropped = sorted(set(raw.columns) - set(mat.columns))
        if dropped:
            log.info("%s: dropped %d dataset(s) not evaluated by every model: %s",
                     task, len(dropped), dropped)
    else:  # leave out the models that miss a dataset
        mat, dropped = raw.dropna(axis=0, how="any"), []
        gone = {m: sorted(raw.columns[raw.loc[m].isna()]) for m in raw.index
                if m not in mat.index}
        if gone:
            warn(f"{task}: left out {len(gone)} model(s) with missing results "
                 f"(model: missing datasets) {gone}; missing='drop_datasets' drops those "
                 "datasets instead", MissingResultsWarning)
    if mat.size == 0:
        return ("no dataset that every model has" if recipe.missing == "drop_datasets"
                else "no model with a result for every dataset")
    return mat, dropped, gone


def _task_groups(mat: pd.DataFrame, recipe: ScoreRecipe
                 ) -> tuple[dict[str, list[str]], list[str], bool] | int:
    """The dataset groups of one task's matrix, the models left out of the grouping and
    whether the grouping is low-confidence; or the number of models when too few."""
    left_out = ([m for m in mat.index if _grouping_excluded(m)]
                if recipe.grouping_models == "without_baselines" else [])
    grouping_mat = mat.drop(index=left_out)
    if isinstance(recipe.grouping, Mapping):
        return _declared_groups(list(mat.columns), recipe.grouping), left_out, False
    if recipe.grouping == "fixed":
        return fixed_groups(list(mat.columns)), left_out, False
    if grouping_mat.shape[0] < recipe.min_models:
        return grouping_mat.shape[0]
    low = grouping_mat.shape[0] < MIN_RELIABLE_MODELS and mat.shape[1] > 1
    return correlation_groups(grouping_mat, threshold=recipe.threshold), left_out, low


def _task_aggregate(df: pd.DataFrame, task: str, recipe: ScoreRecipe, models: list[str],
                    rng: np.random.Generator | None, n_resamples: int
                    ) -> tuple[TaskAggregate, np.ndarray] | str | int:
    """One task's aggregation and its replicates; or why it has none (see
    :func:`_task_matrix`, :func:`_task_groups`)."""
    made = _task_matrix(df, task, recipe)
    if isinstance(made, str):
        return made
    mat, dropped, gone = made
    grouped = _task_groups(mat, recipe)
    if isinstance(grouped, int):
        return grouped
    groups, left_out, low = grouped
    full = mat.reindex(models)
    reps = [_group_reps(full[cols].to_numpy(dtype=float), rng, n_resamples)
            for cols in groups.values()]
    scores = pd.DataFrame({name: r[:, 0] for name, r in zip(groups, reps, strict=True)},
                          index=models)
    agg = TaskAggregate(task, mat, groups, scores, dropped, low, gone, sorted(left_out))
    return agg, _resample_groups(np.stack(reps), rng)


def operational(results: Any, *, recipe: ScoreRecipe | None = None, n_resamples: int = 1000,
                seed: int = 42, **options: Any) -> Operational:
    """Operational STEB aggregation (see the module docstring and :class:`ScoreRecipe`).

    ``recipe`` (default: the reference's newest aggregation) says how; its options may
    also be given by name (``threshold=1.0``) and replace the recipe's. ``n_resamples``
    bootstrap replicates (0: none) are drawn from ``seed``.

    Warns once (a ``UserWarning`` attributed to the caller's line, never to a library
    file) when the correlation grouping is unreliable or a task has too few models,
    saying how many models entered the grouping and which were left out.

    Examples
    --------
    >>> rows = [("m1", "a", .1), ("m1", "b", .2), ("m2", "a", .3), ("m2", "b", .6)]
    >>> df = pd.DataFrame(rows, columns=["model", "dataset", "value"]).assign(
    ...     task="retrieval")
    >>> op = operational(df, grouping={"a": "g", "b": "g"}, min_tasks=1, n_resamples=0)
    >>> op.steb.round(3).to_dict()
    {'m1': 0.15, 'm2': 0.45}
    """
    recipe = as_recipe(recipe, options)
    df, excluded, not_scored = scored_frame(results, recipe, "operational")
    if not_scored and df.empty:
        raise NothingToScore(
            f"no model to score: the results hold only {', '.join(not_scored)}, which the "
            "reference does not score (its excluded models); a score needs models of its "
            f"own, at least {recipe.min_models} per task (or grouping_models="
            "'without_baselines', which scores every model)")
    df = choose_configurations(df, recipe)
    _check_tasks(df)
    models = sorted(df["model"].unique())
    rng = np.random.default_rng(seed) if n_resamples else None
    tasks, task_reps, skipped, too_few = {}, {}, {}, {}
    for task in FAMILIES:  # STEB's families, then those of user suites
        made = _task_aggregate(df, task, recipe, models, rng, n_resamples)
        if isinstance(made, tuple):
            tasks[task], task_reps[task] = made
        elif isinstance(made, int):
            too_few[task] = made
            skipped[task] = (f"only {made} model(s) with results (the correlation "
                             f"grouping needs {recipe.min_models})")
        elif made:
            skipped[task] = made
    if not tasks and not skipped:
        raise ValueError("no task has results left after exclusions; check `exclude` and "
                         "that the results hold main-metric values")
    note = _grouping_note(tasks, too_few, not_scored, models, recipe)
    if note:
        warn(note)
    steb, steb_reps = _steb_score(task_reps, models, recipe, 1 + (n_resamples if rng else 0))
    task_scores = pd.DataFrame({t: r[:, 0] for t, r in task_reps.items()}, index=models)
    return Operational(models, tasks, task_scores, steb, steb_reps, task_reps, excluded,
                       skipped, not_scored, note, recipe, _used_configs(df, tasks))


def _check_tasks(df: pd.DataFrame) -> None:
    unknown = sorted(set(df["task"]) - set(FAMILIES)) if len(df) else []
    if unknown:
        raise ValueError(f"unknown task(s) {unknown} in results; known tasks are "
                         f"{list(FAMILIES)}")


def _steb_score(task_reps: Mapping[str, np.ndarray], models: list[str], recipe: ScoreRecipe,
                width: int) -> tuple[pd.Series, np.ndarray]:
    """The STEB score (mean of the task scores a model has) and its replicates: none
    with fewer than ``recipe.min_tasks`` tasks scored, as the newest ``__main__.py``
    writes ``STEB_score`` only when more than one task has a score."""
    if len(task_reps) >= recipe.min_tasks:
        reps = _nanmean(np.stack(list(task_reps.values())), axis=0)
    else:
        reps = np.full((len(models), width), np.nan)
    return pd.Series(reps[:, 0], index=models, name="steb_score"), reps


def _used_configs(df: pd.DataFrame, tasks: Mapping[str, TaskAggregate]) -> pd.DataFrame:
    """The configuration each scored number comes from: ``task``, ``dataset``, ``model``,
    ``configuration`` and ``others`` (the model's other configurations with a value)."""
    rows = []
    for task, agg in tasks.items():
        sub = df[(df["task"] == task) & df["dataset"].isin(agg.matrix.columns)
                 & df["model"].isin(agg.matrix.index)]
        rows += [(task, r.dataset, r.model, r.configuration, r.others)
                 for r in sub.itertuples()]
    return pd.DataFrame(rows, columns=["task", "dataset", "model", "configuration", "others"])


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


def definitional(results: Any, *, recipe: ScoreRecipe | None = None,
                 clusters: Mapping[str, Sequence[Any]] | None = None,
                 models: Sequence[str] | None = None, n_resamples: int = 1000, seed: int = 42,
                 **options: Any) -> Definitional:
    """Definitional STEB scores (see the module docstring and :class:`ScoreRecipe`).

    ``clusters`` replaces the reference's clusters: ``{cluster: [dataset or
    {"name", "oa_metric", "oa_only"}]}`` with cluster names among genre, register, time,
    demographics, dialect, idiolect, predefined_features and style_vs_content.
    Missing results (``missing="drop_datasets"``, the default, as the reference's newest
    ``__main__.py`` forces ``mc_complete_datasets``): each column keeps the datasets that
    every model with a result in that column has; a model with no result in a column
    is scored on the columns it has. ``missing="drop_models"`` averages, per model, the
    datasets it has. The recipe's models file, excluded models and datasets apply as in
    :func:`operational`; its options may be given by name.
    Records enter at one episode configuration per dataset and task, size and episodes
    per label alike: the benchmark preset's, as the reference's ``manual_cluster.py``,
    else the run's own (:func:`~stebkit.scores.inputs.episode_configs`; the recipe's
    ``episode_size`` fixes the size).

    Examples
    --------
    >>> df = pd.DataFrame({"model": ["m1", "m2"], "dataset": "g", "task": "clustering",
    ...                    "value": [0.2, 0.4], "dataset_category": "genre"})
    >>> definitional(df, n_resamples=0).scores["genre"].to_dict()
    {'m1': 0.2, 'm2': 0.4}
    """
    recipe = as_recipe(recipe, options)
    main = scored_frame(results, recipe, "definitional")[0]
    configs = episode_configs(main, recipe.episode_size)
    main = select_episode_config(main, configs)
    main = main[main["value"].notna()].reset_index(drop=True)
    tidy = scored_frame(results, recipe, "definitional", tidy=True)[0]
    if tidy is not None:
        tidy = select_episode_config(tidy, configs)
    all_models = sorted(main["model"].unique()) if models is None else list(models)
    cells = _definitional_cells(main, tidy, _definitional_entries(main, clusters))
    rng = np.random.default_rng(seed) if n_resamples else None
    cluster_cols, used = _cluster_columns(cells, all_models, recipe, rng, n_resamples)
    nan_rep = np.full((len(all_models), 1 + (n_resamples if rng is not None else 0)), np.nan)
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


def _definitional_cells(main: pd.DataFrame, tidy: pd.DataFrame | None,
                        entries: Sequence[tuple[str, str, str | None, bool]]
                        ) -> dict[tuple[str, str, str], dict[str, pd.Series]]:
    """(cluster, task, metric) -> {dataset: model -> value} of the cluster entries."""
    main_metric = {}
    if "metric" in main.columns:
        main_metric = dict(zip(zip(main["dataset"], main["task"], strict=True),
                               main["metric"], strict=True))
    cells: dict[tuple[str, str, str], dict[str, pd.Series]] = {}
    warned = False
    for cluster, dataset, oa_metric, oa_only in entries:
        rows = main[main["dataset"] == dataset]
        for task in sorted(rows["task"].unique()):
            if oa_only and task != _OA:
                continue
            metric = main_metric.get((dataset, task), "main")
            vals = rows[rows["task"] == task]
            if task == _OA and oa_metric and oa_metric != metric:
                if tidy is None or not (tidy["metric"] == oa_metric).any():
                    if not warned:
                        warn(f"results hold only main metrics: order alignment enters "
                             f"definitional clusters with its main metric instead of "
                             f"{oa_metric!r}; pass Results or Results.to_frame()")
                        warned = True
                else:
                    metric = oa_metric
                    vals = tidy[(tidy["dataset"] == dataset) & (tidy["task"] == task)
                                & (tidy["metric"] == metric)]
            s = vals.groupby("model")["value"].first()
            if len(s):
                cells.setdefault((cluster, task, metric), {})[dataset] = s
    return cells


def _cluster_columns(cells: Mapping[tuple[str, str, str], Mapping[str, pd.Series]],
                     models: list[str], recipe: ScoreRecipe,
                     rng: np.random.Generator | None, n_resamples: int
                     ) -> tuple[dict[str, list[np.ndarray]],
                                dict[str, dict[tuple[str, str], list[str]]]]:
    """Each (cluster, task, metric) column's replicates, under the recipe's ``missing``
    rule, and the datasets that entered it."""
    cluster_cols: dict[str, list[np.ndarray]] = {}
    used: dict[str, dict[tuple[str, str], list[str]]] = {}
    for (cluster, task, metric), per_ds in sorted(cells.items()):
        mat = pd.DataFrame(per_ds).reindex(models)
        if recipe.missing == "drop_datasets":  # over the models with a result here
            complete = mat.columns[mat[mat.notna().any(axis=1)].notna().all(axis=0)]
            dropped = sorted(set(mat.columns) - set(complete))
            if dropped:
                log.info("definitional %s / %s (%s): dropped incomplete dataset(s) %s",
                         cluster, task, metric, dropped)
        else:  # average what each model has
            complete = mat.columns[mat.notna().any(axis=0)]
        if len(complete) == 0:
            continue
        full = mat[sorted(complete)].to_numpy(dtype=float)
        cluster_cols.setdefault(cluster, []).append(_group_reps(full, rng, n_resamples))
        used.setdefault(cluster, {})[(task, metric)] = sorted(complete)
    return cluster_cols, used
