"""The similarity rule (stebkit.tasks.similarity): mathematically equal similarities are
equal, and ranked as ties, whatever order a processor sums their products in.

The oracle is exact arithmetic: ``math.fsum`` rounds each dot product and norm correctly,
which no summation order changes, and the cosine is then rounded to float32. Another
processor is simulated by what changes the summation order without changing the maths:
permuting the embedding dimensions, moving rows to other places in the matrix, and one
BLAS thread instead of several.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score, roc_curve
from threadpoolctl import threadpool_limits

from stebkit.tasks import all_to_all_pairs, predefined_pairs, retrieval
from stebkit.tasks.similarity import cosine_matrix, rounded


def exact_cosine(a: np.ndarray, b: np.ndarray) -> float:
    """The cosine of two vectors from correctly rounded sums, rounded to float32."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    dot = math.fsum(a * b)
    norm = math.sqrt(math.fsum(a * a)) * math.sqrt(math.fsum(b * b))
    return float(np.float32(dot / norm))


def tied_set(seed: int = 0, d: int = 384) -> tuple[np.ndarray, np.ndarray]:
    """Texts whose cosines with the all-ones vector are mathematically equal.

    Row 0 is all ones; rows 1 and 2 hold the same float32 values in two orders, so
    ``cos(0, 1) == cos(0, 2)`` exactly in the maths, while a float64 dot product sums the
    two in different orders. Row 1 shares row 0's label (a positive pair) and row 2 does
    not (a negative pair): the tie decides the ROC curve's shape at that score.
    """
    rng = np.random.default_rng(seed)
    base = rng.standard_normal(d).astype(np.float32) + 0.3
    others = rng.standard_normal((5, d)).astype(np.float32)
    emb = np.vstack([np.ones(d, np.float32), base, rng.permutation(base), others])
    return emb, np.array(["a", "a", "b", "b", "c", "c", "a", "d"])


def test_the_constructed_tie_is_broken_by_unrounded_float64_sums():
    """The case is meaningful: without the rounding the two equal cosines differ in their
    last bits, depending on the order of the dimensions."""
    emb, _ = tied_set()
    x = emb.astype(np.float64)
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    raw = unit @ unit.T
    assert raw[0, 1] != raw[0, 2]
    assert cosine_matrix(emb, emb)[0, 1] == cosine_matrix(emb, emb)[0, 2]


@pytest.mark.parametrize("order", ["identity", "reversed", "shuffled"])
def test_similarities_equal_exact_arithmetic_in_any_summation_order(order):
    emb, _ = tied_set()
    d = emb.shape[1]
    perm = {"identity": np.arange(d), "reversed": np.arange(d)[::-1],
            "shuffled": np.random.default_rng(0).permutation(d)}[order]
    got = cosine_matrix(emb[:, perm], emb[:, perm])
    want = np.array([[exact_cosine(a, b) for b in emb] for a in emb])
    np.testing.assert_array_equal(got, want)
    assert got[0, 1] == got[0, 2]


def test_exact_ties_give_one_roc_point_on_every_simulated_machine():
    emb, labels = tied_set()
    # the oracle: scikit-learn on the exactly rounded cosines of every unordered pair
    iu = np.triu_indices(len(labels), k=1)
    scores = np.array([exact_cosine(emb[i], emb[j]) for i, j in zip(*iu, strict=True)])
    same = labels[iu[0]] == labels[iu[1]]
    fpr, _, _ = roc_curve(same, scores, drop_intermediate=False)
    want_auc = roc_auc_score(same, scores)
    want_pauc = roc_auc_score(same, scores, max_fpr=0.2)
    results = []
    rng = np.random.default_rng(1)
    for trial in range(4):
        perm_dims = rng.permutation(emb.shape[1]) if trial else np.arange(emb.shape[1])
        perm_rows = rng.permutation(len(labels)) if trial > 1 else np.arange(len(labels))
        with threadpool_limits(limits=1 if trial == 3 else None):
            r = all_to_all_pairs(emb[perm_rows][:, perm_dims], labels[perm_rows])
        results.append(r)
        assert r["auc"] == pytest.approx(want_auc, abs=1e-12)
        assert r["auc@0.20"] == pytest.approx(want_pauc, abs=1e-12)
        np.testing.assert_array_equal(r["details"]["pos_scores"], np.sort(scores[same]))
        np.testing.assert_array_equal(r["details"]["neg_scores"], np.sort(scores[~same]))
    # tie-sensitive metrics are identical, bit for bit, across the simulated machines
    for key in ("auc", "eer", "auc@0.01", "auc@0.05", "auc@0.10", "auc@0.20", "auc@0.30"):
        assert len({r[key] for r in results}) == 1, key
    # and the tie is one diagonal ROC segment: its score is shared by a positive and a
    # negative pair, so scikit-learn's curve has no point between them
    tied = exact_cosine(emb[0], emb[1])
    assert (scores[same] == tied).any() and (scores[~same] == tied).any()
    assert len(fpr) == len(np.unique(scores)) + 1


def test_predefined_pairs_and_retrieval_rank_the_tie_alike_in_any_order():
    emb, _ = tied_set()
    rev = emb[:, ::-1]
    a, b = emb[[0, 0]], emb[[1, 2]]
    for x, y in ((a, b), (rev[[0, 0]], rev[[1, 2]])):
        r = predefined_pairs(x, y, [True, False])
        assert r["details"]["scores"][0] == r["details"]["scores"][1]
        assert r["auc"] == 0.5  # one positive and one negative with equal scores
    # retrieval: the two tied targets share a rank (1 + higher + equal-with-lower-index)
    for x in (emb, rev):
        r = retrieval(x[[0]], ["q"], x[[2, 1]], ["other", "q"])
        assert r["details"]["per_query_first_rank"].tolist() == [2]


def test_rounding_keeps_float32_values_and_absorbs_float64_summation_error():
    s = np.array([0.1, 1 / 3, -0.7071067811865476])
    r = rounded(s)
    assert r.dtype == np.float64
    np.testing.assert_array_equal(r, s.astype(np.float32).astype(np.float64))
    np.testing.assert_array_equal(rounded(s * (1 + 4e-16)), r)
