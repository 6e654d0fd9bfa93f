"""The models a run builds: by name (once per run state that keeps them), on a device,
through the embedding cache, adapted to a dataset's language."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from stebkit.runs.context import RunContext
from stebkit.runs.planning import PlannedModel


def embeds_episodes(encoder: Any) -> bool:
    """Whether ``encoder`` embeds episodes itself rather than mean-pooling its texts
    (LUAR, or the baselines that concatenate an episode's texts); looks through adapters."""
    from stebkit.encoders.base import BaseEncoder

    target = getattr(encoder, "obj", encoder)
    own = getattr(type(target), "encode_episodes", None)
    return own is not None and own is not BaseEncoder.encode_episodes


def _encoder_options(model: PlannedModel, trust_remote_code: bool) -> dict[str, Any]:
    """Options for building ``model``: ``trust_remote_code`` reaches only the models that
    run their own code (zoo entries marked so, and Hub ids or folders outside the zoo)."""
    info = model.info
    if trust_remote_code and (info is None or info.remote_code):
        return {"trust_remote_code": True}
    return {}


def _on_device(encoder: Any, device: str | None, dtype: str = "auto") -> Any:
    """Put a torch encoder on ``device``, computing in ``dtype`` unless ``"auto"`` (its
    own choice), before it loads (others run on the CPU, in their own precision)."""
    if device is not None and hasattr(encoder, "device_name"):
        encoder.device_name = device
    if dtype != "auto" and hasattr(encoder, "dtype_name"):
        encoder.dtype_name = dtype
    return encoder


def prepare_encoder(model: PlannedModel, ctx: RunContext,
                    kept: dict[tuple[Any, ...], Any] | None = None) -> Any:
    """Build a model by name from the zoo entry its plan holds (weights load lazily, on
    the first encode), on the context's device and in its dtype; a model ``kept`` holds already
    (:attr:`stebkit.runs.context.RunState.models`) is not built again.

    Unknown names raise ``ValueError`` now, before anything runs; a model that cannot be
    had here (:class:`stebkit.errors.ModelUnavailable`, e.g. one that needs remote code
    without ``trust_remote_code``) is returned as the exception, to be recorded as the
    failure of each of its results.
    """
    device, dtype = ctx.device, ctx.dtype
    if model.given is not None:
        return _on_device(model.given, device, dtype)
    from stebkit.encoders.zoo import build_encoder
    from stebkit.errors import ModelUnavailable

    options = _encoder_options(model, ctx.trust_remote_code)
    key = (model.name, tuple(sorted(options.items())), device, dtype)
    if kept is not None and key in kept:
        return kept[key]
    try:
        encoder = _on_device(build_encoder(model.name, model.info, **options), device, dtype)
    except ModelUnavailable as err:
        encoder = err
    if kept is not None:
        kept[key] = encoder
    return encoder


def with_cache(encoder: Any, cache: bool) -> Any:
    """``encoder`` through the embedding cache when ``cache`` (never wrapped twice).

    >>> from stebkit.encoders import get_encoder
    >>> random = get_encoder("random")
    >>> with_cache(random, False) is random
    True
    >>> once = with_cache(random, True)
    >>> with_cache(once, True) is once
    True
    """
    from stebkit.encoders import cached
    from stebkit.encoders.cache import CachedEncoder

    if not cache or isinstance(encoder, CachedEncoder):
        return encoder
    return cached(encoder)


def adapted_to_language(encoder: Any, languages: Sequence[str]) -> tuple[Any, str | None]:
    """The encoder for a dataset's language, for encoders that adapt (``for_language``,
    e.g. the function-word baseline), with the note to keep in the records."""
    adapt = getattr(encoder, "for_language", None)
    if adapt is None:
        return encoder, None
    langs = sorted(set(languages))
    return adapt(langs[0] if len(langs) == 1 else None)


def collapsed_share(vectors: np.ndarray) -> float:
    """Share of the rows that equal the most common row, when it occurs more than once.

    >>> collapsed_share(np.array([[1.0, 0], [1.0, 0], [0, 1.0], [0.5, 0.5]]))
    0.5
    >>> collapsed_share(np.eye(3))
    0.0
    """
    x = np.ascontiguousarray(np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1))
    if len(x) < 2:
        return 0.0
    _, counts = np.unique(x.view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))),
                          return_counts=True)
    top = int(counts.max())
    return round(top / len(x), 6) if top > 1 else 0.0


