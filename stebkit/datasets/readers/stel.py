"""STEL characteristic quadruples (nlpsoc/STEL ``Data/STEL/characteristics/*.tsv``).

Each row is a quadruple: two anchors that differ in one style characteristic, two
alternatives that differ in the same way, and the alternative (1 or 2) that matches
``Anchor 1``. For order alignment each quadruple becomes two 2-position sequences
(the anchor pair and the alternative pair) under ``label`` = the style type:
position 0 holds the text *with* the characteristic (contraction, emoticon,
leetspeak, "em" pronoun), position 1 the text without it. The anchors are ordered
by the quadruple ``ID`` (which names the marked text), the alternatives by the
correct answer, so both sequences say the same thing.

Rows of a sequence already seen earlier in the records carry ``repeat=True``.
The raw quadruple stays available: every row carries ``quadruple``, ``role``
(``anchor``/``alternative``), ``slot`` (``anchor1``, ``anchor2``, ``alt1``, ``alt2``)
and ``correct``; :func:`quadruples` rebuilds the STEL table from the records.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ._records import sequences
from .text import read_text, require_columns, rng_for, spec_files

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
    import io

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


def read_stel(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Records of one STEL characteristic set (``spec.source`` pins one TSV).

    ``reader_options["quadruples"]`` (smoke: ``smoke_quadruples``) quadruples are drawn
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
