"""Line-aligned parallel corpora for order alignment: ASSET and Shakespeare.

ASSET (facebookresearch/asset ``dataset/asset.<split>.orig`` and ``.simp.0..9``)
    line *i* of every file is the same sentence. Each sampled original becomes a
    sequence ``[simplification, original]`` (position 0 = simpler), the
    simplification drawn with the seed from the ten, as in the reference.
Shakespeare (cocoxu/Shakespeare ``train_plays1and2.{original,modern}``)
    line *i* of ``original`` is paraphrased by line *i* of ``modern``. A sequence is
    ``[original, modern]`` (position 0 = Early Modern English). Pairs whose two sides
    are identical after whitespace normalisation say nothing about style and are
    dropped (reported); so are pairs under ``min_words`` words, at most ``max_words``.

Files of a set must have the same number of lines; otherwise the error names them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from ._records import sequences
from .text import n_words, normalise, read_text, report_dropped, rng_for, sample, spec_files


def read_lines(path: Path) -> list[str]:
    """Normalised lines of a line-aligned file (a trailing newline is not a line)."""
    text = read_text(path)
    if not text.strip():
        raise ValueError(f"{path}: empty file; expected one sentence per line")
    return [normalise(line) for line in text.rstrip("\n").split("\n")]


def read_aligned(paths: dict[str, Path]) -> pd.DataFrame:
    """Columns named by ``paths``' keys, one row per aligned line."""
    columns = {name: read_lines(path) for name, path in paths.items()}
    lengths = {name: len(lines) for name, lines in columns.items()}
    if len(set(lengths.values())) != 1:
        detail = ", ".join(f"{paths[n]}: {k} lines" for n, k in lengths.items())
        raise ValueError(f"line-aligned files differ in length ({detail})")
    return pd.DataFrame(columns)


def read_asset(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """ASSET order-alignment records (``reader_options``: ``split``, ``sequences``)."""
    opts = spec.reader_options
    split = opts.get("split", "test")
    paths = {}
    for url, path in spec_files(spec).items():
        m = re.search(rf"asset\.{split}\.(orig|simp\.\d)$", url)
        if m:
            paths[m[1]] = path
    if "orig" not in paths or len(paths) < 2:
        raise ValueError(f"{spec.name}: the spec needs asset.{split}.orig and its .simp.k files")
    aligned = read_aligned(dict(sorted(paths.items())))
    rng = rng_for(seed)
    rows = sample(list(range(len(aligned))), opts["smoke_sequences" if smoke else "sequences"],
                  rng)
    simp_cols = [c for c in aligned.columns if c.startswith("simp")]
    choice = rng.integers(len(simp_cols), size=len(rows))
    groups = [[aligned.at[r, simp_cols[c]], aligned.at[r, "orig"]]
              for r, c in zip(rows, choice, strict=True)]
    return sequences(groups, spec.label, extra={"work": [f"line{r + 1}" for r in rows
                                                         for _ in (0, 1)]})


def read_shakespeare(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Shakespeare order-alignment records (``reader_options``: ``sequences``,
    ``min_words``, ``max_words``)."""
    opts = spec.reader_options
    files = spec_files(spec)
    paths = {side: next(p for u, p in files.items() if u.endswith(f".{side}"))
             for side in ("original", "modern")}
    aligned = read_aligned(paths)
    aligned["line"] = range(1, len(aligned) + 1)
    same = aligned["original"].str.casefold() == aligned["modern"].str.casefold()
    lo, hi = opts.get("min_words", 8), opts.get("max_words", 120)
    words = aligned["original"].map(n_words)
    short = ~same & ((words < lo) | (words > hi))
    report_dropped(spec.name, int(same.sum()), len(aligned), "original and modern identical")
    report_dropped(spec.name, int(short.sum()), len(aligned),
                   f"original outside {lo}-{hi} words")
    kept = aligned[~same & ~short].reset_index(drop=True)
    rows = sample(list(range(len(kept))), opts["smoke_sequences" if smoke else "sequences"],
                  rng_for(seed))
    picked = kept.iloc[rows]
    groups = [[o, m] for o, m in zip(picked["original"], picked["modern"], strict=True)]
    return sequences(groups, spec.label,
                     extra={"work": [f"line{n}" for n in picked["line"] for _ in (0, 1)]})
