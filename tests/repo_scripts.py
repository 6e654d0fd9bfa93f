"""The repository's scripts (``docs/build_site.py``, ``scripts/execute_notebooks.py``)
imported as modules by the tests that check them."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load(relative: str) -> ModuleType:
    """Import the script at ``ROOT / relative`` under its file name."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
