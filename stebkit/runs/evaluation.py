"""``stebkit.evaluate``: models x datasets x tasks, one record each, wherever they run.

:func:`evaluate` resolves the run's settings (:class:`~stebkit.runs.context.RunContext`)
and where it runs (:func:`~stebkit.suites.executor_config.executor_config`), holds the
results folder's run lock, and hands the run to an executor: the sequential one plans and
runs it in this process (:func:`~stebkit.runs.executors.submission.run_sequential`), the
local and SLURM ones submit its units as jobs
(:func:`~stebkit.runs.executors.submission.run_submitted`).
"""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stebkit.runs.context import RunContext, check_options
from stebkit.runs.executors.jobfiles import check_job_files_home, run_lock
from stebkit.runs.executors.submission import run_info, run_sequential, run_submitted
from stebkit.runs.planning import smoke_cap_note
from stebkit.suites.executor_config import ExecutorError, executor_config

if TYPE_CHECKING:
    from stebkit.records.results import Results


def evaluate(
    models: Any,
    datasets: Any = None,
    *,
    tasks: Sequence[str] | None = None,
    episode_sizes: Sequence[int] | Mapping[str, Sequence[int]] | None = None,
    episodes_per_label: int | Mapping[str, int] | None = None,
    preset: str | None = None,
    output_dir: str | os.PathLike = "results",
    executor: Any = None,
    context: RunContext | None = None,
    **settings: Any,
) -> Results:
    """Evaluate each model on each dataset, task and episode size, one record each.

    The run is planned once (:func:`stebkit.runs.engine.plan`): the combinations whose
    record is already there are skipped before a model is loaded or a text encoded, so an
    interrupted run resumes where it stopped. The executor runs the rest in this process
    (:func:`stebkit.runs.engine.run_plan`), in local worker processes or in SLURM jobs.

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
    episode_sizes : list of int, or dict task -> list of int, optional
        Override the datasets' episode sizes (a list applies to every task except
        predefined pairs and probing, which use single texts).
    episodes_per_label : int, or dict task -> int, optional
        Override the datasets' episodes per label (the reference's
        ``n_episodes_per_class``; predefined pairs, probing and retrieval with size -1
        use every text whatever it is). A smoke run samples at most 10 and says so when
        more is given.
    preset : {"benchmark", "fast"}, optional
        Run one of the reference's presets (:mod:`stebkit.tasks.presets`): its tasks, datasets
        and episode configuration; ``datasets`` (when given) restricts it.
    output_dir : path, default "results"
        Root of the record files ``<model>/<dataset>/<task>__e<size>.json`` (an empty
        name is refused, never taken as the working folder).
    executor : str, mapping or ExecutorConfig, optional
        ``"sequential"`` (default: in this process), ``"local"``, ``"slurm"``, or the
        fields of :class:`ExecutorConfig` (``{"kind": "local", "jobs": 4}``); all but
        ``sequential`` take model and dataset *names* (objects cannot travel to another
        process), and load the datasets of suite files again in each job.
    context : RunContext, optional
        The run settings, declared and documented once in
        :class:`~stebkit.runs.context.RunContext` (default: ``RunContext()``).
    **settings
        Any of those settings by name, over ``context``'s: ``evaluate(m, d, smoke=True)``
        is ``evaluate(m, d, context=RunContext(smoke=True))``. An unknown name is a
        ``TypeError`` that lists the settings.

    Returns
    -------
    Results
        Every record of this run's combinations, read back from ``output_dir`` (with
        ``wait=False``: those written so far); ``ok`` is False when one failed.

    Raises
    ------
    InvalidSetting
        A setting or option is not of its declared type or range
        (:mod:`stebkit.settings`), before anything is planned or written.
    ExecutorError
        The executor cannot run here (no SLURM, unknown partition, bad option).
    JobsFailed
        Jobs ended before finishing their units (``err.results``: what was written).

    Examples
    --------
    >>> import tempfile
    >>> res = evaluate("random", "synthetic-authors-en", tasks=["retrieval"], smoke=True,
    ...                output_dir=tempfile.mkdtemp(), show_progress=False)
    >>> res.ok, res.main_frame()[["model", "dataset", "task", "metric"]].values.tolist()
    (True, [['random', 'synthetic-authors-en', 'retrieval', 'mrr']])
    """
    context = (context or RunContext()).with_settings(**settings)
    options = check_options(tasks=tasks, episode_sizes=episode_sizes,
                            episodes_per_label=episodes_per_label, preset=preset,
                            output_dir=output_dir)
    root = Path(options.pop("output_dir"))
    config = executor_config(executor)
    note = smoke_cap_note(episodes_per_label) if context.smoke else None
    if note:
        warnings.warn(note, UserWarning, stacklevel=2)
    run = f"{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"
    shown = {**asdict(context), **options, "executor": config.kind}
    check_job_files_home(config.kind)
    with run_lock(root, run_info(run, shown)):
        if config.kind == "sequential":
            return run_sequential(models, datasets, root, context, options)
        names = _names(models, "models"), (None if datasets is None and preset
                                           else _names(datasets, "datasets"))
        return run_submitted(names, root, config, run, context, options)




def _names(values: Any, what: str) -> list[str]:
    """``values`` as a list of names; the local and SLURM executors take nothing else."""
    items = [values] if isinstance(values, str) else list(values)
    bad = [v for v in items if not isinstance(v, str)]
    if bad:
        raise ExecutorError(f"{what}: the local and slurm executors take names, got "
                            f"{type(bad[0]).__name__}; register the object (a zoo model, a "
                            "suite file) or use executor='sequential'")
    return items
