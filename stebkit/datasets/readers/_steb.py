"""Record builders shared by the readers of the STEB catalogue.

The reference's loaders yield ``{"text", "label"}`` dicts, pairs as two consecutive
records with a ``trial_<id>_<true|false>`` label, parallel texts as one list per record
and retrieval sides in the label suffix. These helpers turn that into the records of
:mod:`stebkit.datasets.spec`: one row per text, with ``pair``/``same``, ``group``/
``position`` or ``side`` columns, keeping the reference's labels and order.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

SMOKE_ITEMS = 20
"""Items (texts per label, pairs, or parallel sets per label) kept with ``smoke=True``."""


def trial_label(pid: Any, same: bool) -> str:
    """The reference's label of a predefined pair (its pair task reads ``same`` from the
    ``_true`` ending).

    >>> trial_label("EN001", True), trial_label(3, False)
    ('trial_EN001_true', 'trial_3_false')
    """
    return f"trial_{pid}_{'true' if same else 'false'}"


def pair_rows(pid: str, same: bool, label: str, first: str, second: str) -> list[dict]:
    """The two records of one predefined pair (``pair`` = ``pid``)."""
    return [{"text": first, "label": label, "pair": str(pid), "same": bool(same)},
            {"text": second, "label": label, "pair": str(pid), "same": bool(same)}]


def parallel_rows(sets: Iterable[tuple[str, Sequence[str]]], prefix: str = "g") -> list[dict]:
    """Order-alignment records from ``(label, [text at position 0, 1, ...])`` sets.

    >>> parallel_rows([("aave", ["yo", "hello"])])[1]
    {'text': 'hello', 'label': 'aave', 'group': 'g000000', 'position': 1}
    """
    rows = []
    for g, (label, texts) in enumerate(sets):
        rows += [{"text": t, "label": label, "group": f"{prefix}{g:06d}", "position": p}
                 for p, t in enumerate(texts)]
    return rows


def frame(rows: list[dict], columns: Sequence[str] = ("text", "label")) -> pd.DataFrame:
    """A records frame with at least ``columns`` (in that order, then any others)."""
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=list(columns))
    extra = [c for c in out.columns if c not in columns]
    out = out[[*columns, *extra]]
    if "position" in out.columns:
        out["position"] = out["position"].astype("int64")
    if "same" in out.columns:
        out["same"] = out["same"].astype(bool)
    return out


SET_COLUMNS = ("text", "label", "group", "position")
"""The leading columns of order-alignment records (:func:`set_records`)."""


def set_records(sets: Iterable[tuple[str, Sequence[str]]], smoke: bool) -> pd.DataFrame:
    """Order-alignment records of ``(label, [text at position 0, 1, ...])`` sets
    (:func:`parallel_rows`, columns :data:`SET_COLUMNS` first), cut by :func:`smoke_cut`.

    >>> set_records([("aave", ["yo", "hello"])], smoke=False).values.tolist()
    [['yo', 'aave', 'g000000', 0], ['hello', 'aave', 'g000000', 1]]
    """
    return smoke_cut(frame(parallel_rows(sets), SET_COLUMNS), smoke)


def smoke_cut(records: pd.DataFrame, smoke: bool, n: int = SMOKE_ITEMS) -> pd.DataFrame:
    """With ``smoke``, keep the first ``n`` pairs, or ``n`` sets / texts per label (and side).

    >>> f = pd.DataFrame({"text": list("abcde"), "label": list("xxxyy")})
    >>> smoke_cut(f, True, 2)["text"].tolist()
    ['a', 'b', 'd', 'e']
    """
    if not smoke or records.empty:
        return records
    if "pair" in records.columns:
        keep = records["pair"].isin(list(dict.fromkeys(records["pair"]))[:n])
    elif "group" in records.columns:
        first = records.drop_duplicates("group").groupby("label", sort=False).head(n)
        keep = records["group"].isin(set(first["group"]))
    else:
        keys = ["label", "side"] if "side" in records.columns else ["label"]
        keep = records.groupby(keys, sort=False).cumcount() < n
    return records[keep.to_numpy()].reset_index(drop=True)
