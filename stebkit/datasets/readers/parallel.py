"""Line-aligned parallel corpora: ASSET, Shakespeare and OneStopEnglish.

Line *i* of every file of a set says the same thing in another style. ``sampling="all"``
(the STEB catalogue) reads every line as the reference's loaders do: lines as Python's
text mode reads them (``\\r\\n`` and ``\\r`` become ``\\n``, a line ends only at
``\\n``), stripped. ``sampling="seeded"`` (the lite suite) reads normalised lines
(:func:`read_lines`) and draws ``reader_options["sequences"]`` (smoke:
``smoke_sequences``) with the seed.

ASSET (:func:`read_asset`; facebookresearch/asset ``dataset/asset.<split>.orig`` and
``.simp.0`` ... ``.simp.9``)
    ``"all"``: validation then test (the files the Hub's ``facebook/asset`` config
    ``simplification`` is built from). Per original, the simplification at index
    ``int(sha256(original)) % 10`` is paired with it: ``[simplification, original]``,
    label ``simple``. Rows with an empty original or an empty chosen simplification are
    dropped (counted). ``"seeded"``: the ``reader_options["split"]`` files; each sampled
    original becomes ``[simplification, original]`` (position 0 = simpler), the
    simplification drawn with the seed from the ten, as in the reference.
Shakespeare (:func:`read_shakespeare`; cocoxu/Shakespeare ``data/align``)
    ``"all"``: ``plays/merged/<play>_original.snt.aligned`` with
    ``<play>_modern.snt.aligned`` (plays in name order, line i with line i; a line-count
    mismatch is an error naming the play). Pairs with an empty side, or whose sides are
    equal after lower-casing and collapsing whitespace, are dropped (counted).
    ``[original, modern]``, label ``shakespeare``. ``"seeded"``:
    ``train_plays1and2.{original,modern}``; a sequence is ``[original, modern]``
    (position 0 = Early Modern English). Pairs whose two sides are identical after
    whitespace normalisation say nothing about style and are dropped (reported); so are
    pairs under ``min_words`` words, at most ``max_words``.
OneStopEnglish (:func:`read_onestop`, every line)
    ``Adv-Txt``, ``Int-Txt/Int-Txt`` and ``Ele-Txt`` files matched on the article name
    (articles in name order), read as UTF-8 with an optional byte-order mark; line i
    of the three files is one set ``[advanced, intermediate, elementary]``, label
    ``complexity``. Sets with a missing or empty line are dropped (counted); a file that
    is not UTF-8 contributes no lines (counted, as the reference skips it).

Files of a set must have the same number of lines; otherwise the error names them.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ._records import is_seeded, sequences
from ._steb import set_records
from .text import (
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

__all__ = ["ASSET_URLS", "ONESTOP_URLS", "SHAKESPEARE_URLS", "read_aligned", "read_asset",
           "read_lines", "read_onestop", "read_shakespeare"]

_RAW = "https://raw.githubusercontent.com"
_SHAKESPEARE = (f"{_RAW}/cocoxu/Shakespeare/ced63d473620e0f301ff87fbe14bdd99d5d9b2c4"
                f"/data/align/plays/merged")
_ONESTOP = (f"{_RAW}/nishkalavallabhi/OneStopEnglishCorpus/"
            f"37f8db3945cd2f3cc0caafe45674147b224349be/Texts-SeparatedByReadingLevel")
_ASSET = f"{_RAW}/facebookresearch/asset/9d659040d0d8942dbc4cd65cf357563b43fd9ab4/dataset"

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

ASSET_URLS = tuple(f"{_ASSET}/asset.{split}.{part}" for split in ("valid", "test")
                   for part in ("orig", *(f"simp.{i}" for i in range(10))))


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


def read_asset(spec: Any, *, seed: int = 42, smoke: bool = False,
               sampling: str) -> pd.DataFrame:
    """ASSET ``[simplification, original]`` records of every line (``sampling="all"``) or
    of seeded lines (``"seeded"``; ``reader_options``: ``split``, ``sequences``)."""
    if is_seeded(sampling, spec.name):
        return _seeded_asset(spec, seed, smoke)
    return _all_asset(spec, smoke)


def _all_asset(spec: Any, smoke: bool) -> pd.DataFrame:
    """``[simplification, original]`` pairs of every line (see the module docstring)."""
    files = spec_files(spec)
    sets, total = [], 0
    for split in ("valid", "test"):
        columns = []
        for part in ("orig", *(f"simp.{i}" for i in range(10))):
            url = next((u for u in files if u.endswith(f"/asset.{split}.{part}")), None)
            if url is None:
                raise ValueError(f"dataset {spec.name!r}: no source file asset.{split}.{part}")
            columns.append(text_lines(read_text(files[url], name=url)))
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
    return set_records(sets, smoke)


def _seeded_asset(spec: Any, seed: int, smoke: bool) -> pd.DataFrame:
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


def read_shakespeare(spec: Any, *, seed: int = 42, smoke: bool = False,
                     sampling: str) -> pd.DataFrame:
    """Shakespeare ``[original, modern]`` records: every line pair of every play
    (``sampling="all"``) or seeded pairs of ``train_plays1and2`` (``"seeded"``;
    ``reader_options``: ``sequences``, ``min_words``, ``max_words``)."""
    if is_seeded(sampling, spec.name):
        return _seeded_shakespeare(spec, seed, smoke)
    return _all_shakespeare(spec, smoke)


def _all_shakespeare(spec: Any, smoke: bool) -> pd.DataFrame:
    """``[original, modern]`` line pairs of every play (see the module docstring)."""
    files = spec_files(spec)
    originals = sorted(u for u in files if u.endswith("_original.snt.aligned"))
    if not originals:
        raise ValueError(f"dataset {spec.name!r}: no '*_original.snt.aligned' source file")
    sets, total = [], 0
    for url in originals:
        modern_url = url[: -len("_original.snt.aligned")] + "_modern.snt.aligned"
        if modern_url not in files:
            raise ValueError(f"dataset {spec.name!r}: {url} has no modern counterpart "
                             f"({modern_url})")
        original = text_lines(read_text(files[url], name=url))
        modern = text_lines(read_text(files[modern_url], name=modern_url))
        if len(original) != len(modern):
            raise ValueError(f"{url}: {len(original)} lines, but {modern_url} has "
                             f"{len(modern)}; the two files must be line-aligned")
        total += len(original)
        sets += [("shakespeare", (o, m)) for o, m in zip(original, modern, strict=True)
                 if o and m and folded(o) != folded(m)]
    report_dropped(spec.name, total - len(sets), total,
                   "line pairs with an empty side or no change beyond case and spacing")
    return set_records(sets, smoke)


def _seeded_shakespeare(spec: Any, seed: int, smoke: bool) -> pd.DataFrame:
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
    for url, path in spec_files(spec).items():
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
    return set_records(sets, smoke)
