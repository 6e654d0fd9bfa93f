"""The effect of bfloat16 against float32 on a run's vectors and records.

For each model, runs the same evaluation twice (``stebkit.evaluate`` with ``dtype=
"float32"`` and ``dtype="bfloat16"``, on the same device), then prints:

- the least cosine between the two dtypes' vectors of every distinct text of the
  datasets (their smoke version with ``--smoke``), read back through the embedding cache
  the runs filled;
- the largest difference of a record's main metric between the two runs, and which
  record it is; the number of records compared.

Run: ``python benchmarks/bench_precision.py --suite lite --smoke --models
all-MiniLM-L6-v2`` (``--datasets`` names a subset instead of a suite; ``--device cuda``
on a GPU).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

DTYPES = ("float32", "bfloat16")


def least_cosine(model: str, datasets: list[str], smoke: bool, device: str | None) -> tuple:
    """The least cosine between float32 and bfloat16 vectors over the datasets' distinct
    texts, and their count."""
    from stebkit.datasets import load_dataset
    from stebkit.encoders import cached, get_encoder
    from stebkit.encoders.base import cosines

    texts = sorted({t for name in datasets
                    for t in load_dataset(name, smoke=smoke).frame["text"]})
    vectors = [cached(get_encoder(model, device=device, dtype=d)).encode(texts)
               for d in DTYPES]
    return float(cosines(*vectors).min()), len(texts)


def largest_difference(runs: list) -> tuple[float, str, int]:
    """The largest main-metric difference between the records of two runs (their
    :class:`~stebkit.records.results.Results`), its record, and the number of records
    both runs computed."""
    frames = [r.main_frame().set_index(["model", "dataset", "task", "episode_size"])["value"]
              for r in runs]
    both = frames[0].to_frame("a").join(frames[1].to_frame("b"), how="inner").dropna()
    diff = (both["a"] - both["b"]).abs()
    worst = diff.idxmax()
    return float(diff.max()), "/".join(map(str, worst)), len(both)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["all-MiniLM-L6-v2"])
    parser.add_argument("--suite", default=None)
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    from stebkit.datasets import list_datasets
    from stebkit.runs import evaluate

    datasets = args.datasets or list(list_datasets(suite=args.suite or "lite"))
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models:
            runs = []
            for dtype in DTYPES:
                start = time.perf_counter()
                runs.append(evaluate(model, datasets, smoke=args.smoke, dtype=dtype,
                                     device=args.device, output_dir=Path(tmp) / model / dtype,
                                     show_progress=False))
                print(f"{model} {dtype}: run in {time.perf_counter() - start:.0f} s",
                      flush=True)
            cos, n_texts = least_cosine(model, datasets, args.smoke, args.device)
            diff, where, n = largest_difference(runs)
            print(f"{model}: {len(datasets)} datasets{' (smoke)' if args.smoke else ''}, "
                  f"{n_texts} distinct texts, {n} records; bfloat16 against float32: least "
                  f"cosine {cos:.6f}, largest main-metric difference {diff:.4f} ({where})",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
