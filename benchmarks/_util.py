"""Timing and peak-memory helper shared by the benchmark scripts."""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from typing import Any


def measure(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float, int]:
    """Run ``fn(*args, **kwargs)`` once; return ``(result, seconds, peak_bytes)``.

    Peak memory is the largest amount traced by :mod:`tracemalloc` during the call (NumPy
    and Python allocations; BLAS scratch space is not included). Both sides of a comparison
    run under the same tracing, so their ratio is fair.
    """
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    start = time.perf_counter()
    try:
        result = fn(*args, **kwargs)
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, seconds, peak


def mib(n_bytes: float) -> str:
    """``n_bytes`` as a short MiB string."""
    return f"{n_bytes / 2**20:,.1f} MiB"


def report(name: str, ours: tuple[float, int], baseline: tuple[float, int]) -> None:
    """Print time and peak memory of both runs and the ratios baseline / ours."""
    (t1, m1), (t0, m0) = ours, baseline
    print(f"{name}")
    print(f"  stebkit : {t1:8.2f} s   peak {mib(m1)}")
    print(f"  baseline: {t0:8.2f} s   peak {mib(m0)}")
    print(f"  speed-up {t0 / t1:.2f}x   memory ratio (ours / baseline) {m1 / m0:.2f}")
