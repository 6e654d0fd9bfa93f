"""STEB catalogue datasets whose sources are public files on GitHub, read as the
reference's loaders read them.

Every source is pinned to one commit (``raw.githubusercontent.com/<owner>/<repo>/<commit>/
<path>``), so each URL always names the same bytes; the sha256 and size are recorded
at the first download and checked on every later read (:mod:`stebkit.sources`).
Lines are read as Python's text mode reads them (``\\r\\n`` and ``\\r`` become ``\\n``,
a line ends only at ``\\n``) and stripped, as the reference does.

STEL (``read_stel``, ``STEL_feature`` and ``STEL_register``)
    The TSV files of ``Data/STEL/characteristics`` then ``Data/STEL/dimensions`` (each
    folder in name order), read with :mod:`csv` (tab-separated, ``"`` quoting). A row
    gives up to two ordered pairs: the anchors and the alternatives, each put in
    ``[more of the style, less of it]`` order by decoding the row's ``ID``
    (``QQ_<anchor ids>_<alternative ids>--<n>``; the prefix of each part says which
    side has the style: ``f-``/``i-`` formality, ``s-``/``c-``/``x-`` simplicity,
    ``...ction-``/``wiki-`` contraction, ``emote``/``emoji`` emotives, ``leet-``/``norm-``
    number substitution). Rows with an empty text or an ID that does not decode give
    no pair; ``em-subj-pronoun`` rows are left out; a pair already seen for the same
    style type is dropped (counted). Label: the lower-cased ``style type``;
    ``reader_options["styles"]`` keeps the group's types.
Parallel Shakespeare (``read_parallel_shakespeare``)
    ``<play>_original.snt.aligned`` with ``<play>_modern.snt.aligned`` (plays in name
    order, line i with line i; a line-count mismatch is an error naming the play).
    Pairs with an empty side, or whose sides are equal after lower-casing and collapsing
    whitespace, are dropped (counted). ``[original, modern]``, label ``shakespeare``.
OneStopEnglish (``read_onestop``)
    ``Adv-Txt``, ``Int-Txt/Int-Txt`` and ``Ele-Txt`` files matched on the article name
    (articles in name order), read as UTF-8 with an optional byte-order mark; line i
    of the three files is one set ``[advanced, intermediate, elementary]``, label
    ``complexity``. Sets with a missing or empty line are dropped (counted); a file that
    is not UTF-8 contributes no lines (counted, as the reference skips it).
DetectRL (``read_detectrl``)
    A JSON list of ``{text, label, llm_type}``. ``reader_options["labels"]``:
    ``"generator"`` (``human``, else the ``llm_type``: multi-domain and direct-prompt
    sets) or ``"binary"`` (``human``/``llm``: the attack sets). Rows without a text,
    and (binary) with another label, are dropped (counted).
Bible versions (``read_bible_versions``)
    ``Data/Bibles/<VERSION>/<Book>/<Book><chapter>.txt`` of eight translations, one
    ``<verse> <text>`` per line (undecodable bytes replaced; lines without a numeric
    verse are skipped). Only references ``(book, chapter, verse)`` present in all
    eight are kept, in sorted order, minus those where two translations read the same
    after lower-casing and collapsing whitespace (counted); the references are then
    shuffled with ``random.Random(42)`` and each yields eight records (label = the
    version, in the order ASV BBE DARBY DRA KJV LEB WEB YLT). Version followed: the
    reference's loader with the collision filter and the seeded shuffle (as at its
    commit 0b0e62c); its earlier version (e.g. commit 626a506) kept every common
    reference, in sorted order, unshuffled.
ASSET (``read_asset``)
    ``dataset/asset.{valid,test}.orig`` with ``.simp.0`` ... ``.simp.9`` (the files the
    Hub's ``facebook/asset`` config ``simplification`` is built from; validation then
    test, line-aligned, every line stripped). Per original, the simplification at index
    ``int(sha256(original)) % 10`` is paired with it: ``[simplification, original]``,
    label ``simple``. Rows with an empty original or an empty chosen simplification are
    dropped (counted).
Stanford politeness (``read_politeness_csv``)
    The reference reads ConvoKit's ``wikipedia-politeness-corpus`` and
    ``stack-exchange-politeness-corpus`` (``utterances.jsonl``, label from the
    utterance's ``meta.Binary``: 1 polite, 0 neutral, -1 impolite). Those corpora are
    built from the same annotated requests as ``corpora/<site>.annotated.csv`` of
    ``sudhof/politeness``, which is what is read here: the ``Request`` texts in file
    order, labelled with the paper's rule behind ``Binary`` (Danescu-Niculescu-Mizil et
    al., 2013): the top quartile of ``Normalized Score`` within the site is ``polite``,
    the bottom quartile ``impolite``, the rest ``neutral``. How it differs: the
    quartile cut points are computed here (inclusive, linear interpolation), so
    requests at a boundary score may be labelled differently from ConvoKit's ``Binary``,
    and the record order is the CSV's, not ConvoKit's utterance order.
    ``read_convokit_politeness`` reads ConvoKit's own zip exactly as the reference does
    (``<corpus>/utterances.jsonl`` read in place; blank texts and a missing or
    non-integer ``Binary`` skipped, counted): give a spec with
    :data:`CONVOKIT_POLITENESS_URLS` as its source to follow the reference online.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import random
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._steb import frame, parallel_rows, smoke_cut
from .text import decode, report_dropped, require_columns, spec_files

__all__ = ["ASSET_URLS", "BIBLE_VERSIONS", "DETECTRL_URLS", "ONESTOP_URLS",
           "CONVOKIT_POLITENESS_URLS", "POLITENESS_URLS", "SHAKESPEARE_URLS", "STEL_URLS",
           "bible_urls", "read_asset", "read_bible_versions", "read_convokit_politeness",
           "read_detectrl", "read_onestop",
           "read_parallel_shakespeare", "read_politeness_csv", "read_stel", "text_lines"]

_RAW = "https://raw.githubusercontent.com"
_STEL = f"{_RAW}/nlpsoc/STEL/e52f0521df53bd57c9ecafda16e7f2d6966a9993/Data/STEL"
_SHAKESPEARE = (f"{_RAW}/cocoxu/Shakespeare/ced63d473620e0f301ff87fbe14bdd99d5d9b2c4"
                f"/data/align/plays/merged")
_ONESTOP = (f"{_RAW}/nishkalavallabhi/OneStopEnglishCorpus/"
            f"37f8db3945cd2f3cc0caafe45674147b224349be/Texts-SeparatedByReadingLevel")
_DETECTRL = (f"{_RAW}/NLP2CT/DetectRL/3472f0ae3cc81133c821e901f6d5c8f79c60dd23/"
             f"Benchmark/Benchmark_Data")
_BIBLE = (f"{_RAW}/keithecarlson/StyleTransferBibleData/"
          f"1c6c8eec242d496c40531d740cd0d57f5f195d05/Data/Bibles")
_ASSET = f"{_RAW}/facebookresearch/asset/9d659040d0d8942dbc4cd65cf357563b43fd9ab4/dataset"
_POLITENESS = f"{_RAW}/sudhof/politeness/0449a15089479ee94ecad6b1698e8f3a2e5637ce/corpora"

STEL_URLS = tuple(f"{_STEL}/{name}" for name in (
    "characteristics/quad_questions_char_contraction.tsv",
    "characteristics/quad_questions_char_emotives.tsv",
    "characteristics/quad_questions_char_substitution.tsv",
    "characteristics/quad_questions_em-subj-pronoun_100.tsv",
    "dimensions/quad_stel-dimension_formal-100_sample.tsv",
    "dimensions/quad_stel-dimension_simple-100_sample.tsv"))
"""The TSV files of ``Data/STEL`` (characteristics, then dimensions, in name order)."""

_PLAYS = ("antony-and-cleopatra", "asyoulikeit", "errors", "hamlet", "henryv",
          "juliuscaesar", "lear", "macbeth", "merchant", "msnd", "muchado", "othello",
          "richardiii", "romeojuliet", "shrew", "tempest", "twelfthnight")
SHAKESPEARE_URLS = tuple(f"{_SHAKESPEARE}/{play}_{side}.snt.aligned"
                         for play in _PLAYS for side in ("original", "modern"))

_ONESTOP_LEVELS = (("Adv-Txt", "adv"), ("Int-Txt/Int-Txt", "int"), ("Ele-Txt", "ele"))
_ONESTOP_LIST = Path(__file__).with_name("onestop_articles.txt")


def _onestop_urls() -> tuple[str, ...]:
    names = [n for n in _ONESTOP_LIST.read_text(encoding="utf-8").splitlines() if n]
    return tuple(f"{_ONESTOP}/{folder}/{name}-{suffix}.txt"
                 for folder, suffix in _ONESTOP_LEVELS for name in names)


ONESTOP_URLS = _onestop_urls()

DETECTRL_URLS = {
    "arxiv": f"{_DETECTRL}/Multi_Domain/multi_domains_arxiv_test.json",
    "writing_prompt": f"{_DETECTRL}/Multi_Domain/multi_domains_writing_prompt_test.json",
    "xsum": f"{_DETECTRL}/Multi_Domain/multi_domains_xsum_test.json",
    "yelp_review": f"{_DETECTRL}/Multi_Domain/multi_domains_yelp_review_test.json",
    "direct_prompt": f"{_DETECTRL}/Direct_Prompt/direct_prompt_test.json",
    "paraphrase": f"{_DETECTRL}/Paraphrase_Attacks/paraphrase_attacks_llm_test.json",
    "perturbation": f"{_DETECTRL}/Perturbation_Attacks/perturbation_attacks_llm_test.json",
    "prompt": f"{_DETECTRL}/Prompt_Attacks/prompt_attacks_llm_test.json",
}

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


ASSET_URLS = tuple(f"{_ASSET}/asset.{split}.{part}" for split in ("valid", "test")
                   for part in ("orig", *(f"simp.{i}" for i in range(10))))
POLITENESS_URLS = {site: f"{_POLITENESS}/{site}.annotated.csv"
                   for site in ("wikipedia", "stack-exchange")}
CONVOKIT_POLITENESS_URLS = {
    site: f"https://zissou.infosci.cornell.edu/convokit/datasets/{slug}/{slug}.zip"
    for site, slug in (("wikipedia", "wikipedia-politeness-corpus"),
                       ("stack-exchange", "stack-exchange-politeness-corpus"))}


# ----------------------------------------------------------------------------- helpers

def text_lines(text: str) -> list[str]:
    """The lines Python's text mode yields for ``text``, each stripped.

    ``\\r\\n`` and ``\\r`` end lines like ``\\n``; no other character does (unlike
    :meth:`str.splitlines`), and a final newline adds no empty line.

    >>> text_lines("a \\r\\nb\\u2028c\\n\\n")
    ['a', 'b\\u2028c', '']
    """
    parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if parts[-1] == "":
        parts.pop()
    return [p.strip() for p in parts]


def _files(spec: Any) -> dict[str, Path]:
    return spec_files(spec)


def _read(path: Path, url: str, encoding: str = "utf-8") -> str:
    return decode(Path(path).read_bytes(), url, encoding)


def _collapse(text: str) -> str:
    return " ".join(text.lower().split())


# ------------------------------------------------------------------------------- STEL

def _stel_parts(ids: str, style: str) -> list[str]:
    """The two sentence ids of one side of a STEL ``ID`` (as many as are found)."""
    ids = ids.lower().strip()
    if style == "contraction":
        if "ction-" not in ids or "wiki-" not in ids:
            return []
        lo, hi = sorted((ids.find("ction-"), ids.find("wiki-")))
        return [ids[lo:hi].rstrip("-"), ids[hi:]]
    if style == "emotives":
        starts = sorted(ids.find(p) for p in ("emote", "emoji") if p in ids)
        ends = [*starts[1:], len(ids)]
        return [ids[a:b].strip("-").strip("_") for a, b in zip(starts, ends, strict=True)]
    prefixes = {"formality": ("i", "f"), "simplicity": ("s", "c", "x")}.get(style)
    if prefixes is None:
        if "substitution" not in style:
            return []
        prefixes = ("leet", "norm")
    parts, current = [], []
    for piece in filter(None, (p.strip() for p in ids.split("-"))):
        if piece.startswith(prefixes) and current:
            parts.append("-".join(current))
            current = []
        current.append(piece)
    if current:
        parts.append("-".join(current))
    return parts


def _stel_position(part: str, style: str) -> int | None:
    """0 when the sentence id names the side with more of the style, 1 for less."""
    part = part.lower().strip()
    if style == "formality":
        sides = (("f-",), ("i-",))
    elif style == "simplicity":
        sides = (("s-",), ("x-", "c-"))
    elif style == "contraction":
        if "ction-" in part:
            return 0 if re.search(r"ction-(.+)", part) else None
        return 1 if part.startswith("wiki-") else None
    elif style == "emotives":
        sides = (("emote",), ("emoji",))
    elif "substitution" in style:
        sides = (("leet-",), ("norm-",))
    else:
        return None
    for position, marks in enumerate(sides):
        if part.startswith(marks):
            return position
    return None


def _stel_pairs(row: dict[str, Any], style: str) -> list[tuple[str, str]]:
    """The ordered ``(more, less)`` pairs of one quadruple row (0, 1 or 2)."""
    cells = {k: (row.get(k) or "").strip() for k in
             ("Anchor 1", "Anchor 2", "Alternative 1.1", "Alternative 1.2", "ID")}
    if not all(cells.values()):
        return []
    m = re.match(r"QQ_([^_]+)_([^_]+)", cells["ID"])
    if not m:
        return []
    pairs = []
    for ids, first, second in ((m.group(1), cells["Anchor 1"], cells["Anchor 2"]),
                               (m.group(2), cells["Alternative 1.1"],
                                cells["Alternative 1.2"])):
        parts = _stel_parts(ids, style)
        if len(parts) != 2:
            continue
        where = [_stel_position(p, style) for p in parts]
        if None in where:
            continue
        pairs.append((first, second) if where[0] == 0 else (second, first))
    return pairs


def read_stel(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """STEL ordered pairs of the style types ``reader_options["styles"]``."""
    del seed
    keep = set(spec.reader_options["styles"])
    seen: dict[str, set[tuple[str, str]]] = {}
    sets: list[tuple[str, Sequence[str]]] = []
    rows = no_pair = duplicates = 0
    for url, path in _files(spec).items():
        text = _read(path, url).replace("\r\n", "\n").replace("\r", "\n")
        reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t")
        require_columns(reader.fieldnames or [], ("Anchor 1", "Anchor 2", "Alternative 1.1",
                                                  "Alternative 1.2", "ID", "style type"), url)
        for row in reader:
            style = (row.get("style type") or "").strip().lower()
            if not style or "em-subj-pronoun" in style or "em_subj_pronoun" in style:
                continue
            rows += style in keep
            pairs = _stel_pairs(row, style)
            no_pair += style in keep and not pairs
            for pair in pairs:
                if pair in seen.setdefault(style, set()):
                    duplicates += style in keep
                    continue
                seen[style].add(pair)
                if style in keep:
                    sets.append((style, pair))
    report_dropped(spec.name, no_pair, rows, "rows whose ID gives no ordered pair")
    report_dropped(spec.name, duplicates, len(sets) + duplicates,
                   "pairs already seen for the same style type")
    return smoke_cut(frame(parallel_rows(sets), ("text", "label", "group", "position")),
                     smoke)


# ------------------------------------------------------------------ parallel Shakespeare

def read_parallel_shakespeare(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """``[original, modern]`` line pairs of every play (see the module docstring)."""
    del seed
    files = _files(spec)
    originals = sorted(u for u in files if u.endswith("_original.snt.aligned"))
    if not originals:
        raise ValueError(f"dataset {spec.name!r}: no '*_original.snt.aligned' source file")
    sets, total = [], 0
    for url in originals:
        modern_url = url[: -len("_original.snt.aligned")] + "_modern.snt.aligned"
        if modern_url not in files:
            raise ValueError(f"dataset {spec.name!r}: {url} has no modern counterpart "
                             f"({modern_url})")
        original = text_lines(_read(files[url], url))
        modern = text_lines(_read(files[modern_url], modern_url))
        if len(original) != len(modern):
            raise ValueError(f"{url}: {len(original)} lines, but {modern_url} has "
                             f"{len(modern)}; the two files must be line-aligned")
        total += len(original)
        sets += [("shakespeare", (o, m)) for o, m in zip(original, modern, strict=True)
                 if o and m and _collapse(o) != _collapse(m)]
    report_dropped(spec.name, total - len(sets), total,
                   "line pairs with an empty side or no change beyond case and spacing")
    return smoke_cut(frame(parallel_rows(sets), ("text", "label", "group", "position")),
                     smoke)


# ----------------------------------------------------------------------- OneStopEnglish

def _article(url: str) -> tuple[str, str]:
    """``(level folder, article name)`` of a OneStopEnglish file URL."""
    path = url[len(_ONESTOP) + 1:] if url.startswith(_ONESTOP) else url
    folder, _, name = path.rpartition("/")
    lower = name.lower()
    for suffix in ("-adv.txt", "-int.txt", "-ele.txt"):
        if lower.endswith(suffix):
            return folder, name[: -len(suffix)]
    return folder, name.rsplit(".", 1)[0]


def read_onestop(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """``[advanced, intermediate, elementary]`` line sets (see the module docstring)."""
    del seed
    by_level: dict[str, dict[str, tuple[str, Path]]] = {f: {} for f, _ in _ONESTOP_LEVELS}
    for url, path in _files(spec).items():
        folder, name = _article(url)
        if folder in by_level:
            by_level[folder][name] = (url, path)
    names = sorted(set.intersection(*(set(v) for v in by_level.values())))
    if not names:
        raise ValueError(f"dataset {spec.name!r}: no article has all three levels")
    sets, total, undecodable = [], 0, 0
    for name in names:
        levels = []
        for folder, _ in _ONESTOP_LEVELS:
            url, path = by_level[folder][name]
            try:
                levels.append(text_lines(Path(path).read_bytes().decode("utf-8-sig")))
            except UnicodeDecodeError:
                undecodable += 1
                levels.append([])
        n = max(len(lines) for lines in levels)
        total += n
        for i in range(n):
            triple = [lines[i] if i < len(lines) else "" for lines in levels]
            if all(triple):
                sets.append(("complexity", triple))
    report_dropped(spec.name, undecodable, 3 * len(names), "files that are not UTF-8")
    report_dropped(spec.name, total - len(sets), total,
                   "line sets with a missing or empty line")
    return smoke_cut(frame(parallel_rows(sets), ("text", "label", "group", "position")),
                     smoke)


# ------------------------------------------------------------------------------ DetectRL

def read_detectrl(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """DetectRL test records labelled by generator or human/llm (module docstring)."""
    del seed
    [(url, path)] = _files(spec).items()
    try:
        data = json.loads(_read(path, url))
    except json.JSONDecodeError as err:
        raise ValueError(f"{url} line {err.lineno} is not valid JSON ({err.msg}); the file "
                         f"is damaged or truncated: delete it to download it again") from None
    if not isinstance(data, list):
        raise ValueError(f"{url}: expected a JSON list of records, got "
                         f"{type(data).__name__}")
    binary = spec.reader_options["labels"] == "binary"
    rows = []
    for i, row in enumerate(data):
        if not isinstance(row, dict):
            raise ValueError(f"{url}: record {i} is a {type(row).__name__}, expected an "
                             f"object with 'text' and 'label'")
        text = row.get("text")
        if not text or not isinstance(text, str):
            continue
        if binary:
            label = row.get("label")
            if label not in ("human", "llm"):
                continue
        else:
            label = "human" if row.get("label") == "human" else row.get("llm_type", "llm")
            if label is None:
                continue
        rows.append({"text": text, "label": str(label)})
    report_dropped(spec.name, len(data) - len(rows), len(data),
                   "records without a text" + (" or a human/llm label" if binary else
                                               " or generator"))
    return smoke_cut(frame(rows), smoke)


# ----------------------------------------------------------------------- Bible versions

def _chapter(text: str) -> dict[int, str]:
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


def read_bible_versions(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Verse-aligned records of the eight translations (see the module docstring)."""
    del seed  # the reference's order uses its own fixed seed, 42
    versions = tuple(spec.reader_options.get("versions", BIBLE_VERSIONS))
    verses: dict[str, dict[tuple[str, int, int], str]] = {v: {} for v in versions}
    for url, path in _files(spec).items():
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
                if len({_collapse(verses[v][ref]) for v in versions}) == len(versions)]
    report_dropped(spec.name, len(common) - len(distinct), len(common),
                   "verses where two translations read the same")
    random.Random(42).shuffle(distinct)
    if smoke:
        distinct = distinct[:20]
    rows = [{"text": verses[v][ref], "label": v} for ref in distinct for v in versions]
    return frame(rows)


# --------------------------------------------------------------------------------- ASSET

def read_asset(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """``[simplification, original]`` pairs (see the module docstring)."""
    del seed
    files = _files(spec)
    sets, total = [], 0
    for split in ("valid", "test"):
        columns = []
        for part in ("orig", *(f"simp.{i}" for i in range(10))):
            url = next((u for u in files if u.endswith(f"/asset.{split}.{part}")), None)
            if url is None:
                raise ValueError(f"dataset {spec.name!r}: no source file asset.{split}.{part}")
            columns.append(text_lines(_read(files[url], url)))
        for original, *simplifications in zip(*columns, strict=False):
            total += 1
            if not original:
                continue
            digest = int(hashlib.sha256(original.encode("utf-8")).hexdigest(), 16)
            chosen = simplifications[digest % len(simplifications)]
            if chosen:
                sets.append(("simple", (chosen, original)))
    report_dropped(spec.name, total - len(sets), total,
                   "rows with an empty original or chosen simplification")
    return smoke_cut(frame(parallel_rows(sets), ("text", "label", "group", "position")),
                     smoke)


# --------------------------------------------------------------------------- politeness

def read_politeness_csv(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Requests labelled polite / neutral / impolite by score quartile (module docstring)."""
    del seed
    [(url, path)] = _files(spec).items()
    text = _read(path, url)
    try:
        raw = pd.read_csv(io.StringIO(text), dtype={"Request": str}, keep_default_na=False)
    except pd.errors.ParserError as err:
        raise ValueError(f"{url}: not a readable CSV ({err})") from None
    require_columns(raw.columns, ("Request", "Normalized Score"), url)
    score = pd.to_numeric(raw["Normalized Score"], errors="coerce")
    if score.isna().any():
        line = int(score.isna().to_numpy().nonzero()[0][0]) + 2
        raise ValueError(f"{url} line {line}: 'Normalized Score' is not a number")
    low, high = np.percentile(score.to_numpy(), [25, 75])
    labels = np.where(score >= high, "polite", np.where(score <= low, "impolite", "neutral"))
    keep = raw["Request"].map(lambda t: isinstance(t, str) and bool(t.strip())).to_numpy()
    report_dropped(spec.name, int((~keep).sum()), len(raw), "requests with an empty text")
    out = pd.DataFrame({"text": raw["Request"][keep], "label": labels[keep]})
    return smoke_cut(out.reset_index(drop=True), smoke)


_BINARY = {1: "polite", 0: "neutral", -1: "impolite"}


def read_convokit_politeness(spec: Any, *, seed: int = 42,
                             smoke: bool = False) -> pd.DataFrame:
    """Utterances of a ConvoKit politeness corpus zip, labelled by ``meta.Binary``."""
    from ._files import json_lines, source_tree

    del seed
    tree = source_tree(spec)
    member = tree.find("*utterances.jsonl", what="utterances.jsonl")
    where = f"{tree.label} -> {member}"
    utterances = json_lines(tree.text(member), where)
    rows = []
    for utterance in utterances:
        if not isinstance(utterance, dict):
            raise ValueError(f"{where}: an utterance is a {type(utterance).__name__}, "
                             f"expected a JSON object")
        text = utterance.get("text", "")
        binary = (utterance.get("meta") or {}).get("Binary")
        if not isinstance(text, str) or not text.strip() or not isinstance(binary, int) \
                or binary not in _BINARY:
            continue
        rows.append({"text": text, "label": _BINARY[binary]})
    if not rows:
        raise ValueError(f"{where}: no utterance with a text and a Binary label")
    report_dropped(spec.name, len(utterances) - len(rows), len(utterances),
                   "utterances without a text or a -1/0/1 Binary label")
    return smoke_cut(frame(rows), smoke)
