"""The files an evaluation keeps in ``<output>/jobs``: the plan, the job index, the claims
of units and the outcomes of jobs, never read or written through a link."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import stat
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stebkit.names import file_name
from stebkit.runs.outcomes import now
from stebkit.suites.executor_config import (
    ExecutorError,
)

JOBS_DIR = "jobs"
"""Folder of the results folder that holds job logs, claims, the plan and the job index."""

def jobs_dir(output_dir: str | os.PathLike) -> Path:
    """``<output>/jobs``: job logs, claims, the plan and the job index."""
    return Path(output_dir) / JOBS_DIR


def claim_path(output_dir: str | os.PathLike, model: str, dataset: str) -> Path:
    """The claim file of one unit: one per model and dataset name, as their records
    (:func:`stebkit.names.file_name`), so ``team/set`` and ``team__set`` never share one.

    >>> claim_path("res", "random", "team/set") != claim_path("res", "random", "team__set")
    True
    """
    return jobs_dir(output_dir) / "claims" / file_name(model) / f"{file_name(dataset)}.claim"


def open_regular(path: Path, flags: int, root: Path | None = None) -> int:
    """``os.open`` of a file stebkit keeps in a results folder, never through a link:
    ``path`` itself and its folders below ``root`` (created as needed,
    :func:`stebkit._io.open_folder`) must not be symbolic links, and the file must be a
    regular one. Raises :class:`ExecutorError` naming the path otherwise.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "link").symlink_to(folder / "elsewhere")
    >>> open_regular(folder / "link", os.O_RDWR | os.O_CREAT)
    Traceback (most recent call last):
    ...
    stebkit.suites.executor_config.ExecutorError: .../link is a symbolic link or not a ...
    """
    from stebkit._io import open_folder
    from stebkit.errors import LinkRefused

    def refuse(where: Path) -> ExecutorError:
        return ExecutorError(f"{where} is a symbolic link or not a regular file; stebkit "
                             "never writes through one (another user or program put it "
                             "there): remove it and run again")

    try:
        folder = open_folder(path.parent if root is None else root, path.parent)
    except LinkRefused as err:
        raise ExecutorError(str(err)) from None
    try:
        fd = os.open(path.name, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o666,
                     dir_fd=folder)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise refuse(path) from None
        err.filename = str(path)
        raise
    finally:
        os.close(folder)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise refuse(path)
    return fd


JOBS_FILE_LIMIT = 256 * 2**20
"""The most bytes of a job index or plan read back (:func:`read_jsonl`): a line per job
or unit, far below this for any run."""


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    r"""The JSON objects of the lines of ``path`` (a job index or plan stebkit wrote into a
    results folder), read as untrusted (:func:`stebkit._io.read_text`: a regular file of
    at most :data:`JOBS_FILE_LIMIT` bytes, else :class:`ExecutorError` naming it); none
    when it is missing; a line that is no JSON object (a job killed while writing it) is
    left out.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "index.jsonl"
    >>> _ = path.write_text('{"job": "1"}\n{"job": "2", "un\n\n')
    >>> read_jsonl(path), read_jsonl(path.with_name("missing.jsonl"))
    ([{'job': '1'}], [])
    """
    from stebkit._io import read_text

    if not os.path.lexists(path):
        return []
    try:
        text = read_text(path, limit=JOBS_FILE_LIMIT, fix="stebkit wrote no such file: "
                         "remove it (and run again)")
    except ValueError as err:
        raise ExecutorError(str(err)) from None
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            with contextlib.suppress(json.JSONDecodeError, RecursionError):
                row = json.loads(line)
                if isinstance(row, dict):
                    out.append(row)
    return out


def _write_jsonl(path: Path, rows: Sequence[Mapping[str, Any]], root: Path) -> None:
    from stebkit._io import write_text

    write_text(path, "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), root=root)


LOCK_WAIT_S = 60.0
"""How long a run waits for a lock held only for an instant (the run lock's newcomer
lock, the job index's lock) before it names the holder and gives up."""


@contextlib.contextmanager
def file_lock(path: Path, root: Path | None = None) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` for the ``with`` block (``root``: as
    :func:`open_regular`'s), taken within :data:`LOCK_WAIT_S` seconds; the holder writes
    who it is into the file, which :class:`RunBusy` names when the wait ends unmet."""
    fd = open_regular(path, os.O_RDWR | os.O_CREAT, root)
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() >= deadline:
                    raise RunBusy(_stuck(path, _parse(os.pread(fd, 1 << 16, 0)))) from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                  "since": now()}).encode(), 0)
        yield
    finally:
        os.close(fd)


def _stuck(path: Path, holder: Mapping[str, Any]) -> str:
    who = ", ".join(f"{k} {holder[k]}" for k in ("pid", "host", "since") if k in holder) \
        or "a process that wrote nothing into it"
    return (f"{path} has been locked for {LOCK_WAIT_S:g} s by {who}; a run holds it only "
            "for an instant: if that process is stuck or gone, stop it or remove the file, "
            "and run again")


@dataclass(frozen=True)
class JobUnit:
    """One model on one dataset: its record files, whether some must be computed, and
    the planned units a job runs of it (:func:`stebkit.runs.planning.plan_rows`)."""

    model: str
    dataset: str
    record_paths: tuple[Path, ...]
    pending: bool
    rows: tuple[dict[str, Any], ...] = ()

    @property
    def label(self) -> str:
        return f"{self.model} / {self.dataset}"


def save_plan(root: Path, units: Sequence[JobUnit]) -> None:
    """Merge ``units`` into ``<output>/jobs/plan.jsonl`` (what :func:`status` reports);
    no units, nothing written."""
    if not units:
        return
    path = jobs_dir(root) / "plan.jsonl"
    rows = {(r["model"], r["dataset"]): r for r in read_jsonl(path)}
    for u in units:
        rows[(u.model, u.dataset)] = {
            "model": u.model, "dataset": u.dataset,
            "records": [p.relative_to(root).as_posix() for p in u.record_paths]}
    _write_jsonl(path, list(rows.values()), root)


def add_jobs(root: Path, jobs: Sequence[Mapping[str, Any]]) -> None:
    """Append ``jobs`` (job id, units, log files) to ``<output>/jobs/index.jsonl`` under
    its lock, so that jobs submitted at once by two runs both stay listed."""
    path = jobs_dir(root) / "index.jsonl"
    with file_lock(jobs_dir(root) / ".index.lock", root):
        _write_jsonl(path, [*read_jsonl(path), *jobs], root)


# --------------------------------------------------------------------------- run files


def job_files_dir(root: str | os.PathLike, run: str) -> Path:
    """The private folder of one run's job files: what a job loads and runs (submitit's
    pickles and submission script, the local workers' argument files) and SLURM's job
    logs. It lies in the cache (``$STEBKIT_CACHE/jobs/<results folder key>-<run>``, mode
    0700), never in the results folder, which holds data only.

    >>> a, b = job_files_dir("res", "20260101T000000-abc123"), job_files_dir("other", "x")
    >>> a.parent == b.parent and a.parent.name == "jobs" and a.name.endswith("-abc123")
    True
    """
    import hashlib

    from stebkit.sources import cache_dir

    key = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:12]
    return cache_dir() / "jobs" / f"{key}-{file_name(run)}"


def check_job_files_home(kind: str) -> None:
    """Before a run of the executor ``kind`` writes anything, into the results folder or
    the cache (a processed dataset), refuse a cache where its job files could not be
    kept private (:func:`check_private_path` on the folder of :func:`job_files_dir`); a
    run in this process (``"sequential"``) keeps no job files."""
    if kind != "sequential":
        check_private_path(job_files_dir(".", "run").parent)


def check_private_path(folder: str | os.PathLike) -> None:
    """Refuse (:class:`ExecutorError`, naming the folder and the fix) to keep what a job
    loads and runs in ``folder`` when another user could swap it: as ssh's
    ``StrictModes``, ``folder`` and every folder above it, up to ``/``, must belong to
    this user or to root, and none may be writable by its group or by others unless it
    has the sticky bit (``/tmp``: then nobody renames what another user owns). A
    folder that passes cannot be renamed away and replaced by another user while a job
    waits in the queue.

    >>> import tempfile
    >>> check_private_path(tempfile.mkdtemp())
    >>> shared = Path(tempfile.mkdtemp())
    >>> shared.chmod(0o777)
    >>> check_private_path(shared / "jobs")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stebkit.suites.executor_config.ExecutorError: ... is writable by other users (mode 0777, ...
    """
    from stebkit.store import folder_fault

    given, real = Path(os.path.abspath(folder)), Path(os.path.realpath(folder))
    # the path as given (a link on it could be swapped) and the folders it leads to
    for each in dict.fromkeys((given, *given.parents, real, *real.parents)):
        try:  # a link on the path is checked, and where it leads
            why = folder_fault(each, link_ok=True)
        except FileNotFoundError:  # not made yet: it will be this user's
            continue
        if why:
            raise ExecutorError(
                f"{each} {why}: another user could replace the job files stebkit keeps "
                f"in {given} (what a job loads and runs) before the job starts; run "
                f"`chmod go-w {each}` (or `chmod +t` on a shared folder), or set "
                "STEBKIT_CACHE to a folder of your own")


def make_job_files_dir(root: str | os.PathLike, run: str) -> Path:
    """Create :func:`job_files_dir` afresh (mode 0700, inside a folder of the cache that
    only its owner may enter, below folders no other user may change:
    :func:`check_private_path`): a folder of that name that exists already, or a parent
    that is a link or another user's, is refused and named."""
    folder = job_files_dir(root, run)
    check_private_path(folder.parent)  # before anything is made there
    folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = os.lstat(folder.parent)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise ExecutorError(f"{folder.parent} is a symbolic link, not a folder or another "
                            "user's; stebkit keeps the job files of runs there: remove it "
                            "and run again")
    os.chmod(folder.parent, 0o700)
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        raise ExecutorError(f"{folder} exists already; stebkit makes a fresh job folder per "
                            "run: remove it and run again") from None
    return folder


class RunBusy(ExecutorError):
    """Another run writes into the results folder (:func:`run_lock`)."""


@contextlib.contextmanager
def run_lock(root: Path, info: Mapping[str, Any]) -> Iterator[None]:
    """Hold the run lock of the results folder ``root`` (``<root>/jobs/run.lock``) for the
    block: one run at a time writes there. The processes of one run (``info["run"]``: the
    command, its local workers and its SLURM jobs) share it; while another run holds it,
    :class:`RunBusy` names that run (the ``run``, ``host``, ``pid``, ``started`` and
    ``settings`` it wrote). The lock goes with the processes that hold it. A block that
    fails before it wrote anything (bad arguments) leaves no folder behind that the lock
    made: the results folder is as before.

    >>> import tempfile
    >>> with run_lock(Path(tempfile.mkdtemp()), {"run": "r1"}):
    ...     pass
    """
    made = [folder for folder in (Path(root), jobs_dir(root)) if not folder.exists()]
    try:
        with _held_run_lock(root, info):
            yield
    except BaseException:
        _remove_lock_only_folders(made)
        raise


def _remove_lock_only_folders(made: list[Path]) -> None:
    """Remove the folders of ``made`` (a results folder and its ``jobs/``, made for the
    run lock) when they hold nothing but the lock's own files."""
    for folder in reversed(made):
        try:
            rest = {p.name for p in folder.iterdir()} - {"run.lock", ".run.mutex"}
            if rest or folder.is_symlink():
                return
            for name in ("run.lock", ".run.mutex"):
                (folder / name).unlink(missing_ok=True)
            folder.rmdir()
        except OSError:
            return


@contextlib.contextmanager
def _held_run_lock(root: Path, info: Mapping[str, Any]) -> Iterator[None]:
    path = jobs_dir(root) / "run.lock"
    with file_lock(jobs_dir(root) / ".run.mutex", root):  # one newcomer at a time
        fd = open_regular(path, os.O_RDWR | os.O_CREAT, root)
        try:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # held: by this run's processes, or by another run
                holder = _parse(os.pread(fd, 1 << 16, 0))
                if holder.get("run") != info.get("run"):
                    raise RunBusy(_busy(root, holder)) from None
            else:
                os.ftruncate(fd, 0)
                os.pwrite(fd, (json.dumps(dict(info), sort_keys=True) + "\n").encode(), 0)
            fcntl.lockf(fd, fcntl.LOCK_SH)
        except BaseException:
            os.close(fd)
            raise
    try:
        yield
    finally:
        os.close(fd)  # closing the file drops the lock


def _busy(root: Path, holder: Mapping[str, Any]) -> str:
    who = ", ".join(f"{k} {holder[k]}" for k in ("run", "started", "host", "pid")
                    if k in holder) or "its owner wrote nothing"
    settings = f"; its settings: {holder['settings']}" if holder.get("settings") else ""
    return (f"{root} is being written by another run ({who}{settings}); a second run "
            "would mix its records with that one's: wait until it ends (`stebkit status "
            f"{root}` follows it) or choose another --output")


# --------------------------------------------------------------------------- claims


class Claim:
    """The lock of one unit, held by this process while it runs the unit (``root``: the
    results folder, below which no folder of the claim may be a link)."""

    def __init__(self, path: Path, root: Path | None = None) -> None:
        self.path, self.root = path, root
        self.fd: int | None = None

    def acquire(self, info: Mapping[str, Any], tries: int = 5) -> bool:
        """Take the lock: a few quick tries, since :func:`read_claim` (``stebkit status``,
        a sibling job) holds it for an instant; none when the holder is a job of the same
        run (``info["run"]``) running the unit, which holds it until the unit ends."""
        fd = open_regular(self.path, os.O_RDWR | os.O_CREAT, self.root)
        for attempt in range(tries):
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if attempt == tries - 1 or _running_in(fd, info.get("run")):
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


def _running_in(fd: int, run: Any) -> bool:
    """Whether the claim open at ``fd`` says a job of ``run`` is running its unit."""
    content = _parse(os.pread(fd, 1 << 16, 0))
    return run is not None and content.get("run") == run and content.get("state") == "running"


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
    return jobs_dir(root) / "outcomes" / f"{file_name(f'{run}-{job}')}.outcome"


def write_outcome(root: Path, run: str, job: str, state: str, error: str) -> None:
    """Write how job ``job`` of run ``run`` ended (:func:`outcome_path`, read back by
    :func:`read_outcome`); a full disk leaves the job's log and SLURM's state to say it."""
    from stebkit._io import write_text

    with contextlib.suppress(OSError):  # a full disk: the log and SLURM's state remain
        write_text(outcome_path(root, run, job), json.dumps(
            {"job": job, "run": run, "state": state, "error": error, "finished": now()}),
            root=root)


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
    except ExecutorError as err:  # a link or a FIFO in place of the file: named as such
        return "error", f"its outcome file was refused: {err}"
    except (OSError, ValueError) as err:
        return "error", f"its outcome file {path} is unreadable ({err})"
    if not isinstance(data, dict) or data.get("state") not in _OUTCOMES \
            or not isinstance(data.get("error", ""), str):
        return "error", f"its outcome file {path} is not one stebkit wrote"
    return data["state"], data.get("error", "")
