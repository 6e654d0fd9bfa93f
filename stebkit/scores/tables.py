"""Leaderboard tables: Markdown, LaTeX and CSV."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from stebkit._io import write_text
from stebkit.escape import csv_frame, latex_cell, markdown_cell
from stebkit.scores.published import category_label

_TEXT_COLUMNS = ("rank", "model", "model_category")


def _score_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if c not in _TEXT_COLUMNS and c != "chance"
            and not c.endswith("_ci_low") and not c.endswith("_ci_high")
            and pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])]


def _cells(df: pd.DataFrame, scale: float, digits: int, bold: tuple[str, str],
           escape: Callable[[Any], str]) -> tuple[list[str], list[list[str]]]:
    """Column names and cell texts, every text cell (names) through ``escape``."""
    cols = [c for c in _TEXT_COLUMNS if c in df.columns] + _score_columns(df)
    chance = df["chance"].eq(True) if "chance" in df.columns else \
        pd.Series(False, index=df.index)
    best = {c: df.loc[~chance, c].max() for c in _score_columns(df)}
    rows = []
    for i, r in df.iterrows():
        cells = []
        for c in cols:
            v = r[c]
            if c == "model" and chance[i]:
                cells.append(f"{escape(v)} (chance level)")
                continue
            if c in best:
                if pd.isna(v):
                    cells.append("–")
                    continue
                s = f"{v * scale:.{digits}f}"
                base = c.removesuffix("_score") if c.endswith("_score") else c
                lo, hi = r.get(f"{base}_ci_low"), r.get(f"{base}_ci_high")
                if lo is not None and hi is not None and pd.notna(lo) and pd.notna(hi):
                    s += f" [{lo * scale:.{digits}f}, {hi * scale:.{digits}f}]"
                if v == best[c] and not chance[i]:
                    s = f"{bold[0]}{s}{bold[1]}"
                cells.append(s)
            elif c == "model_category":  # the label readers see, not the stored key
                cells.append("" if pd.isna(v) else escape(category_label(v)))
            else:
                cells.append("" if pd.isna(v) else escape(v))
        rows.append(cells)
    return cols, rows


def to_markdown(df: pd.DataFrame, *, scale: float = 100.0, digits: int = 2) -> str:
    """Render a leaderboard as a Markdown table (scores x ``scale``, best in bold).

    >>> lb = pd.DataFrame({"rank": [1, 2], "model": ["a", "b"], "steb_score": [.5, .25]})
    >>> print(to_markdown(lb))
    | rank | model | steb_score |
    |---|---|---|
    | 1 | a | **50.00** |
    | 2 | b | 25.00 |
    """
    cols, rows = _cells(df, scale, digits, ("**", "**"), markdown_cell)
    lines = ["| " + " | ".join(markdown_cell(c) for c in cols) + " |",
             "|" + "|".join(["---"] * len(cols)) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def to_latex(df: pd.DataFrame, path: str | os.PathLike[str] | None = None, *,
             scale: float = 100.0, digits: int = 2, caption: str | None = None,
             label: str | None = None) -> str:
    """Render a leaderboard as a booktabs LaTeX table, best per column in bold.

    Writes it to ``path`` (atomically) when given; returns the LaTeX text.

    >>> lb = pd.DataFrame({"model": ["a_1", "b"], "steb_score": [.5, .25]})
    >>> print(to_latex(lb))
    \\begin{tabular}{lr}
    \\toprule
    model & steb\\_score \\\\
    \\midrule
    a\\_1 & \\textbf{50.00} \\\\
    b & 25.00 \\\\
    \\bottomrule
    \\end{tabular}
    """
    cols, rows = _cells(df, scale, digits, (r"\textbf{", "}"), latex_cell)
    n_text = sum(c in _TEXT_COLUMNS for c in cols)
    spec = "l" * n_text + "r" * (len(cols) - n_text)
    body = [rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
            " & ".join(latex_cell(c) for c in cols) + r" \\", r"\midrule"]
    body += [" & ".join(r) + r" \\" for r in rows]
    body += [r"\bottomrule", r"\end{tabular}"]
    if caption or label:
        inner = [r"\begin{table}[t]", r"\centering", *body]
        if caption:
            inner.append(rf"\caption{{{caption}}}")
        if label:
            inner.append(rf"\label{{{label}}}")
        body = [*inner, r"\end{table}"]
    text = "\n".join(body)
    if path is not None:
        write_text(path, text + "\n")
    return text


def to_csv(df: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write a leaderboard (raw values) to CSV atomically; return the path. A name that a
    spreadsheet would run as a formula is written with a leading ``'``
    (:func:`stebkit.escape.csv_cell`)."""
    return write_text(path, csv_frame(df).to_csv(index=False))
