"""The house rule on module size: no module of the package is over :data:`LIMIT` lines.

A module that grows past it is split by concern (as ``stebkit.plots``, ``stebkit.suites``,
``stebkit.scores`` and ``stebkit.runs.executors`` are), its public names re-exported where
they were.
"""

from __future__ import annotations

from pathlib import Path

import stebkit

PACKAGE = Path(stebkit.__file__).resolve().parent
LIMIT = 800
"""Lines a module of ``stebkit/`` may have at most."""


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
