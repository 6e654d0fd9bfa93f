"""One job: a SLURM array task or a local worker runs its units (``python -m
stebkit.runs.executors PAYLOAD`` starts a local one)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stebkit.escape import echo
from stebkit.runs.executors.jobfiles import (
    Claim,
    claim_path,
    file_lock,
    read_claim,
    run_lock,
    write_outcome,
)
from stebkit.runs.outcomes import now


class JobInterrupted(BaseException):
    """Raised in a job when SLURM stops it (scancel, time limit): not an ``Exception``,
    so that no unit records it as a failure of its own."""


# --------------------------------------------------------------------------- the worker


def _job_name() -> str:
    array, task = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    if array and task:
        return f"{array}_{task}"
    return (os.environ.get("SLURM_JOB_ID") or os.environ.get("STEBKIT_JOB")
            or f"pid {os.getpid()}")


def _log(message: str) -> None:
    echo(f"[{now()}] {message}", flush=True)


def _on_signal(signum: int, frame: Any) -> None:
    del frame
    name = signal.Signals(signum).name
    reason = "its time limit is near" if signum == signal.SIGUSR2 else f"it received {name}"
    raise JobInterrupted(f"job {_job_name()} stopped: {reason}")


def run_job(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Run the units of one job (a SLURM array task or a local worker).

    ``payload``: ``run`` (id of the submission), ``output_dir`` (the results folder),
    ``units`` (in order, each ``{"model", "dataset", "plan"}``: the rows of its planned
    units, :func:`stebkit.runs.planning.plan_rows`), ``context`` (the run's settings,
    :class:`~stebkit.runs.context.RunContext`), ``suite_files`` (suite files to load
    first), ``chunk`` (units of one model run per :func:`~stebkit.runs.engine.run_plan`
    call; default: all of them), ``offset`` (where in ``units`` this worker starts) and
    ``cpus`` (CPUs to pin the process to). The job runs the plan it is given: it plans
    nothing again.
    Units another live process holds, or that this submission already finished, are
    passed over; while another run holds the results folder's run lock
    (:func:`~stebkit.runs.executors.jobfiles.run_lock`), the job runs nothing and fails,
    naming it. Each model is built (and its weights loaded) once per job, and dropped
    once the job has no more of its units. Returns counts of the units run and passed
    over.
    """
    from stebkit.runs.engine import RunContext

    for sig in (signal.SIGTERM, signal.SIGUSR2, signal.SIGINT):
        signal.signal(sig, _on_signal)
    if payload.get("cpus"):
        os.sched_setaffinity(0, set(payload["cpus"]))
    if payload.get("suite_files"):
        from stebkit.suites import load_suite

        for file in payload["suite_files"]:
            load_suite(file)
    context = RunContext(**{**payload["context"], "show_progress": False})
    root = Path(payload["output_dir"])
    run, job = payload["run"], _job_name()
    planned = {(u["model"], u["dataset"]): u["plan"] for u in payload["units"]}
    units = list(planned)
    offset = int(payload.get("offset", 0)) % max(1, len(units))
    order = units[offset:] + units[:offset]
    chunk = int(payload.get("chunk") or len(units) or 1)
    info = {"job": job, "host": socket.gethostname(), "pid": os.getpid(), "run": run}
    _log(f"job {job}: {len(units)} unit(s), output {root}")
    try:
        with run_lock(root, {**info, "started": now(), "settings": "(a job of the run)"}):
            ran, passed = _run_units(order, chunk, root, run, info, context, planned,
                                     kept_models={})  # each model is built once per job
    except BaseException as err:
        write_outcome(root, run, job, "interrupted" if isinstance(err, JobInterrupted)
                      else "error", f"{type(err).__name__}: {err}")
        raise
    write_outcome(root, run, job, "success", "")
    _log(f"job {job}: finished ({ran} unit(s) run, {passed} passed over)")
    return {"job": job, "ran": ran, "passed": passed}


def _run_units(order: Sequence[tuple[str, str]], chunk: int, root: Path, run: str,
               info: Mapping[str, Any], context: Any,
               planned: Mapping[tuple[str, str], Sequence[Mapping[str, Any]]], *,
               kept_models: dict[tuple[Any, ...], Any]) -> tuple[int, int]:
    """Claim and run ``order`` in chunks of one model (see :func:`run_job`) with the run's
    ``context`` (a :class:`stebkit.runs.engine.RunContext`), the planned units of each
    (``planned``: rows of :func:`stebkit.runs.planning.plan_rows`) and the models built
    so far (``kept_models``)."""
    import gc

    from stebkit.runs.engine import run_plan
    from stebkit.runs.planning import plan_of_rows

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
            if not claim.acquire({**info, "state": "running", "started": now()}):
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
            _prepare_datasets(datasets, {"seed": context.seed, "smoke": context.smoke},
                              run_datasets)
            rows = [row for unit, _ in held for row in planned[unit]]
            run_plan(plan_of_rows(rows, root), context, kept_models=kept_models)
            ok = True
        except JobInterrupted as err:
            _log(f"{err}; unfinished: {', '.join(datasets)}")
            raise
        finally:
            for _, claim in held:
                if ok:  # written while the lock is held: no other job can take it meanwhile
                    claim.write({**info, "state": "finished", "finished": now()})
                claim.release()
        ran += len(held)
        _log(f"{model}: done in {time.perf_counter() - started:.1f} s")
        later = {m for m, _ in order[i:]}
        done = [key for key in kept_models if key[0] not in later]
        for key in done:  # this job has no more units of that model: free its memory
            del kept_models[key]
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
    from stebkit.names import file_name
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
        with file_lock(cache_dir() / "locks" / f"{key}-{seed}-{int(smoke)}.lock"):
            for name in members:
                with contextlib.suppress(Exception):  # errors: the runner's
                    load_dataset(get_spec(name), seed=seed, smoke=smoke)


def worker_main(argv: Sequence[str]) -> int:
    """``python -m stebkit.runs.executors PAYLOAD``: one local worker."""
    from stebkit._io import read_json

    payload = read_json(argv[0], fix="a worker reads the file its run wrote; run again")
    _forget(Path(argv[0]))
    try:
        run_job(payload)
    except JobInterrupted as err:
        _log(str(err))
        return 3
    return 0


def _forget(args_file: Path) -> None:
    """Remove a local worker's argument file once read, and the run's private job folder
    with the last one, so that a run that does not wait for its workers (``--no-wait``)
    leaves no job folder behind; a run that waits removes it too when its workers end."""
    with contextlib.suppress(OSError):
        args_file.unlink()
        args_file.parent.rmdir()  # refused while another worker's file is still there
