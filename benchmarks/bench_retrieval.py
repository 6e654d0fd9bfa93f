"""Retrieval: chunked ranking vs the full distance matrix with one argsort per query.

Baseline (what STEB does): ``pairwise_distances(..., metric="cosine")`` for all queries at
once, then a full ``argsort`` of every query's row. stebkit processes the queries in
chunks and only locates the relevant targets in each sorted row, so peak memory stays
bounded whatever the number of queries.

    python benchmarks/bench_retrieval.py            # 10,000 x 10,000 of dim 512
    python benchmarks/bench_retrieval.py --quick    # 3,000 x 3,000
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import pairwise_distances

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import measure, mib, report  # noqa: E402

from stebkit.tasks import retrieval  # noqa: E402


def baseline(q: np.ndarray, qy: np.ndarray, t: np.ndarray, ty: np.ndarray) -> dict[str, float]:
    common = np.intersect1d(qy, ty)
    q, qy = q[np.isin(qy, common)], qy[np.isin(qy, common)]
    t, ty = t[np.isin(ty, common)], ty[np.isin(ty, common)]
    dist = pairwise_distances(q, t, metric="cosine")
    rr = np.empty(q.shape[0])
    for i in range(q.shape[0]):
        ranks = np.flatnonzero(ty[np.argsort(dist[i], kind="stable")] == qy[i]) + 1
        rr[i] = np.mean(1.0 / ranks)
    return {"mrr": float(rr.mean())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3,000 instead of 10,000 each")
    parser.add_argument("--dim", type=int, default=512)
    args = parser.parse_args()
    n = 3_000 if args.quick else 10_000
    rng = np.random.default_rng(42)
    authors = rng.normal(size=(n // 2, args.dim)).astype(np.float32)
    qy, ty = rng.integers(0, n // 2, n), rng.integers(0, n // 2, n)
    q = authors[qy] + rng.normal(scale=2.0, size=(n, args.dim)).astype(np.float32)
    t = authors[ty] + rng.normal(scale=2.0, size=(n, args.dim)).astype(np.float32)

    ours, t1, m1 = measure(retrieval, q, qy, t, ty)
    ref, t0, m0 = measure(baseline, q, qy, t, ty)
    report(f"retrieval: {n:,} queries x {n:,} targets of dim {args.dim} (float32)",
           (t1, m1), (t0, m0))
    print(f"  kept queries {int(ours['n_queries']):,}; mrr {ours['mrr']:.6f} "
          f"(baseline {ref['mrr']:.6f}); stebkit peak under 1 GiB: {m1 < 2**30} ({mib(m1)})")


if __name__ == "__main__":
    main()
