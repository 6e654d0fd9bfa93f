"""STEL and STEL-or-Content against STEL's published decision rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stebkit.tasks import stel


def cos(u: np.ndarray, v: np.ndarray) -> float:
    """Cosine similarity, 0 with a zero vector (scikit-learn's ``cosine_similarity``)."""
    norms = np.linalg.norm(u) * np.linalg.norm(v)
    return float(u @ v / norms) if norms else 0.0


def published_rules(a1, a2, s1, s2, correct) -> tuple[float, float]:
    """STEL's evaluation, item by item: sims in the order A1S1, A1S2, A2S1, A2S2."""
    quad, triple = [], []
    for i in range(len(correct)):
        s11, s12, s21, s22 = cos(a1[i], s1[i]), cos(a1[i], s2[i]), cos(a2[i], s1[i]), \
            cos(a2[i], s2[i])
        first = np.linalg.norm([1 - s11, 1 - s22])
        second = np.linalg.norm([1 - s12, 1 - s21])
        pred = 1 if first < second else 2 if first > second else None
        quad.append(0.5 if pred is None else float(pred == correct[i]))
        # STEL-or-Content: the non-matching alternative is replaced by A2, triple rule on A1
        alt1, alt2 = (s1[i], a2[i]) if correct[i] == 1 else (a2[i], s2[i])
        t1, t2 = cos(a1[i], alt1), cos(a1[i], alt2)
        pred = 1 if t1 > t2 else 2 if t1 < t2 else None
        triple.append(0.5 if pred is None else float(pred == correct[i]))
    return float(np.mean(quad)), float(np.mean(triple))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 20))
def test_matches_published_rules(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    style = rng.normal(size=(2, 5))
    correct = rng.integers(1, 3, n)
    a1 = style[0] + rng.normal(size=(n, 5))
    a2 = style[1] + rng.normal(size=(n, 5))
    same = style[0] + rng.normal(size=(n, 5))
    other = style[1] + rng.normal(size=(n, 5))
    s1 = np.where(correct[:, None] == 1, same, other)
    s2 = np.where(correct[:, None] == 1, other, same)
    result = stel(a1, a2, s1, s2, correct)
    quad, triple = published_rules(a1, a2, s1, s2, correct)
    assert result["accuracy"] == pytest.approx(quad)
    assert result["or_content_accuracy"] == pytest.approx(triple)


def test_a_zero_vector_has_cosine_zero() -> None:
    rng = np.random.default_rng(11)
    a1, a2, s1, s2 = (rng.normal(size=(6, 4)) for _ in range(4))
    a1[0] = s1[1] = s2[2] = a2[3] = 0.0
    correct = np.array([1, 2, 1, 2, 1, 2])
    result = stel(a1, a2, s1, s2, correct)
    quad, triple = published_rules(a1, a2, s1, s2, correct)
    assert result["accuracy"] == pytest.approx(quad)
    assert result["or_content_accuracy"] == pytest.approx(triple)


def test_constructed_quadruples_and_ties() -> None:
    formal, casual = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    a1 = np.array([formal, formal, formal])
    a2 = np.array([casual, casual, casual])
    s1 = np.array([formal + [0, 0.2], casual + [0.2, 0], formal])
    s2 = np.array([casual + [0.2, 0], formal + [0, 0.2], formal])  # item 3: S1 == S2, a tie
    r = stel(a1, a2, s1, s2, np.array([1, 1, 2]))
    np.testing.assert_allclose(r["details"]["stel_correct"], [1.0, 0.0, 0.5])
    # triple: item 1 cos(A1,S1) > cos(A1,A2) = 0; item 2 correct S1 is casual: cos = 0.196 > 0;
    # item 3 correct S2 = formal, cos 1 > 0
    np.testing.assert_allclose(r["details"]["stel_or_content_correct"], [1.0, 1.0, 1.0])
    assert r["accuracy"] == pytest.approx(0.5)
    tie = stel(a1[:1], a2[:1], a2[:1], a2[:1], [1])  # cos(A1,S1) == cos(A1,A2)
    assert tie["or_content_accuracy"] == 0.5


def test_bad_input() -> None:
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match="alt2 has shape"):
        stel(x, x, x, np.ones((3, 3)), [1, 2])
    with pytest.raises(ValueError, match="correct must contain only 1"):
        stel(x, x, x, x, [1, 3])
    with pytest.raises(ValueError, match="correct has 1 entries"):
        stel(x, x, x, x, [1])
