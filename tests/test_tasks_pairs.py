"""Pair classification against scikit-learn on the materialised pair list."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.interpolate import interp1d
from scipy.optimize import brentq
from sklearn.metrics import roc_auc_score, roc_curve

from stebkit.tasks import DegenerateWarning, all_to_all_pairs, predefined_pairs
from stebkit.tasks import pairs as pairs_mod


def sklearn_metrics(same: np.ndarray, scores: np.ndarray) -> dict[str, float]:
    """STEB's metric definitions, computed with scikit-learn and scipy."""
    fpr, tpr, _ = roc_curve(same, scores, pos_label=1)
    out = {"auc": roc_auc_score(same, scores),
           "eer": brentq(lambda x: 1.0 - x - interp1d(fpr, tpr)(x), 0.0, 1.0)}
    for f in (0.01, 0.05, 0.10, 0.20, 0.30, 0.50):
        out[f"auc@{f:.2f}"] = roc_auc_score(same, scores, max_fpr=f)
    return out


def materialise(emb: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    unit = emb.astype(np.float64)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    iu = np.triu_indices(emb.shape[0], k=1)
    return (labels[:, None] == labels[None, :])[iu], (unit @ unit.T)[iu]


def assert_matches(result: dict, oracle: dict) -> None:
    assert set(oracle) <= set(result)
    for key, value in oracle.items():
        # the EER oracle is a root finder with tolerance ~1e-12
        assert result[key] == pytest.approx(value, abs=1e-9), key


@pytest.mark.parametrize("rounded", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_all_to_all_matches_sklearn(seed: int, rounded: bool) -> None:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 7, 150)
    emb = rng.normal(size=(150, 6)) + 0.4 * labels[:, None]
    if rounded:  # many exactly tied similarities
        emb = np.round(emb)
        emb[~emb.any(axis=1), 0] = 1.0
    emb = emb.astype(np.float32)
    same, scores = materialise(emb, labels)
    result = all_to_all_pairs(emb, labels)
    assert result["n_pos"] == same.sum() and result["n_neg"] == (~same).sum()
    pos, neg = result["details"]["pos_scores"], result["details"]["neg_scores"]
    np.testing.assert_allclose(pos, np.sort(scores[same]), atol=1e-12)
    np.testing.assert_allclose(neg, np.sort(scores[~same]), atol=1e-12)
    if rounded:
        # Exact ties: the oracle must see bit-identical scores (matrix products in another
        # order may split a tie by one ulp), so it gets the function's own pair list.
        same = np.arange(pos.size + neg.size) < pos.size
        scores = np.concatenate([pos, neg])
        assert np.unique(scores).size < scores.size / 1.5
    assert_matches(result, sklearn_metrics(same, scores))


def test_all_to_all_blocks_give_same_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    emb = rng.normal(size=(60, 4)).astype(np.float32)
    labels = np.repeat(np.arange(6), 10)
    whole = all_to_all_pairs(emb, labels)
    monkeypatch.setattr(pairs_mod, "_BLOCK_ELEMENTS", 70)  # one row per block
    blocked = all_to_all_pairs(emb, labels)
    for key in ("auc", "eer", "auc@0.05"):
        assert blocked[key] == pytest.approx(whole[key], abs=1e-12)


def test_predefined_pairs_matches_sklearn() -> None:
    rng = np.random.default_rng(4)
    a = rng.normal(size=(300, 5))
    same = rng.random(300) < 0.3
    b = np.where(same[:, None], a + rng.normal(scale=1.5, size=a.shape), rng.normal(size=a.shape))
    result = predefined_pairs(a, b, same.astype(int))
    ua = a / np.linalg.norm(a, axis=1, keepdims=True)
    ub = b / np.linalg.norm(b, axis=1, keepdims=True)
    scores = (ua * ub).sum(axis=1)
    assert_matches(result, sklearn_metrics(same, scores))
    np.testing.assert_allclose(result["details"]["scores"], scores, atol=1e-12)


def test_hand_computed_case() -> None:
    # scores 0.9(+), 0.8(-), 0.7(+), 0.1(-): 3 of 4 pos/neg orderings correct
    a = np.array([[1.0, 0.0]] * 4)
    b = np.array([[0.9, np.sqrt(1 - 0.81)], [0.8, 0.6], [0.7, np.sqrt(0.51)],
                  [0.1, np.sqrt(0.99)]])
    result = predefined_pairs(a, b, np.array([True, False, True, False]))
    assert result["auc"] == pytest.approx(0.75)
    # ROC: (0,0) (0,.5) (.5,.5) (.5,1) (1,1): meets tpr = 1 - fpr at fpr = 0.5
    assert result["eer"] == pytest.approx(0.5)


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 6), st.integers(2, 5), st.integers(0, 10_000))
def test_perfect_embedding_has_auc_one(n_labels: int, per_label: int, seed: int) -> None:
    labels = np.repeat(np.arange(n_labels), per_label)
    rng = np.random.default_rng(seed)
    emb = np.eye(n_labels)[labels] + 0.01 * rng.random((labels.shape[0], n_labels))
    result = all_to_all_pairs(emb.astype(np.float32), labels)
    assert result["auc"] == 1.0 and result["eer"] == 0.0 and result["auc@0.01"] == 1.0


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_permutation_and_scale_invariance(seed: int) -> None:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 4, 40)
    emb = rng.normal(size=(40, 3)) + labels[:, None]
    base = all_to_all_pairs(emb, labels)
    perm = rng.permutation(40)
    scale = rng.uniform(0.1, 10.0, size=(40, 1))
    moved = all_to_all_pairs(emb[perm] * scale[perm], labels[perm])
    for key in ("auc", "eer", "auc@0.10"):
        assert moved[key] == pytest.approx(base[key], abs=1e-9)


def test_degenerate_returns_nan_with_warning() -> None:
    emb = np.random.default_rng(0).normal(size=(5, 3))
    with pytest.warns(DegenerateWarning, match="no positive pairs"):
        result = all_to_all_pairs(emb, np.arange(5))
    assert np.isnan(result["auc"]) and np.isnan(result["eer"])
    with pytest.warns(DegenerateWarning, match="no negative pairs"):
        result = predefined_pairs(emb, emb + 1, np.ones(5, bool))
    assert np.isnan(result["auc@0.50"])


@pytest.mark.parametrize(
    ("emb", "labels", "error", "match"),
    [
        (np.ones((3, 2)), [0, 1], ValueError, "labels has 2 entries"),
        (np.array([[1.0, np.nan], [1.0, 0.0]]), [0, 1], ValueError, "NaN or infinite"),
        (np.ones((3, 2), dtype=int), [0, 1, 1], TypeError, "floating dtype"),
        (np.ones(3), [0, 1, 1], ValueError, "shape"),
        (np.ones((0, 2)), [], ValueError, "empty"),
        (np.ones((1, 2)), [0], ValueError, "at least 2"),
        ("text", [0], TypeError, "NumPy array"),
    ],
)
def test_bad_input(emb: object, labels: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        all_to_all_pairs(emb, labels)


def test_a_zero_vector_scores_zero_against_every_text_as_in_the_reference() -> None:
    """The reference scores pairs with scikit-learn's ``cosine_similarity``, which scales
    a zero row to zero: every pair with a zero vector scores 0 (here the oracle)."""
    from sklearn.metrics import roc_auc_score
    from sklearn.metrics.pairwise import cosine_similarity

    rng = np.random.default_rng(5)
    labels = np.repeat([0, 1, 2], 4)
    emb = rng.normal(size=(12, 4)) + labels[:, None]
    emb[[2, 7]] = 0.0
    upper = np.triu_indices(12, 1)
    same = labels[upper[0]] == labels[upper[1]]
    result = all_to_all_pairs(emb, labels)
    assert result["auc"] == pytest.approx(roc_auc_score(same, cosine_similarity(emb)[upper]),
                                          abs=1e-12)
    scores = predefined_pairs(emb[:6], emb[6:], np.arange(6) % 2 == 0).details["scores"]
    want = np.diag(cosine_similarity(emb[:6], emb[6:]))
    np.testing.assert_allclose(scores, want, atol=1e-7)
    assert scores[1] == 0.0 and scores[2] == 0.0  # rows 7 and 2


def test_predefined_bad_input() -> None:
    a = np.ones((3, 2))
    with pytest.raises(ValueError, match="emb_b has shape"):
        predefined_pairs(a, np.ones((2, 2)), [1, 0, 1])
    with pytest.raises(TypeError, match="same must be boolean"):
        predefined_pairs(a, a, [1, 0, 2])
