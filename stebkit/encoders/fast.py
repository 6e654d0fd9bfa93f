"""A lean CPU forward pass for BERT and MPNet encoders, checked against the model's own.

Hugging Face's modules are general: three separate query/key/value products, masks
rebuilt in every call, and, for MPNet, attention computed in plain matrix products. On a
CPU with few cores these costs show. :class:`LeanStack` runs the same computation from
the same weights with

- query, key and value fused into one matrix product per layer;
- PyTorch's fused scaled-dot-product attention (MPNet's relative position bias passed
  in as an additive mask);
- the linear layers applied to the real tokens only: padding is removed before them and
  put back for attention alone, so a batch's padding costs no matrix product;
- mean pooling over the real tokens inside the same pass.

:func:`lean_stack` builds it for a supported model and returns ``None`` otherwise. The
first batch is checked against the model's own forward pass (cosine of the pooled
vectors); outside the tolerance the encoder falls back to the model's own forward pass
with a warning that names the model and the difference.
"""

from __future__ import annotations

import math
from typing import Any

SUPPORTED = ("bert", "mpnet")
COSINE_TOLERANCE = 0.9999


class LeanStack:
    """BERT or MPNet encoder layers with mean pooling, built from a loaded model."""

    def __init__(self, model: Any) -> None:
        import torch

        cfg = model.config
        self.kind = cfg.model_type
        self.heads = int(cfg.num_attention_heads)
        self.hidden = int(cfg.hidden_size)
        self.eps = float(cfg.layer_norm_eps)
        emb = model.embeddings
        self.word = emb.word_embeddings.weight.detach()
        self.position = emb.position_embeddings.weight.detach()
        types = getattr(emb, "token_type_embeddings", None)
        self.type0 = types.weight.detach()[0] if types is not None else None
        self.emb_ln = (emb.LayerNorm.weight.detach(), emb.LayerNorm.bias.detach())
        self.padding_idx = getattr(emb, "padding_idx", None)
        self.layers = []
        for layer in model.encoder.layer:
            if self.kind == "mpnet":
                att = layer.attention.attn
                q, k, v, o = att.q, att.k, att.v, att.o
                ln1 = layer.attention.LayerNorm
            else:
                att = layer.attention.self
                q, k, v = att.query, att.key, att.value
                o, ln1 = layer.attention.output.dense, layer.attention.output.LayerNorm
            w_qkv = torch.cat([q.weight, k.weight, v.weight]).detach().t().contiguous()
            b_qkv = torch.cat([q.bias, k.bias, v.bias]).detach()
            self.layers.append((
                w_qkv, b_qkv,
                o.weight.detach().t().contiguous(), o.bias.detach(),
                ln1.weight.detach(), ln1.bias.detach(),
                layer.intermediate.dense.weight.detach().t().contiguous(),
                layer.intermediate.dense.bias.detach(),
                layer.output.dense.weight.detach().t().contiguous(),
                layer.output.dense.bias.detach(),
                layer.output.LayerNorm.weight.detach(), layer.output.LayerNorm.bias.detach(),
            ))
        self.rel_bias = (model.encoder.relative_attention_bias.weight.detach()
                         if self.kind == "mpnet" else None)
        self.n_buckets = int(getattr(cfg, "relative_attention_num_buckets", 32))

    # ------------------------------------------------------------------ pieces
    def _positions(self, mask: Any) -> Any:
        import torch

        if self.kind == "mpnet":  # fairseq-style: count real tokens, offset by padding index
            return torch.cumsum(mask, dim=1) * mask + self.padding_idx
        return torch.arange(mask.shape[1]).expand_as(mask)

    def _relative_bias(self, width: int) -> Any:
        """MPNet's (1, heads, width, width) relative position bias (its bucketing)."""
        import torch

        pos = torch.arange(width)
        n = pos[:, None] - pos[None, :]  # minus (memory - context)
        half = self.n_buckets // 2
        bucket = (n < 0).long() * half
        n = n.abs()
        exact = half // 2
        large = exact + (torch.log(n.float().clamp(min=1) / exact) / math.log(128 / exact)
                         * (half - exact)).long()
        large = torch.clamp(large, max=half - 1)
        bucket = bucket + torch.where(n < exact, n, large)
        return self.rel_bias[bucket].permute(2, 0, 1).unsqueeze(0)

    def __call__(self, input_ids: Any, attention_mask: Any) -> Any:
        """Mean-pooled last hidden states ``(batch, hidden)`` of right-padded inputs."""
        import torch
        import torch.nn.functional as F

        b, s = input_ids.shape
        h, heads = self.hidden, self.heads
        d = h // heads
        mask = attention_mask
        x = self.word[input_ids] + self.position[self._positions(mask)]
        if self.type0 is not None:
            x = x + self.type0
        x = F.layer_norm(x, (h,), *self.emb_ln, self.eps)
        keep = mask.reshape(-1).nonzero().squeeze(1)
        full = len(keep) == b * s
        xt = x.reshape(b * s, h) if full else x.reshape(b * s, h).index_select(0, keep)
        bias = torch.zeros((b, 1, 1, s), dtype=x.dtype)
        bias.masked_fill_(mask[:, None, None, :] == 0, float("-inf"))
        if self.rel_bias is not None:
            bias = bias + self._relative_bias(s)
        padded = None if full else torch.zeros((b * s, 3 * h), dtype=x.dtype)
        for (w_qkv, b_qkv, w_o, b_o, g1, be1, w_i, b_i, w_out, b_out, g2, be2) in self.layers:
            qkv = torch.addmm(b_qkv, xt, w_qkv)
            if not full:
                padded.index_copy_(0, keep, qkv)
                qkv = padded
            qkv = qkv.view(b, s, 3, heads, d).permute(2, 0, 3, 1, 4)
            ctx = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=bias)
            ctx = ctx.transpose(1, 2).reshape(b * s, h)
            if not full:
                ctx = ctx.index_select(0, keep)
            xt = F.layer_norm(torch.addmm(b_o, ctx, w_o).add_(xt), (h,), g1, be1, self.eps)
            inner = F.gelu(torch.addmm(b_i, xt, w_i))
            xt = F.layer_norm(torch.addmm(b_out, inner, w_out).add_(xt), (h,), g2, be2,
                              self.eps)
        owners = keep // s if not full else torch.arange(b).repeat_interleave(s)
        sums = torch.zeros((b, h), dtype=xt.dtype).index_add_(0, owners, xt)
        return sums / mask.sum(1, keepdim=True).clamp(min=1).to(xt.dtype)


def lean_stack(model: Any) -> LeanStack | None:
    """A :class:`LeanStack` for a BERT or MPNet model on the CPU in float32, else None."""
    import torch

    config = getattr(model, "config", None)
    if getattr(config, "model_type", None) not in SUPPORTED:
        return None
    if getattr(config, "hidden_act", "gelu") != "gelu" or getattr(model, "dtype",
                                                                   torch.float32) != \
            torch.float32:
        return None
    try:
        if next(model.parameters()).device.type != "cpu":
            return None
        return LeanStack(model)
    except AttributeError:  # a layout this module does not know
        return None
