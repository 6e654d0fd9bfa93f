"""The score's recipe as one object: :class:`ScoreRecipe`, whose defaults are the
reference's newest aggregation.

Each option is read in one place: :func:`~stebkit.scores.inputs.scored_frame` (models
file, scored models, exclusions, unlisted datasets), :func:`~stebkit.scores.inputs.
choose_configurations` (configuration, episode size), :mod:`~stebkit.scores.aggregates`
(missing results, grouping, threshold, grouping models, minimum models and tasks).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from stebkit.errors import InvalidSetting
from stebkit.scores.grouping import DEFAULT_THRESHOLD, REFERENCE
from stebkit.settings import MAX_COUNT, Choice, Setting, Settings, changed, check_fields, setting


class Missing(Choice):
    """Missing results: drop, per task, the datasets not every model has (the reference's
    newest ``__main__.py`` forces ``complete_datasets``), or leave out the models that miss
    a dataset (its older default, ``--complete-datasets`` not given)."""

    DROP_DATASETS = "drop_datasets"
    DROP_MODELS = "drop_models"


class GroupingModels(Choice):
    """Which models are scored and shape the correlation grouping: every model but the
    reference's excluded ones is scored and groups (``config.EXCLUDED_MODELS``, skipped by
    ``discovery.py``), or every model is scored and the baselines and the chance level are
    left out of the grouping (:data:`~stebkit.scores.grouping.GROUPING_EXCLUDED_MODELS`)."""

    ALL_SCORED = "all_scored"
    WITHOUT_BASELINES = "without_baselines"


class Configuration(Choice):
    """Which episode configuration a model's operational number comes from: per model, the
    first configuration folder (``{size}_{episodes per label}``) in string order that holds
    the task's metric, as the reference's ``discovery.discover_scores`` takes it; or, the
    same for every model, the benchmark preset's first episode size, else the smallest size
    (a model whose record there failed has a missing cell)."""

    FIRST_FOLDER = "first_folder"
    PRESET_SIZE_FIRST = "preset_size_first"


class Unlisted(Choice):
    """Which datasets enter: those the reference scores (operational: every dataset it
    supports, as ``discovery.discover_scores`` reads them; definitional: those of its
    cluster file), or those of its cluster file in both scores, or every dataset. With the
    first two, results that hold none of the reference's datasets (an offline or custom
    suite) are scored whole."""

    REFERENCE_DATASETS = "reference_datasets"
    CLUSTER_FILE = "cluster_file"
    ALL = "all"


class Grouping(Choice):
    """How redundant datasets are grouped inside a task (besides a declared mapping): by
    how the models rank them (the reference's ``auto_cluster.py``) or by the reference's
    fixed clusters."""

    CORRELATION = "correlation"
    FIXED = "fixed"


MISSING, GROUPING_MODELS = Missing.values(), GroupingModels.values()
CONFIGURATIONS, UNLISTED = Configuration.values(), Unlisted.values()
"""The choices of :class:`Missing`, :class:`GroupingModels`, :class:`Configuration` and
:class:`Unlisted`, as plain texts."""


def _count(name: str, help: str, low: int = 1, **more: Any) -> Setting:
    return Setting(name, "int", low=low, high=MAX_COUNT, help=help, metavar="N", **more)


@dataclasses.dataclass(frozen=True, repr=False)
class ScoreRecipe(Settings):
    """How records become the STEB scores; the defaults are the reference's newest
    aggregation (:data:`~stebkit.scores.grouping.REFERENCE`: ``scripts/
    benchmark_clustering`` of rrivera1849/STEB, the version whose ``__main__.py`` sets
    ``_DEFAULT_THRESHOLD = 0.5`` and forces complete datasets).

    Parameters
    ----------
    grouping : {"correlation", "fixed"} or mapping
        How redundant datasets are grouped inside a task: the reference's correlation
        grouping (``auto_cluster.py``), its fixed clusters, or a declared ``{dataset:
        group}`` / ``{group: [datasets]}``, kept as a frozen copy
        (:class:`DeclaredGrouping`), so that a recipe is hashable.
    threshold : float, default 0.5
        Ward cut height of the correlation grouping (``_DEFAULT_THRESHOLD`` of the newest
        ``__main__.py``; 1.0 in its older versions, e.g. commit 2919bdfb).
    missing : {"drop_datasets", "drop_models"}
        See :data:`MISSING`.
    grouping_models : {"all_scored", "without_baselines"}
        See :data:`GROUPING_MODELS`.
    configuration : {"first_folder", "preset_size_first"}
        See :data:`CONFIGURATIONS` (the operational score; the definitional score reads
        the benchmark preset's configuration, as ``manual_cluster.py``).
    episode_size : int or None
        Only records of this episode size enter.
    min_models : int, default 3
        A task with fewer models gets no operational score (``--min-models``).
    min_tasks : int, default 2
        With fewer tasks scored there is no STEB score (the newest ``__main__.py``
        writes ``STEB_score`` only when more than one task has a score).
    models_file : path or None
        Score only the models listed in this file (one ``org/model`` per line, ``#``
        comments; the name after the last ``/`` counts), as ``--models-file``. The
        reference's default is its own ``scripts/models_all.txt``, the models of its
        published leaderboard; stebkit's default, None, scores every model of the results.
    unlisted : {"reference_datasets", "cluster_file", "all"}
        See :data:`UNLISTED`.
    exclude : tuple of str
        ``"non_english"`` (the reference's ``NON_ENGLISH_DATASETS``; for a dataset the
        reference does not know, a language other than English), ``"semantic_control"``
        and/or dataset names; a name that is none of these (no dataset of the results, of
        stebkit's catalogue or of the reference) is refused when a score reads the
        results, naming it and the valid ones
        (:func:`~stebkit.scores.inputs.apply_exclusions`).

    Examples
    --------
    >>> ScoreRecipe()
    ScoreRecipe()
    >>> ScoreRecipe(threshold=1.0, missing="drop_models")
    ScoreRecipe(threshold=1.0, missing='drop_models')
    >>> ScoreRecipe(threshold=-1)
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: threshold must be a finite number >= 0, got -1
    >>> ScoreRecipe().replace(threshold=1.0)
    ScoreRecipe(threshold=1.0)
    """

    WHAT = "score recipe"

    grouping: str | Mapping[str, Any] = setting("correlation", Setting(
        "grouping", "choice", choices=Grouping,
        help="group datasets by how the models rank them (correlation) or by the "
             "reference's fixed clusters (scores that do not move)"))
    threshold: float = setting(DEFAULT_THRESHOLD, Setting(
        "threshold", "number", low=0, metavar="T",
        help="Ward cut height of the correlation grouping (1.0 in the reference's older "
             "versions)"))
    missing: str = setting("drop_datasets", Setting(
        "missing", "choice", choices=Missing,
        help="missing results: drop the datasets not every model has, or leave out the "
             "models that miss one"))
    grouping_models: str = setting("all_scored", Setting(
        "grouping_models", "choice", choices=GroupingModels,
        help="all_scored: the reference's excluded models are not scored, every other model "
             "shapes the grouping; without_baselines: every model scored, baselines and "
             "chance left out of the grouping"))
    configuration: str = setting("first_folder", Setting(
        "configuration", "choice", choices=Configuration,
        help="first_folder: each model's first configuration in string order holding a "
             "result; preset_size_first: the preset's first size for every model"))
    episode_size: int | None = setting(None, _count(
        "episode_size", "only records of this episode size", choices=(-1,), optional=True))
    min_models: int = setting(3, _count(
        "min_models", "models a task needs for an operational score"))
    min_tasks: int = setting(2, _count("min_tasks", "tasks the STEB score needs"))
    models_file: str | os.PathLike[str] | None = setting(None, Setting(
        "models_file", "text", optional=True, metavar="FILE",
        help="score only the models listed (one org/model per line), as the reference's "
             "--models-file (its default, scripts/models_all.txt, lists its published "
             "models; stebkit's default: every model)"))
    unlisted: str = setting("reference_datasets", Setting(
        "unlisted", "choice", choices=Unlisted,
        help="which datasets enter: those the reference scores, those of its cluster file, "
             "or all"))
    exclude: tuple[str, ...] = ("non_english", "semantic_control")

    def __post_init__(self) -> None:
        grouping = self.grouping
        check_fields(self, skip=("grouping",) if isinstance(grouping, Mapping) else ())
        if isinstance(grouping, Mapping):
            object.__setattr__(self, "grouping", DeclaredGrouping(grouping))  # a frozen copy
        object.__setattr__(self, "exclude", _exclusions(self.exclude))

    def changed(self) -> list[str]:
        """The options that differ from the defaults (the reference's newest recipe).

        >>> ScoreRecipe(min_tasks=1).changed()
        ['min_tasks']
        """
        return list(changed(self))

    def allowed_models(self) -> set[str] | None:
        """The short names listed in :attr:`models_file` (None: every model)."""
        if self.models_file is None:
            return None
        from stebkit._io import read_untrusted

        text = read_untrusted(self.models_file, fix="pass a plain text file of model "
                              "names").decode("utf-8", errors="replace")
        return {line.strip().split("/")[-1] for line in text.splitlines()
                if line.strip() and not line.strip().startswith("#")}

    def describe(self) -> str:
        """One line naming the recipe, for a leaderboard's footer.

        >>> print(ScoreRecipe(threshold=1.0).describe())
        Recipe: ScoreRecipe(threshold=1.0), not the reference's newest aggregation
        """
        if self.changed():
            return f"Recipe: {self!r}, not the reference's newest aggregation"
        return (f"Recipe: {self!r}, the reference's newest aggregation ({REFERENCE}): Ward "
                f"cut {self.threshold:g}, datasets not every model has are dropped, its "
                "excluded models are not scored, each model's first configuration in "
                "string order, no STEB score with fewer than 2 tasks")


class DeclaredGrouping(Mapping):
    """A declared grouping, ``{dataset: group}`` or ``{group: [datasets]}``, frozen: a
    list of datasets is kept as a tuple, nothing can be changed, and equal groupings are
    equal and hash alike (so a :class:`ScoreRecipe` holding one is hashable).

    >>> g = DeclaredGrouping({"g": ["a", "b"], "c": "h"})
    >>> g["g"], dict(g) == {"g": ("a", "b"), "c": "h"}, hash(g) == hash(DeclaredGrouping(g))
    (('a', 'b'), True, True)
    >>> g["g"] = "x"
    Traceback (most recent call last):
    ...
    TypeError: 'DeclaredGrouping' object does not support item assignment
    >>> DeclaredGrouping({"g": 1})
    Traceback (most recent call last):
    ...
    ValueError: ScoreRecipe grouping['g'] must be a group name or a list of dataset names, got 1
    """

    def __init__(self, grouping: Mapping[str, Any]) -> None:
        items = []
        for key, value in grouping.items():
            kept = value if isinstance(value, str) else _names(value)
            if not isinstance(key, str) or kept is None:
                raise ValueError(f"ScoreRecipe grouping[{key!r}] must be a group name or a "
                                 f"list of dataset names, got {value!r}")
            items.append((key, kept))
        self._items = tuple(items)

    def __getitem__(self, key: str) -> str | tuple[str, ...]:
        for name, value in self._items:
            if name == key:
                return value
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(frozenset(self._items))

    def __repr__(self) -> str:
        return repr(dict(self._items))


def _names(value: Any) -> tuple[str, ...] | None:
    """``value`` as a tuple of names, or None when it is no collection of text."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        return None
    names = tuple(value)
    return names if all(isinstance(n, str) for n in names) else None


def _exclusions(exclude: Any) -> tuple[str, ...]:
    items = () if exclude is None else (exclude,) if isinstance(exclude, str) else exclude
    if not isinstance(items, Iterable) or not all(isinstance(i, str) for i in items):
        raise InvalidSetting(f"exclude must hold dataset names, 'non_english' or "
                             f"'semantic_control', got {exclude!r}")
    return tuple(items)


def as_recipe(recipe: ScoreRecipe | None, options: Mapping[str, Any]) -> ScoreRecipe:
    """``recipe`` (default: :class:`ScoreRecipe`) with the keyword shortcuts ``options``.

    >>> as_recipe(None, {"threshold": 1.0})
    ScoreRecipe(threshold=1.0)
    """
    if recipe is not None and not isinstance(recipe, ScoreRecipe):
        raise TypeError(f"recipe must be a ScoreRecipe, got {type(recipe).__name__}")
    base = recipe if recipe is not None else ScoreRecipe()
    return base.replace(**options) if options else base
