"""One escaper per output format for text that comes from names (models, datasets, files).

Names reach tables from result records, and records may come from anyone's files
(``stebkit import``). Every writer of a name into a CSV, Markdown or LaTeX table, and
every line written for a format that may hold a name (a leaderboard's footer, the
``--summary`` file, the website's sentences: :func:`escape_line`), passes it through the
escaper of its format (:data:`ESCAPERS`), so that a name is shown as the text it is:

- :func:`text_cell` (a terminal): control characters (escape sequences, carriage
  returns) are shown as Python writes them (``\\x1b``);
- :func:`csv_cell`: a cell that a spreadsheet would read as a formula (first character
  ``=``, ``+``, ``-``, ``@``, tab or carriage return) gets a leading ``'``;
- :func:`markdown_cell`: ``|`` cannot split a row, ``<``, ``>`` and ``&`` are HTML
  entities (no tags), ``[``, ``]``, ``(``, ``)``, ``*``, `````, ``!`` and ``\\`` are
  backslash-escaped (no links, images, ``*`` emphasis or code), a line break is a space;
- :func:`latex_cell`: all ten LaTeX specials (``& % $ # _ { } ~ ^ \\``), and what pdflatex
  cannot set with its default fonts (``中``, an emoji) as its code point.

Whatever stebkit writes to a terminal (messages naming files, models and datasets, job
logs, tables, warnings, log records, progress bars) goes through :func:`text_cell`: lines
with :func:`echo`, tables with :func:`text_table`, log records with
:class:`TerminalFormatter`, a progress bar's label as ``desc=text_cell(...)``. No other
module prints; ``tests/test_terminal_output.py`` scans the package for it.
"""

from __future__ import annotations

import logging
import sys
import unicodedata
from typing import Any

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_MARKDOWN_SPECIALS = "\\`*[]()!|"
_LATEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
          "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
          "\\": r"\textbackslash{}"}

_LATEX_ACCENTS = {"\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~",
                  "\u0308": '"', "\u0327": "c", "\u030c": "v", "\u030a": "r",
                  "\u0304": "=", "\u0306": "u", "\u0307": ".", "\u030b": "H"}
"""Combining accents pdflatex sets over a letter with its default (OT1) fonts: the mark,
then the accent command."""
_LATEX_LETTERS = {"ß": r"\ss{}", "æ": r"\ae{}", "Æ": r"\AE{}", "œ": r"\oe{}",
                  "Œ": r"\OE{}", "ø": r"\o{}", "Ø": r"\O{}", "ł": r"\l{}", "Ł": r"\L{}",
                  "å": r"\aa{}", "Å": r"\AA{}", "ı": r"\i{}"}


def text_cell(value: Any, *, lines: bool = False) -> str:
    """``value`` as text for a terminal: control characters shown as escapes, so that no
    name moves the cursor, recolours the screen, retitles the window or hides a line.
    ``lines=True`` keeps the line breaks (``\\n``) of a message of several lines.

    >>> print(text_cell("a\\x1b[2Jb\\rc"))
    a\\x1b[2Jb\\rc
    >>> print(text_cell("one\\n\\x1b]0;title\\x07two", lines=True))
    one
    \\x1b]0;title\\x07two
    """
    text = str(value)
    if text.isprintable():
        return text
    if lines:
        return "\n".join(text_cell(line) for line in text.split("\n"))
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def echo(*values: Any, file: Any = None, sep: str = " ", end: str = "\n",
         flush: bool = False) -> None:
    """``print`` for a terminal (``file``: default ``sys.stdout``): the text through
    :func:`text_cell`, line breaks kept. Every line stebkit shows goes through here.

    >>> echo("wrote res\\x1b[31m", "2\\r1", "done", sep="\\n")
    wrote res\\x1b[31m
    2\\r1
    done
    """
    text = text_cell(sep.join(str(v) for v in values), lines=True)
    print(text, file=sys.stdout if file is None else file, end=end, flush=flush)


def text_table(df: Any) -> str:
    """The frame ``df`` as a terminal table (no index), every text cell and column name
    through :func:`text_cell` (numbers are formatted as pandas formats them).

    >>> import pandas as pd
    >>> print(text_table(pd.DataFrame({"model": ["a\\x1b[2J"], "score": [0.5]})))
       model  score
    a\\x1b[2J    0.5
    """
    import pandas as pd

    out = pd.DataFrame(df).copy()
    for column in out.columns:
        if not pd.api.types.is_numeric_dtype(out[column]):
            out[column] = out[column].map(lambda v: text_cell(v) if isinstance(v, str) else v)
    out.columns = [text_cell(c) if isinstance(c, str) else c for c in out.columns]
    return out.to_string(index=False)


class TerminalFormatter(logging.Formatter):
    """A logging formatter whose records reach a terminal through :func:`text_cell`.

    >>> record = logging.makeLogRecord({"msg": "%s cannot be read", "args": ("a\\rb",)})
    >>> TerminalFormatter().format(record)
    'a\\\\rb cannot be read'
    """

    def format(self, record: logging.LogRecord) -> str:
        return text_cell(super().format(record), lines=True)


def csv_cell(value: Any) -> Any:
    """A text cell that no spreadsheet runs as a formula; other values as they are.

    >>> csv_cell("=HYPERLINK(\\"http://x\\")"), csv_cell("@SUM(A1)"), csv_cell("tfidf-char")
    ('\\'=HYPERLINK("http://x")', "'@SUM(A1)", 'tfidf-char')
    >>> csv_cell(-0.5)
    -0.5
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_frame(df: Any) -> Any:
    """A copy of the frame ``df`` with every text cell through :func:`csv_cell` (numbers
    are kept, so a negative score stays a number).

    >>> import pandas as pd
    >>> csv_frame(pd.DataFrame({"model": ["+cmd", "b"], "score": [-1.0, 2.0]})).to_csv(
    ...     index=False).splitlines()
    ['model,score', "'+cmd,-1.0", 'b,2.0']
    """
    import pandas as pd

    out = df.copy()
    for column in out.columns:
        if not pd.api.types.is_numeric_dtype(out[column]):
            out[column] = out[column].map(csv_cell)
    out.columns = [csv_cell(str(c)) for c in out.columns]
    return out


def markdown_cell(value: Any) -> str:
    """``value`` as the text of one Markdown table cell: no row split, no HTML, no link.

    >>> markdown_cell("a|b"), markdown_cell("<img src=x onerror=alert(1)>")
    ('a\\\\|b', '&lt;img src=x onerror=alert\\\\(1\\\\)&gt;')
    >>> print(markdown_cell("[x](javascript:alert(1))"))
    \\[x\\]\\(javascript:alert\\(1\\)\\)
    """
    text = str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else ch for ch in text)
    return " ".join(text.splitlines()) if "\n" in text or "\r" in text else text


def latex_cell(value: Any) -> str:
    """``value`` as LaTeX text that pdflatex sets with its default fonts: the ten special
    characters escaped, a Latin letter with an accent pdflatex has (grave, acute,
    circumflex, tilde, diaeresis, cedilla, caron, ring, macron, breve, dot, double acute)
    written with its accent command, ``ß æ œ ø ł å ı`` with theirs; any other character
    (``中``, an emoji) is written as its code point, ``{[U+4E2D]}``: pdflatex cannot set
    it (XeLaTeX or LuaLaTeX could; the CSV and Markdown tables keep the name).

    >>> print(latex_cell(r"a_b^c~d\\e&{f}%$#"))
    a\\_b\\textasciicircum{}c\\textasciitilde{}d\\textbackslash{}e\\&\\{f\\}\\%\\$\\#
    >>> print(latex_cell("Zoë-Straße-中"))
    Zo\\"{e}-Stra\\ss{}e-{[U+4E2D]}
    """
    return "".join(_LATEX.get(ch) or (ch if ch.isascii() else _latex_letter(ch))
                   for ch in unicodedata.normalize("NFC", str(value)))


def _latex_letter(ch: str) -> str:
    """One character outside ASCII as pdflatex sets it (see :func:`latex_cell`).

    >>> print(*(_latex_letter(ch) for ch in "éŁą😀"))
    \\'{e} \\L{} {[U+0105]} {[U+1F600]}
    """
    if ch in _LATEX_LETTERS:
        return _LATEX_LETTERS[ch]
    base, *marks = unicodedata.normalize("NFD", ch)
    if base.isascii() and base.isalpha() and len(marks) == 1 and marks[0] in _LATEX_ACCENTS:
        return f"\\{_LATEX_ACCENTS[marks[0]]}{{{base}}}"
    return f"{{[U+{ord(ch):04X}]}}"  # braced: no row end reads it as its option


ESCAPERS = {"text": text_cell, "md": markdown_cell, "latex": latex_cell, "csv": csv_cell}
"""The one escaper of each output format."""


def escape_line(line: str, fmt: str) -> str:
    """A line written for ``fmt`` (a key of :data:`ESCAPERS`) through its format's escaper:
    a sentence that holds names is shown as the text it is.

    >>> print(escape_line("- above chance: <img src=x onerror=alert(1)>, a|b", "md"))
    - above chance: &lt;img src=x onerror=alert\\(1\\)&gt;, a\\|b
    >>> escape_line("=HYPERLINK(1)", "csv")
    "'=HYPERLINK(1)"
    """
    if fmt not in ESCAPERS:
        raise ValueError(f"no escaper for the format {fmt!r}; the formats are "
                         f"{sorted(ESCAPERS)}")
    return str(ESCAPERS[fmt](line))
