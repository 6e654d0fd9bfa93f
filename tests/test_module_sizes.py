"""The house rules on size: no module of the package is over :data:`LIMIT` lines, no
function over :data:`FUNCTION_CAP` lines, and at most :data:`LONG_FUNCTIONS_ALLOWED`
functions are over :data:`FUNCTION_LIMIT` lines.

A module that grows past it is split by concern (as ``stebkit.plots``, ``stebkit.suites``,
``stebkit.scores`` and ``stebkit.runs.executors`` are), its public names re-exported where
they were; a long function is split by named steps (as ``stebkit.train.train_style_encoder``
is).
"""

from __future__ import annotations

import ast
from pathlib import Path

import stebkit

PACKAGE = Path(stebkit.__file__).resolve().parent
LIMIT = 800
"""Lines a module of ``stebkit/`` may have at most."""
FUNCTION_LIMIT = 50
"""Lines (``def`` to last line, docstring included) above which a function counts as long."""
FUNCTION_CAP = 100
"""Lines no function of ``stebkit/`` may have (counted as for :data:`FUNCTION_LIMIT`)."""
LONG_FUNCTIONS_ALLOWED = 40
"""How many long functions the package may hold; lower it as they are split, never raise it."""


def line_counts(root: Path) -> dict[str, int]:
    """``{path relative to root: number of lines}`` of every ``.py`` file under ``root``."""
    return {path.relative_to(root).as_posix(): len(path.read_text(encoding="utf-8")
                                                   .splitlines())
            for path in sorted(root.rglob("*.py"))}


def test_line_counts_count_every_module_and_its_lines(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n" * 3, encoding="utf-8")
    (tmp_path / "pkg" / "b.py").write_text("y = 2\n\nz = 3", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a module\n", encoding="utf-8")
    assert line_counts(tmp_path) == {"a.py": 3, "pkg/b.py": 3}


def test_no_module_of_the_package_is_over_the_limit():
    sizes = line_counts(PACKAGE)
    assert {"__init__.py", "cli/__init__.py", "plots/__init__.py",
            "suites/__init__.py"} <= set(sizes)
    over = {name: n for name, n in sizes.items() if n > LIMIT}
    assert not over, (f"modules over {LIMIT} lines (split each by concern, re-exporting its "
                      f"public names): {over}")


def long_functions(root: Path, limit: int = FUNCTION_LIMIT) -> dict[str, int]:
    """``{"path:qualified.name": lines}`` of every function or method under ``root`` longer
    than ``limit`` lines, counted from its ``def`` (decorators left out) to its last line."""
    out: dict[str, int] = {}

    def visit(node: ast.AST, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}."
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = child.end_lineno - child.lineno + 1
                if lines > limit:
                    out[f"{path}:{name[:-1]}"] = lines
            visit(child, path, name)

    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        visit(tree, path.relative_to(root).as_posix(), "")
    return out


def test_long_functions_counts_defs_methods_and_nested_functions_over_the_limit(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(3))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        f"def short():\n    return 1\n\n\n@property\ndef four():\n{body}\n\n"
        f"class C:\n    async def method(self):\n{body.replace('    ', '        ')}"
        f"        def inner():\n{body.replace('    ', '            ')}",
        encoding="utf-8")
    # four: def + 3 lines; method: def + 3 + inner (def + 3); inner: def + 3
    assert long_functions(tmp_path, limit=3) == {"pkg/m.py:four": 4, "pkg/m.py:C.method": 8,
                                                 "pkg/m.py:C.method.inner": 4}
    assert long_functions(tmp_path, limit=4) == {"pkg/m.py:C.method": 8}


def test_at_most_the_allowed_number_of_functions_are_long():
    long = long_functions(PACKAGE)
    listing = "\n".join(f"  {name}: {n} lines" for name, n in
                         sorted(long.items(), key=lambda item: -item[1]))
    assert len(long) <= LONG_FUNCTIONS_ALLOWED, (
        f"{len(long)} functions are over {FUNCTION_LIMIT} lines (at most "
        f"{LONG_FUNCTIONS_ALLOWED} may be); split the new ones by named steps:\n{listing}")


def test_no_function_of_the_package_is_over_the_cap():
    over = long_functions(PACKAGE, limit=FUNCTION_CAP)
    assert not over, (f"functions over {FUNCTION_CAP} lines (split each by named steps): "
                      f"{over}")
