"""The percentile bootstrap kernel: a statistic of item indices, resampled with a seed.

Both the families' intervals (:meth:`stebkit.tasks.TaskFamily.bootstrap`) and
:func:`stebkit.tasks.bootstrap_ci` resample through :func:`percentile`, so an interval is
computed one way whichever door it is asked through; the paired comparisons of
:mod:`stebkit.tasks.bootstrap` resample differences and take their interval with the same
:func:`quantile_interval`.

>>> import numpy as np
>>> v = np.array([0.0, 1.0] * 50)
>>> ci = percentile(len(v), lambda idx: float(v[idx].mean()), n_resamples=200)
>>> ci["estimate"], ci["low"] < 0.5 < ci["high"]
(0.5, True)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Statistic = Callable[[np.ndarray], float]
"""``statistic(indices) -> float``: a metric of the items at ``indices`` (with repeats)."""


def check_resampling(n_resamples: int, confidence: float) -> None:
    """Refuse a non-positive number of resamples or a confidence outside (0, 1)."""
    if not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")


def quantile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The central ``confidence`` interval of resampled ``values`` (NaN values left out).

    >>> quantile_interval(np.array([np.nan, *range(101)]), 0.5)
    (25.0, 75.0)
    """
    alpha = (1 - confidence) / 2
    low, high = np.nanquantile(values, [alpha, 1 - alpha])
    return float(low), float(high)


def percentile(n: int, statistic: Statistic, *, n_resamples: int = 1000,
               confidence: float = 0.95, seed: int = 42) -> dict[str, float]:
    """Percentile interval of ``statistic`` over ``n_resamples`` resamples of ``n`` items.

    Returns ``estimate`` (on all items), ``low``, ``high`` and ``std`` (of the resampled
    values; resamples where the statistic is undefined, NaN, are left out).
    """
    check_resampling(n_resamples, confidence)
    rng = np.random.default_rng(seed)
    values = np.array([statistic(rng.integers(0, n, n)) for _ in range(n_resamples)])
    low, high = quantile_interval(values, confidence)
    return {"estimate": statistic(np.arange(n)), "low": low, "high": high,
            "std": float(np.nanstd(values))}
