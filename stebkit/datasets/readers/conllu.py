"""Universal Dependencies document sources in CoNLL-U (UD English-EWT and GUM).

Only comment lines are read: ``# text =`` gives the sentences, ``# newpar`` marks
paragraphs, and GUM's ``# meta::genre`` / ``# meta::summaryN = (<generator>) ...``
give the genre and the human and machine summaries. The EWT genre is the folder
(``sources/<genre>/<doc>.conllu``).

Designs (``reader_options["design"]``):

``genre``
    documents cut into 60-120-word passages (a document shorter than 60 words is one
    text), ``per_label`` per genre; label = genre, ``work`` = document.
``summaries``
    GUM document summaries, label = who wrote them (``human`` or the generator named
    in the ``summaryN`` line), ``per_label`` per label.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from ._records import labelled
from .text import (
    PASSAGE_MIN_WORDS,
    cut_passages,
    n_words,
    normalise,
    read_text,
    report_dropped,
    rng_for,
    spec_files,
)

_SUMMARY = re.compile(r"^\(([^)]+)\)\s*(.+)$")


_COMMENT = re.compile(r"^# ?(newpar(?!_)|text = |meta::)(.*)$", re.MULTILINE)
_BAD_LINE = re.compile(r"^(?!#)[^\t\n]*\S[^\t\n]*$", re.MULTILINE)


def read_document(path: Path) -> dict[str, Any]:
    """``{"paragraphs": [...], "meta": {...}}`` of one CoNLL-U document."""
    text = read_text(path)
    bad = _BAD_LINE.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise ValueError(f"{path} line {line}: not a CoNLL-U token or comment line: "
                         f"{bad.group(0)[:60]!r}")
    paragraphs: list[list[str]] = [[]]
    meta: dict[str, str] = {}
    for m in _COMMENT.finditer(text):
        kind, body = m.group(1), m.group(2)
        if kind == "newpar":
            if paragraphs[-1]:
                paragraphs.append([])
        elif kind == "text = ":
            paragraphs[-1].append(body.strip())
        elif " = " in body:
            key, value = body.split(" = ", 1)
            meta[key.strip()] = value.strip()
    paragraphs = [p for p in paragraphs if p]
    if not paragraphs:
        raise ValueError(f"{path}: no '# text =' lines; not a CoNLL-U document "
                         "(empty or truncated file?)")
    return {"paragraphs": [normalise(" ".join(p)) for p in paragraphs], "meta": meta}


def _genre(url: str, doc: dict[str, Any]) -> str:
    if "genre" in doc["meta"]:
        return doc["meta"]["genre"]
    parts = url.split("/")
    return parts[parts.index("sources") + 1]


def summaries(doc: dict[str, Any], name: str) -> list[tuple[str | None, str]]:
    """``(writer, summary)`` pairs of a GUM document.

    The writer is ``human`` for ``(human)``/``(humanN)`` summaries, the generator for
    machine summaries, and None for post-edited machine summaries and summaries
    without a writer (mixed or unknown authorship).
    """
    out: list[tuple[str | None, str]] = []
    for key, value in sorted(doc["meta"].items()):
        if not key.startswith("summary"):
            continue
        m = _SUMMARY.match(value)
        if not m:
            out.append((None, normalise(value)))
            continue
        writer = m.group(1).strip()
        if "postedited" in writer:
            out.append((None, normalise(m.group(2))))
        else:
            out.append(("human" if re.fullmatch(r"human\d*", writer) else writer,
                        normalise(m.group(2))))
    return out


def read_ud(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """UD records for the design in ``spec.reader_options`` (see module docs)."""
    opts = spec.reader_options
    rows = []
    n_summaries = 0
    for url, path in spec_files(spec).items():
        if not url.endswith(".conllu"):
            continue
        doc = read_document(path)
        work = Path(url).name.removesuffix(".conllu")
        if opts["design"] == "summaries":
            found = summaries(doc, url)
            n_summaries += len(found)
            rows += [{"text": t, "label": w, "work": work} for w, t in found if w]
            continue
        genre = _genre(url, doc)
        whole = " ".join(doc["paragraphs"])
        texts = (cut_passages(doc["paragraphs"]) if n_words(whole) >= PASSAGE_MIN_WORDS
                 else [whole])
        rows += [{"text": t, "label": genre, "work": work} for t in texts]
    frame = pd.DataFrame(rows, columns=["text", "label", "work"])
    if opts["design"] == "summaries":
        report_dropped(spec.name, n_summaries - len(frame), n_summaries,
                       "post-edited machine summaries or summaries without a writer")
    if frame.empty:
        raise ValueError(f"{spec.name}: no texts in the spec's CoNLL-U files")
    if smoke:
        order = sorted(frame["label"].unique(), key=lambda x: (x != "human", x))
        frame = frame[frame["label"].isin(order[: opts.get("smoke_labels", 4)])]
    return labelled(frame, opts["smoke_per_label" if smoke else "per_label"], rng_for(seed))
