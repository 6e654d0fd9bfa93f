"""Shared test configuration.

Tests read the real data through ``STEBKIT_MIRROR`` (set by the Makefile and CI to
``../shared/data/mirror``) and keep processed data in a persistent cache so that the
suite stays fast across runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["steb_files"]  # constructed-source fixtures of the STEB reader tests

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("STEBKIT_CACHE", str(ROOT / ".cache" / "stebkit"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
if "STEBKIT_MIRROR" not in os.environ and (ROOT.parent / "shared/data/mirror").is_dir():
    os.environ["STEBKIT_MIRROR"] = str(ROOT.parent / "shared/data/mirror")


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The local data mirror; tests that need real data skip loudly without it."""
    path = os.environ.get("STEBKIT_MIRROR", "").split(os.pathsep)[0]
    if not path or not Path(path).is_dir():
        pytest.skip("real-data test: set STEBKIT_MIRROR to a copy of the data mirror")
    return Path(path)


@pytest.fixture()
def online(monkeypatch):
    """Every offline switch of the package off (the test serves its own files)."""
    from stebkit.sources import OFFLINE_VARIABLES

    for var in OFFLINE_VARIABLES:
        monkeypatch.delenv(var, raising=False)


def pytest_collection_modifyitems(config, items):
    """Run the website tests last, so that they reuse the notebook executions of this run."""
    items.sort(key=lambda item: item.get_closest_marker("site") is not None)
