"""Every notebook is stored executed in full mode (``make figures``: cleaned, checked, each
replaced only by a fit execution), and a copy of it runs top to bottom in fast mode."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
import repo_scripts

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _store_tool():
    return repo_scripts.load("scripts/execute_notebooks.py")


def _site_builder():
    return repo_scripts.load("docs/build_site.py")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_executed_in_full_mode(path):
    # outputs, one top-to-bottom execution, no machine path, no fast-mode trace, small
    tool = _store_tool()
    problems = tool.stored_output_problems(json.loads(path.read_text(encoding="utf-8")),
                                           path.name)
    assert not problems, "\n".join(problems) + "\n(store it with `make figures`)"
    assert path.stat().st_size <= tool.MAX_BYTES <= 3_000_000


def _executed(*outputs_of_cells: list) -> dict:
    """A notebook as ``make figures`` stores it: a heading, then one executed code cell per
    list of outputs."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    cells = [new_markdown_cell("# 90 · Stored: a stored notebook")]
    cells += [new_code_cell(f"show({i})", execution_count=i, outputs=outputs)
              for i, outputs in enumerate(outputs_of_cells, start=1)]
    return json.loads(json.dumps(new_notebook(cells=cells)))


def test_the_stored_notebook_check_passes_a_clean_execution_only():
    from nbformat.v4 import new_output

    tool = _store_tool()
    table = new_output("execute_result", execution_count=1,
                       data={"text/plain": "   model  score\n0  tfidf   0.61"})
    figure = new_output("display_data", data={"image/png": "iVBORw0KGgo=",
                                              "text/plain": "<Figure size 700x350>"})
    assert tool.stored_output_problems(_executed([table], [figure]), "nb") == []

    bare = _executed([table], [figure])
    for cell in bare["cells"][1:]:
        cell["outputs"], cell["execution_count"] = [], None
    assert tool.stored_output_problems(bare, "nb") == [
        "nb: no outputs; execute it with `make figures`",
        "nb: not one top-to-bottom execution (execution counts [None, None]...)"]

    printed = new_output("stream", text="records in /home/ana/stebkit/results/lite\n")
    fast = new_output("stream", text="fast mode: True\n")
    assert tool.stored_output_problems(_executed([printed], [fast]), "nb") == [
        "nb, cell 2: machine path '/home/' in an output",
        "nb, cell 3: a fast-mode trace ('fast mode: True') in an output"]
    in_source = _executed([table])
    in_source["cells"][0]["source"] = "Data in C:\\Users\\ana\\mirror"
    assert tool.stored_output_problems(in_source, "nb") == [
        "nb, cell 1: machine path 'C:\\\\' in its source"]

    warned = new_output("stream", name="stderr", text=(
        "stebkit/datasets/readers/detection.py:231: DroppedRowsWarning: squad: dropped 19 "
        "of 1500 items\n  frame = _SOURCES[opts['kind']](spec)\n"))
    caller = new_output("stream", text="DroppedRowsWarning: squad: dropped 19 of 1500 items\n")
    prose = _executed([table], [caller])
    prose["cells"][0]["source"] = ("# 90 · Stored\nTwo models can\\nbe told apart; "
                                   "`\\n` ends a line.")
    assert tool.stored_output_problems(_executed([warned], [caller]), "nb") == [
        "nb, cell 2: a library source line (stebkit/datasets/readers/detection.py:231) in an "
        "output"]
    assert tool.stored_output_problems(prose, "nb") == [
        "nb, cell 1: a literal \\n in its text (a line break written as two characters)"]

    big = new_output("display_data", data={"image/png": "A" * tool.MAX_BYTES})
    problems = tool.stored_output_problems(_executed([table], [big]), "nb")
    assert len(problems) == 1 and problems[0].startswith("nb: 2,000,")
    assert problems[0].endswith(" bytes stored (at most 2,000,000)")


def _fake_execution(tool, monkeypatch, outputs_of: dict) -> list:
    """``make figures`` with an execution that writes, for each notebook name, a stored
    notebook with those outputs (an exception: raised instead); returns the calls."""
    builder = tool.site_builder()
    calls = []

    def execute(path, *, full, output, timeout):
        calls.append((path.name, full, os.environ.get("STEBKIT_FIGURES")))
        outputs = outputs_of[path.name]
        if isinstance(outputs, Exception):
            raise outputs
        output.write_text(json.dumps(_executed(outputs), indent=1), encoding="utf-8")
        return output

    monkeypatch.setattr(builder, "execute_notebook", execute)
    return calls


def test_make_figures_stores_a_fit_execution_and_keeps_the_rest(tmp_path, monkeypatch,
                                                                capsys):
    from nbformat.v4 import new_output

    tool = _store_tool()
    tool.site_builder()  # loaded from this repository before ROOT points elsewhere
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    for name, value in (("ROOT", tmp_path), ("NOTEBOOKS", notebooks),
                        ("FIGURES", tmp_path / "figures")):
        monkeypatch.setattr(tool, name, value)
    monkeypatch.setenv("STEBKIT_FIGURES", "elsewhere")  # restored after the test
    before = {}
    for name in ("00_fit.ipynb", "01_fails.ipynb", "02_unfit.ipynb"):
        before[name] = json.dumps(_executed([]), indent=1)  # an older stored version
        (notebooks / name).write_text(before[name], encoding="utf-8")
    table = new_output("stream", text="score 0.61\n")
    calls = _fake_execution(tool, monkeypatch, {
        "00_fit.ipynb": [table],
        "01_fails.ipynb": tool.site_builder().BuildError(
            "notebooks/01_fails.ipynb: cell 2 ('show(1)') failed: ValueError: no records"),
        "02_unfit.ipynb": [new_output("stream", text="in /tmp/run/results\n")]})
    assert tool.main([]) == 1
    assert calls == [(n, True, str(tmp_path / "figures")) for n in sorted(before)]
    stored = json.loads((notebooks / "00_fit.ipynb").read_text(encoding="utf-8"))
    assert stored["cells"][1]["outputs"] == [table]
    for name in ("01_fails.ipynb", "02_unfit.ipynb"):
        assert (notebooks / name).read_text(encoding="utf-8") == before[name]
    assert sorted(p.name for p in notebooks.iterdir()) == sorted(before)  # no scratch left
    err = capsys.readouterr().err
    assert "notebooks/01_fails.ipynb: cell 2 ('show(1)') failed: ValueError: no records" in err
    assert "02_unfit.ipynb, cell 2: machine path '/tmp/' in an output" in err
    assert err.strip().splitlines()[-1] == ("error: 2 of 3 notebooks keep their previous "
                                            "stored version (see above): 01_fails.ipynb, "
                                            "02_unfit.ipynb")


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

    build_site = _site_builder()
    tracked = _files_of(ROOT / "notebooks", ROOT / "figures")
    start = time.perf_counter()
    # executed as the website's fast build executes it (a copy, its stored outputs dropped,
    # STEBKIT_FAST=1, its figures in a scratch folder), into the copy the build reuses
    executed = build_site.execute_notebook(path, full=False,
                                           output=build_site.EXECUTED / path.name, timeout=600)
    elapsed = time.perf_counter() - start
    nb = nbformat.read(executed, as_version=4)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    lines = [f"cell {i}: {p}" for i, c in enumerate(nb.cells, start=1)
             for p in _store_tool().cell_problems(c) if "library source line" in p]
    assert not lines, f"{path.name}: warnings that point into the library: {lines}"
    assert _files_of(ROOT / "notebooks", ROOT / "figures") == tracked
    print(f"{path.name}: {elapsed:.1f} s in fast mode")


@pytest.mark.slow
def test_a_library_warning_is_one_line_of_the_notebooks_output(tmp_path, monkeypatch):
    """In a real kernel: a load report raised deep in the library shows as one line of the
    cell's own output (no stderr box, no file, no source line)."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    build_site = _site_builder()
    monkeypatch.setattr(build_site, "ROOT", tmp_path)
    path = tmp_path / "notebooks" / "97_warns.ipynb"
    path.parent.mkdir()
    nbformat.write(new_notebook(cells=[new_code_cell(
        "from stebkit.datasets.readers.text import report_dropped\n"
        "from stebkit.plots.notebook import one_line_warnings\n"
        "one_line_warnings()\n"
        "report_dropped('squad', 19, 1500, 'too short')\n"
        "print('after')")]), path)
    out = nbformat.read(build_site.execute_notebook(path, full=False,
                                                    output=tmp_path / "out.ipynb"), as_version=4)
    outputs = out.cells[0].outputs
    assert {(o.output_type, o.get("name")) for o in outputs} == {("stream", "stdout")}
    assert "".join(o.text for o in outputs) == \
        "DroppedRowsWarning: squad: dropped 19 of 1500 items (too short)\nafter\n"


def _files_of(*folders: Path) -> dict[Path, tuple[int, int]]:
    return {p: (p.stat().st_mtime_ns, p.stat().st_size)
            for folder in folders for p in folder.rglob("*") if p.is_file()}


def test_a_fast_execution_runs_the_code_afresh_on_a_copy(tmp_path, monkeypatch):
    """The kernel sees every code cell without its stored outputs, in fast mode with its
    figures in the scratch folder; the stored notebook is only read."""
    import nbclient
    import nbformat
    from nbformat.v4 import new_output

    build_site = _site_builder()
    monkeypatch.setattr(build_site, "ROOT", tmp_path)
    stale = new_output("stream", text="score 0.61 (full mode)\n")
    path = tmp_path / "notebooks" / "90_stored.ipynb"
    path.parent.mkdir()
    path.write_text(json.dumps(_executed([stale], [stale]), indent=1), encoding="utf-8")
    stored = path.read_bytes()
    seen = {}

    class Kernel:  # what nbclient's client does with the cells, without a kernel
        def __init__(self, nb, **kwargs):
            self.nb = nb

        def execute(self):
            code = [c for c in self.nb.cells if c.cell_type == "code"]
            seen["stored"] = [(c.outputs, c.execution_count) for c in code]
            seen["env"] = (os.environ["STEBKIT_FAST"], os.environ["STEBKIT_FIGURES"])
            code[0].outputs = [new_output("stream", text="score 0.55\n")]
            code[0].execution_count = 1

    monkeypatch.setattr(nbclient, "NotebookClient", Kernel)
    out = build_site.execute_notebook(path, full=False, output=tmp_path / "copy.ipynb")
    assert seen["stored"] == [([], None), ([], None)]
    assert seen["env"] == ("1", str(build_site.FAST_FIGURES))
    assert path.read_bytes() == stored
    cells = nbformat.read(out, as_version=4).cells
    assert [c.get("outputs") for c in cells] == [None, [{"output_type": "stream",
                                                         "name": "stdout",
                                                         "text": "score 0.55\n"}], []]


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 1, "notebooks/ has no NN_topic.ipynb notebook"


def _git(*args: str) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                          check=True).stdout


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout")
@pytest.mark.xdist_group("notebooks-and-site")  # git status: not while a notebook runs
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


def test_make_course_copies_the_notebooks_and_keeps_a_students_work(tmp_path):
    """``make course`` in a copy of the repository: every notebook lands in the git-ignored
    ``course/``, a copy already there is kept as the student left it, and from ``course/``
    the notebooks find the same repository folder as from ``notebooks/``."""
    import shutil
    import subprocess

    from stebkit.plots.notebook import repository_root

    shutil.copy(ROOT / "Makefile", tmp_path)
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    (tmp_path / "course").mkdir()
    mine = tmp_path / "course" / NOTEBOOKS[0].name
    mine.write_text("my answers")
    out = subprocess.run(["make", "-s", "course"], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout
    assert sorted(p.name for p in (tmp_path / "course").iterdir()) == [p.name for p in NOTEBOOKS]
    assert mine.read_text() == "my answers" and f"kept course/{mine.name} (yours)" in out
    copied = tmp_path / "course" / NOTEBOOKS[1].name
    assert copied.read_bytes() == NOTEBOOKS[1].read_bytes()
    assert repository_root(tmp_path / "course") == repository_root(tmp_path / "notebooks") \
        == tmp_path
    ignored = subprocess.run(["git", "check-ignore", "-q", "course/x.ipynb"], cwd=ROOT)
    assert ignored.returncode == 0, "course/ is not git-ignored"


@pytest.mark.slow
def test_notebook_times_are_measured_cold_then_warm_and_written(tmp_path, monkeypatch):
    """``scripts/time_notebooks.py`` on a constructed project: a notebook that is slow only
    while its cache is empty is measured cold (slow) and then warm (fast), in a scratch
    copy with an empty cache of its own; the row lands in the table, and ``--write`` puts
    the times into the opening cell's time sentence, outputs untouched."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    timer = repo_scripts.load("scripts/time_notebooks.py")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "examples").mkdir()
    (tmp_path / "figures").mkdir()
    first = ("# 98 · Timed\n\n**Open it yourself.** Run it.\nMeasured on 2 CPU cores shared "
             "with other jobs:\nfast mode took 2 min.\n\nNext paragraph.")
    cell = new_code_cell(
        "import os, pathlib, time\n"
        "mark = pathlib.Path(os.environ['STEBKIT_CACHE'], 'done')\n"
        "assert pathlib.Path('../examples').is_dir()  # the rest of the project is there\n"
        "pathlib.Path('../figures/made.pdf').write_text('a figure')\n"
        "if not mark.exists():\n"
        "    held = b'x' * (400 * 2**20)  # 0.42 GB resident while the cache is empty\n"
        "    time.sleep(10); mark.parent.mkdir(parents=True); mark.touch()",
        outputs=[new_output("stream", text="stored\n")])
    nbformat.write(new_notebook(cells=[new_markdown_cell(first), cell]),
                   tmp_path / "notebooks" / "98_timed.ipynb")
    monkeypatch.setattr(timer, "ROOT", tmp_path)
    monkeypatch.setattr(timer, "NOTEBOOKS", tmp_path / "notebooks")
    monkeypatch.setattr(timer, "TABLE", tmp_path / "times.csv")
    monkeypatch.setattr(timer.site_builder(), "ROOT", tmp_path)
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "my-cache"))
    assert timer.main(["--modes", "fast", "--write"]) == 0
    row = timer.read_table(tmp_path / "times.csv")["98_timed.ipynb", "fast"]
    assert int(row["cold_s"]) >= 10 and int(row["cold_s"]) >= int(row["warm_s"]) + 7
    assert 0.42 <= float(row["peak_gb"]) < 2  # the kernel's bytes, counted while it held them
    assert not (tmp_path / "my-cache").exists()  # the scratch project had a cache of its own
    assert not (tmp_path / "figures" / "made.pdf").exists()  # and figures: none written here
    nb = json.loads((tmp_path / "notebooks" / "98_timed.ipynb").read_text(encoding="utf-8"))
    text = "".join(nb["cells"][0]["source"])
    assert "Measured on 2 CPU cores" not in text and text.endswith("\n\nNext paragraph.")
    assert f"fast mode {row['cold_s']} s from an empty cache, {row['warm_s']} s warm, at " \
           f"most {row['peak_gb']} GB of memory; full mode not measured yet." in text
    assert "".join(nb["cells"][1]["outputs"][0]["text"]) == "stored\n"


def test_make_course_fails_when_a_copy_fails(tmp_path):
    import shutil
    import subprocess

    shutil.copy(ROOT / "Makefile", tmp_path)
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    (tmp_path / "course").mkdir()
    # a dangling link where a copy belongs: not there for `make`, and cp cannot write it
    (tmp_path / "course" / NOTEBOOKS[1].name).symlink_to(tmp_path / "gone" / "x.ipynb")
    done = subprocess.run(["make", "-s", "course"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode != 0
    assert f"error: could not copy notebooks/{NOTEBOOKS[1].name} to course/" in done.stdout
