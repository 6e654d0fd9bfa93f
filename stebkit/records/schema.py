"""Record schemas: the current one (:data:`SCHEMA`), its fields declared once
(:data:`FIELDS`, :data:`PARTS`, checked by :func:`check_fields`), the conversion of
older records (:func:`upgrade_record`), and the one rule of a record's main metric
(:func:`main_metric_of`, which a run and an import apply to the spec they evaluate);
:mod:`stebkit.records.results` re-exports them.

Whether a file is a valid record depends on the file alone: its fields, their types and
ranges. Nothing the process has registered (a suite's datasets, the zoo) decides it; what
the catalogue and the zoo declare about a dataset or model is the score's business
(:mod:`stebkit.records.catalogue`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from stebkit._io import shown as _shown

SCHEMA = 2
"""The schema of the records this stebkit writes."""

FAILURES = ("data_unavailable", "model_unavailable", "error")
"""The kinds of failure a failed record's ``failure`` field names: its data or its model
could not be had here (:class:`stebkit.errors.DataUnavailable`,
:class:`stebkit.errors.ModelUnavailable`), or another error."""


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _texts(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


@dataclass(frozen=True)
class Field:
    """One declared field of a record: what it holds (``kind``, shown in messages) and
    the test its value passes (``None``, or no such key, passes where ``nullable``)."""

    kind: str
    test: Callable[[Any], bool]
    nullable: bool = True

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is a value of this field."""
        return (value is None and self.nullable) or (value is not None and self.test(value))


_TEXT = Field("a string", lambda v: isinstance(v, str))
_OBJECT = Field("an object", lambda v: isinstance(v, Mapping))
_COUNT = Field("a non-negative int", lambda v: _int(v) and v >= 0)
_SECONDS = Field("a non-negative number", lambda v: _number(v) and v >= 0)

FIELDS: Mapping[str, Field] = {
    "schema": Field("an int", _int, nullable=False),
    "stebkit_version": _TEXT,
    "model": Field("an object with a 'name'", lambda v: isinstance(v, Mapping)),
    "dataset": Field("an object with a 'name'", lambda v: isinstance(v, Mapping)),
    "task": Field("a task name", lambda v: isinstance(v, str) and bool(v), nullable=False),
    "episode_size": Field("a positive int or -1",
                          lambda v: _int(v) and (v == -1 or v >= 1), nullable=False),
    "episodes_per_label": Field("a positive int", lambda v: v == "auto" or (_int(v) and v >= 1)),
    "seed": Field("an int", _int),
    "protocol": _OBJECT,
    "main_metric": Field("a metric name", lambda v: isinstance(v, str)),
    "higher_is_better": Field("true or false", lambda v: isinstance(v, bool)),
    "metrics": _OBJECT, "counts": _OBJECT, "chosen": _OBJECT, "per_label": _OBJECT,
    "submetrics": _OBJECT, "dropped": _OBJECT, "per_item": _OBJECT,
    "ci": _OBJECT,
    "n_items": _COUNT, "n_texts": _COUNT,
    "collapsed_share": Field("a share in [0, 1]", lambda v: _number(v) and 0 <= v <= 1),
    "encode_s": _SECONDS, "runtime_s": _SECONDS,
    "date": _TEXT,
    "status": Field("one of ['ok', 'failed', 'skipped']",
                    lambda v: v in ("ok", "failed", "skipped"), nullable=False),
    "warnings": Field("a list of strings", _texts),
    "failure": Field(f"one of {list(FAILURES)}", lambda v: v in FAILURES),
    "error": Field("a message", lambda v: isinstance(v, str)),
    "traceback": _TEXT, "reason": _TEXT,
    "converted_from": Field("an int", _int),
}
"""Every field a record may have (see :mod:`stebkit.records.results` for what each means), with
its kind; a record with another key is refused. ``metrics``, ``counts``, ``ci`` and
``submetrics`` are checked value by value beyond their kind (:meth:`stebkit.records.results.
Record.from_json`)."""

PARTS: Mapping[str, Mapping[str, Field]] = {
    "model": {"name": _TEXT, "revision": _TEXT, "category": _TEXT,
              "encoder_config": _OBJECT},
    "dataset": {"name": _TEXT, "fingerprint": _TEXT, "steb_name": _TEXT,
                "source_sha256": Field("a list of digests (strings, null where unpinned)",
                                       lambda v: isinstance(v, list) and all(
                                           x is None or isinstance(x, str) for x in v)),
                "category": _TEXT,
                "languages": Field("a list of strings", _texts), "application": _TEXT},
    "ci": {"low": Field("a finite number", _number), "high": Field("a finite number", _number),
           "level": Field("a number in (0, 1)", lambda v: _number(v) and 0 < v < 1),
           "resamples": _COUNT, "unit": _TEXT},
}
"""The declared keys of the record's objects ``model``, ``dataset`` and ``ci``."""


def check_fields(record: Mapping[str, Any], *, where: str, fix: str) -> None:
    """Refuse a record with a key :data:`FIELDS` does not declare, a value not of its
    field's kind (a required field missing), or an unknown key in ``model``, ``dataset``
    or ``ci`` (:data:`PARTS`); the ValueError names ``where``, the field, the value and
    ``fix``.

    >>> rec = {"schema": 2, "task": "clustering", "episode_size": 1, "status": "ok"}
    >>> check_fields({**rec, "rank": 1}, where="r.json", fix="remove it")
    Traceback (most recent call last):
    ...
    ValueError: r.json: field 'rank' is not a field of a result record (schema 2); remove it
    >>> check_fields({**rec, "ci": {"low": 0.1, "hight": 0.2}}, where="r.json",
    ...              fix="remove it")
    Traceback (most recent call last):
    ...
    ValueError: r.json: field 'ci.hight' is not a field of a result record (schema 2); ...
    """
    def refuse(name: str, message: str) -> ValueError:
        return ValueError(f"{where}: field {_shown(name)} {message}; {fix}")

    for key, field in FIELDS.items():
        if not field.nullable and record.get(key) is None:
            raise refuse(key, f"is None, not {field.kind}")
    for key, value in record.items():
        field = FIELDS.get(key)
        if field is None:
            raise refuse(key, f"is not a field of a result record (schema {SCHEMA})")
        if not field.accepts(value):
            raise refuse(key, f"is {_shown(value)}, not {field.kind}")
        for sub, sub_value in (value.items() if key in PARTS and value is not None else ()):
            part = PARTS[key].get(sub)
            if part is None:
                raise refuse(f"{key}.{sub}", "is not a field of a result record "
                             f"(schema {SCHEMA})")
            if not part.accepts(sub_value):
                raise refuse(f"{key}.{sub}", f"is {_shown(sub_value)}, not {part.kind}")

# schema 1 -> 2: scalar entries of ``metrics`` that are counts or chosen settings, and
# metric names that changed (per task).
_V1_COUNTS = ("n_pos", "n_neg", "n_queries", "n_queries_dropped", "n_targets_dropped",
              "n_pairs", "n_queries_without_relevant")
_V1_RENAMES: Mapping[str, Mapping[str, str]] = {
    "probing": {"val_accuracy": "validation_score"},
    "classification": {"val_macro_f1": "validation_score"},
    "stel": {"stel_acc": "accuracy", "stel_or_content_acc": "or_content_accuracy"},
}


def main_metric_of(task: str, dataset: Any) -> str | None:
    """The main metric of ``task`` on ``dataset`` (a name or a spec): the one the dataset
    declares (a suite's ``main_metric``) when it is among the family's metrics, else the
    family's. The one rule of the records a run writes and imports (from the spec they
    evaluate, :mod:`stebkit.runs.outcomes`, :func:`stebkit.records.steb_format.import_steb`) and of
    the score (:mod:`stebkit.records.catalogue`, which names a record that says otherwise);
    reading a record never asks it. None for a family this stebkit does not know, or a
    dataset name that is not registered in this process (a suite not loaded here).

    >>> main_metric_of("clustering", "federalist-authorship"), main_metric_of("x", "d")
    ('v_measure', None)
    >>> main_metric_of("clustering", "a-suite-not-loaded-here") is None
    True
    """
    from stebkit.datasets.registry import registered
    from stebkit.tasks import FAMILIES

    family = FAMILIES.get(task)
    spec = registered(dataset) if isinstance(dataset, str) else dataset
    if family is None or spec is None:
        return None
    declared = spec.main_metric
    return declared if declared in family.metrics else family.main_metric


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
