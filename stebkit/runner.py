"""Evaluate models x datasets x tasks x episode sizes, one result record per combination.

The run has three seams, each a public function:

1. :func:`plan` — every combination becomes a :class:`Unit` with its record path
   (:func:`stebkit.results.find_record`); :func:`needs_run` says which are pending, so
   combinations whose record is already there are skipped *before* a model is loaded or
   a text encoded — an interrupted run resumes where it stopped;
2. :func:`run_model_dataset` — all pending units of one model on one dataset: the
   family of each unit (:data:`stebkit.tasks.FAMILIES`) builds its input, the unique
   texts are encoded once (through the embedding cache), episodes are mean-pooled (or
   embedded by the encoder itself when it defines its own ``encode_episodes``), the
   family's task function runs and its main metric gets a bootstrap interval;
3. each record is written atomically as soon as it is done.

:func:`evaluate` chains them. A failure is recorded (``status: "failed"``, with the
error) and the run goes on, except a fault of the machine that every result would hit (a
full disk, a read-only cache: :func:`stops_the_run`), which stops the run at once; a task
a dataset does not serve is recorded as ``"skipped"`` with the reason. A successful
record made with other settings (seed, smoke, sampling, episodes per label) is never
replaced unless ``overwrite="always"`` (:func:`check_resume`).
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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.datasets.spec import Dataset, DatasetSpec, Submetric, expand_submetrics
from stebkit.errors import StebkitError
from stebkit.results import (
    SCHEMA,
    UNDEFINED,
    Record,
    Results,
    check_metrics,
    check_record,
    find_record,
    per_item,
    read_record,
    write_record,
)
from stebkit.tasks import FAMILIES, TaskFamily
from stebkit.tasks.inputs import SAMPLING, TaskInput, keep_texts, restrict

log = logging.getLogger("stebkit.runner")

OVERWRITE = ("only-missing", "never", "always")
"""``only-missing``: compute what has no valid record (missing, failed, or made from
other dataset records or scored another way), and refuse to replace a successful record
made with other settings (seed, smoke, sampling, episodes per label: :func:`check_resume`);
``never``: never replace an existing file; ``always``: recompute everything."""

N_RESAMPLES = 1000
CONFIDENCE = 0.95
SMOKE_EPISODES_PER_LABEL = 10
"""Smoke runs sample at most this many episodes per label (the smoke datasets are tiny)."""
# parameters an existing record must share to count as done
_PROTOCOL_KEYS = ("seed", "episodes_per_label", "smoke", "served", "sampling", "scoring")
_PROTOCOL_DEFAULTS = {"scoring": "cosine"}  # what records written before a key existed used
COLLAPSE_WARN = 0.1
"""A record warns when more than this share of its distinct texts (or, for encoders that
embed episodes themselves, of its items) share one identical vector."""


@dataclass
class Unit:
    """One model x dataset x task x episode size: one record.

    ``episodes_per_label`` is an int or ``"auto"`` (resolved on the dataset's records).
    """

    model: str
    spec: DatasetSpec
    task: str
    episode_size: int
    episodes_per_label: int | str
    served: bool
    fingerprint: str
    path: Path

    @property
    def key(self) -> tuple[str, int]:
        return self.task, self.episode_size

    @property
    def family(self) -> TaskFamily:
        return FAMILIES[self.task]


# --------------------------------------------------------------------------- inputs


def _as_list(x: Any) -> list[Any]:
    if isinstance(x, (str, Dataset)) or not isinstance(x, Sequence):
        return [x]
    return list(x)


def _resolve_models(models: Any) -> list[tuple[str, Any]]:
    """``(name, encoder or None)``: names are loaded later, objects adapted now."""
    from stebkit._io import check_name

    out = []
    for m in _as_list(models):
        if isinstance(m, str):
            if not Path(m).expanduser().is_dir():  # a local model folder is a path by design
                check_name(m, "model")
            out.append((m, None))
        else:
            from stebkit.encoders import as_encoder

            enc = as_encoder(m)
            out.append((check_name(str(enc.name), "model"), enc))
    names = [n for n, _ in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"models: the name(s) {dupes} appear more than once; records are "
                         "stored per model name, so give each model a distinct name")
    if not out:
        raise ValueError("models is empty: pass at least one model name or encoder")
    return out


def _resolve_datasets(datasets: Any) -> list[tuple[DatasetSpec, Dataset | None]]:
    """``(spec, loaded dataset or None)``; unknown names raise the registry's error now."""
    out = []
    for d in _as_list(datasets):
        if isinstance(d, Dataset):
            out.append((d.spec, d))
        elif isinstance(d, str):
            from stebkit.datasets import get_spec

            out.append((get_spec(d), None))
        else:
            raise TypeError(f"datasets: expected dataset names or Dataset objects, got "
                            f"{type(d).__name__}")
    if not out:
        raise ValueError("datasets is empty: pass at least one dataset name or Dataset")
    for spec, _ in out:
        FAMILIES.check_tasks(spec)
    names = [spec.name for spec, _ in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"datasets: {dupes} appear more than once; pass each dataset once")
    return out


def _per_label(task: str, default: int | str, episodes_per_label: Any) -> int | str:
    """The episodes per label of ``task``: ``episodes_per_label`` (an int, or a mapping
    task -> int) when given, else ``default`` (the dataset's or the family's)."""
    value = episodes_per_label.get(task) if isinstance(episodes_per_label, Mapping) \
        else episodes_per_label
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"episodes_per_label: {value!r} is not a positive int")
    return int(value)


def _sizes(task: str, spec: DatasetSpec, episode_sizes: Any, *,
           smoke: bool = False, episodes_per_label: Any = None
           ) -> tuple[tuple[int, ...], int | str]:
    """Episode sizes and episodes per label of ``task`` on ``spec`` (capped when smoke):
    the dataset's configuration, else the family's reference preset."""
    family = FAMILIES.get_family(task, where="tasks")
    config = family.config(spec.tasks.get(task))
    sizes = config.episode_sizes
    if isinstance(episode_sizes, Mapping):
        sizes = tuple(episode_sizes.get(task, sizes))
    elif episode_sizes is not None and not family.single_text:
        sizes = tuple(episode_sizes)
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s == 0 or s < -1:
            raise ValueError(f"episode_sizes: {s!r} is not a positive int or -1 (task {task!r},"
                             f" dataset {spec.name!r})")
    per_label = _per_label(task, config.episodes_per_label, episodes_per_label)
    if smoke:
        per_label = SMOKE_EPISODES_PER_LABEL if per_label == "auto" else \
            min(per_label, SMOKE_EPISODES_PER_LABEL)
    return tuple(int(s) for s in sizes), per_label


def plan(models: Any, datasets: Any, *, tasks: Sequence[str] | None = None,
         episode_sizes: Any = None, output_dir: str | os.PathLike = "results",
         seed: int = 42, smoke: bool = False, episodes_per_label: Any = None) -> list[Unit]:
    """Every model x dataset x task x episode size of a run, as :class:`Unit` objects.

    Nothing heavy happens: models are not built and datasets not loaded (their
    fingerprints come from the specs). Arguments as :func:`evaluate`.

    >>> units = plan("random", "synthetic-authors-en", tasks=["clustering"])
    >>> [(u.task, u.episode_size, u.episodes_per_label) for u in units]
    [('clustering', 1, 5), ('clustering', 2, 5)]
    """
    if tasks is not None:
        tasks = _as_list(tasks)
        for t in tasks:
            FAMILIES.get_family(t, where="tasks")
    return _plan(_resolve_models(models), _resolve_datasets(datasets), tasks, episode_sizes,
                 Path(output_dir), seed=int(seed), smoke=bool(smoke),
                 episodes_per_label=episodes_per_label)


def _plan(models: list[tuple[str, Any]], specs: list[tuple[DatasetSpec, Any]],
          tasks: Sequence[str] | None, episode_sizes: Any, root: Path, *, seed: int,
          smoke: bool, episodes_per_label: Any = None) -> list[Unit]:
    from stebkit.datasets import fingerprint

    prints = {spec.name: dataset.fingerprint if dataset is not None else
              fingerprint(spec, seed=seed, smoke=smoke) for spec, dataset in specs}
    units = []
    for model, _ in models:
        for spec, _ in specs:
            wanted = list(spec.tasks) if tasks is None else list(tasks)
            for task in wanted:
                sizes, per_label = _sizes(task, spec, episode_sizes, smoke=smoke,
                                          episodes_per_label=episodes_per_label)
                for size in sizes:
                    units.append(Unit(model, spec, task, size, per_label, spec.serves(task),
                                      prints[spec.name],
                                      find_record(root, model, spec.name, task, size)))
    return units


def needs_run(unit: Unit, overwrite: str, protocol: Mapping[str, Any]) -> bool:
    """Whether ``unit`` must be (re)computed under ``overwrite`` (see :data:`OVERWRITE`):
    its record is missing, failed, or made with another dataset fingerprint or protocol
    (``protocol``: :func:`resume_protocol`, compared on seed, episodes per label, smoke,
    served, sampling and the scoring of the model's embeddings)."""
    if overwrite == "always" or not unit.path.exists():
        return True
    if overwrite == "never":
        return False
    try:
        record = read_record(unit.path)
    except (ValueError, OSError):
        return True
    if record.get("status") == "failed":
        return True
    if record.get("dataset", {}).get("fingerprint") != unit.fingerprint:
        return True  # the dataset's records changed (reader, sources, seed or size)
    old = record.get("protocol", {})
    return any(old.get(k, _PROTOCOL_DEFAULTS.get(k)) != protocol[k]
               for k in _PROTOCOL_KEYS if k in protocol)


_SETTINGS = ("seed", "smoke", "sampling", "episodes_per_label")
"""The protocol keys a user chooses for a run: records made with others are never
replaced silently (:func:`check_resume`)."""


class ProtocolMismatch(StebkitError, ValueError):
    """A run would replace results made with other settings (seed, smoke, ...)."""


def other_settings(unit: Unit, protocol: Mapping[str, Any]) -> str | None:
    """How the successful record of ``unit`` already on disk differs from ``protocol``
    (:func:`resume_protocol`) in the settings a user chooses (seed, smoke, sampling,
    episodes per label), or None (no such record, or the same settings)."""
    try:
        record = read_record(unit.path)
    except (ValueError, OSError):
        return None
    old = record.get("protocol")
    if record.get("status") != "ok" or not isinstance(old, Mapping):
        return None
    diffs = [f"{k} {old.get(k)!r} there, {protocol[k]!r} in this run" for k in _SETTINGS
             if k in protocol and old.get(k) != protocol[k]]
    return ", ".join(diffs) or None


def check_resume(pending: Sequence[tuple[Unit, Mapping[str, Any]]], overwrite: str) -> None:
    """Refuse (:class:`ProtocolMismatch`) to replace, under ``overwrite="only-missing"``,
    a successful record made with other settings than this run's: its numbers change only
    when the user asks (``overwrite="always"``, ``--overwrite always``). ``pending``:
    each unit with its :func:`resume_protocol`."""
    if overwrite != "only-missing":
        return
    found = [(u, d) for u, p in pending if u.path.exists() and (d := other_settings(u, p))]
    if not found:
        return
    unit, diff = found[0]
    raise ProtocolMismatch(
        f"{unit.path.parents[2]}: {len(found)} record(s) were made with other settings than "
        f"this run ({diff}; e.g. {unit.path}); run with the same settings to resume, pass "
        "--overwrite always (overwrite='always') to replace them, or choose another output "
        "folder")


def resume_protocol(unit: Unit, base: Mapping[str, Any], scoring: str) -> dict[str, Any]:
    """What an existing record of ``unit`` must share to count as done (:func:`needs_run`):
    the run's settings ``base``, the unit's episodes and, for a task the dataset serves,
    the scoring its family uses for a model asking for ``scoring``
    (:meth:`stebkit.tasks.TaskFamily.scoring_for`), so that records scored another way
    are recomputed.

    >>> unit = plan(["random"], ["synthetic-authors-en"], tasks=["clustering"], smoke=True,
    ...             output_dir="unused")[0]
    >>> resume_protocol(unit, run_protocol(), "l1")["scoring"]
    'l1'
    """
    out = {**base, "episodes_per_label": unit.episodes_per_label, "served": unit.served}
    if unit.served:
        out["scoring"] = unit.family.scoring_for(scoring)
    return out


def model_scoring(name: str, given: Any = None) -> str:
    """The scoring a model asks for: the ``scoring`` attribute of an encoder object
    ``given`` (cosine by default), else what the zoo declares for ``name``
    (:func:`stebkit.encoders.zoo.declared_scoring`), so that no model is built for it.

    >>> from stebkit.encoders import get_encoder
    >>> model_scoring("lftk"), model_scoring("x", get_encoder("lftk-zscore"))
    ('l1', 'cosine')
    """
    if given is None:
        from stebkit.encoders.zoo import declared_scoring

        return declared_scoring(name)
    return str(getattr(given, "scoring", "cosine"))


# --------------------------------------------------------------------------- records


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _model_meta(name: str, encoder: Any) -> dict[str, Any]:
    category = getattr(encoder, "category", None)
    if category is None:
        from stebkit.encoders.zoo import MODELS

        info = MODELS.get(name)
        category = info.category if info is not None else None
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
    from stebkit import __version__

    return {"schema": SCHEMA, "stebkit_version": __version__, "model": model, "dataset": dataset,
            "task": unit.task, "episode_size": unit.episode_size,
            "episodes_per_label": unit.episodes_per_label, "seed": protocol["seed"],
            "protocol": {**protocol, "task": unit.task, "episode_size": unit.episode_size,
                         "episodes_per_label": unit.episodes_per_label},
            "main_metric": unit.spec.main_metric or unit.family.main_metric, "metrics": {},
            "ci": None, "n_items": 0,
            "per_item": {"ids": [], "values": []}, "runtime_s": 0.0, "date": _now()}


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


def _embeds_episodes(encoder: Any) -> bool:
    """Whether ``encoder`` embeds episodes itself rather than mean-pooling its texts
    (LUAR, or the baselines that concatenate an episode's texts); looks through adapters."""
    from stebkit.encoders.base import BaseEncoder

    target = getattr(encoder, "obj", encoder)
    own = getattr(type(target), "encode_episodes", None)
    return own is not None and own is not BaseEncoder.encode_episodes


def _encoder_options(name: str, trust_remote_code: bool) -> dict[str, Any]:
    """Options for ``get_encoder(name)``: ``trust_remote_code`` reaches only the models that
    run their own code (zoo entries marked so, and Hub ids or folders outside the zoo)."""
    from stebkit.encoders.zoo import MODELS

    info = MODELS.get(name) or next((m for m in MODELS.values()
                                     if m.hub_id and m.hub_id.lower() == name.lower()), None)
    if trust_remote_code and (info is None or info.remote_code):
        return {"trust_remote_code": True}
    return {}


def _on_device(encoder: Any, device: str | None) -> Any:
    """Put a torch encoder on ``device`` before it loads (others run on the CPU anyway)."""
    if device is not None and hasattr(encoder, "device_name"):
        encoder.device_name = device
    return encoder


def _check_device(device: str | None) -> None:
    if device is None:
        return
    if not isinstance(device, str) or not device.strip():
        raise ValueError(f"device must be a name such as 'cpu', 'cuda', 'cuda:1' or 'mps', "
                         f"got {device!r}")
    import torch

    try:
        torch.device(device)
    except (RuntimeError, ValueError):
        raise ValueError(f"device {device!r} is not a torch device name ('cpu', 'cuda', "
                         "'cuda:1', 'mps')") from None


def _prepare_encoder(name: str, given: Any, *, trust_remote_code: bool = False,
                     device: str | None = None) -> Any:
    """Build a zoo model by name (weights load lazily, on the first encode).

    Unknown names raise ``ValueError`` now, before anything runs; a model that cannot be
    had here (:class:`stebkit.errors.ModelUnavailable`, e.g. one that needs remote code
    without ``trust_remote_code``) is returned as the exception, to be recorded as the
    failure of each of its results.
    """
    if given is not None:
        return _on_device(given, device)
    from stebkit.encoders import get_encoder
    from stebkit.errors import ModelUnavailable

    options = _encoder_options(name, trust_remote_code)
    key = (name, tuple(sorted(options.items())), device)
    if _BUILT is not None and key in _BUILT:
        return _BUILT[key]
    try:
        encoder = _on_device(get_encoder(name, **options), device)
    except ModelUnavailable as err:
        encoder = err
    if _BUILT is not None:
        _BUILT[key] = encoder
    return encoder


_BUILT: dict[tuple[Any, ...], Any] | None = None


@contextlib.contextmanager
def reuse_encoders() -> Iterator[dict[tuple[Any, ...], Any]]:
    """Build each model once for every :func:`evaluate` call inside the block.

    Out of the block, each :func:`evaluate` call builds (and loads) the models it names;
    inside it, a model built by name is kept, keyed by ``(name, options, device)``, and
    handed to the next call that names it: a worker that evaluates one model on several
    chunks of datasets loads it once. Yields the dict of kept encoders, from which a
    caller drops the models it is done with. Nested blocks share the outer one's.

    >>> with reuse_encoders() as kept:
    ...     first = _prepare_encoder("random", None)
    ...     again = _prepare_encoder("random", None)
    >>> first is again, [key[0] for key in kept]
    (True, ['random'])
    >>> _prepare_encoder("random", None) is first  # out of the block: built anew
    False
    """
    global _BUILT
    if _BUILT is not None:
        yield _BUILT
        return
    _BUILT = {}
    try:
        yield _BUILT
    finally:
        _BUILT = None


def _with_cache(encoder: Any, cache: bool) -> Any:
    from stebkit.encoders import cached
    from stebkit.encoders.cache import CachedEncoder

    if not cache or isinstance(encoder, CachedEncoder):
        return encoder
    return cached(encoder)


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
                  ci=family.bootstrap(result, seed=seed, n_resamples=N_RESAMPLES,
                                      confidence=CONFIDENCE)
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


def evaluate(
    models: Any,
    datasets: Any = None,
    *,
    tasks: Sequence[str] | None = None,
    output_dir: str | os.PathLike = "results",
    overwrite: str = "only-missing",
    seed: int = 42,
    smoke: bool = False,
    episode_sizes: Sequence[int] | Mapping[str, Sequence[int]] | None = None,
    batch_size: int = 32,
    show_progress: bool = True,
    cache_embeddings: bool = True,
    sampling: str = "reference",
    trust_remote_code: bool = False,
    episodes_per_label: int | Mapping[str, int] | None = None,
    device: str | None = None,
    preset: str | None = None,
) -> Results:
    """Evaluate every model on every dataset, task and episode size; write one record each.

    Parameters
    ----------
    models : str, encoder, or a list of them
        Zoo names (built with :func:`stebkit.encoders.get_encoder` only if some record is
        missing) or encoder objects (anything with ``encode(texts)``).
    datasets : str, Dataset, or a list of them
        Catalogue names (loaded with :func:`stebkit.datasets.load_dataset`) or Datasets
        (optional with a ``preset``, which names its own).
    tasks : list of str, optional
        Task families to run; default: those each dataset serves. A requested task a
        dataset does not serve gets a ``"skipped"`` record with the reason.
    output_dir : path, default "results"
        Root of the record files ``<model>/<dataset>/<task>__e<size>.json``.
    overwrite : {"only-missing", "never", "always"}
        ``only-missing`` computes combinations without a valid record (missing, failed,
        or made from another dataset fingerprint) and raises :class:`ProtocolMismatch`,
        before any work, when successful records were made with another seed, smoke
        setting, sampling or episodes per label; ``never`` leaves every existing file
        alone; ``always`` recomputes everything. (A new model revision is not detected:
        use ``always``.)
    seed : int, default 42
        Seeds dataset sampling, the task functions, the bootstrap and (with
        ``sampling="shuffle"``) episode sampling.
    smoke : bool, default False
        Load the small smoke version of each dataset.
    episode_sizes : list of int, or dict task -> list of int, optional
        Override the datasets' episode sizes (a list applies to every task except
        predefined pairs and probing, which use single texts).
    batch_size : int, default 32
        Encoding batch size (clustering's mini-batch stays 32, as the reference's).
    show_progress : bool, default True
        Show a progress bar over the records.
    cache_embeddings : bool, default True
        Encode through the on-disk embedding cache (:func:`stebkit.encoders.cached`).
    sampling : {"reference", "shuffle"}, default "reference"
        How episodes pick their texts: the reference's first N texts of each label in
        record order, or the first N after a seeded shuffle
        (:meth:`stebkit.tasks.TaskFamily.build`).
    trust_remote_code : bool, default False
        Allow models and datasets that run code from their repository (LUAR, gte,
        jina; the Hub loading scripts of ``blog_age``, ``blog_gender``,
        ``reuters21578``). Without it such a dataset stops the run before any work,
        with a message naming it, and such a model's results are recorded as failed.
    episodes_per_label : int, or dict task -> int, optional
        Override the datasets' episodes per label (the reference's
        ``n_episodes_per_class``; predefined pairs, probing and retrieval with size -1
        use every text whatever it is).
    device : str, optional
        Torch device of the neural encoders (``"cpu"``, ``"cuda"``, ``"cuda:1"``,
        ``"mps"``); default: a GPU when there is one. Non-neural baselines ignore it.
    preset : {"benchmark", "fast"}, optional
        Run one of the reference's presets (:mod:`stebkit.presets`): its tasks, datasets
        and episode configuration; ``datasets`` (when given) restricts it.

    Returns
    -------
    Results
        Every record of this run's combinations (read back from ``output_dir``);
        ``Results.ok`` is False when one failed.

    Examples
    --------
    >>> import tempfile
    >>> res = evaluate("random", "synthetic-authors-en", tasks=["retrieval"], smoke=True,
    ...                output_dir=tempfile.mkdtemp(), show_progress=False)
    >>> res.ok, res.main_frame()[["model", "dataset", "task", "metric"]].values.tolist()
    (True, [['random', 'synthetic-authors-en', 'retrieval', 'mrr']])
    """
    if preset is not None:
        return _evaluate_preset(
            preset, models, datasets, tasks=tasks, output_dir=output_dir,
            overwrite=overwrite, seed=seed, smoke=smoke, episode_sizes=episode_sizes,
            batch_size=batch_size, show_progress=show_progress,
            cache_embeddings=cache_embeddings, trust_remote_code=trust_remote_code,
            episodes_per_label=episodes_per_label, device=device, sampling=sampling)
    if datasets is None:
        raise ValueError("datasets is missing: pass dataset names or Datasets (or a preset)")
    _check_device(device)
    if overwrite not in OVERWRITE:
        raise ValueError(f"overwrite must be one of {OVERWRITE}, got {overwrite!r}")
    if sampling not in SAMPLING:
        raise ValueError(f"sampling must be one of {SAMPLING}, got {sampling!r}")
    if tasks is not None:
        tasks = _as_list(tasks)
        for t in tasks:
            FAMILIES.get_family(t, where="tasks")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
            or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    root = Path(output_dir)
    model_list = _resolve_models(models)
    dataset_list = _resolve_datasets(datasets)
    from stebkit.datasets.hub import check_remote_code

    for spec, loaded_ds in dataset_list:
        if loaded_ds is None:
            check_remote_code(spec, trust_remote_code)
    units = _plan(model_list, dataset_list, tasks, episode_sizes, root, seed=int(seed),
                  smoke=bool(smoke), episodes_per_label=episodes_per_label)
    base = run_protocol(seed=int(seed), smoke=bool(smoke), batch_size=int(batch_size),
                        sampling=sampling)

    from tqdm.auto import tqdm

    protocols = {}
    for model, given in model_list:
        scoring = model_scoring(model, given)
        protocols.update({id(u): resume_protocol(u, base, scoring) for u in units
                          if u.model == model})
    check_resume([(u, protocols[id(u)]) for u in units], overwrite)
    pending = []
    for model, given in model_list:
        mine = [u for u in units if u.model == model]
        todo = [u for u in mine if needs_run(u, overwrite, protocols[id(u)])]
        if todo and any(u.served for u in todo):
            given = _prepare_encoder(model, given, trust_remote_code=trust_remote_code,
                                     device=device)
        pending.append((model, given, len(mine) - len(todo), todo))

    bar = tqdm(total=len(units), desc="stebkit", unit="result", disable=not show_progress,
               mininterval=progress_interval())
    loaded: dict[str, Dataset] = {spec.name: ds for spec, ds in dataset_list if ds is not None}
    inputs: dict[tuple[str, str, int], tuple[TaskInput | BaseException, list[str]]] = {}
    try:
        for model, encoder, n_done, todo in pending:
            bar.update(n_done)
            adapted: dict[str, tuple[Any, Any]] = {}  # encoder name -> (encoder, cached)
            for spec, _ in dataset_list:
                mine = [u for u in todo if u.spec.name == spec.name]
                if not mine:
                    continue
                bar.set_postfix_str(f"{model} / {spec.name}", refresh=False)
                dataset = _run_model_dataset(
                    model, encoder, mine, loaded.get(spec.name), base, inputs,
                    adapted, lambda _u, _r: bar.update(1), cache=cache_embeddings,
                    show_progress=False,  # no bar per encoding: the run's bar counts results
                    trust_remote_code=bool(trust_remote_code))
                if dataset is not None:
                    loaded[spec.name] = dataset
    finally:
        bar.close()
    return Results((Record.read(u.path) for u in units if u.path.exists()), root=root)


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


def _evaluate_preset(preset: str, models: Any, datasets: Any, *, tasks: Any,
                     episode_sizes: Any, episodes_per_label: Any, output_dir: Any,
                     **options: Any) -> Results:
    """:func:`evaluate` of every entry of a preset into one results folder."""
    from stebkit.presets import preset_entries, resolve_datasets

    entries = preset_entries(preset)
    if episode_sizes is not None or episodes_per_label is not None:
        raise ValueError(f"preset {preset!r} sets the episode sizes and episodes per label; "
                         "give either a preset or episode_sizes/episodes_per_label")
    names = None if datasets is None else [d.name if isinstance(d, Dataset) else d
                                           for d in _as_list(datasets)]
    wanted = None if tasks is None else _as_list(tasks)
    unavailable: list[str] = []
    records = []
    with reuse_encoders():  # each model loads once for all the entries
        for entry in entries:
            if wanted is not None and entry.task not in wanted:
                continue
            chosen = resolve_datasets(entry, names, unavailable)
            if not chosen:
                continue
            res = evaluate(models, chosen, tasks=[entry.task], output_dir=output_dir,
                           episode_sizes={entry.task: list(entry.episode_sizes)},
                           episodes_per_label=entry.episodes_per_label, **options)
            records += res.records
    for problem in unavailable:
        warnings.warn(f"preset {preset!r}: {problem}; that entry is not run", UserWarning,
                      stacklevel=3)
    if not records and not unavailable:
        raise ValueError(f"preset {preset!r} has nothing to run on the datasets {names}")
    return Results(records, root=Path(output_dir))


def run_protocol(*, seed: int = 42, smoke: bool = False, batch_size: int = 32,
                 sampling: str = "reference") -> dict[str, Any]:
    """The run-wide protocol settings stored in every record (and compared on resume).

    >>> run_protocol()["sampling"]
    'reference'
    """
    return {"seed": int(seed), "smoke": bool(smoke), "batch_size": int(batch_size),
            "sampling": sampling,
            "bootstrap": {"resamples": N_RESAMPLES, "level": CONFIDENCE}}


def run_model_dataset(model: str, encoder: Any, units: Sequence[Unit], *,
                      dataset: Dataset | None = None, seed: int = 42, smoke: bool = False,
                      batch_size: int = 32, sampling: str = "reference",
                      cache_embeddings: bool = True, show_progress: bool = False,
                      trust_remote_code: bool = False, on_record: Any = None) -> list[Path]:
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
        Units of this model and one dataset (from :func:`plan`, usually filtered by
        :func:`needs_run`).
    dataset : Dataset, optional
        The loaded dataset (loaded here otherwise, with ``seed`` and ``smoke``).
    seed, smoke, batch_size, sampling, cache_embeddings, show_progress, trust_remote_code
        As :func:`evaluate`.
    on_record : callable, optional
        ``on_record(unit, record)`` after each record is written.

    Returns
    -------
    list of Path
        The record files written.

    Examples
    --------
    >>> import tempfile
    >>> units = plan("random", "synthetic-authors-en", tasks=["retrieval"], smoke=True,
    ...              output_dir=tempfile.mkdtemp())
    >>> paths = run_model_dataset("random", None, units, smoke=True)
    >>> read_record(paths[0])["status"]
    'ok'
    """
    if not units:
        return []
    names = {(u.model, u.spec.name) for u in units}
    if len(names) != 1 or next(iter(names))[0] != model:
        raise ValueError(f"run_model_dataset: units must all be of model {model!r} and one "
                         f"dataset, got {sorted(names)}")
    if encoder is None or isinstance(encoder, str):
        encoder = _prepare_encoder(model, None, trust_remote_code=trust_remote_code)
    base = run_protocol(seed=seed, smoke=smoke, batch_size=batch_size, sampling=sampling)
    written: list[Path] = []

    def record(unit: Unit, rec: dict[str, Any]) -> None:
        written.append(unit.path)
        if on_record is not None:
            on_record(unit, rec)

    _run_model_dataset(model, encoder, list(units), dataset, base, {}, {}, record,
                       cache=cache_embeddings, show_progress=show_progress,
                       trust_remote_code=trust_remote_code)
    return written


def _run_model_dataset(model: str, encoder: Any, units: list[Unit], dataset: Dataset | None,
                       base: dict[str, Any], inputs: dict, adapted: dict, done: Any, *,
                       cache: bool, show_progress: bool,
                       trust_remote_code: bool = False) -> Dataset | None:
    """All pending records of one model on one dataset; returns the loaded dataset.

    ``adapted`` keeps, per encoder name, the encoder adapted to a language and its cached
    version, so that one model's datasets share them."""
    seed, smoke, batch_size = base["seed"], base["smoke"], base["batch_size"]
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

            dataset = load_dataset(spec.name, seed=seed, smoke=smoke,
                                   trust_remote_code=trust_remote_code)
        ds_encoder, note = _for_language(encoder, spec.languages)
        key = str(getattr(ds_encoder, "name", model))
        if key not in adapted:
            adapted[key] = (ds_encoder, _with_cache(ds_encoder, cache))
        ds_encoder, text_encoder = adapted[key]
    except Exception as err:  # recorded; the run goes on
        _raise_if_fatal(err)
        for u in units:
            rec = _failed(records[u.key], err, started)
            write_record(u.path, rec)
            done(u, rec)
        return dataset
    _run_dataset(dataset, units, records, inputs, ds_encoder, text_encoder, done, seed=seed,
                 batch_size=batch_size, sampling=base["sampling"], show_progress=show_progress,
                 notes=[note] if note else [])
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


def _for_language(encoder: Any, languages: Sequence[str]) -> tuple[Any, str | None]:
    """The encoder for a dataset's language, for encoders that adapt (``for_language``,
    e.g. the function-word baseline), with the note to keep in the records."""
    adapt = getattr(encoder, "for_language", None)
    if adapt is None:
        return encoder, None
    langs = sorted(set(languages))
    return adapt(langs[0] if len(langs) == 1 else None)


def collapsed_share(vectors: np.ndarray) -> float:
    """Share of the rows that equal the most common row, when it occurs more than once.

    >>> collapsed_share(np.array([[1.0, 0], [1.0, 0], [0, 1.0], [0.5, 0.5]]))
    0.5
    >>> collapsed_share(np.eye(3))
    0.0
    """
    x = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1))
    if len(x) < 2:
        return 0.0
    _, counts = np.unique(x.view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))),
                          return_counts=True)
    top = int(counts.max())
    return round(top / len(x), 6) if top > 1 else 0.0


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
                 encoder: Any, text_encoder: Any, done: Any, *, seed: int, batch_size: int,
                 sampling: str, show_progress: bool, notes: Sequence[str] = ()) -> None:
    """Build episodes, encode the texts once, run and record every unit of one dataset."""
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
