"""The stebkit style: the palette, the fixed colours of model categories and of style
versus content, the matplotlib rc settings, :class:`Plot` and :func:`save`."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from stebkit._io import atomic_file, remove_stray_temps
from stebkit.escape import echo

OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
             "#000000")
"""Okabe & Ito's colour-blind-safe palette (orange, sky blue, green, yellow, blue,
vermillion, purple, black)."""

GREY = "#999999"

CATEGORY_COLORS: Mapping[str, str] = {
    "style": "#0072B2",
    "semantic": "#E69F00",
    "masked_lm": "#228833",
    "causal_lm": "#882255",
    "multilingual": "#66CCEE",
    "non_neural": "#000000",
    "baseline": "#000000",
    "other": GREY,
}
"""Fixed colour of each model category, the same in every figure (``baseline`` shares
the colour of ``non_neural``). Blue and orange are Okabe & Ito's, the others Paul Tol's
colour-blind-safe green, cyan and wine, with black and grey: every two categories stay
apart in normal vision and for red-green colour blindness (no two oranges, no two
light blues)."""

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
    "pdf.fonttype": 42,  # TrueType fonts in PDF and PostScript (no Type 3)
    "ps.fonttype": 42,
    "text.parse_math": False,  # a name with $ is drawn as the text it is, never as math
    "savefig.dpi": 300,
    "figure.dpi": 100,
    # the margin the layout keeps around the outermost labels (inches; matplotlib's 3 pt
    # leaves a heat map's tick labels touching the edge of the image)
    "figure.constrained_layout.h_pad": 0.1,
    "figure.constrained_layout.w_pad": 0.1,
}
"""matplotlib rc settings of the stebkit style."""


STYLE_CONTENT_COLORS: Mapping[str, str] = {
    "style": CATEGORY_COLORS["style"],
    "content": CATEGORY_COLORS["semantic"],
    "neither": GREY,
}
"""What style and content look like in every style-versus-content figure: the colour of
the style models for style, of the semantic (content) models for content."""

SAME_STYLE, SAME_CONTENT, NEITHER = ("same style, other content", "same content, other style",
                                     "other style, other content")
"""The three kinds of pairs of a style-versus-content comparison."""


class Plot(NamedTuple):
    """A figure and the files it was saved to (empty when not saved)."""

    figure: Any
    paths: list[Path]

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=100)
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


SCRATCH_FIGURES = Path("results") / "figures"
"""Where figures go outside ``make figures``, below the project folder: git ignores
``results/``, so a notebook run never changes the tracked ``figures/``."""

_announced: set[Path] = set()


def figures_dir() -> Path:
    """Where figures go by default: ``$STEBKIT_FIGURES``, else the project's
    ``results/figures/`` (:data:`SCRATCH_FIGURES`).

    The project folder is the working directory, or its parent when that holds the
    ``figures/`` folder (notebooks run from ``notebooks/``). The tracked ``figures/`` is
    written only by ``make figures``, which points ``$STEBKIT_FIGURES`` at it; every
    other run writes into the git-ignored scratch folder (:func:`save` prints where, once).

    >>> import os, tempfile
    >>> here = os.getcwd(); os.chdir(tempfile.mkdtemp())
    >>> os.environ.get("STEBKIT_FIGURES") or figures_dir().as_posix()  # doctest: +ELLIPSIS
    '.../results/figures'
    >>> os.chdir(here)
    """
    env = os.environ.get("STEBKIT_FIGURES")
    if env:
        return Path(env)
    here = Path.cwd()
    below_project = not (here / "figures").is_dir() and (here.parent / "figures").is_dir()
    return (here.parent if below_project else here) / SCRATCH_FIGURES


def save(fig: Any, stem: str, directory: str | os.PathLike[str] = "auto", *,
         formats: Sequence[str] = ("pdf", "png"), dpi: int = 300) -> list[Path]:
    """Save ``fig`` as ``<directory>/<stem>.<fmt>`` for each format, atomically.

    ``directory="auto"`` means :func:`figures_dir`; the first save into its git-ignored
    scratch folder prints one line saying where.

    Returns the written paths. The files have the figure's own size (no cropping, so a
    column-wide figure stays a column wide). PDF files carry no creation date, so reruns
    produce identical files, and embed TrueType fonts (the style's ``pdf.fonttype`` 42,
    applied when the file is written, whatever rc settings the figure was drawn under):
    no Type 3 fonts, which IEEE PDF eXpress and ACM's checks refuse.

    >>> from matplotlib.figure import Figure
    >>> import tempfile
    >>> fig = Figure(); _ = fig.add_subplot().plot([0, 1])
    >>> [p.name for p in save(fig, "demo", tempfile.mkdtemp())]
    ['demo.pdf', 'demo.png']
    """
    import matplotlib as mpl

    if not stem or any(ch in stem for ch in "/\\"):
        raise ValueError(f"stem must be a plain file name without folders, got {stem!r}")
    out_dir = figures_dir() if directory == "auto" else Path(directory)
    paths = []
    for fmt in formats:
        path = out_dir / f"{stem}.{fmt}"
        meta = {"CreationDate": None} if fmt == "pdf" else None
        remove_stray_temps(path)  # what a killed save left
        with mpl.rc_context(_rc()), atomic_file(path) as fh:
            fig.savefig(fh, format=fmt, dpi=dpi, metadata=meta)
        paths.append(path)
    if directory == "auto" and not os.environ.get("STEBKIT_FIGURES") and out_dir not in _announced:
        _announced.add(out_dir)
        echo(f"figures go to {os.path.relpath(out_dir)}/ (git-ignored; `make figures` "
             "writes the tracked figures/)")
    return paths


def _finish(fig: Any, stem: str, directory: str | os.PathLike[str] | None) -> Plot:
    paths = save(fig, stem, directory) if directory is not None else []
    return Plot(fig, paths)


def _ordered_categories(cats: Sequence[str]) -> list[str]:
    present = list(dict.fromkeys(cats))
    known = [c for c in CATEGORY_ORDER if c in present]
    return known + sorted(c for c in present if c not in known)
