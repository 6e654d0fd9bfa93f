"""Every line written for a format passes the one escaper of that format (issue 42,
item 6): hostile model names and a hostile results folder go through every output of a
leaderboard — the terminal table and its summary, the Markdown tables and footer, the
LaTeX tables (compiled), the CSV, the ``--summary`` file, the website's page and its
sentences, and Figure 1."""

from __future__ import annotations

import csv
import io
import re
import warnings

import pytest
from result_records import result_record
from test_paper_tables import compile_tables

from stebkit import cli, plots
from stebkit.records.results import Results, record_path, write_record

HOSTILE = ["<img src=x onerror=alert(1)>", "[x](javascript:alert(1))",
           '=HYPERLINK("e.vil")', "a|b", "r&d", "50%", "$x$"]
TASKS = {"clustering": (("argugpt-generator", "brown-genre"), "v_measure"),
         "all_to_all_pairs": (("argugpt-generator", "brown-genre"), "auc"),
         "predefined_pairs": (("eltec-eng-verification",), "auc"),
         "retrieval": (("eltec-eng-retrieval", "sotu-retrieval"), "mrr"),
         "order_alignment": (("asset-simplification",), "distractor_acc_mean"),
         "probing": (("informal-formality",), "accuracy")}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """Records of the hostile models and the chance level (above the first four), in a
    folder with a hostile name."""
    root = tmp_path_factory.mktemp("hostile") / "r&d_%$#"
    models = {"random": 0.5, **{m: 0.2 + 0.08 * k for k, m in enumerate(HOSTILE)}}
    for model, base in models.items():
        for j, (task, (datasets, metric)) in enumerate(TASKS.items()):
            for k, dataset in enumerate(datasets):  # two in some tasks: intervals
                rec = result_record(model, dataset, task, main=metric,
                                    **{metric: base + 0.01 * j + 0.02 * k})
                write_record(record_path(root, model, dataset, task, 1), rec)
    return root


def _run(capsys, *argv: str) -> tuple[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few models for the correlation grouping
        assert cli.main(["leaderboard", *argv]) == 0
    out = capsys.readouterr()
    return out.out, out.err


def _markdown_is_inert(text: str) -> None:
    """No tag, no link, no row split by a name: each name only as the escaper writes it."""
    assert "<img src" not in text and "](javascript" not in text and "&lt;img" in text
    assert r"\[x\]\(javascript:alert\(1\)\)" in text and r"a\|b" in text
    assert "r&d" not in text and "r&amp;d" in text


def test_the_markdown_tables_and_footer_escape_names(hostile, capsys):
    out, _ = _run(capsys, str(hostile), "--format", "md")
    _markdown_is_inert(out)
    footer = out.split("\n\nWhich differences are significant", 1)[1]
    assert footer.count(r"a\|b") >= 2 and not re.search(r"(?<!\\)\|", footer)
    for table in (t for t in out.split("\n\n") if t.startswith("|")):
        widths = {len(re.findall(r"(?<!\\)\|", line)) for line in table.splitlines()}
        assert len(widths) == 1, table


def test_the_summary_file_is_markdown_with_names_escaped(hostile, tmp_path, capsys):
    summary = tmp_path / "summary.txt"
    _run(capsys, str(hostile), "--format", "csv", "--output", str(tmp_path / "b.csv"),
         "--summary", str(summary))
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("Which differences are significant")
    _markdown_is_inert(text)


def test_the_latex_tables_compile_with_hostile_names_and_folder(hostile, tmp_path, capsys):
    tex, err = _run(capsys, str(hostile), "--format", "latex")
    assert r"50\%" in tex and r"\$x\$" in tex
    assert "r\\&d" not in " ".join(re.findall(r"\\caption\{.*\}", tex))  # names the run
    compile_tables(tex, tmp_path)  # a name that were LaTeX would stop pdflatex
    assert "Which differences are significant" in err  # the summary off stdout


def test_the_terminal_shows_names_as_they_are(hostile, capsys):
    out, _ = _run(capsys, str(hostile))
    for name in HOSTILE:
        assert name in out
    assert max(map(len, out.splitlines())) <= 100


def test_the_csv_runs_no_formula(hostile, capsys):
    out, _ = _run(capsys, str(hostile), "--format", "csv")
    cells = [c for row in csv.reader(io.StringIO(out)) for c in row]
    assert "'=HYPERLINK(\"e.vil\")" in cells
    assert all(not c.startswith(("=", "+", "@")) for c in cells)


def test_the_website_writes_names_and_sentences_escaped(hostile, tmp_path, capsys,
                                                        monkeypatch):
    import repo_scripts

    build_site = repo_scripts.load("docs/build_site.py")
    board_csv, summary = tmp_path / "lite.csv", tmp_path / "summary.txt"
    _run(capsys, str(hostile), "--format", "csv", "--output", str(board_csv),
         "--summary", str(summary))
    monkeypatch.setattr(build_site, "LITE_LEADERBOARD", board_csv)
    monkeypatch.setattr(build_site, "LITE_SUMMARY", summary)
    monkeypatch.setattr(build_site, "SRC", tmp_path / "src")
    (tmp_path / "src" / "figures").mkdir(parents=True)
    page = build_site.leaderboard_page()
    _markdown_is_inert(page)
    notes = build_site.chance_notes(build_site.read_lite_leaderboard(board_csv))
    assert notes and all("<img src" not in n and "](javascript" not in n for n in notes)
    assert any(r"a\|b" in n for n in notes)  # the chance level scores above them


def test_figure1_draws_names_as_text(hostile, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from stebkit import scores

        board = scores.leaderboard(Results.load(hostile), n_resamples=50)
    fig = plots.figure1(board, directory=tmp_path, stem="hostile").figure
    labels = {t.get_text(): t for ax in fig.axes for t in ax.get_yticklabels()}
    assert "$x$" in labels and not labels["$x$"].get_parse_math()  # never drawn as math
