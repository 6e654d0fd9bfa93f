"""Embedding maps: 2-D projections (PCA or UMAP) coloured by label, as a figure
(:func:`embedding_map`) or as an interactive plotly view (:func:`interactive_map`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from stebkit.plots.layout import COLUMN_WIDTH, MAX_HEIGHT, _legend_below, _title
from stebkit.plots.style import GREY, OKABE_ITO, Plot, _figure, _finish, _rc


def _project(embeddings: Any, method: str, seed: int, n_labels: int | None = None
             ) -> np.ndarray:
    """The embeddings (one row per label, at least 3) projected to 2-D by PCA or UMAP."""
    emb = np.asarray(embeddings, dtype=np.float32)
    if emb.ndim != 2 or (n_labels is not None and emb.shape[0] != n_labels):
        raise ValueError(f"embeddings must be (n, d) with one label per row; got "
                         f"{emb.shape} and {n_labels} labels")
    if emb.shape[0] < 3:
        raise ValueError("an embedding map needs at least 3 embeddings")
    if method == "pca":
        from sklearn.decomposition import PCA

        return PCA(n_components=2, random_state=seed).fit_transform(emb)
    if method == "umap":
        cache = Path(os.environ.get("STEBKIT_CACHE", Path.home() / ".cache" / "stebkit"))
        os.environ.setdefault("NUMBA_CACHE_DIR", str(cache / "numba"))
        try:
            import umap
        except ImportError as err:
            raise ImportError("method='umap' needs umap-learn: pip install stebkit[notebooks] "
                              "(or use method='pca')") from err

        n_neighbors = max(2, min(15, emb.shape[0] - 1))
        reducer = umap.UMAP(n_components=2, random_state=seed, n_neighbors=n_neighbors,
                            metric="cosine", n_jobs=1)
        return reducer.fit_transform(emb)
    raise ValueError(f"method must be 'umap' or 'pca', got {method!r}")


MAP_COLORS = (*OKABE_ITO[:7], "#882255", "#44AA99", "#117733", "#332288", "#AA4499")
"""Colours of the labels of an embedding map, most frequent label first."""


def _shorten(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def embedding_map(embeddings: Any, labels: Sequence[Any], *, method: str = "pca",
                  seed: int = 42, max_labels: int = 10,
                  directory: str | os.PathLike[str] | None = "auto",
                  stem: str = "embedding_map", title: str | None = None) -> Plot:
    """2-D map of embeddings coloured by label (PCA, or UMAP with ``method="umap"``).

    The ``max_labels`` most frequent labels get a colour; the rest are grey ("other").
    The map is a column wide with its legend below (labels past 40 characters are cut).
    UMAP is imported only when asked for; its compiled code is cached under
    ``NUMBA_CACHE_DIR`` (default: the stebkit cache). :func:`interactive_map` draws the
    same map with every text on hover.
    """
    lab = np.asarray([str(x) for x in labels], dtype=object)
    xy = _project(embeddings, method, seed, lab.shape[0])
    counts = pd.Series(lab).value_counts(sort=True)
    top = list(counts.index[:max_labels])
    title, title_h = _title(title, COLUMN_WIDTH)
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(COLUMN_WIDTH, COLUMN_WIDTH)
        rest = ~np.isin(lab, top)
        if rest.any():
            ax.scatter(xy[rest, 0], xy[rest, 1], s=6, color=GREY, alpha=0.5, label="other")
        for i, name in enumerate(top):
            m = lab == name
            ax.scatter(xy[m, 0], xy[m, 1], s=8, color=MAP_COLORS[i % len(MAP_COLORS)],
                       alpha=0.85, label=_shorten(name, 40))
        ax.set(xlabel=f"{method.upper()} 1", ylabel=f"{method.upper()} 2")
        ax.set_xticks([])
        ax.set_yticks([])
        extra = _legend_below(fig, ax, COLUMN_WIDTH, 7.0, markerscale=1.5)
        fig.set_size_inches(COLUMN_WIDTH, min(MAX_HEIGHT, 3.0 + extra + title_h))
        if title:
            ax.set_title(title, fontsize=9)
    return _finish(fig, stem, directory)


_CONTINUOUS = 12  # a numeric column with more values than this is coloured on a scale


def _hover_text(value: Any, max_chars: int) -> str:
    import html
    import textwrap

    text = _shorten(" ".join(str(value).split()), max_chars)
    return "<br>".join(html.escape(line) for line in textwrap.wrap(text, 80) or [""])


def interactive_map(embeddings: Any, data: pd.DataFrame, *, color: str | Sequence[str],
                    hover: Sequence[str] | None = None, method: str = "pca", seed: int = 42,
                    max_chars: int = 300, title: str | None = None) -> Any:
    """The embedding map of :func:`embedding_map` as an interactive plotly figure.

    Each point is a row of ``data``; hovering shows its ``hover`` columns (default: all
    of them, long texts cut at ``max_chars``). ``color`` names the column(s) to colour by:
    the first is shown, and a menu switches between them; a numeric column with many
    values gets a colour scale. Needs plotly (``pip install 'stebkit[notebooks]'``).

    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"text": list("abcdef"), "author": list("xxyyzz")})
    >>> fig = interactive_map(rng.normal(size=(6, 4)), df, color="author")
    >>> [t.name for t in fig.data]
    ['x', 'y', 'z']
    """
    try:
        import plotly.graph_objects as go
    except ImportError as err:
        raise ImportError("interactive_map needs plotly: pip install 'stebkit[notebooks]' "
                          "(or use embedding_map for a static map)") from err

    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a DataFrame with one row per embedding, got "
                        f"{type(data).__name__}")
    colors = [color] if isinstance(color, str) else list(color)
    hover = list(data.columns) if hover is None else list(hover)
    if not colors:
        raise ValueError("color is empty: name at least one column of data to colour by")
    for col in dict.fromkeys([*colors, *hover]):
        if col not in data.columns:
            raise ValueError(f"interactive_map: data has no column {col!r}; its columns are "
                             f"{list(data.columns)}")
    xy = _project(embeddings, method, seed, len(data))
    custom = np.array([[_hover_text(v, max_chars) for v in data[c]] for c in hover],
                      dtype=object).T
    template = "<br>".join(f"<b>{c}</b>: %{{customdata[{i}]}}" for i, c in enumerate(hover))
    fig = go.Figure()
    groups: list[tuple[str, int]] = []
    for col in colors:
        first = len(fig.data)
        values = data[col]
        point = {"hovertemplate": template + "<extra></extra>", "visible": col == colors[0]}
        if pd.api.types.is_numeric_dtype(values) and values.nunique() > _CONTINUOUS:
            fig.add_trace(go.Scatter(x=xy[:, 0], y=xy[:, 1], mode="markers", name=col,
                                     customdata=custom, marker={
                                         "color": values, "colorscale": "Cividis", "size": 6,
                                         "colorbar": {"title": {"text": col}}}, **point))
        else:
            labels = values.astype(str)
            for i, name in enumerate(labels.value_counts(sort=True).index):
                m = (labels == name).to_numpy()
                fig.add_trace(go.Scatter(x=xy[m, 0], y=xy[m, 1], mode="markers", name=name,
                                         customdata=custom[m], legendgroup=col, marker={
                                             "color": MAP_COLORS[i % len(MAP_COLORS)],
                                             "size": 6, "opacity": 0.85}, **point))
        groups.append((col, len(fig.data) - first))
    buttons = []
    for k, (col, _n) in enumerate(groups):
        visible = [j == k for j, (_c, n) in enumerate(groups) for _ in range(n)]
        buttons.append({"label": col, "method": "update",
                        "args": [{"visible": visible}, {"legend.title.text": col}]})
    fig.update_layout(
        template="simple_white", title=title, legend={"title": {"text": colors[0]}},
        xaxis={"title": f"{method.upper()} 1", "showticklabels": False},
        yaxis={"title": f"{method.upper()} 2", "showticklabels": False},
        updatemenus=[{"buttons": buttons, "x": 0, "y": 1.12, "xanchor": "left",
                      "showactive": True}] if len(buttons) > 1 else [])
    return fig
