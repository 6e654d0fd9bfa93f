"""One visual style for every stebkit figure.

Readable fonts, the colour-blind-safe Okabe-Ito palette, one fixed colour per model
category, constrained layout, and :func:`save` writing each figure as PDF and PNG
(atomically). Every plotting function returns a :class:`Plot` — ``(figure, paths)`` —
that a notebook displays directly; pass ``directory=None`` to skip saving.

matplotlib is imported inside the functions, so ``import stebkit`` stays fast. Figures
are built without pyplot (no global state, nothing left open).
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from stebkit._io import atomic_file

OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
             "#000000")
"""Okabe & Ito's colour-blind-safe palette (orange, sky blue, green, yellow, blue,
vermillion, purple, black)."""

GREY = "#999999"

CATEGORY_COLORS: Mapping[str, str] = {
    "style": "#0072B2",
    "semantic": "#E69F00",
    "masked_lm": "#009E73",
    "causal_lm": "#CC79A7",
    "multilingual": "#56B4E9",
    "non_neural": "#D55E00",
    "baseline": "#D55E00",
    "other": GREY,
}
"""Fixed colour of each model category, the same in every figure."""

CATEGORY_ORDER = ("style", "multilingual", "semantic", "masked_lm", "causal_lm",
                  "non_neural", "baseline", "other")

STYLE: Mapping[str, Any] = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "savefig.dpi": 300,
    "figure.dpi": 100,
}
"""matplotlib rc settings of the stebkit style."""


class Plot(NamedTuple):
    """A figure and the files it was saved to (empty when not saved)."""

    figure: Any
    paths: list[Path]

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=100, bbox_inches="tight")
        return buf.getvalue()


def category_color(category: str | None) -> str:
    """The colour of a model category (unknown categories get a stable palette colour).

    >>> category_color("style"), category_color(None)
    ('#0072B2', '#999999')
    """
    if category is None or (isinstance(category, float) and np.isnan(category)):
        return GREY
    if category in CATEGORY_COLORS:
        return CATEGORY_COLORS[category]
    spare = [c for c in OKABE_ITO if c not in CATEGORY_COLORS.values()] + list(OKABE_ITO)
    return spare[sum(map(ord, str(category))) % len(spare)]


def _rc() -> dict[str, Any]:
    from cycler import cycler

    rc = dict(STYLE)
    rc["axes.prop_cycle"] = cycler(color=[OKABE_ITO[i] for i in (4, 0, 2, 6, 5, 1, 3, 7)])
    return rc


def _figure(width: float, height: float) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def figures_dir() -> Path:
    """Where figures go by default: ``$STEBKIT_FIGURES``, else the nearest ``figures/``.

    The nearest ``figures/`` folder is looked for in the working directory and its parent,
    so notebooks run from ``notebooks/`` write into the project's ``figures/``; without
    one, ``./figures`` is created.
    """
    env = os.environ.get("STEBKIT_FIGURES")
    if env:
        return Path(env)
    here = Path.cwd()
    for base in (here, here.parent):
        if (base / "figures").is_dir():
            return base / "figures"
    return here / "figures"


def save(fig: Any, stem: str, directory: str | os.PathLike[str] = "auto", *,
         formats: Sequence[str] = ("pdf", "png"), dpi: int = 300) -> list[Path]:
    """Save ``fig`` as ``<directory>/<stem>.<fmt>`` for each format, atomically.

    ``directory="auto"`` means :func:`figures_dir`.

    Returns the written paths. PDF files carry no creation date, so reruns produce
    identical files.

    >>> from matplotlib.figure import Figure
    >>> import tempfile
    >>> fig = Figure(); _ = fig.add_subplot().plot([0, 1])
    >>> [p.name for p in save(fig, "demo", tempfile.mkdtemp())]
    ['demo.pdf', 'demo.png']
    """
    if not stem or any(ch in stem for ch in "/\\"):
        raise ValueError(f"stem must be a plain file name without folders, got {stem!r}")
    out_dir = figures_dir() if directory == "auto" else Path(directory)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = out_dir / f"{stem}.{fmt}"
        meta = {"CreationDate": None} if fmt == "pdf" else None
        with atomic_file(path) as fh:
            fig.savefig(fh, format=fmt, dpi=dpi, bbox_inches="tight", metadata=meta)
        paths.append(path)
    return paths


def _finish(fig: Any, stem: str, directory: str | os.PathLike[str] | None) -> Plot:
    paths = save(fig, stem, directory) if directory is not None else []
    return Plot(fig, paths)


def _ordered_categories(cats: Sequence[str]) -> list[str]:
    present = list(dict.fromkeys(cats))
    known = [c for c in CATEGORY_ORDER if c in present]
    return known + sorted(c for c in present if c not in known)


# --------------------------------------------------------------------------- figures
def _chance_mask(df: pd.DataFrame) -> pd.Series:
    """Rows of the chance level (the leaderboard's ``chance`` column, else the random
    baseline by name)."""
    if "chance" in df.columns:
        return df["chance"].fillna(False).astype(bool)
    return df["model"].isin(("random",)) if "model" in df.columns else \
        pd.Series(False, index=df.index)


def _chance_lines(ax: Any, chance: pd.DataFrame, score: str, scale: float, *,
                  vertical: bool) -> None:
    """The chance level as a dashed line (a reference, not a contender)."""
    for _, row in chance.iterrows():
        value = row[score] * scale
        if not np.isfinite(value):
            continue
        draw = ax.axvline if vertical else ax.axhline
        draw(value, color="0.35", linestyle="--", linewidth=1.0,
             label=f"chance level ({row['model']})")


def figure1(leaderboard_df: pd.DataFrame, *, directory: str | os.PathLike[str] | None = "auto",
            stem: str = "figure1_steb_by_category", score: str = "steb_score",
            scale: float = 100.0, title: str | None = None, mark_best: bool = False) -> Plot:
    """STEB score by model category: each model a point with its interval, grouped and
    coloured by category (the STEB paper's Figure 1). The chance level (the random
    baseline) is a dashed line, not a point among the models.

    Parameters
    ----------
    leaderboard_df : DataFrame
        :func:`stebkit.scores.leaderboard` output (``model``, ``model_category``,
        ``score`` and optionally ``<score>`` interval columns).
    directory, stem
        Where to save (None: do not save).
    score : str
        Column to plot (e.g. ``"definitional_score"``).
    scale : float
        Multiplier of the scores (100: percentages, as in the paper).
    mark_best : bool
        Mark the best model of each category with a star (as the paper's Figure 1).
    """
    base = score.removesuffix("_score")
    need = {"model", score}
    if not need <= set(leaderboard_df.columns):
        raise ValueError(f"leaderboard_df needs columns {sorted(need)}; got "
                         f"{list(leaderboard_df.columns)}")
    df = leaderboard_df.copy()
    if "model_category" not in df:
        df["model_category"] = "other"
    df["model_category"] = df["model_category"].fillna("other")
    df = df[df[score].notna()]
    chance = df[_chance_mask(df)]
    df = df[~_chance_mask(df)]
    cats = _ordered_categories(df["model_category"].tolist())
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(6.4, max(2.5, 0.28 * len(df) + 0.4 * len(cats) + 0.8))
        y, ticks, labels = 0.0, [], []
        for cat in reversed(cats):
            part = df[df["model_category"] == cat].sort_values(score)
            ys = y + np.arange(len(part))
            x = part[score].to_numpy(dtype=float) * scale
            lo_col, hi_col = f"{base}_ci_low", f"{base}_ci_high"
            if lo_col in part and hi_col in part:
                lo = part[lo_col].to_numpy(dtype=float) * scale
                hi = part[hi_col].to_numpy(dtype=float) * scale
                err = np.vstack([np.clip(x - lo, 0, None), np.clip(hi - x, 0, None)])
                err = np.where(np.isfinite(err), err, 0.0)
            else:
                err = None
            ax.errorbar(x, ys, xerr=err, fmt="o", color=category_color(cat),
                        elinewidth=1.2, capsize=2.5, label=cat)
            if mark_best and len(part):
                ax.scatter(x[-1:], ys[-1:], marker="*", s=180, color=category_color(cat),
                           edgecolors="black", linewidths=0.8, zorder=5,
                           label="best in its category" if y == 0 else None)
            ticks.extend(ys)
            labels.extend(part["model"].tolist())
            y += len(part) + 0.8
        ax.set_yticks(ticks, labels)
        ax.grid(axis="y", visible=False)
        _chance_lines(ax, chance, score, scale, vertical=True)
        name = "STEB score" if base == "steb" else f"{base.replace('_', ' ')} score"
        ax.set_xlabel(name + (" (×100)" if scale == 100 else ""))
        handles, names = ax.get_legend_handles_labels()
        ax.legend(handles[::-1], names[::-1], title="model category", loc="center left",
                  bbox_to_anchor=(1.01, 0.5))
        if title:
            ax.set_title(title)
    return _finish(fig, stem, directory)


def task_heatmap(data: pd.DataFrame, *, by: str = "task", columns: Sequence[str] | None = None,
                 directory: str | os.PathLike[str] | None = "auto",
                 stem: str = "task_heatmap", scale: float = 100.0, annotate: bool = True,
                 cmap: str = "cividis") -> Plot:
    """Heat map of models x tasks (or x datasets).

    ``data`` is a leaderboard (task columns, or any ``columns``) or a main-metric frame
    (``model``, ``task``, ``dataset``, ``value``): with ``by="task"`` each cell is the mean
    over the task's datasets; with ``by="dataset"`` one column per dataset. The chance
    level (the random baseline) is the last row, set apart and labelled as such.
    """
    from stebkit.tasks import FAMILIES

    TASKS = list(FAMILIES)  # noqa: N806  (families in registry order, STEB's first)

    if {"model", "value"} <= set(data.columns) and ("task" in data or "dataset" in data):
        if by not in ("task", "dataset"):
            raise ValueError(f"by must be 'task' or 'dataset', got {by!r}")
        mat = data.pivot_table(index="model", columns=by, values="value", aggfunc="mean")
        if by == "task":
            mat = mat[[t for t in TASKS if t in mat.columns]]
        if columns is not None:
            mat = mat[list(columns)]
    elif "model" in data.columns:
        cols = list(columns) if columns is not None else [t for t in TASKS if t in data]
        if not cols:
            raise ValueError("data has no task columns; pass columns=[...]")
        mat = data.set_index("model")[cols]
    else:
        raise ValueError("data must be a leaderboard (with 'model') or a main-metric frame "
                         "(model, task, dataset, value)")
    if "steb_score" in mat.columns:
        mat = mat.sort_values("steb_score", ascending=False)
    else:
        mat = mat.loc[mat.mean(axis=1).sort_values(ascending=False).index]
    # the chance level goes last, set apart: a reference row, not a contender
    chance_names = set(data.loc[_chance_mask(data), "model"]) if "model" in data else set()
    order = [m for m in mat.index if m not in chance_names] + \
        [m for m in mat.index if m in chance_names]
    mat = mat.loc[order]
    n_chance = sum(m in chance_names for m in mat.index)
    vals = mat.to_numpy(dtype=float) * scale
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(max(4.0, 0.75 * mat.shape[1] + 2.5), max(2.5, 0.3 * mat.shape[0] + 1.2))
        im = ax.imshow(np.ma.masked_invalid(vals), cmap=cmap, aspect="auto")
        ax.grid(False)
        ax.set_xticks(range(mat.shape[1]), [str(c).replace("_", " ") for c in mat.columns],
                      rotation=35, ha="right")
        ax.set_yticks(range(mat.shape[0]), [f"{m} (chance level)" if m in chance_names
                                            else str(m) for m in mat.index])
        if n_chance and n_chance < mat.shape[0]:
            ax.axhline(mat.shape[0] - n_chance - 0.5, color="white", linewidth=2.5)
        if annotate:
            finite = vals[np.isfinite(vals)]
            mid = (finite.min() + finite.max()) / 2 if finite.size else 0
            for i in range(vals.shape[0]):
                for j in range(vals.shape[1]):
                    if np.isfinite(vals[i, j]):
                        ax.text(j, i, f"{vals[i, j]:.1f}", ha="center", va="center",
                                fontsize=7, color="black" if vals[i, j] > mid else "white")
        fig.colorbar(im, ax=ax, shrink=0.8, label="score" + (" (×100)" if scale == 100 else ""))
    return _finish(fig, stem, directory)


def grouping_figures(matrix: pd.DataFrame, *, task: str = "",
                     directory: str | os.PathLike[str] | None = "auto",
                     stem: str = "grouping") -> tuple[Plot, Plot]:
    """The two figures of the reference's correlation grouping for one task: the Ward
    dendrogram of the datasets (distance ``1 - Spearman rho``) and the correlation heat
    map ordered by that tree.

    ``matrix`` is a task's models x datasets score matrix, e.g.
    ``stebkit.scores.operational(results).tasks[task].matrix`` (at least two datasets).
    Saved as ``<stem>_<task>_dendrogram`` and ``<stem>_<task>_correlation``.

    >>> m = pd.DataFrame({"a": [1, 2, 3, 4], "b": [1, 2, 4, 3], "c": [4, 3, 2, 1]})
    >>> tree, heat = grouping_figures(m, task="toy", directory=None)
    >>> [t.get_text() for t in heat.figure.axes[0].get_xticklabels()]
    ['c', 'a', 'b']
    """
    from scipy.cluster.hierarchy import dendrogram, leaves_list

    from stebkit.scores import dataset_correlation, dataset_linkage

    if matrix.shape[1] < 2:
        raise ValueError(f"task {task!r}: the grouping figures need at least two datasets, "
                         f"got {list(matrix.columns)}")
    corr = dataset_correlation(matrix)
    link = dataset_linkage(corr)
    names = [str(c) for c in corr.columns]
    suffix = f"_{task}" if task else ""
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(max(5.0, 0.45 * len(names) + 2), 3.6)
        dendrogram(link, labels=names, ax=ax, leaf_rotation=90, color_threshold=None)
        ax.set_ylabel("Ward distance (1 − Spearman ρ)")
        ax.set_title(f"dataset grouping{': ' + task if task else ''}")
        ax.grid(False)
        tree = _finish(fig, f"{stem}{suffix}_dendrogram", directory)
        order = leaves_list(link)
        ordered = corr.iloc[order, order]
        size = max(3.5, 0.4 * len(names) + 2)
        fig, ax = _figure(size, size)
        im = ax.imshow(ordered.to_numpy(dtype=float), cmap="RdBu_r", vmin=-1, vmax=1)
        ax.grid(False)
        labels = [names[i] for i in order]
        ax.set_xticks(range(len(labels)), labels, rotation=90)
        ax.set_yticks(range(len(labels)), labels)
        fig.colorbar(im, ax=ax, shrink=0.8, label="Spearman ρ across models")
        heat = _finish(fig, f"{stem}{suffix}_correlation", directory)
    return tree, heat


def roc_curves(curves: Mapping[str, tuple[Any, Any]], *,
               directory: str | os.PathLike[str] | None = "auto", stem: str = "roc_curves",
               colors: Mapping[str, str] | None = None, title: str | None = None) -> Plot:
    """ROC curves, one per entry ``name -> (y_true, y_score)``, with their AUC."""
    from sklearn.metrics import roc_auc_score, roc_curve

    if not curves:
        raise ValueError("curves is empty: pass {name: (y_true, y_score)}")
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(4.2, 4.0)
        for name, (y_true, y_score) in curves.items():
            fpr, tpr, _ = roc_curve(y_true, y_score)
            auc = roc_auc_score(y_true, y_score)
            kw = {"color": colors[name]} if colors and name in colors else {}
            ax.plot(fpr, tpr, label=f"{name} (AUC {auc:.3f})", **kw)
        ax.plot([0, 1], [0, 1], color=GREY, linestyle="--", linewidth=1, label="chance")
        ax.set(xlabel="false positive rate", ylabel="true positive rate", xlim=(0, 1),
               ylim=(0, 1.01), aspect="equal")
        ax.legend(loc="lower right")
        if title:
            ax.set_title(title)
    return _finish(fig, stem, directory)


def interval_bars(table: pd.DataFrame, *, directory: str | os.PathLike[str] | None = "auto",
                  stem: str = "interval_bars", colors: Mapping[str, str] | None = None,
                  xlabel: str = "score with 95 % bootstrap CI", xlim: tuple[float, float] = (0, 1),
                  title: str | None = None) -> Plot:
    """Horizontal bars with interval whiskers: one group per dataset, one bar per model.

    ``table`` is a records frame (``Results.main_frame()``) with ``model``, ``dataset``,
    ``value``, ``ci_low`` and ``ci_high``; models keep their first-appearance order (or the
    order of ``colors``), datasets are sorted.

    >>> t = pd.DataFrame({"model": ["a", "b"], "dataset": ["d", "d"], "value": [0.6, 0.4],
    ...                   "ci_low": [0.5, 0.3], "ci_high": [0.7, 0.5]})
    >>> len(interval_bars(t, directory=None).figure.axes[0].patches)
    2
    """
    missing = {"model", "dataset", "value", "ci_low", "ci_high"} - set(table.columns)
    if missing:
        raise ValueError(f"table lacks column(s) {sorted(missing)}; pass Results.main_frame()")
    models = list(colors) if colors else list(dict.fromkeys(table["model"]))
    sets = sorted(table["dataset"].unique())
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(7, 0.45 * len(sets) + 1.2)
        height = 0.8 / max(1, len(models))
        for k, model in enumerate(models):
            rows = table[table["model"] == model].set_index("dataset").reindex(sets)
            y = np.arange(len(sets)) + (k - (len(models) - 1) / 2) * height
            err = np.vstack([rows["value"] - rows["ci_low"], rows["ci_high"] - rows["value"]])
            kw = {"color": colors[model]} if colors else {}
            ax.barh(y, rows["value"], height, xerr=err, label=model, error_kw={"lw": 0.8},
                    **kw)
        ax.set_yticks(np.arange(len(sets)), sets)
        ax.invert_yaxis()
        ax.set(xlabel=xlabel, xlim=xlim)
        ax.legend(loc="lower right", fontsize="small")
        if title:
            ax.set_title(title)
    return _finish(fig, stem, directory)


def _project(embeddings: np.ndarray, method: str, seed: int) -> np.ndarray:
    if method == "pca":
        from sklearn.decomposition import PCA

        return PCA(n_components=2, random_state=seed).fit_transform(embeddings)
    if method == "umap":
        cache = Path(os.environ.get("STEBKIT_CACHE", Path.home() / ".cache" / "stebkit"))
        os.environ.setdefault("NUMBA_CACHE_DIR", str(cache / "numba"))
        try:
            import umap
        except ImportError as err:
            raise ImportError("method='umap' needs umap-learn: pip install stebkit[notebooks] "
                              "(or use method='pca')") from err

        n_neighbors = max(2, min(15, embeddings.shape[0] - 1))
        reducer = umap.UMAP(n_components=2, random_state=seed, n_neighbors=n_neighbors,
                            metric="cosine", n_jobs=1)
        return reducer.fit_transform(embeddings)
    raise ValueError(f"method must be 'umap' or 'pca', got {method!r}")


def embedding_map(embeddings: Any, labels: Sequence[Any], *, method: str = "pca",
                  seed: int = 42, max_labels: int = 10,
                  directory: str | os.PathLike[str] | None = "auto",
                  stem: str = "embedding_map", title: str | None = None) -> Plot:
    """2-D map of embeddings coloured by label (PCA, or UMAP with ``method="umap"``).

    The ``max_labels`` most frequent labels get a colour; the rest are grey ("other").
    UMAP is imported only when asked for; its compiled code is cached under
    ``NUMBA_CACHE_DIR`` (default: the stebkit cache).
    """
    emb = np.asarray(embeddings, dtype=np.float32)
    lab = np.asarray([str(x) for x in labels], dtype=object)
    if emb.ndim != 2 or emb.shape[0] != lab.shape[0]:
        raise ValueError(f"embeddings must be (n, d) with one label per row; got "
                         f"{emb.shape} and {lab.shape[0]} labels")
    if emb.shape[0] < 3:
        raise ValueError("embedding_map needs at least 3 embeddings")
    xy = _project(emb, method, seed)
    counts = pd.Series(lab).value_counts(sort=True)
    top = list(counts.index[:max_labels])
    colours = list(OKABE_ITO[:7]) + ["#882255", "#44AA99", "#117733", "#332288", "#AA4499"]
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(5.2, 4.4)
        rest = ~np.isin(lab, top)
        if rest.any():
            ax.scatter(xy[rest, 0], xy[rest, 1], s=8, color=GREY, alpha=0.5, label="other")
        for i, name in enumerate(top):
            m = lab == name
            ax.scatter(xy[m, 0], xy[m, 1], s=10, color=colours[i % len(colours)], alpha=0.85,
                       label=name)
        ax.set(xlabel=f"{method.upper()} 1", ylabel=f"{method.upper()} 2")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), markerscale=1.5)
        if title:
            ax.set_title(title)
    return _finish(fig, stem, directory)


def similarity_distributions(groups: Mapping[str, Any], *, bins: int = 40,
                             xlabel: str = "cosine similarity",
                             directory: str | os.PathLike[str] | None = "auto",
                             stem: str = "similarity_distributions",
                             title: str | None = None) -> Plot:
    """Overlaid density histograms of similarity values, one per group.

    For style-versus-content plots: e.g. ``{"same style, other content": s1,
    "other style, same content": s2}``. The legend shows each group's mean.
    """
    if not groups:
        raise ValueError("groups is empty: pass {name: similarities}")
    arrays = {k: np.asarray(v, dtype=float).ravel() for k, v in groups.items()}
    allv = np.concatenate([a[np.isfinite(a)] for a in arrays.values()])
    if allv.size == 0:
        raise ValueError("groups hold no finite similarity values")
    edges = np.linspace(allv.min(), allv.max() if allv.max() > allv.min() else allv.min() + 1,
                        bins + 1)
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(5.0, 3.2)
        for i, (name, a) in enumerate(arrays.items()):
            a = a[np.isfinite(a)]
            color = OKABE_ITO[[4, 0, 2, 6, 5, 1][i % 6]]
            ax.hist(a, bins=edges, density=True, histtype="stepfilled", alpha=0.25, color=color)
            ax.hist(a, bins=edges, density=True, histtype="step", color=color,
                    label=f"{name} (mean {a.mean():.2f})")
            ax.axvline(a.mean(), color=color, linestyle=":", linewidth=1)
        ax.set(xlabel=xlabel, ylabel="density")
        ax.legend()
        if title:
            ax.set_title(title)
    return _finish(fig, stem, directory)


def dimension_curve(curve: pd.DataFrame, *, hue: str | None = None,
                    directory: str | os.PathLike[str] | None = "auto",
                    stem: str = "dimension_curve", scale: float = 100.0,
                    title: str | None = None) -> Plot:
    """Score against embedding dimension (log-2 axis), one line per ``hue`` value.

    ``curve`` is :func:`stebkit.quality.dimension_curve` output (or several concatenated);
    ``hue`` defaults to the columns among ``model``/``task``/``dataset`` that vary.
    """
    if not {"dim", "score"} <= set(curve.columns):
        raise ValueError("curve needs 'dim' and 'score' columns "
                         "(stebkit.quality.dimension_curve output)")
    keys = [hue] if hue else [c for c in ("model", "task", "dataset")
                              if c in curve and curve[c].nunique() > 1]
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(4.8, 3.2)
        parts = curve.groupby(keys, sort=True) if keys else [((), curve)]
        for name, part in parts:
            part = part.sort_values("dim")
            label = " / ".join(map(str, name if isinstance(name, tuple) else (name,)))
            ax.plot(part["dim"], part["score"] * scale, marker="o", label=label or None)
        ax.set_xscale("log", base=2)
        dims = sorted(curve["dim"].unique())
        ax.set_xticks(dims, [str(int(d)) for d in dims])
        ax.minorticks_off()
        ax.set(xlabel="embedding dimensions kept",
               ylabel="score" + (" (×100)" if scale == 100 else ""))
        if keys:
            ax.legend()
        if title:
            ax.set_title(title)
    return _finish(fig, stem, directory)


def rank_resolution(table: pd.DataFrame, *, directory: str | os.PathLike[str] | None = "auto",
                    stem: str = "rank_resolution", scale: float = 100.0,
                    title: str | None = None) -> Plot:
    """Models in rank order with tiers of indistinguishable models shaded alternately.

    ``table`` is :func:`stebkit.quality.rank_resolution` output; a dashed line marks
    every separable step between adjacent ranks.
    """
    need = {"model", "score", "tier", "separable"}
    if not need <= set(table.columns):
        raise ValueError(f"table needs columns {sorted(need)} "
                         "(stebkit.quality.rank_resolution output)")
    t = table.reset_index(drop=True)
    y = np.arange(len(t))[::-1]
    import matplotlib as mpl

    with mpl.rc_context(_rc()):
        fig, ax = _figure(5.2, max(2.2, 0.3 * len(t) + 0.8))
        for k, tier in enumerate(sorted(t["tier"].unique())):
            rows = y[t["tier"].to_numpy() == tier]
            if k % 2 == 0:
                ax.axhspan(rows.min() - 0.5, rows.max() + 0.5, color=GREY, alpha=0.15,
                           linewidth=0)
        colors = [category_color(c) for c in t["model_category"]] if "model_category" in t \
            else [OKABE_ITO[4]] * len(t)
        ax.scatter(t["score"] * scale, y, color=colors, zorder=3)
        for i, sep in enumerate(t["separable"]):
            if sep is True:
                ax.axhline(y[i] - 0.5, color="black", linestyle="--", linewidth=0.8)
        ax.set_yticks(y, [f"{m}  (tier {k})" for m, k in zip(t["model"], t["tier"],
                                                             strict=True)])
        ax.grid(axis="y", visible=False)
        ax.set_xlabel("score" + (" (×100)" if scale == 100 else ""))
        if title:
            ax.set_title(title)
    return _finish(fig, stem, directory)
