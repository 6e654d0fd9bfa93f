"""Execute the notebooks in full mode and store them with their results: ``make figures``.

Each ``notebooks/NN_*.ipynb`` is executed from its folder with ``STEBKIT_FAST=0`` (the
lite records of ``make demo`` in ``results/lite``, all models, full resamples) with
``STEBKIT_FIGURES`` pointing at ``figures/``: this is the one run that writes the tracked
figures (any other run of a notebook writes into the git-ignored ``results/figures/``,
:func:`stebkit.plots.figures_dir`). The execution is stored in place of the notebook, so
that a reader on GitHub and ``make docs FULL=1`` see its results, after three steps:

1. the outputs are cleaned as the website shows every execution (``clean`` of
   ``docs/build_site.py``): paths under the repository are shown relative to it and the
   home folder as ``~`` (outputs print where results and figures are; a reader's machine
   is not this one), and a warning raised by a cell's own code loses the location the
   kernel gives it (its temporary file of the cell, e.g. ``/tmp/ipykernel_7/123.py:2:``);
2. per-cell execution timestamps are dropped (they change at every run), and so are
   progress-bar widgets (a stored notebook has no widget state: they would show as an
   empty bar at 0 %);
3. the execution is checked (:func:`stored_output_problems`): outputs, one top-to-bottom
   execution, no error, no machine path, no trace of a fast-mode run, no library source
   line (a warning pointing into ``stebkit/``), no literal ``\\n`` in a text cell, a
   bounded size.

A notebook is replaced atomically, and only by a fit execution: one that fails or is unfit
keeps its stored version, the script names it with the reasons and exits with status 1
after executing the others.

Usage: ``python scripts/execute_notebooks.py [NOTEBOOK ...]`` (default: all).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from stebkit._io import write_text

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
FIGURES = ROOT / "figures"
"""The tracked figures, written by this script only."""
FAST_TRACES = ("fast mode: True", "STEBKIT_FAST=1")
LIBRARY_LINE = re.compile(r"\bstebkit/[\w/]*\.py:\d+")
"""Where a warning that points into the library shows its source: ``stebkit/x/y.py:231``
(a warning names the reader's own line, :func:`stebkit.errors.warn`, and a notebook shows
it as one line, :func:`stebkit.plots.notebook.one_line_warnings`)."""
CODE_SPAN = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
MAX_BYTES = 2_000_000
"""Largest stored notebook: outputs hold PNG figures and small tables, not data."""


def _text_of(output: dict) -> str:
    parts = [output.get("text", "")]
    parts += [v for k, v in output.get("data", {}).items() if site_builder().is_text(k)]
    return "".join("".join(p) if isinstance(p, list) else json.dumps(p)
                   if not isinstance(p, str) else p for p in parts)


def stored_output_problems(nb: dict, name: str) -> list[str]:
    """What makes an executed notebook (cleaned, as ``notebooks/`` stores it) unfit to
    publish, one line each (empty: fit).

    >>> nb = {"cells": [{"cell_type": "code", "source": "print(1)", "execution_count": 1,
    ...                  "outputs": [{"output_type": "stream", "text": "/tmp/x fast mode: True"}]}]}
    >>> stored_output_problems(nb, "demo")  # doctest: +NORMALIZE_WHITESPACE
    ["demo, cell 1: machine path '/tmp/' in an output",
     "demo, cell 1: a fast-mode trace ('fast mode: True') in an output"]
    """
    problems = []
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    if not any(c.get("outputs") for c in code):
        problems.append(f"{name}: no outputs; execute it with `make figures`")
    counts = [c.get("execution_count") for c in code if "".join(c["source"]).strip()]
    if counts != list(range(1, len(counts) + 1)):
        problems.append(f"{name}: not one top-to-bottom execution (execution counts "
                        f"{counts[:8]}...)")
    for i, cell in enumerate(nb["cells"], start=1):
        problems += [f"{name}, cell {i}: {problem}" for problem in cell_problems(cell)]
    size = len(json.dumps(nb, indent=1))
    if size > MAX_BYTES:
        problems.append(f"{name}: {size:,} bytes stored (at most {MAX_BYTES:,})")
    return problems


def cell_problems(cell: dict) -> list[str]:
    """What makes one cell of an executed notebook unfit to publish (see
    :func:`stored_output_problems`).

    >>> cell_problems({"cell_type": "markdown", "source": "can\\\\nbe; `\\\\n` in code"})
    ['a literal \\\\n in its text (a line break written as two characters)']
    """
    machine_path = site_builder().MACHINE_PATHS.search
    source = "".join(cell["source"])
    problems = []
    if found := machine_path(source):
        problems.append(f"machine path {found.group(0)!r} in its source")
    if cell["cell_type"] == "markdown" and "\\n" in CODE_SPAN.sub("", source):
        problems.append("a literal \\n in its text (a line break written as two characters)")
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            problems.append(f"an error output ({out.get('ename')})")
        text = _text_of(out)
        if found := machine_path(text):
            problems.append(f"machine path {found.group(0)!r} in an output")
        problems += [f"a fast-mode trace ({t!r}) in an output" for t in FAST_TRACES if t in text]
        if found := LIBRARY_LINE.search(text):
            problems.append(f"a library source line ({found.group(0)}) in an output")
    return problems


@functools.cache
def site_builder() -> Any:
    """``docs/build_site.py``, which executes and cleans notebooks for the website."""
    spec = importlib.util.spec_from_file_location("build_site", ROOT / "docs" / "build_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def execute_and_store(path: Path, builder: Any) -> list[str]:
    """Execute ``path`` in full mode (``builder``: :func:`site_builder`, whose execution
    writes a cleaned copy) and store the execution in its place if it is fit to publish.

    Returns what kept the stored version (the failing cell or the problems; empty: stored).
    """
    with tempfile.TemporaryDirectory(prefix="stebkit-notebook-") as scratch:
        try:
            executed = builder.execute_notebook(path, full=True, output=Path(scratch) / path.name,
                                                timeout=-1)
        except builder.BuildError as err:
            return [str(err)]
        text = executed.read_text(encoding="utf-8")
    problems = stored_output_problems(json.loads(text), path.name)
    if not problems:
        write_text(path, text)
    return problems


def notebook_paths(argv: list[str]) -> list[Path]:
    """The notebooks named on the command line (default: all), each a numbered notebook
    of this repository's ``notebooks/``; anything else is refused with its name."""
    if not argv:
        return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    paths = [Path(a).resolve() for a in argv]
    bad = [a for a, p in zip(argv, paths, strict=True)
           if p.parent != NOTEBOOKS or not p.is_file() or p.suffix != ".ipynb"]
    if bad:
        raise SystemExit(f"error: not a notebook of {NOTEBOOKS.relative_to(ROOT)}/: "
                         f"{', '.join(bad)}; name files such as notebooks/00_quickstart.ipynb")
    return paths


def main(argv: list[str]) -> int:
    paths = notebook_paths(argv)
    builder = site_builder()
    os.environ["STEBKIT_FIGURES"] = str(FIGURES)  # the kernels inherit it
    unfit = {}
    for path in paths:
        print(f"== {path.relative_to(ROOT)} (full mode)", flush=True)
        try:
            problems = execute_and_store(path, builder)
        except OSError as err:  # a full disk, a folder not writable: named, not a traceback
            problems = [f"{path.name}: cannot write {err.filename or 'a file'} "
                        f"({err.strerror or err}); free space or fix the folder, then run "
                        "`make figures` again"]
        if problems:
            unfit[path] = problems
            print("error: not stored:\n  " + "\n  ".join(problems), file=sys.stderr, flush=True)
    if unfit:
        print(f"error: {len(unfit)} of {len(paths)} notebooks keep their previous stored "
              f"version (see above): {', '.join(p.name for p in unfit)}", file=sys.stderr)
        return 1
    print(f"{len(paths)} notebooks executed and stored in {NOTEBOOKS.relative_to(ROOT)}/; "
          f"figures in {FIGURES.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
