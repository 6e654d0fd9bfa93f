"""The leaderboard: both scores side by side, their intervals, and which differences
are significant (the paired bootstrap summary)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from stebkit.scores.aggregates import definitional, operational
from stebkit.scores.grouping import MIN_RELIABLE_MODELS
from stebkit.scores.inputs import (
    DEFINITIONAL_COLUMNS,
    _benchmark_config,
    _shown_config,
    main_frame,
)
from stebkit.scores.published import TASK_COLUMNS
from stebkit.scores.recipe import ScoreRecipe, as_recipe
from stebkit.scores.tables import CHANCE_MODELS, one_dataset, score_name


def _identical_models(tasks: Mapping[str, Any]) -> list[list[str]]:
    """Models whose every operational value is the same (e.g. one model under two
    names): each weighs in the grouping as a model."""
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
    """The frame :func:`leaderboard` returns: a DataFrame that prints as ``stebkit
    leaderboard`` does (:func:`stebkit.scores.tables.board_text`, then
    :func:`summary_lines`), shows the same tables as HTML in a notebook, and holds the
    plain DataFrame in :attr:`frame`. Frames derived from it (selections, sorts,
    copies) are plain DataFrames.

    >>> board = Leaderboard({"rank": [1, pd.NA], "model": ["a", "random"],
    ...                      "model_category": ["style", "non_neural"],
    ...                      "steb_score": [0.5, 0.25], "chance": [False, True]})
    >>> print(board)
    Rank  Model            Type     STEB
       1  a                style  50.00*
          random (chance)         25.00
    <BLANKLINE>
    * best of its column (only above the chance level, never at 0.00)
    >>> board.frame["rank"].tolist()
    [1, <NA>]
    """

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    @property
    def frame(self) -> pd.DataFrame:
        """The leaderboard as a plain DataFrame (every column, its ``attrs``)."""
        return self.copy()

    def __repr__(self) -> str:
        from stebkit.scores.tables import board_text

        lines = summary_lines(self)
        return board_text(self) + ("\n\n" + "\n".join(lines) if lines else "")

    def _repr_html_(self) -> str:
        import html

        from stebkit.scores.tables import score_name, split_board, to_html

        name = score_name(self)
        tables = [to_html(t, score_name=name) for t in split_board(self).values()]
        notes = "".join(f"<p>{html.escape(line)}</p>" for line in leaderboard_summary(self))
        return "\n".join(tables) + notes


def summary_lines(board: pd.DataFrame, fmt: str = "text", width: int = 100) -> list[str]:
    """Which differences of the leaderboard are significant, and what its operational
    score depends on (:func:`leaderboard_summary`), each line through the escaper of
    ``fmt`` (:func:`stebkit.escape.escape_line`): a model's name is shown as the text it
    is; for a terminal (``text``), wrapped at ``width`` columns.

    >>> summary_lines(pd.DataFrame({"model": ["a"]}))
    []
    """
    import textwrap

    from stebkit.escape import escape_line

    lines = [escape_line(line, fmt) for line in leaderboard_summary(board)]
    if fmt != "text":
        return lines
    return [wrapped for line in lines for wrapped in textwrap.wrap(
        line, width, subsequent_indent="  " if line.startswith("- ") else "",
        break_long_words=False, break_on_hyphens=False)]


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
                  alpha: float, unranked: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Paired comparisons of a leaderboard: every ranked model against the chance level,
    and each model against the next one down, per score (``unranked`` models aside)."""
    out: list[dict[str, Any]] = []
    for score, reps in replicates.items():
        if reps.shape[1] < 2:
            continue
        idx = {m: i for i, m in enumerate(models)}
        valid = [m for m in models if np.isfinite(reps[idx[m], 0])]
        ranked = sorted((m for m in valid if m not in CHANCE_MODELS and m not in unranked),
                        key=lambda m: (-reps[idx[m], 0], m))
        for chance in (m for m in valid if m in CHANCE_MODELS):
            out += [{"score": score, "kind": "chance", "model": m, "other": chance,
                     **paired_difference(reps[idx[m]], reps[idx[chance]], alpha=alpha)}
                    for m in ranked]
        out += [{"score": score, "kind": "adjacent", "model": a, "other": b,
                 **paired_difference(reps[idx[a]], reps[idx[b]], alpha=alpha)}
                for a, b in zip(ranked[:-1], ranked[1:], strict=True)]
    return out


def leaderboard(results: Any, *, recipe: ScoreRecipe | None = None, with_ci: bool = True,
                n_resamples: int = 1000, alpha: float = 0.05, seed: int = 42,
                **options: Any) -> pd.DataFrame:
    """The STEB leaderboard: per-task scores, operational and definitional STEB scores.

    Parameters
    ----------
    results : Results or DataFrame
        Evaluation results (``Results``, ``Results.to_frame()`` or ``main_frame()``;
        the tidy frame lets order alignment enter definitional clusters with its plain
        accuracy, as the reference does).
    recipe : ScoreRecipe, optional
        How the scores are made (default: the reference's newest aggregation); each of
        its options may also be given by name (``threshold=1.0``,
        ``grouping="fixed"``), replacing the recipe's. The footer of the summary prints
        the recipe (only what differs from the default).
    with_ci : bool
        Add percentile bootstrap intervals (over datasets) of both STEB scores.
    n_resamples, alpha, seed
        Bootstrap replicates, interval level (``1 - alpha``) and seed.

    Returns
    -------
    Leaderboard
        A DataFrame (printed with every column, then :func:`leaderboard_summary`): one
        row per model, best first, then the chance level (the random baseline,
        ``chance`` True, no rank: a reference line, not a contender): ``rank``,
        ``model``, ``model_category``, one
        column per task, ``steb_score`` (with ``steb_ci_low``/``steb_ci_high``: empty
        when every task has one dataset, as there is nothing to resample), the six
        object-of-study clusters, ``object_of_study``, ``linguistic_features``,
        ``content_independence``, ``definitional_score`` (with its interval).
        ``attrs`` holds ``groups`` (task -> group -> datasets), ``n_datasets``,
        ``excluded`` (datasets, by reason), ``dropped_models`` (task -> model -> missing
        datasets), ``grouping_excluded_models``, ``chance``, ``significance`` (paired
        bootstrap comparisons of each model with the chance level and with the next model
        down, for both STEB scores: :func:`paired_difference` on the replicates behind
        the intervals), ``low_confidence_grouping`` (tasks grouped from too few models),
        ``operational_configs`` (the configuration each operational number comes from)
        and ``recipe``.

    Examples
    --------
    >>> rows = [(m, d, t, v) for m, vals in {"m1": (.1, .2), "m2": (.3, .6)}.items()
    ...         for (d, t), v in zip([("a", "retrieval"), ("b", "clustering")], vals)]
    >>> df = pd.DataFrame(rows, columns=["model", "dataset", "task", "value"])
    >>> lb = leaderboard(df, recipe=ScoreRecipe(grouping="fixed"), with_ci=False)
    >>> lb[["rank", "model", "retrieval", "clustering", "steb_score"]].round(2).values.tolist()
    [[1, 'm2', 0.3, 0.6, 0.45], [2, 'm1', 0.1, 0.2, 0.15]]
    """
    recipe = as_recipe(recipe, options)
    n_boot = n_resamples if with_ci else 0
    op = operational(results, recipe=recipe, n_resamples=n_boot, seed=seed)
    de = definitional(results, recipe=recipe, models=op.models, n_resamples=n_boot,
                      seed=seed + 1)
    out = _board_rows(results, op, de, alpha if with_ci else None)
    incomplete = missing_families(op)
    out["_unranked"] = out["model"].isin(list(incomplete))
    out = Leaderboard(out.sort_values(["chance", "_unranked", "steb_score", "model"],
                                      ascending=[True, True, False, True], na_position="last",
                                      kind="stable").reset_index(drop=True))
    ranked = out["steb_score"].where(~out["chance"] & ~out.pop("_unranked"))
    out.insert(0, "rank", ranked.rank(ascending=False, method="min").astype("Int64"))
    out.attrs.update(_board_attrs(op, de, n_boot, alpha, incomplete))
    out.attrs["chance"] = [m for m in out["model"] if m in CHANCE_MODELS]
    for score in ("steb_score", "definitional_score"):  # nothing to resample: no interval
        base = score.removesuffix("_score")
        if one_dataset(out, score) and f"{base}_ci_low" in out:
            out[[f"{base}_ci_low", f"{base}_ci_high"]] = np.nan
    return out


def missing_families(op: Any) -> dict[str, list[str]]:
    """The models (chance level aside) without a score in a task family that other
    models have, with those families: a STEB score averaged over fewer families is not
    comparable, so :func:`leaderboard` shows it unranked, with a note.

    >>> from stebkit.scores import operational
    >>> rows = [(m, d, t, v) for m, t, d, v in [("a", "retrieval", "r", .5),
    ...         ("a", "clustering", "c", .4), ("b", "retrieval", "r", .9)]]
    >>> df = pd.DataFrame(rows, columns=["model", "dataset", "task", "value"])
    >>> missing_families(operational(df, grouping="fixed", n_resamples=0))
    {'b': ['clustering']}
    """
    scored = op.task_scores
    return {m: [t for t in scored.columns if np.isnan(scored.loc[m, t])]
            for m in scored.index if m not in CHANCE_MODELS
            and scored.loc[m].isna().any() and scored.loc[m].notna().any()}


def _board_rows(results: Any, op: Any, de: Any, alpha: float | None) -> pd.DataFrame:
    """One row per model: category, task scores, both STEB scores (with their intervals
    at ``1 - alpha`` unless ``alpha`` is None) and whether it is the chance level."""
    main = main_frame(results)
    if "model_category" in main.columns:
        cat = main.drop_duplicates("model").set_index("model")["model_category"]
    else:
        cat = pd.Series(dtype=object)
    out = pd.DataFrame({"model": op.models})
    out["model_category"] = [cat.get(m, "other") for m in op.models]
    listed = [t for t in TASK_COLUMNS if t in op.task_scores]  # the published order
    for t in listed + [t for t in op.task_scores.columns if t not in listed]:
        out[t] = op.task_scores[t].to_numpy()
    out["steb_score"] = op.steb.to_numpy()
    if alpha is not None:
        out["steb_ci_low"], out["steb_ci_high"] = _ci(op.replicates, alpha)
    for c in DEFINITIONAL_COLUMNS:
        out[c] = de.scores[c].reindex(op.models).to_numpy()
    if alpha is not None:
        out["definitional_ci_low"], out["definitional_ci_high"] = _ci(de.replicates, alpha)
    out["chance"] = [m in CHANCE_MODELS for m in out["model"]]
    return out


def _board_attrs(op: Any, de: Any, n_boot: int, alpha: float,
                 incomplete: Mapping[str, list[str]]) -> dict[str, Any]:
    """What a leaderboard's notes and summary say, from its two scores."""
    tasks = op.tasks
    return {
        "missing_families": dict(incomplete),
        "dropped_models": {t: a.dropped_models for t, a in tasks.items() if a.dropped_models},
        "grouping_excluded_models": sorted({m for a in tasks.values()
                                            for m in a.grouping_excluded}),
        "groups": {t: a.groups for t, a in tasks.items()},
        "n_datasets": {t: a.matrix.shape[1] for t, a in tasks.items()},
        "dropped_datasets": {t: a.dropped_datasets for t, a in tasks.items()
                             if a.dropped_datasets},
        "excluded": op.excluded, "recipe": op.recipe,
        "grouping": op.recipe.grouping if isinstance(op.recipe.grouping, str) else "declared",
        "skipped_tasks": op.skipped_tasks, "not_scored": op.not_scored,
        "no_steb_score": _no_steb_score(op),
        "identical_models": _identical_models(tasks),
        "low_confidence_grouping": sorted(t for t, a in tasks.items() if a.low_confidence),
        "n_grouping_models": max((a.matrix.shape[0] - len(a.grouping_excluded)
                                  for a in tasks.values()), default=0),
        "n_resamples": n_boot, "alpha": alpha,
        "significance": _significance(op.models, {"steb_score": op.replicates,
                                                  "definitional_score": de.replicates},
                                      alpha, incomplete),
        "definitional_columns": {c: {f"{t} ({m})": ds for (t, m), ds in cols.items()}
                                 for c, cols in de.columns.items()},
        "operational_configs": _operational_configs(op.configs),
        **_config_attrs(de.configs, de.columns),
    }


def _no_steb_score(op: Any) -> str:
    """Why there is no STEB score ("" when there is one)."""
    n = len(op.task_replicates)
    if n == 0 or n >= op.recipe.min_tasks:
        return ""
    return (f"only {n} task(s) scored ({', '.join(op.task_replicates)}); the STEB score "
            f"needs {op.recipe.min_tasks}, as the reference writes it only for more than "
            "one task (min_tasks=1 scores one)")


def _operational_configs(configs: pd.DataFrame) -> dict[str, Any]:
    """For the notes: task -> dataset -> model -> configuration where the models of a
    dataset entered at different configurations (``mixed``), and task -> configuration
    -> datasets entered at it while other configurations hold values (``chosen``)."""
    mixed: dict[str, dict[str, dict[str, str]]] = {}
    chosen: dict[str, dict[str, list[str]]] = {}
    for (task, dataset), cell in configs.groupby(["task", "dataset"], sort=True):
        if cell["configuration"].nunique() > 1:
            mixed.setdefault(task, {})[dataset] = dict(zip(cell["model"],
                                                           cell["configuration"],
                                                           strict=True))
        elif any(len(o) for o in cell["others"]):
            shown = f"{cell['configuration'].iloc[0]} (of " + ", ".join(
                sorted({c for o in cell["others"] for c in o}
                       | {cell["configuration"].iloc[0]})) + ")"
            chosen.setdefault(task, {}).setdefault(shown, []).append(dataset)
    return {"mixed": mixed, "chosen": chosen}


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
    for model, families in (attrs.get("missing_families") or {}).items():
        lines.append(f"{model}: unranked, no score in {', '.join(families)} (its STEB score "
                     "is the mean of the other task families, not comparable)")
    if attrs.get("no_steb_score"):
        lines.append(f"no STEB score: {attrs['no_steb_score']}")
    lines += _operational_config_notes(attrs.get("operational_configs") or {})
    for same in attrs.get("identical_models") or []:
        lines.append(f"identical results: {', '.join(same)}; each enters the correlation "
                     "grouping as a model of its own")
    if attrs.get("grouping_excluded_models"):
        lines.append("left out of the correlation grouping (still scored): "
                     + ", ".join(attrs["grouping_excluded_models"]))
    lines += _definitional_config_notes(attrs)
    if attrs.get("chance"):
        lines.append("chance level, not ranked: " + ", ".join(attrs["chance"]))
    return lines


def _definitional_config_notes(attrs: Mapping[str, Any]) -> list[str]:
    """The note lines on the configurations the definitional score read."""
    lines = []
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
    return lines


def _operational_config_notes(configs: Mapping[str, Any]) -> list[str]:
    """The note lines on which configuration each operational number comes from."""
    lines = []
    for task, by_dataset in (configs.get("mixed") or {}).items():
        for dataset, by_model in by_dataset.items():
            shown = ", ".join(f"{m} {c}" for m, c in by_model.items())
            lines.append(f"operational score, {task} on {dataset}: the models' numbers come "
                         f"from different configurations (size_episodes-per-label, each "
                         f"model's first in string order holding a result, as the "
                         f"reference): {shown}")
    for task, by_config in (configs.get("chosen") or {}).items():
        for shown, datasets in by_config.items():
            lines.append(f"operational score, {task}: {', '.join(datasets)} at {shown}, the "
                         "first configuration in string order holding a result (as the "
                         "reference)")
    return lines


def recipe_line(attrs: Mapping[str, Any]) -> str:
    """Which recipe produced a leaderboard (its ``attrs["recipe"]``), for its footer:
    :meth:`ScoreRecipe.describe`, which prints only what differs from the default.

    >>> print(recipe_line({"recipe": ScoreRecipe(threshold=1.0, missing="drop_models")}))
    ... # doctest: +NORMALIZE_WHITESPACE
    Recipe: ScoreRecipe(threshold=1.0, missing='drop_models'), not the reference's
    newest aggregation
    """
    return attrs.get("recipe", ScoreRecipe()).describe()


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
    >>> one_task = ScoreRecipe(grouping="fixed", min_tasks=1)  # the reference needs 2
    >>> lines = leaderboard_summary(leaderboard(df, recipe=one_task, n_resamples=200))
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
            + "), so adding or removing a model can change every model's score; with "
            "grouping='fixed' (the reference's fixed clusters) the scores do not move when "
            "models are added or removed")
    if "recipe" in attrs:
        lines.append(recipe_line(attrs))
    return lines
