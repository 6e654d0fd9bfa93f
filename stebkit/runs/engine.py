"""Evaluate models x datasets x tasks x episode sizes, one result record per combination.

The run has three seams, each a public function:

1. :func:`plan` — the run resolved once, as a :class:`Plan`: its models
   (:class:`PlannedModel`), its datasets and every combination as a :class:`Unit` with
   its record path (:func:`stebkit.results.find_record`); :func:`needs_run` says which
   are pending, so combinations whose record is already there are skipped *before* a
   model is loaded or a text encoded — an interrupted run resumes where it stopped;
2. :func:`run_model_dataset` — all pending units of one model on one dataset: the
   family of each unit (:data:`stebkit.tasks.FAMILIES`) builds its input, the unique
   texts are encoded once (through the embedding cache), episodes are mean-pooled (or
   embedded by the encoder itself when it defines its own ``encode_episodes``), the
   family's task function runs and its main metric gets a bootstrap interval;
3. each record is written atomically as soon as it is done.

:func:`run` chains them with the settings of one :class:`RunContext` (seed, smoke,
batch size, device, overwrite, cache, trust, and the models it keeps built):
:func:`plan_run` plans the run once (a preset's entries with :func:`plan_preset`) and
:func:`run_plan` runs the plan in this process, as the sequential executor and each job
of the local and SLURM executors do. :func:`stebkit.evaluate` (:mod:`stebkit.runs.executors`)
is the public entry point: it makes the context from its arguments and hands the plan to
an executor. The plan, the context and the models live in :mod:`stebkit.runs`; every
public name is importable from here.

A failure is recorded (``status: "failed"``, with the error) and the run goes on, except
a fault of the machine that every result would hit (a full disk, a read-only cache:
:func:`stops_the_run`), which stops the run at once; a task a dataset does not serve is
recorded as ``"skipped"`` with the reason. A successful record made with other settings
(seed, smoke, sampling, episodes per label) is never replaced unless ``overwrite="always"``
(:func:`check_resume`).
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import sys
import time
import traceback
import warnings
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.datasets.spec import Dataset, Submetric, expand_submetrics
from stebkit.errors import StebkitError
from stebkit.results import (
    UNDEFINED,
    Record,
    Results,
    check_metrics,
    check_record,
    new_record,
    per_item,
    write_record,
)
from stebkit.runs import context as run_context
from stebkit.runs.context import OVERWRITE, RunContext, run_protocol
from stebkit.runs.encoders import (
    _embeds_episodes,
    _for_language,
    _prepare_encoder,
    _with_cache,
    collapsed_share,
)
from stebkit.runs.planning import (
    SMOKE_EPISODES_PER_LABEL,
    Plan,
    PlannedModel,
    PresetPlan,
    ProtocolMismatch,
    Unit,
    check_resume,
    existing_record,
    model_scoring,
    needs_run,
    other_settings,
    plan,
    plan_preset,
    planned_model,
    resume_protocol,
)
from stebkit.tasks import TaskFamily
from stebkit.tasks.inputs import TaskInput, keep_texts, restrict

__all__ = [
    "OVERWRITE", "SMOKE_EPISODES_PER_LABEL", "COLLAPSE_WARN",
    "RunContext", "PlannedModel", "Plan", "PresetPlan", "Unit", "plan", "plan_preset",
    "planned_model", "plan_run", "existing_record", "needs_run", "ProtocolMismatch",
    "other_settings", "check_resume", "resume_protocol", "model_scoring", "run", "run_plan",
    "progress_interval", "run_protocol", "run_model_dataset", "stops_the_run",
    "collapsed_share",
]

log = logging.getLogger("stebkit.runner")

COLLAPSE_WARN = 0.1
"""A record warns when more than this share of its distinct texts (or, for encoders that
embed episodes themselves, of its items) share one identical vector."""


# --------------------------------------------------------------------------- records


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _model_meta(model: PlannedModel, encoder: Any) -> dict[str, Any]:
    name, info = model.name, model.info
    category = getattr(encoder, "category", None)
    if category is None:  # the zoo's category of this very name (not of a Hub id)
        category = info.category if info is not None and info.name == name else None
    revision = getattr(encoder, "revision", None) if not isinstance(encoder, Exception) else None
    meta = {"name": name, "revision": str(revision or "unknown"),
            "category": category or "custom"}
    with contextlib.suppress(Exception):  # an encoder that failed or has no such options
        # every option that changes a vector: the embedding cache's key
        meta["encoder_config"] = json.loads(json.dumps(dict(encoder.cache_config),
                                                       sort_keys=True, default=str))
    return meta


def _dataset_meta(unit: Unit) -> dict[str, Any]:
    spec = unit.spec
    return {"name": spec.name, "fingerprint": unit.fingerprint,
            "source_sha256": [sha for _, sha in spec.source.urls],
            "category": spec.category, "languages": list(spec.languages),
            "application": spec.application}


def _skeleton(unit: Unit, protocol: dict[str, Any], model: dict[str, Any],
              dataset: dict[str, Any]) -> dict[str, Any]:
    return new_record(model=model, dataset=dataset, task=unit.task,
                      episode_size=unit.episode_size,
                      episodes_per_label=unit.episodes_per_label, seed=protocol["seed"],
                      protocol=protocol,
                      main_metric=unit.spec.main_metric or unit.family.main_metric,
                      n_items=0, runtime_s=0.0, date=_now())


def _failed(record: dict[str, Any], err: BaseException, started: float) -> dict[str, Any]:
    tb = traceback.format_exception(type(err), err, err.__traceback__)
    record.update(status="failed", error=f"{type(err).__name__}: {err}",
                  traceback="".join(tb[-3:]).strip(),
                  runtime_s=round(time.perf_counter() - started, 3))
    log.warning("%s / %s / %s (e=%s) failed: %s", record["model"]["name"],
                record["dataset"]["name"], record["task"], record["episode_size"],
                record["error"])
    return record


# --------------------------------------------------------------------------- work


def _captured(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """Run ``fn`` and return its result and the warnings it issued (logged, not raised)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    messages = [f"{w.category.__name__}: {w.message}" for w in caught]
    for m in messages:
        log.warning(m)
    return out, messages


def _parts(result: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, int],
                                                dict[str, Any]]:
    """Metrics, counts and chosen settings of a task result (a TaskResult, or a plain
    dict of floats plus ``details`` from a user's own family)."""
    from stebkit.tasks import TaskResult

    if isinstance(result, TaskResult):
        return dict(result.metrics), dict(result.counts), result.scalars()
    return {k: float(v) for k, v in result.items() if k != "details"}, {}, {}


def _evaluate(family: TaskFamily, ti: TaskInput, item_emb: np.ndarray, *, seed: int,
              batch_size: int, scoring: str) -> tuple[Any, list[str]]:
    """Run the family on built inputs; its warnings are logged and returned."""
    return _captured(family.evaluate, ti, item_emb, seed=seed, batch_size=batch_size,
                     scoring=scoring)


def _run_unit(unit: Unit, ti: TaskInput, item_emb: np.ndarray, record: dict[str, Any],
              *, seed: int, batch_size: int, scoring: str = "cosine") -> dict[str, Any]:
    family = unit.family
    scoring = family.scoring_for(scoring)
    record["protocol"]["scoring"] = scoring
    result, messages = _evaluate(family, ti, item_emb, seed=seed, batch_size=batch_size,
                                 scoring=scoring)
    metrics, counts, chosen = _parts(result)
    main = record["main_metric"]
    if main not in metrics:
        raise ValueError(f"dataset {unit.spec.name!r}, task {unit.task!r}, field "
                         f"'main_metric': the family does not produce {main!r}; its metrics "
                         f"are {sorted(metrics)}")
    ids = family.item_ids(ti, result)
    details = result.get("details") or {}
    if isinstance(details.get("per_label"), Mapping):
        record["per_label"] = {str(k): dict(v) for k, v in details["per_label"].items()}
    record.update(metrics=metrics, counts=counts, chosen=chosen,
                  higher_is_better=family.metrics.get(main, True),
                  # None when a dataset's main metric is not the one the bootstrap resamples
                  ci=family.bootstrap(result, seed=seed,
                                      n_resamples=run_context.N_RESAMPLES,
                                      confidence=run_context.CONFIDENCE)
                  if main == family.main_metric else None,
                  episodes_per_label=ti.episodes_per_label,
                  n_items=len(ids) or ti.n_items, n_texts=len(ti.texts),
                  dropped=dict(ti.dropped), per_item=per_item(unit.task, result, ids),
                  status="ok")
    record["warnings"] = record.get("warnings", []) + messages
    return record


def _field_texts(records: Any, name: str, sub: Submetric) -> set[str]:
    """The texts of the records a field sub-result keeps."""
    if sub.field not in records.columns:
        raise ValueError(f"submetric {name!r}: the records have no column {sub.field!r}; the "
                         "dataset's reader must provide it")
    if sub.sides == "query" and "side" not in records.columns:
        raise ValueError(f"submetric {name!r}: sides='query' needs a 'side' column "
                         "(retrieval records)")
    match = records[sub.field].notna() & (records[sub.field].astype(str) == sub.value)
    return set(records.loc[match, "text"])


def _run_submetrics(unit: Unit, ti: TaskInput, item_emb: np.ndarray, record: dict[str, Any],
                    records: Any, embed: Any, *, seed: int, batch_size: int,
                    scoring: str) -> None:
    """The dataset's declared sub-results of this task (``record["submetrics"]``): each
    its metrics, or ``{"error": ...}`` when it cannot be computed (as the reference)."""
    config = unit.spec.tasks.get(unit.task)
    if config is None or not config.submetrics:
        return
    family = unit.family
    out: dict[str, dict[str, Any]] = {}
    for name, sub in expand_submetrics(config.submetrics, records).items():
        try:
            if sub.kind == "labels":
                sub_ti, idx = restrict(ti, sub.labels)
                sub_emb = item_emb[idx]
            else:
                sub_ti = keep_texts(ti, _field_texts(records, name, sub),
                                    sides=("query",) if sub.sides == "query" else None)
                sub_emb = embed(sub_ti)
            result, _ = _evaluate(family, sub_ti, sub_emb, seed=seed, batch_size=batch_size,
                                  scoring=family.scoring_for(scoring))
            metrics, counts, _ = _parts(result)
            out[name] = {**check_metrics(unit.task, metrics, where=f"submetric {name!r}",
                                         fix=UNDEFINED), "n_items": sub_ti.n_items}
        except Exception as err:  # recorded per sub-result; the main result stands
            out[name] = {"error": f"{type(err).__name__}: {err}"}
    record["submetrics"] = out


def plan_run(models: Any, datasets: Any, context: RunContext, *,
             tasks: Sequence[str] | None = None, output_dir: str | os.PathLike = "results",
             episode_sizes: Any = None, episodes_per_label: Any = None,
             preset: str | None = None) -> Plan | PresetPlan:
    """The run of :func:`stebkit.evaluate` planned once, with the settings of ``context``:
    a :class:`Plan` (:func:`plan`), or with a ``preset`` the plan of each of its entries
    (:func:`plan_preset`).

    >>> ctx = RunContext(smoke=True)
    >>> len(plan_run("random", "synthetic-authors-en", ctx, output_dir="unused"))
    5
    >>> p = plan_run("random", "synthetic-authors-en", ctx, preset="benchmark",
    ...              output_dir="unused")
    >>> [(e[0].task, len(e)) for e in p.plans][:2], p.unavailable
    ([('clustering', 3), ('all_to_all_pairs', 3)], ())
    """
    if preset:
        return plan_preset(preset, models, datasets, context=context, tasks=tasks,
                           episode_sizes=episode_sizes, episodes_per_label=episodes_per_label,
                           output_dir=output_dir)
    if datasets is None:
        raise ValueError("datasets is missing: pass dataset names or Datasets (or a preset)")
    return plan(models, datasets, tasks=tasks, episode_sizes=episode_sizes,
                output_dir=output_dir, episodes_per_label=episodes_per_label, context=context)


def run(models: Any, datasets: Any, context: RunContext, *,
        tasks: Sequence[str] | None = None, output_dir: str | os.PathLike = "results",
        episode_sizes: Any = None, episodes_per_label: Any = None,
        preset: str | None = None) -> Results:
    """Plan the run once with the settings of ``context`` (:func:`plan_run`) and run it in
    this process (:func:`run_plan`): the engine behind :func:`stebkit.evaluate`, and what
    each local or SLURM job runs on its units.

    >>> import tempfile
    >>> res = run("random", "synthetic-authors-en", RunContext(smoke=True, show_progress=False),
    ...           tasks=["retrieval"], output_dir=tempfile.mkdtemp())
    >>> res.ok, res.main_frame()[["model", "dataset", "task", "metric"]].values.tolist()
    (True, [['random', 'synthetic-authors-en', 'retrieval', 'mrr']])
    """
    return run_plan(plan_run(models, datasets, context, tasks=tasks, output_dir=output_dir,
                             episode_sizes=episode_sizes,
                             episodes_per_label=episodes_per_label, preset=preset), context)


def run_plan(the_plan: Plan | PresetPlan, context: RunContext) -> Results:
    """Run the pending units of ``the_plan`` in this process, model after model (each
    built once, only when one of its units is pending and served), and return every
    record of the plan (read back from its folder): the sequential executor, and what
    each local or SLURM job runs on its units. A preset's plan (:class:`PresetPlan`) runs
    entry after entry, each model built once for all of them.

    >>> import tempfile
    >>> ctx = RunContext(smoke=True, show_progress=False)
    >>> p = plan("random", "synthetic-authors-en", tasks=["retrieval"], context=ctx,
    ...          output_dir=tempfile.mkdtemp())
    >>> run_plan(p, ctx).main_frame()[["model", "task", "metric"]].values.tolist()
    [['random', 'retrieval', 'mrr']]
    """
    if isinstance(the_plan, PresetPlan):
        return _run_preset(the_plan, context)
    from stebkit.datasets.hub import check_remote_code

    for spec, loaded_ds in the_plan.datasets:
        if loaded_ds is None:
            check_remote_code(spec, context.trust_remote_code)
    units = the_plan.units

    from tqdm.auto import tqdm

    pending = []
    for model in the_plan.models:
        mine = [u for u in units if u.model == model.name]
        todo = [u for u, due in zip(units, the_plan.pending, strict=True)
                if due and u.model == model.name]
        given = model.given
        if todo and any(u.served for u in todo):
            given = _prepare_encoder(model, context)
        pending.append((model, given, len(mine) - len(todo), todo))

    bar = tqdm(total=len(units), desc="stebkit", unit="result",
               disable=not context.show_progress, mininterval=progress_interval())
    loaded: dict[str, Dataset] = {spec.name: ds for spec, ds in the_plan.datasets
                                  if ds is not None}
    inputs: dict[tuple[str, str, int], tuple[TaskInput | BaseException, list[str]]] = {}
    try:
        for model, encoder, n_done, todo in pending:
            bar.update(n_done)
            adapted: dict[str, tuple[Any, Any]] = {}  # encoder name -> (encoder, cached)
            for spec, _ in the_plan.datasets:
                mine = [u for u in todo if u.spec.name == spec.name]
                if not mine:
                    continue
                bar.set_postfix_str(f"{model.name} / {spec.name}", refresh=False)
                dataset = _run_model_dataset(
                    model, encoder, mine, loaded.get(spec.name), context, inputs,
                    adapted, lambda _u, _r: bar.update(1),
                    show_progress=False)  # no bar per encoding: the run's bar counts results
                if dataset is not None:
                    loaded[spec.name] = dataset
    finally:
        bar.close()
    return Results((Record.read(u.path) for u in units if u.path.exists()),
                   root=the_plan.root)


def progress_interval() -> float:
    """Seconds between refreshes of a run's progress bar: 0.1 on a terminal, 30 when
    stderr goes to a file or pipe (a log keeps a line per refresh, not a moving bar).

    >>> import io
    >>> from unittest import mock
    >>> with mock.patch("sys.stderr", io.StringIO()):  # a log file
    ...     progress_interval()
    30.0
    >>> tty = mock.Mock(isatty=lambda: True)
    >>> with mock.patch("sys.stderr", tty):
    ...     progress_interval()
    0.1
    """
    return 0.1 if getattr(sys.stderr, "isatty", bool)() else 30.0


def _run_preset(the_plan: PresetPlan, context: RunContext) -> Results:
    """:func:`run_plan` of every entry of a preset into one results folder."""
    the_plan.announce(stacklevel=4)  # attributed to stebkit.evaluate's line
    context = context.keeping_encoders()  # each model loads once for all the entries
    records = []
    for entry in the_plan.plans:
        records += run_plan(entry, context).records
    return Results(records, root=the_plan.root)


def run_model_dataset(model: str, encoder: Any, units: Sequence[Unit], *,
                      dataset: Dataset | None = None, context: RunContext | None = None,
                      on_record: Any = None) -> list[Path]:
    """Evaluate and record the pending ``units`` of one model on one dataset.

    The unit of work of a run (what an executor hands to one worker): loads the dataset
    (unless given), builds each family's input, encodes the unique texts once, runs every
    unit and writes its record atomically. Failures are recorded, never raised.

    Parameters
    ----------
    model : str
        The model name (as in the units).
    encoder : encoder, str or None
        An encoder object; None (or the model name) builds the zoo model.
    units : sequence of Unit
        Units of this model and one dataset (from :func:`plan`, usually its pending ones).
    dataset : Dataset, optional
        The loaded dataset (loaded here otherwise, with the context's seed and smoke).
    context : RunContext, optional
        The run's settings (default: ``RunContext(show_progress=False)``);
        ``show_progress`` shows the encoding's progress.
    on_record : callable, optional
        ``on_record(unit, record)`` after each record is written.

    Returns
    -------
    list of Path
        The record files written.

    Examples
    --------
    >>> import tempfile
    >>> ctx = RunContext(smoke=True, show_progress=False)
    >>> units = plan("random", "synthetic-authors-en", tasks=["retrieval"], context=ctx,
    ...              output_dir=tempfile.mkdtemp())
    >>> paths = run_model_dataset("random", None, units, context=ctx)
    >>> Record.read(paths[0]).status
    'ok'
    """
    if not units:
        return []
    context = context or RunContext(show_progress=False)
    names = {(u.model, u.spec.name) for u in units}
    if len(names) != 1 or next(iter(names))[0] != model:
        raise ValueError(f"run_model_dataset: units must all be of model {model!r} and one "
                         f"dataset, got {sorted(names)}")
    given = None if encoder is None or isinstance(encoder, str) else encoder
    planned = planned_model(model, given)
    encoder = _prepare_encoder(planned, context)
    written: list[Path] = []

    def record(unit: Unit, rec: dict[str, Any]) -> None:
        written.append(unit.path)
        if on_record is not None:
            on_record(unit, rec)

    _run_model_dataset(planned, encoder, list(units), dataset, context, {}, {}, record,
                       show_progress=context.show_progress)
    return written


def _run_model_dataset(model: PlannedModel, encoder: Any, units: list[Unit],
                       dataset: Dataset | None, ctx: RunContext, inputs: dict, adapted: dict,
                       done: Any, *, show_progress: bool) -> Dataset | None:
    """All pending records of one model on one dataset; returns the loaded dataset.

    ``adapted`` keeps, per encoder name, the encoder adapted to a language and its cached
    version, so that one model's datasets share them."""
    base = ctx.protocol
    seed, smoke = ctx.seed, ctx.smoke
    spec = units[0].spec
    model_meta = _model_meta(model, encoder)
    started = time.perf_counter()
    records = {}
    for u in units:
        protocol = {**base, "served": u.served, "pooling": "mean"}
        records[u.key] = _skeleton(u, protocol, model_meta, _dataset_meta(u))
    # tasks the dataset does not serve: nothing to load
    for u in [u for u in units if not u.served]:
        rec = records.pop(u.key)
        rec.update(status="skipped", reason=f"dataset {spec.name!r} does not serve task "
                   f"{u.task!r}; it serves {sorted(spec.tasks)}")
        write_record(u.path, rec)
        done(u, rec)
    units = [u for u in units if u.served]
    if not units:
        return dataset
    try:
        if isinstance(encoder, Exception):
            raise encoder
        if dataset is None:
            from stebkit.datasets import load_dataset

            dataset = load_dataset(spec, seed=seed, smoke=smoke,  # the planned spec
                                   trust_remote_code=ctx.trust_remote_code)
        ds_encoder, note = _for_language(encoder, spec.languages)
        key = str(getattr(ds_encoder, "name", model.name))
        if key not in adapted:
            adapted[key] = (ds_encoder, _with_cache(ds_encoder, ctx.cache_embeddings))
        ds_encoder, text_encoder = adapted[key]
    except Exception as err:  # recorded; the run goes on
        _raise_if_fatal(err)
        for u in units:
            rec = _failed(records[u.key], err, started)
            write_record(u.path, rec)
            done(u, rec)
        return dataset
    _run_dataset(dataset, units, records, inputs, ds_encoder, text_encoder, done, ctx,
                 show_progress=show_progress, notes=[note] if note else [])
    return dataset


_FATAL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


def stops_the_run(err: BaseException) -> bool:
    """Whether ``err`` is a fault of the machine that every other result would hit too (a
    full disk or quota, a read-only file system, a cache folder this user cannot write):
    the run stops at once with it instead of recording it as the failure of each result.

    >>> import errno
    >>> stops_the_run(OSError(errno.ENOSPC, "No space left on device", "shard.npz"))
    True
    >>> stops_the_run(ValueError("cannot encode these texts"))
    False
    """
    if not isinstance(err, OSError) or isinstance(err, StebkitError):
        return False
    if err.errno in _FATAL_ERRNOS:
        return True
    if err.errno not in (errno.EACCES, errno.EPERM) or not isinstance(err.filename,
                                                                      (str, bytes)):
        return False
    from stebkit.sources import cache_dir

    return Path(os.fsdecode(err.filename)).resolve().is_relative_to(cache_dir().resolve())


def _raise_if_fatal(err: BaseException) -> None:
    if stops_the_run(err):
        raise err


def _note_collapse(rec: dict[str, Any], vectors: np.ndarray, what: str,
                   collapsed: list[tuple[float, str]]) -> None:
    """Record the collapsed share; above the threshold, a warning in the record and in
    ``collapsed`` (logged once per model and dataset by :func:`_run_dataset`)."""
    share = collapsed_share(vectors)
    rec["collapsed_share"] = share
    if share > COLLAPSE_WARN:
        message = (f"{rec['model']['name']} / {rec['dataset']['name']}: "
                   f"{share:.0%} of the {len(vectors)} {what} share one identical vector; "
                   "the encoder cannot tell them apart (another language or script?)")
        collapsed.append((share, message))
        rec["warnings"] = [*rec.get("warnings", []), f"CollapsedVectors: {message}"]


def _run_dataset(dataset: Dataset, units: list[Unit], records: dict, inputs: dict,
                 encoder: Any, text_encoder: Any, done: Any, ctx: RunContext, *,
                 show_progress: bool, notes: Sequence[str] = ()) -> None:
    """Build episodes, encode the texts once, run and record every unit of one dataset."""
    seed, batch_size, sampling = ctx.seed, ctx.batch_size, ctx.sampling
    started = time.perf_counter()
    built: dict[tuple[str, int], TaskInput] = {}
    for u in units:
        key = (dataset.name, u.task, u.episode_size)
        if key not in inputs:
            try:
                inputs[key] = _captured(u.family.build, dataset.records,
                                        episode_size=u.episode_size,
                                        episodes_per_label=u.episodes_per_label, seed=seed,
                                        sampling=sampling)
            except Exception as err:
                _raise_if_fatal(err)
                inputs[key] = (err, [])
        ti, messages = inputs[key]
        rec = records[u.key]
        rec["warnings"] = [*notes, *messages]
        if isinstance(ti, BaseException):
            write_record(u.path, _failed(rec, ti, started))
            done(u, rec)
        elif ti.n_items == 0:
            rec.update(status="skipped", dropped=dict(ti.dropped),
                       reason=f"dataset {dataset.name!r}, task {u.task!r}, field "
                              f"'episodes_per_label': no labels can fill "
                              f"{ti.episodes_per_label} episode(s) of size {u.episode_size} "
                              f"after the documented filters (dropped {dict(ti.dropped)}); "
                              "lower episodes_per_label or use 'auto'")
            write_record(u.path, rec)
            done(u, rec)
        elif u.family.skip_reason(ti) is not None:
            rec.update(status="skipped", dropped=dict(ti.dropped),
                       reason=u.family.skip_reason(ti))
            write_record(u.path, rec)
            done(u, rec)
        else:
            built[u.key] = ti
    if not built:
        return
    custom = _embeds_episodes(encoder)
    t_encode = time.perf_counter()
    try:
        if not custom:
            texts = list(dict.fromkeys(t for ti in built.values() for t in ti.texts))
            emb = np.asarray(text_encoder.encode(texts, batch_size=batch_size,
                                                 show_progress=show_progress),
                             dtype=np.float32)
            if emb.ndim != 2 or emb.shape[0] != len(texts):
                raise ValueError(f"encoder {encoder.name!r} returned shape {emb.shape} for "
                                 f"{len(texts)} texts; expected ({len(texts)}, d)")
            row = {t: i for i, t in enumerate(texts)}
            for key in built:
                records[key]["encode_s"] = round(time.perf_counter() - t_encode, 3)
    except Exception as err:
        _raise_if_fatal(err)
        for u in units:
            if u.key in built:
                write_record(u.path, _failed(records[u.key], err, started))
                done(u, records[u.key])
        return
    def embed(sub: TaskInput) -> np.ndarray:
        """Item embeddings of an input cut down for a sub-result (same texts)."""
        if custom:
            return sub.shape_items(text_encoder.encode_episodes(
                sub.episode_texts(), batch_size=batch_size, show_progress=False))
        return sub.pool(emb[[row[t] for t in sub.texts]])

    collapsed: list[tuple[float, str]] = []
    for u in units:
        ti = built.get(u.key)
        if ti is None:
            continue
        rec = records[u.key]
        t0 = time.perf_counter()
        try:
            if custom:
                rec["protocol"]["pooling"] = "encoder"
                item_emb = ti.shape_items(text_encoder.encode_episodes(
                    ti.episode_texts(), batch_size=batch_size, show_progress=show_progress))
                _note_collapse(rec, item_emb.reshape(-1, item_emb.shape[-1]), "items",
                               collapsed)
            else:
                text_emb = emb[[row[t] for t in ti.texts]]
                _note_collapse(rec, text_emb, "distinct texts", collapsed)
                item_emb = ti.pool(text_emb)
            scoring = getattr(encoder, "scoring", "cosine")
            _run_unit(u, ti, item_emb, rec, seed=seed, batch_size=batch_size, scoring=scoring)
            _run_submetrics(u, ti, item_emb, rec, dataset.records, embed, seed=seed,
                            batch_size=batch_size, scoring=scoring)
            rec["runtime_s"] = round(time.perf_counter() - t0, 3)
            check_record(rec, where=f"{u.model} / {u.spec.name} / {u.task}", fix=UNDEFINED)
        except Exception as err:
            _raise_if_fatal(err)
            _failed(rec, err, t0)
        rec["date"] = _now()
        write_record(u.path, rec)
        done(u, rec)
    if collapsed:  # logged once per model and dataset; every record keeps its own
        _, message = max(collapsed)
        log.warning("%s%s", message, f" (the largest share of {len(collapsed)} results)"
                    if len(collapsed) > 1 else "")
