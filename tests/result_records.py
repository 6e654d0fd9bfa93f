"""Result records (schema 2) built by the tests of records, trust checks and scores.

One record of one model, dataset, task and episode configuration, as ``stebkit run``
writes it, with only what a test varies given.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PROTOCOL: Mapping[str, Any] = {"seed": 42, "smoke": False}
"""The protocol of a record unless a test gives its own."""


def result_record(model: str = "m", dataset: str = "d", task: str = "clustering",
                  size: int = 1, per_label: int = 50, *, main: str = "v_measure",
                  category: str = "genre", protocol: Mapping[str, Any] | None = PROTOCOL,
                  **metrics: Any) -> dict:
    """A record with an ``ok`` status: ``metrics`` as keywords (default
    ``v_measure=0.5``), ``main`` its main metric; ``protocol=None`` leaves the protocol
    out.

    >>> rec = result_record("a", task="retrieval", size=-1, main="mrr", mrr=0.4)
    >>> rec["model"], rec["episode_size"], rec["main_metric"], rec["metrics"]
    ({'name': 'a', 'category': 'style'}, -1, 'mrr', {'mrr': 0.4})
    >>> "protocol" in result_record(protocol=None), result_record()["metrics"]
    (False, {'v_measure': 0.5})
    """
    record = {"schema": 2, "model": {"name": model, "category": "style"},
              "dataset": {"name": dataset, "category": category, "languages": ["en"]},
              "task": task, "episode_size": size, "episodes_per_label": per_label}
    if protocol is not None:
        record["protocol"] = dict(protocol)
    return {**record, "main_metric": main, "metrics": metrics or {"v_measure": 0.5},
            "status": "ok"}
