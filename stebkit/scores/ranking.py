"""The leaderboard: both scores side by side, their intervals, and which differences
are significant (the paired bootstrap summary)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from stebkit.scores.aggregates import definitional, operational
from stebkit.scores.grouping import (
    DEFAULT_THRESHOLD,
    MIN_RELIABLE_MODELS,
    REFERENCE,
)
from stebkit.scores.inputs import (
    DEFAULT_EXCLUDE,
    DEFINITIONAL_COLUMNS,
    _benchmark_config,
    _shown_config,
    main_frame,
)
from stebkit.scores.tables import one_dataset, score_name

CHANCE_MODELS = ("random",)
"""Models that mark the chance level: shown as a reference line, never ranked."""

def _identical_models(tasks: Mapping[str, Any]) -> list[list[str]]:
    """Models whose every operational value is the same (e.g. ``function-words`` and
    ``functionwordfreq`` on English datasets): each weighs in the grouping as a model."""
    if not tasks:
        return []
    values = pd.concat([a.matrix.add_prefix(f"{t}/") for t, a in tasks.items()], axis=1)
    seen: dict[tuple[Any, ...], list[str]] = {}
    for model, row in values.iterrows():
        seen.setdefault(tuple(row.round(12).fillna(-np.inf)), []).append(str(model))
    return sorted(sorted(ms) for ms in seen.values() if len(ms) > 1)


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
                seed: int = 42, complete_datasets: bool = True,
                include_unlisted: bool | None = None,
                grouping_models: str = "reference") -> pd.DataFrame:
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
    threshold, episode_size, min_models, complete_datasets, include_unlisted, grouping_models
        See :func:`operational`. The defaults are the reference's newest recipe
        (threshold 0.5; datasets not every model has are dropped, operational and
        definitional alike; the reference's excluded models are not scored and every
        other model, the random baseline included, shapes the grouping; a task with
        fewer than 3 models gets no operational score); ``threshold=1.0,
        complete_datasets=False, grouping_models="stebkit"`` are stebkit's former
        rules. The footer of the summary names the recipe.
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
                     include_unlisted=include_unlisted, grouping_models=grouping_models)
    de = definitional(results, exclude=exclude, episode_size=episode_size,
                      models=op.models, n_resamples=n_boot, seed=seed + 1,
                      complete_datasets=complete_datasets, include_unlisted=include_unlisted,
                      grouping_models=grouping_models)
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
        "complete_datasets": complete_datasets, "grouping_models": grouping_models,
        "min_models": min_models, "skipped_tasks": op.skipped_tasks,
        "not_scored": op.not_scored, "identical_models": _identical_models(op.tasks),
        "low_confidence_grouping": sorted(t for t, a in op.tasks.items() if a.low_confidence),
        "n_grouping_models": max((a.matrix.shape[0] - len(a.grouping_excluded)
                                  for a in op.tasks.values()), default=0),
        "n_resamples": n_boot, "alpha": alpha,
        "significance": _significance(op.models, {"steb_score": op.replicates,
                                                  "definitional_score": de.replicates},
                                      alpha),
        "definitional_columns": {c: {f"{t} ({m})": ds for (t, m), ds in cols.items()}
                                 for c, cols in de.columns.items()},
        **_config_attrs(de.configs, de.columns),
    })
    return out


def _config_attrs(configs: pd.DataFrame, columns: Mapping[str, Any]) -> dict[str, Any]:
    """The episode configurations behind the definitional score, for the notes: task ->
    configuration -> the datasets that entered at it (``definitional_configs``), and
    task -> dataset -> the configurations left out at its size."""
    entered: dict[str, set[str]] = {}
    for cols in columns.values():
        for (task, _), datasets in cols.items():
            entered.setdefault(task, set()).update(datasets)
    used: dict[str, dict[str, list[str]]] = {}
    left: dict[str, dict[str, list[str]]] = {}
    for row in configs.itertuples(index=False):
        if row.dataset not in entered.get(row.task, ()):
            continue
        shown = _shown_config(row.episode_size, row.episodes_per_label)
        used.setdefault(row.task, {}).setdefault(shown, []).append(row.dataset)
        if row.left_out:
            left.setdefault(row.task, {})[row.dataset] = list(row.left_out)
    return {"definitional_configs": used, "definitional_left_out_configs": left}


def leaderboard_notes(board: pd.DataFrame) -> list[str]:
    """What a leaderboard left out and why, one line each (from its ``attrs``).

    >>> board = pd.DataFrame({"model": ["m"]})
    >>> board.attrs = {"dropped_models": {"retrieval": {"m2": ["d1"]}},
    ...                "excluded": {"non_english": ["x"]}, "chance": ["random"]}
    >>> for line in leaderboard_notes(board): print(line)
    retrieval: left out m2 (no result for d1)
    excluded datasets (non_english): x
    chance level, not ranked: random
    """
    attrs = board.attrs
    lines = []
    for task, models in (attrs.get("dropped_models") or {}).items():
        for model, missing in models.items():
            lines.append(f"{task}: left out {model} (no result for {', '.join(missing)})")
    for task, datasets in (attrs.get("dropped_datasets") or {}).items():
        lines.append(f"{task}: dropped dataset(s) not every model has: {', '.join(datasets)}")
    for reason, datasets in (attrs.get("excluded") or {}).items():
        lines.append(f"excluded datasets ({reason}): {', '.join(datasets)}")
    for task, why in (attrs.get("skipped_tasks") or {}).items():
        lines.append(f"{task}: no operational score, {why}, as the reference skips it")
    if attrs.get("not_scored"):
        lines.append("not scored (the reference's excluded models): "
                     + ", ".join(attrs["not_scored"]))
    for same in attrs.get("identical_models") or []:
        lines.append(f"identical results: {', '.join(same)}; each enters the correlation "
                     "grouping as a model of its own")
    if attrs.get("grouping_excluded_models"):
        lines.append("left out of the correlation grouping (still scored): "
                     + ", ".join(attrs["grouping_excluded_models"]))
    for task, by_config in (attrs.get("definitional_configs") or {}).items():
        bench = _benchmark_config(task)
        preset = _shown_config(*bench) if bench else None
        for shown, datasets in by_config.items():
            if shown == preset:
                continue
            which = (f"all {len(datasets)} dataset(s)" if len(by_config) == 1
                     else ", ".join(datasets))
            lines.append(f"definitional score, {task}: {which} at {shown}, the run's own "
                         "configuration (" + (f"no record at the benchmark preset's {preset}"
                                              if preset else "no benchmark preset") + ")")
    for task, by_dataset in (attrs.get("definitional_left_out_configs") or {}).items():
        for dataset, shown in by_dataset.items():
            lines.append(f"definitional score, {task} on {dataset}: records at "
                         f"{', '.join(shown)} left out (one configuration per dataset and "
                         "task)")
    if attrs.get("chance"):
        lines.append("chance level, not ranked: " + ", ".join(attrs["chance"]))
    return lines


def recipe_line(attrs: Mapping[str, Any]) -> str:
    """Which recipe produced a leaderboard (from its ``attrs``), for its footer.

    >>> print(recipe_line({"grouping": "correlation", "threshold": 0.5,
    ...                    "complete_datasets": True, "grouping_models": "reference",
    ...                    "min_models": 3}))  # doctest: +NORMALIZE_WHITESPACE
    Recipe: the reference's newest aggregation (rrivera1849/STEB,
    scripts/benchmark_clustering (newest version)): Ward cut 0.5, datasets not every
    model has are dropped, its excluded models are not scored
    >>> print(recipe_line({"grouping": "correlation", "threshold": 1.0,
    ...                    "complete_datasets": False, "grouping_models": "stebkit",
    ...                    "min_models": 3}))  # doctest: +NORMALIZE_WHITESPACE
    Recipe: not the reference's newest; differs in threshold=1.0,
    complete_datasets=False, grouping_models='stebkit'
    """
    default = {"grouping": "correlation", "threshold": DEFAULT_THRESHOLD,
               "complete_datasets": True, "grouping_models": "reference", "min_models": 3}
    differs = [f"{k}={attrs.get(k)!r}" for k, v in default.items() if attrs.get(k) != v]
    if differs:
        return f"Recipe: not the reference's newest; differs in {', '.join(differs)}"
    return (f"Recipe: the reference's newest aggregation ({REFERENCE}): Ward cut "
            f"{DEFAULT_THRESHOLD:g}, datasets not every model has are dropped, its excluded "
            "models are not scored")


def _names(models: Sequence[str]) -> str:
    return ", ".join(models) if models else "none"


def leaderboard_summary(board: pd.DataFrame, *, scale: float = 100.0, digits: int = 2
                        ) -> list[str]:
    """What the leaderboard's numbers support, one line each (from its ``attrs``): for
    both STEB scores, which models are significantly above or below the chance level and
    which adjacent ranks are resolved (the paired bootstrap of :func:`leaderboard`; ``n/a
    (1 dataset ...)`` when the score has one dataset per task or cluster column, so that
    the bootstrap has nothing to resample), and that the operational score depends on
    the set of models compared.

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

    steb = "STEB score" if score_name(board) == "STEB" else "suite score"
    for score, label in (("steb_score", steb), ("definitional_score", "definitional score")):
        mine = [r for r in records if r["score"] == score]
        if mine and one_dataset(board, score):  # every replicate the same: no interval
            lines.append(f"- {label}: significance n/a (1 dataset per "
                         f"{'task' if score == 'steb_score' else 'cluster column'}: "
                         "nothing to resample)")
            continue
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
    if "grouping_models" in attrs:
        lines.append(recipe_line(attrs))
    return lines
