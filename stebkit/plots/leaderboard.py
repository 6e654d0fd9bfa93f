"""Models compared by score: :func:`figure1` (the STEB paper's Figure 1),
:func:`interval_bars` (per dataset, with intervals) and :func:`rank_resolution` (tiers of
indistinguishable models)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from stebkit.plots.layout import (
    _LINE,
    _TICK_FONT,
    COLUMN_WIDTH,
    PAGE_WIDTH,
    _legend_below,
    _legend_rows,
    _rows,
    _text_width,
    _title,
    _width,
)
from stebkit.plots.style import (
    GREY,
    OKABE_ITO,
    Plot,
    _figure,
    _finish,
    _ordered_categories,
    _rc,
    category_color,
)
from stebkit.scores.published import category_label


def _chance_mask(df: pd.DataFrame) -> pd.Series:
    """Rows of the chance level (the leaderboard's ``chance`` column, else the random
    baseline by name)."""
    if "chance" in df.columns:
        return df["chance"].fillna(False).astype(bool)
    return df["model"].isin(("random",)) if "model" in df.columns else \
        pd.Series(False, index=df.index)


def _chance_lines(ax: Any, chance: pd.DataFrame, score: str, scale: float, *,
                  vertical: bool) -> None:
    """The chance level as a dashed line (a reference, not a contender)."""
    for _, row in chance.iterrows():
        value = row[score] * scale
        if not np.isfinite(value):
            continue
        draw = ax.axvline if vertical else ax.axhline
        draw(value, color="0.35", linestyle="--", linewidth=1.0,
             label=f"chance level ({row['model']})")


def above_chance(board: pd.DataFrame, score: str = "steb_score") -> dict[str, bool] | None:
    """Which models the paired bootstrap puts significantly above the chance level on
    ``score`` (from the leaderboard's ``attrs["significance"]``); None when the board holds
    no such test (published numbers) or the score has one dataset per task or cluster
    column (nothing to resample).

    >>> board = pd.DataFrame({"model": ["a", "b"]})
    >>> board.attrs["significance"] = [
    ...     {"score": "steb_score", "kind": "chance", "model": "a", "significant": True,
    ...      "diff": 0.2}, {"score": "steb_score", "kind": "chance", "model": "b",
    ...      "significant": True, "diff": -0.1}]
    >>> above_chance(board)
    {'a': True, 'b': False}
    """
    from stebkit.scores.tables import one_dataset

    tests = [r for r in board.attrs.get("significance") or []
             if r["score"] == score and r["kind"] == "chance"]
    if not tests or one_dataset(board, score):
        return None
    return {r["model"]: bool(r["significant"] and r["diff"] > 0) for r in tests}


def figure1_caption(board: pd.DataFrame, score: str = "steb_score",
                    name: str = "STEB score") -> str:
    """The caption of :func:`figure1` for ``board``: what a point, its interval, a filled
    and an open marker mean, and that the paired test and a model's own interval can
    disagree in both directions, naming the models of this board where they do.

    >>> board = pd.DataFrame({"model": ["a", "random"], "steb_score": [.6, .5],
    ...                       "steb_ci_low": [.45, .4], "steb_ci_high": [.7, .6],
    ...                       "chance": [False, True]})
    >>> board.attrs["significance"] = [{"score": "steb_score", "kind": "chance",
    ...                                 "model": "a", "significant": True, "diff": 0.1}]
    >>> print(figure1_caption(board))  # doctest: +ELLIPSIS
    STEB score by model category...its interval crosses the chance line: a.
    """
    base = score.removesuffix("_score")
    text = (f"{name} by model category: each model a point with its own 95 % bootstrap "
            "interval over datasets; the dashed line is the chance level (the random "
            "baseline).")
    above = above_chance(board, score)
    if above is None:
        return text + (" Intervals and significance n/a (1 dataset per task)."
                       if _one_dataset(board, score) else "")
    text += (" Filled: significantly above the chance level by the paired bootstrap, which "
             "resamples the same datasets for every model; open: not. The two can disagree "
             "either way: a model can be significantly above chance while its own interval "
             "crosses the chance line (the paired test cancels how hard each dataset is), "
             "and a model's interval can lie above the chance line while the paired test "
             "does not resolve it (its lead over chance varies from dataset to dataset).")
    chance = board.loc[_chance_mask(board), score]
    level = float(chance.iloc[0]) if len(chance) else np.nan
    rows = board.set_index("model")
    crossing = [m for m, up in above.items() if up and rows.at[m, f"{base}_ci_low"] <= level]
    clear = [m for m, up in above.items() if not up and rows.at[m, f"{base}_ci_low"] > level]
    for models, what in ((crossing, "Significantly above chance while its interval crosses "
                                    "the chance line"),
                         (clear, "Interval above the chance line, not significantly above "
                                 "chance")):
        if models:
            text += f" {what}: {', '.join(models)}."
    return text


def _one_dataset(board: pd.DataFrame, score: str) -> bool:
    from stebkit.scores.tables import one_dataset

    return one_dataset(board, score)


def _significance_markers(ax: Any, x: np.ndarray, ys: np.ndarray, up: np.ndarray,
                          color: str, size: float) -> None:
    """Open markers over the models the paired test does not put above chance."""
    if (~up).any():
        ax.scatter(x[~up], ys[~up], s=size ** 2, facecolors="white", edgecolors=color,
                   linewidths=1.2, zorder=4)


def _significance_legend(ax: Any, size: float) -> None:
    """The legend's two entries for the markers: filled and open."""
    ax.scatter([], [], s=size ** 2, color="0.3", label="significantly above chance "
               "(paired test)")
    ax.scatter([], [], s=size ** 2, facecolors="white", edgecolors="0.3", linewidths=1.2,
               label="not significantly above chance")


def _figure1_rows(leaderboard_df: pd.DataFrame, score: str
                  ) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The models of :func:`figure1` with a ``score`` (every one with a category), the
    chance level's rows apart, and the categories in plotting order."""
    need = {"model", score}
    if not need <= set(leaderboard_df.columns):
        raise ValueError(f"leaderboard_df needs columns {sorted(need)}; got "
                         f"{list(leaderboard_df.columns)}")
    df = leaderboard_df.copy()
    df["model_category"] = (df["model_category"] if "model_category" in df
                            else pd.Series("other", index=df.index)).fillna("other")
    df = df[df[score].notna()]
    chance = _chance_mask(df)
    return df[~chance], df[chance], _ordered_categories(df.loc[~chance, "model_category"])


def _figure1_size(models: pd.Series, keys: list[str], n_rows: float, width: float,
                  title: str | None) -> dict[str, Any]:
    """How :func:`figure1` is laid out ``width`` inches wide: the legend right of the
    axes when the model names leave room (else below them, in ``ncol`` columns), the
    height, the labels' font size and the wrapped title."""
    legend_w = _text_width([*keys, "model category"], _TICK_FONT) + 0.5
    below = width < PAGE_WIDTH or _text_width(models, _TICK_FONT) + legend_w + 2.2 > width
    ncol, legend_rows = _legend_rows(keys, width - 0.3, _TICK_FONT) if below else (1, 0)
    legend_h = (legend_rows + 1) * _TICK_FONT * _LINE / 72 + 0.2 if below else 0.0
    title, title_h = _title(title, width, 11.0)
    height, size = _rows(n_rows, 0.9 + title_h + legend_h, what="figure1")
    if width < PAGE_WIDTH:  # a column: the names take less of the width
        size = min(size, 7.0)
    return {"below": below, "ncol": ncol, "height": height, "size": size, "title": title}


def _intervals(part: pd.DataFrame, score: str, x: np.ndarray, scale: float
               ) -> np.ndarray | None:
    """The whiskers of ``part``'s points (None without interval columns)."""
    base = score.removesuffix("_score")
    lo_col, hi_col = f"{base}_ci_low", f"{base}_ci_high"
    if lo_col not in part or hi_col not in part:
        return None
    lo = part[lo_col].to_numpy(dtype=float) * scale
    hi = part[hi_col].to_numpy(dtype=float) * scale
    err = np.vstack([np.clip(x - lo, 0, None), np.clip(hi - x, 0, None)])
    return np.where(np.isfinite(err), err, 0.0)


def _category_points(ax: Any, part: pd.DataFrame, y: float, cat: str, *, score: str,
                     scale: float, single: bool, above: dict[str, bool] | None,
                     mark_best: bool, size: float) -> np.ndarray:
    """One category's models as points with their intervals, rows from ``y`` up, best
    last; open markers for those the paired test does not put above chance, a star on
    the best with ``mark_best``. Returns the rows."""
    ys = y + np.arange(len(part))
    x = part[score].to_numpy(dtype=float) * scale
    marker = min(5.0, size * 0.6)
    ax.errorbar(x, ys, xerr=None if single else _intervals(part, score, x, scale), fmt="o",
                color=category_color(cat), elinewidth=1.2, capsize=2.5, markersize=marker,
                label=category_label(cat))
    if above:
        up = np.array([above.get(m, False) for m in part["model"]])
        _significance_markers(ax, x, ys, up, category_color(cat), marker)
    if mark_best and len(part):
        ax.scatter(x[-1:], ys[-1:], marker="*", s=min(180, size ** 2 * 2.2),
                   color=category_color(cat), edgecolors="black", linewidths=0.8,
                   zorder=5, label="best in its category" if y == 0 else None)
    return ys


def _short(name: str, most: int = 24) -> str:
    """``name`` in at most ``most`` characters, cut after its first third (a column-wide
    figure's model labels: the ends of names tell them apart).

    >>> _short("tfidfngrams_fineweb_sample10bt_1-2grams.pkl"), _short("e5-large-v2")
    ('tfidfng…0bt_1-2grams.pkl', 'e5-large-v2')
    """
    if len(name) <= most:
        return name
    head = (most - 1) // 3
    return name[:head] + "…" + name[-(most - 1 - head):]


def _score_label(score: str, score_name: str | None, scale: float, single: bool) -> str:
    """The x axis's label of :func:`figure1`.

    >>> _score_label("definitional_score", None, 100, True)
    'definitional score (×100); interval n/a (1 dataset)'
    """
    base = score.removesuffix("_score")
    name = score_name or ("STEB score" if base == "steb" else f"{base.replace('_', ' ')} score")
    return (name + (" (×100)" if scale == 100 else "")
            + ("; interval n/a (1 dataset)" if single else ""))


def _figure1_legend(ax: Any, layout: dict[str, Any]) -> None:
    """The legend of :func:`figure1`, top entry first: below the x axis's labels or
    right of the axes (``layout`` of :func:`_figure1_size`)."""
    handles, names = ax.get_legend_handles_labels()
    if layout["below"]:
        ax.legend(handles[::-1], names[::-1], title="model category", ncol=layout["ncol"],
                  loc="upper center", bbox_to_anchor=(0.5, 0),
                  borderaxespad=0.5 * 72 / _TICK_FONT)
    else:
        ax.legend(handles[::-1], names[::-1], title="model category", loc="center left",
                  bbox_to_anchor=(1.01, 0.5))


def figure1(leaderboard_df: pd.DataFrame, *, directory: str | os.PathLike[str] | None = "auto",
            stem: str = "figure1_steb_by_category", score: str = "steb_score",
            scale: float = 100.0, title: str | None = None, mark_best: bool = False,
            score_name: str | None = None, width: str = "page") -> Plot:
    """STEB score by model category: each model a point with its interval, grouped and
    coloured by category (the STEB paper's Figure 1). The chance level (the random
    baseline) is a dashed line, not a point among the models. With the leaderboard's
    paired tests (:func:`stebkit.scores.leaderboard`), a filled marker is a model
    significantly above the chance level, an open one a model that is not
    (:func:`figure1_caption` says so beside the figure); with one dataset per task there
    is no interval, and the axis says ``n/a (1 dataset)``.

    The figure is a page wide (``width="column"``: a column of a two-column paper, the
    legend below); saved a page wide, its column-wide variant is written beside it as
    ``<stem>_column``. With many models its rows move closer (the 40 published models
    fit at 8 pt), and past what fits at :data:`MIN_FONT_SIZE` it asks for a subset.

    Parameters
    ----------
    leaderboard_df : DataFrame
        :func:`stebkit.scores.leaderboard` output (``model``, ``model_category``,
        ``score`` and optionally ``<score>`` interval columns).
    directory, stem
        Where to save (None: do not save).
    score : str
        Column to plot (e.g. ``"definitional_score"``).
    scale : float
        Multiplier of the scores (100: percentages, as in the paper).
    mark_best : bool
        Mark the best model of each category with a star (as the paper's Figure 1).
    score_name : str, optional
        The axis's name of the score (default ``STEB score``; a suite of one's own names
        its own score).
    width : str
        ``"page"`` (:data:`PAGE_WIDTH`) or ``"column"`` (:data:`COLUMN_WIDTH`).
    """
    widths = {"page": PAGE_WIDTH, "column": COLUMN_WIDTH}
    if width not in widths:
        raise ValueError(f"width={width!r}: use 'page' or 'column'")
    df, chance, cats = _figure1_rows(leaderboard_df, score)
    above, single = above_chance(leaderboard_df, score), _one_dataset(leaderboard_df, score)
    keys = [*cats, *(["best in its category"] if mark_best else []),
            *(f"chance level ({m})" for m in chance["model"]),
            *(["significantly above chance (paired test)", "not significantly above chance"]
              if above else [])]
    gap = 0.8
    layout = _figure1_size(df["model"], keys, len(df) + gap * max(len(cats) - 1, 0),
                           widths[width], title)
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(widths[width], layout["height"])
        y, ticks, labels = 0.0, [], []
        for cat in reversed(cats):
            part = df[df["model_category"] == cat].sort_values(score)
            ticks.extend(_category_points(ax, part, y, cat, score=score, scale=scale,
                                          single=single, above=above, mark_best=mark_best,
                                          size=layout["size"]))
            labels.extend(part["model"].map(_short if width == "column" else str))
            y += len(part) + gap
        ax.set_yticks(ticks, labels, fontsize=layout["size"])
        ax.set_ylim(-0.7, max(y - gap, 1) - 0.3)
        ax.grid(axis="y", visible=False)
        _chance_lines(ax, chance, score, scale, vertical=True)
        if above:
            _significance_legend(ax, min(5.0, layout["size"] * 0.6))
        ax.set_xlabel(_score_label(score, score_name, scale, single))
        _figure1_legend(ax, layout)
        if layout["title"]:
            ax.set_title(layout["title"])
    plot = _finish(fig, stem, directory)
    if width == "page" and directory is not None:  # the column-wide variant beside it
        column = figure1(leaderboard_df, directory=directory, stem=f"{stem}_column",
                         score=score, scale=scale, title=title, mark_best=mark_best,
                         score_name=score_name, width="column")
        plot = Plot(fig, [*plot.paths, *column.paths])
    return plot


def _row_labels(table: pd.DataFrame, sets: list[str]) -> list[str]:
    """Each dataset's label; with its metric in brackets when the datasets are scored by
    different metrics (one axis, several scales).

    >>> t = pd.DataFrame({"dataset": ["a", "b"], "metric": ["auc", "mrr"]})
    >>> _row_labels(t, ["a", "b"])
    ['a (auc)', 'b (mrr)']
    """
    if "metric" not in table or table["metric"].nunique() < 2:
        return list(sets)
    metric = table.drop_duplicates("dataset").set_index("dataset")["metric"]
    return [f"{d} ({metric[d]})" for d in sets]


def _edge() -> list[Any]:
    """A white edge around a line, so that it shows on a dark bar too."""
    from matplotlib import patheffects

    return [patheffects.withStroke(linewidth=2.2, foreground="white")]


def _chance_marks(ax: Any, table: pd.DataFrame, sets: list[str], chance: str | None,
                  half: float) -> None:
    """The ``chance`` model's value of each dataset as a dashed mark across its group of
    bars (``half`` the group's height either side)."""
    rows = table[table["model"] == chance].set_index("dataset")["value"] if chance else {}
    label = f"chance level ({chance})"
    for k, dataset in enumerate(sets):
        if dataset in rows and np.isfinite(rows[dataset]):
            ax.vlines(rows[dataset], k - half, k + half, colors="0.2", linestyles="--",
                      linewidth=1.0, zorder=4, label=label, path_effects=_edge())
            label = None  # one legend entry


def interval_bars(table: pd.DataFrame, *, directory: str | os.PathLike[str] | None = "auto",
                  stem: str = "interval_bars", colors: Mapping[str, str] | None = None,
                  xlabel: str = "score with 95 % bootstrap CI", xlim: tuple[float, float] = (0, 1),
                  title: str | None = None, chance: str | None = "random") -> Plot:
    """Horizontal bars with interval whiskers: one group per dataset, one bar per model
    (a page wide, the legend below). The whiskers have a white edge, so they show on a
    dark bar too. The ``chance`` model (the random baseline) is no bar: its value is a
    dashed mark across each dataset's group, as each metric has a chance level of its
    own; datasets scored by different metrics name theirs beside their name.

    ``table`` is a records frame (``Results.main_frame()``) with ``model``, ``dataset``,
    ``value``, ``ci_low`` and ``ci_high``; models keep their first-appearance order (or the
    order of ``colors``), datasets are sorted. A long ``xlabel`` is wrapped to the axes'
    width.

    >>> t = pd.DataFrame({"model": ["a", "b", "random"], "dataset": ["d", "d", "d"],
    ...                   "value": [0.6, 0.4, 0.5], "ci_low": [0.5, 0.3, 0.4],
    ...                   "ci_high": [0.7, 0.5, 0.6]})
    >>> len(interval_bars(t, directory=None).figure.axes[0].patches)
    2
    """
    import matplotlib as mpl

    missing = {"model", "dataset", "value", "ci_low", "ci_high"} - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}; pass Results.main_frame()")
    models = [m for m in (list(colors) if colors else dict.fromkeys(table["model"]))
              if m != chance]
    sets = sorted(table["dataset"].unique())
    ncol, legend_rows = _legend_rows([*models, f"chance level ({chance})"], PAGE_WIDTH - 0.3,
                                     8.0)
    title, title_h = _title(title, PAGE_WIDTH, 11.0)
    labels = _row_labels(table, sets)
    # the x label wrapped to the axes: the page less the row labels' width
    xlabel, xlabel_h = _title(xlabel, PAGE_WIDTH - _text_width(labels, _TICK_FONT), 10.0)
    overhead = 0.8 + legend_rows * 8.0 * _LINE / 72 + title_h + max(0.0, xlabel_h - 0.25)
    height, size = _rows(len(sets), overhead, what="interval_bars",
                         pitch=max(0.35, 0.12 * len(models)))
    with mpl.rc_context(_rc()):
        fig, ax = _figure(PAGE_WIDTH, height)
        bar = 0.8 / max(1, len(models))
        for k, model in enumerate(models):
            rows = table[table["model"] == model].set_index("dataset").reindex(sets)
            y = np.arange(len(sets)) + (k - (len(models) - 1) / 2) * bar
            err = np.vstack([rows["value"] - rows["ci_low"], rows["ci_high"] - rows["value"]])
            kw = {"color": colors[model]} if colors else {}
            bars = ax.barh(y, rows["value"], bar, xerr=err, label=model,
                           error_kw={"lw": 0.8, "ecolor": "black"}, **kw)
            for lines in bars.errorbar.lines[2]:
                lines.set_path_effects(_edge())
        _chance_marks(ax, table, sets, chance, 0.45)
        ax.set_yticks(np.arange(len(sets)), labels, fontsize=size)
        ax.invert_yaxis()
        ax.set(xlabel=xlabel, xlim=xlim)
        _legend_below(fig, ax, PAGE_WIDTH)
        if title:
            ax.set_title(title)
    return _finish(fig, stem, directory)


def rank_resolution(table: pd.DataFrame, *, directory: str | os.PathLike[str] | None = "auto",
                    stem: str = "rank_resolution", scale: float = 100.0,
                    title: str | None = None) -> Plot:
    """Models in rank order with tiers of indistinguishable models shaded alternately.

    ``table`` is :func:`stebkit.scores.quality.rank_resolution` output; a dashed line marks
    every separable step between adjacent ranks.
    """
    need = {"model", "score", "tier", "separable"}
    if not need <= set(table.columns):
        raise ValueError(f"table needs columns {sorted(need)} "
                         "(stebkit.scores.quality.rank_resolution output)")
    t = table.reset_index(drop=True)
    y = np.arange(len(t))[::-1]
    labels = [f"{m}  (tier {k})" for m, k in zip(t["model"], t["tier"], strict=True)]
    title, title_h = _title(title, COLUMN_WIDTH)
    height, size = _rows(len(t), 0.8 + title_h, what="rank_resolution")
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(_width(_text_width(labels, size) + 2.2), height)
        for k, tier in enumerate(sorted(t["tier"].unique())):
            rows = y[t["tier"].to_numpy() == tier]
            if k % 2 == 0:
                ax.axhspan(rows.min() - 0.5, rows.max() + 0.5, color=GREY, alpha=0.15,
                           linewidth=0)
        colors = [category_color(c) for c in t["model_category"]] if "model_category" in t \
            else [OKABE_ITO[4]] * len(t)
        ax.scatter(t["score"] * scale, y, color=colors, zorder=3)
        for i, sep in enumerate(t["separable"]):
            if sep is True:
                ax.axhline(y[i] - 0.5, color="black", linestyle="--", linewidth=0.8)
        ax.set_yticks(y, labels, fontsize=size)
        ax.set_ylim(-0.6, len(t) - 0.4)
        ax.grid(axis="y", visible=False)
        ax.set_xlabel("score" + (" (×100)" if scale == 100 else ""))
        if title:
            ax.set_title(title, fontsize=9)
    return _finish(fig, stem, directory)
