"""The notebooks compare the model they say they compare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def _run_selection(name: str) -> dict:
    """Run a notebook's first code cell and its cell tagged ``select-models``."""
    cells = [c for c in json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))["cells"]
             if c["cell_type"] == "code"]
    tagged = [c for c in cells if "select-models" in c["metadata"].get("tags", [])]
    assert len(tagged) == 1, f"{name}: no single code cell tagged 'select-models'"
    namespace: dict = {}
    for cell in (cells[0], tagged[0]):
        exec(compile("".join(cell["source"]), name, "exec"), namespace)  # noqa: S102
    return namespace


@pytest.mark.parametrize("trained", [True, False])
def test_notebook_07_maps_the_trained_style_model_when_it_exists(trained, monkeypatch):
    from stebkit.encoders import zoo
    from stebkit.plots.notebook import FALLBACK_STYLE_MODEL
    from stebkit.train import STYLE_MODEL_NAME

    real = zoo.is_available
    monkeypatch.setattr(zoo, "is_available", lambda name: trained if name == STYLE_MODEL_NAME
                        else real(name))
    monkeypatch.setenv("STEBKIT_FAST", "1")
    ns = _run_selection("07_embedding_spaces.ipynb")
    expected = STYLE_MODEL_NAME if trained else FALLBACK_STYLE_MODEL
    assert ns["STYLE"] == expected
    assert ns["MODELS"][0] == expected and ns["SEMANTIC"] in ns["MODELS"]
