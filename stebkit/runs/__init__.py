"""The run wing: everything that turns a request for models x datasets x tasks into records.

- :mod:`~stebkit.runs.request` — what a ``stebkit run`` asks for, resolved into dataset
  names, settings and models (:class:`~stebkit.runs.request.RunRequest`);
- :mod:`~stebkit.runs.context` — the settings of a run (:class:`~stebkit.runs.context.RunContext`)
  and what it keeps between its units (:class:`~stebkit.runs.context.RunState`);
- :mod:`~stebkit.runs.planning` — the run resolved once into a plan of units;
- :mod:`~stebkit.runs.preflight` — what a plan's datasets hold before anything is encoded;
- :mod:`~stebkit.runs.encoders` — the models a run builds, adapted and cached;
- :mod:`~stebkit.runs.engine` — the unit function (each unit evaluated into its checked
  record, :func:`~stebkit.runs.engine.evaluate_units`) mapped over a plan in this process;
- :mod:`~stebkit.runs.records` — a record built by constructors, checked once;
- :mod:`~stebkit.runs.executors` — sequential, local workers or SLURM, and
  :func:`stebkit.evaluate`, the public entry point. Where a run goes
  (:class:`~stebkit.suites.executor_config.ExecutorConfig`) is a setting that suite files
  declare too, so it lives with the suites, below the runs.
"""
