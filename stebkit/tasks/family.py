"""Task families as objects: one declaration says everything about a family.

A :class:`TaskFamily` bundles what the runner, the result records, the bootstrap, the
leaderboard and the command line need to know about one family: its pure task function,
its main metric and the direction of every metric, the reference preset of episode sizes
and episodes per label, how it builds its inputs from a dataset's records, how it calls
the task function on embeddings, which per-item values it keeps for the bootstrap, and
its leaderboard column. Each family is declared beside its task function
(``FAMILY = TaskFamily(...)`` in ``stebkit/tasks/<family>.py``) and registered in
:data:`stebkit.tasks.FAMILIES`, the one registry every other module reads.

Adding a family is one declaration::

    from stebkit.tasks import FAMILIES, TaskFamily, inputs
    FAMILIES.register(TaskFamily(name="my_family", function=my_function, ...))
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

Statistic = Callable[[np.ndarray], float]

AUTO = "auto"
"""``episodes_per_label="auto"``: the reference's rule, the number of texts of the smallest
label divided by the episode size, clamped to 25..200 (see :func:`auto_episodes`)."""


#: How a model's embeddings are compared: ``"cosine"`` (cosine similarity; the default)
#: or ``"l1"`` (the reference's scoring of its LFTK baseline: pairs by negative L1
#: distance, clustering on absolute values). An encoder says which through its ``scoring``
#: attribute; a family that compares embeddings another way ignores it.
SCORINGS: tuple[str, ...] = ("cosine", "l1")


def check_scoring(scoring: object) -> str:
    """Validate a ``scoring`` argument (one of :data:`SCORINGS`).

    >>> check_scoring("l1")
    'l1'
    """
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {SCORINGS}, got {scoring!r}")
    return str(scoring)



def auto_episodes(smallest_label: int, episode_size: int, *, low: int = 25,
                  high: int = 200) -> int:
    """Episodes per label under the reference's ``"auto"`` rule.

    ``clamp(smallest_label // episode_size, low, high)``; an episode size of ``-1`` (all
    texts of a label) gives 1.

    >>> auto_episodes(1000, 5), auto_episodes(40, 2), auto_episodes(10_000, 1)
    (200, 25, 200)
    >>> auto_episodes(300, 2)
    150
    """
    if episode_size == -1:
        return 1
    if episode_size < 1 or smallest_label < 0:
        raise ValueError(f"episode_size must be >= 1 or -1 and smallest_label >= 0, got "
                         f"{episode_size} and {smallest_label}")
    return int(min(high, max(low, smallest_label // episode_size)))


def mean_of(key: str) -> Callable[[Mapping[str, Any]], tuple[int, Statistic]]:
    """Bootstrap statistic: the mean of the per-item array ``details[key]``.

    >>> n, stat = mean_of("correct")({"correct": [1.0, 0.0, 1.0, 1.0]})
    >>> n, stat(np.arange(n)), stat(np.array([1, 1]))
    (4, 0.75, 0.0)
    """

    def statistic(details: Mapping[str, Any]) -> tuple[int, Statistic]:
        v = np.asarray(details[key], dtype=np.float64)
        return v.shape[0], lambda idx: float(v[idx].mean())

    statistic.__doc__ = f"Mean of ``details[{key!r}]`` over the resampled items."
    return statistic


@dataclass(frozen=True)
class TaskFamily:
    """One task family, declared as data.

    Parameters
    ----------
    name : str
        Identifier (``"clustering"``); the records' ``task`` and the leaderboard column.
    function : callable
        The pure task function (embeddings in, metrics out).
    metrics : mapping of str to bool
        Every scalar metric the family reports, mapped to whether higher is better (as
        scikit-learn's ``*_score`` / ``*_error`` naming says). The first key is the main
        metric unless ``main_metric`` names another.
    call : callable
        ``call(task_input, item_embeddings, *, seed, batch_size) -> result`` runs
        ``function`` on a built input.
    build : callable
        ``build(records, name, episode_size, episodes_per_label, seed, sampling)`` ->
        :class:`stebkit.tasks.inputs.TaskInput`.
    statistic : callable
        ``statistic(details) -> (n_items, f)`` where ``f(indices)`` is the main metric of
        a resample of item indices (``f(arange(n_items))`` reproduces it).
    unit : str
        What the bootstrap resamples ("episode", "pair", "query", ...).
    item_ids : callable
        ``item_ids(task_input, result)``: ids of the resampled units, aligned with the
        per-item arrays.
    per_item : (str, str or None) or None
        The ``details`` arrays a record keeps as ``per_item["values"]`` and
        ``per_item["labels"]`` (None: nothing is kept).
    episode_sizes, episodes_per_label
        The reference preset (``episodes_per_label`` may be ``"auto"``).
    columns : tuple of str
        Record columns the family needs beyond ``text`` and ``label``.
    single_text : bool
        Items are single texts; ``episode_sizes`` overrides do not apply.
    steb : bool
        One of STEB's own families (False: a family of user suites).
    main_metric : str, optional
        The main metric, when it is not the first key of ``metrics``.
    scorings : tuple of str
        The :data:`SCORINGS` the family's ``call`` takes as ``scoring=`` (default: only
        cosine, and ``call`` is not given ``scoring``).
    fast : (episode sizes, episodes per label), optional
        The reference's ``fast`` preset for this family (None: not part of it).
    default : (episode sizes, episodes per label), optional
        The reference's task defaults (its ``TASK_DEFAULTS``, used when a run names no
        preset), when they differ from the benchmark preset (e.g. ``((1,), "auto")``).
    description : str
        One line for listings.

    Examples
    --------
    >>> from stebkit.tasks import FAMILIES
    >>> f = FAMILIES["retrieval"]
    >>> f.main_metric, f.higher_is_better, f.direction("mean_rank")
    ('mrr', True, 'lower')
    """

    name: str
    function: Callable[..., Any]
    metrics: Mapping[str, bool]
    call: Callable[..., Any]
    build: Callable[..., Any]
    statistic: Callable[[Mapping[str, Any]], tuple[int, Statistic]]
    unit: str
    item_ids: Callable[..., list[str]]
    per_item: tuple[str, str | None] | None = None
    episode_sizes: tuple[int, ...] = (1,)
    episodes_per_label: int | str = 50
    columns: tuple[str, ...] = ()
    single_text: bool = False
    steb: bool = True
    main_metric: str = ""
    scorings: tuple[str, ...] = ("cosine",)
    fast: tuple[tuple[int, ...], int | str] | None = None
    default: tuple[tuple[int, ...], int | str] | None = None
    description: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"task family name must be an identifier, got {self.name!r}")
        if not self.metrics:
            raise ValueError(f"task family {self.name!r}: metrics is empty")
        object.__setattr__(self, "metrics", MappingProxyType(dict(self.metrics)))
        main = self.main_metric or next(iter(self.metrics))
        if main not in self.metrics:
            raise ValueError(f"task family {self.name!r}: main_metric {main!r} is not among "
                             f"its metrics {list(self.metrics)}")
        object.__setattr__(self, "main_metric", main)
        object.__setattr__(self, "episode_sizes", tuple(int(s) for s in self.episode_sizes))
        if not self.episode_sizes or any(s == 0 or s < -1 for s in self.episode_sizes):
            raise ValueError(f"task family {self.name!r}: episode_sizes must be positive ints "
                             f"or -1, got {self.episode_sizes}")
        per = self.episodes_per_label
        if per != AUTO and (not isinstance(per, (int, np.integer)) or per < 1):
            raise ValueError(f"task family {self.name!r}: episodes_per_label must be an int "
                             f">= 1 or {AUTO!r}, got {per!r}")
        object.__setattr__(self, "columns", tuple(self.columns))
        object.__setattr__(self, "scorings", tuple(check_scoring(s) for s in self.scorings))

    def scoring_for(self, scoring: str) -> str:
        """The scoring this family uses for a model that asks for ``scoring``: the same
        when the family supports it, cosine otherwise (as the reference, whose LFTK
        scoring covers pair tasks and clustering only).

        >>> from stebkit.tasks import FAMILIES
        >>> FAMILIES["clustering"].scoring_for("l1"), FAMILIES["retrieval"].scoring_for("l1")
        ('l1', 'cosine')
        """
        return check_scoring(scoring) if scoring in self.scorings else "cosine"

    def preset(self, name: str = "benchmark") -> tuple[tuple[int, ...], int | str] | None:
        """``(episode_sizes, episodes_per_label)`` of a reference preset.

        ``"benchmark"`` (the standard run), ``"fast"`` (one small configuration; None
        when the family is not part of it) or ``"default"`` (the reference's task
        defaults: one episode size and ``"auto"`` episodes per label for clustering,
        all-vs-all pairs and order alignment; the benchmark preset for the others).

        >>> from stebkit.tasks import FAMILIES
        >>> FAMILIES["clustering"].preset(), FAMILIES["clustering"].preset("fast")
        (((1, 2, 5), 50), ((1,), 100))
        >>> FAMILIES["clustering"].preset("default"), FAMILIES["retrieval"].preset("default")
        (((1,), 'auto'), ((-1,), 1))
        """
        if name == "benchmark":
            return self.episode_sizes, self.episodes_per_label
        if name == "fast":
            return self.fast
        if name == "default":
            return self.default or (self.episode_sizes, self.episodes_per_label)
        raise ValueError(f"unknown preset {name!r}; presets are 'benchmark', 'fast' and "
                         "'default'")

    @property
    def higher_is_better(self) -> bool:
        """Direction of the main metric."""
        return self.metrics[self.main_metric]

    def direction(self, metric: str) -> str:
        """``"higher"`` or ``"lower"`` (is better) for one of the family's metrics.

        Raises ``ValueError`` naming the family and the metric when it is not one of its.
        """
        return "higher" if self.metric(metric) else "lower"

    def metric(self, name: str) -> bool:
        """Whether higher is better for metric ``name``; a clear error if unknown.

        A sub-metric ``base[part]`` (e.g. one probing feature's ``accuracy[n_adj]``)
        has the direction of ``base``.
        """
        if "[" in name and name.endswith("]"):
            name = name.split("[", 1)[0]
        if name not in self.metrics:
            raise ValueError(f"task family {self.name!r} does not produce metric {name!r}; "
                             f"its metrics are {list(self.metrics)}")
        return self.metrics[name]

    def __repr__(self) -> str:
        return (f"TaskFamily({self.name!r}, main_metric={self.main_metric!r}, "
                f"episode_sizes={self.episode_sizes}, "
                f"episodes_per_label={self.episodes_per_label!r})")


class FamilyRegistry(Mapping[str, TaskFamily]):
    """The task families by name, in declaration order (STEB's first).

    Read like a dict; :meth:`register` adds a family (a different family under a known
    name needs ``replace=True``), :meth:`unregister` removes one.
    """

    def __init__(self) -> None:
        self._families: dict[str, TaskFamily] = {}

    def __getitem__(self, name: str) -> TaskFamily:
        try:
            return self._families[name]
        except KeyError:
            raise KeyError(f"unknown task family {name!r}; known families are "
                           f"{list(self._families)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._families))

    def __len__(self) -> int:
        return len(self._families)

    def __repr__(self) -> str:
        return f"FamilyRegistry({list(self._families)})"

    def register(self, family: TaskFamily, *, replace: bool = False) -> TaskFamily:
        """Add ``family``; return it."""
        if not isinstance(family, TaskFamily):
            raise TypeError(f"register() takes a TaskFamily, got {type(family).__name__}")
        old = self._families.get(family.name)
        if old is not None and old != family and not replace:
            raise ValueError(f"a different task family named {family.name!r} is already "
                             "registered; pick another name or pass replace=True")
        self._families[family.name] = family
        return family

    def unregister(self, name: str) -> None:
        """Remove a family (e.g. one a test registered)."""
        self._families.pop(name, None)

    def get_family(self, name: str, *, where: str = "") -> TaskFamily:
        """The family ``name``; unknown names raise ``ValueError`` listing the known ones."""
        if name not in self._families:
            prefix = f"{where}: " if where else ""
            raise ValueError(f"{prefix}unknown task {name!r}; known tasks are "
                             f"{list(self._families)}")
        return self._families[name]

    def steb(self) -> tuple[str, ...]:
        """STEB's own families, in the reference's order."""
        return tuple(n for n, f in self._families.items() if f.steb)


class _MainMetrics(Mapping[str, str]):
    """Read-only view: family name -> main metric (follows the registry)."""

    def __init__(self, registry: FamilyRegistry) -> None:
        self._registry = registry

    def __getitem__(self, name: str) -> str:
        return self._registry[name].main_metric

    def __iter__(self) -> Iterator[str]:
        return iter(self._registry)

    def __len__(self) -> int:
        return len(self._registry)

    def __repr__(self) -> str:
        return repr(dict(self))


FAMILIES = FamilyRegistry()
"""Every task family by name: the one registry the runner, records, bootstrap, scores,
command line and plots read (filled by :mod:`stebkit.tasks`)."""
