"""Retrieval: rank the targets for each query by cosine similarity.

A target is relevant to a query when their labels are equal. As in STEB, queries and
targets whose label is absent from the other side are removed first (their counts are
returned). The similarity matrix is processed in chunks of queries, so memory stays
bounded for any number of queries.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from stebkit.datasets.spec import RECORD_COLUMNS

from . import _checks, similarity
from .family import Statistic, TaskFamily, mean_of
from .inputs import (
    SIDES,
    TaskInput,
    Texts,
    _checked_sides,
    report_dropped,
    require_columns,
    sample_episodes,
    valid_rows,
)
from .result import TaskResult

#: Cut-offs of the reported ``recall@k`` values.
RECALL_KS: tuple[int, ...] = (1, 8, 16, 32, 64, 128)

_CHUNK_ELEMENTS = 4_000_000  # similarities held at once (32 MB in float64)


def _ranks(sims: np.ndarray, rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """1-based rank of target ``targets[i]`` in the similarity row ``sims[rows[i]]``.

    Rank = 1 + number of targets with a higher similarity + number of targets with an equal
    similarity and a smaller index (the order of a stable sort by decreasing similarity).
    With few relevant targets per query they are compared with the whole row; with many,
    each row is sorted once and searched.
    """
    values = sims[rows, targets]
    if rows.shape[0] > 16 * sims.shape[0]:
        ordered = np.sort(sims, axis=1)
        higher = np.empty(rows.shape[0], dtype=np.int64)
        equal = np.empty(rows.shape[0], dtype=np.int64)
        bounds = np.searchsorted(rows, np.arange(sims.shape[0] + 1))
        for i in range(sims.shape[0]):
            part = slice(bounds[i], bounds[i + 1])
            right = np.searchsorted(ordered[i], values[part], side="right")
            higher[part] = sims.shape[1] - right
            equal[part] = right - np.searchsorted(ordered[i], values[part], side="left")
    else:
        higher = np.empty(rows.shape[0], dtype=np.int64)
        equal = np.empty(rows.shape[0], dtype=np.int64)
        step = max(1, _CHUNK_ELEMENTS // sims.shape[1])
        for a in range(0, rows.shape[0], step):
            block = sims[rows[a: a + step]]
            value = values[a: a + step, None]
            higher[a: a + step] = np.count_nonzero(block > value, axis=1)
            equal[a: a + step] = np.count_nonzero(block == value, axis=1)
    for i in np.flatnonzero(equal > 1):  # ties: count equal targets earlier in the list
        higher[i] += np.count_nonzero(sims[rows[i], : targets[i]] == values[i])
    return higher + 1


def retrieval(query_emb: np.ndarray, query_labels: np.ndarray, target_emb: np.ndarray,
              target_labels: np.ndarray) -> TaskResult:
    """Rank all targets for each query by cosine similarity and score the relevant ones.

    Similarities are computed in float64 and rounded to float32 (:mod:`.similarity`), so
    equal similarities tie on every machine. Ties are broken deterministically by target
    position: among equally similar targets the one earlier in ``target_emb`` ranks higher.

    Parameters
    ----------
    query_emb : ndarray of shape (n_queries, d)
    query_labels : array-like of shape (n_queries,)
    target_emb : ndarray of shape (n_targets, d)
    target_labels : array-like of shape (n_targets,)

    Returns
    -------
    TaskResult
        ``metrics``: averages over the kept queries of

        - ``mrr`` (main): the mean of ``1 / rank`` over all relevant targets of the query
          (STEB's definition; equal to the usual MRR when each query has one relevant target);
        - ``mrr_first_hit``: ``1 / rank`` of the best-ranked relevant target (LUAR/MTEB);
        - ``mean_rank``: the mean rank of the relevant targets (lower is better);
        - ``recall@1``, ``recall@8``, ``recall@16``, ``recall@32``, ``recall@64``,
          ``recall@128``: the fraction of the relevant targets ranked in the top k;

        ``counts``: ``n_queries`` (kept), ``n_queries_dropped`` (no target of their label)
        and ``n_distractors`` (targets of a label no query has: ranked, never relevant, as
        the reference ranks every target); ``details``: ``per_query_rr`` (the per-query value
        averaged by ``mrr``), ``per_query_first_rank`` and ``n_relevant`` (per kept query),
        ``query_index`` (positions of the kept queries in the input).

    Examples
    --------
    >>> q = np.array([[1, 0], [0, 1]], dtype=np.float32)
    >>> t = np.array([[0, 1], [1, 0.1], [0.9, 0.2]], dtype=np.float32)
    >>> r = retrieval(q, ["a", "b"], t, ["b", "a", "a"])
    >>> r["mrr"], r["mrr_first_hit"], r["mean_rank"], r["recall@1"]
    (0.875, 1.0, 1.25, 0.75)
    """
    q, qy, t, ty = _checked_inputs(query_emb, query_labels, target_emb, target_labels)
    keep_q, n_distractors = _kept_queries(qy, ty)
    q_code, by_label, n_rel = _relevant_targets(qy[keep_q], ty)
    ranks = _relevant_ranks(q[keep_q], t, q_code, by_label, n_rel)
    metrics, details = _rank_scores(ranks, n_rel)
    return TaskResult(
        metrics, {"n_queries": keep_q.shape[0], "n_queries_dropped": q.shape[0] - keep_q.shape[0],
                  "n_distractors": n_distractors}, {**details, "query_index": keep_q})


def _checked_inputs(query_emb: object, query_labels: object, target_emb: object,
                    target_labels: object) -> tuple[np.ndarray, ...]:
    """The query embeddings and labels and the target embeddings and labels, checked (one
    width, one label per row)."""
    q = _checks.embeddings(query_emb, "query_emb")
    t = _checks.embeddings(target_emb, "target_emb")
    if q.shape[1] != t.shape[1]:
        raise ValueError(f"query_emb has dimension {q.shape[1]} but target_emb has "
                         f"{t.shape[1]}; both must come from the same encoder")
    qy = _checks.labels(query_labels, "query_labels", q.shape[0], "query_emb")
    ty = _checks.labels(target_labels, "target_labels", t.shape[0], "target_emb")
    return q, qy, t, ty


def _kept_queries(qy: np.ndarray, ty: np.ndarray) -> tuple[np.ndarray, int]:
    """The positions of the queries whose label occurs among the targets, and the number of
    targets whose label no query has (distractors)."""
    common = np.intersect1d(qy, ty)
    keep_q = np.flatnonzero(np.isin(qy, common))
    n_distractors = int((~np.isin(ty, common)).sum())
    if keep_q.shape[0] == 0:
        raise ValueError("no query label occurs among target_labels; retrieval needs at least "
                         "one query whose label is present on the target side")
    return keep_q, n_distractors


def _relevant_targets(qy: np.ndarray, ty: np.ndarray
                      ) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Each query's label code, the target positions of each code (in target order) and
    each query's number of relevant targets."""
    code, n_codes = _checks.codes(np.concatenate([qy, ty]))
    q_code, t_code = code[: qy.shape[0]], code[qy.shape[0]:]
    per_code = np.bincount(t_code, minlength=n_codes)
    by_label = np.split(np.argsort(t_code, kind="stable"), np.cumsum(per_code)[:-1])
    return q_code, by_label, per_code[q_code]


def _relevant_ranks(q: np.ndarray, t: np.ndarray, q_code: np.ndarray,
                    by_label: list[np.ndarray], n_rel: np.ndarray) -> np.ndarray:
    """The rank of every relevant target (``by_label[q_code[i]]``) of each query by cosine
    similarity, query by query, computed over chunks of queries."""
    qn, tn = similarity.unit_rows(q), similarity.unit_rows(t)
    n_q, n_t = qn.shape[0], tn.shape[0]
    ranks = np.empty(int(n_rel.sum()), dtype=np.int64)  # relevant targets, query by query
    start = np.concatenate([[0], np.cumsum(n_rel)])
    chunk = max(1, _CHUNK_ELEMENTS // n_t)
    for a in range(0, n_q, chunk):
        b = min(a + chunk, n_q)
        sims = similarity.cosine_matrix(qn[a:b], tn, unit=True)
        rows = np.repeat(np.arange(b - a), n_rel[a:b])
        targets = np.concatenate([by_label[c] for c in q_code[a:b]])
        ranks[start[a]: start[b]] = _ranks(sims, rows, targets)
    return ranks


def _rank_scores(ranks: np.ndarray, n_rel: np.ndarray
                 ) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """The metrics of :func:`retrieval` and its per-query details from the ranks of the
    relevant targets, query by query (``n_rel[i]`` of them for query ``i``)."""
    n_q = n_rel.shape[0]
    start = np.concatenate([[0], np.cumsum(n_rel)])
    query = np.repeat(np.arange(n_q), n_rel)
    rr = np.bincount(query, 1.0 / ranks, n_q) / n_rel
    mean_rank = np.bincount(query, ranks, n_q) / n_rel
    first = np.minimum.reduceat(ranks, start[:-1])
    recall = [np.bincount(query, ranks <= k, n_q) / n_rel for k in RECALL_KS]
    metrics = {
        "mrr": float(rr.mean()),
        "mrr_first_hit": float(np.mean(1.0 / first)),
        "mean_rank": float(mean_rank.mean()),
    }
    for k, row in zip(RECALL_KS, recall, strict=True):
        metrics[f"recall@{k}"] = float(row.mean())
    return metrics, {"per_query_rr": rr, "per_query_first_rank": first, "n_relevant": n_rel}

def build_retrieval(records: Any, task: str, episode_size: int, episodes_per_label: int,
                    seed: int, sampling: str = "reference") -> TaskInput:
    """Retrieval: episodes per (label, side); labels must appear on both sides."""
    require_columns(records, ["text", "label", "side"], task)
    rows, invalid = valid_rows(records, ["label", "side"])
    sides = _checked_sides(rows)
    labels = rows["label"].astype(str).to_numpy()
    texts = rows["text"].to_numpy()
    keys = list(zip(labels.tolist(), sides.tolist(), strict=True))
    kept, n_keys, n_rows = sample_episodes(keys, len(rows), episode_size,
                                           episodes_per_label, seed, sampling)
    per_side: dict[str, set[str]] = {s: set() for s in SIDES}
    for (label, side), _ in kept:
        per_side[side].add(label)
    both = per_side["query"] & per_side["target"]
    intern = Texts()
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
    dropped = report_dropped(task, {**invalid, "label_sides_too_few_texts": n_keys,
                                    "texts_of_those": n_rows,
                                    "queries_without_target": one_sided["query"],
                                    "targets_without_query": one_sided["target"]},
                             "retrieval keeps labels present on both sides, as the reference")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
                     tuple(episodes), 1, np.asarray(item_labels, dtype=object), tuple(ids),
                     sides=np.asarray(item_sides, dtype=object), dropped=dropped,
                     sampling=sampling)


def query_ids(task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
    """The kept queries (retrieval drops queries whose label has no target)."""
    ids = np.asarray(task_input.ids, dtype=object)
    queries = ids[task_input.sides == "query"]
    index = result.get("details", {}).get("query_index")
    if index is None:
        return queries.tolist()
    return queries[np.asarray(index, dtype=np.int64)].tolist()


class _Retrieval(TaskFamily):
    """Retrieval: one episode per label and side, queries ranked against the targets."""

    builder = staticmethod(build_retrieval)

    def _run(self, ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int,
             scoring: str) -> TaskResult:
        q = ti.sides == "query"
        return retrieval(emb[q], ti.labels[q], emb[~q], ti.labels[~q])

    def statistic(self, details: Mapping[str, Any]) -> tuple[int, Statistic]:
        return mean_of("per_query_rr")(details)

    def item_ids(self, task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
        return query_ids(task_input, result)


FAMILY = _Retrieval(
    name="retrieval", code="ret", function=retrieval,
    metrics={"mrr": True, "mrr_first_hit": True, "mean_rank": False,
             **{f"recall@{k}": True for k in RECALL_KS}},
    unit="query", per_item=("per_query_rr", None),
    episode_sizes=(-1,), episodes_per_label=1, columns=RECORD_COLUMNS["retrieval"], fast=((-1,), 1),
    description="rank the targets of each query by cosine (mean reciprocal rank)")
