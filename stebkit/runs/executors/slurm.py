"""SLURM: whether it answers here, the states of jobs, and why a job ended."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stebkit.runs.executors.jobfiles import (
    job_files_dir,
    jobs_dir,
    read_outcome,
)
from stebkit.suites.executor_config import (
    ExecutorConfig,
    ExecutorError,
)


def last_lines(text: str, n: int = 3) -> str:
    r"""The last ``n`` non-empty lines of ``text`` on one line (a job's error, in short).

    >>> last_lines("Traceback\n  File x\n\nValueError: bad\n", n=2)
    'File x | ValueError: bad'
    >>> last_lines("")
    '(no message)'
    """
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-n:]) if lines else "(no message)"


# --------------------------------------------------------------------------- SLURM


SLURM_ACTIVE = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED",
                 "RESIZING", "SIGNALING", "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED"}
"""SLURM job states of a job that has not ended yet."""


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
                            f"(sinfo: {last_lines(out.stderr)}){what}. Is SLURM_CONF "
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
    if state in SLURM_ACTIVE:
        return None
    outcome = read_outcome(root, job.get("run"), job.get("job"))
    stopped = None
    if outcome is not None:
        kind, value = outcome
        last = last_lines(value, 1)
        if kind == "success":
            return None
        if kind == "error":
            return f"failed: {last}"
        if "time limit" in last:
            return (f"stopped at its time limit ({job.get('time')}); raise --slurm-time or "
                    "lower --slurm-datasets-per-job")
        stopped = f"was stopped ({last})"
    log = "".join(_log_tail(root, job, key) for key in ("err", "log"))
    if state == "TIMEOUT" or "DUE TO TIME LIMIT" in log or "time limit is near" in log:
        return (f"stopped at its time limit ({job.get('time')}); raise --slurm-time or lower "
                "--slurm-datasets-per-job")
    if state == "CANCELLED" or re.search(r"CANCELLED AT", log):
        return "was cancelled (scancel)"
    if state in ("NODE_FAIL", "BOOT_FAIL"):
        return f"was lost with its node ({state})"
    if state == "OUT_OF_MEMORY" or "oom" in log.lower():
        return "ran out of memory; raise --slurm-mem"
    if not state and not log.strip() and stopped is None:
        return ("ended, state unknown (SLURM no longer lists it, and it wrote no outcome "
                "and no log: cancelled while queued, or lost); `sacct -j "
                f"{job.get('job')}` may tell more")
    if state in ("FAILED", "") and "Starting with JobEnvironment" not in log:
        tail = last_lines(log) if log.strip() else "no log was written"
        return f"failed at start-up, before running any unit ({tail}); check --slurm-setup"
    return stopped or f"ended ({state or 'state unknown'}{', ' + reason if reason else ''})"


def job_log(root: Path, job: Mapping[str, Any], key: str = "log") -> Path | None:
    """The log file ``key`` (``"log"`` or ``"err"``) of a job of the results folder
    ``root``'s job index, where stebkit puts it for that folder: ``<root>/jobs`` (local
    workers) or the run's private folder (:func:`job_files_dir`, SLURM jobs); None when no
    regular file is there. The index is a file of the results folder, not trusted: only
    the file name of its entry counts, so a folder copied from elsewhere never names, nor
    reads, the logs of the folder it was copied from."""
    name, run = job.get(key), job.get("run")
    if not isinstance(name, str) or not name or not isinstance(run, str):
        return None
    for folder in (jobs_dir(root), job_files_dir(root, run)):
        path = folder / Path(name).name
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.lstat(path).st_mode) and not os.path.islink(path.parent):
                return path
    return None


def _log_tail(root: Path, job: Mapping[str, Any], key: str) -> str:
    """The end of a job's log (:func:`job_log`), or "" when there is none."""
    from stebkit._io import read_tail

    path = job_log(root, job, key)
    if path is None:
        return ""
    with contextlib.suppress(OSError, ValueError):
        return read_tail(path, 20_000)
    return ""
