"""The docstring examples of the repository's scripts hold: the suite's doctests
(``--doctest-modules`` over ``stebkit/``, ``tests/`` and ``benchmarks/``) do not reach
``docs/`` and ``scripts/``, so they are run here."""

from __future__ import annotations

import doctest
import sys

import pytest
import repo_scripts

SCRIPTS = ("docs/build_site.py", "docs/griffe_markup.py", "scripts/execute_notebooks.py")


@pytest.mark.parametrize("script", SCRIPTS)
def test_docstring_examples_of_the_script_hold(script, monkeypatch):
    module = repo_scripts.load(script)
    # doctest keeps the examples of the objects whose module is the one in sys.modules
    monkeypatch.setitem(sys.modules, module.__name__, module)
    failed, tried = doctest.testmod(module, report=False)
    assert tried > 0, f"{script}: no docstring example found"
    assert failed == 0, f"{script}: {failed} of {tried} docstring examples fail (run " \
        f"`pytest --doctest-modules {script}` to see them)"
