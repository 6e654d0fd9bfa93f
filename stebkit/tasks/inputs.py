"""Task inputs: from a dataset's records to what one task function needs.

An *episode* is a small set of texts that share a label and are embedded as one vector,
the mean of their text embeddings (the reference's "writing sample" of ``episode_size``
atomic units). For ordered sets (order alignment) an episode has one member set per
position and is embedded per position.

The builders here are the input side of the task families (:mod:`stebkit.tasks.family`);
each family names its builder. The protocol follows the STEB reference loader:

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
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np

from stebkit.encoders.base import mean_by_owner

SPLITS = ("train", "validation", "test")
SIDES = ("query", "target")
SAMPLING = ("reference", "shuffle")
"""``reference``: the first N texts of each label in record (file) order, labels in the
order they first appear, as the reference loader; ``shuffle``: the same after a seeded
shuffle of the records, labels in sorted order."""


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

    def __repr__(self) -> str:
        return (f"TaskInput({self.task!r}, episode_size={self.episode_size}, "
                f"{self.n_items} items, {len(set(self.labels.tolist()))} labels, "
                f"{len(self.texts)} texts, dropped={dict(self.dropped)})")


# --------------------------------------------------------------------------- helpers


def _require(records: Any, columns: Sequence[str], task: str) -> None:
    missing = [c for c in columns if c not in records.columns]
    if missing:
        raise ValueError(f"records lack column(s) {missing} needed by task {task!r}; "
                         f"the dataset's reader must provide them (see stebkit.datasets.spec)")


def _valid_rows(records: Any, columns: Sequence[str]) -> tuple[Any, dict[str, int]]:
    """Rows whose text is a non-blank string and whose ``columns`` all have a value.

    Returns the rows and the counts removed: ``blank_texts`` and ``rows_without_<col>``.
    """
    ok = np.array([isinstance(t, str) and t.strip() != "" for t in records["text"]],
                  dtype=bool)
    counts = {"blank_texts": int((~ok).sum())}
    for col in columns:
        has = records[col].notna().to_numpy(dtype=bool)
        counts[f"rows_without_{col}"] = int((ok & ~has).sum())
        ok = ok & has
    return records[ok], counts


def _seeded_order(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).permutation(n)


def _check_size(episode_size: int, episodes_per_label: int) -> None:
    if not isinstance(episode_size, (int, np.integer)) or episode_size == 0 or episode_size < -1:
        raise ValueError(f"episode_size must be a positive int or -1, got {episode_size!r}")
    if not isinstance(episodes_per_label, (int, np.integer)) or episodes_per_label < 1:
        raise ValueError(f"episodes_per_label must be an int >= 1, got {episodes_per_label!r}")


class _Texts:
    """Interns texts: each unique text gets one index."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        return self.index.setdefault(text, len(self.index))

    def tuple(self) -> tuple[str, ...]:
        return tuple(self.index)


def _sample(
    keys: Sequence[Any], n_rows: int, episode_size: int, episodes_per_label: int, seed: int,
    sampling: str = "reference",
) -> tuple[list[tuple[Any, list[list[int]]]], int, int]:
    """"First N per key" sampling, cut into episodes of consecutive rows.

    ``keys[i]`` is the key (label, or (label, side)) of row ``i``. With ``"reference"``
    rows are taken in record order and keys kept in the order they first appear (the
    reference loader); with ``"shuffle"`` rows are taken in a seeded random order and keys
    in sorted order. Returns, per kept key, its episodes as lists of row indices, plus the
    numbers of dropped keys and of rows those keys held.
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


def _report(task: str, dropped: dict[str, int], detail: str) -> dict[str, int]:
    dropped = {k: int(v) for k, v in dropped.items() if v}
    if dropped:
        counts = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in dropped.items())
        warnings.warn(f"{task}: dropped {counts} ({detail})", FilterWarning, stacklevel=4)
    return dropped


# --------------------------------------------------------------------------- builders


def build_labelled(records: Any, task: str, episode_size: int, episodes_per_label: int,
                   seed: int, sampling: str = "reference") -> TaskInput:
    """Clustering and all-to-all pairs: episodes sampled per label.

    Parallel sets (records with a ``position`` column) take part with their position-0
    text only, the styled original, as the reference's clustering and all-to-all pairs do;
    the other positions are counted in ``dropped`` as ``texts_not_at_position_0``.
    """
    _require(records, ["text", "label"], task)
    off_zero = 0
    if "position" in records.columns:
        at_zero = (records["position"] == 0).to_numpy(dtype=bool)
        off_zero = int((~at_zero).sum())
        records = records[at_zero]
    rows, invalid = _valid_rows(records, ["label"])
    labels = rows["label"].astype(str).to_numpy()
    texts = rows["text"].to_numpy()
    kept, n_labels, n_rows = _sample(labels, len(rows), episode_size, episodes_per_label, seed,
                                     sampling)
    intern = _Texts()
    episodes, item_labels, ids = [], [], []
    for label, eps in kept:
        for k, ep in enumerate(eps):
            episodes.append(tuple(intern(texts[i]) for i in ep))
            item_labels.append(label)
            ids.append(f"{label}#{k}")
    need = "all" if episode_size == -1 else episode_size * episodes_per_label
    dropped = _report(task, {"texts_not_at_position_0": off_zero, **invalid,
                             "labels": n_labels, "texts_of_dropped_labels": n_rows},
                      f"labels need {need} valid texts for {episodes_per_label} episode(s) of "
                      f"size {episode_size}; parallel sets enter with their position-0 text")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
                     tuple(episodes), 1, np.asarray(item_labels, dtype=object), tuple(ids),
                     dropped=dropped, sampling=sampling)


def build_retrieval(records: Any, task: str, episode_size: int, episodes_per_label: int,
                    seed: int, sampling: str = "reference") -> TaskInput:
    """Retrieval: episodes per (label, side); labels must appear on both sides."""
    _require(records, ["text", "label", "side"], task)
    rows, invalid = _valid_rows(records, ["label", "side"])
    sides = rows["side"].astype(str).to_numpy()
    bad_side = ~np.isin(sides, SIDES)
    if bad_side.any():
        raise ValueError(f"records['side'] must be 'query' or 'target'; found "
                         f"{sorted(set(sides[bad_side].tolist()))[:5]}")
    labels = rows["label"].astype(str).to_numpy()
    texts = rows["text"].to_numpy()
    keys = list(zip(labels.tolist(), sides.tolist(), strict=True))
    kept, n_keys, n_rows = _sample(keys, len(rows), episode_size, episodes_per_label, seed,
                                   sampling)
    per_side: dict[str, set[str]] = {s: set() for s in SIDES}
    for (label, side), _ in kept:
        per_side[side].add(label)
    both = per_side["query"] & per_side["target"]
    intern = _Texts()
    episodes, item_labels, item_sides, ids = [], [], [], []
    one_sided = {"query": 0, "target": 0}
    for side in SIDES:  # queries first, then targets
        for (label, s), eps in kept:
            if s != side:
                continue
            if label not in both:
                one_sided[side] += 1
                continue
            for k, ep in enumerate(eps):
                episodes.append(tuple(intern(texts[i]) for i in ep))
                item_labels.append(label)
                item_sides.append(side)
                ids.append(f"{side}:{label}" if episode_size == -1 else f"{side}:{label}#{k}")
    dropped = _report(task, {**invalid, "label_sides_too_few_texts": n_keys,
                             "texts_of_those": n_rows,
                             "queries_without_target": one_sided["query"],
                             "targets_without_query": one_sided["target"]},
                      "retrieval keeps labels present on both sides, as the reference")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
                     tuple(episodes), 1, np.asarray(item_labels, dtype=object), tuple(ids),
                     sides=np.asarray(item_sides, dtype=object), dropped=dropped,
                     sampling=sampling)


def build_pairs(records: Any, task: str, episode_size: int, episodes_per_label: int,
                seed: int, sampling: str = "reference") -> TaskInput:
    """Predefined pairs: the two texts of every ``pair`` id, in record order."""
    if episode_size != 1:
        raise ValueError(f"predefined_pairs compares two single texts: episode_size must be 1, "
                         f"got {episode_size}")
    _require(records, ["text", "label", "pair", "same"], task)
    rows, invalid = _valid_rows(records, ["pair", "same"])
    pair_ids = rows["pair"].astype(str).to_numpy()
    texts = rows["text"].to_numpy()
    labels = rows["label"].astype(str).to_numpy()
    same = rows["same"].to_numpy()
    members: dict[str, list[int]] = {}
    for i, p in enumerate(pair_ids):
        members.setdefault(p, []).append(i)
    intern = _Texts()
    episodes, item_labels, ids, same_out = [], [], [], []
    bad_count, bad_same = 0, 0
    for p, idx in members.items():
        if len(idx) != 2:
            bad_count += 1
            continue
        flags = {bool(same[i]) for i in idx}
        if len(flags) != 1:
            bad_same += 1
            continue
        for j, i in enumerate(idx):
            episodes.append((intern(texts[i]),))
            item_labels.append(labels[i])
            ids.append(f"{p}:{j}")
        same_out.append(flags.pop())
    dropped = _report(task, {**invalid, "pairs_without_two_texts": bad_count,
                             "pairs_with_conflicting_same": bad_same},
                      "a pair is exactly two texts sharing a pair id and a same flag")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
                     tuple(episodes), 1, np.asarray(item_labels, dtype=object), tuple(ids),
                     same=np.asarray(same_out, dtype=bool), dropped=dropped,
                     sampling=sampling)


def build_ordered(records: Any, task: str, episode_size: int, episodes_per_label: int,
                  seed: int, sampling: str = "reference") -> TaskInput:
    """Order alignment: parallel sets (``group``) ordered by ``position``, per label."""
    if episode_size == -1:
        raise ValueError("order_alignment needs a positive episode_size (sets per episode)")
    _require(records, ["text", "label", "group", "position"], task)
    rows, invalid = _valid_rows(records, ["label", "group", "position"])
    set_aside = {}  # rows left out by design: counted, but not a loss
    for column, key in (("distractor", "distractor_texts"), ("repeat", "repeated_set_texts")):
        if column in rows.columns:
            flag = rows[column].fillna(False).to_numpy(dtype=bool)
            set_aside[key] = int(flag.sum())
            rows = rows[~flag]
    texts = rows["text"].to_numpy()
    labels = rows["label"].astype(str).to_numpy()
    groups = rows["group"].astype(str).to_numpy()
    positions = rows["position"].to_numpy(dtype=np.int64)
    by_group: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        by_group.setdefault(g, []).append(i)
    # a valid set has one label and exactly the positions 0..P-1
    sets: dict[str, tuple[str, list[int]]] = {}
    bad_sets = 0
    for g, idx in by_group.items():
        pos = positions[idx]
        if len({labels[i] for i in idx}) != 1 or sorted(pos.tolist()) != list(range(len(idx))):
            bad_sets += 1
            continue
        sets[g] = (labels[idx[0]], [idx[k] for k in np.argsort(pos)])
    lengths = [len(m) for _, m in sets.values()]
    n_pos = max(set(lengths), key=lambda n: (lengths.count(n), n)) if lengths else 0
    other_len = sum(1 for n in lengths if n != n_pos)
    if n_pos == 1:
        raise ValueError(f"order_alignment needs sets of at least two positions; the sets of "
                         f"these records have one (task {task!r})")
    names = [g for g, (_, m) in sets.items() if len(m) == n_pos]  # record order
    if sampling != "reference":
        names.sort()
    set_labels = [sets[g][0] for g in names]
    kept, n_labels, n_sets = _sample(set_labels, len(names), episode_size, episodes_per_label,
                                     seed, sampling)
    intern = _Texts()
    episodes, item_labels, ids = [], [], []
    for label, eps in kept:
        for ep in eps:
            members = [sets[names[s]][1] for s in ep]
            for p in range(n_pos):
                episodes.append(tuple(intern(texts[m[p]]) for m in members))
            item_labels.append(label)
            ids.append("+".join(names[s] for s in ep))
    dropped = _report(task, {**invalid, "malformed_sets": bad_sets,
                             "sets_of_other_length": other_len, "labels": n_labels,
                             "sets_of_dropped_labels": n_sets},
                      f"sets need one label and positions 0..{n_pos - 1}; labels need "
                      f"{episode_size * episodes_per_label} sets")
    dropped.update({k: v for k, v in set_aside.items() if v})
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
                     tuple(episodes), n_pos, np.asarray(item_labels, dtype=object), tuple(ids),
                     dropped=dropped, sampling=sampling)


def build_probing(records: Any, task: str, episode_size: int, episodes_per_label: int,
                  seed: int, sampling: str = "reference") -> TaskInput:
    """Probing and classification: every text with a label and a split is one item."""
    if episode_size != 1:
        raise ValueError(f"{task} classifies single texts: episode_size must be 1, "
                         f"got {episode_size}")
    _require(records, ["text", "label", "split"], task)
    rows, invalid = _valid_rows(records, ["label", "split"])
    splits = rows["split"].astype(str).to_numpy()
    known = np.isin(splits, SPLITS)
    if not known.all():
        raise ValueError(f"records['split'] must be one of {SPLITS}; found "
                         f"{sorted(set(splits[~known].tolist()))[:5]}")
    features = None
    if "feature" in rows.columns and rows["feature"].notna().any():
        features = rows["feature"].fillna("").astype(str).to_numpy(dtype=object)
    for name, part in _by_feature(splits, features):
        missing = [s for s in SPLITS if not (part == s).any()]
        if missing:
            where = f" (feature {name!r})" if features is not None else ""
            raise ValueError(f"{task} needs texts in every split; split(s) {missing} are "
                             f"empty{where}")
    intern = _Texts()
    episodes = tuple((intern(t),) for t in rows["text"].to_numpy())
    ids = tuple(str(i) for i in rows.index)
    if features is not None:
        ids = tuple(f"{f}:{i}" for f, i in zip(features, ids, strict=True))
    dropped = _report(task, invalid, "texts need a label and a split")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(), episodes, 1,
                     rows["label"].astype(str).to_numpy(dtype=object), ids,
                     splits=splits.astype(object), dropped=dropped, sampling=sampling,
                     features=features)


def _by_feature(splits: np.ndarray, features: np.ndarray | None) -> list[tuple[str, Any]]:
    if features is None:
        return [("", splits)]
    return [(f, splits[features == f]) for f in dict.fromkeys(features.tolist())]


def feature_order(task_input: TaskInput) -> list[str]:
    """The features of a probing input in the order they first appear ([""] if none)."""
    if task_input.features is None:
        return [""]
    return list(dict.fromkeys(task_input.features.tolist()))


def feature_mask(task_input: TaskInput, feature: str) -> np.ndarray:
    """Rows of ``feature`` (every row when the input has no ``feature`` column)."""
    if task_input.features is None:
        return np.ones(task_input.n_items, dtype=bool)
    return task_input.features == feature


def build_ranked(records: Any, task: str, episode_size: int, episodes_per_label: int,
                 seed: int, sampling: str = "reference") -> TaskInput:
    """Ranked retrieval (``retrieval_ndcg``): every query and corpus text is one item.

    Queries carry their judged documents as JSON ``{target group id: grade}`` in the
    ``relevance`` column; targets are identified by ``group``.
    """
    import json

    if episode_size != 1:
        raise ValueError(f"{task} ranks single texts: episode_size must be 1, "
                         f"got {episode_size}")
    _require(records, ["text", "side", "group", "relevance"], task)
    rows, invalid = _valid_rows(records, ["side", "group"])
    sides = rows["side"].astype(str).to_numpy()
    if not np.isin(sides, SIDES).all():
        raise ValueError(f"records['side'] must be 'query' or 'target'; found "
                         f"{sorted(set(sides[~np.isin(sides, SIDES)].tolist()))[:5]}")
    queries, targets = rows[sides == "query"], rows[sides == "target"]
    column = {g: j for j, g in enumerate(targets["group"].astype(str))}
    relevance = np.zeros((len(queries), len(targets)))
    for i, judged in enumerate(queries["relevance"]):
        for doc, grade in json.loads(judged or "{}").items():
            if doc in column:
                relevance[i, column[doc]] = float(grade)
    intern = _Texts()
    ordered = [queries, targets]
    episodes = tuple((intern(t),) for part in ordered for t in part["text"].to_numpy())
    labels = np.concatenate([p["group"].astype(str).to_numpy(dtype=object) for p in ordered])
    item_sides = np.array(["query"] * len(queries) + ["target"] * len(targets), dtype=object)
    dropped = _report(task, invalid, "texts need a side and a group id")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(), episodes, 1,
                     labels, tuple(f"{s}:{g}" for s, g in zip(item_sides, labels, strict=True)),
                     sides=item_sides, relevance=relevance, dropped=dropped,
                     sampling=sampling)




def restrict(task_input: TaskInput, labels: Sequence[str]) -> tuple[TaskInput, np.ndarray]:
    """The items of ``labels`` only, and their positions in ``task_input``.

    A label sub-result (:class:`stebkit.datasets.spec.Submetric`) filters the items
    already built, as the reference filters its processed data; the texts stay as they
    are. Predefined pairs and graded relevance are refused (their items are not
    independent).

    >>> import pandas as pd
    >>> rec = pd.DataFrame({"text": list("abcdef"), "label": list("xxyyzz")})
    >>> sub, idx = restrict(build_labelled(rec, "clustering", 1, 2, 42), ["x", "z"])
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
    >>> ti = build_retrieval(rec, "retrieval", -1, 1, 42)
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


# --------------------------------------------------------------------------- embeddings


def pool_episodes(task_input: TaskInput, text_embeddings: np.ndarray) -> np.ndarray:
    """Embed every episode as the mean of its texts' embeddings.

    Parameters
    ----------
    task_input : TaskInput
    text_embeddings : numpy.ndarray, shape (len(task_input.texts), d)
        Row ``i`` embeds ``task_input.texts[i]``.

    Returns
    -------
    numpy.ndarray of float32
        ``(n_items, d)``, or ``(n_items, n_positions, d)`` for order alignment.

    Examples
    --------
    >>> import pandas as pd
    >>> records = pd.DataFrame({"text": ["a", "b", "c", "d"], "label": ["x", "x", "y", "y"]})
    >>> ti = build_labelled(records, "clustering", 2, 1, 42)
    >>> pool_episodes(ti, np.eye(4, dtype=np.float32)).tolist()
    [[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]]
    """
    emb = np.asarray(text_embeddings)
    if emb.ndim != 2 or emb.shape[0] != len(task_input.texts):
        raise ValueError(f"text_embeddings must have shape ({len(task_input.texts)}, d), one "
                         f"row per task_input.texts entry; got {emb.shape}")
    sizes = np.fromiter((len(ep) for ep in task_input.episodes), dtype=np.int64)
    flat = np.fromiter((i for ep in task_input.episodes for i in ep), dtype=np.int64,
                       count=int(sizes.sum()))
    owners = np.repeat(np.arange(len(sizes)), sizes)
    return shape_items(task_input, mean_by_owner(emb[flat], owners, len(sizes)))


def shape_items(task_input: TaskInput, episode_embeddings: np.ndarray) -> np.ndarray:
    """Reshape one row per episode to one row (or one ``(n_positions, d)`` block) per item."""
    emb = np.asarray(episode_embeddings, dtype=np.float32)
    if emb.ndim != 2 or emb.shape[0] != len(task_input.episodes):
        raise ValueError(f"episode embeddings must have shape ({len(task_input.episodes)}, d); "
                         f"got {emb.shape}")
    if task_input.n_positions == 1:
        return emb
    return emb.reshape(task_input.n_items, task_input.n_positions, emb.shape[1])


def by_split(task_input: TaskInput, emb: np.ndarray) -> list[np.ndarray]:
    """``[X_train, y_train, X_validation, y_validation, X_test, y_test]`` of a split input.

    >>> import pandas as pd
    >>> records = pd.DataFrame({"text": list("abcdef"), "label": list("xyxyxy"),
    ...                         "split": ["train"] * 2 + ["validation"] * 2 + ["test"] * 2})
    >>> parts = by_split(build_probing(records, "probing", 1, 1, 42), np.eye(6))
    >>> [p.shape[0] for p in parts]
    [2, 2, 2, 2, 2, 2]
    """
    parts = []
    for split in SPLITS:
        m = task_input.splits == split
        parts += [emb[m], task_input.labels[m]]
    return parts


# --------------------------------------------------------------------------- item ids


def episode_ids(task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
    """One id per item (clustering: episodes)."""
    return list(task_input.ids)


def no_ids(task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
    """No stored ids (all-to-all pairs: n(n-1)/2 pairs are not kept)."""
    return []


def pair_ids(task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
    """The pair id of each predefined pair."""
    return [i.rsplit(":", 1)[0] for i in task_input.ids[0::2]]


def query_ids(task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
    """The kept queries (retrieval drops queries whose label has no target)."""
    ids = np.asarray(task_input.ids, dtype=object)
    queries = ids[task_input.sides == "query"]
    index = result.get("details", {}).get("query_index")
    if index is None:
        return queries.tolist()
    return queries[np.asarray(index, dtype=np.int64)].tolist()


def set_pair_ids(task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
    """Each compared pair of sets, ``"<set i>|<set j>"`` (order alignment)."""
    ids = task_input.ids
    return [f"{ids[i]}|{ids[j]}" for i, j in np.asarray(result["details"]["pair_index"])]


def held_out_ids(task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
    """The test texts of a split input (probing, classification), feature by feature
    when the input has several features."""
    ids = np.asarray(task_input.ids, dtype=object)
    test = task_input.splits == "test"
    return [i for f in feature_order(task_input)
            for i in ids[test & feature_mask(task_input, f)].tolist()]
