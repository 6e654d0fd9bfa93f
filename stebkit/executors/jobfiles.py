"""The files an evaluation keeps in ``<output>/jobs``: the plan, the job index, the claims
of units and the outcomes of jobs, never read or written through a link."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from stebkit.executor_config import (
    ExecutorError,
)

JOBS_DIR = "jobs"
"""Folder of the results folder that holds job logs, claims, the plan and the job index."""

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
