"""Build the stebkit website: ``make docs`` (fast mode) or ``make docs FULL=1`` (full mode).

The site is made with MkDocs and the Material theme: plain Markdown pages, a static
site that needs no server and no network, and the two plug-ins the scientific Python
ecosystem maintains for what stebkit needs — ``mkdocs-jupyter`` renders executed
notebooks with their outputs and figures, ``mkdocstrings[python]`` renders the API
reference from the numpydoc docstrings. (Jupyter Book would do too, but pulls in Sphinx
and a larger tool chain for the same result.)

Steps:

1. every notebook ``notebooks/NN_*.ipynb`` is executed in fast (``STEBKIT_FAST=1``) or full
   mode; an executed copy under ``.cache/executed/<mode>/`` whose cells equal the stored
   notebook's (written by the notebook tests or ``make figures``) is reused instead. A
   failing cell stops the build with the notebook, the cell number and the error;
2. pages are generated into ``build/docs-src``: the README as home page, the API and CLI
   references, the dataset catalogue, the leaderboard of the offline evaluation, the
   course page with the exercises and their (collapsed) solutions from ``docs/solutions``;
3. ``mkdocs build`` writes the site into ``build/site`` (open ``build/site/index.html``).

Usage: ``python docs/build_site.py [--full] [--site DIR] [--notebooks GLOB]``.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = DOCS / "solutions"
EXECUTED = ROOT / ".cache" / "executed"
SRC = ROOT / "build" / "docs-src"
SITE = ROOT / "build" / "site"
TEACHING_NOTEBOOKS = ("00", "01", "02", "03", "04", "05", "07", "08")
"""Notebooks that end with exercises whose solutions live in ``docs/solutions``."""

API_MODULES = (
    ("stebkit", "The package"),
    ("stebkit.datasets", "Datasets"),
    ("stebkit.encoders", "Encoders"),
    ("stebkit.tasks", "Task families"),
    ("stebkit.runner", "Runner"),
    ("stebkit.results", "Result records"),
    ("stebkit.scores", "STEB scores and leaderboards"),
    ("stebkit.plots", "Figures"),
    ("stebkit.suites", "Your own suites"),
    ("stebkit.quality", "Benchmark quality"),
    ("stebkit.features", "Linguistic features"),
    ("stebkit.sources", "Data sources"),
    ("stebkit.errors", "Errors"),
)


class BuildError(RuntimeError):
    """The site cannot be built; the message names the notebook, cell or page at fault."""


# ----------------------------------------------------------------------------- notebooks

def notebook_paths(pattern: str = "[0-9][0-9]_*.ipynb") -> list[Path]:
    """The numbered notebooks, in order."""
    return sorted(NOTEBOOKS.glob(pattern))


def _source(cell: dict) -> str:
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def _cells_signature(nb: dict) -> list[tuple[str, str]]:
    """Cell types and code: an execution stays valid when only markdown changes."""
    return [(c["cell_type"], _source(c) if c["cell_type"] == "code" else "")
            for c in nb["cells"]]


def _errors(nb: dict) -> list[int]:
    return [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


def reusable_execution(path: Path, mode: str) -> Path | None:
    """An executed copy of ``path`` in ``mode`` whose cells equal the stored notebook's."""
    copy = EXECUTED / mode / path.name
    if not copy.is_file():
        return None
    try:
        executed = json.loads(copy.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    stored = json.loads(path.read_text(encoding="utf-8"))
    if _cells_signature(executed) != _cells_signature(stored) or _errors(executed):
        return None
    has_outputs = any(c.get("outputs") for c in executed["cells"] if c["cell_type"] == "code")
    return copy if has_outputs else None


def execute_notebook(path: Path, *, full: bool, output: Path, timeout: int = 1800) -> Path:
    """Execute ``path`` (cwd: its folder) and write the executed copy to ``output``.

    Raises :class:`BuildError` naming the notebook, the failing cell (1-based, as Jupyter
    shows it), the cell's first line and the error.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    from stebkit._io import write_text

    nb = nbformat.read(path, as_version=4)
    failed: dict[str, int] = {}

    def on_error(cell, cell_index, execute_reply):  # nbclient hook
        failed.setdefault("index", cell_index)

    env = {"STEBKIT_FAST": "0" if full else "1"}
    if not full:  # fast-mode figures must not overwrite the full-mode ones in figures/
        env["STEBKIT_FIGURES"] = str(ROOT / ".cache" / "figures-fast")
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}},
                            on_cell_error=on_error)
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError) as err:
        index = failed.get("index")
        if index is None:
            index = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                          and any(o.get("output_type") == "error" for o in c.outputs)), -1)
        cell = nb.cells[index] if index >= 0 else None
        first = cell.source.strip().splitlines()[0] if cell and cell.source.strip() else ""
        ename = getattr(err, "ename", type(err).__name__)
        evalue = (getattr(err, "evalue", "") or str(err).strip().splitlines()[-1])[:500]
        raise BuildError(f"{path.relative_to(ROOT)}: cell {index + 1} ({first!r}) failed: "
                         f"{ename}: {evalue}") from None
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    write_text(output, nbformat.writes(nb))
    return output


def executed_notebooks(*, full: bool, pattern: str = "[0-9][0-9]_*.ipynb") -> list[Path]:
    """Executed copies of every notebook: reused when their code is current, executed
    otherwise (markdown is taken from the stored notebook in :func:`generate`)."""
    mode = "full" if full else "fast"
    out = []
    paths = notebook_paths(pattern)
    if not paths:
        raise BuildError(f"no notebook matches notebooks/{pattern}")
    for path in paths:
        copy = reusable_execution(path, mode)
        if copy is None:
            start = time.perf_counter()
            print(f"executing {path.name} ({mode} mode) ...", flush=True)
            copy = execute_notebook(path, full=full, output=EXECUTED / mode / path.name)
            print(f"  {path.name}: {time.perf_counter() - start:.0f} s", flush=True)
        else:
            print(f"reusing the {mode}-mode execution of {path.name}", flush=True)
        out.append(copy)
    return out


# ----------------------------------------------------------------------------- pages

def _write(path: Path, text: str) -> None:
    from stebkit._io import write_text

    write_text(path, text)


def home_page() -> str:
    """The README, with links into the repository turned into links into the site."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    # The site's own pages replace the README's pointers to the repository.
    return (text.replace("](DATA_LICENSES.md)", "](data-licenses.md)")
            .replace("](docs/pages/teaching.md)", "](teaching.md)"))


def api_page() -> str:
    lines = ["# API reference", "",
             "Generated from the docstrings of the package (numpydoc style). Every public "
             "function carries a runnable example; the test suite runs them as doctests.", ""]
    for module, title in API_MODULES:
        lines += [f"## {title}: `{module}`", "", f"::: {module}",
                  "    options:", "      show_root_heading: false", "      heading_level: 3", ""]
    return "\n".join(lines)


def cli_page() -> str:
    from stebkit.cli import build_parser

    parser = build_parser()
    lines = ["# Command line reference", "",
             "Generated from the `stebkit` argument parser (`stebkit --help`, "
             "`stebkit COMMAND --help`).", "", "```text", parser.format_help().rstrip(), "```",
             ""]
    subparsers = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, sub in subparsers.choices.items():
        lines += [f"## `stebkit {name}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def _md_cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def catalogue_page() -> str:
    from stebkit.datasets import get_spec, list_datasets

    names = list_datasets()
    rows, n_off = [], 0
    for name in names:
        spec = get_spec(name)
        offline = spec.offline and not spec.source.is_hub
        n_off += offline
        rows.append("| " + " | ".join(_md_cell(v) for v in (
            f"`{spec.name}`", ", ".join(spec.tasks), ", ".join(spec.languages), spec.category,
            spec.license.name, "yes" if offline else "no (Hub)", ", ".join(spec.suites))) + " |")
    return "\n".join([
        "# Dataset catalogue", "",
        f"All {len(names)} datasets stebkit declares, generated from the registry "
        "(`stebkit datasets` prints the same table, with whether each one's files are "
        "present on this machine). *Offline* means the data come from pinned files "
        "(fetched once with a checksum, or read from `STEBKIT_MIRROR`); *no (Hub)* means "
        "they are read from the Hugging Face Hub and need a network connection.", "",
        f"{n_off} of the {len(names)} load offline.", "",
        "| name | task | language | category | licence | offline | suites |",
        "|---|---|---|---|---|---|---|", *rows, ""])


def leaderboard_page(*, full: bool) -> str:
    import stebkit
    from stebkit.results import Results
    from stebkit.scores import to_markdown

    suite = "lite" if full else "smoke"
    root = ROOT / "results" / suite
    if not root.is_dir() or not any(root.rglob("*.json")):
        raise BuildError(f"leaderboard page: no result records in {root.relative_to(ROOT)}; "
                         "they are written by notebooks/06_leaderboard.ipynb, which the build "
                         "executes first (remove .cache/executed to run it again)")
    import logging
    import warnings

    logging.getLogger("stebkit").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        results = Results.load(root)
        board = stebkit.leaderboard(results)
    frame = results.main_frame()
    models, datasets = frame["model"].unique(), frame["dataset"].unique()
    intro = ("the **full** offline evaluation: the offline model zoo on the lite suite "
             "(notebook 06 in full mode, the same as `make demo`)" if full else
             "the **fast** build: notebook 06 in fast mode, a handful of quick models on "
             "datasets of the smoke suite, without clustering. `make docs FULL=1` builds "
             "this page from the full offline evaluation")
    lines = ["# Leaderboard of the offline evaluation", "",
             f"This page shows {intro}. {len(models)} models, {len(datasets)} datasets, "
             f"records in `results/{suite}`. Scores are ×100; the STEB score carries its 95 % "
             "bootstrap interval; columns after it are the definitional clusters.", "",
             to_markdown(board), ""]
    figures = [("06_figure1_steb_by_category.png", "Figure 1: STEB score by model category"),
               ("06_task_heatmap.png", "Main metric per task family")]
    shown = [(f, c) for f, c in figures if (ROOT / "figures" / f).is_file()]
    if shown:
        lines += ["## Figures of the full run", "",
                  "The figures of the full offline evaluation, as committed in `figures/` by "
                  "`make figures`:", ""]
        for name, caption in shown:
            shutil.copyfile(ROOT / "figures" / name, SRC / "figures" / name)
            lines += [f"![{caption}](figures/{name})", "", f"*{caption}.*", ""]
    return "\n".join(lines)


_EXERCISE = re.compile(r"^# %% (Exercise \d+.*)$", re.MULTILINE)


def solution_sections(path: Path) -> list[tuple[str, str]]:
    """``(title, code)`` of each ``# %% Exercise N`` section of a solution file."""
    text = path.read_text(encoding="utf-8")
    parts = _EXERCISE.split(text)
    return [(parts[i].strip(), parts[i + 1].strip("\n")) for i in range(1, len(parts), 2)]


def exercises_cell(nb: dict) -> str:
    """The ``## Exercises`` section of the notebook's last markdown cell that has one."""
    for cell in reversed(nb["cells"]):
        src = _source(cell)
        if cell["cell_type"] == "markdown" and "## Exercises" in src:
            return src[src.index("## Exercises"):]
    raise BuildError(f"notebook {nb.get('_name', '?')}: no '## Exercises' markdown cell")


def teaching_page() -> str:
    text = (DOCS / "pages" / "teaching.md").read_text(encoding="utf-8")
    blocks = ["## Exercises and solutions", "",
              "Each teaching notebook ends with its exercises. The solutions below are "
              "collapsed: try first. Each one runs on its own (the test suite runs them in "
              "fast mode); the files are in `docs/solutions/`.", ""]
    for prefix in TEACHING_NOTEBOOKS:
        (path,) = notebook_paths(f"{prefix}_*.ipynb")
        nb = json.loads(path.read_text(encoding="utf-8"))
        nb["_name"] = path.name
        title = "".join(nb["cells"][0]["source"]).splitlines()[0].lstrip("# ").strip()
        exercises = exercises_cell(nb).split("\n", 1)[1].strip()
        solution = SOLUTIONS / f"{path.stem}.py"
        if not solution.is_file():
            raise BuildError(f"{path.name}: no solution file docs/solutions/{solution.name}")
        blocks += [f"### {title}", "", f"Notebook: [{path.stem}](notebooks/{path.name})", "",
                   exercises, ""]
        for name, code in solution_sections(solution):
            blocks += [f'??? success "Solution — {html.escape(name)}"', "",
                       "    ```python"]
            blocks += [("    " + line).rstrip() for line in code.splitlines()]
            blocks += ["    ```", ""]
    return text.rstrip() + "\n\n" + "\n".join(blocks)


def generate(*, full: bool, pattern: str = "[0-9][0-9]_*.ipynb") -> list[dict[str, str]]:
    """Write every page into ``build/docs-src``; returns the nav entries of the notebooks."""
    executed = executed_notebooks(full=full, pattern=pattern)
    if SRC.exists():
        shutil.rmtree(SRC)
    (SRC / "notebooks").mkdir(parents=True)
    (SRC / "figures").mkdir()
    nav = []
    for copy in executed:
        nb = json.loads(copy.read_text(encoding="utf-8"))
        stored = json.loads((NOTEBOOKS / copy.name).read_text(encoding="utf-8"))
        for cell, current in zip(nb["cells"], stored["cells"], strict=True):
            if cell["cell_type"] == "markdown":
                cell["source"] = current["source"]
        # Widget state (progress bars) would make the page load the widget manager from a
        # CDN; without it the outputs show their plain-text form, and the site stays offline.
        nb["metadata"].pop("widgets", None)
        if copy.stem[:2] in TEACHING_NOTEBOOKS:
            nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source":
                                f"*Solutions: [Teaching stylometry with stebkit]"
                                f"(../../teaching/#{_anchor(nb)}) (collapsed).*"})
        _write(SRC / "notebooks" / copy.name, json.dumps(nb))
        nav.append({_title(nb): f"notebooks/{copy.name}"})
    _write(SRC / "index.md", home_page())
    _write(SRC / "data-licenses.md", (ROOT / "DATA_LICENSES.md").read_text(encoding="utf-8"))
    _write(SRC / "teaching.md", teaching_page())
    _write(SRC / "api.md", api_page())
    _write(SRC / "cli.md", cli_page())
    _write(SRC / "datasets.md", catalogue_page())
    _write(SRC / "leaderboard.md", leaderboard_page(full=full))
    _write(SRC / "about.md", (DOCS / "pages" / "about.md").read_text(encoding="utf-8"))
    return nav


def _title(nb: dict) -> str:
    """The notebook's first heading, up to its colon: ``00 · Quickstart``."""
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            for line in _source(cell).splitlines():
                if line.startswith("# "):
                    return line[2:].split(":")[0].strip()
    return "notebook"


def _anchor(nb: dict) -> str:
    title = "".join(nb["cells"][0]["source"]).splitlines()[0].lstrip("# ").strip()
    slug = re.sub(r"[^\w\s-]", "", title.lower()).strip()
    return re.sub(r"[\s]+", "-", slug)


def build(*, full: bool = False, site: Path = SITE, pattern: str = "[0-9][0-9]_*.ipynb") -> Path:
    """Execute the notebooks, generate the pages and build the site; returns ``site``."""
    nav_notebooks = generate(full=full, pattern=pattern)
    import yaml

    config = {
        "INHERIT": os.path.relpath(DOCS / "mkdocs.yml", SRC.parent),
        "docs_dir": os.path.relpath(SRC, SRC.parent),
        "site_dir": os.path.relpath(site, SRC.parent),
        "nav": [{"Home": "index.md"},
                {"Teaching stylometry with stebkit": "teaching.md"},
                {"Notebooks": nav_notebooks},
                {"Reference": [{"API": "api.md"}, {"Command line": "cli.md"},
                               {"Dataset catalogue": "datasets.md"},
                               {"Leaderboard": "leaderboard.md"},
                               {"Data licences": "data-licenses.md"},
                               {"About this site": "about.md"}]}],
    }
    cfg = SRC.parent / "mkdocs.yml"
    _write(cfg, yaml.safe_dump(config, sort_keys=False))
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--clean", "-q", "-f",
                           str(cfg)], cwd=ROOT, capture_output=True, text=True, env=env)
    if proc.returncode:
        raise BuildError(f"mkdocs build failed:\n{proc.stdout}\n{proc.stderr}")
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.startswith("WARNING"):
            print(line, flush=True)
    _repair_notebook_toc(site)
    print(f"site written to {site}/index.html", flush=True)
    return site


def _repair_notebook_toc(site: Path) -> None:
    """Point table-of-contents links of notebook pages at their headings.

    mkdocs-jupyter cuts a heading's anchor in the table of contents at inline code
    (``## 5. At once: `evaluate` `` gives ``#5-at-once`` while the heading's id is
    ``5-at-once-evaluate``); such a link is replaced by the one heading id it starts.
    """
    for page in (site / "notebooks").rglob("index.html"):
        text = page.read_text(encoding="utf-8")
        ids = set(re.findall(r'\bid="([^"]+)"', text))

        def fix(match: re.Match, ids: set[str] = ids) -> str:
            anchor = match.group(1)
            if anchor in ids:
                return match.group(0)
            candidates = [i for i in ids if i.startswith(anchor + "-")]
            return f'href="#{candidates[0]}"' if len(candidates) == 1 else match.group(0)

        fixed = re.sub(r'href="#([^"]+)"', fix, text)
        if fixed != text:
            _write(page, fixed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="execute notebooks in full mode")
    parser.add_argument("--site", type=Path, default=SITE, help="output folder of the site")
    parser.add_argument("--notebooks", default="[0-9][0-9]_*.ipynb",
                        help="glob of the notebooks to include (default: all)")
    args = parser.parse_args(argv)
    try:
        build(full=args.full, site=args.site.resolve(), pattern=args.notebooks)
    except BuildError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
