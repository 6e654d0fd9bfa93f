"""Low-rank adaptation (LoRA): train a small delta of a frozen encoder.

Each linear layer of the transformer blocks, ``y = W x + b``, gets two trainable
matrices ``A`` (``r x in``) and ``B`` (``out x r``), ``B`` starting at zero:

    y = W x + b + (alpha / r) * B A x

so training starts from the base model exactly and changes ``W`` only by the rank-``r``
product ``(alpha / r) B A``. Only ``A`` and ``B`` are trained; the base weights stay
frozen. For inference the delta is merged into ``W``
(:func:`stebkit.encoders.style_model.merge_adapter`), so the trained model is an
ordinary encoder of the base's size and speed. The adapter alone, a few megabytes in
float16, is what the package ships (:func:`adapter_tensors`).

>>> import torch
>>> layer = LoRALinear(torch.nn.Linear(4, 3), rank=2, alpha=2.0, seed=0)
>>> x = torch.randn(5, 4)
>>> bool(torch.equal(layer(x), layer.base(x)))  # B starts at zero
True
"""

from __future__ import annotations

from typing import Any

from stebkit.encoders.style_model import ADAPTED_LAYERS

__all__ = ["LoRALinear", "adapter_tensors", "add_lora", "merged_state"]


def _module() -> Any:
    import torch

    class _LoRALinear(torch.nn.Module):
        def __init__(self, base: torch.nn.Linear, *, rank: int, alpha: float,
                     seed: int) -> None:
            super().__init__()
            self.base = base
            self.rank, self.scale = rank, alpha / rank
            gen = torch.Generator().manual_seed(seed)
            bound = 1.0 / base.in_features ** 0.5  # nn.Linear's own initial range
            a = (torch.rand(rank, base.in_features, generator=gen) * 2 - 1) * bound
            self.lora_a = torch.nn.Parameter(a.to(base.weight.dtype))
            self.lora_b = torch.nn.Parameter(base.weight.new_zeros(base.out_features, rank))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.base(x) + (x @ self.lora_a.T @ self.lora_b.T) * self.scale

        def delta(self) -> torch.Tensor:
            """The change of the base weight: ``scale * B A``."""
            return (self.lora_b @ self.lora_a) * self.scale

    return _LoRALinear


def LoRALinear(base: Any, *, rank: int, alpha: float, seed: int) -> Any:  # noqa: N802
    """A ``torch.nn.Linear`` with a trainable rank-``rank`` delta (``B`` at zero, ``A``
    drawn from ``seed`` in the range ``nn.Linear`` initialises its weights with)."""
    return _module()(base, rank=rank, alpha=alpha, seed=seed)


def add_lora(model: Any, *, rank: int, alpha: float, seed: int) -> list[str]:
    """Freeze ``model`` and wrap each linear layer named in
    :data:`~stebkit.encoders.style_model.ADAPTED_LAYERS` (by the end of its module name)
    with a :func:`LoRALinear`; returns the wrapped modules' names, in order.

    >>> from transformers import BertConfig, BertModel
    >>> m = BertModel(BertConfig(hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
    ...                          intermediate_size=16, vocab_size=20))
    >>> len(add_lora(m, rank=2, alpha=2.0, seed=0))
    6
    >>> sorted({n.split(".")[-1] for n, p in m.named_parameters() if p.requires_grad})
    ['lora_a', 'lora_b']
    """
    import torch

    for p in model.parameters():
        p.requires_grad_(False)
    targets = [(name, mod) for name, mod in model.named_modules()
               if isinstance(mod, torch.nn.Linear) and name.endswith(ADAPTED_LAYERS)]
    if not targets:
        raise ValueError("the base model has no linear layer named like "
                         f"{', '.join(ADAPTED_LAYERS)}; LoRA needs a BERT-like encoder "
                         "(or pass lora_rank=0 for full fine-tuning)")
    for k, (name, mod) in enumerate(targets):
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, LoRALinear(mod, rank=rank, alpha=alpha, seed=seed + k))
    return [name for name, _ in targets]


def adapter_tensors(model: Any) -> dict[str, Any]:
    """The adapter of a model :func:`add_lora` wrapped: ``<layer>.lora_a`` and
    ``<layer>.lora_b`` (with the scale folded into ``B``), float32 on the CPU."""
    out = {}
    for name, mod in model.named_modules():
        if hasattr(mod, "lora_a") and hasattr(mod, "delta"):
            out[f"{name}.lora_a"] = mod.lora_a.detach().float().cpu().contiguous()
            out[f"{name}.lora_b"] = (mod.lora_b.detach().float().cpu() * mod.scale).contiguous()
    return out


def merged_state(model: Any) -> dict[str, Any]:
    """The state dict of the base model with every adapter's delta added to its weight:
    what a plain (unwrapped) model of the base's class loads."""
    state = {}
    for name, tensor in model.state_dict().items():
        if ".lora_" in name:
            continue
        state[name.replace(".base.", ".")] = tensor.detach().clone()
    for name, mod in model.named_modules():
        if hasattr(mod, "lora_a") and hasattr(mod, "delta"):
            key = f"{name}.weight"
            state[key] = state[key] + mod.delta().detach().to(state[key].dtype)
    return state
