"""What a unit's run ends in: its record, built once from its parts — the unit's draft
(:func:`start`: its identity, protocol and main metric, read-only), the protocol settings
and the fields the run found — given together to one of three constructors, :func:`ok`,
:func:`failed` or :func:`skipped`, that return a :class:`~stebkit.records.record.Record`,
checked once, and written as it is (:func:`stebkit.records.results.write_record`).
:meth:`Record.from_json` stays the read path.

The parts a run found before a failure go into its failed record; the draft is never
changed:

>>> from stebkit.runs.context import RunContext
>>> from stebkit.runs.planning import plan
>>> (unit,) = plan("random", "synthetic-authors-en", tasks=["retrieval"],
...                context=RunContext(smoke=True), output_dir="unused")
>>> draft = start(unit, {"seed": 42}, {"name": "random"}, {"name": unit.spec.name})
>>> rec = failed(draft, ValueError("no texts"), where="r.json", started=0.0,
...              protocol={"scoring": "cosine"}, encode_s=0.5)
>>> rec.status, rec["protocol"]["scoring"], rec["encode_s"], "scoring" in draft["protocol"]
('failed', 'cosine', 0.5, False)
"""

from __future__ import annotations

import contextlib
import json
import time
import traceback
from collections.abc import Mapping
from datetime import datetime, timezone
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from stebkit.records.record import RECOMPUTE, UNDEFINED, Record, new_record
from stebkit.records.schema import main_metric_of
from stebkit.runs import context as run_context
from stebkit.runs.encoders import collapsed_share

if TYPE_CHECKING:
    from stebkit.runs.planning import PlannedModel, Unit

Draft = Mapping[str, Any]
"""The start of a unit's record: its identity, protocol and main metric (:func:`start`), a
read-only view (its protocol too)."""

_NONE: Mapping[str, Any] = MappingProxyType({})

COLLAPSE_WARN = 0.1
"""A record warns when more than this share of its distinct texts (or, for encoders that
embed episodes themselves, of its items) share one identical vector."""


def now() -> str:
    """The time a record is dated with (UTC, to the second)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def model_meta(model: PlannedModel, encoder: Any) -> dict[str, Any]:
    """A record's ``model`` field: name, revision, category and the encoder's options."""
    name, info = model.name, model.info
    category = getattr(encoder, "category", None)
    if category is None:  # the zoo's category of this very name (not of a Hub id)
        category = info.category if info is not None and info.name == name else None
    revision = getattr(encoder, "revision", None) if not isinstance(encoder, Exception) else None
    meta = {"name": name, "revision": str(revision or "unknown"),
            "category": category or "custom"}
    return {**meta, **encoder_config(encoder)}


def encoder_config(encoder: Any) -> dict[str, Any]:
    """``{"encoder_config": ...}``: every option of ``encoder`` that changes a vector (the
    embedding cache's key), among them the forward pass that made them; empty for an
    encoder that failed or has no such options. Read again once the vectors are made: a
    fast pass that failed its check made none of them."""
    with contextlib.suppress(Exception):
        return {"encoder_config": json.loads(json.dumps(dict(encoder.cache_config),
                                                        sort_keys=True, default=str))}
    return {}


def dataset_meta(unit: Unit) -> dict[str, Any]:
    """A record's ``dataset`` field: name, fingerprint, sources and declared category."""
    spec = unit.spec
    return {"name": spec.name, "fingerprint": unit.fingerprint,
            "source_sha256": [sha for _, sha in spec.source.urls],
            "category": spec.category, "languages": list(spec.languages),
            "application": spec.application}


def _draft(fields: Mapping[str, Any]) -> Draft:
    """A read-only draft of ``fields``, its protocol read-only too.

    >>> draft = _draft({"status": "ok", "protocol": {"seed": 42}})
    >>> draft["protocol"]["seed"] = 7
    Traceback (most recent call last):
    ...
    TypeError: 'mappingproxy' object does not support item assignment
    """
    out = dict(fields)
    if isinstance(out.get("protocol"), Mapping):
        out["protocol"] = MappingProxyType(dict(out["protocol"]))
    return MappingProxyType(out)


def start(unit: Unit, protocol: Mapping[str, Any], model: Mapping[str, Any],
          dataset: Mapping[str, Any]) -> Draft:
    """The draft of ``unit``'s record: its identity, protocol and main metric, dated now."""
    return _draft(new_record(model=model, dataset=dataset, task=unit.task,
                             episode_size=unit.episode_size,
                             episodes_per_label=unit.episodes_per_label,
                             seed=protocol["seed"], protocol=protocol,
                             main_metric=main_metric_of(unit.family.name, unit.spec),
                             n_items=0, runtime_s=0.0, date=now()))


def with_model(draft: Draft, fields: Mapping[str, Any]) -> Draft:
    """``draft`` with ``fields`` added to its model's metadata (the encoder's options, read
    again once its vectors are made).

    >>> with_model(_draft({"model": {"name": "m"}}), {"forward": "model"})["model"]
    {'name': 'm', 'forward': 'model'}
    """
    return _draft({**draft, "model": {**draft["model"], **fields}})


def collapse(draft: Draft, vectors: np.ndarray, what: str) -> tuple[float, str | None]:
    """The share of ``vectors`` that are one identical vector (a record's
    ``collapsed_share``) and, above :data:`COLLAPSE_WARN`, the warning that says so (else
    None)."""
    share = collapsed_share(vectors)
    if share <= COLLAPSE_WARN:
        return share, None
    return share, (f"{draft['model']['name']} / {draft['dataset']['name']}: "
                   f"{share:.0%} of the {len(vectors)} {what} share one identical vector; "
                   "the encoder cannot tell them apart (another language or script?)")


def result_parts(result: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, int],
                                                     dict[str, Any]]:
    """Metrics, counts and chosen settings of a task result (a TaskResult, or a plain
    dict of floats plus ``details`` from a user's own family).

    >>> result_parts({"mrr": 0.5, "details": {}})
    ({'mrr': 0.5}, {}, {})
    """
    from stebkit.tasks import TaskResult

    if isinstance(result, TaskResult):
        return dict(result.metrics), dict(result.counts), result.scalars()
    return {k: float(v) for k, v in result.items() if k != "details"}, {}, {}


def result_fields(draft: Draft, unit: Unit, ti: Any, result: Any, *, seed: int
                  ) -> dict[str, Any]:
    """The fields of a task result on the built input ``ti``: its per-label values (when
    it has them), metrics, counts and chosen settings, the main metric's bootstrap
    interval, the items and their values, and the ``ok`` status; a ValueError when the
    result lacks the record's main metric (``draft``'s)."""
    family = unit.family
    metrics, counts, chosen = result_parts(result)
    main = draft["main_metric"]
    if main not in metrics:
        raise ValueError(f"dataset {unit.spec.name!r}, task {unit.task!r}, field "
                         f"'main_metric': the family does not produce {main!r}; its metrics "
                         f"are {sorted(metrics)}")
    ids = family.item_ids(ti, result)
    details = result.get("details") or {}
    per_label = details.get("per_label")
    return {**({"per_label": {str(k): dict(v) for k, v in per_label.items()}}
               if isinstance(per_label, Mapping) else {}),
            "metrics": metrics, "counts": counts, "chosen": chosen,
            "higher_is_better": family.metrics.get(main, True),
            # None when a dataset's main metric is not the one the bootstrap resamples
            "ci": family.bootstrap(result, seed=seed, n_resamples=run_context.N_RESAMPLES,
                                   confidence=run_context.CONFIDENCE)
            if main == family.main_metric else None,
            "episodes_per_label": ti.episodes_per_label,
            "n_items": len(ids) or ti.n_items, "n_texts": len(ti.texts),
            "dropped": dict(ti.dropped), "per_item": family.item_values(result, ids),
            "status": "ok"}


def ok(draft: Draft, *, where: str, started: float, protocol: Mapping[str, Any] = _NONE,
       **fields: Any) -> Record:
    """The record of a computed result: ``draft`` with the ``protocol`` settings and the
    ``fields`` of the run (:func:`result_fields` among them), dated now, built and checked
    once (a value out of its range or undefined raises a ValueError naming ``where`` and
    the field)."""
    return _built(draft, protocol, {**fields, "status": "ok",
                                    "runtime_s": round(time.perf_counter() - started, 3),
                                    "date": now()}, where=where, fix=UNDEFINED)


def failed(draft: Draft, err: BaseException, *, where: str, started: float,
           dated: bool = False, protocol: Mapping[str, Any] = _NONE, **fields: Any
           ) -> Record:
    """The record of a result that could not be computed: ``draft`` with what the run
    found before (``protocol`` settings, ``fields``), ``err`` and the end of its
    traceback, the time spent (since ``started``); dated now when ``dated``."""
    tb = traceback.format_exception(type(err), err, err.__traceback__)
    ended = {**fields, "status": "failed", "failure": failure(err),
             "error": f"{type(err).__name__}: {err}",
             "traceback": "".join(tb[-3:]).strip(),
             "runtime_s": round(time.perf_counter() - started, 3)}
    return _built(draft, protocol, {**ended, "date": now()} if dated else ended, where=where)


def failure(err: BaseException) -> str:
    """The kind of failure ``err`` is (a record's ``failure``,
    :data:`~stebkit.records.schema.FAILURES`), by its type.

    >>> from stebkit.errors import DataUnavailable
    >>> failure(DataUnavailable("offline")), failure(ValueError("no texts"))
    ('data_unavailable', 'error')
    """
    from stebkit.errors import DataUnavailable, ModelUnavailable

    if isinstance(err, DataUnavailable):
        return "data_unavailable"
    return "model_unavailable" if isinstance(err, ModelUnavailable) else "error"


def skipped(draft: Draft, reason: str, *, where: str, warnings: list[str] | None = None,
            **fields: Any) -> Record:
    """The record of a result that is not computed, with the ``reason`` (the run's
    ``warnings``, and ``fields`` such as the dropped labels)."""
    return _built(draft, _NONE, {**({} if warnings is None else {"warnings": warnings}),
                                 "status": "skipped", **fields, "reason": reason}, where=where)


def _built(draft: Draft, protocol: Mapping[str, Any], fields: Mapping[str, Any], *,
           where: str, fix: str = RECOMPUTE) -> Record:
    """The record of ``draft`` with ``protocol`` settings and ``fields`` (a key the draft
    has keeps its place, a new one comes after), checked."""
    from stebkit.records.record import jsonable

    record = {**draft, "protocol": {**draft["protocol"], **protocol}, **fields}
    return Record.from_json(jsonable(record), where=where, fix=fix)
