"""The results frame the scores read: main metrics, exclusions, episode sizes and
score matrices."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from stebkit.published import DEFINITIONAL_AXES, OBJECT_OF_STUDY
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


def _with_missing(matrix: pd.DataFrame, missing: pd.DataFrame, task: str) -> pd.DataFrame:
    """``matrix`` with a NaN cell for every failed or skipped result of ``task``."""
    rows = missing[missing["task"] == task]
    if rows.empty:
        return matrix
    models = sorted(set(matrix.index) | set(rows["model"]))
    datasets = sorted(set(matrix.columns) | set(rows["dataset"]))
    return matrix.reindex(index=models, columns=datasets)
