"""Train a style embedding offline: contrastive fine-tuning from authorship pairs.

>>> from stebkit.train import STYLE_MODEL_NAME, TrainConfig
>>> STYLE_MODEL_NAME
'stebkit-style-minilm'

- :func:`train_style_encoder` — fine-tune a transformer encoder (default: the packaged
  all-MiniLM-L6-v2) into a style embedding; checkpointed, resumable, seeded.
- :class:`TrainConfig` — its hyper-parameters.
- :data:`TRAINING_SOURCES`, :data:`EXCLUDED_AUTHORS` — the declared training split.
- :func:`default_output_dir` — where the model is saved and where ``stebkit run`` looks.
- :func:`style_model_summary` — data, settings, losses and scores of the style model that
  loads (the one trained here, else the shipped one).
"""

from __future__ import annotations

from .card import update_model_card
from .data import EXCLUDED_AUTHORS, TRAINING_SOURCES, load_training_passages, training_authors
from .loop import TrainConfig, TrainResult, train_style_encoder
from .model import STYLE_MODEL_NAME, default_output_dir, style_model_summary

__all__ = ["EXCLUDED_AUTHORS", "STYLE_MODEL_NAME", "TRAINING_SOURCES", "TrainConfig",
           "TrainResult", "default_output_dir", "load_training_passages",
           "style_model_summary", "train_style_encoder", "training_authors",
           "update_model_card"]
