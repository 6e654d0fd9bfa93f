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
