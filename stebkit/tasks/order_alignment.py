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

import numpy as np

from . import _checks, inputs
from .family import TaskFamily, mean_of
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

    src = _checks.unit_rows(np.asarray(source, dtype=np.float64))
    tgt = _checks.unit_rows(np.asarray(target, dtype=np.float64))
    cos = src @ tgt.T
    rows, cols = linear_sum_assignment(1.0 - np.maximum(cos, 0.0))
    return cols[np.argsort(rows)], cos


def _accuracy(src: np.ndarray, tgt: np.ndarray, offset: int) -> float:
    """Fraction of ``src`` rows the optimal assignment maps to position ``row + offset``."""
    from scipy.optimize import linear_sum_assignment

    cost = 1.0 - np.maximum(src @ tgt.T, 0.0)
    rows, cols = linear_sum_assignment(cost)
    return float(np.mean(cols[np.argsort(rows)] == np.arange(src.shape[0]) + offset))


def order_alignment(embeddings: np.ndarray, labels: np.ndarray) -> dict:
    """Hungarian order alignment of same-label sequences, with STEB's distractor variants.

    Parameters
    ----------
    embeddings : ndarray of shape (n_sequences, n_positions, d)
        Embeddings of each sequence's texts, ordered from most to least intense; at least
        2 positions; no zero or non-finite vectors.
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
    >>> import numpy as np
    >>> from stebkit.tasks import order_alignment
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
    unit = _checks.unit_rows(x)
    code, k = _checks.codes(y)
    pairs = []
    for c in range(k):
        idx = np.flatnonzero(code == c)
        ii, jj = np.triu_indices(idx.shape[0], k=1)
        pairs.append(np.column_stack([idx[ii], idx[jj]]))
    # Pairs grouped by label in first-appearance order, each group in combinations order.
    first_seen = np.unique(code, return_index=True)[1]
    pair_index = np.concatenate([pairs[c] for c in np.argsort(first_seen)]).astype(np.int64)
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
    if n_pairs == 0:
        nan = _checks.degenerate("no two sequences share a label: order alignment is "
                                 "undefined, returning NaN")
        acc_mean = dis_mean = last_mean = first_mean = nan
    else:
        acc_mean = float(acc.mean())
        dis_mean = float(np.concatenate([last, first]).mean())
        last_mean, first_mean = float(last.mean()), float(first.mean())
    return TaskResult(
        {"acc_mean": acc_mean, "distractor_last_acc_mean": last_mean,
         "distractor_first_acc_mean": first_mean, "distractor_acc_mean": dis_mean},
        {"n_pairs": n_pairs},
        {"pair_index": pair_index, "acc": acc, "distractor_last_acc": last,
         "distractor_first_acc": first, "distractor_acc": (last + first) / 2})


def _call(ti, emb, *, seed: int, batch_size: int) -> dict:  # noqa: ANN001
    return order_alignment(emb, ti.labels)


FAMILY = TaskFamily(
    name="order_alignment", function=order_alignment,
    metrics={"distractor_acc_mean": True, "acc_mean": True,
             "distractor_last_acc_mean": True, "distractor_first_acc_mean": True},
    call=_call, build=inputs.build_ordered, statistic=mean_of("distractor_acc"),
    unit="pair of sets", item_ids=inputs.set_pair_ids, per_item=("distractor_acc", None),
    episode_sizes=(1,), episodes_per_label=100, columns=("group", "position"),
    fast=((1,), 50), default=((1,), "auto"),
    description="Hungarian alignment of two style-ordered sets, with distractors")
