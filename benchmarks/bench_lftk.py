"""CPU seconds of the LFTK work a suite run does, before and after the feature store.

``make demo`` runs LFTK in three places: each process that builds the UD EWT probing
datasets measures their texts (``stebkit.datasets.features.lftk_features``: a worker builds its
datasets itself), and the ``lftk`` baseline measures every text it encodes (a text that
recurs in a dataset, 8,765 texts of which 6,900 distinct in the lite suite, and the
probing texts again). This script runs that pattern on real paragraphs (NLTK's inaugural
addresses): ``--processes`` builds of a probing table over ``--texts`` paragraphs, then
the baseline's features of the same paragraphs with a quarter of them repeated, once with
the code of ``--base`` (no store: every call analyses its texts) and once with this tree's
(a store in a fresh temporary folder, read anew by each simulated process). It prints the
CPU seconds (``time.process_time``) of each side, best of ``--rounds`` interleaved
rounds, their ratio, and whether the two sides' tables are identical.

Run: ``python benchmarks/bench_lftk.py [--texts 120] [--processes 3] [--rounds 2]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE_STORE = "539c81b"
"""The last revision whose LFTK features had no store."""


def old_features(base: str):
    """The LFTK features module as it is at git revision ``base`` (where it was
    ``stebkit/features.py`` or is ``stebkit/datasets/features.py``), as a separate module."""
    for where in ("stebkit/datasets/features.py", "stebkit/features.py"):
        shown = subprocess.run(["git", "show", f"{base}:{where}"], cwd=ROOT,
                               capture_output=True, text=True)
        if shown.returncode == 0:
            break
    else:
        raise SystemExit(f"no LFTK features module at git revision {base!r}")
    source = shown.stdout
    folder = Path(tempfile.mkdtemp())
    path = folder / "stebkit_features_base.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("stebkit_features_base", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def workload(module, texts: list[str], processes: int, probing: list[str]) -> tuple:
    """The suite's pattern of calls; returns (CPU seconds, the tables)."""
    repeated = texts + texts[: len(texts) // 4]
    start = time.process_time()
    tables = [module.lftk_features(texts, features=probing) for _ in range(processes)]
    tables.append(module.lftk_features(repeated, features="foundation"))
    return time.process_time() - start, tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=120)
    parser.add_argument("--processes", type=int, default=3,
                        help="processes that build the probing datasets")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--base", default=BEFORE_STORE,
                        help="git revision of the code before (default: before the store)")
    args = parser.parse_args()
    from stebkit.datasets import features as new
    from stebkit.datasets.probing_sets import PROBING_FEATURES
    from stebkit.encoders.baselines import reference_corpus

    old = old_features(args.base)
    texts = reference_corpus()[: args.texts]
    probing = ["t_word", *PROBING_FEATURES]
    old.lftk_features(texts[:2])  # load the pipelines before timing
    new.lftk_features(texts[:2], cache=False)
    best = {"before": float("inf"), "after": float("inf")}
    for _ in range(args.rounds):
        seconds, before = workload(old, texts, args.processes, probing)
        best["before"] = min(best["before"], seconds)
        with tempfile.TemporaryDirectory() as cache:
            os.environ["STEBKIT_CACHE"] = cache
            seconds, after = workload(new, texts, args.processes, probing)
        best["after"] = min(best["after"], seconds)
    same = all(a.equals(b) for a, b in zip(before, after, strict=True))
    print(f"{args.texts} inaugural paragraphs (+{args.texts // 4} repeated), probing tables "
          f"built by {args.processes} processes, best of {args.rounds} interleaved rounds")
    print(f"  before ({args.base}): {best['before']:7.2f} CPU s")
    print(f"  after (this tree): {best['after']:7.2f} CPU s")
    print(f"  after / before {best['after'] / best['before']:.2f}  "
          f"(CPU seconds saved: {1 - best['after'] / best['before']:.0%}); "
          f"tables identical: {same}")


if __name__ == "__main__":
    sys.exit(main())
