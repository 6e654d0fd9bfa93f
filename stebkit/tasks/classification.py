"""Classification by a linear probe on frozen embeddings (MTEB/JMTEB protocol).

A multinomial logistic regression is trained on the train split for each candidate
inverse regularisation strength ``C``; the ``C`` with the best validation macro-F1 is kept
and scored once on the test split. Validation data only chooses the setting — it is never
trained on — so the test score is an honest estimate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from stebkit.datasets.spec import RECORD_COLUMNS

from . import _checks
from .family import Statistic
from .inputs import TaskInput, by_split
from .probing import _Probing
from .result import TaskResult

#: The inverse L2 strengths tried on validation.
DEFAULT_CS: tuple[float, ...] = (0.01, 0.1, 1.0, 10.0, 100.0)


def classification(
    X_train: np.ndarray, y_train: np.ndarray, X_val: np.ndarray, y_val: np.ndarray,
    X_test: np.ndarray, y_test: np.ndarray, *, Cs: tuple[float, ...] = DEFAULT_CS,
    max_iter: int = 1000, seed: int = 42,
) -> TaskResult:
    """Macro-F1 and accuracy of a logistic-regression probe chosen on validation.

    Parameters
    ----------
    X_train, X_val, X_test : ndarray of shape (n, d)
        Frozen embeddings of each split (any float dtype).
    y_train, y_val, y_test : array-like of shape (n,)
        Class labels. Every validation/test label must occur in the training split.
    Cs : tuple of float
        Candidate inverse regularisation strengths (scikit-learn's ``C``).
    max_iter : int
        Iterations of the L-BFGS solver.
    seed : int
        Seed of the solver (it is deterministic; kept for a uniform signature).

    Returns
    -------
    TaskResult
        ``metrics``: ``macro_f1`` (main), ``accuracy``, ``validation_score`` (validation
        macro-F1 of the chosen setting); ``counts``: ``n_train``, ``n_validation``,
        ``n_test``; ``details``: ``test_true`` and ``test_pred`` (class codes in sorted
        label order), ``regularisation`` (the chosen L2 strength, ``1 / C``) and ``C``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> centres = np.array([[3.0, 0.0], [0.0, 3.0]])
    >>> def split(n):
    ...     y = np.arange(n) % 2
    ...     return centres[y] + rng.normal(size=(n, 2)), y
    >>> (Xa, ya), (Xb, yb), (Xc, yc) = split(40), split(20), split(20)
    >>> res = classification(Xa, ya, Xb, yb, Xc, yc)
    >>> res["macro_f1"] > 0.9, res.details["C"] in DEFAULT_CS
    (True, True)
    """
    splits = _checked_splits(X_train, y_train, X_val, y_val, X_test, y_test)
    if not Cs or any(c <= 0 for c in Cs):
        raise ValueError(f"Cs must be positive numbers, got {Cs}")
    _check_classes(splits)
    val_f1, c, model = _best_probe(splits, Cs, max_iter=max_iter, seed=seed)
    return _test_result(splits, val_f1, c, model)


def _test_result(splits: dict[str, tuple[np.ndarray, np.ndarray]], val_f1: float, c: float,
                 model: Any) -> TaskResult:
    """The chosen probe's scores on the test split, as :func:`classification` returns them."""
    from sklearn.metrics import accuracy_score, f1_score

    pred = model.predict(splits["test"][0])
    truth = splits["test"][1]
    classes_sorted = np.unique(np.concatenate([np.asarray(truth), np.asarray(pred)]))
    return TaskResult(
        {"macro_f1": float(f1_score(truth, pred, average="macro")),
         "accuracy": float(accuracy_score(truth, pred)), "validation_score": val_f1},
        {"n_train": splits["train"][0].shape[0], "n_validation": splits["val"][0].shape[0],
         "n_test": splits["test"][0].shape[0]},
        {"test_true": np.searchsorted(classes_sorted, truth),
         "test_pred": np.searchsorted(classes_sorted, pred),
         "regularisation": 1.0 / float(c), "C": float(c)})


def _checked_splits(X_train, y_train, X_val, y_val, X_test, y_test
                    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The three splits as checked ``(X, y)`` arrays of one width, keyed ``train``,
    ``val`` and ``test``."""
    splits = {}
    for name, X, y in (("train", X_train, y_train), ("val", X_val, y_val),
                       ("test", X_test, y_test)):
        X = _checks.embeddings(X, f"X_{name}")
        splits[name] = (X, _checks.labels(y, f"y_{name}", X.shape[0], f"X_{name}"))
    dims = {X.shape[1] for X, _ in splits.values()}
    if len(dims) != 1:
        raise ValueError(f"X_train, X_val and X_test must have the same width, got {sorted(dims)}")
    return splits


def _check_classes(splits: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
    """Raise unless training holds two classes and every validation/test label is one."""
    classes = set(np.unique(splits["train"][1]).tolist())
    if len(classes) < 2:
        raise ValueError("y_train must hold at least two classes")
    for name in ("val", "test"):
        unseen = set(np.unique(splits[name][1]).tolist()) - classes
        if unseen:
            raise ValueError(f"y_{name} has label(s) {sorted(map(str, unseen))[:5]} that never "
                             "occur in y_train; the probe cannot predict them")


def _best_probe(splits: dict[str, tuple[np.ndarray, np.ndarray]], Cs: tuple[float, ...], *,
                max_iter: int, seed: int) -> tuple[float, float, Any]:
    """``(validation macro-F1, C, fitted model)`` of the ``C`` that scores best on
    validation (the first of equals)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score

    best: tuple[float, float, object] | None = None
    for c in Cs:
        model = LogisticRegression(C=c, max_iter=max_iter, random_state=seed)
        model.fit(*splits["train"])
        score = f1_score(splits["val"][1], model.predict(splits["val"][0]), average="macro")
        if best is None or score > best[0]:
            best = (float(score), c, model)
    return best


def _macro_f1_statistic(truth: np.ndarray, pred: np.ndarray) -> tuple[int, Statistic]:
    """Macro-F1 of a resample (scikit-learn's: classes seen in truth or prediction,
    F1 = 0 for a class with no true and no predicted member is never counted)."""
    k = int(max(truth.max(), pred.max())) + 1
    cell = truth * k + pred

    def macro_f1(idx: np.ndarray) -> float:
        table = np.bincount(cell[idx], minlength=k * k).reshape(k, k).astype(float)
        tp, true_n, pred_n = np.diag(table), table.sum(axis=1), table.sum(axis=0)
        present = (true_n + pred_n) > 0
        f1 = 2 * tp[present] / (true_n[present] + pred_n[present])
        return float(f1.mean())

    return truth.shape[0], macro_f1


class _Classification(_Probing):
    """Classification: the items and test ids of probing, a logistic-regression probe,
    macro-F1."""

    def _run(self, ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int,
             scoring: str) -> TaskResult:
        return classification(*by_split(ti, emb), seed=seed)

    def statistic(self, details: Mapping[str, Any]) -> tuple[int, Statistic]:
        return _macro_f1_statistic(np.asarray(details["test_true"], dtype=np.int64),
                                   np.asarray(details["test_pred"], dtype=np.int64))


FAMILY = _Classification(
    name="classification", code="cls", function=classification,
    metrics={"macro_f1": True, "accuracy": True, "validation_score": True},
    unit="test text", per_item=("test_pred", "test_true"), episode_sizes=(1,),
    episodes_per_label=1, columns=RECORD_COLUMNS["classification"], single_text=True, steb=False,
    description="logistic-regression probe chosen on validation (macro-F1)")
