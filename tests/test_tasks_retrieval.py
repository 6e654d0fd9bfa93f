"""Retrieval against a brute-force full-sort oracle."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import pairwise_distances

from stebkit.tasks import retrieval

# the package re-exports the function under the module's name
retrieval_mod = importlib.import_module("stebkit.tasks.retrieval")

KS = (1, 8, 16, 32, 64, 128)


def oracle(q: np.ndarray, qy: np.ndarray, t: np.ndarray, ty: np.ndarray) -> dict[str, float]:
    """Full distance matrix, one stable argsort per query, STEB's per-query averages."""
    common = np.intersect1d(qy, ty)
    q, qy = q[np.isin(qy, common)], qy[np.isin(qy, common)]  # targets all stay ranked
    dist = pairwise_distances(q, t, metric="cosine")
    rr, first, mean_rank, rec = [], [], [], {k: [] for k in KS}
    for i in range(q.shape[0]):
        ranks = np.flatnonzero(ty[np.argsort(dist[i], kind="stable")] == qy[i]) + 1
        rr.append(np.mean(1.0 / ranks))
        first.append(1.0 / ranks.min())
        mean_rank.append(ranks.mean())
        for k in KS:
            rec[k].append(np.mean(ranks <= k))
    out = {"mrr": np.mean(rr), "mrr_first_hit": np.mean(first), "mean_rank": np.mean(mean_rank)}
    out.update({f"recall@{k}": np.mean(v) for k, v in rec.items()})
    return out


def check(result: dict, expected: dict) -> None:
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, abs=1e-12), key


@pytest.mark.parametrize("n_labels", [40, 3])  # few / many relevant targets per query
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_full_sort_oracle(seed: int, n_labels: int,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    qy = rng.integers(0, n_labels, 120)
    ty = rng.integers(0, n_labels + 5, 300)
    q = (rng.normal(size=(120, 16)) + 0.2 * qy[:, None] % 3).astype(np.float64)
    t = (rng.normal(size=(300, 16)) + 0.2 * ty[:, None] % 3).astype(np.float64)
    t[10:20] = t[5]  # exact ties among targets
    expected = oracle(q, qy, t, ty)
    check(retrieval(q, qy, t, ty), expected)
    monkeypatch.setattr(retrieval_mod, "_CHUNK_ELEMENTS", 7 * 300)  # many small chunks
    check(retrieval(q, qy, t, ty), expected)


def test_hand_computed_case_and_filter_counts() -> None:
    q = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float32)
    t = np.array([[0, 1], [1, 0.1], [0.9, 0.2], [1, 1]], dtype=np.float32)
    r = retrieval(q, ["a", "b", "x"], t, ["b", "a", "a", "y"])
    # query a: relevant ranks 1, 2; query b: rank 1; the "x" query is dropped, the "y"
    # target stays as a distractor (ranked 3rd for a, 2nd for b: below every relevant one)
    assert r["mrr"] == pytest.approx((0.75 + 1.0) / 2)
    assert r["mean_rank"] == pytest.approx((1.5 + 1) / 2)
    assert r["recall@1"] == pytest.approx((0.5 + 1) / 2) and r["recall@8"] == 1.0
    assert (r["n_queries"], r["n_queries_dropped"], r["n_distractors"]) == (2, 1, 1)
    np.testing.assert_array_equal(r["details"]["query_index"], [0, 1])
    np.testing.assert_allclose(r["details"]["per_query_rr"], [0.75, 1.0])
    # a distractor ranked above the relevant target lowers the score
    r = retrieval(np.array([[1.0, 0.0]]), ["a"], np.array([[0.0, 1.0], [1.0, 0.1]]),
                  ["a", "y"])
    assert r["mrr"] == 0.5


def test_ties_are_broken_by_target_position() -> None:
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    t = np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0], [0.0, 1.0]])  # identical cosines
    first = retrieval(q, [1, 0], t, [0, 0, 1, 1])["details"]["per_query_first_rank"]
    np.testing.assert_array_equal(first, [3, 2])
    first = retrieval(q, [1, 0], t, [1, 0, 0, 1])["details"]["per_query_first_rank"]
    np.testing.assert_array_equal(first, [1, 3])
    labels = np.array([1, 0]), np.array([0, 1, 1, 0])
    check(retrieval(q, labels[0], t, labels[1]), oracle(q, labels[0], t, labels[1]))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_invariant_to_query_order_and_vector_scale(seed: int) -> None:
    rng = np.random.default_rng(seed)
    qy, ty = rng.integers(0, 5, 30), rng.integers(0, 5, 50)
    q, t = rng.normal(size=(30, 4)), rng.normal(size=(50, 4))
    base = retrieval(q, qy, t, ty)
    perm = rng.permutation(30)
    moved = retrieval(q[perm] * rng.uniform(0.5, 3, (30, 1)), qy[perm], t * 7.0, ty)
    for key in ("mrr", "mrr_first_hit", "mean_rank", "recall@8"):
        assert moved[key] == pytest.approx(base[key], abs=1e-12)


def test_perfect_embedding() -> None:
    labels = np.arange(10)
    emb = np.eye(10, dtype=np.float32)
    r = retrieval(emb, labels, emb + 0.01, labels)
    assert r["mrr"] == 1.0 and r["mean_rank"] == 1.0 and r["recall@1"] == 1.0


def test_bad_input() -> None:
    q = np.ones((2, 3), dtype=np.float32)
    with pytest.raises(ValueError, match="dimension"):
        retrieval(q, [0, 1], np.ones((2, 4)), [0, 1])
    with pytest.raises(ValueError, match="target_labels has 1 entries"):
        retrieval(q, [0, 1], q, [0])
    with pytest.raises(ValueError, match="no query label"):
        retrieval(q, [0, 1], q, [2, 3])


def test_zero_vectors_are_at_cosine_distance_one_as_in_the_reference() -> None:
    """The reference ranks by ``pairwise_distances(metric="cosine")`` (the oracle's), where
    a zero query or target is at distance 1 from everything: a zero query ranks every
    target as a tie (in target order here), a zero target sits at similarity 0."""
    rng = np.random.default_rng(7)
    qy, ty = rng.integers(0, 4, 30), rng.integers(0, 4, 80)
    q, t = rng.normal(size=(30, 6)), rng.normal(size=(80, 6))
    q[[0, 9]] = 0.0
    t[[3, 4, 50]] = 0.0
    check(retrieval(q, qy, t, ty), oracle(q, qy, t, ty))


def test_accepts_pandas_labels() -> None:
    import pandas as pd

    q = np.eye(3)
    r = retrieval(q, pd.Series(["a", "b", "c"]), q + 0.1, pd.Series(["a", "b", "c"]))
    assert r["mrr"] == 1.0
