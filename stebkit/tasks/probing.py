"""Probing: can a linear classifier read a binned style feature off frozen embeddings?

STEB bins each continuous feature (e.g. mean word length) into quantile classes, keeps an
equal number of texts per class, splits them 80/10/10 and trains a linear probe, choosing
the L2 strength on validation accuracy (SentEval's protocol).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from copy import deepcopy
from typing import Any

import numpy as np

from stebkit.datasets.spec import RECORD_COLUMNS

from . import _checks
from .family import Statistic, TaskFamily, metric_range
from .inputs import SPLITS, TaskInput, Texts, report_dropped, require_columns, valid_rows
from .result import TaskResult

_REFERENCE_KEY = re.compile(r"^(task_[0-9]+|average)$")
"""The keys of the reference's probing results: one accuracy per feature, and their mean."""

#: L2 strengths tried by the probe (STEB: ``10**t for t in range(-5, -1)``).
L2_GRID: tuple[float, ...] = (1e-5, 1e-4, 1e-3, 1e-2)


def quantile_bins(values: np.ndarray, n_bins: int = 5) -> np.ndarray:
    """Class of each value among ``n_bins`` quantile bins (``pandas.qcut``, as STEB).

    Duplicate bin edges are merged, so heavily tied features can give fewer classes.

    Examples
    --------
    >>> from stebkit.tasks import quantile_bins
    >>> quantile_bins([3.0, 1.0, 2.0, 4.0], n_bins=2).tolist()
    [1, 0, 0, 1]
    """
    import pandas as pd

    v = np.asarray(values)
    if v.ndim != 1 or v.shape[0] == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {v.shape}")
    if v.dtype.kind not in "iuf":
        raise TypeError(f"values must be numeric, got dtype {v.dtype}")
    if not np.isfinite(v).all():
        raise ValueError("values contains NaN or infinite entries; drop those texts first")
    if not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
        raise ValueError(f"n_bins must be an integer >= 2, got {n_bins!r}")
    return pd.qcut(v, q=n_bins, duplicates="drop", labels=False).astype(np.int64)


def balanced_split(labels: np.ndarray, *, fractions: tuple[float, float, float] = (0.8, 0.1, 0.1),
                   max_total: int | None = 38_400, seed: int = 42) -> dict[str, np.ndarray]:
    """Class-balanced, seeded train/val/test split (STEB's probing protocol).

    Every class is down-sampled to the size ``m`` of the smallest class (at most
    ``max_total // n_classes``); each class's kept texts are shuffled and cut into
    ``int(0.8 m)`` train, ``int(0.1 m)`` validation and the rest test. The rows of each
    split are returned in one seeded random order of the whole dataset, which is the order
    in which STEB's probe sees them (it shuffles the dataset once, then never again).

    Returns
    -------
    dict
        ``train``, ``val``, ``test``: integer row indices; ``dropped``: the indices left out
        by the balancing.

    Examples
    --------
    >>> from stebkit.tasks import balanced_split
    >>> s = balanced_split([0] * 10 + [1] * 12, seed=0)
    >>> [len(s[k]) for k in ("train", "val", "test", "dropped")]
    [16, 2, 2, 2]
    """
    y = np.asarray(labels)
    if y.ndim != 1 or y.shape[0] == 0:
        raise ValueError(f"labels must be a non-empty 1-D array, got shape {y.shape}")
    if len(fractions) != 3 or min(fractions) < 0 or abs(sum(fractions) - 1) > 1e-9:
        raise ValueError(f"fractions must be three non-negative numbers summing to 1, "
                         f"got {fractions!r}")
    code, k = _checks.codes(y)
    if k < 2:
        raise ValueError("labels has a single class; a probe needs at least 2")
    rng = np.random.default_rng(seed)
    m = int(np.bincount(code).min())
    if max_total is not None:
        m = min(m, max_total // k)
    n_train, n_val = int(fractions[0] * m), int(fractions[1] * m)
    split = np.full(y.shape[0], 3, dtype=np.int8)  # 0 train, 1 val, 2 test, 3 dropped
    for c in range(k):
        kept = rng.permutation(np.flatnonzero(code == c))[:m]
        split[kept[:n_train]] = 0
        split[kept[n_train: n_train + n_val]] = 1
        split[kept[n_train + n_val:]] = 2
    order = rng.permutation(y.shape[0])
    return {name: order[split[order] == s]
            for s, name in enumerate(("train", "val", "test", "dropped"))}


def _steb_probe(xs: list[np.ndarray], ys: list[np.ndarray], n_classes: int,
                seed: int) -> tuple[float, float, float, np.ndarray]:
    """STEB's probe: Linear -> sigmoid -> cross-entropy, Adam lr 0.01, batch 512, no shuffle.

    Per L2 strength: at most 200 epochs; after each epoch the validation accuracy is
    compared with the best so far; the count of epochs without improvement is never reset,
    and training stops once it exceeds 5. The best-on-validation state of the strength with
    the highest validation accuracy (first on ties) is evaluated on the test set.
    """
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny matrices: one thread is fastest and reproducible
    try:
        return _train_steb_probe(torch, xs, ys, n_classes, seed)
    finally:
        torch.set_num_threads(threads)


def _train_steb_probe(torch, xs, ys, n_classes, seed):  # noqa: ANN001, ANN202
    torch.manual_seed(seed)
    (xtr, xva, xte), (ytr, yva, yte) = ([torch.from_numpy(np.ascontiguousarray(a, np.float32))
                                         for a in xs], [torch.from_numpy(a) for a in ys])

    def accuracy(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> tuple:
        with torch.no_grad():
            pred = torch.cat([torch.sigmoid(model(x[i: i + 512])).argmax(1)
                              for i in range(0, x.shape[0], 512)])
        return float((pred == y).float().sum() / y.shape[0]), pred.numpy()

    best_states, best_scores = [], []
    for reg in L2_GRID:
        model = torch.nn.Linear(xtr.shape[1], n_classes)
        opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=reg)
        best, state, stalls = float("-inf"), None, 0
        for _ in range(200):
            for i in range(0, xtr.shape[0], 512):
                # STEB applies a sigmoid before the softmax cross-entropy; kept on purpose.
                loss = torch.nn.functional.cross_entropy(
                    torch.sigmoid(model(xtr[i: i + 512])), ytr[i: i + 512])
                opt.zero_grad()
                loss.backward()
                opt.step()
            val_acc, _ = accuracy(model, xva, yva)
            if val_acc > best:
                best, state = val_acc, deepcopy(model.state_dict())
            else:
                stalls += 1
                if stalls > 5:
                    break
        best_states.append(state)
        best_scores.append(best)
    pick = int(np.argmax(best_scores))
    model = torch.nn.Linear(xtr.shape[1], n_classes)
    model.load_state_dict(best_states[pick])
    test_acc, pred = accuracy(model, xte, yte)
    return test_acc, L2_GRID[pick], best_scores[pick], pred


def _logreg_probe(xs: list[np.ndarray], ys: list[np.ndarray],
                  seed: int) -> tuple[float, float, float, np.ndarray]:
    """Multinomial logistic regression on standardised features (mean and scale from the
    training split); L2 strength ``lam`` means ``C = 1 / (lam * n_train)``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    best = (float("-inf"), None, None)
    for reg in L2_GRID:
        clf = make_pipeline(StandardScaler(), LogisticRegression(
            C=1.0 / (reg * xs[0].shape[0]), max_iter=1000, random_state=seed))
        clf.fit(xs[0], ys[0])
        val_acc = float(np.mean(clf.predict(xs[1]) == ys[1]))
        if val_acc > best[0]:
            best = (val_acc, reg, clf)
    pred = best[2].predict(xs[2])
    return float(np.mean(pred == ys[2])), best[1], best[0], pred


def probing(X_train: np.ndarray, y_train: np.ndarray, X_val: np.ndarray, y_val: np.ndarray,
            X_test: np.ndarray, y_test: np.ndarray, *, mode: str = "steb",
            seed: int = 42) -> TaskResult:
    """Test accuracy of a linear probe trained on frozen embeddings.

    Parameters
    ----------
    X_train, X_val, X_test : ndarray of shape (n_split, d)
        Embeddings of each split (zero vectors allowed).
    y_train, y_val, y_test : array-like of shape (n_split,)
        Classes (e.g. from :func:`quantile_bins`); every validation and test class must
        occur in training.
    mode : {"steb", "logreg"}
        ``"steb"`` reproduces STEB's torch probe (see ``_steb_probe``: linear layer, Adam lr
        0.01, weight decay chosen from ``L2_GRID`` on validation accuracy, batch 512 in input
        order, at most 200 epochs with early stopping, and STEB's sigmoid before the
        cross-entropy). ``"logreg"`` is scikit-learn's multinomial logistic regression
        (lbfgs) on features standardised with the training split's mean and scale, with
        the same L2 grid, ``C = 1 / (l2 * n_train)``.
    seed : int
        Seeds the torch initialisation (``"steb"``) or the solver (``"logreg"``).

    Returns
    -------
    TaskResult
        ``metrics``: ``accuracy`` (test, main) and ``validation_score`` (the validation
        accuracy of the chosen setting); ``counts``: ``n_train``, ``n_validation``,
        ``n_test``, ``n_classes``; ``details``: ``test_pred`` (predicted class),
        ``test_correct`` (0/1 floats) and ``regularisation`` (the chosen L2 strength).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.arange(60) % 2
    >>> X = (rng.normal(size=(60, 4)) + 6 * y[:, None]).astype(np.float32)
    >>> probing(X[:40], y[:40], X[40:50], y[40:50], X[50:], y[50:], mode="logreg")["accuracy"]
    1.0
    """
    xs, ys, classes = _coded_splits(X_train, y_train, X_val, y_val, X_test, y_test)
    acc, reg, val_acc, pred = _probe(xs, ys, classes.shape[0], mode=mode, seed=seed)
    return TaskResult(
        {"accuracy": acc, "validation_score": val_acc},
        {"n_train": xs[0].shape[0], "n_validation": xs[1].shape[0],
         "n_test": xs[2].shape[0], "n_classes": int(classes.shape[0])},
        {"test_pred": classes[pred], "test_correct": (pred == ys[2]).astype(np.float64),
         "regularisation": float(reg)})


def _probe(xs: list[np.ndarray], ys: list[np.ndarray], n_classes: int, *, mode: str,
           seed: int) -> tuple[float, float, float, np.ndarray]:
    """``(test accuracy, chosen L2 strength, validation accuracy, test predictions)`` of
    the probe of ``mode``."""
    if mode == "steb":
        return _steb_probe(xs, ys, n_classes, seed)
    if mode == "logreg":
        return _logreg_probe(xs, ys, seed)
    raise ValueError(f"mode must be 'steb' or 'logreg', got {mode!r}")


def _coded_splits(X_train: object, y_train: object, X_val: object, y_val: object,
                  X_test: object, y_test: object
                  ) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """The checked embeddings of the three splits (one width), their classes as codes into
    the training classes, and those classes (sorted; at least two)."""
    xs, raw = [], []
    for name, x, y in (("X_train", X_train, y_train), ("X_val", X_val, y_val),
                       ("X_test", X_test, y_test)):
        x = _checks.embeddings(x, name)
        xs.append(x)
        raw.append(_checks.labels(y, "y" + name[1:], x.shape[0], name))
    if len({x.shape[1] for x in xs}) != 1:
        raise ValueError("X_train, X_val and X_test must have the same number of columns, got "
                         f"{[x.shape[1] for x in xs]}")
    classes = np.unique(raw[0])
    if classes.shape[0] < 2:
        raise ValueError("y_train has a single class; a probe needs at least 2")
    ys = []
    for name, y in zip(("y_train", "y_val", "y_test"), raw, strict=True):
        unseen = np.setdiff1d(y, classes)
        if unseen.shape[0]:
            raise ValueError(f"{name} has classes absent from y_train: {unseen[:5].tolist()}")
        ys.append(np.searchsorted(classes, y).astype(np.int64))
    return xs, ys, classes


def probe_features(task_input: TaskInput, embeddings: np.ndarray, *,
                   seed: int = 42, mode: str = "steb") -> TaskResult:
    """Probe every feature of a probing input and average, as the reference.

    One probe per feature (the rows of a ``feature`` column; a single feature without
    it); the main metric ``accuracy`` is the mean test accuracy over the features (the
    reference's ``average``), ``accuracy[<feature>]`` keeps each feature's accuracy and
    ``validation_score`` the mean validation accuracy.

    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> y = np.arange(40) % 2
    >>> records = pd.DataFrame({"text": [f"t{i}" for i in range(40)] * 2,
    ...     "label": np.concatenate([y, 1 - y]).astype(str), "feature": ["a"] * 40 + ["b"] * 40,
    ...     "split": (["train"] * 30 + ["validation"] * 5 + ["test"] * 5) * 2})
    >>> from stebkit.tasks import FAMILIES
    >>> ti = FAMILIES["probing"].build(records, episode_size=1, episodes_per_label=1)
    >>> emb = (rng.normal(size=(40, 3)) + 4 * y[:, None]).astype(np.float32)
    >>> r = probe_features(ti, emb[np.arange(80) % 40], mode="logreg")  # one row per item
    >>> r["accuracy"], r["accuracy[a]"], r["accuracy[b]"], r.counts["n_features"]
    (1.0, 1.0, 1.0, 2)
    """
    names = feature_order(task_input)
    metrics: dict[str, float] = {}
    accuracies, validation, correct, codes, regs = [], [], [], [], []
    n_test = 0
    for k, name in enumerate(names):
        mask = feature_mask(task_input, name)
        parts = []
        for split in SPLITS:
            m = mask & (task_input.splits == split)
            parts += [embeddings[m], task_input.labels[m]]
        one = probing(*parts, mode=mode, seed=seed)
        accuracies.append(one["accuracy"])
        validation.append(one["validation_score"])
        correct.append(one.details["test_correct"])
        codes.append(np.full(one.details["test_correct"].shape[0], k, dtype=np.int64))
        regs.append(one.details["regularisation"])
        n_test += one.counts["n_test"]
        if task_input.features is not None:
            metrics[f"accuracy[{name}]"] = one["accuracy"]
    head = {"accuracy": float(np.mean(accuracies)),
            "validation_score": float(np.mean(validation))}
    details: dict = {"test_correct": np.concatenate(correct),
                     "feature_index": np.concatenate(codes)}
    if len(regs) == 1:
        details["regularisation"] = regs[0]
    return TaskResult({**head, **metrics}, {"n_features": len(names), "n_test": n_test},
                      details)


def build_probing(records: Any, task: str, episode_size: int, episodes_per_label: int,
                  seed: int, sampling: str = "reference") -> TaskInput:
    """Probing and classification: every text with a label and a split is one item."""
    if episode_size != 1:
        raise ValueError(f"{task} classifies single texts: episode_size must be 1, "
                         f"got {episode_size}")
    require_columns(records, ["text", "label", "split"], task)
    rows, invalid = valid_rows(records, ["label", "split"])
    splits = rows["split"].astype(str).to_numpy()
    known = np.isin(splits, SPLITS)
    if not known.all():
        raise ValueError(f"records['split'] must be one of {SPLITS}; found "
                         f"{sorted(set(splits[~known].tolist()))[:5]}")
    features = None
    if "feature" in rows.columns and rows["feature"].notna().any():
        features = rows["feature"].fillna("").astype(str).to_numpy(dtype=object)
    for name, part in _by_feature(splits, features):
        missing = [s for s in SPLITS if not (part == s).any()]
        if missing:
            where = f" (feature {name!r})" if features is not None else ""
            raise ValueError(f"{task} needs texts in every split; split(s) {missing} are "
                             f"empty{where}")
    intern = Texts()
    episodes = tuple((intern(t),) for t in rows["text"].to_numpy())
    ids = tuple(str(i) for i in rows.index)
    if features is not None:
        ids = tuple(f"{f}:{i}" for f, i in zip(features, ids, strict=True))
    dropped = report_dropped(task, invalid, "texts need a label and a split")
    return TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(), episodes, 1,
                     rows["label"].astype(str).to_numpy(dtype=object), ids,
                     splits=splits.astype(object), dropped=dropped, sampling=sampling,
                     features=features)


def _by_feature(splits: np.ndarray, features: np.ndarray | None) -> list[tuple[str, Any]]:
    if features is None:
        return [("", splits)]
    return [(f, splits[features == f]) for f in dict.fromkeys(features.tolist())]


def feature_order(task_input: TaskInput) -> list[str]:
    """The features of a probing input in the order they first appear ([""] if none)."""
    if task_input.features is None:
        return [""]
    return list(dict.fromkeys(task_input.features.tolist()))


def feature_mask(task_input: TaskInput, feature: str) -> np.ndarray:
    """Rows of ``feature`` (every row when the input has no ``feature`` column)."""
    if task_input.features is None:
        return np.ones(task_input.n_items, dtype=bool)
    return task_input.features == feature


def held_out_ids(task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
    """The test texts of a split input (probing, classification), feature by feature
    when the input has several features."""
    ids = np.asarray(task_input.ids, dtype=object)
    test = task_input.splits == "test"
    return [i for f in feature_order(task_input)
            for i in ids[test & feature_mask(task_input, f)].tolist()]


def _mean_over_features(details: Mapping[str, Any]) -> tuple[int, Statistic]:
    """Mean over features of each feature's resampled test accuracy."""
    v = np.asarray(details["test_correct"], dtype=np.float64)
    codes = details.get("feature_index")
    codes = np.zeros(v.shape[0], np.int64) if codes is None else \
        np.asarray(codes, dtype=np.int64)
    k = int(codes.max()) + 1 if codes.size else 1

    def stat(idx: np.ndarray) -> float:
        total = np.bincount(codes[idx], weights=v[idx], minlength=k)
        count = np.bincount(codes[idx], minlength=k)
        with np.errstate(invalid="ignore", divide="ignore"):
            per = total / count
        return float(np.nanmean(per)) if np.isfinite(per).any() else float("nan")

    return v.shape[0], stat


class _Probing(TaskFamily):
    """Probing: every text with a split is an item; one probe per feature."""

    builder = staticmethod(build_probing)

    def _run(self, ti: TaskInput, emb: np.ndarray, *, seed: int, batch_size: int,
             scoring: str) -> TaskResult:
        return probe_features(ti, emb, seed=seed)

    def statistic(self, details: Mapping[str, Any]) -> tuple[int, Statistic]:
        return _mean_over_features(details)

    def metric_range(self, name: str) -> tuple[float, float]:
        """The reference's probing keys (``task_<i>``, ``average``) are accuracies too.

        >>> FAMILY.metric_range("task_3"), FAMILY.metric_range("average")
        ((0.0, 1.0), (0.0, 1.0))
        """
        return metric_range(name, declared=name in self.metrics
                            or _REFERENCE_KEY.match(name) is not None)

    def item_ids(self, task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
        return held_out_ids(task_input, result)


FAMILY = _Probing(
    name="probing", code="probe", function=probing,
    metrics={"accuracy": True, "validation_score": True},
    unit="test text", per_item=("test_correct", "feature_index"),
    episode_sizes=(1,), episodes_per_label=1, columns=RECORD_COLUMNS["probing"], single_text=True,
    description="linear probe of a binned feature on frozen embeddings (test accuracy)")
