"""Sizes for a paper and the arithmetic that fits a figure to them: every figure is a
column (:data:`COLUMN_WIDTH`) or a page (:data:`PAGE_WIDTH`) wide, at most
:data:`MAX_HEIGHT` high, with no text under :data:`MIN_FONT_SIZE`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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


def _legend_below(fig: Any, ax: Any, width: float, size: float = 8.0, **kw: Any) -> float:
    """The legend of ``ax`` below the figure's axes, in as many columns as fit the
    ``width``; returns its height in inches."""
    handles, labels = ax.get_legend_handles_labels()
    if not labels:
        return 0.0
    ncol, nrows = _legend_rows(labels, width - 0.3, size)
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=size, **kw)
    return nrows * size * _LINE / 72 + 0.15
