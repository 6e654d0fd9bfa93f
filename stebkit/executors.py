"""Where an evaluation runs: in this process, in local worker processes, or on SLURM.

The work of :func:`stebkit.runner.evaluate` is cut into **units**: one model on one
dataset (every task and episode size of that pair, one record each). Three executors run
the pending units:

``sequential`` (the default)
    :func:`stebkit.runner.evaluate` in this process, as before.
``local``
    ``jobs`` worker processes on this machine. They share one ordered list of units and
    take them in small chunks of one model, so a slow model does not hold the others
    back; a worker builds (and loads) each model once, for all the chunks of it that it
    runs, and each worker is pinned to its share of the CPUs.
``slurm``
    One SLURM job array through ``submitit``: one job per model and shard of its
    datasets (``datasets_per_job``; by default about a quarter of the suite), so the
    model loads once per job. Logs go to ``<output>/jobs/``.

A unit is **claimed** before it runs: ``<output>/jobs/claims/<model>/<dataset>.claim``
holds a POSIX lock (``fcntl.lockf``, honoured across machines on NFS) for as long as the
owning process lives, and says who owns it. Two jobs never own the same unit; a killed
job's lock goes with its process, so its unfinished units are simply pending again.
Records are written atomically, one file each, so a job killed in the middle (scancel,
time limit, node failure) leaves complete records or none; running ``stebkit run`` again
submits only the units that are missing or failed. The embedding cache writes one file
per batch under a fresh name and renames it into place, so several processes and nodes
may fill it at once.

Every executor runs presets (``preset="benchmark"``): a unit then holds the records of
each preset entry on its dataset, with the entry's episode sizes and episodes per label.

Every run writes ``<output>/jobs/plan.jsonl`` (the units and their record files) and,
for jobs, ``<output>/jobs/index.jsonl`` (job id, units, log files); each job writes how
it ended to ``<output>/jobs/outcomes/`` (JSON). :func:`status` reads them back into a
table of done / failed / running / pending units with reasons. Nothing of a results
folder is trusted: nothing in it is ever unpickled, and claims, logs and outcomes are
never read or written through a symbolic link (:func:`open_regular`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import math
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import uuid
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from stebkit.errors import StebkitError
from stebkit.executor_config import (  # noqa: F401 (re-exported)
    EXECUTORS,
    ExecutorConfig,
    ExecutorError,
    executor_config,
    time_minutes,
)

JOBS_DIR = "jobs"
"""Folder of the results folder that holds job logs, claims, the plan and the job index."""

_EVALUATE_KEYS = ("tasks", "overwrite", "seed", "smoke", "episode_sizes", "batch_size",
                  "cache_embeddings", "sampling")


class JobsFailed(StebkitError):
    """Jobs ended without finishing their units; ``results`` holds what was written."""

    def __init__(self, message: str, results: Any = None) -> None:
        super().__init__(message)
        self.results = results


class JobInterrupted(BaseException):
    """Raised in a job when SLURM stops it (scancel, time limit): not an ``Exception``,
    so that no unit records it as a failure of its own."""


def jobs_dir(output_dir: str | os.PathLike) -> Path:
    """``<output>/jobs``: job logs, claims, the plan and the job index."""
    return Path(output_dir) / JOBS_DIR


def claim_path(output_dir: str | os.PathLike, model: str, dataset: str) -> Path:
    """The claim file of one unit: one per model and dataset name, as their records
    (:func:`stebkit.results.file_name`), so ``team/set`` and ``team__set`` never share one.

    >>> claim_path("res", "random", "team/set") != claim_path("res", "random", "team__set")
    True
    """
    from stebkit.results import file_name

    return jobs_dir(output_dir) / "claims" / file_name(model) / f"{file_name(dataset)}.claim"


def open_regular(path: Path, flags: int, root: Path | None = None) -> int:
    """``os.open`` of a file stebkit keeps in a results folder, never through a link:
    ``path`` itself and its folders below ``root`` must not be symbolic links, and the
    file must be a regular one. Raises :class:`ExecutorError` naming the path otherwise.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "link").symlink_to(folder / "elsewhere")
    >>> open_regular(folder / "link", os.O_RDWR | os.O_CREAT)
    Traceback (most recent call last):
    ...
    stebkit.executor_config.ExecutorError: .../link is a symbolic link or not a regular file; ...
    """
    def refuse(where: Path) -> ExecutorError:
        return ExecutorError(f"{where} is a symbolic link or not a regular file; stebkit "
                             "never writes through one (another user or program put it "
                             "there): remove it and run again")

    if root is not None:
        for folder in [*path.relative_to(root).parents][:-1]:
            if (root / folder).is_symlink():
                raise refuse(root / folder)
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o666)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise refuse(path) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise refuse(path)
    return fd


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line:
            with contextlib.suppress(json.JSONDecodeError):
                out.append(json.loads(line))
    return out


def _write_jsonl(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    from stebkit._io import write_text

    write_text(path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (blocking) for the ``with`` block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = open_regular(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@dataclass
class Unit:
    """One model on one dataset: its record files and whether some must be computed."""

    model: str
    dataset: str
    records: tuple[Path, ...]
    pending: bool

    @property
    def label(self) -> str:
        return f"{self.model} / {self.dataset}"


def plan_units(models: Any, datasets: Any, *, output_dir: str | os.PathLike = "results",
               **kwargs: Any) -> list[Unit]:
    """The units of an evaluation, in order (models outer, datasets inner).

    ``kwargs`` are those of :func:`stebkit.runner.evaluate` (tasks, overwrite, seed,
    smoke, episode_sizes, episodes_per_label, batch_size, sampling, preset; the others do
    not change the plan). With a ``preset``, a unit holds the records of every entry of
    the preset that runs its dataset, each with the entry's episode configuration.

    Examples
    --------
    >>> import tempfile
    >>> units = plan_units(["random", "tfidf-char"], ["synthetic-authors-en"], smoke=True,
    ...                    tasks=["retrieval"], output_dir=tempfile.mkdtemp())
    >>> [(u.label, len(u.records), u.pending) for u in units]
    [('random / synthetic-authors-en', 1, True), ('tfidf-char / synthetic-authors-en', 1, True)]
    """
    from stebkit.runner import (
        OVERWRITE,
        _resolve_models,
        check_resume,
        model_scoring,
        needs_run,
        plan,
        resume_protocol,
        run_protocol,
    )

    if kwargs.get("preset"):
        return _preset_units(models, datasets, output_dir=output_dir, **kwargs)
    overwrite = kwargs.get("overwrite", "only-missing")
    if overwrite not in OVERWRITE:
        raise ValueError(f"overwrite must be one of {OVERWRITE}, got {overwrite!r}")
    seed, smoke = kwargs.get("seed", 42), kwargs.get("smoke", False)
    base = run_protocol(seed=seed, smoke=smoke, batch_size=kwargs.get("batch_size", 32),
                        sampling=kwargs.get("sampling", "reference"))
    scorings = {name: model_scoring(name, given) for name, given in _resolve_models(models)}
    units: dict[tuple[str, str], Unit] = {}
    planned = [(u, resume_protocol(u, base, scorings[u.model])) for u in plan(
        models, datasets, tasks=kwargs.get("tasks"), episode_sizes=kwargs.get("episode_sizes"),
        output_dir=output_dir, seed=seed, smoke=smoke,
        episodes_per_label=kwargs.get("episodes_per_label"))]
    check_resume(planned, overwrite)
    for u, protocol in planned:
        todo = needs_run(u, overwrite, protocol)
        unit = units.setdefault((u.model, u.spec.name), Unit(u.model, u.spec.name, (), False))
        unit.records = (*unit.records, u.path)
        unit.pending = unit.pending or todo
    return list(units.values())


def _preset_units(models: Any, datasets: Any, *, output_dir: str | os.PathLike, preset: str,
                  unavailable: list[str] | None = None, **kwargs: Any) -> list[Unit]:
    """The units of a preset run (as :func:`stebkit.runner.evaluate` with ``preset``
    runs it: each entry's task on the entry's datasets, restricted to ``datasets`` when
    given); the entries it cannot run are added to ``unavailable``."""
    from stebkit.presets import preset_entries, resolve_datasets
    from stebkit.runner import _as_list

    entries = preset_entries(preset)
    if kwargs.get("episode_sizes") is not None or kwargs.get("episodes_per_label") is not None:
        raise ValueError(f"preset {preset!r} sets the episode sizes and episodes per label; "
                         "give either a preset or episode_sizes/episodes_per_label")
    names = None if datasets is None else [getattr(d, "name", d) for d in _as_list(datasets)]
    wanted = None if kwargs.get("tasks") is None else _as_list(kwargs["tasks"])
    merged: dict[tuple[str, str], Unit] = {}
    for entry in entries:
        if wanted is not None and entry.task not in wanted:
            continue
        chosen = resolve_datasets(entry, names, [] if unavailable is None else unavailable)
        if not chosen:
            continue
        for u in plan_units(models, chosen, output_dir=output_dir, **{
                **kwargs, "tasks": [entry.task],
                "episode_sizes": {entry.task: list(entry.episode_sizes)},
                "episodes_per_label": entry.episodes_per_label}):
            have = merged.setdefault((u.model, u.dataset), Unit(u.model, u.dataset, (), False))
            have.records = (*have.records, *u.records)
            have.pending = have.pending or u.pending
    # models outer, datasets inner (in the order given), as a run without a preset
    model_rank = {m: k for k, m in enumerate(dict.fromkeys(m for m, _ in merged))}
    dataset_rank = {d: k for k, d in enumerate(dict.fromkeys(
        [*(names or []), *(d for _, d in merged)]))}
    return sorted(merged.values(), key=lambda u: (model_rank[u.model], dataset_rank[u.dataset]))


def _save_plan(root: Path, units: Sequence[Unit]) -> None:
    """Merge ``units`` into ``<output>/jobs/plan.jsonl`` (what :func:`status` reports)."""
    path = jobs_dir(root) / "plan.jsonl"
    rows = {(r["model"], r["dataset"]): r for r in _read_jsonl(path)}
    for u in units:
        rows[(u.model, u.dataset)] = {
            "model": u.model, "dataset": u.dataset,
            "records": [p.relative_to(root).as_posix() for p in u.records]}
    _write_jsonl(path, list(rows.values()))


def _add_jobs(root: Path, jobs: Sequence[Mapping[str, Any]]) -> None:
    path = jobs_dir(root) / "index.jsonl"
    with _file_lock(jobs_dir(root) / ".index.lock"):
        _write_jsonl(path, [*_read_jsonl(path), *jobs])


# --------------------------------------------------------------------------- claims


class Claim:
    """The lock of one unit, held by this process while it runs the unit (``root``: the
    results folder, below which no folder of the claim may be a link)."""

    def __init__(self, path: Path, root: Path | None = None) -> None:
        self.path, self.root = path, root
        self.fd: int | None = None

    def acquire(self, info: Mapping[str, Any], tries: int = 5) -> bool:
        """Take the lock (a few quick tries: :func:`status` probes it for an instant)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = open_regular(self.path, os.O_RDWR | os.O_CREAT, self.root)
        for attempt in range(tries):
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if attempt == tries - 1:
                    os.close(fd)
                    return False
                time.sleep(0.05 * (attempt + 1))
        self.fd = fd
        self.previous = _parse(os.pread(fd, 1 << 16, 0))
        self.write(info)
        return True

    def write(self, info: Mapping[str, Any]) -> None:
        assert self.fd is not None
        data = (json.dumps(dict(info), sort_keys=True) + "\n").encode()
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, data, 0)
        os.fsync(self.fd)

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the file drops the lock
            self.fd = None


def _parse(data: bytes) -> dict[str, Any]:
    try:
        out = json.loads(data.decode("utf-8") or "{}")
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return out if isinstance(out, dict) else {}


def read_claim(path: Path, root: Path | None = None) -> tuple[bool, dict[str, Any]]:
    """``(held, content)`` of a claim file: whether a live process holds it, and what the
    last owner wrote (``job``, ``host``, ``pid``, ``state``, ``run``). A claim that is a
    link, or below a linked folder of ``root``, raises :class:`ExecutorError`."""
    if not path.is_file() and not path.is_symlink():
        return False, {}
    try:
        fd = open_regular(path, os.O_RDWR, root)
    except OSError:  # gone meanwhile, or unreadable: nobody holds it for this process
        return False, {}
    try:
        content = _parse(os.pread(fd, 1 << 16, 0))
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True, content
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return False, content
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- the worker


def _job_name() -> str:
    array, task = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    if array and task:
        return f"{array}_{task}"
    return (os.environ.get("SLURM_JOB_ID") or os.environ.get("STEBKIT_JOB")
            or f"pid {os.getpid()}")


def _log(message: str) -> None:
    print(f"[{_now()}] {message}", flush=True)


def _on_signal(signum: int, frame: Any) -> None:
    del frame
    name = signal.Signals(signum).name
    reason = "its time limit is near" if signum == signal.SIGUSR2 else f"it received {name}"
    raise JobInterrupted(f"job {_job_name()} stopped: {reason}")


def run_job(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Run the units of one job (a SLURM array task or a local worker).

    ``payload``: ``run`` (id of the submission), ``units`` (``[model, dataset]`` pairs, in
    order), ``evaluate`` (arguments of :func:`stebkit.runner.evaluate`, ``output_dir``
    included), ``suite_files`` (suite files to load first), ``chunk`` (units of one model
    run per :func:`~stebkit.runner.evaluate` call; default: all of them), ``offset``
    (where in ``units`` this worker starts) and ``cpus`` (CPUs to pin the process to).
    Units another live process holds, or that this submission already finished, are
    passed over. Each model is built (and its weights loaded) once per job, and dropped
    once the job has no more of its units. Returns counts of the units run and passed
    over.
    """
    from stebkit.runner import reuse_encoders

    for sig in (signal.SIGTERM, signal.SIGUSR2, signal.SIGINT):
        signal.signal(sig, _on_signal)
    if payload.get("cpus"):
        os.sched_setaffinity(0, set(payload["cpus"]))
    if payload.get("suite_files"):
        from stebkit.suites import load_suite

        for file in payload["suite_files"]:
            load_suite(file)
    kwargs = dict(payload["evaluate"])
    root = Path(kwargs["output_dir"])
    run, job = payload["run"], _job_name()
    units = [tuple(u) for u in payload["units"]]
    offset = int(payload.get("offset", 0)) % max(1, len(units))
    order = units[offset:] + units[:offset]
    chunk = int(payload.get("chunk") or len(units) or 1)
    info = {"job": job, "host": socket.gethostname(), "pid": os.getpid(), "run": run}
    _log(f"job {job}: {len(units)} unit(s), output {root}")
    try:
        with reuse_encoders() as kept:
            ran, passed = _run_units(order, chunk, root, run, info, kwargs, kept)
    except BaseException as err:
        _write_outcome(root, run, job, "interrupted" if isinstance(err, JobInterrupted)
                       else "error", f"{type(err).__name__}: {err}")
        raise
    _write_outcome(root, run, job, "success", "")
    _log(f"job {job}: finished ({ran} unit(s) run, {passed} passed over)")
    return {"job": job, "ran": ran, "passed": passed}


_OUTCOMES = ("success", "error", "interrupted")


def outcome_path(root: Path, run: str, job: str) -> Path:
    """Where a job writes how it ended (JSON: ``state``, one of ``success``, ``error``
    and ``interrupted``, and the ``error`` message), read back by :func:`job_outcome`;
    not named ``*.json``, which a results folder keeps for its records.

    >>> outcome_path(Path("res"), "20260101T000000-abc123", "12_3").as_posix()
    'res/jobs/outcomes/20260101T000000-abc123-12_3.outcome'
    """
    from stebkit.results import file_name

    return jobs_dir(root) / "outcomes" / f"{file_name(f'{run}-{job}')}.outcome"


def _write_outcome(root: Path, run: str, job: str, state: str, error: str) -> None:
    from stebkit._io import write_text

    with contextlib.suppress(OSError):  # a full disk: the log and SLURM's state remain
        write_text(outcome_path(root, run, job), json.dumps(
            {"job": job, "run": run, "state": state, "error": error, "finished": _now()}))


def read_outcome(root: Path, run: Any, job: Any) -> tuple[str, str] | None:
    """``(state, error)`` a job wrote on ending (:func:`outcome_path`), or None when it
    wrote none. Plain JSON, checked field by field: nothing of a results folder is ever
    unpickled, and an odd file reads as an error of its own."""
    if not isinstance(run, str) or not isinstance(job, str):
        return None
    path = outcome_path(root, run, job)
    if not path.exists() and not path.is_symlink():
        return None
    try:
        fd = open_regular(path, os.O_RDONLY, root)
        with os.fdopen(fd, "rb") as fh:
            data = json.loads(fh.read(1 << 20).decode("utf-8"))
    except (OSError, ValueError) as err:
        return "error", f"its outcome file {path} is unreadable ({err})"
    if not isinstance(data, dict) or data.get("state") not in _OUTCOMES \
            or not isinstance(data.get("error", ""), str):
        return "error", f"its outcome file {path} is not one stebkit wrote"
    return data["state"], data.get("error", "")


def _run_units(order: Sequence[tuple[str, str]], chunk: int, root: Path, run: str,
               info: Mapping[str, Any], kwargs: Mapping[str, Any],
               kept: dict[tuple[Any, ...], Any]) -> tuple[int, int]:
    """Claim and run ``order`` in chunks of one model (see :func:`run_job`); ``kept``:
    the models built so far (:func:`stebkit.runner.reuse_encoders`)."""
    import gc

    from stebkit.runner import evaluate

    ran = passed = 0
    run_datasets = list(dict.fromkeys(d for _, d in order))
    taken: set[tuple[str, str]] = set()
    i = 0
    while i < len(order):
        model = order[i][0]
        held: list[tuple[tuple[str, str], Claim]] = []
        while i < len(order) and order[i][0] == model and len(held) < chunk:
            unit = order[i]
            i += 1
            if unit in taken:
                continue
            claim = Claim(claim_path(root, *unit), root)
            if not claim.acquire({**info, "state": "running", "started": _now()}):
                held_by = read_claim(claim.path, root)[1].get("job", "another process")
                _log(f"{unit[0]} / {unit[1]}: owned by job {held_by}; passed over")
                passed += 1
                continue
            if claim.previous.get("run") == run and claim.previous.get("state") == "finished":
                claim.write(claim.previous)
                claim.release()
                passed += 1
                continue
            held.append((unit, claim))
            taken.add(unit)
        if not held:
            continue
        datasets = [d for (_, d), _ in held]
        _log(f"{model}: {len(datasets)} dataset(s): {', '.join(datasets)}")
        started = time.perf_counter()
        ok = False
        try:
            _prepare_datasets(datasets, kwargs, run_datasets)
            evaluate(model, datasets, show_progress=False, **kwargs)
            ok = True
        except JobInterrupted as err:
            _log(f"{err}; unfinished: {', '.join(datasets)}")
            raise
        finally:
            for _, claim in held:
                if ok:  # written while the lock is held: no other job can take it meanwhile
                    claim.write({**info, "state": "finished", "finished": _now()})
                claim.release()
        ran += len(held)
        _log(f"{model}: done in {time.perf_counter() - started:.1f} s")
        later = {m for m, _ in order[i:]}
        done = [key for key in kept if key[0] not in later]
        for key in done:  # this job has no more units of that model: free its memory
            del kept[key]
        if done:
            gc.collect()
    return ran, passed


def _prepare_datasets(datasets: Sequence[str], kwargs: Mapping[str, Any],
                      run_datasets: Sequence[str] = ()) -> None:
    """Process each dataset into the cache under a lock, so that concurrent workers wait
    for one another instead of processing the same dataset twice.

    Datasets made from the same source files are processed together, by one worker, with
    those of ``run_datasets`` that share them: the five UD-EWT probing sets share one
    spaCy analysis of their documents, which a process computes once.
    """
    import hashlib

    from stebkit.datasets import get_spec, load_dataset
    from stebkit.results import file_name
    from stebkit.sources import cache_dir

    seed, smoke = int(kwargs.get("seed", 42)), bool(kwargs.get("smoke", False))

    def group(name: str) -> str:
        urls = sorted(get_spec(name).source.urls)
        if not urls:
            return f"dataset-{file_name(name)}"
        return "source-" + hashlib.sha256(repr(urls).encode()).hexdigest()[:16]

    groups: dict[str, list[str]] = {}
    for name in dict.fromkeys([*datasets, *run_datasets]):
        with contextlib.suppress(Exception):  # an unknown name: the runner says why
            groups.setdefault(group(name), []).append(name)
    for key, members in groups.items():
        if not set(members) & set(datasets):
            continue
        with _file_lock(cache_dir() / "locks" / f"{key}-{seed}-{int(smoke)}.lock"):
            for name in members:
                with contextlib.suppress(Exception):  # errors: the runner's
                    load_dataset(get_spec(name), seed=seed, smoke=smoke)


def _main(argv: Sequence[str]) -> int:
    """``python -m stebkit.executors PAYLOAD``: one local worker."""
    payload = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    try:
        run_job(payload)
    except JobInterrupted as err:
        _log(str(err))
        return 3
    return 0


# --------------------------------------------------------------------------- evaluate


def evaluate(models: Any, datasets: Any, *, output_dir: str | os.PathLike = "results",
             executor: Any = None, show_progress: bool = True, **kwargs: Any) -> Any:
    """:func:`stebkit.runner.evaluate` through an executor (``stebkit.evaluate``).

    Parameters
    ----------
    models, datasets, output_dir, show_progress, **kwargs
        As :func:`stebkit.runner.evaluate`. Other executors than ``sequential`` take
        model and dataset *names* (objects cannot travel to another process); datasets of
        suite files are loaded again in each job.
    executor : str, mapping or ExecutorConfig, optional
        ``"sequential"`` (default), ``"local"`` or ``"slurm"``, or a mapping with the
        fields of :class:`ExecutorConfig` (``{"kind": "local", "jobs": 4}``).

    Returns
    -------
    Results
        The records of the planned units found in ``output_dir`` (with ``wait=False``:
        those written so far).

    Raises
    ------
    ExecutorError
        The executor cannot run here (no SLURM, unknown partition, bad option).
    JobsFailed
        Jobs ended before finishing their units (the message names each job, its log
        file and the units; ``err.results`` holds what was written).

    Examples
    --------
    >>> import tempfile
    >>> res = evaluate("random", "synthetic-authors-en", tasks=["retrieval"], smoke=True,
    ...                output_dir=tempfile.mkdtemp(), executor="local",
    ...                show_progress=False)
    >>> res.ok, len(res)
    (True, 1)
    """
    from stebkit import runner
    from stebkit.results import Results, read_record

    config = executor_config(executor)
    unknown = sorted(set(kwargs) - set(_EVALUATE_KEYS) - _extra_evaluate_keys())
    if unknown:
        raise TypeError(f"evaluate() got unexpected keyword argument(s) {unknown}")
    root = Path(output_dir)
    if config.kind == "sequential":
        try:  # a preset's records of other settings: refused before any entry runs
            _save_plan(root, plan_units(models, datasets, output_dir=root, **kwargs))
        except runner.ProtocolMismatch:
            raise
        except (ValueError, TypeError):  # bad input: evaluate says why
            pass
        return runner.evaluate(models, datasets, output_dir=root, show_progress=show_progress,
                               **kwargs)
    names = _names(models, "models"), (None if datasets is None and kwargs.get("preset")
                                       else _names(datasets, "datasets"))
    unavailable: list[str] = []
    units = plan_units(names[0], names[1], output_dir=root, **kwargs,
                       **({"unavailable": unavailable} if kwargs.get("preset") else {}))
    for problem in unavailable:  # as a sequential preset run says it
        warnings.warn(f"preset {kwargs['preset']!r}: {problem}; that entry is not run",
                      UserWarning, stacklevel=2)
    if not units and not unavailable:
        raise ValueError(f"nothing to run: the preset {kwargs.get('preset')!r} has no entry "
                         f"on the datasets {names[1]}")
    _save_plan(root, units)
    todo, busy = [], []
    for u in units:
        if not u.pending:
            continue
        held, content = read_claim(claim_path(root, u.model, u.dataset), root)
        (busy if held else todo).append((u, content))
    for u, content in busy:
        print(f"{u.label}: running in job {content.get('job', '?')}, not submitted again",
              file=sys.stderr)
    suite_files = sorted({str(f) for f in map(_suite_file, {u.dataset for u in units})
                          if f is not None})
    evaluate_kwargs = {**{k: v for k, v in kwargs.items()}, "output_dir": str(root.resolve())}
    evaluate_kwargs.setdefault("overwrite", "only-missing")
    submission = _Submission(root, config, [u for u, _ in todo], evaluate_kwargs, suite_files,
                             run=f"{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-"
                                 f"{uuid.uuid4().hex[:6]}")
    if todo:
        if config.kind == "local":
            submission.start_local()
        else:
            submission.start_slurm()
        if config.wait:
            try:
                submission.wait(show_progress=show_progress)
            except KeyboardInterrupt:
                submission.stop_local()  # SLURM jobs go on: `stebkit status` follows them
                raise
        else:
            print(f"submitted {len(todo)} unit(s) in {len(submission.jobs)} job(s); follow "
                  f"them with `stebkit status {root}`", file=sys.stderr)
    results = Results((read_record(p) for u in units for p in u.records
                       if p.exists()), root=root)
    failed = submission.failures() if todo and config.wait else []
    if failed:
        raise JobsFailed("\n".join(failed), results)
    return results


def _extra_evaluate_keys() -> set[str]:
    """Keyword arguments :func:`stebkit.runner.evaluate` accepts besides the usual ones."""
    import inspect

    from stebkit import runner

    params = inspect.signature(runner.evaluate).parameters
    return {k for k, p in params.items() if p.kind is p.KEYWORD_ONLY} - {
        "output_dir", "show_progress"}


def _names(values: Any, what: str) -> list[str]:
    items = [values] if isinstance(values, str) else list(values)
    bad = [v for v in items if not isinstance(v, str)]
    if bad:
        raise ExecutorError(f"{what}: the local and slurm executors take names, got "
                            f"{type(bad[0]).__name__}; register the object (a zoo model, a "
                            "suite file) or use executor='sequential'")
    return items


def _suite_file(dataset: str) -> Path | None:
    from stebkit.suites import suite_file

    return suite_file(dataset)


# --------------------------------------------------------------------------- submissions


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@dataclass
class _Job:
    """One submitted job (local worker or SLURM array task)."""

    id: str
    units: list[tuple[str, str]]
    log: Path
    err: Path | None = None
    process: Any = None


class _Submission:
    def __init__(self, root: Path, config: ExecutorConfig, units: list[Unit],
                 kwargs: dict[str, Any], suite_files: list[str], run: str) -> None:
        self.root, self.config, self.units, self.kwargs = root, config, units, kwargs
        self.suite_files, self.run = suite_files, run
        self.jobs: list[_Job] = []
        self.folder = jobs_dir(root)

    def _payload(self, units: Sequence[Unit], **extra: Any) -> dict[str, Any]:
        return {"run": self.run, "units": [[u.model, u.dataset] for u in units],
                "evaluate": self.kwargs, "suite_files": self.suite_files, **extra}

    # -- local ------------------------------------------------------------------------
    def start_local(self) -> None:
        n = min(self.config.jobs, len(self.units))
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        share = max(1, len(cpus) // n)
        per_model: dict[str, int] = {}
        for u in self.units:
            per_model[u.model] = per_model.get(u.model, 0) + 1
        # small chunks keep the workers busy until the end; each loads its model once
        chunk = max(1, min(8, math.ceil(max(per_model.values()) / (2 * n))))
        self.folder.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if cpus:
            env["OMP_NUM_THREADS"] = str(share)
        records = []
        for k in range(n):
            mine = [cpus[(k * share + j) % len(cpus)] for j in range(share)] if cpus else []
            payload = self._payload(self.units, offset=round(k * len(self.units) / n),
                                    chunk=chunk, cpus=mine)
            path = self.folder / f"local-{self.run}-{k}.args"
            from stebkit._io import write_text

            write_text(path, json.dumps(payload))
            log = self.folder / f"local-{self.run}-{k}.log"
            name = f"local-{k}"
            with open(log, "ab") as fh:
                proc = subprocess.Popen([sys.executable, "-m", "stebkit.executors", str(path)],
                                        stdout=fh, stderr=subprocess.STDOUT,
                                        env={**env, "STEBKIT_JOB": name},
                                        start_new_session=not self.config.wait)
            job = _Job(name, [(u.model, u.dataset) for u in self.units], log, process=proc)
            self.jobs.append(job)
            records.append({"job": job.id, "executor": "local", "run": self.run,
                            "host": socket.gethostname(), "pid": proc.pid,
                            "units": job.units, "log": str(log), "submitted": _now()})
        _add_jobs(self.root, records)

    # -- slurm ------------------------------------------------------------------------
    def start_slurm(self) -> None:
        units = self.units
        check_slurm(self.config, [u.label for u in units])
        import submitit

        shards = self._shards()
        ex = submitit.SlurmExecutor(folder=self.folder, max_num_timeout=0)
        minutes = time_minutes(self.config.time)
        params: dict[str, Any] = {
            "job_name": "stebkit", "time": minutes, "array_parallelism":
            self.config.array_parallelism, "signal_delay_s": 90 if minutes > 15 else 20,
            "setup": (["set -e", *self.config.setup, "set +e"] if self.config.setup else []),
            "additional_parameters": dict(self.config.extra)}
        if self.config.partition:
            params["partition"] = self.config.partition
        if self.config.gpus_per_job:
            params["gpus_per_node"] = self.config.gpus_per_job
        if self.config.cpus_per_job:
            params["cpus_per_task"] = self.config.cpus_per_job
        if self.config.mem:
            params["additional_parameters"]["mem"] = self.config.mem
        ex.update_parameters(**params)
        payloads = [self._payload(shard) for shard in shards]
        try:
            with ex.batch():
                handles = [ex.submit(run_job, p) for p in payloads]
        except Exception as err:  # sbatch refused the array
            names = ", ".join(u.label for u in units[:6]) + (" ..." if len(units) > 6 else "")
            raise ExecutorError(
                f"SLURM refused the job array for {len(units)} unit(s) ({names}): "
                f"{_first_lines(str(err))}. Nothing was submitted; the submission script is "
                f"in {self.folder}") from None
        records = []
        for handle, shard in zip(handles, shards, strict=True):
            paths = handle.paths
            job = _Job(str(handle.job_id), [(u.model, u.dataset) for u in shard],
                       Path(str(paths.stdout).replace("%t", "0")),
                       Path(str(paths.stderr).replace("%t", "0")))
            self.jobs.append(job)
            records.append({"job": job.id, "executor": "slurm", "run": self.run,
                            "units": job.units, "log": str(job.log), "err": str(job.err),
                            "time": self.config.time,
                            "submitted": _now()})
        _add_jobs(self.root, records)

    def _shards(self) -> list[list[Unit]]:
        by_model: dict[str, list[Unit]] = {}
        for u in self.units:
            by_model.setdefault(u.model, []).append(u)
        n_datasets = len({u.dataset for u in self.units})
        size = self.config.datasets_per_job or max(1, math.ceil(n_datasets / 4))
        return [units[i:i + size] for units in by_model.values()
                for i in range(0, len(units), size)]

    # -- waiting ----------------------------------------------------------------------
    def finished_units(self) -> set[tuple[str, str]]:
        out = set()
        for u in self.units:
            held, content = read_claim(claim_path(self.root, u.model, u.dataset), self.root)
            if not held and content.get("run") == self.run and content.get(
                    "state") == "finished":
                out.add((u.model, u.dataset))
        return out

    def wait(self, *, show_progress: bool = True, poll_s: float = 1.0) -> None:
        from tqdm.auto import tqdm

        from stebkit.runner import progress_interval

        bar = tqdm(total=len(self.units), desc=f"stebkit ({self.config.kind})", unit="unit",
                   disable=not show_progress, mininterval=progress_interval())
        try:
            while True:
                done = len(self.finished_units())
                bar.update(done - bar.n)
                live = self.live_jobs()
                bar.set_postfix_str(f"{len(live)} job(s) active", refresh=False)
                if not live:
                    break
                time.sleep(poll_s)
            bar.update(len(self.finished_units()) - bar.n)
        finally:
            bar.close()

    def stop_local(self, grace_s: float = 30.0) -> None:
        """Stop the local workers still running (SIGTERM: each finishes no more units;
        what they wrote stays) and wait for them, at most ``grace_s`` seconds."""
        if self.config.kind != "local":
            return
        live = [j.process for j in self.jobs if j.process.poll() is None]
        for proc in live:
            with contextlib.suppress(OSError):
                proc.terminate()
        deadline = time.monotonic() + grace_s
        for proc in live:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))

    def live_jobs(self) -> list[_Job]:
        if self.config.kind == "local":
            return [j for j in self.jobs if j.process.poll() is None]
        states = slurm_states([j.id for j in self.jobs])
        return [j for j in self.jobs if states.get(j.id, ("", ""))[0] in _SLURM_ACTIVE]

    def failures(self) -> list[str]:
        """One line per job that ended without finishing its units (a job whose units
        were all written is no failure, whatever stopped it), and the units left in all,
        counted as :func:`status` counts them."""
        finished = self.finished_units()
        by_key = {(u.model, u.dataset): u for u in self.units}
        left_all = {key for key, u in by_key.items()
                    if key not in finished and _unit_state(u.records)[0] == "pending"}
        states = slurm_states([j.id for j in self.jobs]) if self.config.kind == "slurm" else {}
        out = []
        for job in self.jobs:
            left = [u for u in job.units if u in left_all]
            if not left:
                continue
            if self.config.kind == "local":
                code = job.process.returncode
                if code == 0:
                    continue
                outcome = read_outcome(self.root, self.run, job.id)
                why = f"worker exited with status {code}" + (
                    f" (signal {signal.Signals(-code).name})" if code and code < 0 else "") + (
                    f": {_first_lines(outcome[1], 1)}" if outcome and outcome[1] else "")
            else:
                why = job_outcome(self.root, {"job": job.id, "run": self.run,
                                              "log": str(job.log), "err": str(job.err),
                                              "time": self.config.time}, states)
                if why is None:
                    continue
            out.append(_failure_message(job.id, why, job.err or job.log, left))
        if len(out) > 1:
            out.append(f"in all, {len(left_all)} unit(s) not finished and pending again")
        return out


def _failure_message(job: str, why: str, log: Path | str, units: Sequence[tuple[str, str]]
                     ) -> str:
    names = ", ".join(f"{m} / {d}" for m, d in units[:8]) + (" ..." if len(units) > 8 else "")
    return f"job {job} {why}; log: {log}; {len(units)} unit(s) not finished and pending " \
           f"again: {names}"


def _first_lines(text: str, n: int = 3) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-n:]) if lines else "(no message)"


# --------------------------------------------------------------------------- SLURM


_SLURM_ACTIVE = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED",
                 "RESIZING", "SIGNALING", "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED"}


def check_slurm(config: ExecutorConfig, units: Sequence[str] = ()) -> list[str]:
    """Check that SLURM answers here and that the partition exists; the partitions.

    Raises :class:`ExecutorError` naming what is missing and the units not submitted.
    """
    what = (f" ({len(units)} unit(s) not submitted: {', '.join(units[:6])}"
            f"{' ...' if len(units) > 6 else ''})") if units else ""
    missing = [c for c in ("sbatch", "squeue", "sinfo", "srun") if shutil.which(c) is None]
    if missing:
        raise ExecutorError(
            f"--executor slurm: SLURM is not available on this machine: {', '.join(missing)} "
            f"not on PATH{what}. Run stebkit on the cluster's login node, or use --executor "
            "local")
    try:
        out = subprocess.run(["sinfo", "-h", "-o", "%P"], capture_output=True, text=True,
                             timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ExecutorError(f"--executor slurm: sinfo failed ({err}){what}") from None
    if out.returncode != 0:
        raise ExecutorError(f"--executor slurm: the SLURM controller does not answer "
                            f"(sinfo: {_first_lines(out.stderr)}){what}. Is SLURM_CONF "
                            "set, is slurmctld running?")
    partitions = [p.strip() for p in out.stdout.split() if p.strip()]
    names = [p.rstrip("*") for p in partitions]
    if config.partition and config.partition not in names:
        raise ExecutorError(f"--slurm-partition {config.partition!r}: no such partition on "
                            f"this cluster; partitions: {', '.join(partitions)} (* = default)"
                            f"{what}")
    return names


def slurm_states(job_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """``{job id: (state, reason)}`` from ``squeue`` for the jobs SLURM still knows."""
    arrays = sorted({j.split("_")[0] for j in job_ids if j})
    out: dict[str, tuple[str, str]] = {}
    for array in arrays:
        try:
            res = subprocess.run(["squeue", "-h", "-r", "-t", "all", "-j", array, "-o",
                                  "%i|%T|%r"], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        for line in res.stdout.splitlines():
            parts = line.strip().split("|")
            if len(parts) == 3:
                out[parts[0]] = (parts[1], parts[2])
        # a pending array shows as 12_[3-5]: expand it
        for key in [k for k in out if "[" in k]:
            base, rng = key.split("_[", 1)
            for part in rng.rstrip("]").split("%")[0].split(","):
                lo, _, hi = part.partition("-")
                for t in range(int(lo), int(hi or lo) + 1):
                    out.setdefault(f"{base}_{t}", out[key])
    return out


def job_outcome(root: Path, job: Mapping[str, Any], states: Mapping[str, tuple[str, str]]
                ) -> str | None:
    """Why a SLURM job of the results folder ``root`` ended without success, or None
    (succeeded, or still active): from the outcome the job wrote (:func:`read_outcome`),
    else from SLURM's state and the job's logs."""
    state, reason = states.get(job["job"], ("", ""))
    if state in _SLURM_ACTIVE:
        return None
    outcome = read_outcome(root, job.get("run"), job.get("job"))
    stopped = None
    if outcome is not None:
        kind, value = outcome
        last = _first_lines(value, 1)
        if kind == "success":
            return None
        if kind == "error":
            return f"failed: {last}"
        if "time limit" in last:
            return (f"stopped at its time limit ({job.get('time')}); raise --slurm-time or "
                    "lower --slurm-datasets-per-job")
        stopped = f"was stopped ({last})"
    log = "".join(_log_tail(root, job.get(key)) for key in ("err", "log"))
    if state == "TIMEOUT" or "DUE TO TIME LIMIT" in log or "time limit is near" in log:
        return (f"stopped at its time limit ({job.get('time')}); raise --slurm-time or lower "
                "--slurm-datasets-per-job")
    if state == "CANCELLED" or re.search(r"CANCELLED AT", log):
        return "was cancelled (scancel)"
    if state in ("NODE_FAIL", "BOOT_FAIL"):
        return f"was lost with its node ({state})"
    if state == "OUT_OF_MEMORY" or "oom" in log.lower():
        return "ran out of memory; raise --slurm-mem"
    if state in ("FAILED", "") and "Starting with JobEnvironment" not in log:
        tail = _first_lines(log) if log.strip() else "no log was written"
        return f"failed at start-up, before running any unit ({tail}); check --slurm-setup"
    return stopped or f"ended ({state or 'state unknown'}{', ' + reason if reason else ''})"


def _log_tail(root: Path, name: Any) -> str:
    """The end of a job log named in the job index: only a regular file inside
    ``<root>/jobs`` is read (the index is a file of the results folder, not trusted)."""
    if not isinstance(name, str) or not name:
        return ""
    path = Path(name)
    folder = jobs_dir(root).resolve()
    if path.resolve().parent != folder or not path.is_file() or path.is_symlink():
        return ""
    with contextlib.suppress(OSError):
        return path.read_text(encoding="utf-8", errors="replace")[-20000:]
    return ""


# --------------------------------------------------------------------------- status


def status(output_dir: str | os.PathLike) -> Any:
    """Done / failed / running / pending state of every unit an evaluation planned.

    Parameters
    ----------
    output_dir : path
        A results folder written by :func:`evaluate` (any executor) or ``stebkit run``.

    Returns
    -------
    pandas.DataFrame
        One row per model and dataset: ``model``, ``dataset``, ``state``, ``records``
        (``done/total``), ``job`` (the job that ran or last held it) and ``reason`` (the
        failure messages, or why a unit is pending).

    Examples
    --------
    >>> import tempfile
    >>> out = tempfile.mkdtemp()
    >>> _ = evaluate("random", "synthetic-authors-en", tasks=["retrieval"], smoke=True,
    ...              output_dir=out, show_progress=False)
    >>> status(out)[["model", "dataset", "state", "records"]].values.tolist()
    [['random', 'synthetic-authors-en', 'done', '1/1']]
    """
    import pandas as pd

    from stebkit.results import read_record

    root = Path(output_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"results folder {str(root)!r} does not exist")
    plan = {(r["model"], r["dataset"]): [root / p for p in r["records"]]
            for r in _read_jsonl(jobs_dir(root) / "plan.jsonl")}
    # records of runs that left no plan
    from stebkit._io import files_under

    for path in (p for p in files_under(root, "*.json") if not p.name.startswith(".")
                 and JOBS_DIR not in p.relative_to(root).parts[:1]):
        try:
            rec = read_record(path)
            key = (rec["model"]["name"], rec["dataset"]["name"])
        except (ValueError, KeyError, OSError, TypeError):
            continue
        if path not in plan.setdefault(key, []):
            plan[key].append(path)
    jobs: dict[tuple[str, str], dict[str, Any]] = {}
    index = _read_jsonl(jobs_dir(root) / "index.jsonl")
    for job in index:
        for unit in job.get("units", []):
            jobs[tuple(unit)] = job  # the latest job of each unit
    slurm_ids = [j["job"] for j in index if j.get("executor") == "slurm"]
    states = slurm_states(slurm_ids) if slurm_ids and shutil.which("squeue") else {}
    rows = []
    for (model, dataset), paths in plan.items():
        held, claim = read_claim(claim_path(root, model, dataset), root)
        state, written, reasons = _unit_state(paths)
        job = jobs.get((model, dataset))
        if held:
            state, who = "running", claim.get("job", "?")
            reasons = [f"running in job {who} on {claim.get('host', '?')}"]
        elif state == "failed":
            who = claim.get("job", job["job"] if job else "")
        elif state == "done":
            who = claim.get("job", "")
        else:
            who = job["job"] if job else ""
            reasons = [_pending_reason(root, job, states)] + reasons
        rows.append({"model": model, "dataset": dataset, "state": state,
                     "records": f"{written}/{len(paths)}", "job": who,
                     "reason": "; ".join(r for r in reasons if r)})
    return pd.DataFrame(rows, columns=["model", "dataset", "state", "records", "job",
                                       "reason"])


def _unit_state(paths: Sequence[Path]) -> tuple[str, int, list[str]]:
    """``(state, records written, reasons)`` of a unit from its record files: ``failed``
    when one failed, ``done`` when all are there, else ``pending``."""
    from stebkit.results import read_record

    done, failed, reasons = 0, 0, []
    for p in paths:
        if not p.exists():
            continue
        try:
            rec = read_record(p)
        except (ValueError, OSError) as err:
            reasons.append(f"{p.name}: unreadable ({err})")
            continue
        if rec.get("status") == "failed":
            failed += 1
            reasons.append(f"{rec.get('task')} e={rec.get('episode_size')}: "
                           f"{rec.get('error', 'failed')}")
        else:
            done += 1
    state = "failed" if failed else "done" if done == len(paths) else "pending"
    return state, done + failed, reasons


def _pending_reason(root: Path, job: Mapping[str, Any] | None,
                    states: Mapping[str, tuple[str, str]]) -> str:
    if job is None:
        return "not started"
    log = job.get("err") or job.get("log")
    if job.get("executor") == "local":
        alive = job.get("host") == socket.gethostname() and _pid_alive(job.get("pid"))
        if alive:
            return f"queued for local worker {job['job']}"
        return f"local worker {job['job']} ended before running it; log: {log}"
    state, reason = states.get(job["job"], ("", ""))
    if state in _SLURM_ACTIVE:
        why = f": {reason}" if reason and reason != "None" else ""
        return f"queued in job {job['job']} ({state.lower()}{why})"
    why = job_outcome(root, job, states) or "ended before running it"
    return f"job {job['job']} {why}; log: {log}"


def _pid_alive(pid: Any) -> bool:
    try:
        os.kill(int(pid), 0)
    except (OSError, TypeError, ValueError):
        return False
    return True


# --------------------------------------------------------------------------- prefetch


def prefetch(models: Sequence[str], datasets: Sequence[str], *, seed: int = 42,
             smoke: bool = False, show_progress: bool = True) -> Any:
    """Download and process data and model files into the cache, so that jobs run offline.

    Each dataset is loaded (fetched, checked and processed into ``$STEBKIT_CACHE``) and
    each model encodes one sentence (its weights are downloaded, its TF-IDF or feature
    reference fitted).

    Returns
    -------
    pandas.DataFrame
        ``kind``, ``name``, ``status`` (``ok`` or ``failed``), ``seconds``, ``error``.

    Examples
    --------
    >>> prefetch(["random"], ["synthetic-authors-en"], smoke=True,
    ...          show_progress=False)[["kind", "name", "status"]].values.tolist()
    [['dataset', 'synthetic-authors-en', 'ok'], ['model', 'random', 'ok']]
    """
    import pandas as pd
    from tqdm.auto import tqdm

    from stebkit.datasets import load_dataset
    from stebkit.encoders import get_encoder

    items = [("dataset", d) for d in datasets] + [("model", m) for m in models]
    rows = []
    for kind, name in tqdm(items, desc="prefetch", unit="item", disable=not show_progress):
        started = time.perf_counter()
        error = ""
        try:
            if kind == "dataset":
                load_dataset(name, seed=seed, smoke=smoke)
            else:
                get_encoder(name).encode(["A short sentence to load the model."])
        except (StebkitError, OSError, ValueError, ImportError, RuntimeError) as err:
            error = f"{type(err).__name__}: {err}"
        rows.append({"kind": kind, "name": name, "status": "failed" if error else "ok",
                     "seconds": round(time.perf_counter() - started, 2), "error": error})
    return pd.DataFrame(rows, columns=["kind", "name", "status", "seconds", "error"])


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
