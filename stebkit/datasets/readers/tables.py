"""Delimited tables of the STEB catalogue: CORE (TSV), eWAVE (CLDF CSV) and graded
formality (CSV).

CORE (``read_core``)
    ``train.tsv``, ``dev.tsv``, ``test.tsv`` (gzip): ``<register codes>\\t<id>\\t<text>``
    without header. A document gives one record per *sub-register* code it carries
    (``NE`` -> ``news_report_blog``, ...; the eight main classes and other codes give
    none); lines with fewer than three fields or a blank text are skipped (counted).
eWAVE (``read_ewave``)
    ``cldf/examples.csv`` joined to ``cldf/languages.csv`` (``Language_ID`` -> ``ID``):
    the example sentence (``Primary_Text``, stripped) labelled by the variety's ``Name``.
    Examples without text or of an unknown variety are skipped, and varieties with fewer
    than two examples are left out (both counted).
Graded formality (``read_graded_formality``)
    Every ``*.csv`` of the release folder, in the order the archive holds them (the
    order unzip creates them in), which is fixed. The reference's order is not: it
    globs the unpacked folder unsorted (``Path.glob``), so it reads the files in the
    file system's listing order, which differs between file systems (creation order on
    some, hash order on ext4, name order on others) and may change when the folder is
    copied; the archive order is what it gets where a folder lists in creation order.
    The files are read as the reference's text-mode ``open`` reads them (``\\r\\n``
    and a lone ``\\r`` become ``\\n``, inside quoted fields too). ``input`` and
    ``level1``..``level4`` form one ordered set, from the informal input (position 0)
    to the most formal rewrite; the label is the row's ``source`` (e.g. tweet). Rows
    with a blank level are skipped (counted).
"""

from __future__ import annotations

import csv
import io
import posixpath
from collections import Counter
from typing import Any

import pandas as pd

from ._files import Tree, file_lines, open_source, source_tree
from ._steb import frame, set_records, smoke_cut
from .text import report_dropped

__all__ = ["CORE_REGISTERS", "read_core", "read_ewave", "read_graded_formality"]

CORE_REGISTERS: dict[str, str] = {
    "CM": "course_materials", "DP": "description_of_a_person",
    "DT": "description_of_a_thing", "EN": "encyclopedia_article",
    "FI": "faq_about_information", "IB": "information_blog",
    "LT": "legal_terms_and_conditions", "OI": "other_information", "RA": "research_article",
    "TR": "technical_report", "HA": "historical_article", "MA": "magazine_article",
    "NE": "news_report_blog", "ON": "other_narrative", "PB": "personal_blog",
    "SR": "sports_report", "SS": "short_story", "TB": "travel_blog",
    "FH": "faq_about_how_to", "HT": "how_to", "OH": "other_how_to", "RE": "recipe",
    "TS": "technical_support", "OL": "other_lyrical", "PO": "poem", "PR": "prayer",
    "SL": "song_lyrics", "DS": "description_with_intent_to_sell", "ED": "editorial",
    "OE": "other_informational_persuasion", "PA": "persuasive_article_or_essay",
    "AD": "advertisement", "AV": "advice", "LE": "letter_to_editor", "OB": "opinion_blog",
    "OO": "other_opinion", "RS": "religious_blogs_sermons", "RV": "reviews",
    "RR": "reader_viewer_responses", "DF": "discussion_forum", "OF": "other_forum",
    "QA": "question_answer_forum", "FS": "formal_speech", "IT": "interview",
    "OS": "other_spoken", "TA": "transcript_of_video_audio", "TV": "tv_movie_script",
}
"""CORE sub-register codes and the reference's names for them (Laippala et al., 2022)."""


def _csv_rows(tree: Tree, name: str, needed: tuple[str, ...], *,
              newline: str | None = "") -> list[dict]:
    """The rows of CSV member ``name``, its line ends read as ``open(newline=newline)``
    reads them (``Tree.text``): ``None`` reads them as text mode does, as an ``open``
    without ``newline=""`` does; ``""`` (the default) keeps them as stored."""
    text = tree.text(name, newline=newline)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in needed if c not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"{tree.label}: {name} lacks the column(s) {missing}; it has "
                         f"{reader.fieldnames}. The file is not in the expected layout.")
    return list(reader)


def read_core(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """CORE documents, one record per sub-register they carry."""
    rows, skipped, lines = [], 0, 0
    for url, sha in spec.source.urls:
        tree = open_source(url, sha)
        for line in file_lines(tree.text(tree.names()[0])):
            if not line:
                continue
            lines += 1
            parts = line.split("\t")
            if len(parts) < 3 or not parts[2].strip():
                skipped += 1
                continue
            rows += [{"text": parts[2], "label": CORE_REGISTERS[code.upper()]}
                     for code in parts[0].split() if code.upper() in CORE_REGISTERS]
    report_dropped(spec.name, skipped, lines, "lines without three fields or with a blank text")
    return smoke_cut(frame(rows), smoke)


def read_ewave(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """eWAVE example sentences labelled by variety of English."""
    trees = {posixpath.basename(u): open_source(u, sha) for u, sha in spec.source.urls}
    examples, languages = trees["examples.csv"], trees["languages.csv"]
    names = {r["ID"]: r["Name"] for r in _csv_rows(languages, languages.names()[0],
                                                   ("ID", "Name"))}
    source = _csv_rows(examples, examples.names()[0], ("Language_ID", "Primary_Text"))
    rows = [{"text": (r["Primary_Text"] or "").strip(), "label": names.get(r["Language_ID"])}
            for r in source]
    rows = [r for r in rows if r["text"] and r["label"] is not None]
    report_dropped(spec.name, len(source) - len(rows), len(source),
                   "examples without text or of an unknown variety")
    counts = Counter(r["label"] for r in rows)
    kept = [r for r in rows if counts[r["label"]] >= 2]
    report_dropped(spec.name, len(rows) - len(kept), len(rows),
                   "examples of varieties with fewer than two examples")
    return smoke_cut(frame(kept), smoke)


_LEVELS = ("input", "level1", "level2", "level3", "level4")


def read_graded_formality(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Graded formality rewrites as ordered sets (informal input first)."""
    tree = source_tree(spec)
    folder = spec.reader_options.get("folder", "")
    names = [n for n in tree.names() if n.endswith(".csv")
             and posixpath.basename(posixpath.dirname(n)) == folder]
    if not names:
        tree.find(f"*{folder}/*.csv", what="CSV file")
    sets, skipped, total = [], 0, 0
    for name in names:
        for row in _csv_rows(tree, name, _LEVELS, newline=None):
            total += 1
            texts = [(row.get(c) or "").strip() for c in _LEVELS]
            if not all(texts):
                skipped += 1
                continue
            label = row["source"] if row.get("source") is not None else "formality"
            sets.append((label.strip(), texts))
    report_dropped(spec.name, skipped, total, "rows with a blank level")
    return set_records(sets, smoke)
