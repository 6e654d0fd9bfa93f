"""Every notebook runs top to bottom in fast mode and is stored without outputs; the
full-mode executions of ``make figures`` (kept for the website) are cleaned and checked."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
import repo_scripts

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
EXECUTED = ROOT / ".cache" / "executed" / "fast"  # reused by the website build (docs/)


def _store_tool():
    return repo_scripts.load("scripts/execute_notebooks.py")


def _site_builder():
    return repo_scripts.load("docs/build_site.py")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [i for i, c in enumerate(nb["cells"])
             if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert not dirty, f"{path.name}: cells {dirty} keep outputs; strip them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_starts_with_what_it_teaches(path):
    first = json.loads(path.read_text(encoding="utf-8"))["cells"][0]
    text = "".join(first["source"])
    assert first["cell_type"] == "markdown", f"{path.name}: starts with a code cell"
    assert text.startswith(f"# {path.name[:2]} · "), f"{path.name}: no '# NN · title' first"
    assert len(text.split()) >= 40, f"{path.name}: the first cell says little of its topic"


def test_storing_makes_paths_relative_and_refuses_what_is_unfit(tmp_path):
    tool = _store_tool()
    root, home = Path("/work/project"), Path("/root")
    nb = {"cells": [
        {"cell_type": "code", "source": ["print(RESULTS)"], "execution_count": 1,
         "metadata": {"execution": {"iopub.execute_input": "2026-12-01T00:00:00Z"}},
         "outputs": [{"output_type": "stream", "name": "stdout",
                      "text": ["results: /work/project/results/lite | root /work/project\n",
                               "cache: /root/.cache/stebkit\n"]},
                     {"output_type": "stream", "name": "stderr",
                      "text": ["/tmp/ipykernel_42/3141.py:2: UserWarning: few models\n"]}]},
        {"cell_type": "code", "source": ["plot()"], "execution_count": 2,
         "outputs": [{"output_type": "display_data", "metadata": {},
                      "data": {"text/plain": ["saved /work/project/figures/a.png"],
                               "image/png": "iVBORw0KGgo="}},
                     {"output_type": "display_data", "metadata": {},
                      "data": {"application/vnd.jupyter.widget-view+json": {"model_id": "a"},
                               "text/plain": ["Encoding:   0%|          | 0/40"]}}]}]}
    cleaned = _site_builder().clean(json.loads(json.dumps(nb)), root, home)
    assert cleaned["cells"][0]["outputs"][0]["text"] == [
        "results: results/lite | root .\n", "cache: ~/.cache/stebkit\n"]
    assert cleaned["cells"][0]["outputs"][1]["text"] == ["UserWarning: few models\n"]
    assert [o["data"] for o in cleaned["cells"][1]["outputs"]] == [{
        "text/plain": ["saved figures/a.png"], "image/png": "iVBORw0KGgo="}]  # no widget
    assert "execution" not in cleaned["cells"][0]["metadata"]
    assert tool.stored_output_problems(cleaned, "nb") == []
    assert tool.stored_output_problems(nb, "nb") == [
        "nb, cell 1: machine path '/work/' in an output",
        "nb, cell 1: machine path '/tmp/' in an output",
        "nb, cell 2: machine path '/work/' in an output"]
    nb["cells"][1]["execution_count"] = 3
    nb["cells"][1]["outputs"] = [{"output_type": "error", "ename": "ValueError",
                                  "traceback": []}]
    problems = tool.stored_output_problems(_site_builder().clean(nb, root, home), "nb")
    assert problems == ["nb: not one top-to-bottom execution (execution counts [1, 3]...)",
                        "nb, cell 2: an error output (ValueError)"]


def test_make_figures_names_what_is_not_a_notebook(tmp_path):
    tool = _store_tool()
    (tmp_path / "00_quickstart.ipynb").write_text("{}")
    with pytest.raises(SystemExit, match=r"not a notebook of notebooks/: \S*missing\.ipynb, "
                                         r"\S*00_quickstart\.ipynb; name files such as"):
        tool.notebook_paths([str(tmp_path / "missing.ipynb"),
                             str(tmp_path / "00_quickstart.ipynb")])
    assert tool.notebook_paths([str(NOTEBOOKS[0])]) == [NOTEBOOKS[0]]
    assert tool.notebook_paths([]) == NOTEBOOKS


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes_in_fast_mode(path):
    import nbformat

    start = time.perf_counter()
    # executed as the website's fast build executes it (STEBKIT_FAST=1, its figures in a
    # scratch folder: figures/ keeps those of the full runs), into the copy the build reuses
    executed = _site_builder().execute_notebook(path, full=False, output=EXECUTED / path.name,
                                                timeout=600)
    elapsed = time.perf_counter() - start
    nb = nbformat.read(executed, as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    print(f"{path.name}: {elapsed:.1f} s in fast mode")


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 1, "notebooks/ has no NN_topic.ipynb notebook"


def _git(*args: str) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout")
def test_a_notebook_run_leaves_the_tracked_figures_alone(monkeypatch, capsys):
    # a notebook's save outside `make figures`: from notebooks/, STEBKIT_FIGURES unset
    from matplotlib.figure import Figure

    from stebkit import plots
    from stebkit.plots import style

    monkeypatch.delenv("STEBKIT_FIGURES", raising=False)
    monkeypatch.setattr(style, "_announced", set())
    monkeypatch.chdir(ROOT / "notebooks")
    before = _git("status", "--porcelain", "--untracked-files=all")
    existed = (ROOT / "results" / "figures").is_dir()
    fig = Figure()
    fig.add_subplot().plot([0, 1])
    paths = plots.save(fig, f"00_scratch_test_{time.time_ns()}")
    try:
        assert {p.parent.resolve() for p in paths} == {ROOT / "results" / "figures"}
        assert all(p.is_file() for p in paths)
        assert _git("status", "--porcelain", "--untracked-files=all") == before
        ignored = _git("check-ignore", *[str(p.resolve()) for p in paths]).split()
        assert len(ignored) == len(paths)
        assert capsys.readouterr().out == ("figures go to ../results/figures/ (git-ignored; "
                                           "`make figures` writes the tracked figures/)\n")
        plots.save(fig, paths[0].stem)  # said once
        assert capsys.readouterr().out == ""
    finally:
        for p in paths:
            p.unlink(missing_ok=True)
        if not existed:
            (ROOT / "results" / "figures").rmdir()


def test_make_figures_alone_writes_the_tracked_figures(monkeypatch):
    tool = _store_tool()
    seen = []
    monkeypatch.setenv("STEBKIT_FIGURES", "elsewhere")  # restored after the test
    monkeypatch.setattr(tool, "execute_and_store",
                        lambda path, builder: seen.append(os.environ.get("STEBKIT_FIGURES")))
    assert tool.main([str(NOTEBOOKS[0])]) == 0
    assert seen == [str(ROOT / "figures")]
