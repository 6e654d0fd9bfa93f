"""Classification and nDCG retrieval checked against scikit-learn and hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from stebkit.tasks.classification import DEFAULT_CS, classification
from stebkit.tasks.retrieval_ndcg import retrieval_ndcg


def _blobs(rng, n, k=3, d=6, spread=2.0):
    y = np.arange(n) % k
    centres = np.eye(k, d) * spread
    return (centres[y] + rng.normal(size=(n, d))).astype(np.float32), y


def test_classification_matches_predefined_split_grid_search():
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.model_selection import GridSearchCV, PredefinedSplit

    rng = np.random.default_rng(1)
    (Xa, ya), (Xb, yb), (Xc, yc) = _blobs(rng, 90), _blobs(rng, 45), _blobs(rng, 60)
    res = classification(Xa, ya, Xb, yb, Xc, yc)
    # Oracle: scikit-learn's grid search on a predefined train/validation split, refit off.
    X = np.vstack([Xa, Xb])
    fold = np.r_[np.full(len(ya), -1), np.zeros(len(yb), dtype=int)]
    search = GridSearchCV(LogisticRegression(max_iter=1000, random_state=42),
                          {"C": list(DEFAULT_CS)}, scoring="f1_macro",
                          cv=PredefinedSplit(fold), refit=False)
    search.fit(X, np.r_[ya, yb])
    assert res.details["C"] == search.best_params_["C"]
    assert res["validation_score"] == pytest.approx(search.best_score_)
    model = LogisticRegression(C=res.details["C"], max_iter=1000, random_state=42).fit(Xa, ya)
    pred = model.predict(Xc)
    assert res["macro_f1"] == pytest.approx(f1_score(yc, pred, average="macro"))
    assert res["accuracy"] == pytest.approx(accuracy_score(yc, pred))


def test_classification_bad_input():
    rng = np.random.default_rng(0)
    X, y = _blobs(rng, 30)
    with pytest.raises(ValueError, match="y_test has label"):
        classification(X, y, X, y, X, np.full(30, 7))
    with pytest.raises(ValueError, match="y_val has 29 entries"):
        classification(X, y, X, y[:-1], X, y)
    with pytest.raises(ValueError, match="same width"):
        classification(X, y, X[:, :3], y, X, y)
    with pytest.raises(TypeError, match="X_train must have a floating dtype"):
        classification(y[:, None], y, X, y, X, y)


def test_ndcg_matches_sklearn_on_graded_relevance():
    from sklearn.metrics import ndcg_score

    rng = np.random.default_rng(3)
    q = rng.normal(size=(25, 8)).astype(np.float32)
    c = rng.normal(size=(60, 8)).astype(np.float32)
    rel = rng.integers(1, 4, size=(25, 60)) * (rng.random((25, 60)) < 0.15)
    rel[0] = 0  # a query without relevant documents is left out, with a warning
    with pytest.warns(UserWarning, match="1 of 25 queries"):
        res = retrieval_ndcg(q, c, rel)
    qn = q / np.linalg.norm(q, axis=1, keepdims=True)
    cn = c / np.linalg.norm(c, axis=1, keepdims=True)
    keep = rel.any(axis=1)
    assert res["ndcg@10"] == pytest.approx(ndcg_score(rel[keep], (qn @ cn.T)[keep], k=10))
    assert res["n_queries"] == 24 and res["n_queries_without_relevant"] == 1


def test_map_and_recall_hand_computed():
    # One query on the x-axis; corpus ranked by cosine: d0 (1.0), d2 (0.6), d3 (0.0), d1 (-1).
    q = np.array([[1.0, 0.0]])
    c = np.array([[1.0, 0.0], [-1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    res = retrieval_ndcg(q, c, [{0: 1, 3: 1, 1: 1}], k=3, recall_at=(1, 2, 4))
    # Relevant at ranks 1 and 3 within the cut-off; 3 relevant in all (trec_eval map_cut).
    assert res["map@3"] == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert res["recall@1"] == pytest.approx(1 / 3)
    assert res["recall@2"] == pytest.approx(1 / 3)
    assert res["recall@4"] == pytest.approx(1.0)
    ideal = 1 + 1 / np.log2(3) + 1 / np.log2(4)
    assert res["ndcg@3"] == pytest.approx((1 + 1 / np.log2(4)) / ideal)


def test_ndcg_ties_broken_by_corpus_index():
    q = np.array([[1.0, 0.0]])
    c = np.array([[1.0, 0.0], [2.0, 0.0]])  # identical cosine
    assert retrieval_ndcg(q, c, [{0: 1}], k=1, recall_at=(1,))["recall@1"] == 1.0
    assert retrieval_ndcg(q, c, [{1: 1}], k=1, recall_at=(1,))["recall@1"] == 0.0


def test_ndcg_bad_relevance():
    q = np.ones((2, 2))
    with pytest.raises(TypeError, match=r"relevance\[1\]\[0\] = 'high' is not a number"):
        retrieval_ndcg(q, q, [{0: 1}, {0: "high"}])
    with pytest.raises(ValueError, match="shape"):
        retrieval_ndcg(q, q, np.ones((3, 2)))
    with pytest.raises(ValueError, match="no query has a relevant document"):
        retrieval_ndcg(q, q, np.zeros((2, 2)))

