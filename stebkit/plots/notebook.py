"""The set-up every notebook shares: fast mode, folders, and the models to compare.

>>> from stebkit.plots.notebook import setup
>>> nb = setup(["wordllama-l2-supercat"], full=["all-MiniLM-L6-v2"], fast=True)
>>> nb.fast, nb.smoke, nb.models[-1]
(True, True, 'wordllama-l2-supercat')
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

FALLBACK_STYLE_MODEL = "lftk"
"""The style-sensitive model notebooks use when the trained style model is not there."""


def is_fast() -> bool:
    """Fast mode: ``STEBKIT_FAST=1`` (the smoke data, fewer models and resamples).

    >>> is_fast() == (os.environ.get("STEBKIT_FAST") == "1")
    True
    """
    return os.environ.get("STEBKIT_FAST") == "1"


def style_model() -> str:
    """The trained style model (``stebkit train``) when it exists here, else
    :data:`FALLBACK_STYLE_MODEL` (the LFTK stylometric baseline).

    >>> style_model() in ("stebkit-style-minilm", "lftk")
    True
    """
    from stebkit.encoders.zoo import is_available
    from stebkit.train import STYLE_MODEL_NAME

    return STYLE_MODEL_NAME if is_available(STYLE_MODEL_NAME) else FALLBACK_STYLE_MODEL


def repository_root() -> Path:
    """The repository folder (the parent of ``notebooks/`` when run from there)."""
    here = Path.cwd()
    return here.parent if here.name == "notebooks" else here


@dataclass(frozen=True)
class NotebookSetup:
    """What a notebook's first cell decides.

    ``fast``/``smoke``: fast mode and the smoke data; ``style_model``: the trained style
    model or the fallback; ``models``: the style model first, then the notebook's models
    (plus its full-mode extras outside fast mode), without duplicates; ``results`` and
    ``figures``: the shared folders (``results/<suite>``, and
    :func:`stebkit.plots.figures_dir`: ``results/figures/`` outside ``make figures``);
    ``n_resamples``: bootstrap resamples (200 fast, 2000 full).
    """

    fast: bool
    smoke: bool
    style_model: str
    models: list[str]
    root: Path
    results: Path
    figures: Path
    n_resamples: int

    def __str__(self) -> str:
        return (f"fast mode: {self.fast} | style model: {self.style_model} | models: "
                f"{', '.join(self.models)}")


def setup(models: Sequence[str] = (), *, full: Sequence[str] = (),
          fast: bool | None = None, with_style_model: bool = True) -> NotebookSetup:
    """The notebook set-up: fast mode, the model list (trained style model first when it
    exists), results and figures folders.

    Parameters
    ----------
    models : sequence of str
        Models every run of the notebook compares.
    full : sequence of str
        Extra models outside fast mode.
    fast : bool, optional
        Override ``STEBKIT_FAST``.
    with_style_model : bool
        Put :func:`style_model` first in ``models``.
    """
    from stebkit.plots import figures_dir

    fast = is_fast() if fast is None else bool(fast)
    style = style_model()
    names = ([style] if with_style_model else []) + list(models)
    if not fast:
        names += list(full)
    root = repository_root()
    return NotebookSetup(fast=fast, smoke=fast, style_model=style,
                         models=list(dict.fromkeys(names)), root=root,
                         results=root / "results" / ("smoke" if fast else "lite"),
                         figures=figures_dir(), n_resamples=200 if fast else 2000)
