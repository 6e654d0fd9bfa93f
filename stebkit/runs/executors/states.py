"""The state of every planned unit of a results folder (:func:`status`)."""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stebkit.runs.executors import slurm
from stebkit.runs.executors.jobfiles import (
    JOBS_DIR,
    claim_path,
    jobs_dir,
    read_claim,
    read_jsonl,
    read_outcome,
)
from stebkit.runs.executors.slurm import SLURM_ACTIVE, job_log, job_outcome, last_lines

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
    >>> from stebkit import evaluate
    >>> out = tempfile.mkdtemp()
    >>> _ = evaluate("random", "synthetic-authors-en", tasks=["retrieval"], smoke=True,
    ...              output_dir=out, show_progress=False)
    >>> status(out)[["model", "dataset", "state", "records"]].values.tolist()
    [['random', 'synthetic-authors-en', 'done', '1/1']]
    """
    import pandas as pd

    root = Path(output_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"results folder {str(root)!r} does not exist")
    units = _unit_records(root)
    jobs, states = _latest_jobs(root)
    rows = [_unit_row(root, model, dataset, paths, jobs.get((model, dataset)), states)
            for (model, dataset), paths in units.items()]
    return pd.DataFrame(rows, columns=["model", "dataset", "state", "records", "job",
                                       "reason"])


def _unit_records(root: Path) -> dict[tuple[str, str], list[Path]]:
    """The record files of each (model, dataset) unit: those the plan lists, then the
    records found in the folder that the plan does not list (runs that left no plan)."""
    from stebkit._io import files_under
    from stebkit.records.results import read_record

    plan = _planned_records(root)
    for path in (p for p in files_under(root, "*.json") if not p.name.startswith(".")
                 and JOBS_DIR not in p.relative_to(root).parts[:1]):
        try:
            rec = read_record(path)
            key = (rec["model"]["name"], rec["dataset"]["name"])
        except (ValueError, KeyError, OSError, TypeError):
            continue
        if path not in plan.setdefault(key, []):
            plan[key].append(path)
    return plan


def _latest_jobs(root: Path) -> tuple[dict[tuple[str, str], dict[str, Any]], dict]:
    """The latest job of each unit from the job index, and the SLURM states of the index's
    SLURM jobs (none when ``squeue`` is not there)."""
    jobs: dict[tuple[str, str], dict[str, Any]] = {}
    index = read_jsonl(jobs_dir(root) / "index.jsonl")
    for job in index:
        for unit in job.get("units", []):
            jobs[tuple(unit)] = job  # the latest job of each unit
    slurm_ids = [j["job"] for j in index if j.get("executor") == "slurm"]
    states = slurm.slurm_states(slurm_ids) if slurm_ids and shutil.which("squeue") else {}
    return jobs, states


def _unit_row(root: Path, model: str, dataset: str, paths: list[Path],
              job: dict[str, Any] | None, states: Mapping) -> dict[str, Any]:
    """The :func:`status` row of one unit: its claim first (running), then its records."""
    held, claim = read_claim(claim_path(root, model, dataset), root)
    state, written, reasons = unit_state(paths)
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
    return {"model": model, "dataset": dataset, "state": state,
            "records": f"{written}/{len(paths)}", "job": who,
            "reason": "; ".join(r for r in reasons if r)}

def _planned_records(root: Path) -> dict[tuple[str, str], list[Path]]:
    """``{(model, dataset): record files}`` of ``<root>/jobs/plan.jsonl``; a row that is
    not one stebkit writes (names not strings, a record path that leaves ``root`` or
    passes ``.``/``..``) is skipped."""
    plan: dict[tuple[str, str], list[Path]] = {}
    for row in read_jsonl(jobs_dir(root) / "plan.jsonl"):
        model, dataset, records = row.get("model"), row.get("dataset"), row.get("records")
        if not isinstance(model, str) or not isinstance(dataset, str) \
                or not isinstance(records, list) \
                or not all(isinstance(p, str) and _plain_path(p) for p in records):
            continue
        plan[(model, dataset)] = [root / p for p in records]
    return plan


def _plain_path(path: str) -> bool:
    """Whether ``path`` is relative, without ``.``/``..`` or empty segments."""
    return not path.startswith("/") and all(p not in ("", ".", "..") for p in path.split("/"))


def unit_state(paths: Sequence[Path]) -> tuple[str, int, list[str]]:
    """``(state, records written, reasons)`` of a unit from its record files: ``failed``
    when one failed, ``done`` when all are there, else ``pending``."""
    from stebkit.records.results import read_record

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
    found = job_log(root, job, "err") or job_log(root, job, "log")
    log = f"log: {found}" if found else "no log of it in this results folder"
    if job.get("executor") == "local":
        alive = job.get("host") == socket.gethostname() and _pid_alive(job.get("pid"))
        if alive:
            return f"queued for local worker {job['job']}"
        outcome = read_outcome(root, job.get("run"), job.get("job"))
        if outcome is not None and outcome[0] != "success":
            return f"local worker {job['job']} failed: {last_lines(outcome[1], 1)}; {log}"
        return f"local worker {job['job']} ended before running it; {log}"
    state, reason = states.get(job["job"], ("", ""))
    if state in SLURM_ACTIVE:
        why = f": {reason}" if reason and reason != "None" else ""
        return f"queued in job {job['job']} ({state.lower()}{why})"
    why = job_outcome(root, job, states) or "ended before running it"
    return f"job {job['job']} {why}; {log}"


def _pid_alive(pid: Any) -> bool:
    try:
        os.kill(int(pid), 0)
    except (OSError, TypeError, ValueError):
        return False
    return True
