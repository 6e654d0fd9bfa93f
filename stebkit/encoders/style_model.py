"""The style model ``stebkit train`` makes: its zoo name and the folder it is saved in.

``stebkit train`` writes the model there and the zoo entry :data:`STYLE_MODEL_NAME`
loads it from there (:func:`trained_style_encoder`); ``stebkit.train`` re-exports both
names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from stebkit.encoders.folders import folder_encoder
from stebkit.errors import ModelUnavailable

STYLE_MODEL_NAME = "stebkit-style-minilm"
"""Registry name of the style encoder trained by :func:`stebkit.train.train_style_encoder`."""
ADAPTER_FILE = "adapter.safetensors"
"""The low-rank delta of a LoRA-trained model, in its folder (float16 safetensors)."""
ADAPTED_LAYERS = ("attention.self.query", "attention.self.key", "attention.self.value",
                  "output.dense", "intermediate.dense")
"""The ends of the names of the linear layers a LoRA adapter changes (BERT-like blocks:
attention projections, attention output, feed-forward in and out)."""


def adapter_bytes(tensors: dict[str, Any], metadata: dict[str, str]) -> bytes:
    """A LoRA adapter as float16 safetensors: ``<layer>.lora_a`` (``r x in``) and
    ``<layer>.lora_b`` (``out x r``, scale included), so that the layer's weight becomes
    ``W + B @ A``."""
    import torch
    from safetensors.torch import save

    return save({k: v.to(torch.float16).contiguous() for k, v in sorted(tensors.items())},
                metadata=metadata)


def merge_adapter(state: dict[str, Any], tensors: dict[str, Any]) -> dict[str, Any]:
    """``state`` (a model's state dict) with ``W += B @ A`` for every adapted layer of
    ``tensors``, computed in float32; an adapter naming a layer ``state`` lacks, or of
    the wrong shape, is refused.

    >>> import torch
    >>> state = {"l.weight": torch.zeros(2, 3)}
    >>> delta = {"l.lora_a": torch.ones(1, 3), "l.lora_b": torch.full((2, 1), 0.5)}
    >>> merge_adapter(state, delta)["l.weight"].tolist()
    [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]
    """
    out = dict(state)
    for key in sorted(k for k in tensors if k.endswith(".lora_a")):
        layer = key[: -len(".lora_a")]
        weight = out.get(f"{layer}.weight")
        delta = tensors[f"{layer}.lora_b"].float() @ tensors[key].float()
        if weight is None or tuple(weight.shape) != tuple(delta.shape):
            raise ValueError(f"the adapter changes layer {layer!r}, which the base model "
                             "lacks or has in another shape; it was trained on another base")
        out[f"{layer}.weight"] = (weight.float() + delta).to(weight.dtype)
    return out


def default_output_dir() -> Path:
    """Where the trained style model lives: ``$STEBKIT_STYLE_MODEL`` if set, else
    ``$STEBKIT_CACHE/models/stebkit-style-minilm``.

    >>> import os
    >>> os.environ["STEBKIT_STYLE_MODEL"] = "/tmp/my-style-model"
    >>> str(default_output_dir())
    '/tmp/my-style-model'
    >>> del os.environ["STEBKIT_STYLE_MODEL"]
    """
    env = os.environ.get("STEBKIT_STYLE_MODEL")
    if env:
        return Path(env)
    from stebkit.sources import cache_dir

    return cache_dir() / "models" / STYLE_MODEL_NAME


def style_model_trained() -> bool:
    """Whether a trained style model sits in :func:`default_output_dir`.

    >>> import os
    >>> os.environ["STEBKIT_STYLE_MODEL"] = "/nonexistent/style-model"
    >>> style_model_trained()
    False
    >>> del os.environ["STEBKIT_STYLE_MODEL"]
    """
    return (default_output_dir() / "config.json").is_file()


def trained_style_encoder(**options: Any) -> Any:
    """The trained style model as an encoder (named :data:`STYLE_MODEL_NAME` unless
    ``name`` is given); raises :class:`~stebkit.errors.ModelUnavailable` saying how to
    train it when :func:`default_output_dir` holds no model.

    >>> import os
    >>> os.environ["STEBKIT_STYLE_MODEL"] = "/nonexistent/style-model"
    >>> trained_style_encoder()
    Traceback (most recent call last):
    ...
    stebkit.errors.ModelUnavailable: model 'stebkit-style-minilm' has not been trained here: \
no model in /nonexistent/style-model. Train it with `stebkit train` (about 30 minutes on 2 \
cores), or point STEBKIT_STYLE_MODEL at a trained copy
    >>> del os.environ["STEBKIT_STYLE_MODEL"]
    """
    folder = default_output_dir()
    if not style_model_trained():
        raise ModelUnavailable(
            f"model {STYLE_MODEL_NAME!r} has not been trained here: no model in {folder}. "
            "Train it with `stebkit train` (about 30 minutes on 2 cores), or point "
            "STEBKIT_STYLE_MODEL at a trained copy")
    return folder_encoder(folder, {"name": STYLE_MODEL_NAME, **options})
