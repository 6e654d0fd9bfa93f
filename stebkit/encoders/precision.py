"""The precision policy of the torch encoders: which dtype a model computes in.

Each zoo model declares its dtype (:attr:`stebkit.encoders.zoo.ModelInfo.dtype`):
``bfloat16`` for the LLM embedders, as their authors publish them, ``float32`` for the
small encoders and the offline models. A model outside the zoo declares what its
checkpoint's configuration says (``float32`` when it says nothing). The dtype is passed
explicitly when the weights load, so the vectors do not depend on the installed
transformers version (transformers 4 loads float32 by default, 5 the checkpoint's dtype).

A run or an encoder asks for one of :data:`DTYPES`; ``"auto"`` is the declared dtype,
except that a small model (under :data:`SMALL_PARAMS` parameters) stays float32 on the
CPU: half precision there is opt-in.

Examples
--------
>>> resolve_dtype("auto", "bfloat16", "cuda", params=7.6e9)
'bfloat16'
>>> resolve_dtype("auto", "bfloat16", "cpu", params=1.35e8)
'float32'
>>> resolve_dtype("bfloat16", "float32", "cpu", params=2.3e7)
'bfloat16'
"""

from __future__ import annotations

from typing import Any

from stebkit.settings import Choice


class Dtype(Choice):
    """What a run or an encoder may ask for (``auto``: the policy above)."""

    AUTO = "auto"
    FLOAT32 = "float32"
    BFLOAT16 = "bfloat16"
    FLOAT16 = "float16"


DTYPES = Dtype.values()
"""The names of :class:`Dtype`, in order."""

SMALL_PARAMS = 1e9
"""Models with fewer parameters than this are small: float32 on the CPU unless asked."""


def check_dtype(dtype: str) -> str:
    """``dtype`` if it is one of :data:`DTYPES`, else a ``ValueError`` that lists them.

    >>> check_dtype("half")
    Traceback (most recent call last):
    ...
    ValueError: dtype must be one of auto, float32, bfloat16, float16, got 'half'
    """
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    return dtype


def resolve_dtype(requested: str, declared: str, device_type: str, *,
                  params: float | None) -> str:
    """The dtype a model computes in: ``requested`` unless it is ``"auto"``; then the
    ``declared`` one, except float32 for a small model (``params`` below
    :data:`SMALL_PARAMS`; ``None``: unknown, taken as small) on the CPU."""
    check_dtype(requested)
    if requested != "auto":
        return requested
    if device_type == "cpu" and (params is None or params < SMALL_PARAMS):
        return "float32"
    return check_dtype(declared)


def checkpoint_dtype(config: Any) -> str:
    """The dtype a checkpoint's configuration declares (``dtype``, or ``torch_dtype`` in
    older files), among the half and full precisions; float32 otherwise.

    >>> from types import SimpleNamespace
    >>> checkpoint_dtype(SimpleNamespace(torch_dtype="bfloat16"))
    'bfloat16'
    >>> checkpoint_dtype(SimpleNamespace())
    'float32'
    """
    value = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None)
    name = str(value).removeprefix("torch.") if value is not None else "float32"
    return name if name in DTYPES[1:] else "float32"


def approx_params(config: Any) -> float | None:
    """A transformer's parameter count from its configuration alone (no weights): 12
    hidden² per layer plus the token embeddings; ``None`` when the configuration has no
    such sizes.

    >>> from types import SimpleNamespace
    >>> cfg = SimpleNamespace(hidden_size=384, num_hidden_layers=6, vocab_size=30522)
    >>> round(approx_params(cfg) / 1e6, 1)
    22.3
    """
    hidden = getattr(config, "hidden_size", None) or getattr(config, "d_model", None)
    layers = getattr(config, "num_hidden_layers", None) or getattr(config, "num_layers", None)
    if not isinstance(hidden, int) or not isinstance(layers, int):
        return None
    vocab = getattr(config, "vocab_size", 0) or 0
    return float(12 * layers * hidden * hidden + vocab * hidden)


def load_kwargs(dtype: str) -> dict[str, Any]:
    """The ``from_pretrained`` keyword that loads weights in ``dtype`` (a name of
    :data:`DTYPES` other than auto): ``dtype`` since transformers 4.56, ``torch_dtype``
    before.

    >>> load_kwargs("bfloat16")
    {'dtype': torch.bfloat16}
    """
    import torch
    import transformers
    from packaging.version import Version

    key = "dtype" if Version(transformers.__version__) >= Version("4.56") else "torch_dtype"
    return {key: getattr(torch, dtype)}
