"""Load time of the lite suite: cold (empty processed cache) vs. warm (cached records).

Baseline: the cold load, which runs every reader on the mirrored source files. The warm
load reads one parquet file per dataset. Target: warm < 10 s for the whole suite on
2 cores.

    STEBKIT_MIRROR=../shared/data/mirror python benchmarks/bench_load.py [--smoke]

The cold pass uses a fresh temporary ``STEBKIT_CACHE`` so earlier runs cannot help it.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time


def _load_all(names: list[str], smoke: bool) -> tuple[float, dict[str, float]]:
    from stebkit.datasets import load_dataset

    per: dict[str, float] = {}
    start = time.perf_counter()
    for name in names:
        t0 = time.perf_counter()
        load_dataset(name, smoke=smoke)
        per[name] = time.perf_counter() - t0
    return time.perf_counter() - start, per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="load the capped smoke versions")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="stebkit-bench-") as tmp:
        os.environ["STEBKIT_CACHE"] = tmp
        from stebkit.datasets import list_datasets

        names = list_datasets(suite="lite")
        if not names:
            raise SystemExit("the lite suite is empty: nothing to benchmark")
        cold, cold_per = _load_all(names, args.smoke)
        warm, warm_per = _load_all(names, args.smoke)
    print(f"{'dataset':32s} {'cold s':>8s} {'warm s':>8s}")
    for name in names:
        print(f"{name:32s} {cold_per[name]:8.2f} {warm_per[name]:8.3f}")
    print(f"\n{len(names)} lite datasets (smoke={args.smoke})")
    print(f"cold (baseline): {cold:.2f} s")
    print(f"warm:            {warm:.2f} s   (target < 10 s)")
    print(f"warm/cold ratio: {warm / cold:.3f}  ({cold / warm:.1f}x faster)")


if __name__ == "__main__":
    main()
