"""Fast CPU forward passes for BERT and MPNet encoders, checked against the model's own:
ONNX Runtime (:class:`OrtPass`) and a lean PyTorch stack (:class:`LeanStack`).

:func:`ort_pass` exports a loaded PyTorch model with its mean pooling
(``torch.onnx.export``) into the store (:mod:`stebkit.store`, ``$STEBKIT_CACHE/onnx``),
keyed by the model's name, its revision, :data:`EXPORT_VERSION` and the digest of the
weights' bytes (:func:`loaded_weights_digest`), which the graph also carries in its metadata; a
later process loads that graph only when its bytes check out and it names these very
weights (a stale or foreign graph is moved aside and exported again). The session runs
every graph optimisation on :func:`~stebkit.encoders._runtime.cpu_threads` threads. A
length-sorted batch is run in pieces cut where a row is shorter than :data:`SPLIT_RATIO`
of its piece's longest row, so that padding costs little.

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

:func:`lean_stack` builds it for a supported model and returns ``None`` otherwise. Either
fast pass is checked against the model's own forward pass before it makes a vector, on
a fixed probe set (:data:`PROBE_TEXTS`: short and long texts, padding, several batches,
every row compared by cosine); outside the tolerance a stored graph is exported again
and checked once more, and then the encoder falls back to the model's own forward pass
with a warning that names the model and the difference.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import math
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.encoders._runtime import cpu_threads, unavailable

SUPPORTED = ("bert", "mpnet")
EXPORT_VERSION = 1
"""Bumped when the exported graph changes (its inputs, outputs or pooling)."""
OPSET = 17
PROBE_TEXTS = (
    "Hi.",
    "The quick brown fox jumps over the lazy dog. " * 60,
    "A somewhat longer sentence, with punctuation; and a clause or two.",
    "?",
    "Ünïcödé, an emoji 🙂 and numbers like 1,234.5 in one line.",
    "word " * 70,
    "Line one.\nLine two.\tTabbed text, then a question?",
    "Short one.",
    "It was the best of times, it was the worst of times, it was the age of wisdom, "
    "it was the age of foolishness, it was the epoch of belief.",
    *(f"Row {n} of six texts of one length, run as one piece." for n in "123456"),
)
"""The texts a fast pass is checked on: from one token to beyond the model's length, in
batches of :data:`PROBE_BATCH` (padding in each) and all together (a piece of six texts
of one length: rows beyond the fourth)."""
PROBE_BATCH = 3
SPLIT_RATIO = 0.85
"""A row shorter than this fraction of its piece's longest row starts a new piece."""
NEEDS = "onnxruntime and onnx: pip install stebkit[models]"


def ort_importable() -> bool:
    """Whether ONNX Runtime and the ``onnx`` package (which the exporter needs) are here.

    >>> isinstance(ort_importable(), bool)
    True
    """
    return all(importlib.util.find_spec(m) is not None for m in ("onnxruntime", "onnx"))


WEIGHTS_KEY = "stebkit.weights"
"""The graph's metadata entry holding the digest of the weights it was exported from."""


def loaded_weights_digest(model: Any) -> str:
    """``sha256:<hex>`` of a loaded PyTorch model's weights: every tensor of its state dict
    (name, dtype, shape and bytes), in order. A graph exported from the model is bound to
    it: the digest is part of the graph's key in the store and of its metadata.

    >>> import torch
    >>> a, b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    >>> loaded_weights_digest(a) == loaded_weights_digest(a)
    True
    >>> loaded_weights_digest(a) == loaded_weights_digest(b)
    False
    """
    import torch

    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        array = tensor.detach().cpu().contiguous()
        digest.update(f"{name}\0{array.dtype}\0{tuple(array.shape)}\0".encode())
        digest.update(array.reshape(-1).view(torch.uint8).numpy().tobytes())
    return "sha256:" + digest.hexdigest()


def graph_store() -> Any:
    """The store's part for exported graphs (``$STEBKIT_CACHE/onnx``)."""
    from stebkit.store import store_of

    return store_of("onnx")


def graph_folder(name: str, revision: str, weights: str) -> Path:
    """The store folder of the graph of model ``name`` at ``revision`` exported from the
    weights whose digest is ``weights`` (:func:`loaded_weights_digest`) with this
    :data:`EXPORT_VERSION` and :data:`OPSET`.

    >>> a = graph_folder("org/model", "v1", "sha256:aa")
    >>> a.parent.name, a == graph_folder("org/model", "v1", "sha256:bb")
    ('org_model', False)
    """
    return graph_store().folder(name, EXPORT_VERSION, inputs={"weights": weights},
                                settings={"revision": revision, "opset": OPSET})


def mean_pooled(model: Any) -> Any:
    """``model`` and its mean pooling over the attention mask, as one module."""
    import torch

    class MeanPooled(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            hidden = self.inner(input_ids=input_ids, attention_mask=attention_mask)[0]
            m = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)

    return MeanPooled(model)


def export_graph(module: Any, weights: str) -> bytes:
    """The ONNX graph (bytes) of ``module`` (input ids and attention mask to pooled
    vectors), its metadata :data:`WEIGHTS_KEY` set to ``weights``."""
    import warnings

    import onnx
    import torch

    dummy = torch.ones((2, 8), dtype=torch.long)
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
            "pooled": {0: "batch"}}
    buffer = io.BytesIO()
    with warnings.catch_warnings(), torch.inference_mode(False), torch.no_grad():
        warnings.simplefilter("ignore")  # the tracer's notes on Python control flow
        torch.onnx.export(module.eval(), (dummy, dummy), buffer, dynamo=False,
                          input_names=["input_ids", "attention_mask"],
                          output_names=["pooled"], dynamic_axes=axes, opset_version=OPSET)
    graph = onnx.load_from_string(buffer.getvalue())
    onnx.helper.set_model_props(graph, {WEIGHTS_KEY: weights})
    return graph.SerializeToString()


class OrtPass:
    """Mean-pooled vectors of an exported encoder from an ONNX Runtime session."""

    def __init__(self, graph: bytes, path: Path | None, *, stored: bool = False) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = cpu_threads()
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.path = path
        """The graph's entry in the store (None: not kept)."""
        self.stored = stored
        """Whether the graph was loaded from the store (else exported now)."""
        self.session = ort.InferenceSession(graph, sess_options=opts,
                                            providers=["CPUExecutionProvider"])
        self.weights = self.session.get_modelmeta().custom_metadata_map.get(WEIGHTS_KEY)
        """The digest of the weights the graph says it was exported from."""

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


def ort_pass(model: Any, name: str, revision: str, *, fresh: bool = False) -> OrtPass:
    """An :class:`OrtPass` for the loaded PyTorch ``model``: its graph from the store
    (:func:`graph_folder`) when the one there was exported from these very weights, else
    exported now and stored (``fresh``: exported now, whatever the store holds). A clear
    :class:`~stebkit.errors.ModelUnavailable` when ONNX Runtime or ``onnx`` is missing."""
    if not ort_importable():
        raise unavailable(name, NEEDS)
    weights = loaded_weights_digest(model)
    store, folder = graph_store(), graph_folder(name, revision, weights)
    found = None if fresh else store.first(folder, ".onnx")
    if found is not None:
        graph = OrtPass(found[1], found[0], stored=True)
        if graph.weights == weights:
            return graph
        store.reject(found[0], f"exported from other weights ({graph.weights or 'none named'}"
                     f", not {weights})")
    data = export_graph(mean_pooled(model), weights)
    return OrtPass(data, store.put(folder, data, ".onnx"))


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
