"""Figures: every plot writes a non-empty PDF and PNG and draws what it should."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402

from stebkit import plots  # noqa: E402


def _written(result: plots.Plot, stem: str) -> None:
    assert [p.name for p in result.paths] == [f"{stem}.pdf", f"{stem}.png"]
    pdf, png = result.paths
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 1000
    assert png.read_bytes().startswith(b"\x89PNG") and png.stat().st_size > 1000
    assert not list(pdf.parent.glob(".*.tmp"))  # atomic writes leave no temp files


@pytest.fixture
def board() -> pd.DataFrame:
    return pd.DataFrame({
        "model": ["s1", "s2", "e1", "e2", "b1"],
        "model_category": ["style", "style", "semantic", "semantic", "non_neural"],
        "clustering": [0.3, 0.2, 0.1, 0.15, 0.05],
        "retrieval": [0.7, 0.6, 0.4, 0.5, 0.3],
        "steb_score": [0.5, 0.4, 0.25, 0.325, 0.175],
        "steb_ci_low": [0.45, 0.35, 0.2, 0.3, 0.1],
        "steb_ci_high": [0.55, 0.45, 0.3, 0.35, 0.2],
    })


def test_figure1_groups_models_by_category(board, tmp_path):
    res = plots.figure1(board, directory=tmp_path)
    _written(res, "figure1_steb_by_category")
    ax = res.figure.axes[0]
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 3  # one errorbar series per category
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b1", "e1", "e2", "s2", "s1"]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["style", "semantic", "non_neural"]
    # category colours are the fixed ones
    colours = {c.lines[0].get_color() for c in bars}
    assert colours == {plots.CATEGORY_COLORS[k] for k in ("style", "semantic", "non_neural")}


def test_heatmap_from_leaderboard_and_main_frame(board, tmp_path):
    res = plots.task_heatmap(board, directory=tmp_path)
    _written(res, "task_heatmap")
    ax = res.figure.axes[0]
    assert len(ax.texts) == 10  # 5 models x 2 tasks annotated
    assert ax.images[0].get_array().shape == (5, 2)
    main = pd.DataFrame({"model": ["a", "a", "b", "b"], "dataset": ["x", "y", "x", "y"],
                         "task": "clustering", "value": [0.1, 0.3, 0.5, 0.7]})
    res = plots.task_heatmap(main, by="dataset", directory=None, stem="h2")
    assert res.paths == []
    arr = res.figure.axes[0].images[0].get_array()
    np.testing.assert_allclose(arr, [[50, 70], [10, 30]])  # best model first, x100


def test_roc_embedding_similarity_dimension_rank(tmp_path):
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(50), np.zeros(50)]
    res = plots.roc_curves({"good": (y, y + rng.normal(0, 0.5, 100)),
                            "chance": (y, rng.normal(size=100))}, directory=tmp_path)
    _written(res, "roc_curves")
    labels = [t.get_text() for t in res.figure.axes[0].get_legend().get_texts()]
    assert labels[0].startswith("good (AUC 0.") and labels[-1] == "chance"

    emb = np.r_[rng.normal(0, 1, (20, 8)), rng.normal(5, 1, (20, 8))].astype(np.float32)
    res = plots.embedding_map(emb, ["a"] * 20 + ["b"] * 20, method="pca", directory=tmp_path)
    _written(res, "embedding_map")
    scatters = [c for c in res.figure.axes[0].collections if isinstance(c, PathCollection)]
    assert len(scatters) == 2 and sum(len(s.get_offsets()) for s in scatters) == 40
    with pytest.raises(ValueError, match="method"):
        plots.embedding_map(emb, ["a"] * 40, method="tsne", directory=None)

    res = plots.similarity_distributions({"same style": rng.normal(0.6, 0.1, 200),
                                          "same content": rng.normal(0.3, 0.1, 200)},
                                         directory=tmp_path)
    _written(res, "similarity_distributions")
    assert len(res.figure.axes[0].get_legend().get_texts()) == 2

    curve = pd.DataFrame({"model": "m", "task": ["clustering"] * 3 + ["retrieval"] * 3,
                          "dim": [32, 64, 384] * 2, "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})
    res = plots.dimension_curve(curve, directory=tmp_path)
    _written(res, "dimension_curve")
    assert len(res.figure.axes[0].get_lines()) == 2

    table = pd.DataFrame({"model": ["a", "b", "c"], "score": [0.9, 0.85, 0.2],
                          "separable": [False, True, None], "tier": [1, 1, 2]})
    res = plots.rank_resolution(table, directory=tmp_path)
    _written(res, "rank_resolution")
    dashed = [ln for ln in res.figure.axes[0].get_lines() if ln.get_linestyle() == "--"]
    assert len(dashed) == 1


def test_save_rejects_paths_and_plot_displays(board, tmp_path):
    res = plots.figure1(board, directory=None)
    assert res._repr_png_().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="stem"):
        plots.save(res.figure, "a/b", tmp_path)
