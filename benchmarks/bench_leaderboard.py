"""``stebkit leaderboard --format latex`` on a results folder, this tree against a baseline
revision, in one run: seconds, catalogues made, records read through the catalogue, and
calls that cross from one of stebkit's files to another.

Each side runs the command in its own checkout (the baseline's is a temporary ``git
worktree``) on the same folder, the two sides taking turns ``--repeat`` times, so that a
shared machine loads them alike; the medians of wall and CPU seconds (the process's user
plus system time, from ``wait4``) are compared. A last run of each side, in process,
counts how many :class:`stebkit.records.catalogue.Catalogue` objects are made, how many
record views they compute, and how many calls go from a function in one file of
``stebkit/`` to a function in another (the route a record takes to its LaTeX cell),
those between ``records/results.py`` and ``records/catalogue.py`` apart. Both sides must
print the same numbers; the tables may differ in layout where it changed after the baseline
(99493d3 puts Retrieval before Order, names the folder in its captions, marks other bests).

Run: ``python benchmarks/bench_leaderboard.py [--results results/lite] [--baseline
99493d3] [--repeat 3]`` (the folder ``make demo`` writes: 1,089 records).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "99493d3"
"""The revision before each record's view and each frame were computed once."""

COUNT = r"""
import io, json, sys, contextlib
from stebkit.cli import main
from stebkit.records import catalogue
made = {"catalogues": 0, "views": 0, "cross_file_calls": 0, "results_catalogue_calls": 0}
class Counted(catalogue.Catalogue):
    def __init__(self):
        made["catalogues"] += 1
        super().__init__()
    def view(self, record):
        made["views"] += 1
        return super().view(record)
catalogue.Catalogue = Counted
here = sys.argv[2] + "/stebkit/"
pair = {"records/results.py", "records/catalogue.py"}
def hook(frame, event, arg):
    if event != "call" or frame.f_back is None:
        return
    callee, caller = frame.f_code.co_filename, frame.f_back.f_code.co_filename
    if callee != caller and callee.startswith(here) and caller.startswith(here):
        made["cross_file_calls"] += 1
        if {callee[len(here):], caller[len(here):]} == pair:
            made["results_catalogue_calls"] += 1
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    sys.setprofile(hook)
    main(["leaderboard", sys.argv[1], "--format", "latex"])
    sys.setprofile(None)
print(json.dumps(made))
"""
"""The in-process count of one side (run with the folder and the checkout as arguments)."""


def environment(tree: Path, scratch: Path) -> dict[str, str]:
    """The environment of one side: its checkout first on the path, its own cache."""
    return {**os.environ, "PYTHONPATH": str(tree), "STEBKIT_CACHE": str(scratch),
            "MPLBACKEND": "Agg"}


def timed(tree: Path, scratch: Path, results: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of ``stebkit leaderboard`` in ``tree``, and the table it printed."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "stebkit", "leaderboard", str(results),
                             "--format", "latex"], cwd=tree, env=environment(tree, scratch),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read().decode("utf-8")
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"stebkit leaderboard failed in {tree} (exit status "
                         f"{os.waitstatus_to_exitcode(status)})")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, out


def counted(tree: Path, scratch: Path, results: Path) -> dict[str, int]:
    """The in-process counts of one side (:data:`COUNT`)."""
    done = subprocess.run([sys.executable, "-c", COUNT, str(results), str(tree)], cwd=tree,
                          env=environment(tree, scratch), capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def numbers(table: str) -> Counter:
    """How often each number with a decimal point occurs in a table (its layout aside).

    >>> numbers(r"1 & a & \\textbf{19.61} & 56.75 \\\\ 2 & b & 56.75 & 8.01") == Counter(
    ...     {"56.75": 2, "19.61": 1, "8.01": 1})
    True
    """
    return Counter(re.findall(r"-?\d+\.\d+", table))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "lite")
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    results = args.results.resolve()
    n = sum(1 for p in results.glob("*/*/*.json") if p.relative_to(results).parts[0] != "jobs")
    if not n:
        raise SystemExit(f"no result records in {results}: run `make demo` first, or pass "
                         "--results FOLDER")
    scratch = Path(tempfile.mkdtemp(prefix="stebkit-bench-leaderboard-"))
    trees = {"baseline": scratch / "baseline-tree", "this tree": ROOT}
    subprocess.run(["git", "worktree", "add", "--detach", str(trees["baseline"]),
                    args.baseline], cwd=ROOT, check=True, capture_output=True)
    try:
        runs: dict[str, list[tuple[float, float, str]]] = {name: [] for name in trees}
        for _ in range(args.repeat):
            for name, tree in trees.items():
                runs[name].append(timed(tree, scratch / name, results))
        counts = {name: counted(tree, scratch / name, results) for name, tree in trees.items()}
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(trees["baseline"])],
                       cwd=ROOT, capture_output=True)
    tables = [runs[name][-1][2] for name in trees]
    same = tables[0] == tables[1]
    same_numbers = numbers(tables[0]) == numbers(tables[1])
    wall = {k: statistics.median(r[0] for r in v) for k, v in runs.items()}
    cpu = {k: statistics.median(r[1] for r in v) for k, v in runs.items()}
    print(f"stebkit leaderboard --format latex on {n:,} records ({results.name}), median of "
          f"{args.repeat} turns each, {os.cpu_count()} CPUs")
    for name in trees:
        label = f"baseline {args.baseline}" if name == "baseline" else name
        c = counts[name]
        print(f"  {label:17s}: {wall[name]:6.2f} s wall {cpu[name]:6.2f} CPU s   "
              f"catalogues {c['catalogues']}, views {c['views']:,}, calls across files "
              f"{c['cross_file_calls']:,} ({c['results_catalogue_calls']:,} between "
              "results and catalogue)")
    print(f"  this tree / baseline: wall {wall['this tree'] / wall['baseline']:.2f}, CPU "
          f"{cpu['this tree'] / cpu['baseline']:.2f}; the same table: {same}, the same "
          f"numbers: {same_numbers}")


if __name__ == "__main__":
    main()
