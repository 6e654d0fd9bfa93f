"""Content-controlled training data: the same content in several styles.

A *unit* is one text with a ``content`` id and a ``style`` label; units sharing a
content id say the same thing in different styles. A training example built from them
(:class:`TripletSampler`) is a triplet

- anchor: content ``c`` in style ``s``;
- positive: another content ``c'`` in the same style ``s`` (same style, other content);
- hard negative: the same content ``c`` in another style ``s'`` (same content, other
  style),

so the loss rewards similarity of style and penalises similarity of content — the
STEL-or-Content question. The sources (:data:`CONTENT_SOURCES`) are declared here with
their held-out split; none of their texts occurs in an evaluation dataset (a test checks
this against every lite dataset built from the same corpora):

``bible``
    Seven English Bible versions (ASV, BBE, DARBY, DRA, KJV, WEB, YLT), verse by verse,
    from books that no evaluation set uses: Exodus, Joshua, Judges, Hosea, Galatians
    (the lite Bible sets read Genesis, Ruth, Proverbs, Ecclesiastes, Isaiah, the Gospels,
    Acts, Romans, 1 Corinthians, James and Revelation). Style = version.
``shakespeare``
    Romeo and Juliet, original and modern lines (Xu et al. 2012's held-out play); lines
    that also occur in ``train_plays1and2`` (the file the lite set samples) are removed.
    Style = original / modern.
``asset``
    ASSET's validation split: each original sentence and one of its ten simplifications
    (the lite set reads the test split). Style = original / simplified.
``rules``
    Plain two-sentence units of the authorship training texts (Gutenberg selection,
    inaugural addresses) and their rule-made variants (:mod:`stebkit.train.rules`).
    Style = ``plain`` or the rule's name.

>>> sorted(CONTENT_SOURCES)
['asset', 'bible', 'rules', 'shakespeare']
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from stebkit.datasets.readers.bible import BIBLE_VERSIONS
from stebkit.sources import read_manifest

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CONTENT_SOURCES", "TripletSampler", "load_content_units", "read_parallel_lines"]

CONTENT_SOURCES = {
    "bible": "seven English Bible versions, books used by no evaluation set",
    "shakespeare": "Romeo and Juliet, original and modern (held-out play)",
    "asset": "ASSET validation split, original and simplified",
    "rules": "rule-made variants of the authorship training texts",
}
"""The content-controlled sources and what each contributes."""

TRAINING_BIBLE_VERSIONS = tuple(v for v in BIBLE_VERSIONS if v != "LEB")
"""The Bible versions of the training split: the seven public-domain ones. LEB (Lexham
Press's licence, free use with attribution) is read only because the reference's
``bible_versions`` evaluation set uses all eight
(:data:`stebkit.datasets.readers.bible.BIBLE_VERSIONS`)."""

@cache
def _manifest() -> tuple[tuple[str, str], ...]:
    return read_manifest(Path(__file__).with_name("content_manifest.txt"))


def _files(pattern: str) -> list[tuple[str, Path]]:
    from stebkit.sources import fetch

    rx = re.compile(pattern)
    found = [(u, Path(fetch(u, sha256=s))) for u, s in _manifest() if rx.search(u)]
    if not found:
        raise RuntimeError(f"no training file matches {pattern!r} in content_manifest.txt")
    return found


def read_parallel_lines(paths: Sequence[Path]) -> list[list[str]]:
    """Read line-aligned parallel files; refuse files of different line counts.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a").write_text("x\\ny\\n"); _ = (d / "b").write_text("X\\n")
    >>> read_parallel_lines([d / "a", d / "b"])
    Traceback (most recent call last):
    ...
    ValueError: parallel files are not aligned: a has 2 lines, b has 1 lines
    """
    sides = [Path(p).read_text(encoding="utf-8").splitlines() for p in paths]
    counts = [len(s) for s in sides]
    if len(set(counts)) > 1:
        detail = ", ".join(f"{Path(p).name} has {n} lines"
                           for p, n in zip(paths, counts, strict=True))
        raise ValueError(f"parallel files are not aligned: {detail}")
    return sides


def _norm(text: str) -> str:
    from stebkit.datasets.readers.text import normalise

    return normalise(text)


def _bible_units() -> list[tuple[str, str, str]]:
    from stebkit.datasets.readers.bible import CHAPTER_PATH, read_chapter

    chapters: dict[tuple[str, int], dict[str, dict[int, str]]] = {}
    for url, path in _files(r"/Data/Bibles/"):
        m = CHAPTER_PATH.search(url)
        if m and m["version"] in TRAINING_BIBLE_VERSIONS:
            key = (m["book"], int(m["chapter"]))
            chapters.setdefault(key, {})[m["version"]] = read_chapter(path)
    rows = []
    for (book, ch), by_version in sorted(chapters.items()):
        if set(by_version) != set(TRAINING_BIBLE_VERSIONS):
            raise ValueError(f"Bible {book} {ch}: versions {sorted(by_version)} in the manifest, "
                             f"expected {list(TRAINING_BIBLE_VERSIONS)}")
        verses = set.intersection(*(set(v) for v in by_version.values()))
        for verse in sorted(verses):
            texts = {v: by_version[v][verse] for v in TRAINING_BIBLE_VERSIONS}
            if len(set(texts.values())) < 2:
                continue
            rows.extend((t, f"bible:{book}{ch}:{verse}", v) for v, t in texts.items())
    return rows


def _shakespeare_units() -> list[tuple[str, str, str]]:
    pair = dict(_files(r"romeojuliet_(original|modern)"))
    orig = next(p for u, p in pair.items() if u.endswith("_original.snt.aligned"))
    modern = next(p for u, p in pair.items() if u.endswith("_modern.snt.aligned"))
    evaluation = dict(_files(r"train_plays1and2\.(original|modern)$"))
    seen = set()
    for path in evaluation.values():
        seen.update(_norm(line) for line in path.read_text(encoding="utf-8").splitlines())
    rows = []
    originals, moderns = read_parallel_lines([orig, modern])
    for i, (o, m) in enumerate(zip(originals, moderns, strict=True)):
        o, m = _norm(o), _norm(m)
        if not o or not m or o == m or o in seen or m in seen or len(o.split()) < 4:
            continue
        rows += [(o, f"shakespeare:{i}", "original"), (m, f"shakespeare:{i}", "modern")]
    return rows


def _asset_units() -> list[tuple[str, str, str]]:
    files = dict(_files(r"asset\.valid\.(orig|simp\.\d)$"))
    by_kind = {re.search(r"asset\.valid\.(orig|simp\.\d)$", u).group(1): p
               for u, p in files.items()}
    simp_names = sorted(k for k in by_kind if k.startswith("simp"))
    sides = read_parallel_lines([by_kind["orig"], *(by_kind[k] for k in simp_names)])
    rows = []
    for i, original in enumerate(sides[0]):
        original = _norm(original)
        # One simplification per sentence, chosen by a hash of the sentence (stable).
        k = int(hashlib.sha256(original.encode()).hexdigest(), 16) % len(simp_names)
        simple = _norm(sides[1 + k][i])
        if original and simple and simple != original:
            rows += [(original, f"asset:{i}", "original"), (simple, f"asset:{i}", "simplified")]
    return rows


def _rule_units(seed: int, max_units: int) -> tuple[list[tuple[str, str, str]], dict[str, int]]:
    from stebkit.datasets.readers.text import split_sentences_by_regex

    from .data import load_training_passages
    from .rules import rule_variants

    passages = load_training_passages(max_per_work=40)
    units = []
    for text in passages["text"]:
        sentences = split_sentences_by_regex(text)
        for j in range(0, len(sentences) - 1, 2):
            unit = " ".join(sentences[j:j + 2])
            if 8 <= len(unit.split()) <= 60:
                units.append(unit)
    rng = np.random.default_rng(seed)
    if len(units) > max_units:
        units = [units[i] for i in sorted(rng.choice(len(units), max_units, replace=False))]
    frame, unchanged = rule_variants(units, seed=seed)
    return list(frame.itertuples(index=False, name=None)), unchanged


@dataclass
class ContentReport:
    """What :func:`load_content_units` read: units per source, texts a rule left
    unchanged, and units dropped per source because another style of the same content
    reads identically."""

    units: dict[str, int]
    unchanged_by_rule: dict[str, int]
    dropped_identical: dict[str, int]


def load_content_units(sources: Sequence[str] | None = None, *, seed: int = 42,
                       max_rule_units: int = 3000) -> tuple[pd.DataFrame, ContentReport]:
    """The content-controlled training units as a DataFrame.

    Parameters
    ----------
    sources : sequence of str, optional
        Names from :data:`CONTENT_SOURCES` (default: all).
    seed : int
        Seeds the choice of rule units and the rules that draw.
    max_rule_units : int
        Plain units drawn from the authorship texts for the rules.

    Returns
    -------
    (pandas.DataFrame, ContentReport)
        Columns ``text, content, style, source``; every content id has two or more
        styles, all with distinct texts. The report counts units per source, per rule
        the texts it left unchanged (those give no pair), and the units dropped because
        another style of their content reads identically.

    Examples
    --------
    >>> units, report = load_content_units(["asset"])
    >>> sorted(units["style"].unique()), report.units["asset"] == len(units)
    (['original', 'simplified'], True)
    """
    import pandas as pd

    names = list(CONTENT_SOURCES) if sources is None else list(sources)
    unknown = [n for n in names if n not in CONTENT_SOURCES]
    if unknown:
        raise ValueError(f"unknown content source(s) {unknown}; choose from "
                         f"{list(CONTENT_SOURCES)}")
    frames, counts, unchanged, dropped = [], {}, {}, {}
    for name in names:
        if name == "rules":
            rows, unchanged = _rule_units(seed, max_rule_units)
        else:
            rows = {"bible": _bible_units, "shakespeare": _shakespeare_units,
                    "asset": _asset_units}[name]()
        frame = pd.DataFrame(rows, columns=["text", "content", "style"])
        frame, dropped[name] = _distinct_styles(frame)
        frame["source"] = name
        counts[name] = len(frame)
        frames.append(frame)
    units = pd.concat(frames, ignore_index=True)
    return units, ContentReport(units=counts, unchanged_by_rule=unchanged,
                                dropped_identical=dropped)


def _distinct_styles(frame: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The units of a source less those whose text another style of their content shares
    and those left with no other style, and how many were dropped."""
    # Two styles that read identically (e.g. two Bible versions agreeing on a verse)
    # would make a pair of identical texts: both are dropped, and counted.
    twins = frame.duplicated(["content", "text"], keep=False)
    frame = frame[~twins]
    alone = frame.groupby("content")["text"].transform("size") < 2
    return frame[~alone].reset_index(drop=True), int(twins.sum() + alone.sum())


class TripletSampler:
    """Deterministic (anchor, positive, negative) triplets of content-controlled units.

    The triplets of step ``s`` depend only on ``(seed, s)``. An anchor is drawn
    uniformly over sources, then over its source's contents and styles; its positive
    is another content of the same source in the same style, its negative the same
    content in another style. With ``style_weights``, a unit whose style has weight ``w``
    (1 when not named) is drawn ``w`` times as often as anchor within its source and as
    negative within its content: small edits weighted up become frequent, hard negatives.

    >>> import pandas as pd
    >>> u = pd.DataFrame({"content": ["a", "a", "b", "b"], "style": ["x", "y", "x", "y"],
    ...                   "source": ["s"] * 4, "text": ["a1", "a2", "b1", "b2"]})
    >>> anc, pos, neg = TripletSampler(u, batch_size=2, seed=0).batch(0)
    >>> bool(all(u["style"][anc].values == u["style"][pos].values))
    True
    >>> bool(all(u["content"][anc].values == u["content"][neg].values))
    True
    """

    def __init__(self, units: pd.DataFrame, *, batch_size: int, seed: int = 42,
                 style_weights: Mapping[str, float] | None = None) -> None:
        missing = [c for c in ("content", "style", "source") if c not in units.columns]
        if missing:
            raise ValueError(f"content units lack column(s) {missing}")
        self.batch_size, self.seed = int(batch_size), int(seed)
        content = units["content"].to_numpy(dtype=object).astype(str)
        style = units["style"].to_numpy(dtype=object).astype(str)
        source = units["source"].to_numpy(dtype=object).astype(str)
        self.style = style
        self.by_content: dict[str, np.ndarray] = {}
        for i, c in enumerate(content):
            self.by_content.setdefault(c, []).append(i)
        self.by_content = {c: np.array(v) for c, v in self.by_content.items()}
        self.by_source_style: dict[tuple[str, str], np.ndarray] = {}
        for i, (src, sty) in enumerate(zip(source, style, strict=True)):
            self.by_source_style.setdefault((src, sty), []).append(i)
        self.by_source_style = {k: np.array(v) for k, v in self.by_source_style.items()}
        usable = [i for i in range(len(units))
                  if len(np.unique(style[self.by_content[content[i]]])) > 1
                  and len(self.by_source_style[(source[i], style[i])]) > 1]
        self.anchors_by_source = {}
        for i in usable:
            self.anchors_by_source.setdefault(source[i], []).append(i)
        if not self.anchors_by_source:
            raise ValueError("no content unit has both another style of its content and "
                             "another content in its style; check the content sources")
        self.sources = sorted(self.anchors_by_source)
        self.anchors_by_source = {k: np.array(v) for k, v in self.anchors_by_source.items()}
        self.content, self.source = content, source
        weights = dict(style_weights or {})
        self.weight = np.array([float(weights.get(s, 1.0)) for s in style]) if weights \
            else None

    def _draw(self, rng: np.random.Generator, pool: np.ndarray) -> int:
        """One of ``pool``: uniform, or in proportion to the style weights."""
        if self.weight is None:
            return int(pool[rng.integers(len(pool))])
        w = self.weight[pool]
        return int(pool[rng.choice(len(pool), p=w / w.sum())])

    def batch(self, step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Indices of the anchors, positives and negatives of step ``step``."""
        rng = np.random.default_rng([self.seed, step, 7])
        anchors, positives, negatives = [], [], []
        for _ in range(self.batch_size):
            src = self.sources[rng.integers(len(self.sources))]
            pool = self.anchors_by_source[src]
            a = self._draw(rng, pool)
            same_style = self.by_source_style[(src, self.style[a])]
            same_style = same_style[self.content[same_style] != self.content[a]]
            same_content = self.by_content[self.content[a]]
            same_content = same_content[self.style[same_content] != self.style[a]]
            anchors.append(a)
            positives.append(int(same_style[rng.integers(len(same_style))]))
            negatives.append(self._draw(rng, same_content))
        return np.array(anchors), np.array(positives), np.array(negatives)
