"""Planning the units of an evaluation, submitting them to local workers or SLURM, waiting
for them and prefetching what jobs need."""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stebkit.errors import StebkitError
from stebkit.escape import echo, text_cell
from stebkit.runs.executors import slurm
from stebkit.runs.executors.jobfiles import (
    JobUnit,
    add_jobs,
    claim_path,
    job_files_dir,
    jobs_dir,
    make_job_files_dir,
    open_regular,
    read_claim,
    read_outcome,
    save_plan,
)
from stebkit.runs.executors.slurm import SLURM_ACTIVE, check_slurm, job_outcome, last_lines
from stebkit.runs.executors.states import unit_state
from stebkit.runs.executors.worker import run_job
from stebkit.runs.outcomes import now
from stebkit.suites.executor_config import (
    ExecutorConfig,
    ExecutorError,
    time_minutes,
)

if TYPE_CHECKING:
    from stebkit.records.results import Results
    from stebkit.runs.context import RunContext
    from stebkit.runs.planning import Plan, PresetPlan


class JobsFailed(StebkitError):
    """Jobs ended without finishing their units; ``results`` holds what was written."""

    def __init__(self, message: str, results: Any = None) -> None:
        super().__init__(message)
        self.results = results


def plan_units(models: Any, datasets: Any, *, output_dir: str | os.PathLike = "results",
               **kwargs: Any) -> list[JobUnit]:
    """The units of an evaluation, in order (models outer, datasets inner).

    ``kwargs`` are those of :func:`stebkit.evaluate` (tasks, overwrite, seed, smoke,
    episode_sizes, episodes_per_label, batch_size, sampling, preset; the others do not
    change the plan). With a ``preset``, a unit holds the records of every entry of the
    preset that runs its dataset, each with the entry's episode configuration.

    Examples
    --------
    >>> import tempfile
    >>> units = plan_units(["random", "tfidf-char"], ["synthetic-authors-en"], smoke=True,
    ...                    tasks=["retrieval"], output_dir=tempfile.mkdtemp())
    >>> [(u.label, len(u.record_paths), u.pending) for u in units]
    [('random / synthetic-authors-en', 1, True), ('tfidf-char / synthetic-authors-en', 1, True)]
    """
    from stebkit.runs.context import RunContext

    context, options = RunContext.split(kwargs)
    return _planned(models, datasets, Path(output_dir), context, options)[1]


def _planned(models: Any, datasets: Any, root: Path, context: RunContext,
             options: dict[str, Any]) -> tuple[Plan | PresetPlan, list[JobUnit]]:
    """The run planned once (:func:`stebkit.runs.engine.plan_run`) and its units."""
    from stebkit.runs.engine import PresetPlan, plan_run

    the_plan = plan_run(models, datasets, context, output_dir=root, **options)
    units = preset_units(the_plan) if isinstance(the_plan, PresetPlan) else units_of(the_plan)
    return the_plan, units


def units_of(the_plan: Plan | PresetPlan) -> list[JobUnit]:
    """The units (one model on one dataset) of a :class:`stebkit.runs.engine.Plan` (or of
    every entry of a preset's), in its order, each with the rows a job runs of it
    (:func:`stebkit.runs.planning.plan_rows`), its record files and whether one of them
    is pending."""
    from stebkit.runs.planning import plan_rows

    return [JobUnit(model, dataset, tuple(the_plan.root / r["record"] for r in rows),
                    any(r["pending"] for r in rows), tuple(rows))
            for (model, dataset), rows in plan_rows(the_plan).items()]


def preset_units(the_plan: PresetPlan) -> list[JobUnit]:
    """The units of a preset run (a :class:`stebkit.runs.engine.PresetPlan`): a unit holds the
    records of every entry of the preset on its dataset, models outer, datasets inner (in
    the order given), as a run without a preset."""
    units = units_of(the_plan)
    model_rank = {m: k for k, m in enumerate(dict.fromkeys(u.model for u in units))}
    dataset_rank = {d: k for k, d in enumerate(dict.fromkeys(
        [*(the_plan.datasets or []), *(u.dataset for u in units)]))}
    return sorted(units, key=lambda u: (model_rank[u.model], dataset_rank[u.dataset]))


# --------------------------------------------------------------------------- executors


def run_info(run: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """What a run writes in the run lock (:func:`~stebkit.runs.executors.jobfiles.run_lock`):
    its id, host, process, start and the settings that change its numbers."""
    shown = ("seed", "smoke", "sampling", "episodes_per_label", "episode_sizes", "preset",
             "tasks", "executor")
    return {"run": run, "host": socket.gethostname(), "pid": os.getpid(), "started": now(),
            "settings": ", ".join(f"{k} {settings[k]!r}" for k in shown
                                  if settings.get(k) is not None)}


def run_submitted(names: tuple[list[str], list[str] | None], root: Path,
                  config: ExecutorConfig, run: str, context: RunContext,
                  options: dict[str, Any]) -> Results:
    """:func:`stebkit.evaluate` with the local or SLURM executor, under the run lock."""
    from stebkit.records.record import Record
    from stebkit.records.results import Results

    the_plan, units = _planned(names[0], names[1], root, context, options)
    if options["preset"]:
        the_plan.announce(stacklevel=3)  # as a sequential preset run says it
    save_plan(root, units)
    todo, busy = [], []
    for u in units:
        if not u.pending:
            continue
        held, content = read_claim(claim_path(root, u.model, u.dataset), root)
        (busy if held else todo).append((u, content))
    for u, content in busy:
        echo(f"{u.label}: running in job {content.get('job', '?')}, not submitted again",
             file=sys.stderr)
    suite_files = sorted({str(f) for f in map(_suite_file, {u.dataset for u in units})
                          if f is not None})
    submission = _Submission(root, config, [u for u, _ in todo], asdict(context), suite_files,
                             run=run)
    if todo:
        submission.start()
        if config.wait:
            try:
                submission.wait(show_progress=context.show_progress)
            except KeyboardInterrupt:
                submission.stop_local()  # SLURM jobs go on: `stebkit status` follows them
                if config.kind == "local":
                    submission.clean_up()
                raise
            submission.clean_up()
        else:
            echo(f"submitted {len(todo)} unit(s) in {len(submission.jobs)} job(s); follow "
                 f"them with `stebkit status {root}`", file=sys.stderr)
    results = Results((Record.read(p) for u in units for p in u.record_paths
                       if p.exists()), root=root)
    failed = submission.failures() if todo and config.wait else []
    if failed:
        raise JobsFailed("\n".join(failed), results)
    return results


def run_sequential(models: Any, datasets: Any, root: Path, context: RunContext,
                   options: dict[str, Any]) -> Results:
    """The sequential executor: the run planned once (:func:`stebkit.runs.engine.plan_run`), its
    units saved for :func:`status`, and run in this process
    (:func:`stebkit.runs.engine.run_plan`)."""
    from stebkit.runs import engine as runner

    the_plan, units = _planned(models, datasets, root, context, options)
    save_plan(root, units)
    return runner.run_plan(the_plan, context)


def _suite_file(dataset: str) -> Path | None:
    from stebkit.suites import suite_file

    return suite_file(dataset)


# --------------------------------------------------------------------------- submissions


def job_payload(run: str, root: Path, units: Sequence[JobUnit], context: Mapping[str, Any],
                suite_files: Sequence[str], **extra: Any) -> dict[str, Any]:
    """What one job runs (:func:`~stebkit.runs.executors.worker.run_job`), as JSON: the
    run's id, results folder and settings (``context``: the fields of
    :class:`~stebkit.runs.context.RunContext`), the suite files to load, and ``units``
    with their planned units (:attr:`JobUnit.rows`), so that no job plans the run again;
    ``extra``: ``chunk``, ``offset``, ``cpus``."""
    return {"run": run, "output_dir": str(Path(root).resolve()),
            "units": [{"model": u.model, "dataset": u.dataset, "plan": list(u.rows)}
                      for u in units],
            "context": dict(context), "suite_files": list(suite_files), **extra}


@dataclass
class _Job:
    """One submitted job (local worker or SLURM array task)."""

    id: str
    units: list[tuple[str, str]]
    log: Path
    err: Path | None = None
    process: Any = None


KEPT_LOG_BYTES = 1 << 20
"""The end of a SLURM job's log kept in the results folder once its run ended."""


class _Submission:
    def __init__(self, root: Path, config: ExecutorConfig, units: list[JobUnit],
                 context: dict[str, Any], suite_files: list[str], run: str) -> None:
        self.root, self.config, self.units, self.context = root, config, units, context
        self.suite_files, self.run = suite_files, run
        self.jobs: list[_Job] = []
        self.folder = jobs_dir(root)

    def _payload(self, units: Sequence[JobUnit], **extra: Any) -> dict[str, Any]:
        return job_payload(self.run, self.root, units, self.context, self.suite_files,
                           **extra)

    def start(self) -> None:
        """Start the jobs (local workers or a SLURM array); a start that fails on a full
        disk (any ``OSError``) leaves no private job folder behind."""
        try:
            if self.config.kind == "local":
                self.start_local()
            else:
                self.start_slurm()
        except OSError:
            shutil.rmtree(job_files_dir(self.root, self.run), ignore_errors=True)
            raise

    def clean_up(self) -> None:
        """Once no job of the run can load anything more: keep the end of each SLURM log
        in ``<output>/jobs`` (where :func:`status` looks first) and remove the run's
        private job folder (:func:`job_files_dir`), which held what the jobs ran."""
        from stebkit._io import read_tail, write_text

        if self.config.kind == "slurm":
            for log in (p for j in self.jobs for p in (j.log, j.err) if p is not None):
                with contextlib.suppress(OSError, ValueError):
                    write_text(self.folder / log.name, read_tail(log, KEPT_LOG_BYTES),
                               root=self.root)
        shutil.rmtree(job_files_dir(self.root, self.run), ignore_errors=True)
        for job in self.jobs:
            job.log = self.folder / job.log.name
            job.err = None if job.err is None else self.folder / job.err.name

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
        private = make_job_files_dir(self.root, self.run)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if cpus:
            env["OMP_NUM_THREADS"] = str(share)
        from stebkit._io import write_text

        paths = []  # what each worker runs, never in the results; all written before any
        for k in range(n):  # worker starts, as each removes its own once read
            mine = [cpus[(k * share + j) % len(cpus)] for j in range(share)] if cpus else []
            payload = self._payload(self.units, offset=round(k * len(self.units) / n),
                                    chunk=chunk, cpus=mine)
            paths.append(private / f"local-{k}.args")
            write_text(paths[k], json.dumps(payload))
        records = []
        for k, path in enumerate(paths):
            log = self.folder / f"local-{self.run}-{k}.log"
            name = f"local-{k}"
            fd = open_regular(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, self.root)
            try:
                proc = subprocess.Popen([sys.executable, "-m", "stebkit.runs.executors", str(path)],
                                        stdout=fd, stderr=subprocess.STDOUT,
                                        env={**env, "STEBKIT_JOB": name},
                                        start_new_session=not self.config.wait)
            finally:
                os.close(fd)
            job = _Job(name, [(u.model, u.dataset) for u in self.units], log, process=proc)
            self.jobs.append(job)
            records.append({"job": job.id, "executor": "local", "run": self.run,
                            "host": socket.gethostname(), "pid": proc.pid,
                            "units": job.units, "log": str(log), "submitted": now()})
        add_jobs(self.root, records)

    # -- slurm ------------------------------------------------------------------------
    def start_slurm(self) -> None:
        units = self.units
        check_slurm(self.config, [u.label for u in units])
        import submitit

        shards = self._shards()
        # submitit's pickles (what a job unpickles and runs), its script and the logs live
        # in the run's private folder of the cache, never in the results folder
        private = make_job_files_dir(self.root, self.run)
        ex = submitit.SlurmExecutor(folder=private, max_num_timeout=0)
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
                f"{last_lines(str(err))}. Nothing was submitted; the submission script is "
                f"in {private}") from None
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
                            "submitted": now()})
        add_jobs(self.root, records)

    def _shards(self) -> list[list[JobUnit]]:
        by_model: dict[str, list[JobUnit]] = {}
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

        from stebkit.runs.engine import progress_interval

        bar = tqdm(total=len(self.units), desc=text_cell(f"stebkit ({self.config.kind})"),
                   unit="unit", disable=not show_progress, mininterval=progress_interval())
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
        states = slurm.slurm_states([j.id for j in self.jobs])
        return [j for j in self.jobs if states.get(j.id, ("", ""))[0] in SLURM_ACTIVE]

    def failures(self) -> list[str]:
        """One line per job that ended without finishing its units (a job whose units
        were all written is no failure, whatever stopped it), and the units left in all,
        counted as :func:`status` counts them."""
        finished = self.finished_units()
        by_key = {(u.model, u.dataset): u for u in self.units}
        left_all = {key for key, u in by_key.items()
                    if key not in finished and unit_state(u.record_paths)[0] == "pending"}
        states = (slurm.slurm_states([j.id for j in self.jobs])
                  if self.config.kind == "slurm" else {})
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
                    f": {last_lines(outcome[1], 1)}" if outcome and outcome[1] else "")
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
