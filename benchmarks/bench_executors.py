"""Sequential against local parallel runs: ``stebkit run`` with each executor, empty caches.

Each run is a fresh ``stebkit run`` process with its own empty ``STEBKIT_CACHE`` (data
read from ``STEBKIT_MIRROR`` and processed again, nothing encoded beforehand) and its own
results folder, so both pay the full cost of ``make demo``. Prints the wall time of each
and the ratio sequential / local, and the CPU seconds each run used (its processes and
their workers): CPU seconds / wall seconds is how many cores it kept busy, and CPU seconds
/ cores is the shortest that run's work could take on this machine. The timings depend
on the machine and on what else runs on it: compare the ratio, and repeat on a quiet
machine.

Run: ``python benchmarks/bench_executors.py [--quick] [--jobs 2] [--datasets a,b]
[--models m,n]`` (``--quick``: the smoke suite with two models instead of the lite suite
with the default zoo; ``--datasets``/``--models``: a part of the suite, to try the script
or to time a few representative datasets).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def records(results: Path) -> dict[str, dict]:
    """``{record path: record}`` of a results folder."""
    out = {}
    for path in results.rglob("*.json"):
        if not path.name.startswith(".") and "jobs" not in path.relative_to(results).parts[:1]:
            out[path.relative_to(results).as_posix()] = json.loads(path.read_text())
    return out


def breakdown(found: dict[str, dict], total: float) -> None:
    """Where a sequential run's time went, from its records: encoding (``encode_s``, once
    per model and dataset) and tasks (``runtime_s``: pooling, the task, the bootstrap;
    for encoders that embed whole episodes, their encoding too); the rest is loading and
    processing data, loading models and writing."""
    encode: dict[str, float] = {}
    tasks: dict[str, float] = {}
    per_model: dict[str, float] = {}
    seen = set()
    for rec in found.values():
        model, dataset = rec["model"]["name"], rec["dataset"]["name"]
        if "encode_s" in rec and (model, dataset) not in seen:
            seen.add((model, dataset))
            encode[model] = encode.get(model, 0.0) + rec["encode_s"]
            per_model[model] = per_model.get(model, 0.0) + rec["encode_s"]
        tasks[rec["task"]] = tasks.get(rec["task"], 0.0) + rec.get("runtime_s", 0.0)
        per_model[model] = per_model.get(model, 0.0) + rec.get("runtime_s", 0.0)
    enc, tsk = sum(encode.values()), sum(tasks.values())
    print(f"  encoding {enc:.0f} s: " + ", ".join(
        f"{m} {s:.0f}" for m, s in sorted(encode.items(), key=lambda x: -x[1])))
    print(f"  tasks {tsk:.0f} s: " + ", ".join(
        f"{t} {s:.0f}" for t, s in sorted(tasks.items(), key=lambda x: -x[1])))
    print("  per model (encoding and tasks): " + ", ".join(
        f"{m} {s:.0f}" for m, s in sorted(per_model.items(), key=lambda x: -x[1])))
    print(f"  the rest (data loading and processing, model loading, writing): "
          f"{total - enc - tsk:.0f} s")


def run(label: str, extra: list[str], suite: str, models: list[str] | None,
        datasets: list[str] | None = None) -> tuple[float, dict[str, dict]]:
    """One ``stebkit run`` from empty caches: its wall time in seconds, and the metrics of
    each record (for a sequential run, also where the time went)."""
    with tempfile.TemporaryDirectory(prefix="stebkit-bench-") as tmp:
        env = {**os.environ, "STEBKIT_CACHE": str(Path(tmp) / "cache"),
               "NUMBA_CACHE_DIR": str(Path(tmp) / "numba")}
        cmd = [sys.executable, "-m", "stebkit", "run", "--suite", suite, "--output",
               str(Path(tmp) / "results"), "--figures", str(Path(tmp) / "figures"),
               "--no-progress", *extra]
        if models:
            cmd += ["--models", *models]
        if datasets:
            cmd += ["--datasets", *datasets] + (["--smoke"] if suite == "smoke" else [])
        start, cpu = time.perf_counter(), _children_cpu()
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu
        if out.returncode not in (0, 1):  # 1: some result failed, still a full run
            sys.exit(f"{label} run failed ({out.returncode}):\n{out.stderr[-3000:]}")
        found = records(Path(tmp) / "results")
        failed = [r for r in found.values() if r.get("status") == "failed"]
        if failed:  # a run with failed units did not do the work: its time means nothing
            reasons = sorted({r.get("error", "")[:300] for r in failed})
            sys.exit(f"{label} run: {len(failed)} of {len(found)} units failed, so its time "
                     f"is not a measurement; fix the first reason and rerun:\n  "
                     + "\n  ".join(reasons[:3]))
        cores = os.cpu_count() or 1
        print(f"{label:<28} {seconds:8.1f} s  ({seconds / 60:.1f} min, {len(found)} records)",
              flush=True)
        print(f"  CPU {cpu:.0f} s: {cpu / seconds:.2f} of {cores} cores busy on average; "
              f"this work takes at least {cpu / cores:.0f} s ({cpu / cores / 60:.1f} min) "
              f"on {cores} cores", flush=True)
        if not extra:
            breakdown(found, seconds)
        return seconds, {k: r.get("metrics") or {} for k, r in found.items()}


def _children_cpu() -> float:
    """User and system CPU seconds of the finished child processes (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _names(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="smoke suite, random and tfidf-char only")
    parser.add_argument("--jobs", type=int, default=2, help="local workers (default 2)")
    parser.add_argument("--only", choices=("sequential", "local"),
                        help="run one executor only")
    parser.add_argument("--datasets", type=_names, help="comma-separated datasets of the "
                        "suite to run instead of all of them")
    parser.add_argument("--models", type=_names, help="comma-separated models instead of "
                        "the default zoo")
    args = parser.parse_args()
    suite = "smoke" if args.quick else "lite"
    models = args.models or (["random", "tfidf-char"] if args.quick else None)
    if args.datasets:
        from stebkit.datasets import list_datasets

        unknown = sorted(set(args.datasets) - set(list_datasets(suite=suite)))
        if unknown:
            sys.exit(f"--datasets: {unknown} are not in the {suite} suite")
    what = f"--datasets {' '.join(args.datasets)}" if args.datasets else f"--suite {suite}"
    print(f"stebkit run {what}{' --models ' + ' '.join(models) if models else ''}, empty "
          f"caches, {os.cpu_count()} CPU(s); load average at start: "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    times, found = {}, {}
    if args.only != "local":
        times["sequential"], found["sequential"] = run("sequential", [], suite, models,
                                                       args.datasets)
    if args.only != "sequential":
        times["local"], found["local"] = run(f"local --jobs {args.jobs}",
                                             ["--executor", "local", "--jobs", str(args.jobs)],
                                             suite, models, args.datasets)
    if len(times) == 2:
        print(f"ratio sequential / local: {times['sequential'] / times['local']:.2f}")
        a, b = found["sequential"], found["local"]
        same = [k for k in a if a[k] == b.get(k)]
        print(f"records with identical metrics: {len(same)} of {len(a)} "
              f"(local wrote {len(b)})")
        for k in sorted(set(a) - set(same))[:10]:
            diff = {m: (a[k].get(m), b.get(k, {}).get(m)) for m in a[k]
                    if a[k].get(m) != b.get(k, {}).get(m)}
            print(f"  differs: {k}: {dict(list(diff.items())[:3])}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
