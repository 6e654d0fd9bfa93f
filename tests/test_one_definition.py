"""Each shared constant is defined in one module and imported elsewhere, so it cannot drift."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import stebkit
from stebkit import cli, scores
from stebkit.datasets import list_datasets, registry
from stebkit.datasets.lite import LITE_SUITES
from stebkit.datasets.readers.bible import BIBLE_VERSIONS
from stebkit.scores import published
from stebkit.suites import SuiteError, load_suite
from stebkit.train.content import TRAINING_BIBLE_VERSIONS

PACKAGE = Path(stebkit.__file__).parent


def _modules_assigning(name: str) -> list[str]:
    """Modules of the package that bind ``name`` at module level by assignment."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, ast.AnnAssign) else [])
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                found.append(path.relative_to(PACKAGE).as_posix())
    return found


@pytest.mark.parametrize(("name", "home"), [
    ("OBJECT_OF_STUDY", "scores/published.py"),
    ("DEFINITIONAL_AXES", "scores/published.py"),
    ("BIBLE_VERSIONS", "datasets/readers/bible.py"),
    ("SUITES", "datasets/registry.py"),
])
def test_constant_is_assigned_in_one_module(name, home):
    assert _modules_assigning(name) == [home]


def test_object_of_study_is_the_published_one():
    assert scores.OBJECT_OF_STUDY is published.OBJECT_OF_STUDY


def test_definitional_columns_follow_the_published_file():
    # the package data's header: model, category, six tasks, steb_score, then the
    # definitional columns
    header = next(line for line in published.PUBLISHED_FILE.read_text(encoding="utf-8")
                  .splitlines() if not line.startswith("#")).split(",")
    assert tuple(header[header.index("steb_score") + 1:]) == scores.DEFINITIONAL_COLUMNS
    assert scores.DEFINITIONAL_COLUMNS[:6] == published.OBJECT_OF_STUDY


def test_training_bible_versions_are_the_manifest_ones_without_leb():
    manifest = (Path(stebkit.__file__).parent / "train" / "content_manifest.txt").read_text(
        encoding="utf-8")
    in_manifest = set(re.findall(r"/Data/Bibles/([A-Z]+)/", manifest))
    assert set(TRAINING_BIBLE_VERSIONS) == in_manifest
    assert "LEB" in BIBLE_VERSIONS and "LEB" not in TRAINING_BIBLE_VERSIONS
    assert TRAINING_BIBLE_VERSIONS == ("ASV", "BBE", "DARBY", "DRA", "KJV", "WEB", "YLT")


def test_command_line_uses_the_registry_suites():
    assert cli.SUITES is registry.SUITES


def test_every_built_in_dataset_is_in_built_in_suites():
    assert set(LITE_SUITES) < set(registry.SUITES)
    for suite in registry.SUITES:
        assert list_datasets(suite=suite), suite
    # a fresh process: other tests register datasets of their own suite files here
    code = ("from stebkit.datasets import list_datasets, registry; "
            "every = {n for s in registry.SUITES for n in list_datasets(suite=s)}; "
            "print(sorted(set(list_datasets()) - every))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", registry.SUITES)
def test_a_suite_file_may_not_take_a_built_in_name(tmp_path, name):
    (tmp_path / "d.csv").write_text("text,label\nHello.,a\nHi!,b\nHey.,a\n", encoding="utf-8")
    path = tmp_path / "s.yaml"
    path.write_text(f"name: {name}\ndatasets:\n  - {{name: x-greetings, task: clustering,"
                    " source: {path: d.csv}}\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=f"'{name}' is the name of a built-in suite"):
        load_suite(path)
