"""Task inputs: from a dataset's records to what one task function needs.

An *episode* is a small set of texts that share a label and are embedded as one vector,
the mean of their text embeddings (the reference's "writing sample" of ``episode_size``
atomic units). For ordered sets (order alignment) an episode has one member set per
position and is embedded per position.

This module holds what the builders share: :class:`TaskInput`, the "first N per label"
sampling, the filters and their reports, pooling, and the cuts of sub-results
(:func:`restrict`, :func:`keep_texts`). Each builder sits in its family's module
(``stebkit/tasks/<family>.py``) and is reached through the family,
``FAMILIES[name].build(records, ...)``. The protocol follows the STEB reference loader:

* texts are grouped by label, labels in the order they first appear in the records; a
  label contributes its first ``N = episode_size * episodes_per_label`` valid texts and
  **labels with fewer than N valid texts are dropped**; the N texts are cut into
  ``episodes_per_label`` episodes of ``episode_size`` consecutive texts;
* ``episode_size = -1`` (retrieval) makes all texts of a label (and retrieval side) one
  episode;
* predefined pairs are the two texts sharing a ``pair`` id (every pair is used);
* order alignment works on parallel sets (``group``) ordered by ``position``; a label
  (style dimension) contributes its first ``N`` sets, episodes pool ``episode_size``
  consecutive sets position by position (rows marked ``distractor`` belong to
  STEL-or-Content checks, not to the sets, and rows marked ``repeat`` repeat a set
  already present — the reference counts each set once: both are set aside and
  counted);
* probing uses every text with a split, one text per item.

Sampling: ``sampling="reference"`` (the default) takes "the first N" texts in file order,
as the reference does; ``sampling="shuffle"`` first shuffles the records with ``seed``
and then takes the first N (file order often follows time, source file or topic, so a
prefix can be a biased sample; a seeded shuffle keeps the "first N of a sequence" rule —
episodes of larger sizes reuse the texts of smaller ones — while making the sample
representative and reproducible).

Every filter reports what it removed: the counts are kept in :attr:`TaskInput.dropped`
and announced with a :class:`FilterWarning`.

The builders' pieces are public, for families declared outside stebkit:
:func:`require_columns`, :func:`valid_rows`, :func:`sample_episodes`, :class:`Texts` and
:func:`report_dropped`. A builder for episodes of single texts per label reads::

    >>> import pandas as pd
    >>> def build_my_family(records, task, episode_size, episodes_per_label, seed,
    ...                     sampling="reference"):
    ...     require_columns(records, ["text", "label"], task)
    ...     rows, invalid = valid_rows(records, ["label"])
    ...     labels = rows["label"].astype(str).to_numpy()
    ...     kept, n_labels, n_rows = sample_episodes(labels, len(rows), episode_size,
    ...                                              episodes_per_label, seed, sampling)
    ...     intern, episodes, item_labels = Texts(), [], []
    ...     for label, label_episodes in kept:
    ...         for rows_of_episode in label_episodes:
    ...             episodes.append([intern(rows["text"].iloc[i]) for i in rows_of_episode])
    ...             item_labels.append(label)
    ...     dropped = report_dropped(task, {**invalid, "labels": n_labels,
    ...                                     "texts_of_dropped_labels": n_rows},
    ...                              "labels need enough texts")
    ...     return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
    ...                      episodes, 1, np.array(item_labels, dtype=object),
    ...                      tuple(f"{label}#{k}" for k, label in enumerate(item_labels)),
    ...                      dropped=dropped)
    >>> records = pd.DataFrame({"text": ["a", "b", "c", "d"], "label": ["x", "x", "y", "y"]})
    >>> ti = build_my_family(records, "my_family", 1, 2, seed=0)
    >>> ti.texts, ti.n_items
    (('a', 'b', 'c', 'd'), 4)

A family subclass names it as its builder: ``builder = staticmethod(build_my_family)``
(see :class:`stebkit.tasks.TaskFamily`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np

from stebkit.datasets.spec import SIDES, SPLITS
from stebkit.pooling import mean_by_owner
from stebkit.settings import Choice

__all__ = ["SAMPLING", "SIDES", "SPLITS", "FilterWarning", "Sampling", "TaskInput", "Texts",
           "by_split", "keep_texts", "report_dropped", "require_columns", "restrict",
           "sample_episodes", "valid_rows"]


class Sampling(Choice):
    """``reference``: the first N texts of each label in record (file) order, labels in
    the order they first appear, as the reference loader; ``shuffle``: the same after a
    seeded shuffle of the records, labels in sorted order."""

    REFERENCE = "reference"
    SHUFFLE = "shuffle"


SAMPLING = Sampling.values()
"""The ways of sampling episodes (:class:`Sampling`), as plain texts."""


class FilterWarning(UserWarning):
    """A documented filter removed texts, labels, pairs or sets while building episodes."""


@dataclass(frozen=True, eq=False)
class TaskInput:
    """Everything one task evaluation needs, before any model is involved.

    Attributes
    ----------
    task : str
        The task family (a key of :data:`stebkit.tasks.FAMILIES`).
    episode_size, episodes_per_label, seed : int
        The protocol parameters the input was built with.
    texts : tuple of str
        The unique texts to embed, in first-use order.
    episodes : tuple of tuple of int
        Members of every episode as indices into ``texts``, item-major: the episodes of
        item ``i`` are ``episodes[i * n_positions:(i + 1) * n_positions]``.
    n_positions : int
        Episodes per item: 1, or the number of style positions for order alignment.
    labels : numpy.ndarray of str, shape (n_items,)
        The label of each item.
    ids : tuple of str
        A stable id per item (``label#k`` for sampled episodes, the ``pair``/``group``
        ids or the record index otherwise).
    sides, splits : numpy.ndarray of str or None
        Retrieval side / probing split of each item.
    same : numpy.ndarray of bool or None
        Predefined pairs: items ``2k`` and ``2k + 1`` form pair ``k``; ``same[k]`` says
        whether they share the property.
    relevance : numpy.ndarray or None
        ``retrieval_ndcg``: graded relevance of every target (columns, in item order) for
        every query (rows, in item order).
    dropped : Mapping[str, int]
        What the documented filters removed (non-zero counts only).
    sampling : str
        How the texts were sampled (:data:`SAMPLING`).
    features : numpy.ndarray of str or None
        Probing with several features (a ``feature`` column): the feature of each item.
    """

    task: str
    episode_size: int
    episodes_per_label: int
    seed: int
    texts: tuple[str, ...]
    episodes: tuple[tuple[int, ...], ...]
    n_positions: int
    labels: np.ndarray
    ids: tuple[str, ...]
    sides: np.ndarray | None = None
    splits: np.ndarray | None = None
    same: np.ndarray | None = None
    relevance: np.ndarray | None = None
    dropped: Mapping[str, int] = field(default_factory=dict)
    sampling: str = "reference"
    features: np.ndarray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "dropped", MappingProxyType(dict(self.dropped)))

    @property
    def n_items(self) -> int:
        """Number of items (episodes, or sets of per-position episodes)."""
        return len(self.ids)

    def episode_texts(self) -> list[list[str]]:
        """The episodes as lists of texts, for encoders that embed episodes themselves."""
        return [[self.texts[i] for i in ep] for ep in self.episodes]

    def pool(self, text_embeddings: np.ndarray) -> np.ndarray:
        """Embed every episode as the mean of its texts' embeddings.

        Parameters
        ----------
        text_embeddings : numpy.ndarray, shape (len(self.texts), d)
            Row ``i`` embeds ``self.texts[i]``.

        Returns
        -------
        numpy.ndarray of float32
            ``(n_items, d)``, or ``(n_items, n_positions, d)`` for order alignment: what
            :meth:`stebkit.tasks.TaskFamily.evaluate` takes.

        Examples
        --------
        >>> import pandas as pd
        >>> from stebkit.tasks import FAMILIES
        >>> records = pd.DataFrame({"text": ["a", "b", "c", "d"], "label": ["x", "x", "y", "y"]})
        >>> ti = FAMILIES["clustering"].build(records, episode_size=2, episodes_per_label=1)
        >>> ti.pool(np.eye(4, dtype=np.float32)).tolist()
        [[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]]
        """
        emb = np.asarray(text_embeddings)
        if emb.ndim != 2 or emb.shape[0] != len(self.texts):
            raise ValueError(f"text_embeddings must have shape ({len(self.texts)}, d), one "
                             f"row per task_input.texts entry; got {emb.shape}")
        sizes = np.fromiter((len(ep) for ep in self.episodes), dtype=np.int64)
        flat = np.fromiter((i for ep in self.episodes for i in ep), dtype=np.int64,
                           count=int(sizes.sum()))
        owners = np.repeat(np.arange(len(sizes)), sizes)
        return self.shape_items(mean_by_owner(emb[flat], owners, len(sizes)))

    def shape_items(self, episode_embeddings: np.ndarray) -> np.ndarray:
        """One row per episode (an encoder that embeds episodes itself) -> one row, or one
        ``(n_positions, d)`` block, per item.

        >>> import pandas as pd
        >>> from stebkit.tasks import FAMILIES
        >>> records = pd.DataFrame({"text": ["a", "b"], "label": ["x", "y"]})
        >>> ti = FAMILIES["clustering"].build(records, episode_size=1, episodes_per_label=1)
        >>> ti.shape_items(np.ones((2, 3))).shape
        (2, 3)
        """
        emb = np.asarray(episode_embeddings, dtype=np.float32)
        if emb.ndim != 2 or emb.shape[0] != len(self.episodes):
            raise ValueError(f"episode embeddings must have shape ({len(self.episodes)}, d); "
                             f"got {emb.shape}")
        if self.n_positions == 1:
            return emb
        return emb.reshape(self.n_items, self.n_positions, emb.shape[1])

    def __repr__(self) -> str:
        return (f"TaskInput({self.task!r}, episode_size={self.episode_size}, "
                f"{self.n_items} items, {len(set(self.labels.tolist()))} labels, "
                f"{len(self.texts)} texts, dropped={dict(self.dropped)})")


# --------------------------------------------------------------------------- helpers


def require_columns(records: Any, columns: Sequence[str], task: str) -> None:
    """Raise a ValueError naming the ``columns`` that ``records`` lack for ``task``.

    >>> import pandas as pd
    >>> require_columns(pd.DataFrame({"text": ["a"]}), ["text", "label"], "clustering")
    Traceback (most recent call last):
    ...
    ValueError: records lack column(s) ['label'] needed by task 'clustering'; the dataset's \
reader must provide them (see stebkit.datasets.spec)
    """
    missing = [c for c in columns if c not in records.columns]
    if missing:
        raise ValueError(f"records lack column(s) {missing} needed by task {task!r}; "
                         f"the dataset's reader must provide them (see stebkit.datasets.spec)")


def valid_rows(records: Any, columns: Sequence[str]) -> tuple[Any, dict[str, int]]:
    """Rows whose text is a non-blank string and whose ``columns`` all have a value.

    Returns the rows and the counts removed: ``blank_texts`` and ``rows_without_<col>``.

    >>> import pandas as pd
    >>> records = pd.DataFrame({"text": ["a", " ", "c"], "label": ["x", "y", None]})
    >>> rows, removed = valid_rows(records, ["label"])
    >>> rows["text"].tolist(), removed
    (['a'], {'blank_texts': 1, 'rows_without_label': 1})
    """
    ok = np.array([isinstance(t, str) and t.strip() != "" for t in records["text"]],
                  dtype=bool)
    counts = {"blank_texts": int((~ok).sum())}
    for col in columns:
        has = records[col].notna().to_numpy(dtype=bool)
        counts[f"rows_without_{col}"] = int((ok & ~has).sum())
        ok = ok & has
    return records[ok], counts


def _checked_sides(rows: Any) -> np.ndarray:
    """The ``side`` of every row; a ValueError names the values that are not a side."""
    sides = rows["side"].astype(str).to_numpy()
    bad = ~np.isin(sides, SIDES)
    if bad.any():
        raise ValueError(f"records['side'] must be 'query' or 'target'; found "
                         f"{sorted(set(sides[bad].tolist()))[:5]}")
    return sides


def _seeded_order(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).permutation(n)


def _check_size(episode_size: int, episodes_per_label: int) -> None:
    if not isinstance(episode_size, (int, np.integer)) or episode_size == 0 or episode_size < -1:
        raise ValueError(f"episode_size must be a positive int or -1, got {episode_size!r}")
    if not isinstance(episodes_per_label, (int, np.integer)) or episodes_per_label < 1:
        raise ValueError(f"episodes_per_label must be an int >= 1, got {episodes_per_label!r}")


class Texts:
    """Interns texts: each unique text gets one index (:attr:`TaskInput.texts` is
    :meth:`tuple`, the texts in the order of their indices).

    >>> intern = Texts()
    >>> [intern(t) for t in ("a", "b", "a")], intern.tuple()
    ([0, 1, 0], ('a', 'b'))
    """

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.index.setdefault(text, len(self.index))

    def tuple(self) -> tuple[str, ...]:
        return tuple(self.index)


def sample_episodes(
    keys: Sequence[Any], n_rows: int, episode_size: int, episodes_per_label: int, seed: int,
    sampling: str = "reference",
) -> tuple[list[tuple[Any, list[list[int]]]], int, int]:
    """"First N per key" sampling, cut into episodes of consecutive rows.

    ``keys[i]`` is the key (label, or (label, side)) of row ``i``. With ``"reference"``
    rows are taken in record order and keys kept in the order they first appear (the
    reference loader); with ``"shuffle"`` rows are taken in a seeded random order and keys
    in sorted order. Returns, per kept key, its episodes as lists of row indices, plus the
    numbers of dropped keys and of rows those keys held.

    >>> sample_episodes(["x", "y", "x", "x"], 4, episode_size=1, episodes_per_label=2, seed=0)
    ([('x', [[0], [2]])], 1, 1)
    """
    if sampling not in SAMPLING:
        raise ValueError(f"sampling must be one of {SAMPLING}, got {sampling!r}")
    order = np.arange(n_rows) if sampling == "reference" else _seeded_order(n_rows, seed)
    by_key: dict[Any, list[int]] = {}
    for i in order:
        by_key.setdefault(keys[i], []).append(int(i))
    need = 1 if episode_size == -1 else episode_size * episodes_per_label
    kept, dropped_keys, dropped_rows = [], 0, 0
    ordered_keys = list(by_key) if sampling == "reference" else sorted(by_key)
    for key in ordered_keys:
        rows = by_key[key]
        if len(rows) < need:
            dropped_keys += 1
            dropped_rows += len(rows)
            continue
        if episode_size == -1:
            kept.append((key, [sorted(rows)]))
        else:
            rows = rows[:need]
            kept.append((key, [rows[k:k + episode_size] for k in range(0, need, episode_size)]))
    return kept, dropped_keys, dropped_rows


def report_dropped(task: str, dropped: dict[str, int], detail: str) -> dict[str, int]:
    """The non-zero counts of ``dropped`` (what a builder's filters removed, for
    :attr:`TaskInput.dropped`), announced with a :class:`FilterWarning` that names
    ``task`` and why (``detail``).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     report_dropped("clustering", {"blank_texts": 2, "labels": 0}, "texts need a label")
    {'blank_texts': 2}
    >>> str(caught[0].message)
    'clustering: dropped 2 blank texts (texts need a label)'
    """
    dropped = {k: int(v) for k, v in dropped.items() if v}
    if dropped:
        counts = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in dropped.items())
        warnings.warn(f"{task}: dropped {counts} ({detail})", FilterWarning, stacklevel=4)
    return dropped


# --------------------------------------------------------------------------- sub-results


def restrict(task_input: TaskInput, labels: Sequence[str]) -> tuple[TaskInput, np.ndarray]:
    """The items of ``labels`` only, and their positions in ``task_input``.

    A label sub-result (:class:`stebkit.datasets.spec.Submetric`) filters the items
    already built, as the reference filters its processed data; the texts stay as they
    are. Predefined pairs and graded relevance are refused (their items are not
    independent).

    >>> import pandas as pd
    >>> rec = pd.DataFrame({"text": list("abcdef"), "label": list("xxyyzz")})
    >>> from stebkit.tasks import FAMILIES
    >>> ti = FAMILIES["clustering"].build(rec, episode_size=1, episodes_per_label=2)
    >>> sub, idx = restrict(ti, ["x", "z"])
    >>> sub.labels.tolist(), idx.tolist(), sub.episodes
    (['x', 'x', 'z', 'z'], [0, 1, 4, 5], ((0,), (1,), (4,), (5,)))
    """
    if task_input.same is not None or task_input.relevance is not None:
        raise ValueError(f"task {task_input.task!r}: label sub-results are not defined for "
                         "predefined pairs or graded relevance; declare a field sub-result")
    wanted = [str(v) for v in labels]
    keep = np.isin(task_input.labels.astype(str), wanted)
    if not keep.any():
        raise ValueError(f"task {task_input.task!r}: none of the labels {wanted} occurs among "
                         f"the items; their labels are {sorted(set(task_input.labels))[:10]}")
    idx = np.flatnonzero(keep)
    n_pos = task_input.n_positions
    episodes = tuple(ep for i in idx for ep in task_input.episodes[i * n_pos:(i + 1) * n_pos])
    return _with_items(task_input, idx, episodes), idx


def _with_items(task_input: TaskInput, idx: np.ndarray,
                episodes: Sequence[tuple[int, ...]]) -> TaskInput:
    """``task_input`` reduced to the items ``idx`` with their (possibly cut) ``episodes``."""

    def pick(values: np.ndarray | None) -> np.ndarray | None:
        return None if values is None else values[idx]

    return replace(task_input, episodes=tuple(episodes), labels=task_input.labels[idx],
                   ids=tuple(task_input.ids[i] for i in idx), sides=pick(task_input.sides),
                   splits=pick(task_input.splits), features=pick(task_input.features))


def keep_texts(task_input: TaskInput, texts: set[str] | frozenset[str], *,
               sides: Sequence[str] | None = None) -> TaskInput:
    """Every episode cut down to the texts in ``texts``; episodes left empty are dropped.

    A field sub-result (:class:`stebkit.datasets.spec.Submetric` with ``field``) keeps the
    texts of the matching records. With ``sides=("query",)`` only query episodes are cut
    and every target stays in the pool (AuthBench's length buckets); a query whose label
    has no target left is dropped too.

    >>> import pandas as pd
    >>> rec = pd.DataFrame({"text": ["a1", "a2", "b1", "b2"], "label": list("aabb"),
    ...                     "side": ["query", "target"] * 2})
    >>> from stebkit.tasks import FAMILIES
    >>> ti = FAMILIES["retrieval"].build(rec, episode_size=-1, episodes_per_label=1)
    >>> cut = keep_texts(ti, {"a1"}, sides=("query",))
    >>> cut.ids, [[cut.texts[i] for i in ep] for ep in cut.episodes]
    (('query:a', 'target:a', 'target:b'), [['a1'], ['a2'], ['b2']])
    """
    if task_input.n_positions != 1 or task_input.same is not None \
            or task_input.relevance is not None:
        raise ValueError(f"task {task_input.task!r}: field sub-results need items of one "
                         "episode each (not ordered sets, predefined pairs or graded relevance)")
    inside = {i for i, t in enumerate(task_input.texts) if t in texts}
    episodes, keep = [], []
    for i, ep in enumerate(task_input.episodes):
        cut = ep if sides is not None and task_input.sides is not None \
            and task_input.sides[i] not in sides else tuple(j for j in ep if j in inside)
        if cut:
            episodes.append(cut)
            keep.append(i)
    idx = np.asarray(keep, dtype=np.int64)
    if task_input.sides is not None:  # a query needs its label among the targets
        targets = {task_input.labels[i] for i in idx if task_input.sides[i] != "query"}
        ok = [k for k, i in enumerate(idx)
              if task_input.sides[i] != "query" or task_input.labels[i] in targets]
        idx, episodes = idx[ok], [episodes[k] for k in ok]
    if idx.size == 0:
        raise ValueError(f"task {task_input.task!r}: no episode keeps a text of the "
                         "sub-result")
    return _with_items(task_input, idx, episodes)


# --------------------------------------------------------------------------- splits


def by_split(task_input: TaskInput, emb: np.ndarray) -> list[np.ndarray]:
    """``[X_train, y_train, X_validation, y_validation, X_test, y_test]`` of a split input.

    >>> import pandas as pd
    >>> records = pd.DataFrame({"text": list("abcdef"), "label": list("xyxyxy"),
    ...                         "split": ["train"] * 2 + ["validation"] * 2 + ["test"] * 2})
    >>> from stebkit.tasks import FAMILIES
    >>> ti = FAMILIES["probing"].build(records, episode_size=1, episodes_per_label=1)
    >>> parts = by_split(ti, np.eye(6))
    >>> [p.shape[0] for p in parts]
    [2, 2, 2, 2, 2, 2]
    """
    parts = []
    for split in SPLITS:
        m = task_input.splits == split
        parts += [emb[m], task_input.labels[m]]
    return parts
