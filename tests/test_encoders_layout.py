"""The layout of stebkit.encoders and of the command line: one module per concern, no import circle.

Imports are read from the source (every ``import`` statement, function-level ones
included), so a circle that only closes at run time is found too.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import pytest

import stebkit

PACKAGE = Path(stebkit.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """stebkit modules that ``path`` imports (``from pkg import mod`` counts as ``mod``)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            subs = [f"{base}.{a.name}" for a in node.names]
            # "from pkg import name": the module pkg.name, or a name defined in pkg
            targets = subs + ([base] if any(t not in modules for t in subs) else [])
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(folder: Path) -> dict[str, set[str]]:
    """Module -> the modules it imports, for the modules under ``folder``."""
    files = sorted(folder.rglob("*.py"))
    modules = {_module_name(f) for f in files}
    return {_module_name(f): _imports(f, modules) for f in files}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` as a list of modules, or None (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(u: str) -> list[str] | None:
        state[u] = 1
        path.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                return path[path.index(v):] + [v]
            if v not in state and (found := visit(v)):
                return found
        path.pop()
        state[u] = 2
        return None

    for u in sorted(graph):
        if u not in state and (found := visit(u)):
            return found
    return None


def edges(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(u, v) for u, vs in graph.items() for v in vs}


def test_import_graph_finds_a_planted_circle(tmp_path):
    pkg = tmp_path / "stebkit" / "encoders"
    pkg.mkdir(parents=True)
    (pkg / "a.py").write_text("def f():\n    from stebkit.encoders import b\n")
    (pkg / "b.py").write_text("from .a import f\n")
    (pkg / "c.py").write_text("import numpy\n")
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "stebkit"
    try:
        graph = import_graph(pkg)
    finally:
        PACKAGE = saved
    assert edges(graph) == {("stebkit.encoders.a", "stebkit.encoders.b"),
                            ("stebkit.encoders.b", "stebkit.encoders.a")}
    assert find_cycle(graph) == ["stebkit.encoders.a", "stebkit.encoders.b", "stebkit.encoders.a"]
    del graph["stebkit.encoders.b"]
    assert find_cycle(graph) is None


def test_no_import_circle_among_encoder_modules():
    graph = import_graph(PACKAGE / "encoders")
    assert len(graph) >= 15
    cycle = find_cycle(graph)
    assert cycle is None, f"import circle in stebkit.encoders: {' -> '.join(cycle)}"


def test_no_import_circle_in_the_package():
    cycle = find_cycle(import_graph(PACKAGE))
    assert cycle is None, f"import circle in stebkit: {' -> '.join(cycle)}"


@pytest.mark.parametrize("module", ["_runtime", "long_docs", "base"])
def test_helper_modules_import_no_encoder(module):
    graph = import_graph(PACKAGE / "encoders")
    deps = {d.rsplit(".", 1)[-1] for d in graph[f"stebkit.encoders.{module}"]
            if d.startswith("stebkit.encoders.")}
    assert deps <= {"_runtime", "long_docs", "base"} - {module}, deps


def test_only_the_zoo_knows_every_encoder():
    graph = import_graph(PACKAGE / "encoders")
    importers = {u for u, v in edges(graph) if v == "stebkit.encoders.onnx"}
    assert importers == {"stebkit.encoders.zoo"}


def test_offline_check_is_defined_once():
    hits = [p for p in PACKAGE.rglob("*.py")
            if "_OFFLINE\", \"0\")" in p.read_text(encoding="utf-8")
            or "def is_offline" in p.read_text(encoding="utf-8")
            or "def _is_offline" in p.read_text(encoding="utf-8")]
    assert [p.name for p in hits] == ["sources.py"]


def test_only_the_entry_point_imports_the_command_line():
    """The command line imports the modules of its subcommands, never the other way round
    (so ``test_no_import_circle_in_the_package`` sees every edge of the command line)."""
    graph = import_graph(PACKAGE)
    importers = {u for u, v in edges(graph) if v == "stebkit.cli"}
    assert importers == {"stebkit.__main__"}
    assert {"stebkit.cli.train", "stebkit.cli.reference"} <= graph["stebkit.cli"]


def test_the_parser_lists_every_command_in_order():
    from stebkit.cli import build_parser

    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert list(subparsers.choices) == [
        "datasets", "models", "run", "leaderboard", "status", "prefetch", "train", "export",
        "import", "submission", "validate", "new-dataset"]
