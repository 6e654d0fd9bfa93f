"""Curves and distributions: ROC curves, similarity distributions (style against
content among them) and score against embedding dimension."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from stebkit.plots.layout import (
    _CHAR_EM,
    _TICK_FONT,
    COLUMN_WIDTH,
    MAX_HEIGHT,
    _legend_below,
    _title,
)
from stebkit.plots.style import (
    GREY,
    NEITHER,
    OKABE_ITO,
    SAME_CONTENT,
    SAME_STYLE,
    STYLE_CONTENT_COLORS,
    Plot,
    _figure,
    _finish,
    _rc,
)


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

    ``curve`` is :func:`stebkit.scores.quality.dimension_curve` output (or several concatenated);
    ``hue`` defaults to the columns among ``model``/``task``/``dataset`` that vary.
    """
    if not {"dim", "score"} <= set(curve.columns):
        raise ValueError("curve needs 'dim' and 'score' columns "
                         "(stebkit.scores.quality.dimension_curve output)")
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
