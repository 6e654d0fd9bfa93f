"""Order alignment against a brute-force search over all assignments."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.preprocessing import normalize

from stebkit.tasks import DegenerateWarning, order_alignment


def brute_force_accuracy(src: np.ndarray, tgt: np.ndarray, offset: int) -> float:
    """Try every injective map of src positions to tgt positions; score the cheapest
    (rows scaled by scikit-learn's ``normalize``: a zero row stays zero)."""
    s, t = normalize(src), normalize(tgt)
    cost = 1.0 - np.maximum(s @ t.T, 0.0)
    rows = np.arange(s.shape[0])
    best = min(itertools.permutations(range(t.shape[0]), s.shape[0]),
               key=lambda cols: cost[rows, list(cols)].sum())
    return float(np.mean(np.array(best) == rows + offset))


def oracle(emb: np.ndarray, labels: list) -> tuple[float, float]:
    acc, dis = [], []
    for i, j in itertools.combinations(range(len(labels)), 2):
        if labels[i] != labels[j]:
            continue
        a, b = emb[i], emb[j]
        acc.append(brute_force_accuracy(a, b, 0))
        dis.append(brute_force_accuracy(a[:-1], np.vstack([b[:-1], a[-1:]]), 0))
        dis.append(brute_force_accuracy(a[1:], np.vstack([a[:1], b[1:]]), 1))
    return float(np.mean(acc)), float(np.mean(dis))


@pytest.mark.parametrize("n_positions", [2, 3, 5])
def test_matches_brute_force(n_positions: int) -> None:
    rng = np.random.default_rng(n_positions)
    base = rng.normal(size=(n_positions, 6))
    labels = ["x", "y", "x", "x", "y", "z"]
    emb = (base[None] + rng.normal(scale=0.8, size=(6, n_positions, 6))).astype(np.float32)
    result = order_alignment(emb, labels)
    acc, dis = oracle(emb.astype(np.float64), labels)
    assert result["acc_mean"] == pytest.approx(acc)
    assert result["distractor_acc_mean"] == pytest.approx(dis)
    assert result["n_pairs"] == 4
    pairs = result["details"]["pair_index"].tolist()
    assert pairs == [[0, 2], [0, 3], [2, 3], [1, 4]]


def test_a_zero_vector_costs_one_at_every_position_as_in_the_reference() -> None:
    rng = np.random.default_rng(3)
    emb = rng.normal(size=(3, 4, 5))
    emb[0, 1] = 0.0  # e.g. a text with no function word under a frequency baseline
    emb[2, 3] = 0.0
    labels = ["a", "a", "a"]
    result = order_alignment(emb, labels)
    acc, dis = oracle(emb, labels)
    assert result["acc_mean"] == pytest.approx(acc)
    assert result["distractor_acc_mean"] == pytest.approx(dis)


def test_hand_computed_distractor() -> None:
    # List 2 is list 1 shifted: every alignment, with or without the injected distractor,
    # is right. Then list 2's middle is moved next to list 1's last level: the optimal
    # assignment swaps positions 1 and 2 and only position 0 stays right.
    levels = np.eye(3)
    emb = np.stack([levels, levels + 0.3])
    result = order_alignment(emb, [0, 0])
    assert result["acc_mean"] == 1.0
    d = result["details"]
    assert d["distractor_last_acc"][0] == 1.0 and d["distractor_first_acc"][0] == 1.0
    emb[1, 1] = emb[0, 2] * 0.9 + emb[0, 1] * 0.1  # list 2's middle looks like list 1's last
    assert order_alignment(emb, [0, 0])["acc_mean"] == pytest.approx(1 / 3)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_invariant_to_scale_and_sequence_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    emb = rng.normal(size=(5, 3, 4))
    labels = np.array([0, 1, 0, 0, 1])
    base = order_alignment(emb, labels)
    perm = np.array([0, 2, 3, 1, 4])  # keeps order within each label
    moved = order_alignment(emb[perm] * rng.uniform(0.5, 2, (5, 3, 1)), labels[perm])
    assert moved["acc_mean"] == pytest.approx(base["acc_mean"])
    assert moved["distractor_acc_mean"] == pytest.approx(base["distractor_acc_mean"])


def test_no_pairs_is_degenerate() -> None:
    with pytest.warns(DegenerateWarning, match="no two sequences"):
        result = order_alignment(np.ones((2, 3, 2)), ["a", "b"])
    assert np.isnan(result["acc_mean"]) and result["n_pairs"] == 0


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="n_sequences, n_positions, d"):
        order_alignment(np.ones((4, 3)), [0, 0, 0, 0])
    with pytest.raises(ValueError, match="at least 2"):
        order_alignment(np.ones((2, 1, 3)), [0, 0])
    with pytest.raises(ValueError, match="labels has 3 entries"):
        order_alignment(np.ones((2, 2, 3)), [0, 0, 0])
