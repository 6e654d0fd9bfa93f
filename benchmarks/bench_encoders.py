"""Encoder speed against the machine's limit and against sentence-transformers.

Prints, in one run, on the same real texts (Gutenberg paragraphs, mixed lengths, both
sides truncated at 256 tokens so the work is equal) and the same threads:

1. the machine's float32 matrix-product throughput (GFLOP/s of a plain GEMM of the
   shapes a base-size encoder multiplies);
2. for each offline BERT-family model and all-mpnet-base-v2: the achieved GFLOP/s of
   stebkit and of sentence-transformers (real tokens x 2 x non-embedding parameters /
   time), stebkit's fraction of the GEMM figure, the throughput ratio stebkit /
   sentence-transformers (goal >= 1.25) and the least cosine between stebkit's
   embeddings and sentence-transformers' (the model's own PyTorch pass; goal >= 0.9999);
3. the opt-in int8 path (``precision="int8"``): its ratio and cosine (never a default);
4. chunk-and-pool preparation cost per character as one document grows (goal: flat).

Timings interleave the contenders and keep each one's best of several rounds, so a
busy machine slows all of them alike. Run: ``python benchmarks/bench_encoders.py
[--quick] [--rounds N]``, or ``make benchmarks`` (which points ``STEBKIT_MIRROR`` at the
shared data mirror, as ``make demo`` does, so it runs offline).
"""

from __future__ import annotations

import argparse
import sys
import time
import zipfile

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
    """Float32 GEMM throughput (GFLOP/s) over shapes of base-size encoder layers; the
    best figure seen so far in this run is kept in ``_GEMM_BEST``."""
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


def bench_model(name: str, texts: list[str], rounds: int, int8: bool) -> list[str]:
    """Interleaved rounds of sentence-transformers, stebkit (lean) and stebkit (the
    model's own forward pass); returns the printed lines."""
    from sentence_transformers import SentenceTransformer

    from stebkit.encoders import get_encoder

    ours = get_encoder(name, truncate=True, max_tokens=MAX_TOKENS)
    own = get_encoder(name, truncate=True, max_tokens=MAX_TOKENS, lean=False)
    ours.encode(texts[:8])
    own.encode(texts[:8])
    st = SentenceTransformer(ours.path, device="cpu")
    st.max_seq_length = MAX_TOKENS
    contenders = {
        "sentence-transformers": lambda: st.encode(texts, batch_size=32,
                                                   normalize_embeddings=False),
        "stebkit": lambda: ours.encode(texts, batch_size=32),
        "stebkit, model's own pass": lambda: own.encode(texts, batch_size=32),
    }
    if int8:
        q = get_encoder(name, truncate=True, max_tokens=MAX_TOKENS, precision="int8")
        q.encode(texts[:8])
        contenders["stebkit int8 (opt-in)"] = lambda: q.encode(texts, batch_size=32)
    for fn in contenders.values():
        fn()  # warm up on the full workload
    best = {k: float("inf") for k in contenders}
    out = {}
    for _ in range(rounds):
        gemm_gflops()  # the machine's limit, measured between the contenders too
        for key, fn in contenders.items():
            start = time.perf_counter()
            out[key] = np.asarray(fn(), dtype=np.float32)
            best[key] = min(best[key], time.perf_counter() - start)
    ids, _ = ours.tokenize(texts)
    tokens = sum(map(len, ids))
    flops = tokens * 2 * non_embedding_params(ours.model)
    ref = out["sentence-transformers"]
    gemm = _GEMM_BEST[0]
    lines = [f"{name}: {len(texts)} texts, {tokens:,} tokens (<= {MAX_TOKENS} each), "
             f"{non_embedding_params(ours.model) / 1e6:.1f} M non-embedding parameters, "
             f"revision {ours.revision}"]
    for key, t in best.items():
        gf = flops / t / 1e9
        lines.append(f"  {key:<27} {len(texts) / t:8.1f} texts/s {gf:7.1f} GFLOP/s "
                     f"{gf / gemm:6.1%} of GEMM  ratio {best['sentence-transformers'] / t:5.2f}x"
                     f"  min cosine {_cos(out[key], ref):.6f}")
    return lines


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
    parser.add_argument("--no-int8", action="store_true", help="skip the int8 rows")
    args = parser.parse_args()
    import torch

    from stebkit.encoders.zoo import is_available

    n = 160 if args.quick else 480
    rounds = args.rounds or (2 if args.quick else 3)
    texts = paragraphs(n)
    models = args.models or [m for m in ("all-MiniLM-L6-v2", "stebkit-style-minilm",
                                         "all-mpnet-base-v2") if is_available(m)]
    print(f"{torch.get_num_threads()} torch threads; {n} Gutenberg paragraphs (median "
          f"{int(np.median([len(t) for t in texts]))} chars); best of {rounds} interleaved "
          "rounds")
    lines = []
    for name in models:
        lines += bench_model(name, texts, rounds, int8=not args.no_int8)
    print(f"float32 GEMM (best seen during the run): {_GEMM_BEST[0]:.1f} GFLOP/s")
    print("\n".join(lines), flush=True)
    print("paraphrase-MiniLM-L3-v2 (ONNX Runtime) has no PyTorch weights offline: no "
          "sentence-transformers reference to time it against")
    for line in chunk_cost(texts, args.quick):
        print(line)


if __name__ == "__main__":
    sys.exit(main())
