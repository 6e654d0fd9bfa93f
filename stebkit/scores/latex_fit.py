"""How wide a LaTeX table is, and where it goes in a paper: a ``table`` a column (or a
one-column paper's text block) wide, or a ``table*`` across both columns of a two-column
paper, so that no table is scaled below :data:`MIN_FONT_SIZE` without a warning.

The width of a tabular is estimated from Computer Modern's character widths (LaTeX's
default font, ``cmr9``/``cmbx9`` rounded up), each column's widest cell plus its gaps;
the per-format tables of :mod:`stebkit.scores.tables` use it to choose the float and
to warn.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

LINE_WIDTHS = {"text": 6.5, "column": 3.03, "page": 6.3}
"""The inches a table may take: a one-column paper's text block (``table``), and a
two-column paper's column (``table``) and both columns (``table*``), as ACL's 7.7 cm
columns and 16 cm text."""

MIN_FONT_SIZE = 8.0
"""The smallest font size, in points, a table is scaled to without a warning."""

TABCOLSEP = 3.0
"""The gap on each side of a column (``\\tabcolsep``, points), as the tables set it."""

_EM = {**dict.fromkeys(" .,:;'[]!|il", 0.29), **dict.fromkeys("Ifjrst()-_", 0.41),
       **dict.fromkeys("ceza?", 0.46), **dict.fromkeys("0123456789/–", 0.52),
       **dict.fromkeys("bdhknpquvxyg", 0.58), "m": 0.86, "w": 0.75, "M": 0.95, "W": 1.06,
       "%": 0.86}
"""Character widths in ems of Computer Modern Roman (other lower-case letters 0.58,
other characters 0.8)."""

_COMMAND = re.compile(r"\\(textbf|rotatebox\{90\})\{(.*)\}$|^\{\\footnotesize (.*)\}$")


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The width in points of ``text`` (plain text, not LaTeX) set at ``size`` points.

    >>> round(text_width("50.00", 9.0), 1), round(text_width("50.00", 9.0, bold=True), 1)
    (21.3, 23.9)
    """
    ems = sum(_EM.get(ch, 0.58 if ch.islower() else 0.8) for ch in text)
    small = 1.03 if size < 8.5 else 1.0  # cmr8's letters are wider for their size
    return ems * size * (1.12 if bold else 1.0) * small


def _plain(cell: str) -> str:
    """The text a LaTeX cell of the tables shows (escapes undone)."""
    cell = re.sub(r"\\textbackslash\{\}", "\\\\", cell)
    return re.sub(r"\\([_&%#${}])", r"\1", cell).replace(r"\textasciitilde{}", "~")


def cell_width(cell: str, size: float) -> float:
    """The width in points of one cell of a tabular set at ``size`` points: a turned
    header is as wide as a line is high, ``\\footnotesize`` is 8/9 of ``size``.

    >>> cell_width(r"\\rotatebox{90}{Genre}", 9.0), round(cell_width("a\\\\_1", 9.0), 1)
    (9.0, 12.5)
    """
    cell = cell.strip()
    match = _COMMAND.search(cell)
    if match and match.group(1) and match.group(1).startswith("rotatebox"):
        return size
    if match and match.group(1) == "textbf":
        return text_width(_plain(match.group(2)), size, bold=True)
    if match and match.group(3) is not None:
        return text_width(_plain(match.group(3)), size * 8 / 9)
    return text_width(_plain(cell), size)


def tabular_width(rows: Sequence[str], size: float, extra: float = 0.0) -> float:
    """The natural width in points of a tabular whose rows (``a & b \\\\``) are ``rows``,
    set at ``size`` points: each column's widest cell and :data:`TABCOLSEP` on each side,
    plus ``extra`` points of other gaps.

    >>> round(tabular_width(["Model & STEB \\\\\\\\", "a & 50.00 \\\\\\\\"], 9.0), 1)
    66.5
    """
    widths: list[float] = []
    for row in rows:
        for k, cell in enumerate(row.removesuffix("\\\\").split(" & ")):
            w = cell_width(cell, size)
            widths[k:k + 1] = [max(widths[k], w)] if k < len(widths) else [w]
    return sum(widths) + 2 * TABCOLSEP * len(widths) + extra


def place(rows: Sequence[str], size: float, *, columns: int = 1, wide: bool = False,
          extra: float = 0.0, what: str = "table") -> bool:
    """Whether a tabular of ``rows`` (at ``size`` points) goes into ``table*``: with
    ``wide``, or in a two-column paper (``columns=2``) when it would be scaled below
    :data:`MIN_FONT_SIZE` in one column. Warns, naming ``what``, when the table is
    scaled below :data:`MIN_FONT_SIZE` where it goes.

    >>> rows = [" & ".join(["Model"] + [f"m{k}" for k in range(12)]) + " \\\\\\\\"]
    >>> place(rows, 9.0), place(rows, 9.0, columns=2)
    (False, True)
    """
    if columns not in (1, 2):
        raise ValueError(f"columns={columns!r}: a paper has 1 or 2 columns")
    natural = tabular_width(rows, size, extra)
    starred = wide or (columns == 2 and natural * MIN_FONT_SIZE / size
                       > LINE_WIDTHS["column"] * 72)
    line = LINE_WIDTHS["page" if starred else "column" if columns == 2 else "text"]
    shown = size * min(1.0, line * 72 / natural)
    if shown < MIN_FONT_SIZE:
        where = "both columns (table*)" if starred else f"a {line:g} in text block"
        warnings.warn(f"{what} is scaled to {shown:.1f} pt to fit {where}, under "
                      f"{MIN_FONT_SIZE:g} pt: show fewer models or columns"
                      + ("" if starred else ", or set it across both columns of a "
                         "two-column paper (stebkit leaderboard --columns 2, "
                         "wide=True)"), stacklevel=4)
    return starred
