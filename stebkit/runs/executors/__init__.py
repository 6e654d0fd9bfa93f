"""Where an evaluation runs: in this process, in local worker processes, or on SLURM.

The work of :func:`stebkit.evaluate` is cut into **units**: one model on one
dataset (every task and episode size of that pair, one record each). Three executors run
the pending units:

``sequential`` (the default)
    :func:`stebkit.runs.engine.run_plan` in this process.
``local``
    ``jobs`` worker processes on this machine. They share one ordered list of units and
    take them in small chunks of one model, so a slow model does not hold the others
    back; a worker builds (and loads) each model once, for all the chunks of it that it
    runs, and each worker is pinned to its share of the CPUs.
``slurm``
    One SLURM job array through ``submitit``: one job per model and shard of its
    datasets (``datasets_per_job``; by default about a quarter of the suite), so the
    model loads once per job.

A unit is **claimed** before it runs: ``<output>/jobs/claims/<model>/<dataset>.claim``
holds a POSIX lock (``fcntl.lockf``, honoured across machines on NFS) for as long as the
owning process lives, and says who owns it. Two jobs never own the same unit; a killed
job's lock goes with its process, so its unfinished units are simply pending again.
Records are written atomically, one file each, so a job killed in the middle (scancel,
time limit, node failure) leaves complete records or none; running ``stebkit run`` again
submits only the units that are missing or failed. The embedding cache writes one file
per batch under a fresh name and renames it into place, so several processes and nodes
may fill it at once.

The run is planned once, in the process that submits it: each job gets the planned units
of its share (:func:`stebkit.runs.planning.plan_rows`: tasks, episode configurations,
dataset fingerprints, record files, what is pending) and runs them as they are, planning
nothing again.

Every executor runs presets (``preset="benchmark"``): a unit then holds the records of
each preset entry on its dataset, with the entry's episode sizes and episodes per label.

Every run writes ``<output>/jobs/plan.jsonl`` (the units and their record files) and,
for jobs, ``<output>/jobs/index.jsonl`` (job id, units, log files); each job writes how
it ended to ``<output>/jobs/outcomes/`` (JSON). :func:`status` reads them back into a
table of done / failed / running / pending units with reasons. Nothing of a results
folder is trusted: nothing in it is ever unpickled, and claims, logs and outcomes are
never read or written through a symbolic link (:func:`open_regular`). What a job loads
and runs (submitit's pickles and script, a local worker's arguments) and SLURM's job
logs live in a private folder of the cache per run (:func:`job_files_dir`), local
workers' logs in ``<output>/jobs/``. One run at a time writes into a results folder: a
run and its jobs hold its run lock (:func:`run_lock`), and another run is refused,
naming the one that holds it.

The package's modules, by concern: :mod:`~stebkit.runs.executors.submission` (planning,
submitting and waiting; :func:`prefetch`),
:mod:`~stebkit.runs.executors.worker` (what one job runs), :mod:`~stebkit.runs.executors.slurm`
(SLURM's answers), :mod:`~stebkit.runs.executors.jobfiles` (plan, index, claims, outcomes) and
:mod:`~stebkit.runs.executors.states` (:func:`status`); every public name is importable from
``stebkit.runs.executors``.
"""

from __future__ import annotations

from stebkit.runs.executors.jobfiles import (
    JOBS_DIR,
    Claim,
    JobUnit,
    RunBusy,
    claim_path,
    job_files_dir,
    jobs_dir,
    open_regular,
    outcome_path,
    read_claim,
    read_outcome,
    run_lock,
)
from stebkit.runs.executors.slurm import (
    check_slurm,
    job_outcome,
    slurm_states,
)
from stebkit.runs.executors.states import (
    status,
)
from stebkit.runs.executors.submission import (
    JobsFailed,
    plan_units,
    prefetch,
)
from stebkit.runs.executors.worker import (
    JobInterrupted,
    run_job,
)
from stebkit.suites.executor_config import (
    EXECUTORS,
    ExecutorConfig,
    ExecutorError,
    executor_config,
    time_minutes,
)

__all__ = [
    "EXECUTORS",
    "ExecutorConfig",
    "ExecutorError",
    "executor_config",
    "time_minutes",
    "JOBS_DIR",
    "JobsFailed",
    "JobInterrupted",
    "jobs_dir",
    "claim_path",
    "job_files_dir",
    "open_regular",
    "RunBusy",
    "run_lock",
    "JobUnit",
    "plan_units",
    "Claim",
    "read_claim",
    "run_job",
    "outcome_path",
    "read_outcome",
    "check_slurm",
    "slurm_states",
    "job_outcome",
    "status",
    "prefetch",
]
