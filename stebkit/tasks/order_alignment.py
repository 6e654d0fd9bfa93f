"""Order alignment: can two style-ordered lists be aligned position by position?

Each sequence is a list of texts ordered by style intensity (position 0 = most intense).
For every unordered pair of sequences ``(i, j)`` with the same label (``i < j`` in input
order, as ``itertools.combinations``), the Hungarian algorithm assigns the positions of
``i`` to those of ``j`` with cost ``1 - max(cos, 0)``; accuracy is the fraction of positions
mapped to the same position. Two distractor variants (STEB) make it harder:

- *last*: the last (least intense) text of ``i`` is removed from ``i`` and replaces the last
  text of ``j``; the shortened ``i`` is aligned to the altered ``j`` (expected positions
  ``0 .. m-2``);
- *first*: the first (most intense) text of ``i`` is removed from ``i`` and replaces the
  first text of ``j``; expected positions are ``1 .. m-1``.

``distractor_acc_mean`` is the mean over both variants of all pairs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from stebkit.datasets.spec import RECORD_COLUMNS

from . import _checks, similarity
from .family import Statistic, TaskFamily, mean_of
from .inputs import TaskInput, Texts, report_dropped, require_columns, sample_episodes, valid_rows
from .result import TaskResult


def alignment(source: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The Hungarian alignment of ``source`` rows to ``target`` rows, as order alignment
    computes it: cost ``1 - max(cos, 0)``.

    Returns ``(columns, cosines)``: the target position assigned to each source row, and
    the cosine matrix (source x target).

    >>> cols, cos = alignment(np.eye(3), np.eye(3)[[2, 0, 1]])
    >>> cols.tolist()
    [1, 2, 0]
    """
    from scipy.optimize import linear_sum_assignment

    cos = similarity.cosine_matrix(source, target)
    rows, cols = linear_sum_assignment(1.0 - np.maximum(cos, 0.0))
    return cols[np.argsort(rows)], cos


def _accuracy(src: np.ndarray, tgt: np.ndarray, offset: int) -> float:
    """Fraction of ``src`` rows the optimal assignment maps to position ``row + offset``."""
    from scipy.optimize import linear_sum_assignment

    cost = 1.0 - np.maximum(similarity.cosine_matrix(src, tgt, unit=True), 0.0)
    rows, cols = linear_sum_assignment(cost)
    return float(np.mean(cols[np.argsort(rows)] == np.arange(src.shape[0]) + offset))


def order_alignment(embeddings: np.ndarray, labels: np.ndarray) -> TaskResult:
    """Hungarian order alignment of same-label sequences, with STEB's distractor variants.

    Parameters
    ----------
    embeddings : ndarray of shape (n_sequences, n_positions, d)
        Embeddings of each sequence's texts, ordered from most to least intense; at least
        2 positions; finite (a zero vector has cosine 0 with every text, as in the
        reference).
    labels : array-like of shape (n_sequences,)
        Only sequences with equal labels are compared.

    Returns
    -------
    TaskResult
        ``metrics``: ``acc_mean``, ``distractor_last_acc_mean`` and
        ``distractor_first_acc_mean`` (each distractor variant) and ``distractor_acc_mean``
        (main: both variants; the reference's names); ``counts``: ``n_pairs``; ``details``
        with
        per-pair arrays in pair order: ``pair_index`` (n_pairs, 2) int, ``acc``,
        ``distractor_last_acc``, ``distractor_first_acc`` and ``distractor_acc`` (the
        mean of both variants, the pair's share of the main metric). With no same-label pair the
        means are NaN (STEB returns 0.0) with a :class:`DegenerateWarning`.

    Examples
    --------
    >>> levels = np.eye(3, dtype=np.float32)
    >>> emb = np.stack([levels, levels + 0.1])
    >>> r = order_alignment(emb, ["formality", "formality"])
    >>> r["acc_mean"], r["distractor_acc_mean"]
    (1.0, 1.0)
    """
    x = _checks.embeddings(embeddings, "embeddings", ndim=3)
    y = _checks.labels(labels, "labels", x.shape[0], "embeddings")
    if x.shape[1] < 2:
        raise ValueError(f"embeddings has {x.shape[1]} position(s) per sequence; order "
                         "alignment needs at least 2")
    unit = similarity.unit_rows(x)
    pair_index = _same_label_pairs(y)
    n_pairs = pair_index.shape[0]
    acc, last, first = _pair_accuracies(unit, pair_index)
    if n_pairs == 0:
        _checks.degenerate("no two sequences share a label: order alignment is undefined, "
                           "returning NaN")
    return TaskResult(
        _means(acc, last, first), {"n_pairs": n_pairs},
        {"pair_index": pair_index, "acc": acc, "distractor_last_acc": last,
         "distractor_first_acc": first, "distractor_acc": (last + first) / 2})


def _means(acc: np.ndarray, last: np.ndarray, first: np.ndarray) -> dict[str, float]:
    """The metrics of :func:`order_alignment` from its per-pair accuracies (NaN when there
    is no pair)."""
    if acc.shape[0] == 0:
        acc_mean = dis_mean = last_mean = first_mean = float("nan")
    else:
        acc_mean = float(acc.mean())
        dis_mean = float(np.concatenate([last, first]).mean())
        last_mean, first_mean = float(last.mean()), float(first.mean())
    return {"acc_mean": acc_mean, "distractor_last_acc_mean": last_mean,
            "distractor_first_acc_mean": first_mean, "distractor_acc_mean": dis_mean}


def _same_label_pairs(y: np.ndarray) -> np.ndarray:
    """Every pair ``(i, j)``, ``i < j``, of sequences with one label, as an (n_pairs, 2)
    int array: grouped by label in first-appearance order, each group in combinations
    order."""
    code, k = _checks.codes(y)
    pairs = []
    for c in range(k):
        idx = np.flatnonzero(code == c)
        ii, jj = np.triu_indices(idx.shape[0], k=1)
        pairs.append(np.column_stack([idx[ii], idx[jj]]))
    first_seen = np.unique(code, return_index=True)[1]
    return np.concatenate([pairs[c] for c in np.argsort(first_seen)]).astype(np.int64)


def _pair_accuracies(unit: np.ndarray, pair_index: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair: the alignment accuracy, and the accuracies with the last and with the
    first position of the second sequence replaced by the first sequence's (distractors)."""
    n_pairs = pair_index.shape[0]
    acc = np.empty(n_pairs)
    last = np.empty(n_pairs)
    first = np.empty(n_pairs)
    for p, (i, j) in enumerate(pair_index):
        a, b = unit[i], unit[j]
        acc[p] = _accuracy(a, b, 0)
        b_last = b.copy()
        b_last[-1] = a[-1]
        last[p] = _accuracy(a[:-1], b_last, 0)
        b_first = b.copy()
        b_first[0] = a[0]
        first[p] = _accuracy(a[1:], b_first, 1)
    return acc, last, first


def build_ordered(records: Any, task: str, episode_size: int, episodes_per_label: int,
                  seed: int, sampling: str = "reference") -> TaskInput:
    """Order alignment: parallel sets (``group``) ordered by ``position``, per label."""
    if episode_size == -1:
        raise ValueError("order_alignment needs a positive episode_size (sets per episode)")
    require_columns(records, ["text", "label", "group", "position"], task)
    rows, invalid = valid_rows(records, ["label", "group", "position"])
    rows, set_aside = _set_aside(rows)
    texts = rows["text"].to_numpy()
    sets, bad_sets = _valid_sets(rows)
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
    kept, n_labels, n_sets = sample_episodes(set_labels, len(names), episode_size,
                                             episodes_per_label, seed, sampling)
    intern = Texts()
    episodes, item_labels, ids = _set_episodes(kept, [sets[g][1] for g in names], names,
                                               texts, n_pos, intern)
    dropped = report_dropped(task, {**invalid, "malformed_sets": bad_sets,
                                    "sets_of_other_length": other_len, "labels": n_labels,
                                    "sets_of_dropped_labels": n_sets},
                             f"sets need one label and positions 0..{n_pos - 1}; labels need "
                             f"{episode_size * episodes_per_label} sets")
    dropped.update({k: v for k, v in set_aside.items() if v})
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
                     tuple(episodes), n_pos, np.asarray(item_labels, dtype=object), tuple(ids),
                     dropped=dropped, sampling=sampling)


def _set_aside(rows: Any) -> tuple[Any, dict[str, int]]:
    """``rows`` less the distractor and repeated-set rows (left out by design), and how many
    of each were left out."""
    set_aside = {}  # rows left out by design: counted, but not a loss
    for column, key in (("distractor", "distractor_texts"), ("repeat", "repeated_set_texts")):
        if column in rows.columns:
            flag = rows[column].fillna(False).to_numpy(dtype=bool)
            set_aside[key] = int(flag.sum())
            rows = rows[~flag]
    return rows, set_aside


def _valid_sets(rows: Any) -> tuple[dict[str, tuple[str, list[int]]], int]:
    """``{group: (label, row positions ordered by position)}`` of the valid sets (one label,
    exactly the positions 0..P-1), in record order, and the number of other sets."""
    labels = rows["label"].astype(str).to_numpy()
    groups = rows["group"].astype(str).to_numpy()
    positions = rows["position"].to_numpy(dtype=np.int64)
    by_group: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        by_group.setdefault(g, []).append(i)
    sets: dict[str, tuple[str, list[int]]] = {}
    bad_sets = 0
    for g, idx in by_group.items():
        pos = positions[idx]
        if len({labels[i] for i in idx}) != 1 or sorted(pos.tolist()) != list(range(len(idx))):
            bad_sets += 1
            continue
        sets[g] = (labels[idx[0]], [idx[k] for k in np.argsort(pos)])
    return sets, bad_sets


def _set_episodes(kept: Any, members_of: list[list[int]], names: list[str], texts: Any,
                  n_pos: int, intern: Texts) -> tuple[list[tuple[int, ...]], list[str], list[str]]:
    """The items of the sampled episodes: per episode, one text tuple per position (the
    episode's sets side by side), its label and its id (the set names joined by ``+``)."""
    episodes, item_labels, ids = [], [], []
    for label, eps in kept:
        for ep in eps:
            members = [members_of[s] for s in ep]
            for p in range(n_pos):
                episodes.append(tuple(intern(texts[m[p]]) for m in members))
            item_labels.append(label)
            ids.append("+".join(names[s] for s in ep))
    return episodes, item_labels, ids


class _OrderAlignment(TaskFamily):
    """Order alignment: style-ordered parallel sets, every pair of sets of one label."""

    builder = staticmethod(build_ordered)

    def _run(self, ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int,
             scoring: str) -> TaskResult:
        return order_alignment(emb, ti.labels)

    def statistic(self, details: Mapping[str, Any]) -> tuple[int, Statistic]:
        return mean_of("distractor_acc")(details)

    def item_ids(self, task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
        """Each compared pair of sets, ``"<set i>|<set j>"``."""
        ids = task_input.ids
        return [f"{ids[i]}|{ids[j]}" for i, j in np.asarray(result["details"]["pair_index"])]


FAMILY = _OrderAlignment(
    name="order_alignment", code="oa", function=order_alignment,
    metrics={"distractor_acc_mean": True, "acc_mean": True,
             "distractor_last_acc_mean": True, "distractor_first_acc_mean": True},
    unit="pair of sets", per_item=("distractor_acc", None),
    episode_sizes=(1,), episodes_per_label=100, columns=RECORD_COLUMNS["order_alignment"],
    fast=((1,), 50), default=((1,), "auto"),
    description="Hungarian alignment of two style-ordered sets, with distractors")
