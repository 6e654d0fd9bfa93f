"""How and where an evaluation runs: :class:`ExecutorConfig`, read from a kind name, a
suite file's ``run: executor`` mapping or the command line (:func:`executor_config`).

The executors themselves live in :mod:`stebkit.runs.executors`; this module holds only the
configuration, with the suites, so that the suite reader (a floor below the runs) can check
a suite's executor without importing them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from stebkit.errors import StebkitError
from stebkit.settings import MAX_COUNT, Choice, Setting, Settings, setting


class Executor(Choice):
    """The executors :func:`evaluate` knows: ``sequential`` (this process), ``local``
    (worker processes), ``slurm`` (a SLURM job array)."""

    SEQUENTIAL = "sequential"
    LOCAL = "local"
    SLURM = "slurm"


EXECUTORS = Executor.values()
"""The executors' names (:class:`Executor`), as plain texts."""


class ExecutorError(StebkitError, ValueError):
    """An executor cannot run here (no SLURM, unknown partition, bad option)."""


MAX_JOBS = 100_000
"""The most workers, CPUs or SLURM array tasks at once a configuration may name."""


def _declare(name: str, kind: str, **range_: Any) -> Setting:
    """A setting of :class:`ExecutorConfig`, named in messages as a suite file writes it
    (``executor: jobs``); on the command line a SLURM resource is ``--slurm-NAME``."""
    return Setting(f"executor: {name}", kind, **range_)


def _slurm(name: str, kind: str, help: str, metavar: str = "N", **range_: Any) -> Setting:
    flag = "--slurm-" + name.replace("_", "-")
    return _declare(name, kind, help=help, flag=flag, metavar=metavar, **range_)


@dataclass(frozen=True, repr=False)
class ExecutorConfig(Settings):
    """How and where :func:`evaluate` runs its units. Each field is declared with its
    type and range (:mod:`stebkit.settings`): ``wait="false"`` or ``jobs=10**30`` is
    refused, naming the field; the repr shows what differs from the defaults.

    Parameters
    ----------
    kind : {"sequential", "local", "slurm"}
    jobs : int, default 2
        Worker processes of the ``local`` executor.
    partition, gpus_per_job, cpus_per_job, mem, time, array_parallelism
        SLURM resources of each job (``mem`` as SLURM writes it, e.g. ``"16G"``; ``time``
        as ``minutes``, ``MM:SS``, ``HH:MM:SS`` or ``D-HH:MM:SS``).
    setup : list of str
        Shell lines run before each SLURM job (``module load ...``); a failing line
        fails the job.
    extra : dict
        Other ``sbatch`` options, passed through (``{"account": "abc"}`` gives
        ``--account=abc``).
    datasets_per_job : int, optional
        Datasets per SLURM job (default: a quarter of the datasets, at least 1).
    wait : bool, default True
        Wait for the jobs (with a progress bar of finished units); False submits and
        returns.

    Examples
    --------
    >>> ExecutorConfig(), ExecutorConfig(kind="local", jobs=4)
    (ExecutorConfig(), ExecutorConfig(kind='local', jobs=4))
    """

    WHAT = "executor"

    kind: str = setting("sequential", _declare(
        "kind", "choice", choices=Executor, flag="--executor",
        help="sequential: this process; local: --jobs worker processes; slurm: a SLURM job "
             "array"))
    jobs: int = setting(2, _declare("jobs", "int", low=1, high=MAX_JOBS,
                                    help="worker processes of --executor local"))
    partition: str | None = setting(None, _slurm("partition", "text", "SLURM partition",
                                                 "NAME", optional=True))
    gpus_per_job: int = setting(0, _slurm("gpus_per_job", "int", "GPUs per job", low=0,
                                          high=1024))
    cpus_per_job: int | None = setting(None, _slurm("cpus_per_job", "int", "CPUs per job",
                                                    low=1, high=MAX_JOBS, optional=True))
    mem: str | None = setting(None, _slurm("mem", "text", "memory per job, e.g. 16G", "MEM",
                                           optional=True))
    time: str = setting("4:00:00", _slurm(
        "time", "text", "time limit per job: minutes, HH:MM:SS or D-HH:MM:SS", "TIME"))
    array_parallelism: int = setting(64, _slurm(
        "array_parallelism", "int", "jobs of the array running at once", low=1,
        high=MAX_JOBS))
    setup: tuple[str, ...] = ()
    extra: Mapping[str, str] = field(default_factory=dict)
    datasets_per_job: int | None = setting(None, _slurm(
        "datasets_per_job", "int", "datasets per job (default: a quarter of the datasets)",
        low=1, high=MAX_COUNT, optional=True))
    wait: bool = setting(True, _declare(
        "wait", "bool", flag="--no-wait",
        help="submit and return (follow with `stebkit status OUTPUT`)"))

    def __post_init__(self) -> None:
        super().__post_init__()
        time_minutes(self.time)
        if isinstance(self.setup, str):
            object.__setattr__(self, "setup", (self.setup,))
        object.__setattr__(self, "setup", tuple(str(s) for s in self.setup))
        if not isinstance(self.extra, Mapping):
            raise ExecutorError(f"executor: extra must be a mapping of sbatch options, got "
                                f"{self.extra!r}")
        object.__setattr__(self, "extra", {str(k): str(v) for k, v in self.extra.items()})


def executor_config(value: Any = None, **overrides: Any) -> ExecutorConfig:
    """An :class:`ExecutorConfig` from a kind name, a mapping (as in a suite file) or a
    config, with ``overrides`` applied (``None`` overrides are ignored).

    Examples
    --------
    >>> executor_config("local", jobs=4).jobs
    4
    >>> executor_config({"kind": "slurm", "partition": "gpu", "time": "2:00:00"}).partition
    'gpu'
    >>> executor_config({"kind": "slurm", "gpu": 1})
    Traceback (most recent call last):
    ...
    stebkit.suites.executor_config.ExecutorError: executor: unknown option(s) ['gpu']; known: ...
    """
    if value is None:
        base: dict[str, Any] = {}
    elif isinstance(value, ExecutorConfig):
        base = {f.name: getattr(value, f.name) for f in fields(value)}
    elif isinstance(value, str):
        base = {"kind": value}
    elif isinstance(value, Mapping):
        base = dict(value)
    else:
        raise ExecutorError(f"executor: expected a kind {EXECUTORS}, a mapping or an "
                            f"ExecutorConfig, got {type(value).__name__}")
    base.update({k: v for k, v in overrides.items() if v is not None})
    known = [f.name for f in fields(ExecutorConfig)]
    unknown = sorted(set(base) - set(known))
    if unknown:
        raise ExecutorError(f"executor: unknown option(s) {unknown}; known: {known}")
    if isinstance(base.get("setup"), list):
        base["setup"] = tuple(base["setup"])
    return ExecutorConfig(**base)


_TIME = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")


def time_minutes(value: Any) -> int:
    """A SLURM time limit in whole minutes (rounded up, at least 1).

    >>> time_minutes("90"), time_minutes("1:30:00"), time_minutes("1-00:00:00")
    (90, 90, 1440)
    >>> time_minutes("0:30")  # MM:SS
    1
    >>> time_minutes("soon")
    Traceback (most recent call last):
    ...
    stebkit.suites.executor_config.ExecutorError: executor: time 'soon' is not a SLURM time ...
    """
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    m = _TIME.match(str(value).strip())
    if not m:
        raise ExecutorError(f"executor: time {value!r} is not a SLURM time (minutes, MM:SS, "
                            "HH:MM:SS, D-HH or D-HH:MM:SS)")
    days, a, b, c = m.groups()
    parts = [int(x) for x in (a, b, c) if x is not None]
    if days is not None:
        hours, minutes, seconds = (parts + [0, 0])[:3]
        total = int(days) * 86400 + hours * 3600 + minutes * 60 + seconds
    elif len(parts) == 1:
        total = parts[0] * 60
    elif len(parts) == 2:
        total = parts[0] * 60 + parts[1]
    else:
        total = parts[0] * 3600 + parts[1] * 60 + parts[2]
    if total <= 0:
        raise ExecutorError(f"executor: time {value!r} must be positive")
    return max(1, math.ceil(total / 60))


# --------------------------------------------------------------------------- files
