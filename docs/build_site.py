"""Build the stebkit website into ``build/site``: ``make docs``.

The site is made with MkDocs and the Material theme: plain Markdown pages, a static
site that needs no server and no network, and the two plug-ins the scientific Python
ecosystem maintains for what stebkit needs — ``mkdocs-jupyter`` renders executed
notebooks with their outputs and figures, ``mkdocstrings[python]`` renders the API
reference from the numpydoc docstrings. (Jupyter Book would do too, but pulls in Sphinx
and a larger tool chain for the same result.)

Steps:

1. every notebook ``notebooks/NN_*.ipynb`` is stored executed in full mode (``make
   figures``): ``--full``, the published site, renders the stored notebooks as they are.
   The default test build shows a fast-mode execution (``STEBKIT_FAST=1``) of a copy
   instead, and its page says so: a copy under ``.cache/executed/fast/`` whose code equals
   the stored notebook's (the notebook tests write them) is reused, otherwise the notebook
   is executed. A failing cell stops the build with the notebook, the cell number and the
   error. Each execution is shown as a reader elsewhere would see it (:func:`clean`: paths
   relative to the repository, the home folder as ``~``, no timing or widget state);
2. pages are generated into ``build/docs-src``: the README as home page, the guides of
   ``docs/pages`` (their links, written for GitHub, turned into the site's), the API and CLI
   references, the dataset catalogue, the leaderboard of ``make demo`` (from the
   committed ``docs/data/lite_leaderboard.csv``) beside the published one, the course page
   with the exercises and their (collapsed) solutions from ``docs/solutions``;
3. ``mkdocs build`` writes the site into ``build/site``, page by page as files
   (``api.html``), so that ``build/site/index.html`` opens in a browser without a server.

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
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = DOCS / "solutions"
EXECUTED = ROOT / ".cache" / "executed" / "fast"
"""The fast-mode executions of the notebooks, reused while their code is current."""
FAST_FIGURES = ROOT / ".cache" / "figures-fast"
"""Where fast-mode executions write their figures: ``figures/`` keeps the full-mode ones."""
SRC = ROOT / "build" / "docs-src"
SITE = ROOT / "build" / "site"
TEACHING_NOTEBOOKS = ("00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11",
                      "12")
"""Notebooks that end with exercises whose solutions live in ``docs/solutions``."""

API_MODULES = (
    ("stebkit", "The package"),
    ("stebkit.datasets", "Datasets"),
    ("stebkit.datasets.features", "Linguistic features"),
    ("stebkit.tasks", "Task families"),
    ("stebkit.encoders", "Encoders"),
    ("stebkit.records.record", "A result record"),
    ("stebkit.records.results", "Results folders"),
    ("stebkit.records.items", "Per-item values of a record"),
    ("stebkit.scores", "STEB scores and leaderboards"),
    ("stebkit.scores.quality", "Benchmark quality"),
    ("stebkit.plots", "Figures"),
    ("stebkit.suites", "Your own suites"),
    ("stebkit.runs.evaluation", "Evaluate"),
    ("stebkit.runs.engine", "Runner"),
    ("stebkit.names", "File names of models and datasets"),
    ("stebkit.sources", "Data sources"),
    ("stebkit.errors", "Errors"),
)
"""The modules the API page documents, in the order of the package's floors."""


HOME = Path.home()
MACHINE_PATHS = re.compile(r"(?<![\w.])(?:/work/|/root/|/home/|/Users/|/tmp/|[A-Z]:\\)")
"""An absolute path of some machine in an output."""
WIDGET = "application/vnd.jupyter.widget-view+json"
KERNEL_CELL_FILE = re.compile(
    r"(?:/tmp|/var/folders/[^/\s]+/[^/\s]+/T)/ipykernel_\d+/\d+\.py:\d+: ")
"""Where a kernel says a cell's own warning comes from: the cell's temporary file."""

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


def relative_paths(text: str, root: Path = ROOT, home: Path = HOME) -> str:
    """``text`` with paths under ``root`` relative to it and ``home`` shown as ``~``.

    >>> relative_paths("figures: /r/p/figures | results: /r/p", Path("/r/p"), Path("/h"))
    'figures: figures | results: .'
    >>> relative_paths("cache /h/.cache/stebkit", Path("/r/p"), Path("/h"))
    'cache ~/.cache/stebkit'
    >>> relative_paths("/tmp/ipykernel_7/123.py:2: UserWarning: few models", Path("/r"))
    'UserWarning: few models'
    """
    text = KERNEL_CELL_FILE.sub("", text)
    text = re.sub(re.escape(str(root)) + r"/", "", text)
    text = re.sub(re.escape(str(root)) + r"(?![\w/])", ".", text)
    return re.sub(re.escape(str(home)) + r"(?=/|\b)", "~", text)


def is_text(mime: str) -> bool:
    """Whether an output's ``data`` of type ``mime`` is text a reader sees (what
    :func:`clean` cleans), not an image.

    >>> [is_text(m) for m in ("text/plain", "application/json", "image/png")]
    [True, True, False]
    """
    return mime.startswith("text/") or mime.endswith("json")


def _clean_value(value: Any, root: Path, home: Path) -> Any:
    if isinstance(value, str):
        return relative_paths(value, root, home)
    if isinstance(value, list):
        return [_clean_value(v, root, home) for v in value]
    if isinstance(value, dict):
        return {k: _clean_value(v, root, home) for k, v in value.items()}
    return value


def clean(nb: dict, root: Path | None = None, home: Path | None = None) -> dict:
    """An executed notebook as a reader elsewhere sees it: relative paths in text outputs
    (:func:`relative_paths`; default: this repository and home folder), no timing, no
    widget views or state (images, base64 data, are left as they are).

    :func:`execute_notebook` writes every executed copy so: the site renders them as they
    are, and ``make figures`` stores them in ``notebooks/``.
    """
    root, home = ROOT if root is None else root, HOME if home is None else home
    nb.get("metadata", {}).pop("widgets", None)
    for cell in nb["cells"]:
        cell.get("metadata", {}).pop("execution", None)
        if "outputs" in cell:
            cell["outputs"] = [o for o in cell["outputs"] if WIDGET not in o.get("data", {})]
        for out in cell.get("outputs", []):
            if "text" in out:
                out["text"] = _clean_value(out["text"], root, home)
            for mime, data in out.get("data", {}).items():
                if is_text(mime):
                    out["data"][mime] = _clean_value(data, root, home)
            if out.get("output_type") == "error":
                out["traceback"] = _clean_value(out.get("traceback", []), root, home)
    return nb


def _errors(nb: dict) -> list[int]:
    return [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


def reusable_execution(path: Path) -> Path | None:
    """A fast-mode execution of ``path`` whose cells equal the stored notebook's."""
    copy = EXECUTED / path.name
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


def kernel_config(folder: Path) -> Any:
    """The configuration of the kernel that executes a notebook: it talks to this process
    through local sockets in ``folder`` (IPC), not over TCP, where the kernel prints a
    warning that its unencrypted traffic could be read.

    >>> config = kernel_config(Path("/run/k"))
    >>> config.AsyncKernelManager.transport, config.AsyncKernelManager.ip
    ('ipc', '/run/k/kernel')
    """
    from traitlets.config import Config

    config = Config()
    config.AsyncKernelManager.transport = "ipc"
    config.AsyncKernelManager.ip = str(folder / "kernel")
    return config


def execute_notebook(path: Path, *, full: bool, output: Path, timeout: int = 1800) -> Path:
    """Execute the code cells of ``path`` afresh (cwd: its folder; its stored outputs are
    dropped first) and write the executed copy, cleaned (:func:`clean`), to ``output``;
    ``path`` itself is only read.

    Raises :class:`BuildError` naming the notebook, the failing cell (1-based, as Jupyter
    shows it), the cell's first line and the error.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    from stebkit._io import write_text

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    failed: dict[str, int] = {}

    def on_error(cell, cell_index, execute_reply):  # nbclient hook
        failed.setdefault("index", cell_index)

    env = {"STEBKIT_FAST": "0" if full else "1"}
    if not full:  # fast-mode figures must not overwrite the full-mode ones in figures/
        env["STEBKIT_FIGURES"] = str(FAST_FIGURES)
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    sockets = tempfile.TemporaryDirectory(prefix="stebkit-kernel-")
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}},
                            on_cell_error=on_error, config=kernel_config(Path(sockets.name)))
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
        sockets.cleanup()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    write_text(output, nbformat.writes(clean(nb)))
    return output


def rendered_notebooks(*, full: bool, pattern: str = "[0-9][0-9]_*.ipynb") -> list[Path]:
    """The executed notebook the site renders for every notebook.

    ``full``: the stored notebooks themselves (``make figures`` executes them in full
    mode); one stored without outputs stops the build with its name. Otherwise a fast-mode
    execution of each: a reusable one (:func:`reusable_execution`; its markdown is taken
    from the stored notebook in :func:`generate`) or one made now.
    """
    paths = notebook_paths(pattern)
    if not paths:
        raise BuildError(f"no notebook matches notebooks/{pattern}")
    if full:
        bare = [p.name for p in paths if not any(
            c.get("outputs") for c in json.loads(p.read_text(encoding="utf-8"))["cells"])]
        if bare:
            raise BuildError(f"stored without outputs: {', '.join(bare)}; execute them in "
                             f"full mode with `make figures` before `make docs FULL=1`")
        return paths
    out = []
    for path in paths:
        copy = reusable_execution(path)
        if copy is None:
            start = time.perf_counter()
            print(f"executing {path.name} (fast mode) ...", flush=True)
            copy = execute_notebook(path, full=False, output=EXECUTED / path.name)
            print(f"  {path.name}: {time.perf_counter() - start:.0f} s", flush=True)
        else:
            print(f"reusing the fast-mode execution of {path.name}", flush=True)
        out.append(copy)
    return out


FAST_NOTE = ('<div class="admonition note"><p class="admonition-title">A fast-mode '
             'execution</p><p>This page shows the notebook executed in fast mode '
             '(<code>STEBKIT_FAST=1</code>: the smoke data, fewer models) for a test build; '
             'the published site shows its full-mode execution, the one stored in '
             '<code>notebooks/</code> (<code>make figures</code>, then '
             '<code>make docs FULL=1</code>).</p></div>')


# ----------------------------------------------------------------------------- pages

def _write(path: Path, text: str) -> None:
    from stebkit._io import write_text

    write_text(path, text)


GUIDES = (
    ("reliability.md", "Reliability guarantees"),
    ("cluster.md", "Cluster runs and costs"),
    ("style-model.md", "The offline style model"),
    ("offline.md", "Working offline"),
    ("data-sources.md", "Data sources and licences"),
    ("extending.md", "Adding datasets and models"),
    ("reference-recipe.md", "The reference's recipe"),
)
"""The guides in ``docs/pages`` (file, title in the navigation): the README gives each one
a paragraph and a link, the site a page of its own."""

README_LINKS = (("](DATA_LICENSES.md", "](data-licenses.md"), ("](docs/pages/", "]("))
"""How the README's links into the repository become links into the site."""
PAGE_LINKS = (("](../../README.md", "](index.md"),
              ("](../../DATA_LICENSES.md", "](data-licenses.md"),
              ("](../../notebooks/", "](notebooks/"))
"""How the links of a page in ``docs/pages`` (written to work on GitHub) become the site's."""


def site_links(text: str, name: str, links: tuple[tuple[str, str], ...] = PAGE_LINKS) -> str:
    """``text`` with its links into the repository replaced by links into the site
    (``links``: ``(old prefix, new prefix)``); a link that still leaves the folder of the
    pages stops the build, naming the page ``name`` and the link.

    >>> site_links("[home](../../README.md#citing-steb), [map](offline.md)", "x.md")
    '[home](index.md#citing-steb), [map](offline.md)'
    >>> site_links("[code](../../stebkit/cli/__init__.py)", "x.md")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    build_site.BuildError: x.md: the link(s) ../../stebkit/cli/__init__.py leave the site; ...
    """
    for old, new in links:
        text = text.replace(old, new)
    outside = re.findall(r"\]\((\.\./[^)\s]*)\)", text)
    if outside:
        raise BuildError(f"{name}: the link(s) {', '.join(outside)} leave the site; link a "
                         "page or a notebook, or name the file as code")
    return text


def home_page() -> str:
    """The README, with links into the repository turned into links into the site."""
    return site_links((ROOT / "README.md").read_text(encoding="utf-8"), "README.md",
                      README_LINKS)


def guide_page(name: str) -> str:
    """The page ``docs/pages/<name>`` with its links turned into the site's."""
    return site_links((DOCS / "pages" / name).read_text(encoding="utf-8"), name)


def package_folders() -> list[str]:
    """One line per folder of the package: its path and the first line of its docstring,
    so the list follows the tree."""
    import ast

    package = ROOT / "stebkit"
    lines = []
    for init in sorted(package.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        if doc:
            lines.append(f"- `stebkit/{init.parent.name}/` — {doc.splitlines()[0]}")
    return lines


def api_page() -> str:
    lines = ["# API reference", "",
             "Generated from the docstrings of the package (numpydoc style). Every public "
             "function carries a runnable example; the test suite runs them as doctests.", "",
             "## The package's folders", "", *package_folders(), ""]
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


def name_code(name: str) -> str:
    """``name`` as inline code that a narrow table column wraps only after a ``-`` or
    ``_`` (``<wbr>``; ``stebkit.css`` keeps the browser from breaking inside a word), so a
    dataset name never splits mid-word; HTML-escaped, and no ``|`` to split a row.

    >>> name_code("pan14_corpus1-test")
    '<code class="name">pan14&#95;<wbr>corpus1-<wbr>test</code>'
    """
    parts = re.split(r"(?<=[-_])(?=.)", name)
    return ('<code class="name">' + "<wbr>".join(
        html.escape(p).replace("_", "&#95;").replace("|", "&#124;") for p in parts)
        + "</code>")


def catalogue_page() -> str:
    """Every declared dataset, whether it reads pinned files or the Hub, and how many of
    them the configured cache or mirror holds (their files all there, so they load with no
    network on the machine that built the page)."""
    from stebkit.datasets import get_spec, is_available_offline, list_datasets
    from stebkit.escape import markdown_cell

    names = list_datasets()
    rows, n_pinned, n_here = [], 0, 0
    for name in names:
        spec = get_spec(name)
        pinned = spec.offline and not spec.source.is_hub
        n_pinned += pinned
        n_here += is_available_offline(spec)
        rows.append("| " + " | ".join([name_code(spec.name), *(markdown_cell(v) for v in (
            ", ".join(spec.tasks), ", ".join(spec.languages), spec.category,
            spec.license.name, "yes" if pinned else "no (Hub)", ", ".join(spec.suites)))])
            + " |")
    return "\n".join([
        "# Dataset catalogue", "",
        f"All {len(names)} datasets stebkit declares, generated from the registry "
        "(`stebkit datasets` prints the same table). *Pinned files* means the data come "
        "from files fetched by URL and checked against a recorded sha256, so they can be "
        "copied once into a cache or a mirror (`STEBKIT_MIRROR`) and read there with no "
        "network; *no (Hub)* means they are read from the Hugging Face Hub and need a "
        "network connection.", "",
        f"{n_pinned} of the {len(names)} read pinned files; {n_here} of the {len(names)} "
        "are present here, every file in the cache or mirror configured where this page "
        "was built (`stebkit datasets --verify` and `stebkit run` say what your own holds).",
        "",
        "| name | task | language | category | licence | pinned files | suites |",
        "|---|---|---|---|---|---|---|", *rows, ""])


LITE_LEADERBOARD = DOCS / "data" / "lite_leaderboard.csv"
"""The leaderboard of ``make demo`` (the offline zoo on the lite suite, full mode), raw
values as ``stebkit leaderboard results/lite --format csv`` writes them: ``make
leaderboard-data`` regenerates it from ``results/lite``."""

LITE_SUMMARY = DOCS / "data" / "lite_summary.txt"
"""What the CLI prints after the table of :data:`LITE_LEADERBOARD` (which differences are
significant, the rank tiers), written from the same records by ``make leaderboard-data``
(``stebkit leaderboard ... --summary``)."""

FIGURE1_NOTE = (
    "Each point's interval is the model's own 95 % bootstrap interval over datasets; a "
    "filled point is significantly above the chance level by the paired bootstrap, which "
    "resamples the same datasets for every model and so cancels what all models share "
    "(how hard each dataset is), as the statements above; an open one is not. The two "
    "can disagree either way: a model can be significantly above the chance level while "
    "its interval in this figure crosses the chance line, and a model's interval can lie "
    "above the chance line while the paired test does not resolve it (its lead over "
    "chance varies from dataset to dataset).")
"""The caption's note on Figure 1's markers and on why its intervals and the paired
significance can differ, in both directions."""

LITE_FIGURES = (
    ("steb_score", "lite_figure1_steb_by_category",
     "STEB score by model category, lite suite"),
    ("definitional_score", "lite_figure1_definitional_by_category",
     "Definitional score by model category, lite suite"),
)
"""``(score, file stem, caption)`` of the figures the leaderboard page draws from
:data:`LITE_LEADERBOARD`, so that they show the same run as its tables."""

LEADERBOARD_FIGURES = (
    ("06_published_figure1_steb_by_category.png",
     "STEB score by model category, published numbers"),
)
"""Committed figures (``figures/``) the leaderboard page shows after its own."""


def _table(board: Any, columns: list[str]) -> str:
    """``board[columns]`` as a Markdown table that fits the page: scores x 100 with their
    interval on a line of its own, best in bold, the chance level marked, headers with
    spaces and model names that may wrap after an underscore."""
    from stebkit.scores import to_markdown

    keep = [c for c in columns if c in board.columns and board[c].notna().any()]
    extra = [c for c in board.columns if c.endswith(("_ci_low", "_ci_high")) or c == "chance"]
    header, *rows = to_markdown(board[keep + extra]).splitlines()  # names escaped
    rows = [re.sub(r" \[([^],]+), ([^]]+)\]", r"<br>[\1,&nbsp;\2]", row).replace("_", "_<wbr>")
            for row in rows]
    return "\n".join([header.replace("_", " "), *rows])


def _shown(path: Path) -> str:
    """``path`` relative to the repository when inside it."""
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def read_lite_leaderboard(path: Path | None = None) -> Any:
    """The committed lite leaderboard (``path``: :data:`LITE_LEADERBOARD`), checked: a
    :class:`BuildError` names a missing file or column and the command that writes it."""
    import pandas as pd

    from stebkit.scores.published import TASK_COLUMNS, category_key

    path = LITE_LEADERBOARD if path is None else path
    name = _shown(path)
    fix = ("run `make demo` (the full offline evaluation, into results/lite), then "
           "`make leaderboard-data`")
    if not path.is_file():
        raise BuildError(f"leaderboard page: {name} is missing; {fix}")
    try:
        board = pd.read_csv(path)
    except (OSError, ValueError) as err:
        raise BuildError(f"leaderboard page: cannot read {name}: {err}; "
                         f"{fix}") from None
    need = {"rank", "model", "model_category", "steb_score", "steb_ci_low", "steb_ci_high",
            "definitional_score", "chance"}
    missing = sorted(need - set(board.columns))
    # a task family no dataset of the run serves has no column (the tables drop empty
    # ones): the page shows it empty
    board = board.reindex(columns=[*board.columns,
                                   *(c for c in TASK_COLUMNS if c not in board.columns)])
    if missing:
        raise BuildError(f"leaderboard page: {name} lacks the column(s) "
                         f"{missing}; {fix}")
    if not board["chance"].any():
        raise BuildError(f"leaderboard page: {name} has no chance-level "
                         f"row (the random baseline); {fix}")
    board["rank"] = board["rank"].astype("Int64")
    board["model_category"] = board["model_category"].map(category_key)  # label -> key
    return board


def chance_notes(board: Any) -> list[str]:
    """One Markdown sentence per STEB score on which the chance level (the random
    baseline) scores above some models, naming them (escaped).

    >>> import pandas as pd
    >>> board = pd.DataFrame({"model": ["a", "b", "random"], "chance": [False, False, True],
    ...                       "steb_score": [.6, .5, .4], "definitional_score": [.3, .5, .4]})
    >>> chance_notes(board)
    ['The chance level (random) scores above 1 of the 2 models on the definitional score: a.']
    """
    from stebkit.escape import markdown_cell

    chance, models = board[board["chance"]].iloc[0], board[~board["chance"]]
    out = []
    for score, label in (("steb_score", "operational STEB score"),
                         ("definitional_score", "definitional score")):
        below = models.loc[models[score] < chance[score], "model"].tolist()
        if below:  # the names through the Markdown escaper
            out.append(f"The chance level ({markdown_cell(chance['model'])}) scores above "
                       f"{len(below)} of the {len(models)} models on the {label}: "
                       f"{', '.join(map(markdown_cell, below))}.")
    return out


def summary_section(path: Path | None = None) -> list[str]:
    """The lines of the significance summary (:data:`LITE_SUMMARY`, Markdown with its
    names escaped as ``stebkit leaderboard --summary`` writes it), or one line naming the
    command that writes it when the file is not there.

    >>> summary_section(Path("missing.txt"))[0][:40]
    'The significance summary of this run is '
    """
    path = LITE_SUMMARY if path is None else path
    if not path.is_file():
        return [f"The significance summary of this run is not in `{_shown(path)}`: "
                "`make leaderboard-data` writes it beside the table."]
    lines = [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    if not lines:
        return []
    # the page's heading already asks the question: the first line keeps only how
    first = re.sub(r"^Which differences are significant \\?\((.+?)\\?\):$",
                   lambda m: m.group(1)[0].upper() + m.group(1)[1:] + ":", lines[0])
    out = [first, ""]
    for line in lines[1:]:  # a line after the list (the recipe) is a paragraph of its own
        if out[-1].startswith("- ") and not line.startswith("- "):
            out.append("")
        out.append(line)
    return out


def leaderboard_page() -> str:
    """The lite leaderboard of ``make demo`` (operational and definitional, with intervals
    and the chance level), the published leaderboard beside it, and their figures."""
    import stebkit
    from stebkit.datasets import get_spec, list_datasets
    from stebkit.escape import markdown_cell
    from stebkit.scores.published import (
        DEFINITIONAL_AXES,
        OBJECT_OF_STUDY,
        TASK_COLUMNS,
        source_note,
    )

    board = read_lite_leaderboard()
    pub = stebkit.published_leaderboard()
    chance = board[board["chance"]]
    models = board.loc[~board["chance"], "model"].tolist()
    definitional = board.sort_values(["chance", "definitional_score"],
                                     ascending=[True, False], kind="stable")
    both = board[~board["chance"]].merge(pub, on="model", suffixes=("", "_published"))
    beside = ["| model | lite rank | lite STEB score | published rank | published STEB score |",
              "|---|---|---|---|---|"]
    beside += [f"| {markdown_cell(r.model)} | {r.rank} | {r.steb_score * 100:.2f}<br>"
               f"[{r.steb_ci_low * 100:.2f},&nbsp;{r.steb_ci_high * 100:.2f}] | "
               f"{r.rank_published} | {r.steb_score_published * 100:.2f} |"
               for r in both.itertuples()]
    if both.empty:  # no table without rows
        beside = [f"None of the {len(models)} models of this run is on the published "
                  "leaderboard under its name, so no row sets the two side by side "
                  "(notebook 06 sets all-mpnet-base-v2's lite run beside its published row)."]
    lite = list_datasets(suite="lite")
    languages = {lang for name in lite for lang in get_spec(name).languages}
    lines = [
        "---", "hide: [toc]", "---", "",  # the tables take the width of the table of contents
        "# Leaderboard of the offline evaluation", "",
        f"The results of `make demo`: {len(models)} models of the offline zoo ranked on the "
        f"lite suite, in full mode, beside the random baseline (with it, the "
        f"{len(models) + 1} models whose results group the datasets; the reference's excluded "
        f"models, such as lftk, run but are not scored), on its {len(lite)} offline datasets "
        f"in {len(languages)} languages ("
        f"`{_shown(LITE_LEADERBOARD)}`, written from `results/lite` by "
        "`make leaderboard-data`). Scores are ×100; the STEB scores carry their 95 % "
        "bootstrap interval over datasets, the best of each column is in bold. The row "
        f"**{', '.join(map(markdown_cell, chance['model']))} (chance level)** is the random "
        "baseline: a "
        "reference line, not ranked; a score inside its interval is not better than "
        "chance." + ("" if "stebkit-style-minilm" in models else
                     " This run is without the trained style model (`stebkit train` adds "
                     "it to the zoo); the operational score depends on the set of models "
                     "compared, so the shared models score differently beside it."), "",
        "## Operational STEB score", "",
        "The mean of the six task families (each the mean of its groups of correlated "
        "datasets).", "",
        _table(board, ["rank", "model", "model_category", *TASK_COLUMNS, "steb_score"]), "",
        "## Which differences are significant", "",
        *summary_section(), "",
        "## Definitional STEB score", "",
        "The clusters of the object of study, the linguistic features and the content "
        "independence (best first). " + " ".join(chance_notes(board)), "",
        _table(definitional, ["model", *OBJECT_OF_STUDY, *DEFINITIONAL_AXES,
                              "definitional_score"]), "",
        "## Beside the published leaderboard", "",
        "The lite suite is not STEB: its datasets are the offline ones, so its scores are "
        "not ranked against the published numbers (`stebkit leaderboard RESULTS "
        "--published` ranks results of the STEB suite among them)." +
        (" The models of both:" if not both.empty else ""), "",
        *beside, "",
        f"The published leaderboard ({len(pub)} models; {source_note(pub.attrs['source'])}):",
        "",
        _table(pub, ["rank", "model", "model_category", *TASK_COLUMNS, "steb_score",
                     "definitional_score"]), ""]
    from stebkit import plots

    lines += ["## Figures", ""]
    for score, stem, caption in LITE_FIGURES:
        plots.figure1(board, score=score, stem=stem, directory=SRC / "figures",
                      title=caption)
        lines += [f"![{caption}](figures/{stem}.png)", "", f"*{caption}. {FIGURE1_NOTE}*", ""]
    for name, caption in LEADERBOARD_FIGURES:
        if (ROOT / "figures" / name).is_file():
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


NOTEBOOK_TIMES = DOCS / "data" / "notebook_times.csv"
"""How long each notebook takes, per mode, cold and warm: ``make notebook-times``
(``scripts/time_notebooks.py``) writes it."""


def times_section(path: Path | None = None) -> list[str]:
    """The course page's table of the notebooks' measured times (:data:`NOTEBOOK_TIMES`),
    or one line naming the command that measures them when the table is not there.

    >>> times_section(Path("missing.csv"))[2][:45]
    'The times are not measured in this checkout: '
    """
    import pandas as pd

    path = NOTEBOOK_TIMES if path is None else path
    head = ["## How long each notebook takes", ""]
    if not path.is_file():
        return head + ["The times are not measured in this checkout: `make notebook-times` "
                       "measures them (about 40 minutes on 2 cores, most of it full mode, where "
                       "notebook 11 trains its four ablation models).", ""]
    rows = pd.read_csv(path, dtype=str, keep_default_na=False)
    cell = {(r.notebook, r.mode): r for r in rows.itertuples()}
    names = sorted(set(rows["notebook"]))

    def memory(name: str) -> str:  # the peak of each mode, where measured
        peaks = [getattr(cell.get((name, m)), "peak_gb", "") or "—" for m in ("fast", "full")]
        return "— / —" if peaks == ["—", "—"] else " / ".join(peaks) + " GB"

    shown = [f"| {name.removesuffix('.ipynb')} | " + " | ".join(
        f"{duration(cell[name, m].cold_s)} | {duration(cell[name, m].warm_s)}"
        if (name, m) in cell else "— | —" for m in ("fast", "full")) + f" | {memory(name)} |"
        for name in names]
    quicker = [n.removesuffix(".ipynb")[:2] for n in names if (n, "fast") in cell
               and (n, "full") in cell and float(cell[n, "full"].cold_s)
               < float(cell[n, "fast"].cold_s)]
    when = ", ".join(sorted(set(rows["measured"])))
    return head + [
        f"Measured by `make notebook-times` ({when}) on {rows['cores'].iloc[0]} CPU cores, "
        "each notebook in a scratch copy of the project: first from an empty cache (data "
        "processed, texts encoded, models trained), then warm; the peak memory is the most "
        "the notebook's processes held at once over both runs. Full mode starts from the "
        "records of `make demo` (run first; its own time is not counted here)"
        + (f": notebooks {', '.join(quicker[:-1])}{' and ' * (len(quicker) > 1)}"
           f"{quicker[-1] if quicker else ''} take less in full mode than in fast mode, "
           "as full mode reads those records where fast mode computes a small run of its "
           "own" if quicker else "")
        + f". The load average at each start is in `{_shown(path)}`.", "",
        "| notebook | fast, empty cache | fast, warm | full, empty cache | full, warm "
        "| peak memory (fast / full) |",
        "|---|---|---|---|---|---|", *shown, ""]


def duration(seconds: float | str) -> str:
    """A time as a reader wants it: seconds under two minutes, else minutes.

    >>> duration(40.2), duration("130"), duration(3600 * 1.25)
    ('40 s', '2 min', '75 min')
    """
    s = float(seconds)
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min"


def teaching_page() -> str:
    text = guide_page("teaching.md")
    blocks = [*times_section(), "## Exercises and solutions", "",
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
    rendered = rendered_notebooks(full=full, pattern=pattern)
    if SRC.exists():
        shutil.rmtree(SRC)
    (SRC / "notebooks").mkdir(parents=True)
    (SRC / "figures").mkdir()
    nav = []
    for copy in rendered:
        nb = json.loads(copy.read_text(encoding="utf-8"))
        stored = json.loads((NOTEBOOKS / copy.name).read_text(encoding="utf-8"))
        for cell, current in zip(nb["cells"], stored["cells"], strict=True):
            if cell["cell_type"] == "markdown":
                cell["source"] = current["source"]
        if not full:
            nb["cells"].insert(1, {"cell_type": "markdown", "metadata": {},
                                   "source": FAST_NOTE})
        if copy.stem[:2] in TEACHING_NOTEBOOKS:
            nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source":
                                f"*Solutions: [Teaching stylometry with stebkit]"
                                f"(../teaching.html#{_anchor(nb)}) (collapsed).*"})
        _write(SRC / "notebooks" / copy.name, json.dumps(nb))
        nav.append({_title(nb): f"notebooks/{copy.name}"})
    shutil.copyfile(DOCS / "pages" / "stebkit.css", SRC / "stebkit.css")
    _write(SRC / "index.md", home_page())
    _write(SRC / "data-licenses.md", (ROOT / "DATA_LICENSES.md").read_text(encoding="utf-8"))
    _write(SRC / "teaching.md", teaching_page())
    _write(SRC / "api.md", api_page())
    _write(SRC / "cli.md", cli_page())
    _write(SRC / "datasets.md", catalogue_page())
    _write(SRC / "leaderboard.md", leaderboard_page())
    for name in ("about.md", *(name for name, _ in GUIDES)):
        _write(SRC / name, guide_page(name))
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
                {"Guides": [{title: name} for name, title in GUIDES]},
                {"Reference": [{"API": "api.md"}, {"Command line": "cli.md"},
                               {"Dataset catalogue": "datasets.md"},
                               {"Leaderboard": "leaderboard.md"},
                               {"Data licences": "data-licenses.md"},
                               {"About this site": "about.md"}]}],
    }
    cfg = SRC.parent / "mkdocs.yml"
    _write(cfg, yaml.safe_dump(config, sort_keys=False))
    # docs/ on the path: mkdocstrings loads the griffe extension docs/griffe_markup.py.
    path = os.pathsep.join(p for p in (str(DOCS), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=path)
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--clean", "-q", "-f",
                           str(cfg)], cwd=ROOT, capture_output=True, text=True, env=env)
    if proc.returncode:
        raise BuildError(f"mkdocs build failed:\n{proc.stdout}\n{proc.stderr}")
    for line in (proc.stdout + proc.stderr).splitlines():
        if line.startswith("WARNING"):
            print(line, flush=True)
    _repair_notebook_toc(site)
    _local_plotly(site)
    print(f"site written to {site}/index.html", flush=True)
    return site


_PLOTLY_CDN = re.compile(r'<script type="module">import "https://cdn\.plot\.ly/[^"]+"</script>'
                         r'|<script src="https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/[^"]+">'
                         r'</script>')
_PLOTLY_TAG = re.compile(r'<script\b[^>]*\bsrc="https://cdn\.plot\.ly/plotly-[^"]+"[^>]*>')
PLOTLY_JS = "assets/javascripts/plotly.min.js"
"""Where the site keeps plotly.js, so that interactive maps work offline and from file://."""


def _local_plotly(site: Path) -> None:
    """Serve plotly.js from the site itself: a notebook's interactive map loads it from a
    CDN, which an offline reader (or the browser test) cannot reach. The script tag points
    at the copy that the installed plotly ships; the module import of the same file and
    MathJax (the maps hold no formulas) are left out."""
    pages = [p for p in site.rglob("*.html") if "cdn.plot.ly" in p.read_text(encoding="utf-8")]
    if not pages:
        return
    from plotly.offline import get_plotlyjs

    _write(site / PLOTLY_JS, get_plotlyjs())
    for page in pages:
        local = os.path.relpath(site / PLOTLY_JS, page.parent)
        text = _PLOTLY_CDN.sub("", page.read_text(encoding="utf-8"))
        text = _PLOTLY_TAG.sub(f'<script charset="utf-8" src="{local}">', text)
        _write(page, text)


def _repair_notebook_toc(site: Path) -> None:
    """Point table-of-contents links of notebook pages at their headings.

    mkdocs-jupyter cuts a heading's anchor in the table of contents at inline code
    (``## 5. At once: `evaluate` `` gives ``#5-at-once`` while the heading's id is
    ``5-at-once-evaluate``); such a link is replaced by the one heading id it starts.
    """
    for page in (site / "notebooks").glob("*.html"):
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
    parser.add_argument("--full", action="store_true",
                        help="show the notebooks as stored, executed in full mode by "
                             "`make figures`: the published site (default: fast mode)")
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
