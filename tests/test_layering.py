"""One-way imports between the package's folders, read from the source with ``ast``.

Every ``import``/``from ... import`` statement of every module under ``stebkit/`` counts,
also inside functions (lazy imports), with relative imports resolved, and so do the
string arguments of ``importlib.import_module(...)`` and ``__import__(...)``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "stebkit"
SUBPACKAGES = ("datasets", "tasks", "encoders", "train")
HELPERS = ("_io", "errors", "sources", "pooling", "features", "results")
"""Top-level helper modules any folder may import: files and names, errors, sources,
pooling, the linguistic features, the record file names. Every other top-level module
(the runner, the command line, executors, suites, scores, plots...) is ``<top>``."""

FORBIDDEN = {
    "datasets": ("tasks", "encoders", "train", "<top>"),
    "tasks": ("encoders", "train"),
    "encoders": ("train",),
}
"""Folder -> what it may not import: data flows from the datasets through the task
families and the encoders to training (which builds on the encoders)."""


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


def folder_of(module: str) -> str | None:
    """``"datasets"`` ... for a module of a folder, ``"<top>"`` for another stebkit module
    or package (HELPERS: None), None outside stebkit."""
    parts = module.split(".")
    if parts[0] != "stebkit" or len(parts) == 1:
        return None
    if parts[1] in SUBPACKAGES:
        return parts[1]
    if parts[1] in HELPERS:
        return None
    module, package = PACKAGE / f"{parts[1]}.py", PACKAGE / parts[1] / "__init__.py"
    return "<top>" if module.exists() or package.exists() else None


def edges() -> list[tuple[str, str, str]]:
    """``(from folder, to folder, "file:line imports module")`` for every import that
    crosses folders."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = folder_of(module_name(path))
        if source not in SUBPACKAGES:
            continue
        for line, target in imported_names(path):
            dest = folder_of(target)
            if dest is not None and dest != source:
                where = f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
                out.append((source, dest, where))
    return out


def test_the_import_reader_sees_lazy_relative_and_string_imports(tmp_path, monkeypatch):
    pkg = tmp_path / "stebkit"
    (pkg / "datasets").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "runner.py").write_text("")
    (pkg / "datasets" / "__init__.py").write_text("")
    (pkg / "datasets" / "x.py").write_text(
        "import importlib\n"
        "from ..tasks import FAMILIES\n"
        "def f():\n"
        "    from stebkit.encoders.base import mean_by_owner\n"
        "    importlib.import_module('stebkit.train.model')\n"
        "    __import__('stebkit.runner')\n"
        "    from .. import errors\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    found = sorted({(s, d) for s, d, _ in edges()})
    assert found == [("datasets", "<top>"), ("datasets", "encoders"), ("datasets", "tasks"),
                     ("datasets", "train")]


def test_top_level_packages_count_as_top_like_top_level_modules():
    assert folder_of("stebkit.runner") == "<top>"
    for name in ("plots", "suites", "scores", "executors", "runs"):
        assert (PACKAGE / name / "__init__.py").exists(), name
        assert folder_of(f"stebkit.{name}") == "<top>", name
        assert folder_of(f"stebkit.{name}.anything") == "<top>", name
    assert folder_of("stebkit.datasets.spec") == "datasets" and folder_of("stebkit._io") is None


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_a_lower_folder_imports_nothing_from_the_folders_above_it(folder):
    bad = [where for source, dest, where in edges()
           if source == folder and dest in FORBIDDEN[folder]]
    assert not bad, f"stebkit/{folder} must not import {FORBIDDEN[folder]}:\n" + "\n".join(bad)


def test_no_import_cycle_between_the_folders():
    graph: dict[str, set[str]] = {f: set() for f in SUBPACKAGES}
    for source, dest, _ in edges():
        if dest in SUBPACKAGES:
            graph[source].add(dest)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt}))
                   for nxt in graph[start])

    cycles = sorted(f for f in SUBPACKAGES if reaches(f, f, {f}))
    assert not cycles, f"folders on an import cycle: {cycles}; edges: " \
        f"{ {k: sorted(v) for k, v in graph.items()} }"
