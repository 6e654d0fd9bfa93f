"""Heat maps: models x tasks or datasets (:func:`task_heatmap`), style against content
(:func:`style_content_heatmap`), and the datasets' correlation grouping
(:func:`grouping_figures`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from stebkit.plots.layout import (
    _CHAR_EM,
    _LINE,
    _TICK_FONT,
    MAX_HEIGHT,
    MIN_FONT_SIZE,
    PAGE_WIDTH,
    _max_rows,
    _rows,
    _text_width,
    _width,
)
from stebkit.plots.leaderboard import _chance_mask
from stebkit.plots.style import STYLE_CONTENT_COLORS, Plot, _figure, _finish, _rc


def _contrast(rgba: Sequence[float]) -> str:
    """Black or white, whichever reads better on the colour ``rgba``."""
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _column_labels(columns: Sequence[str]) -> list[str]:
    """Column labels of a heat map in about two lines (none shorter than its longest
    word), so that short labels of several words stand upright.

    >>> _column_labels(["synthetic AUC", "order accuracy", "all to all pairs", "x"])
    ['synthetic\\nAUC', 'order\\naccuracy', 'all to\\nall pairs', 'x']
    """
    import textwrap

    return ["\n".join(textwrap.wrap(c, max(*map(len, c.split()), len(c) // 2 + 1)))
            if " " in c else c for c in map(str, columns)]


def _upright_width(labels: Sequence[str], n_cols: int, room: float) -> float:
    """The width a column needs for ``labels`` (lines) to stand upright at
    :data:`_TICK_FONT`, when ``n_cols`` such columns fit ``room`` inches; else 0.5 in
    (the labels are turned)."""
    need = _text_width([line for label in labels for line in label.split("\n")],
                       _TICK_FONT) / 0.9
    return need if need * n_cols <= room else 0.5


def _heatmap_layout(n_rows: int, row_labels: Sequence[str], side_bar: float, n_cols: int, *,
                    base: float, what: str, column: float = 0.5) -> tuple[Any, ...]:
    """The size of a heat map, each column at least ``column`` inches where the page
    allows: first with the colour bar beside one panel, then with the bar below and the
    rows in as many panels side by side as they need; the row labels shrink to
    :data:`MIN_FONT_SIZE` when the columns need the room."""
    for bottom_bar in (False, True):
        overhead = base + 0.8 * bottom_bar
        panels = -(-n_rows // _max_rows(overhead))
        if panels > 1 and not bottom_bar:
            continue
        cbar_w = 0.0 if bottom_bar else side_bar
        per_panel = -(-n_rows // panels)
        height, fitted = _rows(per_panel, overhead, what=what, pitch=0.3)
        for y_font in (fitted, MIN_FONT_SIZE):
            row_w = _text_width(row_labels, y_font) + 0.15
            width = _width(cbar_w + panels * (row_w + column * n_cols))
            cell_w = (width - cbar_w - panels * (row_w + 0.1)) / (panels * n_cols)
            if cell_w * 72 / _LINE >= MIN_FONT_SIZE:
                return width, height, overhead, panels, per_panel, cell_w, y_font, bottom_bar
    raise ValueError(f"{what}: {n_cols} columns of {n_rows} rows do not fit a {PAGE_WIDTH:g} in "
                     f"wide figure at {MIN_FONT_SIZE:g} pt; plot a subset")


def _heatmap(mat: pd.DataFrame, *, chance: set[str], cmap: Any, norm: Any, cbar_label: str,
             annotate: bool, digits: int, stem: str,
             directory: str | os.PathLike[str] | None, what: str,
             cbar_ticks: Mapping[float, str] | None = None) -> Plot:
    """Draw ``mat`` (models x columns, values as shown) as a heat map that fits the page.

    The longer side of the matrix goes down the page (with more columns than models the
    models become the columns); rows that do not fit :data:`MAX_HEIGHT` at
    :data:`MIN_FONT_SIZE` are split into panels side by side, sharing one colour scale.
    Cells are annotated only where their numbers fit at a readable size. The chance rows
    (``chance``) go last, set apart by a white line.
    """
    order = [m for m in mat.index if m not in chance] + [m for m in mat.index if m in chance]
    mat = mat.loc[order]
    n_chance = sum(m in chance for m in mat.index)
    names = [f"{m} (chance level)" if m in chance else str(m) for m in mat.index]
    mat = mat.set_axis(names, axis=0)
    mat = mat.set_axis([str(c).replace("_", " ") for c in mat.columns], axis=1)
    models_down = mat.shape[0] >= mat.shape[1]
    grid = mat if models_down else mat.T
    n_rows, n_cols = grid.shape
    side_bar = 1.0 + (_text_width(list(cbar_ticks.values()), 8) if cbar_ticks else 0.3)
    row_w = _text_width(grid.index, _TICK_FONT) + 0.15
    columns = _column_labels(grid.columns)
    lines = [line for label in columns for line in label.split("\n")]
    column = _upright_width(columns, n_cols, PAGE_WIDTH - side_bar - row_w)
    # first guess of a column's width, then the panels, then the fonts that fit
    cell_w = max(0.12, column, (PAGE_WIDTH - side_bar - row_w) / n_cols)
    x_font = min(_TICK_FONT, cell_w * 72 / _LINE)
    horizontal = _text_width(lines, x_font) <= cell_w * 0.9
    high = max(label.count("\n") + 1 for label in columns) * x_font * _LINE / 72
    layout = _heatmap_layout(n_rows, grid.index, side_bar, n_cols, what=what, base=(
        high if horizontal else _text_width(grid.columns, x_font)) + 0.75, column=column)
    width, height, overhead, panels, per_panel, cell_w, y_font, bottom_bar = layout
    x_font = min(_TICK_FONT, cell_w * 72 / _LINE)
    horizontal = _text_width(lines, x_font) <= cell_w * 0.9
    if not horizontal:  # turned: one line each
        columns = list(grid.columns)
    pitch = (height - overhead) / per_panel
    cell_chars = digits + 3  # e.g. "100.0" or "0.83"
    ann_font = min(7.0, cell_w * 72 / (cell_chars * _CHAR_EM), pitch * 72 / 1.25)
    annotate = annotate and ann_font >= MIN_FONT_SIZE
    vals = grid.to_numpy(dtype=float)
    import matplotlib as mpl
    from matplotlib.figure import Figure

    with mpl.rc_context(_rc()):
        fig = Figure(figsize=(width, height), layout="constrained")
        axes = fig.subplots(1, panels, squeeze=False)[0]
        for k, ax in enumerate(axes):
            rows = slice(k * per_panel, min((k + 1) * per_panel, n_rows))
            part = np.full((per_panel, n_cols), np.nan)
            part[: rows.stop - rows.start] = vals[rows]
            labels = list(grid.index[rows]) + [""] * (per_panel - (rows.stop - rows.start))
            im = ax.imshow(np.ma.masked_invalid(part), cmap=cmap, norm=norm, aspect="auto")
            ax.grid(False)
            ax.set_xticks(range(n_cols), columns, fontsize=x_font,
                          rotation=0 if horizontal else 90)
            ax.set_yticks(range(per_panel), labels, fontsize=y_font)
            ax.tick_params(length=0)
            if n_chance and n_chance < mat.shape[0]:
                at = mat.shape[0] - n_chance - 0.5
                if not models_down:
                    ax.axvline(at, color="white", linewidth=2.5)
                elif rows.start <= at < rows.stop:
                    ax.axhline(at - rows.start, color="white", linewidth=2.5)
            if annotate:
                for i, j in zip(*np.nonzero(np.isfinite(part)), strict=True):
                    v = part[i, j]
                    ax.text(j, i, f"{v:.{digits}f}", ha="center", va="center",
                            fontsize=ann_font, color=_contrast(im.cmap(im.norm(v))))
        bar = fig.colorbar(im, ax=list(axes), shrink=0.8, label=cbar_label,
                           location="bottom" if bottom_bar else "right")
        if cbar_ticks:
            bar.set_ticks(list(cbar_ticks), labels=list(cbar_ticks.values()))
    return _finish(fig, stem, directory)


def task_heatmap(data: pd.DataFrame, *, by: str = "task", columns: Sequence[str] | None = None,
                 directory: str | os.PathLike[str] | None = "auto",
                 stem: str = "task_heatmap", scale: float = 100.0, annotate: bool = True,
                 cmap: str = "cividis") -> Plot:
    """Heat map of models x tasks (or x datasets).

    ``data`` is a leaderboard (task columns, or any ``columns``) or a main-metric frame
    (``model``, ``task``, ``dataset``, ``value``): with ``by="task"`` each cell is the mean
    over the task's datasets; with ``by="dataset"`` one column per dataset. The chance
    level (the random baseline) is the last row, set apart and labelled as such.

    The map fits a column or the page: with more datasets than models the datasets run
    down the page and the models across, and a long list is split into panels side by
    side (one colour scale); cells too small for their numbers are not annotated.

    >>> main = pd.DataFrame({"model": ["a"] * 30 + ["b"] * 30, "task": "clustering",
    ...                      "dataset": [f"d{i}" for i in range(30)] * 2, "value": 0.5})
    >>> ax = task_heatmap(main, by="dataset", directory=None).figure.axes[0]
    >>> [t.get_text() for t in ax.get_xticklabels()], len(ax.get_yticklabels())
    (['a', 'b'], 30)
    """
    from stebkit.tasks import FAMILIES

    TASKS = list(FAMILIES)  # noqa: N806  (families in registry order, STEB's first)

    if {"model", "value"} <= set(data.columns) and ("task" in data or "dataset" in data):
        if by not in ("task", "dataset"):
            raise ValueError(f"by must be 'task' or 'dataset', got {by!r}")
        mat = data.pivot_table(index="model", columns=by, values="value", aggfunc="mean")
        if by == "task":
            mat = mat[[t for t in TASKS if t in mat.columns]]
        if columns is not None:
            mat = mat[list(columns)]
    elif "model" in data.columns:
        cols = list(columns) if columns is not None else [t for t in TASKS if t in data]
        if not cols:
            raise ValueError("data has no task columns; pass columns=[...]")
        mat = data.set_index("model")[cols]
    else:
        raise ValueError("data must be a leaderboard (with 'model') or a main-metric frame "
                         "(model, task, dataset, value)")
    if "steb_score" in mat.columns:
        mat = mat.sort_values("steb_score", ascending=False)
    else:
        mat = mat.loc[mat.mean(axis=1).sort_values(ascending=False).index]
    chance = set(data.loc[_chance_mask(data), "model"]) if "model" in data else set()
    shown = mat.astype(float) * scale
    finite = shown.to_numpy()[np.isfinite(shown.to_numpy())]
    from matplotlib.colors import Normalize

    norm = Normalize(*(finite.min(), finite.max()) if finite.size else (0, 1))
    return _heatmap(shown, chance=chance, cmap=cmap, norm=norm, annotate=annotate,
                    digits=1 if scale == 100 else 2, stem=stem, directory=directory,
                    cbar_label="score" + (" (×100)" if scale == 100 else ""),
                    what="task_heatmap")


def _style_content_cmap() -> Any:
    from matplotlib.colors import LinearSegmentedColormap

    content, style = STYLE_CONTENT_COLORS["content"], STYLE_CONTENT_COLORS["style"]
    return LinearSegmentedColormap.from_list(
        "content_style", ["#8A5A00", content, "#F7F7F7", "#56B4E9", style])


def style_content_heatmap(table: pd.DataFrame, *,
                          directory: str | os.PathLike[str] | None = "auto",
                          stem: str = "style_vs_content") -> Plot:
    """Heat map of style-versus-content scores: one row per model, one column per view.

    Every value is a share in [0, 1] whose balance point is 0.5 — a style AUC (the chance
    that a same-style pair is closer than a same-content pair) or an accuracy against
    same-content distractors. The colour scale is fixed, 0 to 1: below 0.5 the cells take
    the content colour of :data:`STYLE_CONTENT_COLORS`, above it the style colour, so a
    content-driven model looks content-driven whatever the other models score.

    ``table`` has a ``model`` column (or the models as its index) and the views as columns.

    >>> t = pd.DataFrame({"model": ["m"], "bible": [0.2], "synthetic": [0.9]})
    >>> im = style_content_heatmap(t, directory=None).figure.axes[0].images[0]
    >>> [round(float(im.norm(v)), 2) for v in (0.2, 0.5, 0.9)]
    [0.2, 0.5, 0.9]
    """
    mat = table.set_index("model") if "model" in table.columns else table
    if mat.empty:
        raise ValueError("table is empty: pass one row per model")
    for col in mat.columns:
        values = pd.to_numeric(mat[col], errors="coerce")
        bad = values[~values.between(0, 1) & mat[col].notna()]
        if len(bad):
            model, value = bad.index[0], mat[col][bad.index[0]]
            value = value.item() if isinstance(value, np.generic) else value
            raise ValueError(f"style_content_heatmap: column {col!r} holds {value!r} "
                             f"for model {model!r}; every value must be a share in [0, 1]")
    from matplotlib.colors import Normalize

    return _heatmap(mat.apply(pd.to_numeric, errors="coerce"), chance=set(),
                    cmap=_style_content_cmap(), norm=Normalize(0, 1), annotate=True, digits=2,
                    stem=stem, directory=directory, what="style_content_heatmap",
                    cbar_label="",
                    cbar_ticks={0.0: "0: content wins", 0.5: "0.5: balanced",
                                1.0: "1: style wins"})


def grouping_figures(matrix: pd.DataFrame, *, task: str = "",
                     directory: str | os.PathLike[str] | None = "auto",
                     stem: str = "grouping") -> tuple[Plot, Plot]:
    """The two figures of the reference's correlation grouping for one task: the Ward
    dendrogram of the datasets (distance ``1 - Spearman rho``) and the correlation heat
    map ordered by that tree.

    ``matrix`` is a task's models x datasets score matrix, e.g.
    ``stebkit.scores.operational(results).tasks[task].matrix`` (at least two datasets).
    Saved as ``<stem>_<task>_dendrogram`` and ``<stem>_<task>_correlation``.

    >>> m = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 2, 4, 3], "c": [4, 3, 2, 1]})
    >>> tree, heat = grouping_figures(m, task="toy", directory=None)
    >>> [t.get_text() for t in heat.figure.axes[0].get_xticklabels()]
    ['c', 'a', 'b']
    """
    from scipy.cluster.hierarchy import dendrogram, leaves_list

    from stebkit.scores import dataset_correlation, dataset_linkage

    if matrix.shape[1] < 2:
        raise ValueError(f"task {task!r}: the grouping figures need at least two datasets, "
                         f"got {list(matrix.columns)}")
    corr = dataset_correlation(matrix)
    link = dataset_linkage(corr)
    names = [str(c) for c in corr.columns]
    n = len(names)
    suffix = f"_{task}" if task else ""
    too_many = (f"task {task!r}: {n} datasets do not fit a {PAGE_WIDTH:g} in wide figure at "
                f"{MIN_FONT_SIZE:g} pt; pass a matrix of fewer datasets")
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        width = _width(0.8 + 0.25 * n)
        leaf = min(_TICK_FONT, (width - 0.8) / n * 72 / _LINE)
        if leaf < MIN_FONT_SIZE:
            raise ValueError(too_many)
        fig, ax = _figure(width, min(MAX_HEIGHT, 2.6 + _text_width(names, leaf)))
        dendrogram(link, labels=names, ax=ax, leaf_rotation=90, leaf_font_size=leaf,
                   color_threshold=None)
        ax.set_ylabel("Ward distance (1 − Spearman ρ)")
        ax.set_title(f"dataset grouping{': ' + task if task else ''}")
        ax.grid(False)
        tree = _finish(fig, f"{stem}{suffix}_dendrogram", directory)
        order = leaves_list(link)
        ordered = corr.iloc[order, order]
        label_w = _text_width(names, _TICK_FONT)
        width = _width(label_w + 1.2 + 0.3 * n)
        cell = (width - 1.2 - label_w) / n
        size = min(_TICK_FONT, cell * 72 / _LINE)
        if size < MIN_FONT_SIZE:
            raise ValueError(too_many)
        label_w = _text_width(names, size)
        fig, ax = _figure(width, min(MAX_HEIGHT, label_w + n * cell + 0.4))
        im = ax.imshow(ordered.to_numpy(dtype=float), cmap="RdBu_r", vmin=-1, vmax=1)
        ax.grid(False)
        labels = [names[i] for i in order]
        ax.set_xticks(range(n), labels, rotation=90, fontsize=size)
        ax.set_yticks(range(n), labels, fontsize=size)
        fig.colorbar(im, ax=ax, shrink=0.8, label="Spearman ρ across models")
        heat = _finish(fig, f"{stem}{suffix}_correlation", directory)
    return tree, heat
