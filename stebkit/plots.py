"""One visual style for every stebkit figure.

Readable fonts, the colour-blind-safe Okabe-Ito palette, one fixed colour per model
category (and one for style, one for content), constrained layout, and :func:`save`
writing each figure as PDF and PNG (atomically). Every figure is a column
(:data:`COLUMN_WIDTH`) or a page (:data:`PAGE_WIDTH`) wide, at most :data:`MAX_HEIGHT`
high, with no text under :data:`MIN_FONT_SIZE`: the files have exactly that size.

Every plotting function returns a :class:`Plot` — ``(figure, paths)`` — that a notebook
displays directly; pass ``directory=None`` to skip saving. :func:`interactive_map` is the
exception: it returns a plotly figure to explore, not a figure for a paper.

matplotlib is imported inside the functions, so ``import stebkit`` stays fast. Figures
are built without pyplot (no global state, nothing left open).
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from stebkit._io import atomic_file

OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
             "#000000")
"""Okabe & Ito's colour-blind-safe palette (orange, sky blue, green, yellow, blue,
vermillion, purple, black)."""

GREY = "#999999"

CATEGORY_COLORS: Mapping[str, str] = {
    "style": "#0072B2",
    "semantic": "#E69F00",
    "masked_lm": "#009E73",
    "causal_lm": "#CC79A7",
    "multilingual": "#56B4E9",
    "non_neural": "#D55E00",
    "baseline": "#D55E00",
    "other": GREY,
}
"""Fixed colour of each model category, the same in every figure."""

CATEGORY_ORDER = ("style", "multilingual", "semantic", "masked_lm", "causal_lm",
                  "non_neural", "baseline", "other")

STYLE: Mapping[str, Any] = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "savefig.dpi": 300,
    "figure.dpi": 100,
}
"""matplotlib rc settings of the stebkit style."""


class Plot(NamedTuple):
    """A figure and the files it was saved to (empty when not saved)."""

    figure: Any
    paths: list[Path]

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=100)
        return buf.getvalue()


def category_color(category: str | None) -> str:
    """The colour of a model category (unknown categories get a stable palette colour).

    >>> category_color("style"), category_color(None)
    ('#0072B2', '#999999')
    """
    if category is None or (isinstance(category, float) and np.isnan(category)):
        return GREY
    if category in CATEGORY_COLORS:
        return CATEGORY_COLORS[category]
    spare = [c for c in OKABE_ITO if c not in CATEGORY_COLORS.values()] + list(OKABE_ITO)
    return spare[sum(map(ord, str(category))) % len(spare)]


def _rc() -> dict[str, Any]:
    from cycler import cycler

    rc = dict(STYLE)
    rc["axes.prop_cycle"] = cycler(color=[OKABE_ITO[i] for i in (4, 0, 2, 6, 5, 1, 3, 7)])
    return rc


def _figure(width: float, height: float) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def figures_dir() -> Path:
    """Where figures go by default: ``$STEBKIT_FIGURES``, else the nearest ``figures/``.

    The nearest ``figures/`` folder is looked for in the working directory and its parent,
    so notebooks run from ``notebooks/`` write into the project's ``figures/``; without
    one, ``./figures`` is created.
    """
    env = os.environ.get("STEBKIT_FIGURES")
    if env:
        return Path(env)
    here = Path.cwd()
    for base in (here, here.parent):
        if (base / "figures").is_dir():
            return base / "figures"
    return here / "figures"


def save(fig: Any, stem: str, directory: str | os.PathLike[str] = "auto", *,
         formats: Sequence[str] = ("pdf", "png"), dpi: int = 300) -> list[Path]:
    """Save ``fig`` as ``<directory>/<stem>.<fmt>`` for each format, atomically.

    ``directory="auto"`` means :func:`figures_dir`.

    Returns the written paths. The files have the figure's own size (no cropping, so a
    column-wide figure stays a column wide). PDF files carry no creation date, so reruns
    produce identical files.

    >>> from matplotlib.figure import Figure
    >>> import tempfile
    >>> fig = Figure(); _ = fig.add_subplot().plot([0, 1])
    >>> [p.name for p in save(fig, "demo", tempfile.mkdtemp())]
    ['demo.pdf', 'demo.png']
    """
    if not stem or any(ch in stem for ch in "/\\"):
        raise ValueError(f"stem must be a plain file name without folders, got {stem!r}")
    out_dir = figures_dir() if directory == "auto" else Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = out_dir / f"{stem}.{fmt}"
        meta = {"CreationDate": None} if fmt == "pdf" else None
        with atomic_file(path) as fh:
            fig.savefig(fh, format=fmt, dpi=dpi, metadata=meta)
        paths.append(path)
    return paths


def _finish(fig: Any, stem: str, directory: str | os.PathLike[str] | None) -> Plot:
    paths = save(fig, stem, directory) if directory is not None else []
    return Plot(fig, paths)


def _ordered_categories(cats: Sequence[str]) -> list[str]:
    present = list(dict.fromkeys(cats))
    known = [c for c in CATEGORY_ORDER if c in present]
    return known + sorted(c for c in present if c not in known)


# --------------------------------------------------------------------------- sizes
COLUMN_WIDTH = 3.5
"""Width of a figure set in one column of a two-column paper (inches)."""

PAGE_WIDTH = 7.0
"""Width of a figure set across the page (inches)."""

MAX_HEIGHT = 9.0
"""No figure is taller than this (inches): it fits a page with its caption."""

MIN_FONT_SIZE = 6.0
"""No text of a figure is smaller than this (points)."""

_TICK_FONT = 9.0  # tick labels where there is room (STYLE's tick label size)
_CHAR_EM = 0.62   # width of a character in ems, a safe bound for DejaVu Sans
_LINE = 1.4       # a row of labels needs this many times its font size


def _text_width(labels: Sequence[Any], size: float) -> float:
    """Width in inches of the longest label at ``size`` points (an upper estimate)."""
    longest = max((len(str(s)) for s in labels), default=0)
    return longest * _CHAR_EM * size / 72


def _width(needed: float) -> float:
    """The column width when ``needed`` inches fit in it, else the page width."""
    return COLUMN_WIDTH if needed <= COLUMN_WIDTH else PAGE_WIDTH


def _max_rows(overhead: float) -> int:
    """How many rows of labels fit below :data:`MAX_HEIGHT` at the smallest font."""
    return int((MAX_HEIGHT - overhead) / (MIN_FONT_SIZE * _LINE / 72))


def _rows(n: int, overhead: float, *, what: str, pitch: float = 0.28) -> tuple[float, float]:
    """Height and label font of a figure with ``n`` rows of labels and ``overhead`` inches
    of axis labels, title and margins: rows ``pitch`` inches apart, closer (and their
    labels smaller, down to :data:`MIN_FONT_SIZE`) when they would pass
    :data:`MAX_HEIGHT`."""
    pitch = min(pitch, (MAX_HEIGHT - overhead) / max(n, 1))
    size = min(_TICK_FONT, pitch * 72 / _LINE)
    if size < MIN_FONT_SIZE:
        raise ValueError(f"{what}: {n} rows do not fit a {MAX_HEIGHT:g} in high figure with "
                         f"labels of {MIN_FONT_SIZE:g} pt; at most {_max_rows(overhead)} do — "
                         "plot a subset")
    return overhead + n * pitch, size


def _title(title: str | None, width: float, size: float = 9.0) -> tuple[str | None, float]:
    """``title`` wrapped to lines that fit ``width`` inches at ``size`` points, and the
    height it takes (0 without a title)."""
    if not title:
        return None, 0.0
    import textwrap

    lines = textwrap.wrap(title, max(10, int((width - 0.3) * 72 / (size * _CHAR_EM))))
    return "\n".join(lines), len(lines) * size * _LINE / 72 + 0.1


def _legend_rows(labels: Sequence[str], width: float, size: float) -> tuple[int, int]:
    """Columns and rows of a legend of ``labels`` set below an axes ``width`` wide."""
    entry = _text_width(labels, size) + 0.45  # the handle and the gaps
    ncol = max(1, min(len(labels), int(width // entry)))
    return ncol, -(-len(labels) // ncol)


# --------------------------------------------------------------------------- figures
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


def figure1(leaderboard_df: pd.DataFrame, *, directory: str | os.PathLike[str] | None = "auto",
            stem: str = "figure1_steb_by_category", score: str = "steb_score",
            scale: float = 100.0, title: str | None = None, mark_best: bool = False) -> Plot:
    """STEB score by model category: each model a point with its interval, grouped and
    coloured by category (the STEB paper's Figure 1). The chance level (the random
    baseline) is a dashed line, not a point among the models.

    The figure is a page wide; with many models its rows move closer (the 40 published
    models fit at 8 pt), and past what fits at :data:`MIN_FONT_SIZE` it asks for a subset.

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
    """
    base = score.removesuffix("_score")
    need = {"model", score}
    if not need <= set(leaderboard_df.columns):
        raise ValueError(f"leaderboard_df needs columns {sorted(need)}; got "
                         f"{list(leaderboard_df.columns)}")
    df = leaderboard_df.copy()
    if "model_category" not in df:
        df["model_category"] = "other"
    df["model_category"] = df["model_category"].fillna("other")
    df = df[df[score].notna()]
    chance = df[_chance_mask(df)]
    df = df[~_chance_mask(df)]
    cats = _ordered_categories(df["model_category"].tolist())
    gap = 0.8
    keys = [*cats, *(["best in its category"] if mark_best else []),
            *(f"chance level ({m})" for m in chance["model"])]
    # the legend goes right of the axes when the model names leave room, else below them
    legend_w = _text_width([*keys, "model category"], _TICK_FONT) + 0.5
    below = _text_width(df["model"], _TICK_FONT) + legend_w + 2.2 > PAGE_WIDTH
    ncol, legend_rows = _legend_rows(keys, PAGE_WIDTH - 0.3, _TICK_FONT) if below else (1, 0)
    legend_h = (legend_rows + 1) * _TICK_FONT * _LINE / 72 + 0.2 if below else 0.0
    title, title_h = _title(title, PAGE_WIDTH, 11.0)
    overhead = 0.9 + title_h + legend_h
    height, size = _rows(len(df) + gap * max(len(cats) - 1, 0), overhead, what="figure1")
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(PAGE_WIDTH, height)
        y, ticks, labels = 0.0, [], []
        for cat in reversed(cats):
            part = df[df["model_category"] == cat].sort_values(score)
            ys = y + np.arange(len(part))
            x = part[score].to_numpy(dtype=float) * scale
            lo_col, hi_col = f"{base}_ci_low", f"{base}_ci_high"
            if lo_col in part and hi_col in part:
                lo = part[lo_col].to_numpy(dtype=float) * scale
                hi = part[hi_col].to_numpy(dtype=float) * scale
                err = np.vstack([np.clip(x - lo, 0, None), np.clip(hi - x, 0, None)])
                err = np.where(np.isfinite(err), err, 0.0)
            else:
                err = None
            ax.errorbar(x, ys, xerr=err, fmt="o", color=category_color(cat),
                        elinewidth=1.2, capsize=2.5, markersize=min(5.0, size * 0.6),
                        label=cat)
            if mark_best and len(part):
                ax.scatter(x[-1:], ys[-1:], marker="*", s=min(180, size ** 2 * 2.2),
                           color=category_color(cat), edgecolors="black", linewidths=0.8,
                           zorder=5, label="best in its category" if y == 0 else None)
            ticks.extend(ys)
            labels.extend(part["model"].tolist())
            y += len(part) + gap
        ax.set_yticks(ticks, labels, fontsize=size)
        ax.set_ylim(-0.7, max(y - gap, 1) - 0.3)
        ax.grid(axis="y", visible=False)
        _chance_lines(ax, chance, score, scale, vertical=True)
        name = "STEB score" if base == "steb" else f"{base.replace('_', ' ')} score"
        ax.set_xlabel(name + (" (×100)" if scale == 100 else ""))
        handles, names = ax.get_legend_handles_labels()
        if below:
            ax.legend(handles[::-1], names[::-1], title="model category", ncol=ncol,
                      loc="upper center", bbox_to_anchor=(0.5, 0),
                      borderaxespad=0.5 * 72 / _TICK_FONT)  # below the x axis's labels
        else:
            ax.legend(handles[::-1], names[::-1], title="model category", loc="center left",
                      bbox_to_anchor=(1.01, 0.5))
        if title:
            ax.set_title(title)
    return _finish(fig, stem, directory)


def _contrast(rgba: Sequence[float]) -> str:
    """Black or white, whichever reads better on the colour ``rgba``."""
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _heatmap_layout(n_rows: int, row_labels: Sequence[str], side_bar: float, n_cols: int, *,
                    base: float, what: str) -> tuple[Any, ...]:
    """The size of a heat map: first with the colour bar beside one panel, then with the
    bar below and the rows in as many panels side by side as they need; the row labels
    shrink to :data:`MIN_FONT_SIZE` when the columns need the room."""
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
            width = _width(cbar_w + panels * (row_w + 0.5 * n_cols))
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
    # first guess of a column's width, then the panels, then the fonts that fit
    cell_w = max(0.12, (PAGE_WIDTH - side_bar - row_w) / n_cols)
    x_font = min(_TICK_FONT, cell_w * 72 / _LINE)
    horizontal = _text_width(grid.columns, x_font) <= cell_w * 0.9
    layout = _heatmap_layout(n_rows, grid.index, side_bar, n_cols, what=what, base=(
        0.25 if horizontal else _text_width(grid.columns, x_font)) + 0.75)
    width, height, overhead, panels, per_panel, cell_w, y_font, bottom_bar = layout
    x_font = min(_TICK_FONT, cell_w * 72 / _LINE)
    horizontal = _text_width(grid.columns, x_font) <= cell_w * 0.9
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
            ax.set_xticks(range(n_cols), list(grid.columns), fontsize=x_font,
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


STYLE_CONTENT_COLORS: Mapping[str, str] = {
    "style": CATEGORY_COLORS["style"],
    "content": CATEGORY_COLORS["semantic"],
    "neither": GREY,
}
"""What style and content look like in every style-versus-content figure: the colour of
the style models for style, of the semantic (content) models for content."""

SAME_STYLE, SAME_CONTENT, NEITHER = ("same style, other content", "same content, other style",
                                     "other style, other content")
"""The three kinds of pairs of a style-versus-content comparison."""


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


def _legend_below(fig: Any, ax: Any, width: float, size: float = 8.0, **kw: Any) -> float:
    """The legend of ``ax`` below the figure's axes, in as many columns as fit the
    ``width``; returns its height in inches."""
    handles, labels = ax.get_legend_handles_labels()
    if not labels:
        return 0.0
    ncol, nrows = _legend_rows(labels, width - 0.3, size)
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=size, **kw)
    return nrows * size * _LINE / 72 + 0.15


def roc_curves(curves: Mapping[str, tuple[Any, Any]], *,
               directory: str | os.PathLike[str] | None = "auto", stem: str = "roc_curves",
               colors: Mapping[str, str] | None = None, title: str | None = None) -> Plot:
    """ROC curves, one per entry ``name -> (y_true, y_score)``, with their AUC (a column
    wide, the legend below)."""
    from sklearn.metrics import roc_auc_score, roc_curve

    if not curves:
        raise ValueError("curves is empty: pass {name: (y_true, y_score)}")
    title, title_h = _title(title, COLUMN_WIDTH)
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(COLUMN_WIDTH, COLUMN_WIDTH)
        for name, (y_true, y_score) in curves.items():
            fpr, tpr, _ = roc_curve(y_true, y_score)
            auc = roc_auc_score(y_true, y_score)
            kw = {"color": colors[name]} if colors and name in colors else {}
            ax.plot(fpr, tpr, label=f"{name} (AUC {auc:.3f})", **kw)
        ax.plot([0, 1], [0, 1], color=GREY, linestyle="--", linewidth=1, label="chance")
        ax.set(xlabel="false positive rate", ylabel="true positive rate", xlim=(0, 1),
               ylim=(0, 1.01), aspect="equal")
        extra = _legend_below(fig, ax, COLUMN_WIDTH)
        fig.set_size_inches(COLUMN_WIDTH, min(MAX_HEIGHT, 3.3 + extra + title_h))
        if title:
            ax.set_title(title, fontsize=9)
    return _finish(fig, stem, directory)


def interval_bars(table: pd.DataFrame, *, directory: str | os.PathLike[str] | None = "auto",
                  stem: str = "interval_bars", colors: Mapping[str, str] | None = None,
                  xlabel: str = "score with 95 % bootstrap CI", xlim: tuple[float, float] = (0, 1),
                  title: str | None = None) -> Plot:
    """Horizontal bars with interval whiskers: one group per dataset, one bar per model
    (a page wide, the legend below).

    ``table`` is a records frame (``Results.main_frame()``) with ``model``, ``dataset``,
    ``value``, ``ci_low`` and ``ci_high``; models keep their first-appearance order (or the
    order of ``colors``), datasets are sorted.

    >>> t = pd.DataFrame({"model": ["a", "b"], "dataset": ["d", "d"], "value": [0.6, 0.4],
    ...                   "ci_low": [0.5, 0.3], "ci_high": [0.7, 0.5]})
    >>> len(interval_bars(t, directory=None).figure.axes[0].patches)
    2
    """
    missing = {"model", "dataset", "value", "ci_low", "ci_high"} - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}; pass Results.main_frame()")
    models = list(colors) if colors else list(dict.fromkeys(table["model"]))
    sets = sorted(table["dataset"].unique())
    ncol, legend_rows = _legend_rows(models, PAGE_WIDTH - 0.3, 8.0)
    title, title_h = _title(title, PAGE_WIDTH, 11.0)
    overhead = 0.8 + legend_rows * 8.0 * _LINE / 72 + title_h
    height, size = _rows(len(sets), overhead, what="interval_bars",
                         pitch=max(0.35, 0.12 * len(models)))
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(PAGE_WIDTH, height)
        bar = 0.8 / max(1, len(models))
        for k, model in enumerate(models):
            rows = table[table["model"] == model].set_index("dataset").reindex(sets)
            y = np.arange(len(sets)) + (k - (len(models) - 1) / 2) * bar
            err = np.vstack([rows["value"] - rows["ci_low"], rows["ci_high"] - rows["value"]])
            kw = {"color": colors[model]} if colors else {}
            ax.barh(y, rows["value"], bar, xerr=err, label=model, error_kw={"lw": 0.8}, **kw)
        ax.set_yticks(np.arange(len(sets)), sets, fontsize=size)
        ax.invert_yaxis()
        ax.set(xlabel=xlabel, xlim=xlim)
        _legend_below(fig, ax, PAGE_WIDTH)
        if title:
            ax.set_title(title)
    return _finish(fig, stem, directory)


def _project(embeddings: Any, method: str, seed: int, n_labels: int | None = None
             ) -> np.ndarray:
    """The embeddings (one row per label, at least 3) projected to 2-D by PCA or UMAP."""
    emb = np.asarray(embeddings, dtype=np.float32)
    if emb.ndim != 2 or (n_labels is not None and emb.shape[0] != n_labels):
        raise ValueError(f"embeddings must be (n, d) with one label per row; got "
                         f"{emb.shape} and {n_labels} labels")
    if emb.shape[0] < 3:
        raise ValueError("an embedding map needs at least 3 embeddings")
    if method == "pca":
        from sklearn.decomposition import PCA

        return PCA(n_components=2, random_state=seed).fit_transform(emb)
    if method == "umap":
        cache = Path(os.environ.get("STEBKIT_CACHE", Path.home() / ".cache" / "stebkit"))
        os.environ.setdefault("NUMBA_CACHE_DIR", str(cache / "numba"))
        try:
            import umap
        except ImportError as err:
            raise ImportError("method='umap' needs umap-learn: pip install stebkit[notebooks] "
                              "(or use method='pca')") from err

        n_neighbors = max(2, min(15, emb.shape[0] - 1))
        reducer = umap.UMAP(n_components=2, random_state=seed, n_neighbors=n_neighbors,
                            metric="cosine", n_jobs=1)
        return reducer.fit_transform(emb)
    raise ValueError(f"method must be 'umap' or 'pca', got {method!r}")


MAP_COLORS = (*OKABE_ITO[:7], "#882255", "#44AA99", "#117733", "#332288", "#AA4499")
"""Colours of the labels of an embedding map, most frequent label first."""


def _shorten(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def embedding_map(embeddings: Any, labels: Sequence[Any], *, method: str = "pca",
                  seed: int = 42, max_labels: int = 10,
                  directory: str | os.PathLike[str] | None = "auto",
                  stem: str = "embedding_map", title: str | None = None) -> Plot:
    """2-D map of embeddings coloured by label (PCA, or UMAP with ``method="umap"``).

    The ``max_labels`` most frequent labels get a colour; the rest are grey ("other").
    The map is a column wide with its legend below (labels past 40 characters are cut).
    UMAP is imported only when asked for; its compiled code is cached under
    ``NUMBA_CACHE_DIR`` (default: the stebkit cache). :func:`interactive_map` draws the
    same map with every text on hover.
    """
    lab = np.asarray([str(x) for x in labels], dtype=object)
    xy = _project(embeddings, method, seed, lab.shape[0])
    counts = pd.Series(lab).value_counts(sort=True)
    top = list(counts.index[:max_labels])
    title, title_h = _title(title, COLUMN_WIDTH)
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(COLUMN_WIDTH, COLUMN_WIDTH)
        rest = ~np.isin(lab, top)
        if rest.any():
            ax.scatter(xy[rest, 0], xy[rest, 1], s=6, color=GREY, alpha=0.5, label="other")
        for i, name in enumerate(top):
            m = lab == name
            ax.scatter(xy[m, 0], xy[m, 1], s=8, color=MAP_COLORS[i % len(MAP_COLORS)],
                       alpha=0.85, label=_shorten(name, 40))
        ax.set(xlabel=f"{method.upper()} 1", ylabel=f"{method.upper()} 2")
        ax.set_xticks([])
        ax.set_yticks([])
        extra = _legend_below(fig, ax, COLUMN_WIDTH, 7.0, markerscale=1.5)
        fig.set_size_inches(COLUMN_WIDTH, min(MAX_HEIGHT, 3.0 + extra + title_h))
        if title:
            ax.set_title(title, fontsize=9)
    return _finish(fig, stem, directory)


def similarity_distributions(groups: Mapping[str, Any], *, bins: int = 40,
                             xlabel: str = "cosine similarity",
                             colors: Mapping[str, str] | None = None,
                             directory: str | os.PathLike[str] | None = "auto",
                             stem: str = "similarity_distributions",
                             title: str | None = None) -> Plot:
    """Overlaid density histograms of similarity values, one per group (a column wide,
    the legend below; it shows each group's mean).

    ``colors`` fixes a group's colour (``{name: colour}``); the others take the palette
    in order. For style-versus-content pairs use :func:`style_content_distributions`,
    which fixes the colours of style and content.
    """
    if not groups:
        raise ValueError("groups is empty: pass {name: similarities}")
    arrays = {k: np.asarray(v, dtype=float).ravel() for k, v in groups.items()}
    allv = np.concatenate([a[np.isfinite(a)] for a in arrays.values()])
    if allv.size == 0:
        raise ValueError("groups hold no finite similarity values")
    edges = np.linspace(allv.min(), allv.max() if allv.max() > allv.min() else allv.min() + 1,
                        bins + 1)
    title, title_h = _title(title, COLUMN_WIDTH)
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(COLUMN_WIDTH, 2.6)
        for i, (name, a) in enumerate(arrays.items()):
            a = a[np.isfinite(a)]
            color = (colors or {}).get(name, OKABE_ITO[[4, 0, 2, 6, 5, 1][i % 6]])
            ax.hist(a, bins=edges, density=True, histtype="stepfilled", alpha=0.25, color=color)
            ax.hist(a, bins=edges, density=True, histtype="step", color=color,
                    label=f"{name} (mean {a.mean():.2f})")
            ax.axvline(a.mean(), color=color, linestyle=":", linewidth=1)
        ax.set(xlabel=xlabel, ylabel="density")
        extra = _legend_below(fig, ax, COLUMN_WIDTH)
        fig.set_size_inches(COLUMN_WIDTH, min(MAX_HEIGHT, 2.4 + extra + title_h))
        if title:
            ax.set_title(title, fontsize=9)
    return _finish(fig, stem, directory)


def style_content_distributions(same_style: Any, same_content: Any, neither: Any = None, *,
                                directory: str | os.PathLike[str] | None = "auto",
                                stem: str = "style_content_distributions",
                                title: str | None = None) -> Plot:
    """Similarities of same-style pairs against same-content pairs (and, optionally,
    pairs that share neither), in the colours of :data:`STYLE_CONTENT_COLORS`: style in
    the style colour, content in the content colour, whatever the order.

    >>> res = style_content_distributions([0.2, 0.3], [0.7, 0.8], directory=None)
    >>> [t.get_text() for t in res.figure.legends[0].get_texts()]
    ['same style, other content (mean 0.25)', 'same content, other style (mean 0.75)']
    """
    groups = {SAME_STYLE: same_style, SAME_CONTENT: same_content}
    if neither is not None:
        groups[NEITHER] = neither
    colors = {SAME_STYLE: STYLE_CONTENT_COLORS["style"],
              SAME_CONTENT: STYLE_CONTENT_COLORS["content"],
              NEITHER: STYLE_CONTENT_COLORS["neither"]}
    return similarity_distributions(groups, colors=colors, directory=directory, stem=stem,
                                    title=title)


def dimension_curve(curve: pd.DataFrame, *, hue: str | None = None,
                    directory: str | os.PathLike[str] | None = "auto",
                    stem: str = "dimension_curve", scale: float = 100.0,
                    title: str | None = None) -> Plot:
    """Score against embedding dimension (log-2 axis), one line per ``hue`` value (a
    column wide, the legend below).

    ``curve`` is :func:`stebkit.quality.dimension_curve` output (or several concatenated);
    ``hue`` defaults to the columns among ``model``/``task``/``dataset`` that vary.
    """
    if not {"dim", "score"} <= set(curve.columns):
        raise ValueError("curve needs 'dim' and 'score' columns "
                         "(stebkit.quality.dimension_curve output)")
    keys = [hue] if hue else [c for c in ("model", "task", "dataset")
                              if c in curve and curve[c].nunique() > 1]
    title, title_h = _title(title, COLUMN_WIDTH)
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(COLUMN_WIDTH, 2.6)
        parts = curve.groupby(keys, sort=True) if keys else [((), curve)]
        for name, part in parts:
            part = part.sort_values("dim")
            label = " / ".join(map(str, name if isinstance(name, tuple) else (name,)))
            ax.plot(part["dim"], part["score"] * scale, marker="o", label=label or None)
        ax.set_xscale("log", base=2)
        dims = sorted(curve["dim"].unique())
        ax.set_xticks(dims, [str(int(d)) for d in dims], fontsize=min(
            _TICK_FONT, (COLUMN_WIDTH - 0.8) / len(dims) * 72 / (5 * _CHAR_EM)))
        ax.minorticks_off()
        ax.set(xlabel="embedding dimensions kept",
               ylabel="score" + (" (×100)" if scale == 100 else ""))
        extra = _legend_below(fig, ax, COLUMN_WIDTH) if keys else 0.0
        fig.set_size_inches(COLUMN_WIDTH, min(MAX_HEIGHT, 2.4 + extra + title_h))
        if title:
            ax.set_title(title, fontsize=9)
    return _finish(fig, stem, directory)


def rank_resolution(table: pd.DataFrame, *, directory: str | os.PathLike[str] | None = "auto",
                    stem: str = "rank_resolution", scale: float = 100.0,
                    title: str | None = None) -> Plot:
    """Models in rank order with tiers of indistinguishable models shaded alternately.

    ``table`` is :func:`stebkit.quality.rank_resolution` output; a dashed line marks
    every separable step between adjacent ranks.
    """
    need = {"model", "score", "tier", "separable"}
    if not need <= set(table.columns):
        raise ValueError(f"table needs columns {sorted(need)} "
                         "(stebkit.quality.rank_resolution output)")
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


# --------------------------------------------------------------------------- interactive
_CONTINUOUS = 12  # a numeric column with more values than this is coloured on a scale


def _hover_text(value: Any, max_chars: int) -> str:
    import html
    import textwrap

    text = _shorten(" ".join(str(value).split()), max_chars)
    return "<br>".join(html.escape(line) for line in textwrap.wrap(text, 80) or [""])


def interactive_map(embeddings: Any, data: pd.DataFrame, *, color: str | Sequence[str],
                    hover: Sequence[str] | None = None, method: str = "pca", seed: int = 42,
                    max_chars: int = 300, title: str | None = None) -> Any:
    """The embedding map of :func:`embedding_map` as an interactive plotly figure.

    Each point is a row of ``data``; hovering shows its ``hover`` columns (default: all
    of them, long texts cut at ``max_chars``). ``color`` names the column(s) to colour by:
    the first is shown, and a menu switches between them; a numeric column with many
    values gets a colour scale. Needs plotly (``pip install 'stebkit[notebooks]'``).

    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"text": list("abcdef"), "author": list("xxyyzz")})
    >>> fig = interactive_map(rng.normal(size=(6, 4)), df, color="author")
    >>> [t.name for t in fig.data]
    ['x', 'y', 'z']
    """
    try:
        import plotly.graph_objects as go
    except ImportError as err:
        raise ImportError("interactive_map needs plotly: pip install 'stebkit[notebooks]' "
                          "(or use embedding_map for a static map)") from err

    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a DataFrame with one row per embedding, got "
                        f"{type(data).__name__}")
    colors = [color] if isinstance(color, str) else list(color)
    hover = list(data.columns) if hover is None else list(hover)
    if not colors:
        raise ValueError("color is empty: name at least one column of data to colour by")
    for col in dict.fromkeys([*colors, *hover]):
        if col not in data.columns:
            raise ValueError(f"interactive_map: data has no column {col!r}; its columns are "
                             f"{list(data.columns)}")
    xy = _project(embeddings, method, seed, len(data))
    custom = np.array([[_hover_text(v, max_chars) for v in data[c]] for c in hover],
                      dtype=object).T
    template = "<br>".join(f"<b>{c}</b>: %{{customdata[{i}]}}" for i, c in enumerate(hover))
    fig = go.Figure()
    groups: list[tuple[str, int]] = []
    for col in colors:
        first = len(fig.data)
        values = data[col]
        point = {"hovertemplate": template + "<extra></extra>", "visible": col == colors[0]}
        if pd.api.types.is_numeric_dtype(values) and values.nunique() > _CONTINUOUS:
            fig.add_trace(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers", name=col,
                                     customdata=custom, marker={
                                         "color": values, "colorscale": "Cividis", "size": 6,
                                         "colorbar": {"title": {"text": col}}}, **point))
        else:
            labels = values.astype(str)
            for i, name in enumerate(labels.value_counts(sort=True).index):
                m = (labels == name).to_numpy()
                fig.add_trace(go.Scatter(x=xy[m, 0], y=xy[m, 1], mode="markers", name=name,
                                         customdata=custom[m], legendgroup=col, marker={
                                             "color": MAP_COLORS[i % len(MAP_COLORS)],
                                             "size": 6, "opacity": 0.85}, **point))
        groups.append((col, len(fig.data) - first))
    buttons = []
    for k, (col, _n) in enumerate(groups):
        visible = [j == k for j, (_c, n) in enumerate(groups) for _ in range(n)]
        buttons.append({"label": col, "method": "update",
                        "args": [{"visible": visible}, {"legend.title.text": col}]})
    fig.update_layout(
        template="simple_white", title=title, legend={"title": {"text": colors[0]}},
        xaxis={"title": f"{method.upper()} 1", "showticklabels": False},
        yaxis={"title": f"{method.upper()} 2", "showticklabels": False},
        updatemenus=[{"buttons": buttons, "x": 0, "y": 1.12, "xanchor": "left",
                      "showactive": True}] if len(buttons) > 1 else [])
    return fig
