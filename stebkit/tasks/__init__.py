"""The STEB task families: pure functions of embeddings, and one object per family.

Every task function returns a :class:`TaskResult`: ``metrics`` (floats, each with a
direction declared by its family), ``counts`` (integers) and ``details`` (NumPy arrays
with the per-item material — scores, per-query reciprocal ranks, per-pair accuracies ...
— from which :func:`bootstrap_ci` and :func:`paired_bootstrap` compute intervals without
re-encoding, plus settings the function chose). It reads like a dict
(``result["auc"]``, ``result["details"]``).

:data:`FAMILIES` holds one :class:`TaskFamily` per family, declared beside its function:
main metric and metric directions, reference preset, record columns, bootstrap unit, and
the methods that build its inputs from records (:meth:`TaskFamily.build`), run it on
pooled embeddings (:meth:`TaskFamily.evaluate`) and bootstrap its main metric
(:meth:`TaskFamily.bootstrap`).
Invalid input raises ``TypeError``/``ValueError`` naming the argument; valid but degenerate
input (e.g. no positive pair) gives NaN with a :class:`DegenerateWarning`.

>>> import numpy as np, pandas as pd
>>> from stebkit.tasks import FAMILIES
>>> FAMILIES.steb()
('clustering', 'all_to_all_pairs', 'predefined_pairs', 'retrieval', 'order_alignment', 'probing')
>>> FAMILIES["order_alignment"].main_metric
'distractor_acc_mean'
>>> fam = FAMILIES["retrieval"]
>>> records = pd.DataFrame({"text": ["q1", "t1", "q2", "t2"], "label": list("aabb"),
...                         "side": ["query", "target"] * 2})
>>> ti = fam.build(records, episode_size=-1, episodes_per_label=1)
>>> ti.texts
('q1', 'q2', 't1', 't2')
>>> fam.evaluate(ti, ti.pool(np.eye(2)[[0, 1, 0, 1]]))["mrr"]
1.0
"""

from __future__ import annotations

from . import classification as _classification
from . import clustering as _clustering
from . import order_alignment as _order_alignment
from . import pairs as _pairs
from . import probing as _probing
from . import retrieval as _retrieval
from . import retrieval_ndcg as _retrieval_ndcg
from . import stel as _stel
from ._checks import DegenerateWarning
from .bootstrap import bootstrap_ci, paired_bootstrap, paired_bootstrap_mean, task_statistic
from .classification import classification
from .clustering import clustering
from .family import (
    AUTO,
    FAMILIES,
    SCORINGS,
    FamilyRegistry,
    TaskFamily,
    auto_episodes,
    mean_of,
)
from .inputs import TaskInput
from .order_alignment import order_alignment
from .pairs import FPR_LIMITS, all_to_all_pairs, predefined_pairs
from .probing import L2_GRID, balanced_split, probing, quantile_bins
from .result import TaskResult
from .retrieval import RECALL_KS, retrieval
from .retrieval_ndcg import retrieval_ndcg
from .stel import stel

# STEB's families in the reference's order, then the families of user suites.
for _family in (_clustering.FAMILY, _pairs.ALL_TO_ALL_FAMILY, _pairs.PREDEFINED_FAMILY,
                _retrieval.FAMILY, _order_alignment.FAMILY, _probing.FAMILY,
                _classification.FAMILY, _retrieval_ndcg.FAMILY, _stel.FAMILY):
    FAMILIES.register(_family)

__all__ = [
    "AUTO",
    "FAMILIES",
    "FPR_LIMITS",
    "L2_GRID",
    "RECALL_KS",
    "SCORINGS",
    "DegenerateWarning",
    "FamilyRegistry",
    "TaskFamily",
    "TaskInput",
    "TaskResult",
    "all_to_all_pairs",
    "auto_episodes",
    "balanced_split",
    "bootstrap_ci",
    "classification",
    "clustering",
    "mean_of",
    "order_alignment",
    "paired_bootstrap",
    "paired_bootstrap_mean",
    "predefined_pairs",
    "probing",
    "quantile_bins",
    "retrieval",
    "retrieval_ndcg",
    "stel",
    "task_statistic",
]
