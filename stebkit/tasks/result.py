"""The one result shape every task function returns.

A :class:`TaskResult` holds three parts:

``metrics``
    Scores (floats), each with a stated direction in its family's declaration
    (:attr:`stebkit.tasks.TaskFamily.metrics`: higher or lower is better).
``counts``
    Integers describing what was scored (pairs, queries, dropped items, ...).
``details``
    Per-item arrays for the bootstrap and paired comparisons, plus the settings the
    function chose (e.g. ``regularisation``, the chosen L2 strength of a probe).

It reads like the dict the task functions returned before: ``result["auc"]``,
``result["n_pos"]`` and ``result["details"]`` all work, so existing code keeps working.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np


class TaskResult(Mapping[str, Any]):
    """Metrics (float), counts (int) and details of one task evaluation.

    Examples
    --------
    >>> r = TaskResult({"auc": 0.75}, {"n_pos": 2}, {"scores": np.array([0.1, 0.9])})
    >>> r.metrics["auc"], r["n_pos"], sorted(r)
    (0.75, 2, ['auc', 'details', 'n_pos'])
    >>> r
    TaskResult(metrics={'auc': 0.75}, counts={'n_pos': 2}, details=['scores'])
    """

    __slots__ = ("counts", "details", "metrics")

    def __init__(self, metrics: Mapping[str, float], counts: Mapping[str, int] | None = None,
                 details: Mapping[str, Any] | None = None) -> None:
        clash = set(metrics) & set(counts or {})
        if clash or "details" in metrics or "details" in (counts or {}):
            raise ValueError(f"metric and count names must be distinct and not 'details', "
                             f"got {sorted(clash) or ['details']}")
        self.metrics = MappingProxyType({str(k): float(v) for k, v in metrics.items()})
        bad = [k for k, v in (counts or {}).items()
               if isinstance(v, bool) or not float(v).is_integer()]
        if bad:
            raise TypeError(f"counts must be integers, got {bad}")
        self.counts = MappingProxyType({str(k): int(v) for k, v in (counts or {}).items()})
        self.details = dict(details or {})

    def __getitem__(self, key: str) -> Any:
        if key in self.metrics:
            return self.metrics[key]
        if key in self.counts:
            return self.counts[key]
        if key == "details":
            return self.details
        raise KeyError(f"{key!r} is not a metric, count or 'details' of this result; "
                       f"metrics: {list(self.metrics)}, counts: {list(self.counts)}")

    def __iter__(self) -> Iterator[str]:
        yield from self.metrics
        yield from self.counts
        yield "details"

    def __len__(self) -> int:
        return len(self.metrics) + len(self.counts) + 1

    def __repr__(self) -> str:
        return (f"TaskResult(metrics={dict(self.metrics)}, counts={dict(self.counts)}, "
                f"details={list(self.details)})")

    def scalars(self) -> dict[str, Any]:
        """The scalar entries of ``details`` (chosen settings, spreads) as plain values.

        >>> TaskResult({"accuracy": 1.0}, details={"regularisation": 1e-3,
        ...                                        "test_correct": np.ones(3)}).scalars()
        {'regularisation': 0.001}
        """
        out = {}
        for k, v in self.details.items():
            if np.ndim(v) == 0 and isinstance(v, (int, float, str, np.number)):
                out[k] = v.item() if isinstance(v, np.generic) else v
        return out
