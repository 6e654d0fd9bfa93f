"""Where and in which precision training runs: the device, autocast, device-neutral state.

- :func:`training_device` turns ``TrainConfig.device`` (``auto``, ``cpu``, ``cuda``,
  ``cuda:N``, ``mps``) into a ``torch.device``, refusing one this machine lacks;
- :func:`autocast` is the precision policy: ``auto`` is bfloat16 autocast on CUDA (the
  weights and the optimiser stay float32) and float32 elsewhere; ``bfloat16`` asks for
  autocast on any device (the CPU too); ``float32`` switches it off;
- :func:`to_cpu` copies a nest of tensors to the CPU, so a checkpoint written on a GPU
  resumes on a CPU and the other way round.

>>> str(training_device("cpu")), autocast_dtype("auto", training_device("cpu"))
('cpu', None)
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from stebkit.errors import InvalidSetting
from stebkit.settings import Choice

DEVICE_PATTERN = re.compile(r"auto|cpu|mps|cuda(:\d+)?")
"""The devices a training configuration may name."""
class Precision(Choice):
    """The precision policies of training."""

    AUTO = "auto"
    FLOAT32 = "float32"
    BFLOAT16 = "bfloat16"



def check_device_name(device: str, name: str = "device") -> str:
    """``device`` if it names a device :data:`DEVICE_PATTERN` allows; ``name``: the
    setting as the message names it (``--device`` on a command line).

    >>> check_device_name("gpu")
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: device must be auto, cpu, cuda, cuda:N or mps, got 'gpu'
    """
    if not DEVICE_PATTERN.fullmatch(device):
        raise InvalidSetting(f"{name} must be auto, cpu, cuda, cuda:N or mps, got {device!r}")
    return device


def training_device(device: str) -> Any:
    """The ``torch.device`` of ``device`` (``auto``: cuda when present, else cpu); a device
    this machine does not have is refused with the way out."""
    import torch

    check_device_name(device)
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    kind, _, index = device.partition(":")
    if kind == "cuda":  # the index read here: torch.device wraps a large one round
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if int(index or 0) >= count:
            raise InvalidSetting(f"device {device!r} is not available here (torch sees "
                                 f"{count} CUDA device(s)); use --device cpu, or auto to "
                                 "take a GPU only when there is one")
    if kind == "mps" and not (hasattr(torch.backends, "mps")
                              and torch.backends.mps.is_available()):
        raise InvalidSetting("device 'mps' is not available here (torch.backends.mps "
                             "reports none); use --device cpu or auto")
    return torch.device(device)


def autocast_dtype(precision: str, device: Any) -> Any:
    """The autocast dtype of ``precision`` on ``device``, or ``None`` for float32."""
    import torch

    if precision == "bfloat16" or (precision == "auto" and device.type == "cuda"):
        return torch.bfloat16
    return None


def autocast(precision: str, device: Any) -> Any:
    """A context in which forward passes run in the policy's precision (weights stay
    float32: autocast computes matrix products in bfloat16 and keeps the rest float32)."""
    import torch

    dtype = autocast_dtype(precision, device)
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=dtype)


def to_cpu(obj: Any) -> Any:
    """``obj`` with every tensor in its dicts, lists and tuples copied to the CPU.

    >>> import torch
    >>> to_cpu({"a": [torch.ones(1)], "b": 2})["a"][0].device.type
    'cpu'
    """
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu()
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_cpu(v) for v in obj)
    return obj
