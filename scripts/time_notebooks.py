"""Measure how long each notebook takes, in fast and full mode, from an empty cache and
warm: the times the notebooks' opening cells and the course page state.

Each measurement executes a notebook as a student runs it (``docs/build_site.py``'s
execution: a kernel, the notebook's folder as working folder), in a scratch copy of the
project so that nothing of this checkout changes:

1. the scratch project holds copies of ``notebooks/`` and ``figures/`` (what a notebook
   writes stays there), links to the rest of the repository (``examples/``,
   ``pyproject.toml``, ...), an empty ``results/`` — except, in full mode,
   a copy of ``results/lite``, the records of ``make demo`` that full-mode notebooks read
   (a student runs ``make demo`` first) — and an empty ``STEBKIT_CACHE``;
2. the notebook runs twice: the first run from the empty cache (*cold*: data processed,
   texts encoded, models trained), the second with what the first left (*warm*); the
   peak memory of the two (``peak_gb``: the most that the notebook's kernel and the
   processes it starts held resident at once, sampled every 0.2 s from ``/proc``, so
   measured on Linux only) is kept beside the times;
3. each pair of times is written at once into the table (``docs/data/notebook_times.csv``,
   atomically), so an interrupted measurement keeps what it measured and a rerun measures
   only what is missing (``--again`` measures anew).

``--write`` puts the table's times into the opening cell of every notebook (its source
only: outputs are left as they are); the course page reads the table when the site is
built.

Usage: ``python scripts/time_notebooks.py [--modes fast full] [--notebooks 00 07 ...]
[--again] [--write]``.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import functools
import importlib.util
import io
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from stebkit._io import write_text

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
TABLE = ROOT / "docs" / "data" / "notebook_times.csv"
BUILDER = ROOT / "docs" / "build_site.py"
COLUMNS = ("notebook", "mode", "cold_s", "warm_s", "peak_gb", "cores", "load_at_start",
           "measured")
SCRATCH_SKIP = {"notebooks", "results", "figures", ".cache", "course", "build", ".git", ".venv"}
"""Top-level entries of the repository the scratch project does not link to (it has its own
copies: a notebook writes its figures and results there, never over tracked files)."""
TIME_SENTENCE = re.compile(r"(?:Measured on 2 CPU cores|Time on \d+ CPU cores)"
                           r"[^\n]*(?:\n(?!\n)[^\n]*)*")
"""The sentence of a notebook's opening cell that states its times (up to the paragraph's
end)."""


@functools.cache
def site_builder() -> Any:
    """``docs/build_site.py``, whose :func:`execute_notebook` runs a notebook in a kernel."""
    spec = importlib.util.spec_from_file_location("build_site", BUILDER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_table(path: Path | None = None) -> dict[tuple[str, str], dict[str, str]]:
    """The measured rows by ``(notebook, mode)`` of the table (default: :data:`TABLE`;
    empty when there is no table yet)."""
    path = TABLE if path is None else path
    if not path.is_file():
        return {}
    rows = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))
    return {(r["notebook"], r["mode"]): r for r in rows}


def write_table(rows: dict[tuple[str, str], dict[str, str]], path: Path | None = None) -> None:
    """Write the table (default: :data:`TABLE`) atomically, rows sorted."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows[key] for key in sorted(rows))
    write_text(TABLE if path is None else path, out.getvalue())


def scratch_project(folder: Path, *, full: bool) -> Path:
    """A project in ``folder`` in which a notebook runs as in this one, writing only there
    (step 1 of the module docstring); returns its ``notebooks/``."""
    for entry in ROOT.iterdir():
        if entry.name not in SCRATCH_SKIP:
            (folder / entry.name).symlink_to(entry)
    shutil.copytree(NOTEBOOKS, folder / "notebooks")
    if (ROOT / "figures").is_dir():
        shutil.copytree(ROOT / "figures", folder / "figures")
    (folder / "results").mkdir()
    if full and (ROOT / "results" / "lite").is_dir():
        shutil.copytree(ROOT / "results" / "lite", folder / "results" / "lite")
    return folder / "notebooks"


def tree_rss(pid: int) -> int:
    """Bytes resident in the processes below ``pid`` (its children, theirs, ...), read
    from ``/proc`` (0 where there is none)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):  # a process that ended meanwhile
            continue
        children.setdefault(parent, []).append(int(stat.parent.name))
    total, todo = 0, list(children.get(pid, []))
    while todo:
        child = todo.pop()
        todo += children.get(child, [])
        try:
            total += int(Path(f"/proc/{child}/statm").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total * os.sysconf("SC_PAGE_SIZE") if total else 0


class PeakMemory:
    """The most bytes the processes below this one hold resident at once while the
    ``with`` block runs (:func:`tree_rss`, sampled every ``every`` seconds)."""

    def __init__(self, every: float = 0.2) -> None:
        self.every, self.peak = every, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(self.every):
            self.peak = max(self.peak, tree_rss(os.getpid()))

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


def measure(name: str, mode: str) -> dict[str, str]:
    """Run notebook ``name`` (``00_quickstart.ipynb``) twice in ``mode`` in a scratch
    project, from an empty cache and then warm; the table row of both times."""
    full = mode == "full"
    with tempfile.TemporaryDirectory(prefix="stebkit-timing-") as scratch:
        notebooks = scratch_project(Path(scratch), full=full)
        env = {"STEBKIT_CACHE": str(Path(scratch) / "cache"),
               "STEBKIT_FIGURES": str(Path(scratch) / "figures")}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        load, times = os.getloadavg()[0], []
        try:
            with PeakMemory() as memory:
                for run in ("cold", "warm"):
                    start = time.perf_counter()
                    site_builder().execute_notebook(notebooks / name, full=full,
                                                    output=Path(scratch) / f"{run}.ipynb",
                                                    timeout=6 * 3600)
                    times.append(time.perf_counter() - start)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    return {"notebook": name, "mode": mode, "cold_s": f"{times[0]:.0f}",
            "warm_s": f"{times[1]:.0f}", "peak_gb": f"{memory.peak / 1e9:.1f}",
            "cores": str(os.cpu_count()),
            "load_at_start": f"{load:.1f}", "measured": datetime.date.today().isoformat()}


def time_sentence(rows: dict[tuple[str, str], dict[str, str]], name: str) -> str:
    """What a notebook's opening cell says of its times, from the table's rows.

    >>> row = {"cold_s": "130", "warm_s": "40", "peak_gb": "1.2", "cores": "2",
    ...        "measured": "2026-12-03"}
    >>> time_sentence({("07_x.ipynb", "fast"): row}, "07_x.ipynb")  # doctest: +NORMALIZE_WHITESPACE
    'Time on 2 CPU cores (`scripts/time_notebooks.py`, 2026-12-03): fast mode 2 min from an
    empty cache, 40 s warm, at most 1.2 GB of memory; full mode not measured yet.'
    """
    parts, cores, date = [], "2", ""
    for mode in ("fast", "full"):
        row = rows.get((name, mode))
        if row is None:
            parts.append(f"{mode} mode not measured yet")
            continue
        cores, date = row["cores"], max(date, row["measured"])
        cold, warm = (site_builder().duration(row[k]) for k in ("cold_s", "warm_s"))
        after = " (after `make demo`, whose records it reads)" if mode == "full" else ""
        memory = f", at most {row['peak_gb']} GB of memory" if row.get("peak_gb") else ""
        parts.append(f"{mode} mode{after} {cold} from an empty cache, {warm} warm{memory}")
    return (f"Time on {cores} CPU cores (`scripts/time_notebooks.py`, {date}): "
            + "; ".join(parts) + ".")


def write_times(rows: dict[tuple[str, str], dict[str, str]]) -> list[str]:
    """Put each notebook's time sentence into its opening cell (source only); returns the
    notebooks whose opening cell has no time sentence to replace."""
    missing = []
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        first = "".join(nb["cells"][0]["source"])
        if not TIME_SENTENCE.search(first):
            missing.append(path.name)
            continue
        found = TIME_SENTENCE.search(first)
        text = first[:found.start()] + time_sentence(rows, path.name) + first[found.end():]
        nb["cells"][0]["source"] = text.splitlines(keepends=True)
        write_text(path, json.dumps(nb, indent=1, ensure_ascii=False))
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", nargs="+", choices=("fast", "full"), default=["fast", "full"])
    parser.add_argument("--notebooks", nargs="+", default=[], metavar="NN",
                        help="notebook numbers (default: all)")
    parser.add_argument("--again", action="store_true", help="measure rows already measured")
    parser.add_argument("--write", action="store_true",
                        help="write the table's times into the notebooks' opening cells")
    args = parser.parse_args(argv)
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    names = [p.name for p in paths if not args.notebooks or p.name[:2] in args.notebooks]
    rows, failed = read_table(), []
    for name in names:
        for mode in args.modes:
            if (name, mode) in rows and not args.again:
                continue
            print(f"timing {name} in {mode} mode (cold, then warm) ...", flush=True)
            try:
                rows[name, mode] = measure(name, mode)
            except site_builder().BuildError as err:
                failed.append(f"{name} ({mode}): {err}")
                continue
            write_table(rows)
            row = rows[name, mode]
            cold, warm = (site_builder().duration(row[k]) for k in ("cold_s", "warm_s"))
            print(f"  {cold} cold, {warm} warm", flush=True)
    if args.write:
        for name in write_times(rows):
            print(f"warning: {name} has no time sentence in its opening cell", file=sys.stderr)
    for line in failed:
        print(f"error: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
