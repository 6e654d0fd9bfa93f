"""The Federalist Papers as R data (browndw/cmu.textstat ``data/federalist_*.rda``).

``federalist_papers.rda`` holds ``doc_id`` and ``text``; ``federalist_meta.rda`` holds
``doc_id`` and ``author_id``. Both are read with the ``rdata`` package and joined on
``doc_id``. Only papers by a single known author (Hamilton, Madison, Jay) are used:
the 12 disputed and 3 joint papers are unlabelled by design and left out. Papers are
cut into 60-120-word passages (the salutation "To the People of the State of New
York:" removed); label = author, ``work`` = paper.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from ._records import labelled, passages_per_label
from .text import require_columns, rng_for, spec_files

AUTHORS = ("Hamilton", "Jay", "Madison")
_SALUTATION = re.compile(r"^\s*To the People of the State of New York:?\s*", re.IGNORECASE)


def read_rda_frame(path: Path, name: str, columns: tuple[str, ...]) -> pd.DataFrame:
    """The data frame ``name`` of an ``.rda`` file, with the ``columns`` checked."""
    import rdata

    try:
        with warnings.catch_warnings():
            # rdata notes R classes (tbl_df, readtext) it maps to plain data frames
            warnings.simplefilter("ignore", UserWarning)
            objects = rdata.read_rda(str(path))
    except Exception as err:  # rdata raises many types for corrupt input
        raise ValueError(f"{path}: not a readable R data file ({type(err).__name__}: "
                         f"{err}); the file may be truncated: fetch it again") from None
    if name not in objects:
        raise ValueError(f"{path}: no object {name!r}; found {sorted(objects)}")
    frame = pd.DataFrame(objects[name]).reset_index(drop=True)
    require_columns(frame.columns, columns, str(path))
    return frame


def read_papers(spec: Any) -> pd.DataFrame:
    """``doc_id, author_id, text`` for the 85 papers."""
    files = spec_files(spec)
    (papers_path,) = [p for u, p in files.items() if u.endswith("federalist_papers.rda")]
    (meta_path,) = [p for u, p in files.items() if u.endswith("federalist_meta.rda")]
    papers = read_rda_frame(papers_path, "federalist_papers", ("doc_id", "text"))
    meta = read_rda_frame(meta_path, "federalist_meta", ("doc_id", "author_id"))
    joined = papers.merge(meta[["doc_id", "author_id"]], on="doc_id", how="inner")
    if len(joined) != len(papers):
        raise ValueError(f"{meta_path}: {len(papers) - len(joined)} papers have no author "
                         "row; the two files do not match")
    return joined.astype({"doc_id": str, "author_id": str, "text": str})


def read_federalist(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Authorship records: ``per_label`` passages per author (smoke: ``smoke_per_label``
    for the first ``smoke_labels`` authors)."""
    papers = read_papers(spec)
    authors = AUTHORS[: spec.reader_options.get("smoke_labels", 2)] if smoke else AUTHORS
    papers = papers[papers["author_id"].isin(authors)].sort_values("doc_id")
    docs = pd.DataFrame({"label": papers["author_id"], "work": papers["doc_id"],
                         "paragraphs": [[p for p in _SALUTATION.sub("", t).split("\n")
                                         if p.strip()] for t in papers["text"]]})
    k = spec.reader_options["smoke_per_label" if smoke else "per_label"]
    rng = rng_for(seed)
    return labelled(passages_per_label(docs, k, rng), k, rng)
