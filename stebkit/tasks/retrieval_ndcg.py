"""Ranked retrieval against a corpus with graded or binary relevance.

Each query ranks the whole corpus by cosine similarity; the ranking is scored with the
trec_eval conventions used by MTEB-style benchmarks: linear gain, log2 discount, average
precision truncated at ``k`` and divided by the number of relevant documents
(``map_cut``), recall at several depths. Queries without any relevant document are left
out (as trec_eval does) and counted in ``n_queries_without_relevant``.

Ties in similarity are broken by corpus index (the earlier document ranks first), so the
ranking is deterministic.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from stebkit.datasets.spec import RECORD_COLUMNS

from . import _checks, similarity
from .family import Statistic, TaskFamily, mean_of
from .inputs import TaskInput, Texts, _checked_sides, report_dropped, require_columns, valid_rows
from .result import TaskResult
from .retrieval import query_ids

_BLOCK_ELEMENTS = 4_000_000


def _relevance_matrix(relevance: object, n_queries: int, n_corpus: int) -> np.ndarray:
    if isinstance(relevance, np.ndarray) or (
        isinstance(relevance, (list, tuple)) and relevance
        and not isinstance(relevance[0], Mapping)
    ):
        rel = np.asarray(relevance)
        if rel.shape != (n_queries, n_corpus):
            raise ValueError(f"relevance must have shape (n_queries, n_corpus) = "
                             f"({n_queries}, {n_corpus}), got {rel.shape}")
        if not (np.issubdtype(rel.dtype, np.number) or rel.dtype == bool):
            raise TypeError(f"relevance must hold numbers, got dtype {rel.dtype}")
        rel = rel.astype(np.float64)
    elif isinstance(relevance, Sequence):
        if len(relevance) != n_queries:
            raise ValueError(f"relevance has {len(relevance)} entries but query_emb has "
                             f"{n_queries} rows; give one mapping per query")
        rel = np.zeros((n_queries, n_corpus))
        for q, judged in enumerate(relevance):
            for doc, grade in judged.items():
                if not 0 <= int(doc) < n_corpus:
                    raise ValueError(f"relevance[{q}] names corpus index {doc}, outside "
                                     f"0..{n_corpus - 1}")
                if isinstance(grade, bool) or not isinstance(grade, (int, float, np.number)):
                    raise TypeError(f"relevance[{q}][{doc}] = {grade!r} is not a number")
                rel[q, int(doc)] = float(grade)
    else:
        raise TypeError("relevance must be a (n_queries, n_corpus) array or a list of "
                        f"{{corpus_index: grade}} mappings, got {type(relevance).__name__}")
    if not np.isfinite(rel).all() or (rel < 0).any():
        raise ValueError("relevance grades must be finite and >= 0")
    return rel


def retrieval_ndcg(query_emb: np.ndarray, corpus_emb: np.ndarray, relevance: object, *,
                   k: int = 10, recall_at: tuple[int, ...] = (1, 5, 10, 100)) -> TaskResult:
    """nDCG@k (main), MAP@k and recall@k of cosine ranking.

    Parameters
    ----------
    query_emb : ndarray of shape (n_queries, d)
    corpus_emb : ndarray of shape (n_corpus, d)
    relevance : ndarray of shape (n_queries, n_corpus) or list of mappings
        Graded (or binary) relevance; 0 means not relevant. A list gives, per query, a
        ``{corpus_index: grade}`` mapping of its judged documents.
    k : int
        Cut-off of nDCG and MAP.
    recall_at : tuple of int
        Depths of the reported recall.

    Returns
    -------
    TaskResult
        ``metrics``: ``ndcg@k``, ``map@k``, ``recall@r`` for each depth; ``counts``:
        ``n_queries``, ``n_queries_without_relevant``; ``details`` holds the per-query ``ndcg`` and
        ``query_index`` (the positions of the scored queries in the input).

    Examples
    --------
    >>> q = np.array([[1.0, 0.0]], dtype=np.float32)
    >>> c = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.7]], dtype=np.float32)
    >>> res = retrieval_ndcg(q, c, [{1: 1}], k=2, recall_at=(1, 3))
    >>> res["recall@1"], res["recall@3"], res["map@2"]
    (0.0, 1.0, 0.0)
    """
    query_emb, corpus_emb = _checked_inputs(query_emb, corpus_emb, k, recall_at)
    n_q, n_c = query_emb.shape[0], corpus_emb.shape[0]
    rel = _relevance_matrix(relevance, n_q, n_c)
    has_rel = _judged_queries(rel)
    depth = min(n_c, max(k, *recall_at))
    rel = rel[has_rel]
    top = _top_ranked(similarity.unit_rows(query_emb)[has_rel],
                      similarity.unit_rows(corpus_emb), depth)
    ndcg, out = _ranking_scores(rel, np.take_along_axis(rel, top, axis=1), k, recall_at)
    return TaskResult(out, {"n_queries": rel.shape[0],
                            "n_queries_without_relevant": int((~has_rel).sum())},
                      {"ndcg": ndcg, "query_index": np.flatnonzero(has_rel)})


def _checked_inputs(query_emb: object, corpus_emb: object, k: int,
                    recall_at: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The query and corpus embeddings, checked to be of one width, and the cut-offs checked
    to be positive."""
    query_emb = _checks.embeddings(query_emb, "query_emb")
    corpus_emb = _checks.embeddings(corpus_emb, "corpus_emb")
    if query_emb.shape[1] != corpus_emb.shape[1]:
        raise ValueError(f"query_emb has width {query_emb.shape[1]} but corpus_emb has "
                         f"{corpus_emb.shape[1]}; encode both with the same model")
    if k < 1 or any(r < 1 for r in recall_at):
        raise ValueError(f"k and recall_at must be >= 1, got k={k}, recall_at={recall_at}")
    return query_emb, corpus_emb


def _judged_queries(rel: np.ndarray) -> np.ndarray:
    """Which queries (rows of ``rel``) have a relevant document; warn about the others."""
    has_rel = (rel > 0).any(axis=1)
    if not has_rel.any():
        raise ValueError("no query has a relevant document (all relevance grades are 0)")
    if not has_rel.all():
        warnings.warn(f"{int((~has_rel).sum())} of {rel.shape[0]} queries have no relevant "
                      "document and are left out of the scores", UserWarning, stacklevel=3)
    return has_rel


def _top_ranked(q: np.ndarray, c: np.ndarray, depth: int) -> np.ndarray:
    """The corpus indices of the ``depth`` most cosine-similar unit rows of ``c`` for each
    unit row of ``q``, best first (equal similarities: the smaller index first)."""
    n_c = c.shape[0]
    top = np.empty((q.shape[0], depth), dtype=np.int64)
    step = max(1, _BLOCK_ELEMENTS // n_c)
    order_index = np.arange(n_c)
    for start in range(0, q.shape[0], step):
        sims = similarity.cosine_matrix(q[start:start + step], c, unit=True)
        # Sort by descending similarity, then ascending corpus index (lexsort: last key first).
        for row, s in enumerate(sims):
            top[start + row] = np.lexsort((order_index, -s))[:depth]
    return top


def _ranking_scores(rel: np.ndarray, gains: np.ndarray, k: int, recall_at: tuple[int, ...]
                    ) -> tuple[np.ndarray, dict[str, float]]:
    """The per-query nDCG@k and the mean nDCG@k, MAP@k and recall@r, from the relevance
    matrix ``rel`` and the ``gains`` of each query's ranked documents (to the ranking's depth).
    """
    depth = gains.shape[1]
    discount = 1.0 / np.log2(np.arange(2, depth + 2))
    kk = min(k, depth)
    dcg = (gains[:, :kk] * discount[:kk]).sum(axis=1)
    ideal = -np.sort(-rel, axis=1)[:, :kk]
    ndcg = dcg / (ideal * discount[:kk]).sum(axis=1)
    hits = gains > 0
    n_rel = (rel > 0).sum(axis=1)
    precision = np.cumsum(hits, axis=1) / np.arange(1, depth + 1)
    ap = (precision[:, :kk] * hits[:, :kk]).sum(axis=1) / n_rel
    out = {f"ndcg@{k}": float(ndcg.mean()), f"map@{k}": float(ap.mean())}
    for r in recall_at:
        out[f"recall@{r}"] = float((hits[:, :min(r, depth)].sum(axis=1) / n_rel).mean())
    return ndcg, out

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
    require_columns(records, ["text", "side", "group", "relevance"], task)
    rows, invalid = valid_rows(records, ["side", "group"])
    sides = _checked_sides(rows)
    queries, targets = rows[sides == "query"], rows[sides == "target"]
    column = {g: j for j, g in enumerate(targets["group"].astype(str))}
    relevance = np.zeros((len(queries), len(targets)))
    for i, judged in enumerate(queries["relevance"]):
        for doc, grade in json.loads(judged or "{}").items():
            if doc in column:
                relevance[i, column[doc]] = float(grade)
    intern = Texts()
    ordered = [queries, targets]
    episodes = tuple((intern(t),) for part in ordered for t in part["text"].to_numpy())
    labels = np.concatenate([p["group"].astype(str).to_numpy(dtype=object) for p in ordered])
    item_sides = np.array(["query"] * len(queries) + ["target"] * len(targets), dtype=object)
    dropped = report_dropped(task, invalid, "texts need a side and a group id")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(), episodes, 1,
                     labels, tuple(f"{s}:{g}" for s, g in zip(item_sides, labels, strict=True)),
                     sides=item_sides, relevance=relevance, dropped=dropped,
                     sampling=sampling)


class _RetrievalNdcg(TaskFamily):
    """Ranked retrieval: every query and corpus text is one item, graded relevance."""

    builder = staticmethod(build_ranked)

    def _run(self, ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int,
             scoring: str) -> TaskResult:
        q = ti.sides == "query"
        return retrieval_ndcg(emb[q], emb[~q], ti.relevance)

    def statistic(self, details: Mapping[str, Any]) -> tuple[int, Statistic]:
        return mean_of("ndcg")(details)

    def item_ids(self, task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
        return query_ids(task_input, result)


FAMILY = _RetrievalNdcg(
    name="retrieval_ndcg", code="ndcg", function=retrieval_ndcg,
    metrics={"ndcg@10": True, "map@10": True,
             **{f"recall@{r}": True for r in (1, 5, 10, 100)}},
    unit="query", per_item=("ndcg", None), episode_sizes=(1,),
    episodes_per_label=1, columns=RECORD_COLUMNS["retrieval_ndcg"], single_text=True,
    steb=False, description="rank a corpus with graded relevance (nDCG@10)")
