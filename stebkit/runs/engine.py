"""Evaluate models x datasets x tasks x episode sizes, one result record per combination.

A run is a pipeline of typed objects, each made once:

1. :func:`~stebkit.runs.planning.plan` (or :func:`plan_run`) — the run resolved once, as a
   :class:`~stebkit.runs.planning.Plan`: its models, its datasets and every combination as
   a :class:`~stebkit.runs.planning.Unit` (model, dataset spec, task family, episode
   configuration) with its record path (:func:`stebkit.records.results.find_record`);
   :func:`~stebkit.runs.planning.needs_run` says which are pending, so combinations whose
   record is already there are skipped *before* a model is loaded or a text encoded — an
   interrupted run resumes where it stopped;
2. :func:`evaluate_units` — the unit function: the pending units of one model on one
   dataset, in three steps (each family builds its input; the unique texts are encoded
   once, through the embedding cache, and episodes mean-pooled unless the encoder embeds
   them itself; each family evaluates, its main metric gets a bootstrap interval), each
   yielding its checked :class:`~stebkit.records.record.Record` (:mod:`stebkit.runs.outcomes`);
3. :func:`run_plan` — maps the unit function over the plan, model after model, and
   writes each record atomically as soon as it is made.

The settings of a run are one frozen :class:`~stebkit.runs.context.RunContext` (seed,
smoke, batch size, sampling, overwrite, device, cache, trust, progress); what it keeps
between units (the models built, the datasets loaded, the inputs built) is one
:class:`~stebkit.runs.context.RunState`.
:func:`run_plan` runs a plan in this process: the sequential executor runs the plan made
once, and each job of the local and SLURM executors the share of it that it is given;
:func:`stebkit.evaluate` (:mod:`stebkit.runs.evaluation`) is the public entry point.

A failure is recorded (``status: "failed"``, with the error) and the run goes on, except
a fault of the machine that every result would hit (a full disk, a read-only cache:
:func:`stops_the_run`), which stops the run at once; a task a dataset does not serve is
recorded as ``"skipped"`` with the reason. A successful record made with other settings
(seed, smoke, sampling, episodes per label) is never replaced unless ``overwrite="always"``
(:func:`~stebkit.runs.planning.check_resume`).
"""

from __future__ import annotations

import errno
import logging
import os
import sys
import time
import warnings
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.datasets.spec import Dataset, Submetric, expand_submetrics
from stebkit.errors import StebkitError
from stebkit.records.record import UNDEFINED, Record, check_metrics
from stebkit.records.results import Results, write_record
from stebkit.runs import outcomes
from stebkit.runs.context import RunContext, RunState
from stebkit.runs.encoders import (
    adapted_to_language,
    embeds_episodes,
    prepare_encoder,
    with_cache,
)
from stebkit.runs.planning import (
    Plan,
    PlannedModel,
    PresetPlan,
    Unit,
    plan,
    plan_preset,
)
from stebkit.tasks import TaskFamily
from stebkit.tasks.inputs import TaskInput, keep_texts, restrict

__all__ = ["plan_run", "run_plan", "progress_interval", "evaluate_units", "stops_the_run"]

log = logging.getLogger(__name__)

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


def _evaluate(family: TaskFamily, ti: TaskInput, item_emb: np.ndarray, *, seed: int,
              batch_size: int, scoring: str) -> tuple[Any, list[str]]:
    """Run the family on built inputs; its warnings are logged and returned."""
    return _captured(family.evaluate, ti, item_emb, seed=seed, batch_size=batch_size,
                     scoring=scoring)


def _field_texts(table: Any, name: str, sub: Submetric) -> set[str]:
    """The texts of the dataset's rows (``table``) a field sub-result keeps."""
    if sub.field not in table.columns:
        raise ValueError(f"submetric {name!r}: the records have no column {sub.field!r}; the "
                         "dataset's reader must provide it")
    if sub.sides == "query" and "side" not in table.columns:
        raise ValueError(f"submetric {name!r}: sides='query' needs a 'side' column "
                         "(retrieval records)")
    match = table[sub.field].notna() & (table[sub.field].astype(str) == sub.value)
    return set(table.loc[match, "text"])


def _run_submetrics(unit: Unit, ti: TaskInput, item_emb: np.ndarray, table: Any,
                    embed: Any, *, seed: int, batch_size: int,
                    scoring: str) -> dict[str, dict[str, Any]] | None:
    """The dataset's declared sub-results of this task (a record's ``submetrics``; None
    when it declares none): each its metrics, or ``{"error": ...}`` when it cannot be
    computed (as the reference)."""
    config = unit.spec.tasks.get(unit.task)
    if config is None or not config.submetrics:
        return None
    family = unit.family
    out: dict[str, dict[str, Any]] = {}
    for name, sub in expand_submetrics(config.submetrics, table).items():
        try:
            if sub.kind == "labels":
                sub_ti, idx = restrict(ti, sub.labels)
                sub_emb = item_emb[idx]
            else:
                sub_ti = keep_texts(ti, _field_texts(table, name, sub),
                                    sides=("query",) if sub.sides == "query" else None)
                sub_emb = embed(sub_ti)
            result, _ = _evaluate(family, sub_ti, sub_emb, seed=seed, batch_size=batch_size,
                                  scoring=family.scoring_for(scoring))
            metrics, counts, _ = outcomes.result_parts(result)
            out[name] = {**check_metrics(unit.task, metrics, where=f"submetric {name!r}",
                                         fix=UNDEFINED), "n_items": sub_ti.n_items}
        except Exception as err:  # recorded per sub-result; the main result stands
            out[name] = {"error": f"{type(err).__name__}: {err}"}
    return out


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


def run_plan(the_plan: Plan | PresetPlan, context: RunContext, *,
             kept_models: dict[tuple[Any, ...], Any] | None = None) -> Results:
    """Run the pending units of ``the_plan`` in this process and return every record of
    the plan (read back from its folder): the sequential executor, and what each local or
    SLURM job runs on its units.

    It maps the unit function (:func:`evaluate_units`) over each model's pending units of
    each dataset, model after model, and writes each record it returns (atomically, as
    soon as it is made). A model is built once, only when one of its units is pending and
    served; ``kept_models`` keeps the models built for the caller's later plans (a worker's
    later chunks; a preset's entries share one), keyed by name, options and device. A
    preset's plan (:class:`PresetPlan`) runs entry after entry.

    >>> import tempfile
    >>> ctx = RunContext(smoke=True, show_progress=False)
    >>> p = plan("random", "synthetic-authors-en", tasks=["retrieval"], context=ctx,
    ...          output_dir=tempfile.mkdtemp())
    >>> run_plan(p, ctx).main_frame()[["model", "task", "metric"]].values.tolist()
    [['random', 'retrieval', 'mrr']]
    """
    kept_models = {} if kept_models is None else kept_models
    if isinstance(the_plan, PresetPlan):
        return _run_preset(the_plan, context, kept_models)
    from stebkit.datasets.hub import check_remote_code

    for spec, loaded_ds in the_plan.datasets:
        if loaded_ds is None:
            check_remote_code(spec, context.trust_remote_code)
    state = RunState(models=kept_models, datasets={spec.name: ds for spec, ds in the_plan.datasets
                                              if ds is not None})
    work = _work(the_plan, context, state)  # every model resolved before anything runs

    from tqdm.auto import tqdm

    with tqdm(total=len(the_plan.units), desc="stebkit", unit="result",
              disable=not context.show_progress, mininterval=progress_interval()) as bar:
        for model, encoder, n_done, by_dataset in work:
            bar.update(n_done)
            state.next_model()
            for units in by_dataset:
                bar.set_postfix_str(f"{model.name} / {units[0].spec.name}", refresh=False)
                # no bar per encoding: the run's bar counts results
                for unit, record in evaluate_units(model, encoder, units, context, state):
                    write_record(unit.path, record)
                    bar.update(1)
    return Results((Record.read(u.path) for u in the_plan.units if u.path.exists()),
                   root=the_plan.root)


def _work(the_plan: Plan, context: RunContext, state: RunState
          ) -> list[tuple[PlannedModel, Any, int, list[list[Unit]]]]:
    """Each model of ``the_plan`` with its encoder (built only when one of its pending
    units is served), how many of its units are done, and its pending units by dataset."""
    work = []
    for model in the_plan.models:
        todo = [u for u, due in zip(the_plan.units, the_plan.pending, strict=True)
                if due and u.model == model.name]
        n_done = sum(u.model == model.name for u in the_plan.units) - len(todo)
        encoder = (prepare_encoder(model, context, state.models)
                   if any(u.served for u in todo) else model.given)
        by_dataset = [[u for u in todo if u.spec.name == spec.name]
                      for spec, _ in the_plan.datasets]
        work.append((model, encoder, n_done, [units for units in by_dataset if units]))
    return work


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


def _run_preset(the_plan: PresetPlan, context: RunContext,
                kept_models: dict[tuple[Any, ...], Any]) -> Results:
    """:func:`run_plan` of every entry of a preset into one results folder, each model
    built once for all the entries."""
    the_plan.announce(stacklevel=4)  # attributed to stebkit.evaluate's line
    records = []
    for entry in the_plan.plans:
        records += run_plan(entry, context, kept_models=kept_models).records
    return Results(records, root=the_plan.root)


def evaluate_units(model: PlannedModel, encoder: Any, units: Sequence[Unit],
                   context: RunContext, state: RunState, *,
                   show_progress: bool = False) -> Iterator[tuple[Unit, Record]]:
    """The unit function of a run: each of the ``units`` of one model on one dataset with
    its checked record, yielded as soon as it is made (the caller writes it).

    A unit the dataset does not serve is skipped; then the dataset is loaded (unless
    ``state`` holds it) and the encoder adapted to its language, and the three steps run:
    build each unit's task input, encode the texts once, evaluate each unit. A failure is
    the failed record of the units it touches, never raised, except a fault of the machine
    (:func:`stops_the_run`). ``encoder`` is the built model, or the exception that says
    why it cannot be had here."""
    spec = units[0].spec
    meta = outcomes.model_meta(model, encoder)
    started = time.perf_counter()
    drafts = {u.key: outcomes.start(u, {**context.protocol, "served": u.served,
                                       "pooling": "mean"}, meta, outcomes.dataset_meta(u))
              for u in units}
    for u in units:
        if not u.served:
            yield u, outcomes.skipped(drafts[u.key], f"dataset {spec.name!r} does not serve "
                                     f"task {u.task!r}; it serves {sorted(spec.tasks)}",
                                     where=str(u.path))
    served = [u for u in units if u.served]
    if not served:
        return
    try:
        dataset, ds_encoder, text_encoder, note = _dataset_and_encoder(model, encoder, spec,
                                                                       context, state)
    except Exception as err:  # recorded; the run goes on
        _raise_if_fatal(err)
        for u in served:
            yield u, _failed(drafts[u.key], err, u, started)
        return
    yield from _evaluate_dataset(dataset, served, drafts, ds_encoder, text_encoder, context,
                                 state, show_progress=show_progress,
                                 notes=[note] if note else [])


def _dataset_and_encoder(model: PlannedModel, encoder: Any, spec: Any, ctx: RunContext,
                         state: RunState) -> tuple[Dataset, Any, Any, str | None]:
    """The dataset (loaded once per state), the encoder adapted to its language and its
    cached version (once per model and language), and the note the adaptation leaves."""
    if isinstance(encoder, Exception):
        raise encoder
    dataset = state.datasets.get(spec.name)
    if dataset is None:
        from stebkit.datasets import load_dataset

        dataset = state.datasets[spec.name] = load_dataset(  # the planned spec
            spec, seed=ctx.seed, smoke=ctx.smoke, trust_remote_code=ctx.trust_remote_code)
    ds_encoder, note = adapted_to_language(encoder, spec.languages)
    key = str(getattr(ds_encoder, "name", model.name))
    if key not in state.adapted:
        state.adapted[key] = (ds_encoder, with_cache(ds_encoder, ctx.cache_embeddings))
    return dataset, *state.adapted[key], note


def _failed(draft: outcomes.Draft, err: BaseException, unit: Unit, started: float, *,
            dated: bool = False, **parts: Any) -> Record:
    """The failed record of ``unit`` (:func:`stebkit.runs.outcomes.failed`, with the
    ``parts`` found before), logged."""
    log.warning("%s / %s / %s (e=%s) failed: %s", draft["model"]["name"],
                draft["dataset"]["name"], draft["task"], draft["episode_size"],
                f"{type(err).__name__}: {err}")
    return outcomes.failed(draft, err, where=str(unit.path), started=started, dated=dated,
                          **parts)


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


def _evaluate_dataset(dataset: Dataset, units: list[Unit], drafts: dict, encoder: Any,
                      text_encoder: Any, ctx: RunContext, state: RunState, *,
                      show_progress: bool, notes: Sequence[str] = ()
                      ) -> Iterator[tuple[Unit, Record]]:
    """The three steps of one model on one dataset: build each unit's task input (once
    per task and episode configuration), encode the texts once, evaluate each unit into
    its record; every record is yielded as soon as it is made."""
    started = time.perf_counter()
    # step 1 yields the records of the units it ends, and returns the inputs it built
    built = yield from _build_inputs(dataset, units, drafts, ctx, state, notes, started)
    if not built:
        return
    try:
        encoded = _encode(built, encoder, text_encoder, ctx, show_progress)
    except Exception as err:
        _raise_if_fatal(err)
        for u in units:
            if u.key in built:
                yield u, _failed(drafts[u.key], err, u, started, warnings=built[u.key][1])
        return
    made_by = outcomes.encoder_config(encoder)  # the pass that made the vectors, now known
    drafts = {k: outcomes.with_model(d, made_by) for k, d in drafts.items()}
    collapsed: list[tuple[float, str]] = []
    for u in units:
        if u.key in built:
            ti, warnings = built[u.key]
            record, message = _evaluate_unit(u, ti, drafts[u.key], warnings, dataset, encoded,
                                             encoder, ctx, show_progress)
            if message is not None:
                collapsed.append((record["collapsed_share"], message))
            yield u, record
    if collapsed:  # logged once per model and dataset; every record keeps its own
        _, message = max(collapsed)
        log.warning("%s%s", message, f" (the largest share of {len(collapsed)} results)"
                    if len(collapsed) > 1 else "")


def _build_inputs(dataset: Dataset, units: list[Unit], drafts: dict, ctx: RunContext,
                  state: RunState, notes: Sequence[str], started: float
                  ) -> Generator[tuple[Unit, Record], None,
                                 dict[tuple, tuple[TaskInput, list[str]]]]:
    """Step 1: each unit's task input (built once per state, dataset, task and episode
    configuration) with its record's warnings so far, returned; a unit whose input fails
    or is empty, or that its family skips, is ended here: its record is yielded."""
    built = {}
    for u in units:
        key = (dataset.name, u.task, u.episode_size, u.episodes_per_label)
        if key not in state.inputs:
            try:
                state.inputs[key] = _captured(u.family.build, dataset.frame,
                                              episode_size=u.episode_size,
                                              episodes_per_label=u.episodes_per_label,
                                              seed=ctx.seed, sampling=ctx.sampling)
            except Exception as err:
                _raise_if_fatal(err)
                state.inputs[key] = (err, [])
        ti, messages = state.inputs[key]
        warnings = [*notes, *messages]
        if isinstance(ti, BaseException):
            yield u, _failed(drafts[u.key], ti, u, started, warnings=warnings)
        elif (reason := _skip_reason(dataset, u, ti)) is not None:
            yield u, outcomes.skipped(drafts[u.key], reason, where=str(u.path),
                                     warnings=warnings, dropped=dict(ti.dropped))
        else:
            built[u.key] = (ti, warnings)
    return built


def _skip_reason(dataset: Dataset, unit: Unit, ti: TaskInput) -> str | None:
    """Why ``unit`` is not computed on its built input (None: it is)."""
    if ti.n_items == 0:
        return (f"dataset {dataset.name!r}, task {unit.task!r}, field 'episodes_per_label': "
                f"no labels can fill {ti.episodes_per_label} episode(s) of size "
                f"{unit.episode_size} after the documented filters (dropped "
                f"{dict(ti.dropped)}); lower episodes_per_label or use 'auto'")
    return unit.family.skip_reason(ti)


@dataclass(frozen=True)
class _Encoded:
    """The texts of one dataset encoded once (``vectors``, a row per text in ``rows``),
    or an encoder that embeds episodes itself (``custom``): item embeddings of any input."""

    encoder: Any
    custom: bool
    vectors: np.ndarray | None
    rows: Mapping[str, int]
    batch_size: int
    encode_s: float | None

    def texts(self, ti: TaskInput) -> np.ndarray:
        """The vectors of ``ti``'s texts."""
        assert self.vectors is not None
        return self.vectors[[self.rows[t] for t in ti.texts]]

    def items(self, ti: TaskInput, show_progress: bool = False) -> np.ndarray:
        """The item embeddings of ``ti`` (or of an input cut down for a sub-result)."""
        if self.custom:
            return ti.shape_items(self.encoder.encode_episodes(
                ti.episode_texts(), batch_size=self.batch_size, show_progress=show_progress))
        return ti.pool(self.texts(ti))


def _encode(built: Mapping[tuple, tuple[TaskInput, Any]], encoder: Any, text_encoder: Any,
            ctx: RunContext, show_progress: bool) -> _Encoded:
    """Step 2: the unique texts of every built input encoded once (an encoder that embeds
    episodes itself encodes each input in step 3)."""
    if embeds_episodes(encoder):
        return _Encoded(text_encoder, True, None, {}, ctx.batch_size, None)
    t_encode = time.perf_counter()
    texts = list(dict.fromkeys(t for ti, _ in built.values() for t in ti.texts))
    emb = np.asarray(text_encoder.encode(texts, batch_size=ctx.batch_size,
                                         show_progress=show_progress), dtype=np.float32)
    if emb.ndim != 2 or emb.shape[0] != len(texts):
        raise ValueError(f"encoder {encoder.name!r} returned shape {emb.shape} for "
                         f"{len(texts)} texts; expected ({len(texts)}, d)")
    return _Encoded(text_encoder, False, emb, {t: i for i, t in enumerate(texts)},
                    ctx.batch_size, round(time.perf_counter() - t_encode, 3))


def _evaluate_unit(u: Unit, ti: TaskInput, draft: outcomes.Draft, warnings: list[str],
                   dataset: Dataset, encoded: _Encoded, encoder: Any, ctx: RunContext,
                   show_progress: bool) -> tuple[Record, str | None]:
    """Step 3: one unit evaluated into its record, built once from the parts found (failed
    when any part fails, with the parts found before it), and its collapse warning, if
    any."""
    seed, batch_size = ctx.seed, ctx.batch_size
    message, t0 = None, time.perf_counter()
    protocol: dict[str, Any] = {}
    found: dict[str, Any] = {"warnings": list(warnings)}
    if not encoded.custom:
        found["encode_s"] = encoded.encode_s
    try:
        if encoded.custom:
            protocol["pooling"] = "encoder"
            item_emb = encoded.items(ti, show_progress)
            vectors, what = item_emb.reshape(-1, item_emb.shape[-1]), "items"
        else:
            vectors, what = encoded.texts(ti), "distinct texts"
        found["collapsed_share"], message = outcomes.collapse(draft, vectors, what)
        if message is not None:
            found["warnings"].append(f"CollapsedVectors: {message}")
        if not encoded.custom:
            item_emb = ti.pool(vectors)
        scoring = getattr(encoder, "scoring", "cosine")
        protocol["scoring"] = u.family.scoring_for(scoring)
        result, messages = _evaluate(u.family, ti, item_emb, seed=seed, batch_size=batch_size,
                                     scoring=protocol["scoring"])
        found.update(outcomes.result_fields(draft, u, ti, result, seed=seed))
        found["warnings"].extend(messages)
        sub = _run_submetrics(u, ti, item_emb, dataset.frame, encoded.items, seed=seed,
                              batch_size=batch_size, scoring=scoring)
        if sub is not None:
            found["submetrics"] = sub
        return outcomes.ok(draft, where=f"{u.model} / {u.spec.name} / {u.task}", started=t0,
                          protocol=protocol, **found), message
    except Exception as err:
        _raise_if_fatal(err)
        return _failed(draft, err, u, t0, dated=True, protocol=protocol, **found), message


