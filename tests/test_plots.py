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
    _written(plots.Plot(res.figure, res.paths[:2]), "figure1_steb_by_category")
    _written(plots.Plot(None, res.paths[2:]), "figure1_steb_by_category_column")
    from matplotlib.image import imread  # a page (7 in) and a column (3.5 in) at 300 dpi

    assert [imread(p).shape[1] for p in res.paths[1::2]] == [2100, 1050]
    column = plots.figure1(board, directory=None, width="column").figure
    assert column.get_size_inches()[0] == plots.COLUMN_WIDTH and column.legends == []
    assert column.axes[0].get_legend()._loc == 9  # upper center: below the axes
    ax = res.figure.axes[0]
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 3  # one errorbar series per category
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b1", "e1", "e2", "s2", "s1"]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["style", "semantic", "non-neural"]  # the labels readers see everywhere
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
    labels = [t.get_text() for t in res.figure.legends[0].get_texts()]
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
    assert len(res.figure.legends[0].get_texts()) == 2

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


# ---------------------------------------------------------------- sizes for a paper
def _names(n: int, stem: str) -> list[str]:
    return [f"{stem}-{i:02d}-{'x' * (i % 7)}" for i in range(n)]


def _leaderboard(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(n)
    cats = ["style", "semantic", "masked_lm", "causal_lm", "non_neural"]
    score = rng.uniform(0.2, 0.6, n)
    return pd.DataFrame({"model": _names(n, "sentence-transformers/model"),
                         "model_category": [cats[i % 5] for i in range(n)],
                         "clustering": rng.uniform(0, 1, n), "retrieval": rng.uniform(0, 1, n),
                         "steb_score": score, "steb_ci_low": score - 0.05,
                         "steb_ci_high": score + 0.05, "chance": [False] * (n - 1) + [True]})


def _main_frame(n_models: int, n_datasets: int) -> pd.DataFrame:
    rng = np.random.default_rng(n_datasets)
    models, sets = _names(n_models, "model"), _names(n_datasets, "eltec-eng-authorship")
    frame = pd.DataFrame([{"model": m, "task": "retrieval", "dataset": d,
                           "value": rng.uniform(0.1, 0.9)} for m in models for d in sets])
    return frame.assign(ci_low=frame["value"] - 0.05, ci_high=frame["value"] + 0.05)


def _figures() -> dict[str, list[plots.Plot]]:
    """Every public plotting function on small and on large inputs (a published-size
    leaderboard, a per-dataset heat map of many datasets)."""
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(30), np.zeros(30)]
    emb = rng.normal(size=(60, 8))
    curve = pd.DataFrame({"model": np.repeat(_names(4, "model"), 4), "task": "retrieval",
                          "dim": [32, 64, 128, 384] * 4, "score": rng.uniform(size=16)})
    ranks = pd.DataFrame({"model": _names(45, "model"), "score": np.linspace(0.9, 0.1, 45),
                          "tier": np.arange(45) // 3, "separable": [False, False, True] * 15})
    views = pd.DataFrame({"model": _names(6, "paraphrase-MiniLM"),
                          "bible_style_auc": rng.uniform(size=6),
                          "synthetic_style_auc": rng.uniform(size=6),
                          "synthetic_distractor_acc": rng.uniform(size=6)})
    matrix = pd.DataFrame(rng.normal(size=(12, 30)), columns=_names(30, "brown-genre"))
    out = {
        "figure1": [plots.figure1(_leaderboard(5), directory=None),
                    plots.figure1(_leaderboard(41), directory=None, mark_best=True,
                                  title="published")],
        "task_heatmap": [plots.task_heatmap(_leaderboard(12), directory=None),
                         plots.task_heatmap(_main_frame(12, 50), by="dataset", directory=None),
                         plots.task_heatmap(_main_frame(3, 150), by="dataset", directory=None),
                         plots.task_heatmap(_main_frame(40, 45), by="dataset", directory=None)],
        "style_content_heatmap": [plots.style_content_heatmap(views, directory=None)],
        "grouping_figures": [*plots.grouping_figures(matrix.iloc[:, :4], directory=None),
                             *plots.grouping_figures(matrix, task="t", directory=None)],
        "roc_curves": [plots.roc_curves({f"model-{i}": (y, y + rng.normal(0, i + 1, 60))
                                         for i in range(4)}, directory=None,
                                        title="eltec-eng-verification: four models, ROC")],
        "interval_bars": [plots.interval_bars(_main_frame(4, 12), directory=None)],
        "embedding_map": [plots.embedding_map(emb, np.arange(60) % 12, directory=None,
                                              title="stebkit-style-minilm — UMAP, coloured by "
                                                    "the author of the novel")],
        "similarity_distributions": [plots.similarity_distributions(
            {"a": rng.normal(size=50), "b": rng.normal(size=50)}, directory=None)],
        "style_content_distributions": [plots.style_content_distributions(
            rng.normal(size=50), rng.normal(size=50), rng.normal(size=50), directory=None,
            title="a model")],
        "dimension_curve": [plots.dimension_curve(curve, directory=None)],
        "rank_resolution": [plots.rank_resolution(ranks, directory=None)],
    }
    return out


@pytest.fixture(scope="module")
def every_figure() -> dict[str, list[plots.Plot]]:
    return _figures()


def test_every_plotting_function_is_checked_for_size(every_figure):
    import inspect

    public = {name for name, f in vars(plots).items() if inspect.isfunction(f)
              and not name.startswith("_") and f.__module__.startswith(f"{plots.__name__}.")
              and "Plot" in str(inspect.signature(f).return_annotation)}
    assert public == set(every_figure)


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5


def test_every_figure_fits_a_column_or_a_page_at_readable_sizes(every_figure, tmp_path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    for name, results in every_figure.items():
        for k, res in enumerate(results):
            fig = res.figure
            width, height = fig.get_size_inches()
            where = f"{name}[{k}] ({width:.2f} x {height:.2f} in)"
            assert round(width, 3) in (plots.COLUMN_WIDTH, plots.PAGE_WIDTH), where
            assert height <= plots.MAX_HEIGHT + 1e-9, where
            canvas = FigureCanvasAgg(fig)
            canvas.draw()
            renderer = canvas.get_renderer()
            texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
            small = [(t.get_text(), t.get_fontsize()) for t in texts
                     if t.get_fontsize() < plots.MIN_FONT_SIZE]
            assert not small, f"{where}: text under {plots.MIN_FONT_SIZE} pt: {small[:3]}"
            # nothing falls off the figure, and no two tick labels of an axis overlap
            box = fig.get_tightbbox(renderer)
            assert box.x0 >= -0.02 and box.y0 >= -0.02, where
            assert box.x1 <= width + 0.02 and box.y1 <= height + 0.02, where
            for ax in fig.axes:
                for ticks in (ax.get_xticklabels(), ax.get_yticklabels()):
                    boxes = [t.get_window_extent(renderer) for t in ticks
                             if t.get_visible() and t.get_text().strip()]
                    clash = [i for i in range(len(boxes) - 1) if _overlap(boxes[i], boxes[i + 1])]
                    assert not clash, f"{where}: tick labels {clash[:3]} overlap"
    # the saved files have the figure's size (no cropping), 300 dpi
    res = every_figure["embedding_map"][0]
    png = plots.save(res.figure, "map", tmp_path, formats=("png",))[0].read_bytes()
    w, h = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (w, h) == tuple(int(v * 300) for v in res.figure.get_size_inches())


def test_heat_map_tick_labels_keep_a_margin_inside_the_saved_image(every_figure):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    dpi = 300  # what save() writes
    for name in ("task_heatmap", "style_content_heatmap", "grouping_figures"):
        for k, res in enumerate(every_figure[name]):
            fig = res.figure
            FigureCanvasAgg(fig)
            fig.set_dpi(dpi)
            renderer = fig.canvas.get_renderer()
            fig.draw(renderer)
            edge = fig.bbox
            drawn = [tick.label1 for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)
                     for tick in axis.get_major_ticks()
                     if min(axis.get_view_interval()) <= tick.get_loc()
                     <= max(axis.get_view_interval())]
            shown = [label for label in drawn
                     if label.get_visible() and label.get_text().strip()]
            assert shown, f"{name}[{k}]: no tick label drawn to check"
            for label in shown:
                box = label.get_window_extent(renderer)
                margin = min(box.x0 - edge.x0, box.y0 - edge.y0, edge.x1 - box.x1,
                             edge.y1 - box.y1) * 72 / dpi
                assert margin >= 5, f"{name}[{k}] {label.get_text()!r}: {margin:.1f} pt"
            fig.set_dpi(100)


# ---------------------------------------------------------------- style versus content
def _distance(a, b) -> float:
    from matplotlib.colors import to_rgb

    return float(np.linalg.norm(np.subtract(to_rgb(a), to_rgb(b))))


def test_style_and_content_keep_their_colours_in_both_plot_families():
    style, content = plots.STYLE_CONTENT_COLORS["style"], plots.STYLE_CONTENT_COLORS["content"]
    assert style == plots.CATEGORY_COLORS["style"]  # the colour of the style models
    assert _distance(style, content) > 0.5
    rng = np.random.default_rng(0)
    # the distributions: same-style pairs in the style colour, whatever the order of the calls
    res = plots.style_content_distributions(rng.normal(0.3, 0.1, 50), rng.normal(0.7, 0.1, 50),
                                            rng.normal(0.2, 0.1, 50), directory=None)
    colours = {t.get_text().split(" (")[0]: h.get_edgecolor()
               for t, h in zip(res.figure.legends[0].get_texts(),
                               res.figure.legends[0].legend_handles, strict=True)}
    assert _distance(colours[plots.SAME_STYLE], style) < 1e-6
    assert _distance(colours[plots.SAME_CONTENT], content) < 1e-6
    assert _distance(colours[plots.NEITHER], plots.GREY) < 1e-6
    # the summary heat map: a content-driven model (every value below 0.5) is drawn in the
    # content colour, a style-driven one in the style colour, whatever the others score
    table = pd.DataFrame({"model": ["content-driven", "style-driven", "balanced"],
                          "bible_style_auc": [0.3, 0.8, 0.5],
                          "synthetic_style_auc": [0.1, 0.9, 0.5]})
    im = plots.style_content_heatmap(table, directory=None).figure.axes[0].images[0]
    labels = [t.get_text() for t in im.axes.get_yticklabels()]
    arr = im.get_array()
    for row, model in enumerate(labels):
        for col in range(arr.shape[1]):
            cell = im.cmap(im.norm(arr[row, col]))
            near_style = _distance(cell, style) < _distance(cell, content)
            if model == "content-driven":
                assert not near_style, (model, arr[row, col])
            elif model == "style-driven":
                assert near_style, (model, arr[row, col])
    # the content-driven model alone still looks content-driven (a fixed scale)
    alone = plots.style_content_heatmap(table.iloc[:1], directory=None).figure.axes[0].images[0]
    assert _distance(alone.cmap(alone.norm(0.3)), content) < _distance(
        alone.cmap(alone.norm(0.3)), style)
    with pytest.raises(ValueError, match=r"'bible_style_auc' holds 1\.5 for model 'm'"):
        plots.style_content_heatmap(pd.DataFrame({"model": ["m"], "bible_style_auc": [1.5]}),
                                    directory=None)


# ---------------------------------------------------------------- category colours
# sRGB -> CIELAB (D65), and Machado, Oliveira & Fernandes (2009) full-severity simulations
_SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                         [0.0193, 0.1192, 0.9505]])
_DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                          [-0.011820, 0.042940, 0.968881]])
_PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                        [-0.003882, -0.048116, 1.051998]])


def _lab(colour, vision=None) -> np.ndarray:
    from matplotlib.colors import to_rgb

    c = np.asarray(to_rgb(colour))
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    if vision is not None:
        linear = np.clip(vision @ linear, 0, 1)
    xyz = _SRGB_TO_XYZ @ linear / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def test_category_colours_are_pairwise_distinct_also_when_colour_blind():
    import itertools

    # the conversion against published values: sRGB red and white in CIELAB
    np.testing.assert_allclose(_lab("#FF0000"), [53.24, 80.09, 67.20], atol=0.05)
    np.testing.assert_allclose(_lab("#FFFFFF"), [100, 0, 0], atol=0.05)
    colours = {c: plots.category_color(c) for c in plots.CATEGORY_ORDER if c != "baseline"}
    assert plots.category_color("baseline") == colours["non_neural"]  # one category, two names
    close = []
    for (a, ca), (b, cb) in itertools.combinations(colours.items(), 2):
        for vision, matrix in (("normal", None), ("deuteranopia", _DEUTERANOPIA),
                               ("protanopia", _PROTANOPIA)):
            delta = float(np.linalg.norm(_lab(ca, matrix) - _lab(cb, matrix)))  # CIE76
            if delta < 25:
                close.append(f"{a} {ca} / {b} {cb}: delta E {delta:.1f} ({vision})")
    assert not close, close
    # the style and content colours of the style-versus-content figures are unchanged
    assert colours["style"] == plots.STYLE_CONTENT_COLORS["style"]
    assert colours["semantic"] == plots.STYLE_CONTENT_COLORS["content"]


# ---------------------------------------------------------------- interactive map
@pytest.fixture
def passages() -> pd.DataFrame:
    return pd.DataFrame({"text": [f"passage <{i}> " + "word " * 100 for i in range(30)],
                         "author": [f"author {i % 3}" for i in range(30)],
                         "topic": [f"topic {i % 2}" for i in range(30)],
                         "year": np.arange(1800, 1830)})


def test_interactive_map_hovers_text_author_topic_and_switches_colours(passages):
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(30, 8))
    fig = plots.interactive_map(emb, passages, color=["author", "topic", "year"],
                                hover=["text", "author", "topic"], max_chars=60)
    authors = [t for t in fig.data if t.visible]
    assert sorted(t.name for t in authors) == ["author 0", "author 1", "author 2"]
    assert sum(len(t.x) for t in authors) == 30
    # every visible point's hover shows its own text (cut, escaped), author and topic
    for trace in authors:
        assert "author" in trace.hovertemplate and "topic" in trace.hovertemplate
        for text, author, topic in trace.customdata:
            i = int(text.split("&lt;")[1].split("&gt;")[0])
            assert text.startswith(f"passage &lt;{i}&gt; word") and text.endswith("…")
            assert (author, topic) == (passages["author"][i], passages["topic"][i])
            assert author == trace.name
    # a menu switches the colouring; the numeric year gets a colour scale
    buttons = fig.layout.updatemenus[0].buttons
    assert [b.label for b in buttons] == ["author", "topic", "year"]
    topic_visible = [fig.data[i].name for i, v in enumerate(buttons[1].args[0]["visible"]) if v]
    assert sorted(topic_visible) == ["topic 0", "topic 1"]
    year = [fig.data[i] for i, v in enumerate(buttons[2].args[0]["visible"]) if v]
    assert len(year) == 1 and list(year[0].marker.color) == list(passages["year"])
    # colouring by the topic alone: no menu, the topic's traces shown
    fig = plots.interactive_map(emb, passages, color="topic")
    assert [t.name for t in fig.data] == ["topic 0", "topic 1"] and not fig.layout.updatemenus


def test_interactive_map_names_a_missing_column(passages):
    emb = np.zeros((30, 4))
    with pytest.raises(ValueError, match=r"no column 'genre'; its columns are \['text'"):
        plots.interactive_map(emb, passages, color="genre")
    with pytest.raises(ValueError, match="one label per row"):
        plots.interactive_map(emb[:10], passages, color="author")


def test_interactive_map_says_how_to_install_plotly(passages, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_plotly(name, *args, **kwargs):
        if name.startswith("plotly"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_plotly)
    with pytest.raises(ImportError, match=r"pip install 'stebkit\[notebooks\]'"):
        plots.interactive_map(np.zeros((30, 4)), passages, color="author")


def test_interval_bars_mark_each_metrics_chance_level_and_keep_whiskers_visible():
    from matplotlib.collections import LineCollection

    rows = [(m, d, metric, v) for d, metric, values in (
        ("pairs", "auc", {"a": .7, "b": .6, "random": .5}),
        ("ret", "mrr", {"a": .3, "b": .2, "random": .05}))
        for m, v in values.items()]
    table = pd.DataFrame(rows, columns=["model", "dataset", "metric", "value"]).assign(
        ci_low=lambda d: d["value"] - .05, ci_high=lambda d: d["value"] + .05)
    ax = plots.interval_bars(table, directory=None, colors={"a": "black", "b": "grey"}
                             ).figure.axes[0]
    assert len(ax.patches) == 4  # two models x two datasets: the chance level is no bar
    assert [t.get_text() for t in ax.get_yticklabels()] == ["pairs (auc)", "ret (mrr)"]
    marks = [c for c in ax.collections if isinstance(c, LineCollection)
             and c.get_linestyle()[0][1] is not None]  # dashed: the chance marks
    assert sorted(seg[0][0] for c in marks for seg in c.get_segments()) == [.05, .5]
    whiskers = [c for c in ax.collections if isinstance(c, LineCollection) and c not in marks]
    assert len(whiskers) == 2 and all(c.get_path_effects() for c in whiskers)  # white edge
    legend = [t.get_text() for t in ax.figure.legends[0].get_texts()]
    assert sorted(legend) == ["a", "b", "chance level (random)"]
    # a long x label is wrapped inside the figure, whatever the row labels' width
    long = ("score with 95 % bootstrap CI (each dataset's metric beside it; dashed: the "
            "chance level, random's score)")
    wide = table.assign(dataset=table["dataset"] + "-a-rather-long-dataset-name")
    fig = plots.interval_bars(wide, directory=None, xlabel=long).figure
    label = fig.axes[0].xaxis.label
    assert "\n" in label.get_text() and label.get_text().replace("\n", " ") == long
    fig.draw_without_rendering()  # the constrained layout, as when saved
    box, page = label.get_window_extent(), fig.bbox
    assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0


def test_short_heatmap_labels_stand_upright_in_two_lines():
    views = pd.DataFrame({"model": ["all-MiniLM-L6-v2", "tfidf-char", "function-words"],
                          "Bible AUC": [.3, .6, .55], "synthetic AUC": [.2, .7, .65],
                          "order accuracy": [.1, .3, .5]})
    ax = plots.style_content_heatmap(views, directory=None).figure.axes[0]
    labels = [(t.get_text(), t.get_rotation()) for t in ax.get_xticklabels()]
    assert labels == [("Bible\nAUC", 0.0), ("synthetic\nAUC", 0.0), ("order\naccuracy", 0.0)]
    many = pd.DataFrame({"model": list("abcdefgh"),
                         **{f"transformation accuracy {k}": [.5] * 8 for k in range(7)}})
    turned = plots.style_content_heatmap(many, directory=None).figure.axes[0]
    assert {t.get_rotation() for t in turned.get_xticklabels()} == {90.0}  # no room: turned
    assert all("\n" not in t.get_text() for t in turned.get_xticklabels())
