"""Input validation shared by the task functions.

Every check raises a :class:`TypeError` or :class:`ValueError` whose message names the
argument and says what is wrong, so that a notebook user can fix the call directly.
"""

from __future__ import annotations

import warnings

import numpy as np


class DegenerateWarning(UserWarning):
    """A metric is undefined for valid input (e.g. no positive pairs); NaN is returned."""


def degenerate(message: str) -> float:
    """Warn with :class:`DegenerateWarning` and return NaN."""
    warnings.warn(message, DegenerateWarning, stacklevel=3)
    return float("nan")


def embeddings(x: object, name: str, *, ndim: int = 2) -> np.ndarray:
    """Validate a float embedding array of ``ndim`` dimensions and return it as an ndarray.

    Floating dtypes are kept (float32 stays float32); integer or boolean arrays are refused
    so that a label array passed by mistake is caught. Zero vectors are valid: their
    cosine similarity is 0 (:func:`stebkit.tasks.similarity.unit_rows`).
    """
    if not isinstance(x, np.ndarray):
        if isinstance(x, (list, tuple)) or hasattr(x, "__array__"):
            x = np.asarray(x)
        else:
            raise TypeError(f"{name} must be a NumPy array of floats, got {type(x).__name__}")
    if not np.issubdtype(x.dtype, np.floating):
        raise TypeError(f"{name} must have a floating dtype (e.g. float32), got {x.dtype}")
    if x.ndim != ndim:
        shape = "(n, d)" if ndim == 2 else "(n_sequences, n_positions, d)"
        raise ValueError(f"{name} must have shape {shape}, got shape {x.shape}")
    if x.size == 0:
        raise ValueError(f"{name} is empty (shape {x.shape}); pass at least one vector")
    if not np.isfinite(x).all():
        bad = np.argwhere(~np.isfinite(x))[0]
        raise ValueError(f"{name} contains NaN or infinite values (first at index "
                         f"{tuple(int(i) for i in bad[:-1])}); clean or re-encode those texts")
    return x


def labels(y: object, name: str, n: int, other: str) -> np.ndarray:
    """Validate a 1-D label array of length ``n`` (matching ``other``) and return it."""
    if isinstance(y, np.ndarray):
        arr = y
    elif isinstance(y, (list, tuple)) or hasattr(y, "__array__"):  # e.g. a pandas Series
        arr = np.asarray(y)
    else:
        raise TypeError(f"{name} must be a 1-D array or list of labels, got {type(y).__name__}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} entries but {other} has {n} rows; "
                         "they must have the same length")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError(f"{name} contains NaN labels")
    if arr.dtype.kind == "O" and any(v is None for v in arr):
        raise ValueError(f"{name} contains None labels")
    return arr


def codes(y: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer codes 0..k-1 for the labels (sorted order) and the number of distinct labels."""
    try:
        uniq, inv = np.unique(y, return_inverse=True)
    except TypeError as err:
        raise TypeError(f"labels must be mutually comparable (e.g. all str or all int): {err}") \
            from None
    return inv.reshape(-1).astype(np.int64), int(uniq.shape[0])
