"""Fast CPU forward passes for BERT and MPNet encoders, checked against the model's own:
ONNX Runtime (:class:`OrtPass`) and a lean PyTorch stack (:class:`LeanStack`).

:func:`ort_pass` exports a loaded PyTorch model with its mean pooling
(``torch.onnx.export``) into ``$STEBKIT_CACHE/onnx/<model>/<key>.onnx``, where the key
hashes the model's name, its revision and :data:`EXPORT_VERSION`; a later process loads
that file. The session runs every graph optimisation on :func:`~stebkit.encoders._runtime.
cpu_threads` threads. A length-sorted batch is run in pieces cut where a row is shorter
than :data:`SPLIT_RATIO` of its piece's longest row, so that padding costs little.

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

import hashlib
import importlib.util
import io
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.encoders._runtime import cpu_threads, unavailable

SUPPORTED = ("bert", "mpnet")
EXPORT_VERSION = 1
"""Bumped when the exported graph changes (its inputs, outputs or pooling)."""
OPSET = 17
SPLIT_RATIO = 0.85
"""A row shorter than this fraction of its piece's longest row starts a new piece."""
NEEDS = "onnxruntime and onnx: pip install stebkit[models]"


def ort_importable() -> bool:
    """Whether ONNX Runtime and the ``onnx`` package (which the exporter needs) are here.

    >>> isinstance(ort_importable(), bool)
    True
    """
    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "onnx"))


def export_path(name: str, revision: str) -> Path:
    """Where the graph of model ``name`` at ``revision`` is kept.

    >>> export_path("org/model", "v1").parts[-2:]
    ('org--model', 'b517b8ce10c0f0a6.onnx')
    """
    from stebkit.sources import cache_dir

    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name.replace("/", "--")).strip("-") or "model"
    key = hashlib.sha256(f"{name}\0{revision}\0{EXPORT_VERSION}".encode()).hexdigest()[:16]
    return cache_dir() / "onnx" / slug / f"{key}.onnx"


def _export(model: Any, path: Path) -> None:
    """Write ``model`` with its mean pooling as an ONNX graph to ``path`` (atomically)."""
    import warnings

    import torch

    from stebkit._io import atomic_file

    class MeanPooled(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            hidden = self.inner(input_ids=input_ids, attention_mask=attention_mask)[0]
            m = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)

    dummy = torch.ones((2, 8), dtype=torch.long)
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
            "pooled": {0: "batch"}}
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.inference_mode(False), torch.no_grad():
        warnings.simplefilter("ignore")  # the tracer's notes on Python control flow
        torch.onnx.export(MeanPooled(model).eval(), (dummy, dummy), buffer, dynamo=False,
                          input_names=["input_ids", "attention_mask"],
                          output_names=["pooled"], dynamic_axes=axes, opset_version=OPSET)
    with atomic_file(path) as fh:
        fh.write(buffer.getvalue())


class OrtPass:
    """Mean-pooled vectors of an exported encoder from an ONNX Runtime session."""

    def __init__(self, path: Path) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = cpu_threads()
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.path = path
        self.session = ort.InferenceSession(str(path), sess_options=opts,
                                            providers=["CPUExecutionProvider"])

    def __call__(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """``(batch, hidden)`` float32 of right-padded inputs, run piece by piece.

        >>> from stebkit.encoders import get_encoder
        >>> enc = get_encoder("all-MiniLM-L6-v2", runtime="onnxruntime")
        >>> enc.encode(["Short.", "A longer sentence than the first one."]).shape
        (2, 384)
        """
        lengths = attention_mask.sum(1)
        pieces = []
        for rows in split_by_length(lengths):
            width = max(int(lengths[rows].max()), 1)
            feed = {"input_ids": np.ascontiguousarray(input_ids[rows, :width]),
                    "attention_mask": np.ascontiguousarray(attention_mask[rows, :width])}
            pieces.append((rows, self.session.run(None, feed)[0]))
        out = np.empty((len(input_ids), pieces[0][1].shape[1]), dtype=np.float32)
        for rows, vectors in pieces:
            out[rows] = vectors
        return out


def split_by_length(lengths: np.ndarray) -> list[np.ndarray]:
    """Row indices of ``lengths`` in pieces: a row shorter than :data:`SPLIT_RATIO` of its
    piece's longest row starts a new piece (rows in any order; each piece is sorted
    longest first).

    >>> [p.tolist() for p in split_by_length(np.array([100, 90, 80, 50, 48, 10]))]
    [[0, 1], [2], [3, 4], [5]]
    """
    order = np.argsort(-np.asarray(lengths), kind="stable")
    pieces, start = [], 0
    for i in range(1, len(order) + 1):
        if i == len(order) or lengths[order[i]] < SPLIT_RATIO * lengths[order[start]]:
            pieces.append(order[start:i])
            start = i
    return pieces


def ort_pass(model: Any, name: str, revision: str) -> OrtPass:
    """An :class:`OrtPass` for the loaded PyTorch ``model``, exported on first use and
    loaded from :func:`export_path` afterwards; a clear
    :class:`~stebkit.errors.ModelUnavailable` when ONNX Runtime or ``onnx`` is missing."""
    if not ort_importable():
        raise unavailable(name, NEEDS)
    path = export_path(name, revision)
    if not path.is_file():
        _export(model, path)
    return OrtPass(path)




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
