"""The STEB probing sets (``probing/<domain>.jsonl``), one probe per linguistic feature.

Each line of the reference's file (written by its ``split_probing_datasets.py``) holds a
``text``, the raw value of every feature (one column per feature), ``label_<feature>``
(the feature's quantile bin, or null) and ``split_<feature>`` (``train``/``val``/
``test``, or null), and the lists ``label`` and ``split`` with those values in feature
order. A text takes part in the probe of a feature only where both are set (each
feature keeps a balanced subset of the texts).

Records (``read_probing_jsonl``): one row per (text, feature) where the text takes part:
``text``, ``label`` (the bin as a string), ``split`` (``val`` becomes ``validation``),
``feature`` (the feature's name, from the ``label_<feature>`` columns; ``task_<i>``
when the file has only the lists) and ``value`` (the raw feature value, when the file
has it). A line repeated verbatim (same text, labels and splits) is kept once, as the
reference's loader does; repeats are counted. Rows are in file order, feature by
feature within a line.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ._files import json_lines, require_keys, source_tree
from .text import report_dropped

__all__ = ["probe_rows", "read_probing_jsonl"]

_SPLITS = {"train": "train", "val": "validation", "validation": "validation", "test": "test"}


def _features(record: dict, n: int) -> list[str]:
    names = [k[len("label_"):] for k in record if k.startswith("label_")]
    return names if len(names) == n else [f"task_{i}" for i in range(n)]


def _value(raw: Any) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return math.nan
    return value


def probe_rows(records: list[dict], where: str) -> tuple[list[dict], int]:
    """Long-format probing rows from the reference's records; also the repeats left out.

    >>> rows, repeats = probe_rows([{"text": "a", "len": 3.0, "label_len": 1,
    ...     "split_len": "val", "label": [1], "split": ["val"]}], "x.jsonl")
    >>> rows, repeats
    ([{'text': 'a', 'label': '1', 'split': 'validation', 'feature': 'len', 'value': 3.0}], 0)
    """
    rows, seen, repeats = [], set(), 0
    features: list[str] | None = None
    for n, record in enumerate(records, start=1):
        require_keys(record, ("text", "label", "split"), f"{where} record {n}")
        labels, splits = record["label"], record["split"]
        if not isinstance(labels, list) or not isinstance(splits, list) \
                or len(labels) != len(splits):
            raise ValueError(f"{where} record {n}: 'label' and 'split' must be lists of the "
                             f"same length (one entry per feature)")
        if features is None:
            features = _features(record, len(labels))
        if len(labels) != len(features):
            raise ValueError(f"{where} record {n} has {len(labels)} features, the first "
                             f"record {len(features)}")
        key = (record["text"], tuple(map(str, labels)), tuple(map(str, splits)))
        if key in seen:
            repeats += 1
            continue
        seen.add(key)
        for feature, label, split in zip(features, labels, splits, strict=True):
            if label is None or split is None:
                continue
            if split not in _SPLITS:
                raise ValueError(f"{where} record {n}: split {split!r} of feature {feature!r} "
                                 f"is not one of train/val/test")
            rows.append({"text": record["text"], "label": str(label), "split": _SPLITS[split],
                         "feature": feature, "value": _value(record.get(feature))})
    return rows, repeats


def read_probing_jsonl(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """One STEB probing set: a row per text and feature it is probed on."""
    tree = source_tree(spec)
    name = tree.names()[0] if len(tree.names()) == 1 else tree.find("*.jsonl", what="JSONL")
    records = json_lines(tree.text(name), f"{tree.label}: {name}")
    rows, repeats = probe_rows(records, f"{tree.label}: {name}")
    report_dropped(spec.name, repeats, len(records), "lines repeated verbatim")
    out = pd.DataFrame(rows, columns=["text", "label", "split", "feature", "value"])
    if smoke:
        out = out.groupby(["feature", "split", "label"], sort=False).head(5)
    return out.reset_index(drop=True)
