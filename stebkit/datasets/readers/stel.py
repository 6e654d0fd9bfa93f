"""STEL quadruples (nlpsoc/STEL ``Data/STEL/*/*.tsv``), read by :func:`read_stel`.

Each row is a quadruple: two anchors that differ in one style characteristic, two
alternatives that differ in the same way, and the alternative (1 or 2) that matches
``Anchor 1``. ``sampling`` chooses the records:

``"all"`` (the STEB catalogue's ``STEL_feature`` and ``STEL_register``)
    The TSV files of ``Data/STEL/characteristics`` then ``Data/STEL/dimensions`` (each
    folder in name order), read with :mod:`csv` (tab-separated, ``"`` quoting) as the
    reference reads them. A row gives up to two ordered pairs: the anchors and the
    alternatives, each put in ``[more of the style, less of it]`` order by decoding the
    row's ``ID`` (``QQ_<anchor ids>_<alternative ids>--<n>``; the prefix of each part
    says which side has the style: ``f-``/``i-`` formality, ``s-``/``c-``/``x-``
    simplicity, ``...ction-``/``wiki-`` contraction, ``emote``/``emoji`` emotives,
    ``leet-``/``norm-`` number substitution). Rows with an empty text or an ID that does
    not decode give no pair; ``em-subj-pronoun`` rows are left out; a pair already seen
    for the same style type is dropped (counted). Label: the lower-cased ``style type``;
    ``reader_options["styles"]`` keeps the group's types.
``"seeded"`` (the lite suite's ``stel-*`` sets; ``spec.source`` pins one TSV)
    For order alignment each quadruple becomes two 2-position sequences (the anchor
    pair and the alternative pair) under ``label`` = the style type: position 0 holds
    the text *with* the characteristic (contraction, emoticon, leetspeak, "em"
    pronoun), position 1 the text without it. The anchors are ordered by the quadruple
    ``ID`` (which names the marked text), the alternatives by the correct answer, so
    both sequences say the same thing. Rows of a sequence already seen earlier in the
    records carry ``repeat=True``. The raw quadruple stays available: every row
    carries ``quadruple``, ``role`` (``anchor``/``alternative``), ``slot``
    (``anchor1``, ``anchor2``, ``alt1``, ``alt2``) and ``correct``; :func:`quadruples`
    rebuilds the STEL table from the records.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ._records import is_seeded, sequences
from ._steb import set_records
from .text import read_text, report_dropped, require_columns, rng_for, spec_files

__all__ = ["STEL_URLS", "quadruple_records", "quadruples", "read_quadruples", "read_stel"]

_STEL = ("https://raw.githubusercontent.com/nlpsoc/STEL/"
         "e52f0521df53bd57c9ecafda16e7f2d6966a9993/Data/STEL")
STEL_URLS = tuple(f"{_STEL}/{name}" for name in (
    "characteristics/quad_questions_char_contraction.tsv",
    "characteristics/quad_questions_char_emotives.tsv",
    "characteristics/quad_questions_char_substitution.tsv",
    "characteristics/quad_questions_em-subj-pronoun_100.tsv",
    "dimensions/quad_stel-dimension_formal-100_sample.tsv",
    "dimensions/quad_stel-dimension_simple-100_sample.tsv"))
"""The TSV files of ``Data/STEL`` (characteristics, then dimensions, in name order)."""

COLUMNS = ("Anchor 1", "Anchor 2", "Alternative 1.1", "Alternative 1.2",
           "Correct Alternative", "ID", "style type")

# style type -> (ID prefix of the marked text, ID prefix of the unmarked text, whether the
# ID names the anchors in column order). In the em-subj-pronoun file the ID lists them
# the other way round: in all 100 rows the "em" sentence is the anchor the ID names second.
MARKERS = {
    "contraction": ("ction", "wiki", True),
    "emotives": ("emote", "emoji", True),
    "nbr_substitution": ("leet", "norm", True),
    "em-subj-pronoun": ("em-subj-pronoun", "sae", False),
}


def read_quadruples(path: Path) -> pd.DataFrame:
    """Parse one STEL quadruple TSV into ``anchor1, anchor2, alt1, alt2, correct,
    id, style_type, anchor1_marked``.

    Literal ``\\n`` in cells become newlines. Errors name the file and row.
    """
    text = read_text(path)
    if not text.strip():
        raise ValueError(f"{path}: empty file; expected a STEL quadruple TSV")
    try:
        raw = pd.read_csv(io.StringIO(text), sep="\t", index_col=0, dtype=str,
                          keep_default_na=False)
    except pd.errors.ParserError as err:
        raise ValueError(f"{path}: not a readable TSV ({err})") from None
    require_columns(raw.columns, COLUMNS, str(path))
    rows = []
    for i, row in enumerate(raw.itertuples(index=False), start=2):
        rec = dict(zip(raw.columns, row, strict=True))
        style = rec["style type"].strip()
        if style not in MARKERS:
            raise ValueError(f"{path} line {i}: unknown style type {style!r}; "
                             f"known: {sorted(MARKERS)}")
        marked, unmarked, in_order = MARKERS[style]
        parts = rec["ID"].strip().split("_")
        correct = rec["Correct Alternative"].strip()
        if len(parts) < 3 or correct not in {"1", "2"}:
            raise ValueError(f"{path} line {i}: malformed ID {rec['ID']!r} or correct "
                             f"alternative {correct!r}")
        anchor_ids = parts[1]
        if marked not in anchor_ids or unmarked not in anchor_ids:
            raise ValueError(f"{path} line {i}: ID {rec['ID']!r} does not name the "
                             f"{marked!r} and {unmarked!r} anchors")
        texts = [rec[c].replace("\\n", "\n").strip() for c in COLUMNS[:4]]
        if not all(texts):
            raise ValueError(f"{path} line {i}: empty anchor or alternative text")
        rows.append({"anchor1": texts[0], "anchor2": texts[1], "alt1": texts[2],
                     "alt2": texts[3], "correct": int(correct), "id": rec["ID"].strip(),
                     "style_type": style,
                     "anchor1_marked": (anchor_ids.find(marked) < anchor_ids.find(unmarked))
                     == in_order})
    return pd.DataFrame(rows)


def quadruple_records(quads: pd.DataFrame) -> pd.DataFrame:
    """Two ordered sequences per quadruple, keeping the raw quadruple columns."""
    groups: list[list[str]] = []
    extra: dict[str, list[Any]] = {"quadruple": [], "role": [], "slot": [], "correct": []}
    for q in quads.itertuples(index=False):
        anchors = [(q.anchor1, "anchor1"), (q.anchor2, "anchor2")]
        if not q.anchor1_marked:
            anchors.reverse()
        # the alternative matching Anchor 1 sits where Anchor 1 sits
        alts = [(q.alt1, "alt1"), (q.alt2, "alt2")]
        if (q.correct == 1) != q.anchor1_marked:
            alts.reverse()
        for role, seq in (("anchor", anchors), ("alternative", alts)):
            groups.append([t for t, _ in seq])
            for _, slot in seq:
                extra["quadruple"].append(q.id)
                extra["role"].append(role)
                extra["slot"].append(slot)
                extra["correct"].append(q.correct)
    label = quads["style_type"].iloc[0] if len(quads) else ""
    out = sequences(groups, label, extra=extra)
    out["group"] = [f"{qid}/{role}" for qid, role in zip(out["quadruple"], out["role"],
                                                        strict=True)]
    return out


def quadruples(records: pd.DataFrame) -> pd.DataFrame:
    """Rebuild the STEL table (``anchor1, anchor2, alt1, alt2, correct``) from records.

    >>> q = pd.DataFrame([{"anchor1": "it's", "anchor2": "it is", "alt1": "we are",
    ...                    "alt2": "we're", "correct": 2, "id": "q1",
    ...                    "style_type": "contraction", "anchor1_marked": True}])
    >>> table = quadruples(quadruple_records(q))
    >>> table[["anchor1", "anchor2", "alt1", "alt2"]].iloc[0].tolist(), int(table["correct"][0])
    (["it's", 'it is', 'we are', "we're"], 2)
    """
    require_columns(records.columns, ("quadruple", "slot", "correct", "text"), "records")
    wide = records.pivot(index="quadruple", columns="slot", values="text")
    wide["correct"] = records.groupby("quadruple")["correct"].first()
    order = list(dict.fromkeys(records["quadruple"]))
    return wide.loc[order, ["anchor1", "anchor2", "alt1", "alt2", "correct"]].reset_index(
        drop=True).rename_axis(None, axis=1)


def read_stel(spec: Any, *, seed: int = 42, smoke: bool = False,
              sampling: str) -> pd.DataFrame:
    """STEL records: every ordered pair of the style types ``reader_options["styles"]``
    (``sampling="all"``), or a seeded sample of one characteristic set's quadruples
    (``sampling="seeded"``); see the module docstring.
    """
    if is_seeded(sampling, spec.name):
        return _seeded_quadruples(spec, seed, smoke)
    return _all_pairs(spec, smoke)


def _seeded_quadruples(spec: Any, seed: int, smoke: bool) -> pd.DataFrame:
    """``reader_options["quadruples"]`` (smoke: ``smoke_quadruples``) quadruples drawn
    in a seeded order, preferring quadruples whose anchor and alternative pairs have
    not been drawn yet (STEL reuses sentence pairs across quadruples). Rows of a
    sequence that repeats an earlier one get ``repeat=True``, so that order alignment
    can count each sequence once, as the reference does.
    """
    (path,) = spec_files(spec).values()
    quads = read_quadruples(path)
    k = spec.reader_options.get("smoke_quadruples" if smoke else "quadruples", 50)
    order = rng_for(seed).permutation(len(quads))
    pairs = [(frozenset((q.anchor1, q.anchor2)), frozenset((q.alt1, q.alt2)))
             for q in quads.itertuples(index=False)]
    seen: set[frozenset[str]] = set()
    fresh, rest = [], []
    for i in order:
        if pairs[i][0] not in seen and pairs[i][1] not in seen and len(fresh) < k:
            fresh.append(int(i))
            seen.update(pairs[i])
        else:
            rest.append(int(i))
    picked = sorted(fresh + rest[: max(0, k - len(fresh))])
    out = quadruple_records(quads.iloc[picked])
    keys = out.groupby("group", sort=False)["text"].agg(frozenset)
    repeated = keys.duplicated()
    out["repeat"] = out["group"].map(repeated).astype(bool)
    return out


# ------------------------------------------------ the reference's ordered pairs

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


def _all_pairs(spec: Any, smoke: bool) -> pd.DataFrame:
    """STEL ordered pairs of the style types ``reader_options["styles"]``."""
    keep = set(spec.reader_options["styles"])
    seen: dict[str, set[tuple[str, str]]] = {}
    sets: list[tuple[str, Sequence[str]]] = []
    rows = no_pair = duplicates = 0
    for url, path in spec_files(spec).items():
        text = read_text(path, name=url, newline=None)
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
    return set_records(sets, smoke)
