"""stebkit — a research toolkit for the Style Text Embedding Benchmark (STEB).

The public face, imported lazily so that ``import stebkit`` stays fast:

>>> import stebkit
>>> stebkit.__version__
'0.1.0'

- :func:`load_dataset` — a benchmark dataset as records (``stebkit.datasets``)
- :func:`get_encoder` — any model of the zoo (``stebkit.encoders``)
- :func:`evaluate` — models x datasets x tasks, results on disk, in this process
  (``stebkit.runs.engine``), local workers or SLURM jobs (``stebkit.runs.executors``),
  with the settings of one :class:`RunContext` (``stebkit.runs.context``)
- :func:`leaderboard` — operational and definitional STEB scores (``stebkit.scores``),
  made by one :class:`ScoreRecipe` (defaults: the reference's newest aggregation)
- :func:`published_leaderboard` — the published STEB leaderboard (``stebkit.scores.published``)
- ``stebkit.tasks`` — the task families as pure functions of embeddings
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "load_dataset": "stebkit.datasets",
    "list_datasets": "stebkit.datasets",
    "get_encoder": "stebkit.encoders",
    "list_models": "stebkit.encoders",
    "evaluate": "stebkit.runs",
    "RunContext": "stebkit.runs",
    "Results": "stebkit.records.results",
    "leaderboard": "stebkit.scores",
    "ScoreRecipe": "stebkit.scores",
    "published_leaderboard": "stebkit.scores.published",
}
_SUBMODULES = {"datasets", "encoders", "tasks", "sources", "scores", "records", "plots",
               "errors", "train", "suites", "runs", "cli"}

__all__ = sorted([*_LAZY, "__version__"])


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"stebkit.{name}")
    raise AttributeError(f"module 'stebkit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, *_SUBMODULES])
