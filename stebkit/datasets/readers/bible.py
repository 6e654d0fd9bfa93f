"""Parallel Bible versions (keithecarlson/StyleTransferBibleData ``Data/Bibles``).

Files are ``<VERSION>/<Book>/<Book><chapter>.txt`` with one ``<verse> <text>`` per
line. Versions are aligned on verse *number* (never line index); verses missing from
any version are dropped and reported. Consecutive verses form passages ("spans") of
60-120 words, measured on the first version listed in the spec, and the same span is
cut from every version, so all versions say the same thing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd

from ._records import labelled, sequences
from .text import (
    PASSAGE_MAX_WORDS,
    PASSAGE_MIN_WORDS,
    n_words,
    normalise,
    read_text,
    report_dropped,
    rng_for,
    sample,
    spec_files,
)

_PATH = re.compile(r"/Bibles/(?P<version>[A-Z]+)/(?P<book>[^/]+)/(?P=book)(?P<chapter>\d+)\.txt$")
_VERSE = re.compile(r"^\s*(\d+)\s+(.*\S)\s*$")


def read_chapter(path: Path) -> dict[int, str]:
    """Verse number -> text of one chapter file; errors name the file and line."""
    text = read_text(path)
    verses: dict[int, str] = {}
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        m = _VERSE.match(line)
        if not m:
            raise ValueError(f"{path} line {i}: expected '<verse number> <text>', "
                             f"got {line[:60]!r}")
        verses[int(m.group(1))] = normalise(m.group(2))
    if not verses:
        raise ValueError(f"{path}: empty chapter file")
    return verses


def read_aligned(spec: Any) -> pd.DataFrame:
    """One row per verse present in every version: ``book, chapter, verse, <VERSION>...``."""
    chapters: dict[tuple[str, int], dict[str, dict[int, str]]] = {}
    versions: list[str] = list(spec.reader_options["versions"])
    for url, path in spec_files(spec).items():
        m = _PATH.search(url)
        if not m or m["version"] not in versions:
            continue
        key = (m["book"], int(m["chapter"]))
        chapters.setdefault(key, {})[m["version"]] = read_chapter(path)
    rows = []
    total = dropped = 0
    for (book, chapter), by_version in sorted(chapters.items()):
        missing = set(versions) - set(by_version)
        if missing:
            raise ValueError(f"{spec.name}: {book} {chapter} is missing for {sorted(missing)}")
        numbers = set().union(*(v.keys() for v in by_version.values()))
        common = set.intersection(*(set(v) for v in by_version.values()))
        total += len(numbers)
        dropped += len(numbers - common)
        for verse in sorted(common):
            rows.append({"book": book, "chapter": chapter, "verse": verse,
                         **{v: by_version[v][verse] for v in versions}})
    report_dropped(spec.name, dropped, total, "verse number not present in every version")
    return pd.DataFrame(rows)


def spans(aligned: pd.DataFrame, reference: str, min_words: int = PASSAGE_MIN_WORDS,
          max_words: int = PASSAGE_MAX_WORDS) -> list[list[int]]:
    """Row indices of consecutive verses forming passages, never crossing a chapter."""
    out: list[list[int]] = []
    for _, chapter in aligned.groupby(["book", "chapter"], sort=True):
        current: list[int] = []
        count = 0
        for idx, text in zip(chapter.index, chapter[reference], strict=True):
            k = n_words(text)
            if current and count + k > max_words:
                if count >= min_words:
                    out.append(current)
                current, count = [], 0
            current.append(idx)
            count += k
            if count >= min_words:
                out.append(current)
                current, count = [], 0
    return out


def read_bible(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Bible records.

    ``reader_options``: ``versions`` (in style order for order alignment), ``design``
    (``"versions"``: label = version, ``spans`` spans sampled and each cut from every
    version; ``"order"``: each span is one sequence over the versions, label
    ``spec.label``), ``spans`` and ``smoke_spans``; ``smoke_versions`` limits the
    versions of the ``"versions"`` design in smoke mode.
    """
    opts = spec.reader_options
    versions = list(opts["versions"])
    aligned = read_aligned(spec)
    all_spans = spans(aligned, versions[0])
    picked = sample(all_spans, opts["smoke_spans" if smoke else "spans"], rng_for(seed))

    def text_of(span: list[int], version: str) -> str:
        return " ".join(aligned.loc[span, version])

    def ref(span: list[int]) -> str:
        first, last = aligned.loc[span[0]], aligned.loc[span[-1]]
        return f"{first.book} {first.chapter}:{first.verse}-{last.verse}"

    if opts["design"] == "order":
        out = sequences([[text_of(s, v) for v in versions] for s in picked], spec.label,
                        extra={"work": [ref(s) for s in picked for _ in versions],
                               "version": versions * len(picked)})
        return out
    if smoke:
        versions = list(opts.get("smoke_versions", versions))
    rows = [{"text": text_of(s, v), "label": v, "work": ref(s)} for s in picked
            for v in versions]
    frame = pd.DataFrame(rows)
    return labelled(frame, len(picked), rng_for(seed))
