"""The per-item part of a result record: what a record keeps of a task's details for a
paired comparison (the family's answer, :meth:`stebkit.tasks.TaskFamily.item_values`), and
the details rebuilt from it (:func:`item_details`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


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

    return FAMILIES.get_family(record["task"]).item_details(record["per_item"])
