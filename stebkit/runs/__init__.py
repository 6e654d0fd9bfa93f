"""The run wing: everything that turns a request for models x datasets x tasks into records.

Its public face: :func:`evaluate` (``stebkit.evaluate``), the settings of a run
(:class:`RunContext`) and what it keeps between its units (:class:`RunState`), the run
planned once (:func:`plan`, :func:`plan_preset`: a :class:`Plan` or :class:`PresetPlan`
of :class:`Unit` values), run in this process (:func:`run_plan`), what a
``stebkit run`` asks for (:class:`RunRequest`).

>>> import tempfile
>>> from stebkit import runs
>>> ctx = runs.RunContext(smoke=True, show_progress=False)
>>> units = runs.plan("random", "synthetic-authors-en", tasks=["retrieval"], context=ctx,
...                   output_dir=tempfile.mkdtemp())
>>> [(u.model, u.spec.name, u.family.name) for u in units]
[('random', 'synthetic-authors-en', 'retrieval')]

The modules, in the order a run goes through them:

- :mod:`~stebkit.runs.request` — what a ``stebkit run`` asks for, resolved into dataset
  names, settings and models;
- :mod:`~stebkit.runs.context` — the settings of a run and what it keeps between units;
- :mod:`~stebkit.runs.planning` — the run resolved once into a plan of units (with the
  reference's presets of :mod:`stebkit.tasks.presets`);
- :mod:`~stebkit.runs.preflight` — what a plan's datasets hold before anything is encoded;
- :mod:`~stebkit.runs.encoders` — the models a run builds, adapted and cached;
- :mod:`~stebkit.runs.engine` — the unit function (each unit evaluated into its checked
  record, :func:`~stebkit.runs.engine.evaluate_units`) mapped over a plan in this process;
- :mod:`~stebkit.runs.outcomes` — what a unit's run ends in: its record, built once from
  its parts and checked once;
- :mod:`~stebkit.runs.executors` — sequential, local workers or SLURM. Where a run goes
  (:class:`~stebkit.suites.executor_config.ExecutorConfig`) is a setting that suite files
  declare too, so it lives with the suites, below the runs;
- :mod:`~stebkit.runs.evaluation` — :func:`evaluate`, the public entry point.
"""

from __future__ import annotations

from stebkit.runs.context import RunContext, RunState
from stebkit.runs.engine import run_plan
from stebkit.runs.evaluation import evaluate
from stebkit.runs.planning import Plan, PresetPlan, Unit, plan, plan_preset
from stebkit.runs.request import RunRequest

__all__ = ["evaluate", "RunContext", "RunState", "plan", "plan_preset", "Plan", "PresetPlan",
           "Unit", "run_plan", "RunRequest"]
