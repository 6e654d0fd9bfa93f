"""Every notebook runs top to bottom in fast mode, and is stored without outputs."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
EXECUTED = ROOT / ".cache" / "executed" / "fast"  # reused by the website build (docs/)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    dirty = [i for i, c in enumerate(nb["cells"])
             if c["cell_type"] == "code" and (c.get("outputs") or c.get("execution_count"))]
    assert not dirty, f"{path.name}: cells {dirty} keep outputs; strip them before committing"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes_in_fast_mode(path, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("STEBKIT_FAST", "1")
    # Fast-mode figures go to a scratch folder: figures/ keeps those of the full runs.
    monkeypatch.setenv("STEBKIT_FIGURES", str(tmp_path))
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    elapsed = time.perf_counter() - start
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    print(f"{path.name}: {elapsed:.1f} s in fast mode")
    from stebkit._io import write_text

    write_text(EXECUTED / path.name, nbformat.writes(nb))


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 1, "notebooks/ has no NN_topic.ipynb notebook"
