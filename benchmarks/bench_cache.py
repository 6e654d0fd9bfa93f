"""Embedding cache speed: a warm cache against encoding (goal >= 50x faster).

Encodes real texts (Gutenberg paragraphs) with all-MiniLM-L6-v2 through ``cached`` into
an empty temporary cache, then reads them back with a fresh wrapper and a fresh encoder
(the weights are never loaded on a full hit) and prints the ratio.

Run: ``python benchmarks/bench_cache.py [--quick]``.
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
from bench_encoders import paragraphs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 texts instead of 1000")
    args = parser.parse_args()
    n = 200 if args.quick else 1000

    from stebkit.encoders import cached, get_encoder

    texts = paragraphs(n, seed=7)
    get_encoder("all-MiniLM-L6-v2").encode(texts[:16])  # warm up the libraries
    with tempfile.TemporaryDirectory() as root:
        cold = cached(get_encoder("all-MiniLM-L6-v2"), root)
        start = time.perf_counter()
        emb = cold.encode(texts)
        t_cold = time.perf_counter() - start

        fresh = get_encoder("all-MiniLM-L6-v2")
        warm = cached(fresh, root)
        start = time.perf_counter()
        again = warm.encode(texts)
        t_warm = time.perf_counter() - start
    assert np.array_equal(emb, again) and fresh.model is None
    print(f"{n} texts, all-MiniLM-L6-v2")
    print(f"encode (cold cache) : {t_cold:8.3f} s")
    print(f"warm cache          : {t_warm:8.3f} s   model loaded: {fresh.model is not None}")
    print(f"warm cache is {t_cold / t_warm:,.0f}x faster than encoding (goal >= 50x)")


if __name__ == "__main__":
    main()
