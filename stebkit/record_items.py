"""The per-item part of a result record: what a record keeps of a task's details for a
paired comparison (:func:`per_item`), and the details rebuilt from it
(:func:`item_details`). :mod:`stebkit.results` re-exports both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def per_item(task: str, result: Mapping[str, Any], ids: list[str]) -> dict[str, list]:
    """The per-item part of a record: ``ids``, ``values`` and, where needed, ``labels``.

    What is kept is the family's :attr:`~stebkit.tasks.TaskFamily.per_item`: enough for a
    paired bootstrap. All-to-all pairs keep nothing (their n(n-1)/2 pair scores are not
    stored).

    >>> import numpy as np
    >>> per_item("retrieval", {"details": {"per_query_rr": np.array([1.0, 0.5])}}, ["q1", "q2"])
    {'ids': ['q1', 'q2'], 'values': [1.0, 0.5]}
    """
    from stebkit.tasks import FAMILIES

    keep = FAMILIES.get_family(task).per_item
    if keep is None:
        return {"ids": [], "values": []}
    details = result["details"]
    values_key, labels_key = keep
    values = np.asarray(details[values_key])
    if len(ids) != len(values):
        raise ValueError(f"{task}: {len(ids)} item ids for {len(values)} per-item values")
    out = {"ids": list(ids), "values": values.tolist()}
    if labels_key is not None and labels_key in details:
        out["labels"] = np.asarray(details[labels_key]).tolist()
    return out


def item_details(record: Mapping[str, Any]) -> dict[str, Any]:
    """Rebuild ``{"details": ...}`` from a record's ``per_item`` for
    :func:`stebkit.tasks.paired_bootstrap` / :func:`stebkit.tasks.bootstrap_ci` with
    ``task=record["task"]``. Align two records on ``per_item["ids"]`` before pairing them.

    >>> rec = {"task": "predefined_pairs",
    ...        "per_item": {"ids": ["p1", "p2"], "values": [0.9, 0.1], "labels": [True, False]}}
    >>> item_details(rec)["details"]["same"]
    array([ True, False])
    """
    from stebkit.tasks import FAMILIES

    task = record["task"]
    keep = FAMILIES.get_family(task).per_item
    if keep is None:
        raise ValueError(f"records of task {task!r} keep no per-item values")
    items = record["per_item"]
    values_key, labels_key = keep
    details = {values_key: np.asarray(items["values"], dtype=np.float64)}
    if labels_key is not None and "labels" in items:
        details[labels_key] = np.asarray(items["labels"])
    return {"details": details}
