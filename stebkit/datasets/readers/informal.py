"""German In_Formal sentences (ee-2/in_formal_sentences ``in_formal_sentences.tsv``).

Columns ``id`` (``<domain>_<n>``), ``score`` (formality from -1 informal to +1 formal,
by best-worst scaling) and ``text``. The ``comments`` domain (CC BY-NC-SA) is left out
so the data stay CC BY-SA. Designs: ``genre`` (label = domain) and ``formality``
(label = formality quintile ``1-informal`` ... ``5-formal``, with a stratified
``split`` for probing); ``per_label`` sentences per label.
"""

from __future__ import annotations

import io
from typing import Any

import pandas as pd

from ._records import labelled, with_splits
from .text import normalise, read_text, require_columns, rng_for, spec_files

LEVELS = ("1-informal", "2-casual", "3-neutral", "4-careful", "5-formal")
EXCLUDED_DOMAINS = ("comments",)


def read_sentences(path: Any) -> pd.DataFrame:
    """``text, domain, score``; errors name the file and line."""
    text = read_text(path)
    if not text.strip():
        raise ValueError(f"{path}: empty file; expected the In_Formal TSV")
    raw = pd.read_csv(io.StringIO(text), sep="\t", dtype=str, keep_default_na=False,
                      quoting=3)
    require_columns(raw.columns, ("id", "score", "text"), str(path))
    score = pd.to_numeric(raw["score"], errors="coerce")
    bad = score.isna() | ~raw["id"].str.contains("_") | (raw["text"].str.strip() == "")
    if bad.any():
        line = int(bad.to_numpy().nonzero()[0][0]) + 2
        raise ValueError(f"{path} line {line}: expected '<domain>_<n>', a numeric score "
                         "and a text")
    return pd.DataFrame({"text": raw["text"].map(normalise), "score": score,
                         "domain": raw["id"].str.rsplit("_", n=1).str[0]})


def read_informal(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """In_Formal records for the design in ``spec.reader_options``."""
    opts = spec.reader_options
    (path,) = [p for u, p in spec_files(spec).items() if u.endswith(".tsv")]
    frame = read_sentences(path)
    frame = frame[~frame["domain"].isin(EXCLUDED_DOMAINS)].reset_index(drop=True)
    rng = rng_for(seed)
    k = opts["smoke_per_label" if smoke else "per_label"]
    if opts["design"] == "genre":
        domains = sorted(frame["domain"].unique())
        if smoke:
            domains = domains[: opts.get("smoke_labels", 4)]
        frame = frame[frame["domain"].isin(domains)]
        return labelled(frame.assign(label=frame["domain"]), k, rng)
    bins = pd.qcut(frame["score"], len(LEVELS), labels=list(LEVELS))
    out = labelled(frame.assign(label=bins.astype(str)), k, rng)
    return with_splits(out, rng)
