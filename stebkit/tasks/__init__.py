"""The STEB task families as pure functions: embeddings and labels in, metrics out.

Every task function returns a dict whose keys are float metrics, except ``details``: a
dict of NumPy arrays with the per-item material (scores, per-query reciprocal ranks,
per-pair accuracies ...) from which :func:`bootstrap_ci` and :func:`paired_bootstrap`
compute intervals without re-encoding. JSON writers keep every key but ``details``.

``MAIN_METRIC`` names the operational score of each family (as STEB's leaderboard).
Invalid input raises ``TypeError``/``ValueError`` naming the argument; valid but degenerate
input (e.g. no positive pair) gives NaN with a :class:`DegenerateWarning`.
"""

from __future__ import annotations

from ._checks import DegenerateWarning
from .bootstrap import bootstrap_ci, paired_bootstrap, task_statistic
from .classification import classification
from .clustering import clustering
from .order_alignment import order_alignment
from .pairs import FPR_LIMITS, all_to_all_pairs, predefined_pairs
from .probing import L2_GRID, balanced_split, probing, quantile_bins
from .retrieval import RECALL_KS, retrieval
from .retrieval_ndcg import retrieval_ndcg
from .stel import stel

MAIN_METRIC: dict[str, str] = {
    "clustering": "v_measure",
    "all_to_all_pairs": "auc",
    "predefined_pairs": "auc",
    "retrieval": "mrr",
    "order_alignment": "distractor_acc_mean",
    "probing": "accuracy",
    "stel": "stel_acc",
    "classification": "macro_f1",
    "retrieval_ndcg": "ndcg@10",
}

__all__ = [
    "FPR_LIMITS",
    "L2_GRID",
    "MAIN_METRIC",
    "RECALL_KS",
    "DegenerateWarning",
    "all_to_all_pairs",
    "balanced_split",
    "bootstrap_ci",
    "classification",
    "clustering",
    "order_alignment",
    "paired_bootstrap",
    "predefined_pairs",
    "probing",
    "quantile_bins",
    "retrieval",
    "retrieval_ndcg",
    "stel",
    "task_statistic",
]
