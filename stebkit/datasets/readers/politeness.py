"""Stanford Politeness Corpus (sudhof/politeness ``corpora/*.annotated.csv``).

Each row is a request with five annotator scores and a ``Normalized Score``
(z-scored within its corpus). Designs (``reader_options["design"]``):

``community``
    label = ``wikipedia`` or ``stackexchange`` (the file), ``per_label`` requests each.
``level``
    label = politeness quintile of ``Normalized Score`` over both corpora
    (``1-least`` ... ``5-most``), ``per_label`` requests each, with a stratified
    ``split`` for probing.
"""

from __future__ import annotations

import io
from typing import Any

import pandas as pd

from ._records import labelled, with_splits
from .text import normalise, read_text, require_columns, rng_for, spec_files

COLUMNS = ("Community", "Request", "Normalized Score")
LEVELS = ("1-least", "2-less", "3-middle", "4-more", "5-most")


def read_requests(path: Any) -> pd.DataFrame:
    """``text, community, score`` of one annotated CSV; errors name the file."""
    text = read_text(path)
    if not text.strip():
        raise ValueError(f"{path}: empty file; expected a politeness CSV")
    try:
        raw = pd.read_csv(io.StringIO(text), dtype={"Request": str})
    except pd.errors.ParserError as err:
        raise ValueError(f"{path}: not a readable CSV ({err})") from None
    require_columns(raw.columns, COLUMNS, str(path))
    score = pd.to_numeric(raw["Normalized Score"], errors="coerce")
    bad = score.isna() | raw["Request"].isna()
    if bad.any():
        line = int(bad.to_numpy().nonzero()[0][0]) + 2
        raise ValueError(f"{path} line {line}: missing request or non-numeric "
                         "'Normalized Score'")
    return pd.DataFrame({"text": raw["Request"].map(normalise), "score": score,
                         "source": "stackexchange" if "stack" in str(path) else "wikipedia"})


def read_politeness(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Politeness records for the design in ``spec.reader_options``."""
    opts = spec.reader_options
    frame = pd.concat([read_requests(p) for p in spec_files(spec).values()],
                      ignore_index=True)
    rng = rng_for(seed)
    k = opts["smoke_per_label" if smoke else "per_label"]
    if opts["design"] == "community":
        return labelled(frame.assign(label=frame["source"]), k, rng)
    bins = pd.qcut(frame["score"], len(LEVELS), labels=list(LEVELS))
    out = labelled(frame.assign(label=bins.astype(str)), k, rng)
    return with_splits(out, rng)
