"""Percentile bootstrap intervals for the task metrics, without re-encoding anything.

Every task function returns the per-item material of its main metric under ``details``;
:func:`task_statistic` turns it into a statistic of resampled item indices (each family's
:meth:`~stebkit.tasks.TaskFamily.statistic`, declared beside the metric it reproduces),
resampling the unit of each family (:meth:`~stebkit.tasks.TaskFamily.bootstrap` gives the
interval of a family's main metric):

=====================  ============================================================
family                 resampled unit -> statistic
=====================  ============================================================
``clustering``         episodes -> V-measure of the fixed clustering on the resample
``all_to_all_pairs``   pairs -> ROC AUC
``predefined_pairs``   pairs -> ROC AUC
``retrieval``          queries -> mean of ``per_query_rr``
``order_alignment``    pairs of sequences -> mean of ``distractor_acc``
``stel``               items -> mean of ``stel_correct``
``probing``            test texts -> mean over features of each one's ``test_correct``
``classification``     test texts -> macro-F1 of ``test_true`` vs ``test_pred``
``retrieval_ndcg``     queries -> mean of the per-query ``ndcg``
=====================  ============================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .family import FAMILIES
from .resampling import Statistic, check_resampling, percentile, quantile_interval


def task_statistic(task: str, result: Mapping) -> tuple[int, Statistic]:
    """``(n_items, statistic)`` of a task's main metric over resampled item indices.

    The family's own statistic (:meth:`stebkit.tasks.TaskFamily.statistic`);
    ``statistic(np.arange(n_items))`` reproduces the main metric of ``result``.
    """
    if task not in FAMILIES:
        raise ValueError(f"unknown task {task!r}; expected one of {list(FAMILIES)}")
    if not isinstance(result, Mapping) or "details" not in result:
        raise TypeError(f"task {task!r}: pass the task's result dict (with 'details')")
    return FAMILIES[task].statistic(result["details"])


def _resolve(data: object, task: str | None,
             statistic: Statistic | None) -> tuple[int, Statistic]:
    if task is not None:
        if not isinstance(data, Mapping) or "details" not in data:
            raise TypeError("with task=..., pass the task's result dict (with 'details')")
        return task_statistic(task, data)
    if statistic is not None:
        if not isinstance(data, (int, np.integer)) or data < 1:
            raise TypeError("with statistic=..., pass the number of items as data")
        return int(data), statistic
    v = np.asarray(data, dtype=np.float64)
    if v.ndim != 1 or v.shape[0] == 0:
        raise ValueError(f"per-item values must be a non-empty 1-D array, got shape {v.shape}")
    if not np.isfinite(v).all():
        raise ValueError("per-item values contain NaN or infinite entries")
    return v.shape[0], lambda idx: float(v[idx].mean())


def bootstrap_ci(data: object, *, task: str | None = None, statistic: Statistic | None = None,
                 n_resamples: int = 1000, confidence: float = 0.95, seed: int = 42) -> dict:
    """Percentile bootstrap interval of a metric.

    Parameters
    ----------
    data : 1-D array, task result dict, or int
        Per-item values (the statistic is their mean); or, with ``task``, the result dict of
        that task function (its main metric, resampling the family's unit, see the module
        docstring); or, with ``statistic``, the number of items.
    task : str, optional
        A key of :data:`stebkit.tasks.FAMILIES`.
    statistic : callable, optional
        ``statistic(indices) -> float`` for a resample of item indices.
    n_resamples, confidence, seed
        Resamples (default 1000), interval coverage (0.95) and the seed of the resampling.

    Returns
    -------
    dict
        ``estimate`` (on all items), ``low``, ``high``, ``std`` (of the resampled values).

    Examples
    --------
    >>> from stebkit.tasks import bootstrap_ci
    >>> ci = bootstrap_ci([0.0, 1.0] * 50)
    >>> ci["estimate"], ci["low"] < 0.5 < ci["high"]
    (0.5, True)
    """
    check_resampling(n_resamples, confidence)
    n, stat = _resolve(data, task, statistic)
    return percentile(n, stat, n_resamples=n_resamples, confidence=confidence, seed=seed)


def paired_bootstrap(a: object, b: object, *, task: str | None = None,
                     n_resamples: int = 1000, confidence: float = 0.95, seed: int = 42) -> dict:
    """Bootstrap the difference ``metric(a) - metric(b)`` of two models on the same items.

    Both are resampled with the same indices. ``a`` and ``b`` are per-item value arrays of
    equal length, or, with ``task``, two result dicts of that task on the same items (in
    the same order).

    Returns
    -------
    dict
        ``diff`` (on all items), ``low``, ``high`` (percentile interval), and ``p_value``:
        twice the smaller fraction of resampled differences on either side of zero (capped
        at 1) — a two-sided bootstrap p-value.

    Examples
    --------
    >>> from stebkit.tasks import paired_bootstrap
    >>> r = paired_bootstrap([1.0] * 30 + [0.0] * 10, [0.0] * 40)
    >>> r["diff"], r["p_value"]
    (0.75, 0.0)
    """
    check_resampling(n_resamples, confidence)
    n_a, stat_a = _resolve(a, task, None)
    n_b, stat_b = _resolve(b, task, None)
    if n_a != n_b:
        raise ValueError(f"a has {n_a} items but b has {n_b}; a paired comparison needs the "
                         "same items for both models")
    rng = np.random.default_rng(seed)
    diffs = np.empty(n_resamples)
    for r in range(n_resamples):
        idx = rng.integers(0, n_a, n_a)
        diffs[r] = stat_a(idx) - stat_b(idx)
    low, high = quantile_interval(diffs, confidence)
    full = np.arange(n_a)
    p = 2 * min(np.mean(diffs <= 0), np.mean(diffs >= 0))
    return {"diff": stat_a(full) - stat_b(full), "low": low, "high": high,
            "p_value": float(min(1.0, p))}


def paired_bootstrap_mean(pairs: Sequence[tuple[object, object]], *, task: str | None = None,
                          n_resamples: int = 1000, confidence: float = 0.95,
                          seed: int = 42) -> dict:
    """Bootstrap the mean over datasets of ``metric(a) - metric(b)`` (a stratified paired
    bootstrap: each resample draws the items of every dataset from that dataset).

    ``pairs`` holds one ``(a, b)`` per dataset, each as :func:`paired_bootstrap` takes
    them. With a single dataset the result equals :func:`paired_bootstrap`'s.

    Returns
    -------
    dict
        ``diff`` (the mean of the per-dataset differences on all items), ``low``,
        ``high``, ``p_value`` (as :func:`paired_bootstrap`) and ``n_datasets``.

    Examples
    --------
    >>> from stebkit.tasks import paired_bootstrap_mean
    >>> r = paired_bootstrap_mean([([1.0] * 10, [0.0] * 10), ([0.5] * 4, [0.5] * 4)])
    >>> r["diff"], r["low"], r["high"], r["n_datasets"]
    (0.5, 0.5, 0.5, 2)
    """
    check_resampling(n_resamples, confidence)
    if not pairs:
        raise ValueError("pairs is empty: pass one (a, b) per dataset")
    strata = []
    for k, (a, b) in enumerate(pairs):
        n_a, stat_a = _resolve(a, task, None)
        n_b, stat_b = _resolve(b, task, None)
        if n_a != n_b:
            raise ValueError(f"dataset {k}: a has {n_a} items but b has {n_b}; a paired "
                             "comparison needs the same items for both models")
        strata.append((n_a, stat_a, stat_b))
    rng = np.random.default_rng(seed)
    diffs = np.empty(n_resamples)
    for r in range(n_resamples):
        total = 0.0
        for n, stat_a, stat_b in strata:
            idx = rng.integers(0, n, n)
            total += stat_a(idx) - stat_b(idx)
        diffs[r] = total / len(strata)
    low, high = quantile_interval(diffs, confidence)
    full = float(np.mean([sa(np.arange(n)) - sb(np.arange(n)) for n, sa, sb in strata]))
    p = 2 * min(np.mean(diffs <= 0), np.mean(diffs >= 0))
    return {"diff": full, "low": low, "high": high,
            "p_value": float(min(1.0, p)), "n_datasets": len(strata)}
