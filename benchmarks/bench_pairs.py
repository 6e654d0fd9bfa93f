"""All-to-all pair metrics: stebkit vs scikit-learn on the materialised pair list.

Baseline (what STEB does): the full cosine similarity matrix, its upper triangle as a pair
list, then ``roc_auc_score`` (full and at six max FPRs) and the EER from ``roc_curve``.
stebkit computes the similarities block by block into two float64 score vectors (positive
and negative pairs), sorts each once, and reads every metric off one ROC curve.

    python benchmarks/bench_pairs.py            # 5,000 embeddings, 12.5 M pairs
    python benchmarks/bench_pairs.py --quick    # 1,500 embeddings
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.interpolate import interp1d
from scipy.optimize import brentq
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.metrics.pairwise import cosine_similarity

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import measure, report  # noqa: E402

from stebkit.tasks import FPR_LIMITS, all_to_all_pairs  # noqa: E402


def baseline(emb: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    sims = cosine_similarity(emb, emb)
    iu = np.triu_indices(emb.shape[0], k=1)
    scores = sims[iu]
    del sims
    same = (labels[:, None] == labels[None, :])[iu]
    del iu
    fpr, tpr, _ = roc_curve(same, scores)
    out = {"auc": roc_auc_score(same, scores),
           "eer": brentq(lambda x: 1.0 - x - interp1d(fpr, tpr)(x), 0.0, 1.0)}
    for f in FPR_LIMITS:
        out[f"auc@{f:.2f}"] = roc_auc_score(same, scores, max_fpr=f)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,500 instead of 5,000 texts")
    parser.add_argument("--n", type=int, default=None, help="number of embeddings")
    parser.add_argument("--dim", type=int, default=256)
    args = parser.parse_args()
    n = args.n or (1_500 if args.quick else 5_000)
    rng = np.random.default_rng(42)
    labels = rng.integers(0, n // 10, n)
    emb = rng.normal(size=(n, args.dim)) + 0.3 * rng.normal(size=(n // 10, args.dim))[labels]

    ours, t1, m1 = measure(all_to_all_pairs, emb, labels)
    ref, t0, m0 = measure(baseline, emb, labels)
    report(f"all_to_all_pairs: {n:,} embeddings of dim {args.dim}, "
           f"{n * (n - 1) // 2:,} pairs", (t1, m1), (t0, m0))
    worst = max(abs(ours[k] - ref[k]) for k in ref)
    print(f"  largest metric difference {worst:.1e} over {', '.join(ref)}")
    if worst > 1e-9:
        raise SystemExit("metrics differ from scikit-learn by more than 1e-9")


if __name__ == "__main__":
    main()
