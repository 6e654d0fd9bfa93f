"""Mean pooling over owners: the one numeric step that turns rows into the vectors of
their owners (chunks into texts in the encoders, texts into episodes in the tasks).

NumPy only, so that every package may import it.
"""

from __future__ import annotations

import numpy as np


def mean_by_owner(rows: np.ndarray, owners: np.ndarray, n_owners: int) -> np.ndarray:
    """Average the rows that share an owner: row ``i`` of the result is the mean (in
    float64, returned as float32) of the rows ``j`` with ``owners[j] == i``.

    Chunks of a text pool into the text's embedding, texts of an episode into the
    episode's. Every owner needs at least one row.

    >>> mean_by_owner(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), np.array([0, 1, 0]), 2)
    array([[3., 4.],
           [3., 4.]], dtype=float32)
    """
    rows = np.asarray(rows)
    owners = np.asarray(owners, dtype=np.int64)
    counts = np.bincount(owners, minlength=n_owners)
    if len(counts) > n_owners or (counts == 0).any():
        bad = int(np.flatnonzero(counts == 0)[0]) if (counts == 0).any() else int(owners.max())
        raise ValueError(f"owner {bad} has no rows, or is not below n_owners={n_owners}")
    sums = np.zeros((n_owners, rows.shape[1]), dtype=np.float64)
    np.add.at(sums, owners, rows)
    return (sums / counts[:, None]).astype(np.float32)
