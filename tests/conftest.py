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


@pytest.fixture(scope="module")
def one_torch_thread():
    """One torch thread for a module's tests: as fast as two on an idle 2-core machine, far
    faster on a busy one, and the same floats from run to run."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture()
def online(monkeypatch):
    """Every offline switch of the package off (the test serves its own files)."""
    from stebkit.sources import OFFLINE_VARIABLES

    for var in OFFLINE_VARIABLES:
        monkeypatch.delenv(var, raising=False)


_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1:  # parallel workers (``make test``): each its share of the CPUs, not all
    os.environ.setdefault("OMP_NUM_THREADS",
                          str(max(1, len(os.sched_getaffinity(0)) // _WORKERS)))

NOTEBOOKS_AND_SITE = "notebooks-and-site"
"""The xdist group of the notebook and website tests: one worker executes the notebooks,
then builds the website from those executions."""
SLURM = "slurm"
"""The xdist group of the tests that start the single-node SLURM cluster: one at a time."""


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Run the notebooks first and the website tests last, so that the website reuses the
    notebook executions of this run; mark the tests that use the SLURM cluster ``slurm``
    (before ``-m`` selects); under pytest-xdist (``--dist loadgroup``), keep the tests that
    share a resource on one worker (:func:`shared_resource_groups`)."""
    for item in items:
        if SLURM in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slurm)
    items.sort(key=lambda item: (item.get_closest_marker("site") is not None,
                                 item.get_closest_marker("notebook") is None))
    grouping = getattr(config.option, "loadgroup", False)  # a worker of --dist loadgroup
    for item, group in zip(items, shared_resource_groups(items), strict=True):
        if group is None:
            continue
        item.add_marker(pytest.mark.xdist_group(group))
        if grouping and hasattr(item, "_id"):
            # pytest >= 9.2 reads a node id from ``_id``, where pytest-xdist 3.8 does not
            # write the group: the scheduler sees it as the id's ``@group`` suffix
            item._id = type(item._id).parse(f"{item.nodeid}@{group}")


def _resources(item: pytest.Item) -> set[tuple[str, ...]]:
    """What ``item`` shares with other tests: the notebook executions (the notebook and
    site markers), the SLURM cluster, an xdist group it names, a module- or class-scoped
    fixture (one instance per worker: its tests stay together so that it is made once)."""
    out: set[tuple[str, ...]] = set()
    if item.get_closest_marker("notebook") or item.get_closest_marker("site"):
        out.add(("group", NOTEBOOKS_AND_SITE))
    names = getattr(item, "fixturenames", ())
    if SLURM in names:
        out.add(("group", SLURM))
    out.update(("group", str(m.args[0] if m.args else m.kwargs.get("name", "default")))
               for m in item.iter_markers("xdist_group"))
    info = getattr(item, "_fixtureinfo", None)
    for name in names if info is not None else ():
        defs = info.name2fixturedefs.get(name) or ()
        if defs and defs[-1].scope in ("module", "class", "package"):
            out.add(("fixture", defs[-1].baseid, name))
    return out


def shared_resource_groups(items: list[pytest.Item]) -> list[str | None]:
    """For each item, the group of the tests it shares a resource with (:func:`_resources`,
    joined transitively: named after its xdist group, else its first fixture), or None
    when it shares none (it runs on any worker).

    >>> class Test:
    ...     def __init__(self, *fixtures, marks=()):
    ...         self.fixturenames, self.marks = fixtures, marks
    ...     def get_closest_marker(self, name):
    ...         return next((m for m in self.marks if m.name == name), None)
    ...     def iter_markers(self, name):
    ...         return [m for m in self.marks if m.name == name]
    >>> site = pytest.mark.site.mark
    >>> shared_resource_groups([Test("tmp_path"), Test(SLURM), Test(marks=[site])])
    [None, 'slurm', 'notebooks-and-site']
    """
    parent: dict[tuple[str, ...], tuple[str, ...]] = {}

    def root(key: tuple[str, ...]) -> tuple[str, ...]:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    shared = [sorted(_resources(item)) for item in items]
    for keys in shared:
        for key in keys:
            parent[root(key)] = root(keys[0])
    members: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for key in list(parent):
        members.setdefault(root(key), []).append(key)
    # a group is named after its xdist group ("fixture" sorts before "group"), else its
    # first fixture
    name = {top: ":".join(max(keys)[1:]) for top, keys in members.items()}
    return [name[root(keys[0])] if keys else None for keys in shared]
