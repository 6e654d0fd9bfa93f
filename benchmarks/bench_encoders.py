"""Encoder speed against the CPU peers a user would pick: ONNX Runtime and
sentence-transformers.

Prints, in one run, on the same real texts (Gutenberg paragraphs, mixed lengths, both
sides truncated at 256 tokens so the work is equal) and the same threads:

1. torch's float32 matrix-product throughput (GFLOP/s of a plain ``torch.mm`` of the
   shapes a base-size encoder multiplies): context only, not a limit (ONNX Runtime's
   kernels can beat it);
2. for each offline BERT-family model and all-mpnet-base-v2, the texts per second and
   achieved GFLOP/s (real tokens x 2 x non-embedding parameters / time) of
   sentence-transformers; ONNX Runtime as a user would run it (the model exported with
   ``torch.onnx.export``, every graph optimisation, batches of 32 sorted by length,
   tokenization and mean pooling included); stebkit (its default: ONNX Runtime where
   installed) and stebkit on PyTorch (``runtime="torch"``); each one's throughput ratio
   to ONNX Runtime (goal >= 1.0 for stebkit) and to sentence-transformers, and the least
   cosine to sentence-transformers' embeddings (the model's own PyTorch pass; goal
   >= 0.9999);
3. chunk-and-pool preparation cost per character as one document grows (goal: flat).

On a GPU (``--device cuda``, the default when one is present; ``--gpu-contest`` runs the
same on a CPU) it prints instead, on 20,000 paragraphs (4,000 with ``--quick``,
``--texts N``): the GPU's float32 and bfloat16 matrix rates
(TFLOP/s of a large ``torch.mm``, measured in the same run), then for each model
sentence-transformers in float32 and bfloat16 and stebkit in float32 and bfloat16 (its
token-budget batches), each one's texts per second, achieved TFLOP/s and fraction of the
matrix rate of its dtype, throughput ratio to sentence-transformers in float32 (goal for
stebkit in bfloat16: >= 3) and least cosine to sentence-transformers' float32 vectors
(goal >= 0.999).

Timings interleave the contenders and keep each one's best of several rounds, so a
busy machine slows all of them alike. Run: ``python benchmarks/bench_encoders.py
[--quick] [--rounds N] [--device cuda]``, or ``make benchmarks`` (which points
``STEBKIT_MIRROR`` at the shared data mirror, as ``make demo`` does, so it runs offline).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

GUTENBERG = ("https://raw.githubusercontent.com/nltk/nltk/"
             "dd1f7eefff8c5fb62bba006af964b078e8ea31a4/nltk_data/corpora/gutenberg.zip")
GUTENBERG_SHA256 = "5c638910fa1ac7a0294623950c5e932b421f2057eeedfbb7e8a200e6c77f0168"
MAX_TOKENS = 256


def paragraphs(n: int, seed: int = 42) -> list[str]:
    """``n`` Gutenberg paragraphs of at least 3 words, sampled with ``seed``."""
    from stebkit.sources import fetch

    paras: list[str] = []
    with zipfile.ZipFile(fetch(GUTENBERG, GUTENBERG_SHA256)) as zf:
        for name in sorted(zf.namelist()):
            if name.endswith(".txt"):
                text = zf.read(name).decode("latin-1")
                paras += [" ".join(p.split()) for p in text.split("\n\n")
                          if len(p.split()) >= 3]
    rng = np.random.default_rng(seed)
    return [paras[i] for i in rng.choice(len(paras), size=n, replace=False)]


_GEMM_BEST = [0.0]


def gemm_gflops() -> float:
    """torch's float32 GEMM throughput (GFLOP/s) over shapes of base-size encoder layers;
    the best figure seen so far in this run is kept in ``_GEMM_BEST``."""
    import torch

    for m, k, n in ((2048, 768, 3072), (2048, 3072, 768), (2048, 384, 1536)):
        a, b = torch.randn(m, k), torch.randn(k, n)
        torch.mm(a, b)
        start = time.perf_counter()
        for _ in range(3):
            torch.mm(a, b)
        _GEMM_BEST[0] = max(_GEMM_BEST[0],
                            3 * 2 * m * k * n / (time.perf_counter() - start) / 1e9)
    return _GEMM_BEST[0]


def non_embedding_params(model) -> int:
    """Parameters outside the embedding tables and the pooler (those do no GEMM work)."""
    return sum(p.numel() for name, p in model.named_parameters()
               if not name.startswith(("embeddings.", "pooler.")))


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    from stebkit.encoders.base import cosines

    return float(cosines(a, b).min())


def onnx_runtime_peer(path: str, texts: list[str], folder: Path):
    """ONNX Runtime as a user would run the model at ``path``: exported with
    ``torch.onnx.export``, every graph optimisation, batches of 32 sorted by length
    (as sentence-transformers sorts), tokenization and mean pooling in the timing."""
    import onnxruntime as ort
    import torch
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(path).eval()
    tok = AutoTokenizer.from_pretrained(path)

    class Hidden(torch.nn.Module):  # transformers' forward takes its inputs by keyword
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask):
            return self.model(input_ids=input_ids, attention_mask=attention_mask)[0]

    graph = str(folder / "model.onnx")
    dummy = torch.ones((2, 8), dtype=torch.long)
    axes = {"input_ids": {0: "b", 1: "s"}, "attention_mask": {0: "b", 1: "s"}}
    with torch.no_grad():
        torch.onnx.export(Hidden(), (dummy, dummy), graph, dynamo=False, opset_version=17,
                          input_names=list(axes), output_names=["hidden"], dynamic_axes=axes)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = torch.get_num_threads()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(graph, opts, providers=["CPUExecutionProvider"])

    def encode() -> np.ndarray:
        order = np.argsort([-len(t) for t in texts], kind="stable")
        out = np.empty((len(texts), model.config.hidden_size), dtype=np.float32)
        for start in range(0, len(texts), 32):
            rows = order[start:start + 32]
            batch = tok([texts[i] for i in rows], padding=True, truncation=True,
                        max_length=MAX_TOKENS, return_tensors="np")
            feed = {k: batch[k].astype(np.int64) for k in axes}
            hidden = session.run(None, feed)[0]
            mask = feed["attention_mask"][:, :, None].astype(np.float32)
            out[rows] = (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1e-9)
        return out

    return encode


def contenders(name: str, texts: list[str], folder: Path) -> tuple[dict, object]:
    """The timed functions, keyed by their printed name, and stebkit's encoder."""
    from sentence_transformers import SentenceTransformer

    from stebkit.encoders import get_encoder

    ours = get_encoder(name, truncate=True, max_tokens=MAX_TOKENS)
    on_torch = get_encoder(name, truncate=True, max_tokens=MAX_TOKENS, runtime="torch")
    for enc in (ours, on_torch):
        enc.encode(texts[:8])
    st = SentenceTransformer(ours.path, device="cpu")
    st.max_seq_length = MAX_TOKENS
    fns = {
        "sentence-transformers": lambda: st.encode(texts, batch_size=32,
                                                   normalize_embeddings=False),
        "ONNX Runtime": onnx_runtime_peer(ours.path, texts, folder),
        f"stebkit ({ours.forward})": lambda: ours.encode(texts, batch_size=32),
        f"stebkit ({on_torch.forward}, PyTorch)": lambda: on_torch.encode(texts,
                                                                         batch_size=32),
    }
    return fns, ours


def bench_model(name: str, texts: list[str], rounds: int) -> list[str]:
    """Interleaved rounds of the contenders; returns the printed lines."""
    with tempfile.TemporaryDirectory() as folder:
        fns, ours = contenders(name, texts, Path(folder))
        best, out = _best_of({**fns, "GEMM": gemm_gflops}, rounds)  # GEMM between them
        best.pop("GEMM")
    ids, _ = ours.tokenize(texts)
    tokens = sum(map(len, ids))
    flops = tokens * 2 * non_embedding_params(ours.model)
    ref = out["sentence-transformers"]
    lines = [f"{name}: {len(texts)} texts, {tokens:,} tokens (<= {MAX_TOKENS} each), "
             f"{non_embedding_params(ours.model) / 1e6:.1f} M non-embedding parameters, "
             f"revision {ours.revision}"]
    for key, t in best.items():
        gf = flops / t / 1e9
        lines.append(f"  {key:<30} {len(texts) / t:7.1f} texts/s {gf:6.1f} GFLOP/s "
                     f"({gf / _GEMM_BEST[0]:4.0%} of torch's GEMM)  "
                     f"x ONNX Runtime {best['ONNX Runtime'] / t:5.2f}  "
                     f"x sentence-transformers {best['sentence-transformers'] / t:5.2f}  "
                     f"min cosine {_cos(out[key], ref):.6f}")
    return lines


GPU_BATCH = 256
"""Texts per batch of every GPU contender (sentence-transformers and stebkit)."""
GPU_BATCH_TOKENS = GPU_BATCH * MAX_TOKENS
"""stebkit's token budget per batch on the GPU: a full batch of the longest texts."""


def matmul_tflops(device: str, size: int = 8192) -> dict[str, float]:
    """The device's matrix rate (TFLOP/s of a ``size``-square ``torch.mm``) in float32
    and bfloat16, best of 10 products each."""
    import torch

    def sync() -> None:
        if torch.device(device).type == "cuda":
            torch.cuda.synchronize(device)

    rates = {}
    for dtype in ("float32", "bfloat16"):
        a = torch.randn(size, size, device=device, dtype=getattr(torch, dtype))
        b = torch.randn_like(a)
        torch.mm(a, b)
        best = float("inf")
        for _ in range(10):
            sync()
            start = time.perf_counter()
            torch.mm(a, b)
            sync()
            best = min(best, time.perf_counter() - start)
        rates[dtype] = 2 * size**3 / best / 1e12
    return rates


def gpu_contenders(name: str, texts: list[str], device: str) -> tuple[dict, object]:
    """The GPU contenders, keyed by (printed name, dtype), and stebkit's float32 encoder."""
    from sentence_transformers import SentenceTransformer

    from stebkit.encoders import get_encoder
    from stebkit.encoders.precision import load_kwargs

    ours = {d: get_encoder(name, truncate=True, max_tokens=MAX_TOKENS, device=device,
                           dtype=d, batch_tokens=GPU_BATCH_TOKENS)
            for d in ("float32", "bfloat16")}
    fns = {}
    for dtype in ("float32", "bfloat16"):
        st = SentenceTransformer(ours["float32"].path, device=device,
                                 model_kwargs=load_kwargs(dtype))
        st.max_seq_length = MAX_TOKENS
        fns[("sentence-transformers", dtype)] = (
            lambda st=st: st.encode(texts, batch_size=GPU_BATCH, normalize_embeddings=False))
    for dtype, enc in ours.items():
        enc.encode(texts[:8])
        fns[("stebkit", dtype)] = lambda enc=enc: enc.encode(texts, batch_size=GPU_BATCH)
    return fns, ours["float32"]


def bench_gpu(name: str, texts: list[str], rounds: int, device: str,
              rates: dict[str, float]) -> list[str]:
    """Interleaved rounds of the GPU contenders; returns the printed lines."""
    fns, ours = gpu_contenders(name, texts, device)
    best, out = _best_of(fns, rounds)
    ids, _ = ours.tokenize(texts)
    tokens = sum(map(len, ids))
    flops = tokens * 2 * non_embedding_params(ours.model)
    ref_key = ("sentence-transformers", "float32")
    lines = [f"{name} on {device}: {len(texts)} texts, {tokens:,} tokens (<= {MAX_TOKENS} "
             f"each), batches of {GPU_BATCH}, revision {ours.revision}"]
    for (who, dtype), t in best.items():
        tf = flops / t / 1e12
        lines.append(f"  {who + ' ' + dtype:<32} {len(texts) / t:9.1f} texts/s "
                     f"{tf:6.1f} TFLOP/s ({tf / rates[dtype]:4.0%} of the {dtype} matrix "
                     f"rate)  x sentence-transformers float32 {best[ref_key] / t:5.2f}  "
                     f"min cosine {_cos(out[(who, dtype)], out[ref_key]):.6f}")
    return lines


def _best_of(fns: dict, rounds: int) -> tuple[dict, dict]:
    """Each function's best time over ``rounds`` interleaved rounds (after one warm-up
    call) and its last output as float32."""
    for fn in fns.values():
        fn()
    best = {k: float("inf") for k in fns}
    out = {}
    for _ in range(rounds):
        for key, fn in fns.items():
            start = time.perf_counter()
            out[key] = np.asarray(fn(), dtype=np.float32)
            best[key] = min(best[key], time.perf_counter() - start)
    return best, out


def main_gpu(args: argparse.Namespace, models: list[str]) -> None:
    """The GPU part (on ``args.device``, a CPU too for a check): matrix rates, then each
    model's contenders."""
    import torch

    n = args.texts or (4000 if args.quick else 20000)
    rounds = args.rounds or 2
    texts = paragraphs(n)
    on_gpu = torch.device(args.device).type == "cuda"
    rates = matmul_tflops(args.device, 8192 if on_gpu else 1024)
    where = torch.cuda.get_device_name(args.device) if on_gpu else args.device
    print(f"{where}: matrix rate {rates['float32']:.1f} "
          f"TFLOP/s float32, {rates['bfloat16']:.1f} bfloat16; {n} Gutenberg paragraphs; "
          f"best of {rounds} interleaved rounds")
    for name in models:
        print("\n".join(bench_gpu(name, texts, rounds, args.device, rates)), flush=True)


def chunk_cost(texts: list[str], quick: bool) -> list[str]:
    """Chunk-and-pool preparation (tokenizing, sentence splitting, packing) per char."""
    from stebkit.encoders import get_encoder

    enc = get_encoder("all-MiniLM-L6-v2")
    doc = " ".join(texts)
    while len(doc) < 1_000_000:
        doc += " " + doc
    sizes = [50_000, 200_000] if quick else [50_000, 200_000, 1_000_000]
    enc.tokenize([doc[:20_000]])
    lines = ["chunk-and-pool preparation vs length (all-MiniLM-L6-v2, 512-token chunks):"]
    base = None
    for size in sizes:
        start = time.perf_counter()
        ids, _ = enc.tokenize([doc[:size]])
        t = time.perf_counter() - start
        base = base or t / size
        lines.append(f"  {size:>9,} chars: {t:6.2f} s, {len(ids)} chunks, cost per char "
                     f"{t / size / base:.2f}x the first (goal ~1: linear)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer texts and rounds")
    parser.add_argument("--rounds", type=int, default=None, help="timing rounds (best kept)")
    parser.add_argument("--models", nargs="*", default=None)
    parser.add_argument("--device", default=None,
                        help="cpu or cuda (default: cuda when a GPU is present)")
    parser.add_argument("--gpu-contest", action="store_true",
                        help="the GPU comparison also on a CPU (to check it runs)")
    parser.add_argument("--texts", type=int, default=None,
                        help="paragraphs of the GPU comparison (default 20,000)")
    args = parser.parse_args()
    import torch

    from stebkit.encoders.zoo import is_available

    args.device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    models = args.models or [m for m in ("all-MiniLM-L6-v2", "stebkit-style-minilm",
                                         "all-mpnet-base-v2") if is_available(m)]
    if args.device != "cpu" or args.gpu_contest:
        main_gpu(args, models)
        return
    n = 160 if args.quick else 480
    rounds = args.rounds or (2 if args.quick else 3)
    texts = paragraphs(n)
    print(f"{torch.get_num_threads()} torch threads; {n} Gutenberg paragraphs (median "
          f"{int(np.median([len(t) for t in texts]))} chars); best of {rounds} interleaved "
          "rounds")
    for name in models:
        print("\n".join(bench_model(name, texts, rounds)), flush=True)
    print(f"torch's float32 GEMM (best seen during the run, context only): "
          f"{_GEMM_BEST[0]:.1f} GFLOP/s")
    print("paraphrase-MiniLM-L3-v2 (ONNX Runtime) has no PyTorch weights offline: no "
          "sentence-transformers reference to time it against")
    for line in chunk_cost(texts, args.quick):
        print(line)


if __name__ == "__main__":
    sys.exit(main())
