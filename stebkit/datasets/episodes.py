"""Episodes: from a dataset's records to the inputs of one task function.

An *episode* is a small set of texts that share a label and are embedded as one vector,
the mean of their text embeddings (the reference's "writing sample" of ``episode_size``
atomic units). For ordered sets (order alignment) an episode has one member set per
position and is embedded per position.

The protocol follows the STEB reference loader:

* texts are grouped by label; a label contributes its first
  ``N = episode_size * episodes_per_label`` valid texts and **labels with fewer than N
  valid texts are dropped**; the N texts are cut into ``episodes_per_label`` episodes of
  ``episode_size`` consecutive texts;
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

Where the reference takes "the first N" texts in file order, stebkit first shuffles the
records with ``seed`` and then takes the first N. File order often follows time, source
file or topic, so a prefix is a biased sample; a seeded shuffle keeps the reference's
"first N of a sequence" rule (episodes of larger sizes reuse the texts of smaller ones,
as in the reference) while making the sample representative and reproducible.

Every filter reports what it removed: the counts are kept in :attr:`TaskInput.dropped`
and announced with a :class:`FilterWarning`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from stebkit.datasets.spec import ALL_TASKS

SPLITS = ("train", "validation", "test")
SIDES = ("query", "target")


class FilterWarning(UserWarning):
    """A documented filter removed texts, labels, pairs or sets while building episodes."""


@dataclass(frozen=True, eq=False)
class TaskInput:
    """Everything one task evaluation needs, before any model is involved.

    Attributes
    ----------
    task : str
        The task family (one of :data:`stebkit.datasets.spec.TASKS`).
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
) -> tuple[list[tuple[Any, list[list[int]]]], int, int]:
    """Seeded "first N per key" sampling, cut into episodes of consecutive rows.

    ``keys[i]`` is the key (label, or (label, side)) of row ``i``. Returns, per kept key in
    sorted order, its episodes as lists of row indices, plus the numbers of dropped keys
    and of rows those keys held.
    """
    order = _seeded_order(n_rows, seed)
    by_key: dict[Any, list[int]] = {}
    for i in order:
        by_key.setdefault(keys[i], []).append(int(i))
    need = 1 if episode_size == -1 else episode_size * episodes_per_label
    kept, dropped_keys, dropped_rows = [], 0, 0
    for key in sorted(by_key):
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


def _build_labelled(records: Any, task: str, episode_size: int, episodes_per_label: int,
                    seed: int) -> TaskInput:
    """Clustering and all-to-all pairs: episodes sampled per label."""
    _require(records, ["text", "label"], task)
    rows, invalid = _valid_rows(records, ["label"])
    labels = rows["label"].astype(str).to_numpy()
    texts = rows["text"].to_numpy()
    kept, n_labels, n_rows = _sample(labels, len(rows), episode_size, episodes_per_label, seed)
    intern = _Texts()
    episodes, item_labels, ids = [], [], []
    for label, eps in kept:
        for k, ep in enumerate(eps):
            episodes.append(tuple(intern(texts[i]) for i in ep))
            item_labels.append(label)
            ids.append(f"{label}#{k}")
    need = "all" if episode_size == -1 else episode_size * episodes_per_label
    dropped = _report(task, {**invalid, "labels": n_labels,
                             "texts_of_dropped_labels": n_rows},
                      f"labels need {need} valid texts for {episodes_per_label} episode(s) of "
                      f"size {episode_size}")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
                     tuple(episodes), 1, np.asarray(item_labels, dtype=object), tuple(ids),
                     dropped=dropped)


def _build_retrieval(records: Any, task: str, episode_size: int, episodes_per_label: int,
                     seed: int) -> TaskInput:
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
    kept, n_keys, n_rows = _sample(keys, len(rows), episode_size, episodes_per_label, seed)
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
                     sides=np.asarray(item_sides, dtype=object), dropped=dropped)


def _build_pairs(records: Any, task: str, episode_size: int, episodes_per_label: int,
                 seed: int) -> TaskInput:
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
                     same=np.asarray(same_out, dtype=bool), dropped=dropped)


def _build_ordered(records: Any, task: str, episode_size: int, episodes_per_label: int,
                   seed: int) -> TaskInput:
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
    names = sorted(g for g, (_, m) in sets.items() if len(m) == n_pos)
    set_labels = [sets[g][0] for g in names]
    kept, n_labels, n_sets = _sample(set_labels, len(names), episode_size, episodes_per_label,
                                     seed)
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
                     dropped=dropped)


def _build_probing(records: Any, task: str, episode_size: int, episodes_per_label: int,
                   seed: int) -> TaskInput:
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
    missing = [s for s in SPLITS if not (splits == s).any()]
    if missing:
        raise ValueError(f"{task} needs texts in every split; split(s) {missing} are empty")
    intern = _Texts()
    episodes = tuple((intern(t),) for t in rows["text"].to_numpy())
    ids = tuple(str(i) for i in rows.index)
    dropped = _report(task, invalid, "texts need a label and a split")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(), episodes, 1,
                     rows["label"].astype(str).to_numpy(dtype=object), ids,
                     splits=splits.astype(object), dropped=dropped)


def _build_ranked(records: Any, task: str, episode_size: int, episodes_per_label: int,
                  seed: int) -> TaskInput:
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
                     sides=item_sides, relevance=relevance, dropped=dropped)


# --------------------------------------------------------------------------- callers


def _call_clustering(ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int) -> dict:
    from stebkit.tasks import clustering
    return clustering(emb, ti.labels, batch_size=batch_size, seed=seed)


def _call_all_to_all(ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int) -> dict:
    from stebkit.tasks import all_to_all_pairs
    return all_to_all_pairs(emb, ti.labels)


def _call_pairs(ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int) -> dict:
    from stebkit.tasks import predefined_pairs
    return predefined_pairs(emb[0::2], emb[1::2], ti.same)


def _call_retrieval(ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int) -> dict:
    from stebkit.tasks import retrieval
    q = ti.sides == "query"
    return retrieval(emb[q], ti.labels[q], emb[~q], ti.labels[~q])


def _call_order(ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int) -> dict:
    from stebkit.tasks import order_alignment
    return order_alignment(emb, ti.labels)


def _by_split(ti: TaskInput, emb: np.ndarray) -> list[np.ndarray]:
    """``[X_train, y_train, X_validation, y_validation, X_test, y_test]``."""
    parts = []
    for split in SPLITS:
        m = ti.splits == split
        parts += [emb[m], ti.labels[m]]
    return parts


def _call_probing(ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int) -> dict:
    from stebkit.tasks import probing
    return probing(*_by_split(ti, emb), seed=seed)


def _call_classification(ti: TaskInput, emb: np.ndarray, *, seed: int,
                         batch_size: int) -> dict:
    from stebkit.tasks import classification
    return classification(*_by_split(ti, emb), seed=seed)


def _call_ranked(ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int) -> dict:
    from stebkit.tasks import retrieval_ndcg
    q = ti.sides == "query"
    return retrieval_ndcg(emb[q], emb[~q], ti.relevance)


Builder = Callable[[Any, str, int, int, int], TaskInput]
Caller = Callable[..., dict]

PROTOCOLS: Mapping[str, tuple[Builder, Caller]] = MappingProxyType({
    "clustering": (_build_labelled, _call_clustering),
    "all_to_all_pairs": (_build_labelled, _call_all_to_all),
    "predefined_pairs": (_build_pairs, _call_pairs),
    "retrieval": (_build_retrieval, _call_retrieval),
    "order_alignment": (_build_ordered, _call_order),
    "probing": (_build_probing, _call_probing),
    "classification": (_build_probing, _call_classification),
    "retrieval_ndcg": (_build_ranked, _call_ranked),
})
"""Task family -> (episode builder, task-function caller): the one place tasks are wired."""


# --------------------------------------------------------------------------- public API


def build_episodes(
    records: Any, task: str, *, episode_size: int, episodes_per_label: int, seed: int = 42
) -> TaskInput:
    """Build the episodes of one task configuration from a dataset's records.

    Parameters
    ----------
    records : pandas.DataFrame
        Records with the columns of :mod:`stebkit.datasets.spec` that ``task`` needs.
    task : str
        One of :data:`stebkit.datasets.spec.TASKS`.
    episode_size : int
        Texts pooled per episode; ``-1`` pools all texts of a label (retrieval).
    episodes_per_label : int
        Episodes sampled per label (the reference's ``n_episodes_per_class``); unused by
        predefined pairs, probing and ``episode_size=-1``, which use every text.
    seed : int, default 42
        Seed of the shuffle that precedes "take the first N texts of each label".

    Returns
    -------
    TaskInput

    Warns
    -----
    FilterWarning
        When a documented filter drops texts, labels, pairs or sets; the counts are also
        in ``TaskInput.dropped``.

    Examples
    --------
    >>> import pandas as pd
    >>> records = pd.DataFrame({"text": ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"],
    ...                         "label": ["a"] * 4 + ["b"] * 4})
    >>> ti = build_episodes(records, "clustering", episode_size=2, episodes_per_label=2)
    >>> ti.ids, ti.labels.tolist()
    (('a#0', 'a#1', 'b#0', 'b#1'), ['a', 'a', 'b', 'b'])
    >>> sorted(ti.texts[i] for ep in ti.episodes[:2] for i in ep)
    ['a1', 'a2', 'a3', 'a4']
    """
    if task not in PROTOCOLS:
        raise ValueError(f"unknown task {task!r}; known tasks are {ALL_TASKS}")
    if not hasattr(records, "columns"):
        raise TypeError(f"records must be a pandas DataFrame, got {type(records).__name__}")
    _check_size(episode_size, episodes_per_label)
    builder, _ = PROTOCOLS[task]
    return builder(records, task, int(episode_size), int(episodes_per_label), int(seed))


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
    >>> ti = build_episodes(records, "clustering", episode_size=2, episodes_per_label=1)
    >>> emb = np.array([[len(ti.texts[:i + 1]), 1] for i in range(4)], dtype=np.float32)
    >>> pool_episodes(ti, emb).shape
    (2, 2)
    """
    emb = np.asarray(text_embeddings)
    if emb.ndim != 2 or emb.shape[0] != len(task_input.texts):
        raise ValueError(f"text_embeddings must have shape ({len(task_input.texts)}, d), one "
                         f"row per task_input.texts entry; got {emb.shape}")
    sizes = np.fromiter((len(ep) for ep in task_input.episodes), dtype=np.int64)
    flat = np.fromiter((i for ep in task_input.episodes for i in ep), dtype=np.int64,
                       count=int(sizes.sum()))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    sums = np.add.reduceat(emb[flat].astype(np.float64), starts, axis=0)
    return shape_items(task_input, (sums / sizes[:, None]).astype(np.float32))


def shape_items(task_input: TaskInput, episode_embeddings: np.ndarray) -> np.ndarray:
    """Reshape one row per episode to one row (or one ``(n_positions, d)`` block) per item."""
    emb = np.asarray(episode_embeddings, dtype=np.float32)
    if emb.ndim != 2 or emb.shape[0] != len(task_input.episodes):
        raise ValueError(f"episode embeddings must have shape ({len(task_input.episodes)}, d); "
                         f"got {emb.shape}")
    if task_input.n_positions == 1:
        return emb
    return emb.reshape(task_input.n_items, task_input.n_positions, emb.shape[1])


def run_task(task_input: TaskInput, item_embeddings: np.ndarray, *, seed: int = 42,
             batch_size: int = 32) -> dict:
    """Call the ``stebkit.tasks`` function of ``task_input.task`` on pooled embeddings.

    ``item_embeddings`` is what :func:`pool_episodes` returns. The result is the task
    function's dict: float metrics plus ``"details"`` (per-item arrays).
    """
    if task_input.n_items == 0:
        raise ValueError(f"{task_input.task}: no items left after filtering "
                         f"(dropped: {dict(task_input.dropped)})")
    _, caller = PROTOCOLS[task_input.task]
    return caller(task_input, item_embeddings, seed=seed, batch_size=batch_size)


def unit_ids(task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
    """Ids of the resampling units of ``result`` (the task's bootstrap unit), in the order
    of its per-item ``details`` arrays: episodes (clustering), pairs (predefined pairs),
    kept queries (retrieval), pairs of sets (order alignment), test texts (probing).
    All-to-all pairs have no stored per-pair ids (there are n(n-1)/2 of them): ``[]``.
    """
    task, ids = task_input.task, np.asarray(task_input.ids, dtype=object)
    details = result.get("details", {})
    if task == "clustering":
        return ids.tolist()
    if task == "predefined_pairs":
        return [i.rsplit(":", 1)[0] for i in ids[0::2]]
    if task == "retrieval":
        queries = ids[task_input.sides == "query"]
        return queries[np.asarray(details["query_index"], dtype=np.int64)].tolist()
    if task == "order_alignment":
        return [f"{ids[i]}|{ids[j]}" for i, j in np.asarray(details["pair_index"])]
    if task in ("probing", "classification"):
        return ids[task_input.splits == "test"].tolist()
    if task == "retrieval_ndcg":
        return ids[task_input.sides == "query"].tolist()
    return []
