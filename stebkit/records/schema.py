"""Record schemas: the current one (:data:`SCHEMA`) and the conversion of older records
(:func:`upgrade_record`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stebkit._io import shown as _shown

SCHEMA = 2
"""The schema of the records this stebkit writes."""

# schema 1 -> 2: scalar entries of ``metrics`` that are counts or chosen settings, and
# metric names that changed (per task).
_V1_COUNTS = ("n_pos", "n_neg", "n_queries", "n_queries_dropped", "n_targets_dropped",
              "n_pairs", "n_queries_without_relevant")
_V1_RENAMES: Mapping[str, Mapping[str, str]] = {
    "probing": {"val_accuracy": "validation_score"},
    "classification": {"val_macro_f1": "validation_score"},
    "stel": {"stel_acc": "accuracy", "stel_or_content_acc": "or_content_accuracy"},
}


def upgrade_record(record: dict[str, Any], *, where: str = "record") -> dict[str, Any]:
    """A record in the current schema; older schemas are converted, unknown ones refused.

    >>> old = {"schema": 1, "task": "probing", "main_metric": "accuracy", "status": "ok",
    ...        "metrics": {"accuracy": 0.5, "val_accuracy": 0.6, "l2": 0.001}}
    >>> new = upgrade_record(old)
    >>> new["schema"], new["metrics"], new["chosen"], new["converted_from"]
    (2, {'accuracy': 0.5, 'validation_score': 0.6}, {'regularisation': 0.001}, 1)
    >>> upgrade_record({"schema": 7})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: record: field 'schema' is 7, which this stebkit cannot read (it reads ...
    """
    version = record.get("schema")
    if version == SCHEMA:
        return record
    if version != 1:
        raise ValueError(f"{where}: field 'schema' is {_shown(version)}, which this stebkit cannot "
                         f"read (it reads schemas 1 and {SCHEMA}); upgrade stebkit or rerun "
                         "the evaluation")
    out = dict(record)
    task = out.get("task")
    metrics = dict(out.get("metrics") or {}) if isinstance(out.get("metrics"), Mapping) \
        else out.get("metrics")
    counts: dict[str, int] = {}
    chosen: dict[str, Any] = {}
    if isinstance(metrics, dict):
        for key in _V1_COUNTS:
            if key in metrics:
                value = metrics.pop(key)
                counts[key] = int(value) if value is not None else 0
        if task == "probing" and "l2" in metrics:
            chosen["regularisation"] = metrics.pop("l2")
        if task == "classification" and "C" in metrics:
            c = metrics.pop("C")
            chosen.update(C=c, regularisation=None if not c else 1.0 / c)
        renames = _V1_RENAMES.get(task, {})
        metrics = {renames.get(k, k): v for k, v in metrics.items()}
        out["metrics"] = metrics
        main = out.get("main_metric")
        out["main_metric"] = renames.get(main, main)
    out.update(schema=SCHEMA, counts=counts, chosen=chosen, converted_from=1)
    return out
