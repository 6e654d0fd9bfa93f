"""Parallel Bible versions (keithecarlson/StyleTransferBibleData ``Data/Bibles``), read
by :func:`read_bible`.

Files are ``<VERSION>/<Book>/<Book><chapter>.txt`` with one ``<verse> <text>`` per
line. ``sampling`` chooses the records:

``"all"`` (the STEB catalogue's ``bible_versions``)
    The chapter files of eight translations (undecodable bytes replaced; lines without
    a numeric verse are skipped), read as the reference reads them. Only references
    ``(book, chapter, verse)`` present in all eight are kept, in sorted order, minus
    those where two translations read the same after lower-casing and collapsing
    whitespace (counted); the references are then shuffled with ``random.Random(42)``
    and each yields eight records (label = the version, in the order ASV BBE DARBY DRA
    KJV LEB WEB YLT). Version followed: the reference's loader with the collision
    filter and the seeded shuffle (as at its commit 0b0e62c); its earlier version (e.g.
    commit 626a506) kept every common reference, in sorted order, unshuffled.
``"seeded"`` (the lite suite's ``bible-versions`` and ``bible-eras``)
    Versions are aligned on verse *number* (never line index); verses missing from any
    version are dropped and reported. Consecutive verses form passages ("spans") of
    60-120 words, measured on the first version listed in the spec, and the same span
    is cut from every version, so all versions say the same thing; spans are drawn
    with the seed.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from ._records import is_seeded, labelled, sequences
from ._steb import frame
from .text import (
    PASSAGE_MAX_WORDS,
    PASSAGE_MIN_WORDS,
    folded,
    n_words,
    normalise,
    read_text,
    report_dropped,
    rng_for,
    sample,
    spec_files,
    text_lines,
)

__all__ = ["BIBLE_VERSIONS", "bible_urls", "read_aligned", "read_bible", "read_chapter",
           "spans"]

_BIBLE = ("https://raw.githubusercontent.com/keithecarlson/StyleTransferBibleData/"
          "1c6c8eec242d496c40531d740cd0d57f5f195d05/Data/Bibles")

BIBLE_VERSIONS = ("ASV", "BBE", "DARBY", "DRA", "KJV", "LEB", "WEB", "YLT")
# Chapters per book folder (the same 66 folders and 1,189 chapters in every version).
_BOOKS = {
    "1Chronicles": 29, "1Corinthians": 16, "1John": 5, "1Kings": 22, "1Peter": 5,
    "1Samuel": 31, "1Thessalonians": 5, "1Timothy": 6, "2Chronicles": 36,
    "2Corinthians": 13, "2John": 1, "2Kings": 25, "2Peter": 3, "2Samuel": 24,
    "2Thessalonians": 3, "2Timothy": 4, "3John": 1, "Acts": 28, "Amos": 9,
    "Colossians": 4, "Daniel": 12, "Deuteronomy": 34, "Ecclesiastes": 12, "Ephesians": 6,
    "Esther": 10, "Exodus": 40, "Ezekiel": 48, "Ezra": 10, "Galatians": 6, "Genesis": 50,
    "Habakkuk": 3, "Haggai": 2, "Hebrews": 13, "Hosea": 14, "Isaiah": 66, "James": 5,
    "Jeremiah": 52, "Job": 42, "Joel": 3, "John": 21, "Jonah": 4, "Joshua": 24, "Jude": 1,
    "Judges": 21, "Lamentations": 5, "Leviticus": 27, "Luke": 24, "Malachi": 4, "Mark": 16,
    "Matthew": 28, "Micah": 7, "Nahum": 3, "Nehemiah": 13, "Numbers": 36, "Obadiah": 1,
    "Philemon": 1, "Phillipians": 4, "Proverbs": 31, "Psalms": 150, "Revelation": 22,
    "Romans": 16, "Ruth": 4, "SongofSolomon": 8, "Titus": 3, "Zechariah": 14,
    "Zephaniah": 3,
}


def bible_urls(versions: Iterable[str] = BIBLE_VERSIONS) -> tuple[str, ...]:
    """The chapter files of ``versions``.

    >>> urls = bible_urls(["KJV"])
    >>> len(urls), urls[0].rsplit("/", 3)[1:]
    (1189, ['KJV', '1Chronicles', '1Chronicles1.txt'])
    """
    return tuple(f"{_BIBLE}/{v}/{book}/{book}{c}.txt" for v in versions
                 for book, n in _BOOKS.items() for c in range(1, n + 1))


CHAPTER_PATH = re.compile(
    r"/Bibles/(?P<version>[A-Z]+)/(?P<book>[^/]+)/(?P=book)(?P<chapter>\d+)\.txt$")
"""The URL path of one chapter file of one version: ``version``, ``book``, ``chapter``."""
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
        m = CHAPTER_PATH.search(url)
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


def read_bible(spec: Any, *, seed: int = 42, smoke: bool = False,
               sampling: str) -> pd.DataFrame:
    """Bible records: every verse common to the eight translations (``sampling="all"``)
    or seeded spans (``"seeded"``); see the module docstring."""
    if is_seeded(sampling, spec.name):
        return _seeded_spans(spec, seed, smoke)
    return _all_verses(spec, smoke)


def _seeded_spans(spec: Any, seed: int, smoke: bool) -> pd.DataFrame:
    """Spans of the lite designs.

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
    return labelled(pd.DataFrame(rows), len(picked), rng_for(seed))


# ------------------------------------------------- the reference's verse records

def _chapter(text: str) -> dict[int, str]:
    """Verse number -> text of one chapter as the reference reads it: lines without a
    numeric verse or without a text are skipped (:func:`read_chapter` rejects them)."""
    verses: dict[int, str] = {}
    for line in text_lines(text):
        parts = line.split(maxsplit=1)
        if len(parts) != 2:
            continue
        try:
            number = int(parts[0])
        except ValueError:
            continue
        body = parts[1].strip()
        if body:
            verses[number] = body
    return verses


_CHAPTER = re.compile(r"/Bibles/(?P<version>[^/]+)/(?P<book>[^/]+)/(?P<file>[^/]+)\.txt$")


def _all_verses(spec: Any, smoke: bool) -> pd.DataFrame:
    """Verse-aligned records of the eight translations (see the module docstring); the
    reference's order uses its own fixed seed, 42, whatever the run's seed."""
    versions = tuple(spec.reader_options.get("versions", BIBLE_VERSIONS))
    verses: dict[str, dict[tuple[str, int, int], str]] = {v: {} for v in versions}
    for url, path in spec_files(spec).items():
        m = _CHAPTER.search(url)
        if not m or m["version"] not in verses:
            continue
        book = m["book"]
        if not m["file"].startswith(book) or not m["file"][len(book):].isdigit():
            raise ValueError(f"{url}: expected <Book>/<Book><chapter>.txt")
        chapter = int(m["file"][len(book):])
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
        for number, body in _chapter(text).items():
            verses[m["version"]][(book, chapter, number)] = body
    empty = [v for v in versions if not verses[v]]
    if empty:
        raise ValueError(f"dataset {spec.name!r}: no chapter files for {empty}")
    common = sorted(set.intersection(*(set(v) for v in verses.values())))
    distinct = [ref for ref in common
                if len({folded(verses[v][ref]) for v in versions}) == len(versions)]
    report_dropped(spec.name, len(common) - len(distinct), len(common),
                   "verses where two translations read the same")
    random.Random(42).shuffle(distinct)
    if smoke:
        distinct = distinct[:20]
    rows = [{"text": verses[v][ref], "label": v} for ref in distinct for v in versions]
    return frame(rows)
