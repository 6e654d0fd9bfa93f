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

The package's modules, by concern: :mod:`~stebkit.plots.style` (palette, colours, rc
settings, :class:`Plot`, :func:`save`), :mod:`~stebkit.plots.layout` (the sizes for a
paper and fitting a figure to them), :mod:`~stebkit.plots.leaderboard` (models compared by
score), :mod:`~stebkit.plots.heatmaps` (heat maps), :mod:`~stebkit.plots.curves` (ROC
curves, similarity distributions, dimension curves) and :mod:`~stebkit.plots.maps`
(embedding maps, static and interactive); every public name is importable from
``stebkit.plots``.
"""

from __future__ import annotations

from stebkit.plots.curves import (
    dimension_curve,
    roc_curves,
    similarity_distributions,
    style_content_distributions,
)
from stebkit.plots.heatmaps import grouping_figures, style_content_heatmap, task_heatmap
from stebkit.plots.layout import COLUMN_WIDTH, MAX_HEIGHT, MIN_FONT_SIZE, PAGE_WIDTH
from stebkit.plots.leaderboard import (
    above_chance,
    figure1,
    figure1_caption,
    interval_bars,
    rank_resolution,
)
from stebkit.plots.maps import MAP_COLORS, embedding_map, interactive_map
from stebkit.plots.style import (
    CATEGORY_COLORS,
    CATEGORY_ORDER,
    GREY,
    NEITHER,
    OKABE_ITO,
    SAME_CONTENT,
    SAME_STYLE,
    STYLE,
    STYLE_CONTENT_COLORS,
    Plot,
    category_color,
    figures_dir,
    save,
)

__all__ = [
    "OKABE_ITO",
    "GREY",
    "CATEGORY_COLORS",
    "CATEGORY_ORDER",
    "STYLE",
    "STYLE_CONTENT_COLORS",
    "SAME_STYLE",
    "SAME_CONTENT",
    "NEITHER",
    "MAP_COLORS",
    "COLUMN_WIDTH",
    "PAGE_WIDTH",
    "MAX_HEIGHT",
    "MIN_FONT_SIZE",
    "Plot",
    "category_color",
    "figures_dir",
    "save",
    "figure1",
    "figure1_caption",
    "above_chance",
    "interval_bars",
    "rank_resolution",
    "task_heatmap",
    "style_content_heatmap",
    "grouping_figures",
    "roc_curves",
    "similarity_distributions",
    "style_content_distributions",
    "dimension_curve",
    "embedding_map",
    "interactive_map",
]
