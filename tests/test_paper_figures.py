"""Figures for a paper (issue 42, item 5): TrueType fonts in every PDF (no Type 3, which
IEEE PDF eXpress and ACM's checks refuse), significance marked in Figure 1 itself and a
caption that covers both directions in which the paired test and a model's own interval
can disagree, ``n/a (1 dataset)`` instead of a zero-width interval, and a suite of one's
own that shows no empty definitional columns and calls its score by its name."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pymupdf
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure

from stebkit import plots, scores

FIGURES = Path(__file__).resolve().parents[1] / "figures"


def type3_fonts(path: Path) -> list[str]:
    """The Type 3 fonts a PDF embeds (pymupdf's font list: name and type per font)."""
    with pymupdf.open(path) as doc:
        return sorted({font[3] for page in doc for font in page.get_fonts()
                       if font[2] == "Type3"})


def _board(values: dict[str, list[float]], task: str = "retrieval", **options):
    rows = [(m, f"d{k}", task, v) for m, vs in values.items() for k, v in enumerate(vs)]
    frame = pd.DataFrame(rows, columns=["model", "dataset", "task", "value"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few models
        return scores.leaderboard(frame, grouping="fixed", min_tasks=1,  # one task
                                  **options)


CHANCE = [0.1] * 7 + [0.9]
BOARD = {"random": CHANCE,
         "steady": [c + 0.02 for c in CHANCE],  # always just above: a wide own interval
         "uneven": [0.35] * 8,  # above chance's mean, below it on one dataset
         "strong": [c + 0.3 for c in CHANCE]}


def test_a_freshly_saved_figure_embeds_truetype_fonts(tmp_path):
    fig = Figure()  # drawn outside the stebkit style: the PDF still gets TrueType
    fig.add_subplot().set_title("Figure 1: STEB score")
    [pdf] = plots.save(fig, "plain", tmp_path, formats=("pdf",))
    assert type3_fonts(pdf) == []
    board = _board(BOARD, n_resamples=200)
    pdfs = [p for p in plots.figure1(board, directory=tmp_path, stem="f1").paths
            if p.suffix == ".pdf"]
    assert pdfs and all(type3_fonts(p) == [] for p in pdfs)
    with pymupdf.open(pdfs[0]) as doc:
        assert any(f[1] == "ttf" for page in doc for f in page.get_fonts())


def test_no_pdf_in_figures_has_a_type3_font():
    pdfs = sorted(FIGURES.glob("*.pdf"))
    assert pdfs, f"no PDF in {FIGURES}"
    with_type3 = [p.name for p in pdfs if type3_fonts(p)]
    assert not with_type3, (f"{len(with_type3)} of {len(pdfs)} PDFs embed Type 3 fonts "
                            f"(regenerate them: make figures): {with_type3[:5]}")


def test_figure1_marks_significance_and_its_caption_covers_both_directions():
    board = _board(BOARD, n_resamples=500)
    above = plots.above_chance(board)
    assert above == {"strong": True, "steady": True, "uneven": False}
    ax = plots.figure1(board, directory=None).figure.axes[0]
    ys = {t.get_text(): y for t, y in zip(ax.get_yticklabels(), ax.get_yticks(),
                                          strict=True)}
    open_at = [y for c in ax.collections if isinstance(c, PathCollection)
               and len(c.get_offsets()) and np.allclose(c.get_facecolors()[:, :3], 1.0)
               for _, y in c.get_offsets()]
    assert open_at == [ys["uneven"]]  # open: not above chance by the paired test
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "not significantly above chance" in legend
    caption = plots.figure1_caption(board)
    rows = board.set_index("model")
    assert rows.at["steady", "steb_ci_low"] < rows.at["random", "steb_score"]
    assert rows.at["uneven", "steb_ci_low"] > rows.at["random", "steb_score"]
    assert ("Significantly above chance while its interval crosses the chance line: "
            "steady." in caption)
    assert "Interval above the chance line, not significantly above chance: uneven." \
        in caption


def test_one_dataset_per_task_gives_no_interval():
    board = _board({"random": [0.1], "a": [0.5], "b": [0.3], "c": [0.2]}, n_resamples=100)
    # the bootstrap gives ci_low = ci_high = score: the frame and its CSV leave them empty
    assert board[["steb_ci_low", "steb_ci_high"]].isna().all().all()
    csv = pd.read_csv(io.StringIO(scores.csv_text(board)))
    assert csv["steb_ci_low"].isna().all() and csv["steb_score"].notna().all()
    assert "n/a (1 dataset)" in scores.to_text(board) and "[50.00, 50.00]" not in \
        scores.to_text(board) + scores.to_markdown(board) + scores.to_latex(board)
    assert "- STEB score: significance n/a (1 dataset per task: nothing to resample)" in \
        scores.leaderboard_summary(board)
    ax = plots.figure1(board, directory=None).figure.axes[0]
    assert "n/a (1 dataset)" in ax.get_xlabel()
    assert not any(len(c.get_segments()) for c in ax.collections
                   if hasattr(c, "get_segments"))  # no whiskers
    assert plots.above_chance(board) is None and "n/a (1 dataset" in \
        plots.figure1_caption(board)


def test_a_suite_of_ones_own_shows_its_score_and_no_empty_columns():
    from stebkit.cli.leaderboard import render

    values = {"random": [0.1, 0.2, 0.3], "a": [0.6, 0.5, 0.7], "b": [0.4, 0.3, 0.5],
              "c": [0.3, 0.35, 0.4]}
    board = _board(values, task="classification", n_resamples=100)
    assert board["genre"].isna().all()  # no definitional cluster
    assert scores.score_name(board, "my-suite") == "my-suite score"
    text = render(board, "text", suite="my-suite")
    assert text.splitlines()[0].split()[-2:] == ["my-suite", "score"]
    assert "STEB" not in text and "Genre" not in text and "Def." not in text
    md = render(board, "md")
    assert "| suite score |" in md and "STEB" not in md


@pytest.mark.parametrize("name", ["STEB score", "my-suite score"])
def test_figure1_names_its_score(name):
    board = _board(BOARD, n_resamples=50)
    ax = plots.figure1(board, directory=None, score_name=name).figure.axes[0]
    assert ax.get_xlabel().startswith(name + " (×100)")
