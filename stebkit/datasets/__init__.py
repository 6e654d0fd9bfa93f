"""Benchmark datasets: declarative specs, the registry, and the loader.

>>> from stebkit.datasets import list_datasets, get_spec
>>> get_spec("bible_versions").category
'time'
>>> len(list_datasets(suite="steb")) >= 90
True

See :mod:`stebkit.datasets.spec` for the records schema, :mod:`.catalogue` for the
reference datasets and :mod:`.registry` for loading and caching.
"""

from __future__ import annotations

from .registry import (
    fingerprint,
    get_spec,
    is_available_offline,
    list_datasets,
    load_dataset,
    register,
    table,
    validate_records,
)
from .spec import (
    APPLICATIONS,
    CATEGORIES,
    SIDES,
    SPLITS,
    Dataset,
    DatasetSpec,
    License,
    Source,
    Submetric,
    TaskConfig,
)

__all__ = [
    "APPLICATIONS", "CATEGORIES", "SIDES", "SPLITS", "Dataset", "DatasetSpec",
    "License", "Source", "Submetric", "TaskConfig", "fingerprint", "get_spec",
    "is_available_offline", "list_datasets", "load_dataset", "register", "table",
    "validate_records",
]
