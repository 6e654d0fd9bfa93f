"""Your own suites: declare datasets in a YAML or TOML file and evaluate them like STEB.

A suite file names datasets from local CSV/TSV/JSONL/JSON/Parquet files, from URLs
(fetched with a checksum, so a local mirror works), or from the Hugging Face Hub, says
which columns hold the text, label and split, and which task and main metric score them.
:func:`load_suite` checks the file, registers every dataset (suite name = the file's
``name``), and returns a :class:`Suite`; ``stebkit run --suite path/to/suite.yaml`` runs
it with the same runner, embedding cache, results store and leaderboard as STEB.

Validation data is used only to choose settings (the probe's regularisation); the
reported score is the test split's.

The file format::

    name: my-suite                     # suite name (also the registry's suite tag)
    datasets:
      - name: politeness-community     # unique across the registry
        task: classification           # any STEB task, classification or retrieval_ndcg
        main_metric: macro_f1          # optional; defaults to the task's main metric
        language: en
        license: Apache-2.0
        source: {path: politeness.csv} # or {url: ..., sha256: ...} or {hf: org/name, ...}
                                       # (a Hub dataset with a loading script adds
                                       #  remote_code: true; it needs --trust-remote-code)
        columns: {text: Request, label: Community, split: split}
        splits: {train: train, validation: dev, test: test}  # values of the split column
        # or make a seeded, stratified split when the file has none:
        # split: {fractions: [0.6, 0.2, 0.2], seed: 42}
        min_per_label: 10              # optional documented filter (counts are reported)

Run settings may sit beside the datasets, in a ``run:`` mapping; the command line's
options override them::

    run:
      trust_remote_code: false         # true: the suite needs models/datasets that run
                                       #   repository code (granted by --trust-remote-code)
      preset: benchmark                # the reference's presets: benchmark or fast
      episode_sizes: [1, 2, 5]         # texts per episode (a list of positive ints or -1)
      episodes_per_label: 50           # episodes sampled per label
      device: cpu                      # cpu, cuda, cuda:1, mps
      executor: {kind: slurm, partition: gpu, gpus_per_job: 1}  # or local, sequential

A suite file is data from elsewhere: what would run code on its reader's behalf only
runs when the reader grants it (:data:`GRANTS`). ``trust_remote_code: true`` and a source's
``remote_code: true`` need ``--trust-remote-code``; the executor's ``setup`` lines (shell
commands run before each SLURM job) need ``--allow-setup``, its ``extra`` sbatch options
``--allow-sbatch-extra``. In Python, :meth:`Suite.granted_run` takes the same grants and
returns the settings to pass to :func:`stebkit.evaluate`; otherwise the refusal names the
suite file's line that asks.

``retrieval_ndcg`` datasets read three tables — ``queries`` (id, text), ``corpus``
(id, text) and ``qrels`` (query_id, doc_id, relevance) — each a source of its own, with
``columns`` given per table.

The package's modules, by concern: :mod:`~stebkit.suites.loading` (:func:`load_suite`,
:class:`Suite`, registration), :mod:`~stebkit.suites.checks` (the keys of a suite file and
the checks of every value before any data is read), :mod:`~stebkit.suites.tables`
(reading a source's table, strictly), :mod:`~stebkit.suites.rows` (a dataset's rows
from its checked entry) and :mod:`~stebkit.suites.example` (the example suite); every
public name is importable from ``stebkit.suites``.
"""

from __future__ import annotations

from stebkit.suites.checks import (
    GRANTS,
    RUN_OPTIONS,
    SOURCE_KEYS,
    TASK_METRICS,
    TOP_KEYS,
    Request,
)
from stebkit.suites.example import write_example_suite
from stebkit.suites.loading import Suite, load_suite, suite_file
from stebkit.suites.suitefile import SuiteError

__all__ = [
    "SuiteError",
    "TASK_METRICS",
    "TOP_KEYS",
    "SOURCE_KEYS",
    "RUN_OPTIONS",
    "GRANTS",
    "Request",
    "Suite",
    "load_suite",
    "suite_file",
    "write_example_suite",
]
