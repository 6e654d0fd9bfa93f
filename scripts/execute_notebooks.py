"""Execute the notebooks in full mode for the figures and the website: ``make figures``.

Each ``notebooks/NN_*.ipynb`` is executed from its folder with ``STEBKIT_FAST=0`` (the
lite records of ``make demo`` in ``results/lite``, all models, full resamples), so its
figures are written into ``figures/``. The notebooks in ``notebooks/`` stay stored without
outputs; the executed copy is kept in ``.cache/executed/full/``, where ``make docs FULL=1``
renders it, after three steps:

1. paths under the repository are shown relative to it and the home folder as ``~``
   (outputs print where results and figures are; a reader's machine is not this one), and
   a warning raised by a cell's own code loses the location the kernel gives it (its
   temporary file of the cell, e.g. ``/tmp/ipykernel_7/123.py:2:``);
2. per-cell execution timestamps are dropped (they change at every run), and so are
   progress-bar widgets (a stored notebook keeps no widget state: they would show as an
   empty bar at 0 %);
3. the stored outputs are checked (:func:`stored_output_problems`): no error, no
   machine path, no trace of a fast-mode run, a bounded size. A problem stops with the
   notebook and the cell, and no copy is kept for that notebook.

Usage: ``python scripts/execute_notebooks.py [NOTEBOOK ...]`` (default: all).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
EXECUTED = ROOT / ".cache" / "executed" / "full"
HOME = Path.home()
MACHINE_PATHS = re.compile(r"(?<![\w.])(?:/work/|/root/|/home/|/Users/|/tmp/|[A-Z]:\\)")
"""An absolute path of some machine in an output."""
WIDGET = "application/vnd.jupyter.widget-view+json"
KERNEL_CELL_FILE = re.compile(
    r"(?:/tmp|/var/folders/[^/\s]+/[^/\s]+/T)/ipykernel_\d+/\d+\.py:\d+: ")
"""Where a kernel says a cell's own warning comes from: the cell's temporary file."""
FAST_TRACES = ("fast mode: True", "STEBKIT_FAST=1")
MAX_BYTES = 2_000_000
"""Largest stored notebook: outputs hold PNG figures and small tables, not data."""


def relative_paths(text: str, root: Path = ROOT, home: Path = HOME) -> str:
    """``text`` with paths under ``root`` relative to it and ``home`` shown as ``~``.

    >>> relative_paths("figures: /r/p/figures | results: /r/p", Path("/r/p"), Path("/h"))
    'figures: figures | results: .'
    >>> relative_paths("cache /h/.cache/stebkit", Path("/r/p"), Path("/h"))
    'cache ~/.cache/stebkit'
    >>> relative_paths("/tmp/ipykernel_7/123.py:2: UserWarning: few models", Path("/r"))
    'UserWarning: few models'
    """
    text = KERNEL_CELL_FILE.sub("", text)
    text = re.sub(re.escape(str(root)) + r"/", "", text)
    text = re.sub(re.escape(str(root)) + r"(?![\w/])", ".", text)
    return re.sub(re.escape(str(home)) + r"(?=/|\b)", "~", text)


def _clean_value(value: Any, root: Path, home: Path) -> Any:
    if isinstance(value, str):
        return relative_paths(value, root, home)
    if isinstance(value, list):
        return [_clean_value(v, root, home) for v in value]
    if isinstance(value, dict):
        return {k: _clean_value(v, root, home) for k, v in value.items()}
    return value


def clean(nb: dict, root: Path = ROOT, home: Path = HOME) -> dict:
    """An executed notebook ready to store: relative paths in text outputs, no timing,
    no widget views.

    Images (base64 data) are left as they are.
    """
    for cell in nb["cells"]:
        cell.get("metadata", {}).pop("execution", None)
        if "outputs" in cell:
            cell["outputs"] = [o for o in cell["outputs"] if WIDGET not in o.get("data", {})]
        for out in cell.get("outputs", []):
            if "text" in out:
                out["text"] = _clean_value(out["text"], root, home)
            for mime, data in out.get("data", {}).items():
                if mime.startswith("text/") or mime.endswith("json"):
                    out["data"][mime] = _clean_value(data, root, home)
            if out.get("output_type") == "error":
                out["traceback"] = _clean_value(out.get("traceback", []), root, home)
    return nb


def _text_of(output: dict) -> str:
    parts = [output.get("text", "")]
    parts += [v for k, v in output.get("data", {}).items()
              if k.startswith("text/") or k.endswith("json")]
    return "".join("".join(p) if isinstance(p, list) else json.dumps(p)
                   if not isinstance(p, str) else p for p in parts)


def stored_output_problems(nb: dict, name: str) -> list[str]:
    """What makes a stored notebook unfit to publish, one line each (empty: fit).

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
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"{name}, cell {i}: an error output ({out.get('ename')})")
            text = _text_of(out)
            problems += [f"{name}, cell {i}: machine path {m.group(0)!r} in an output"
                         for m in MACHINE_PATHS.finditer(text)][:1]
            problems += [f"{name}, cell {i}: a fast-mode trace ({t!r}) in an output"
                         for t in FAST_TRACES if t in text]
    size = len(json.dumps(nb, indent=1))
    if size > MAX_BYTES:
        problems.append(f"{name}: {size:,} bytes stored (at most {MAX_BYTES:,})")
    return problems


def _site_builder() -> Any:
    spec = importlib.util.spec_from_file_location("build_site", ROOT / "docs" / "build_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def execute_and_store(path: Path, site_builder: Any) -> None:
    """Execute ``path`` in full mode and keep the copy with its cleaned outputs."""
    import nbformat

    from stebkit._io import write_text

    executed = site_builder.execute_notebook(path, full=True, output=EXECUTED / path.name,
                                             timeout=-1)
    nb = clean(json.loads(executed.read_text(encoding="utf-8")))
    problems = stored_output_problems(nb, path.name)
    if problems:
        executed.unlink()
        raise SystemExit("error: not kept:\n  " + "\n  ".join(problems))
    write_text(executed, nbformat.writes(nbformat.from_dict(nb)) + "\n")


def main(argv: list[str]) -> int:
    paths = [Path(a).resolve() for a in argv] or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    site_builder = _site_builder()
    for path in paths:
        print(f"== {path.relative_to(ROOT)} (full mode)", flush=True)
        try:
            execute_and_store(path, site_builder)
        except site_builder.BuildError as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
    print(f"{len(paths)} notebooks executed into {EXECUTED.relative_to(ROOT)}; figures in "
          "figures/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
