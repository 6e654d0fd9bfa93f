"""Local model folders and unlisted Hub ids, routed to an encoder as the reference does:
a sentence-transformers-only folder to :class:`~stebkit.encoders.st.STEncoder`, a causal
architecture to :class:`~stebkit.encoders.causal.CausalEncoder` (last-token pooling),
anything else to :class:`~stebkit.encoders.hf.HFEncoder` (mean pooling)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stebkit._io import read_json
from stebkit.encoders.causal import CausalEncoder
from stebkit.encoders.hf import HFEncoder
from stebkit.encoders.st import STEncoder
from stebkit.errors import ModelUnavailable

WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                "pytorch_model.bin.index.json")


def is_causal_config(config: dict[str, Any]) -> bool:
    """The reference's routing: causal-only model types or *ForCausalLM architectures.

    >>> is_causal_config({"architectures": ["GPT2LMHeadModel"]})
    True
    >>> is_causal_config({"model_type": "bert", "architectures": ["BertModel"]})
    False
    """
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


def check_model_folder(path: Path) -> None:
    """Refuse a Hugging Face model folder without ``config.json`` or weights, naming the
    folder and the missing file (:class:`~stebkit.errors.ModelUnavailable`).

    >>> import tempfile, pathlib
    >>> check_model_folder(pathlib.Path(tempfile.mkdtemp()))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stebkit.errors.ModelUnavailable: model folder ... lacks config.json ...
    """
    have = sorted(p.name for p in path.iterdir())
    missing = None
    if "config.json" not in have:
        missing = "config.json (the model's configuration)"
    elif not set(have) & set(WEIGHT_FILES):
        missing = "weights: none of " + ", ".join(WEIGHT_FILES)
    if missing:
        raise ModelUnavailable(f"model folder {path} lacks {missing}; it holds "
                               f"{', '.join(have[:12]) or 'nothing'}. Give a folder written "
                               "by save_pretrained (or stebkit train), or a Hub id")


def folder_encoder(path: Path, options: dict[str, Any]) -> Any:
    """A local directory: sentence-transformers-only, causal or encoder checkpoint."""
    if (path / "modules.json").is_file() and not (path / "config.json").is_file():
        return STEncoder(str(path), **options)
    check_model_folder(path)
    try:
        config = read_json(path / "config.json", fix="save the model again", chosen=True)
    except (OSError, ValueError):
        config = {}
    if is_causal_config(config):
        return CausalEncoder(path, **options)
    return HFEncoder(path, **options)


def hub_id_encoder(hub_id: str, options: dict[str, Any]) -> Any:
    """An unlisted Hub id, routed like the reference by its config (fetched, no weights)."""
    from transformers import AutoConfig

    encoder = HFEncoder(hub_id, **options)
    try:
        config = AutoConfig.from_pretrained(hub_id, revision=options.get("revision"),
                                            trust_remote_code=encoder.trust_remote_code)
    except (OSError, ValueError) as err:
        raise encoder._unavailable(err) from err
    if is_causal_config(config.to_dict()):
        return CausalEncoder(hub_id, **options)
    return encoder
