"""Encoders: texts in, float32 embeddings out.

>>> from stebkit.encoders import get_encoder, cached
>>> enc = get_encoder("random")
>>> enc.encode(["Hello.", "Hi!"]).shape
(2, 384)

- :func:`get_encoder` / :func:`list_models` — the model zoo (:mod:`stebkit.encoders.zoo`);
  :func:`default_models` — the models ``stebkit run`` evaluates by default
- :func:`cached` — on-disk embedding cache around any encoder
- :func:`as_encoder` — adapt any object with an ``encode`` method
- :class:`Encoder` — the structural protocol; :class:`BaseEncoder` — optional base class

Bad input, the same for every encoder: ``None`` or a non-``str`` item raises
``TypeError`` naming its index; an empty or whitespace-only text gets a defined
embedding (whatever the model gives it; zeros for the count-based baselines) and one
``UserWarning`` counts them; surrogate code points are repaired (a lone one becomes
U+FFFD); a very long text is chunked and pooled (``truncate=True`` keeps its start).
A model that cannot be had here raises :class:`~stebkit.errors.ModelUnavailable`
naming what it needs and the models that run offline.
"""

from __future__ import annotations

import importlib
from typing import Any

from stebkit.encoders.base import (  # noqa: F401 (re-exported)
    BaseEncoder,
    Encoder,
    EncoderAdapter,
    as_encoder,
    check_texts,
    mean_by_owner,
    mean_of_episodes,
)

_LAZY = {
    "get_encoder": "stebkit.encoders.zoo",
    "list_models": "stebkit.encoders.zoo",
    "is_available": "stebkit.encoders.zoo",
    "DEFAULT_OFFLINE_ZOO": "stebkit.encoders.zoo",
    "default_models": "stebkit.encoders.zoo",
    "MODEL_CATEGORIES": "stebkit.encoders.zoo",
    "ModelInfo": "stebkit.encoders.zoo",
    "cached": "stebkit.encoders.cache",
    "CachedEncoder": "stebkit.encoders.cache",
        "HFEncoder": "stebkit.encoders.hf",
    "CausalEncoder": "stebkit.encoders.causal",
    "LUAREncoder": "stebkit.encoders.luar",
    "STEncoder": "stebkit.encoders.st",
    "OnnxMiniLMEncoder": "stebkit.encoders.onnx",
    "WordLlamaEncoder": "stebkit.encoders.static",
    "USEEncoder": "stebkit.encoders.use",
    "TfidfEncoder": "stebkit.encoders.baselines",
    "FunctionWordEncoder": "stebkit.encoders.baselines",
    "FunctionWordFreqEncoder": "stebkit.encoders.baselines",
    "LFTKEncoder": "stebkit.encoders.baselines",
    "RandomEncoder": "stebkit.encoders.baselines",
}

__all__ = sorted([*_LAZY, "BaseEncoder", "Encoder", "EncoderAdapter", "as_encoder", "check_texts",
                  "mean_by_owner", "mean_of_episodes"])


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'stebkit.encoders' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
