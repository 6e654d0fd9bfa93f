"""Probing: quantile bins, balanced splits and both probes."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from stebkit.tasks import L2_GRID, balanced_split, probing, quantile_bins


def test_quantile_bins_hand_case() -> None:
    values = np.array([5.0, 1, 9, 3, 7, 2, 8, 4, 6, 10])
    np.testing.assert_array_equal(quantile_bins(values, n_bins=5),
                                  [2, 0, 4, 1, 3, 0, 3, 1, 2, 4])
    # quartile edges 1, 1, 1.5, 2.75, 4: the repeated edge is merged, leaving 3 classes
    np.testing.assert_array_equal(quantile_bins([1, 1, 1, 2, 3, 4], n_bins=4), [0, 0, 0, 1, 2, 2])
    with pytest.raises(ValueError, match="NaN"):
        quantile_bins([1.0, np.nan])
    with pytest.raises(ValueError, match="n_bins"):
        quantile_bins([1.0, 2.0], n_bins=1)


def test_balanced_split_is_balanced_disjoint_and_seeded() -> None:
    labels = np.array([0] * 50 + [1] * 37 + [2] * 80)
    split = balanced_split(labels, seed=3)
    parts = [split[k] for k in ("train", "val", "test", "dropped")]
    assert sorted(np.concatenate(parts).tolist()) == list(range(labels.size))
    for k, n in (("train", 29), ("val", 3), ("test", 5)):  # m = 37: int(29.6), int(3.7), rest
        np.testing.assert_array_equal(np.bincount(labels[split[k]]), [n, n, n])
    again = balanced_split(labels, seed=3)
    assert all(np.array_equal(split[k], again[k]) for k in split)
    other = balanced_split(labels, seed=4)
    assert not np.array_equal(split["train"], other["train"])
    capped = balanced_split(labels, max_total=30, seed=3)  # 10 per class
    np.testing.assert_array_equal(np.bincount(labels[capped["train"]]), [8, 8, 8])
    with pytest.raises(ValueError, match="fractions"):
        balanced_split(labels, fractions=(0.8, 0.3, 0.1))


def data(seed: int = 0, n: int = 90, shift: float = 4.0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    x = (rng.normal(size=(n, 5)) + shift * np.eye(3, 5)[y]).astype(np.float32)
    return x[:60], y[:60], x[60:75], y[60:75], x[75:], y[75:]


def test_logreg_matches_sklearn_with_selected_c() -> None:
    xs = data(1, shift=1.5)
    result = probing(*xs, mode="logreg")
    assert result.details["regularisation"] in L2_GRID
    scaler = StandardScaler().fit(xs[0])
    z = [scaler.transform(x) for x in (xs[0], xs[2], xs[4])]
    reg = result.details["regularisation"]
    clf = LogisticRegression(C=1 / (reg * 60), max_iter=1000).fit(z[0], xs[1])
    assert result["accuracy"] == pytest.approx(np.mean(clf.predict(z[2]) == xs[5]))
    vals = [np.mean(LogisticRegression(C=1 / (r * 60), max_iter=1000).fit(z[0], xs[1])
                    .predict(z[1]) == xs[3]) for r in L2_GRID]
    assert result["validation_score"] == pytest.approx(max(vals))
    assert result.details["regularisation"] == L2_GRID[int(np.argmax(vals))]


def protocol_oracle(xs, seed: int) -> tuple[float, float]:
    """STEB's probe protocol written out with DataLoader and nn.Sequential."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    loaders = [[(torch.tensor(x[i: i + 512]), torch.tensor(y[i: i + 512]))
                for i in range(0, len(y), 512)] for x, y in zip(xs[0::2], xs[1::2], strict=True)]

    def acc(net, loader) -> float:
        with torch.no_grad():
            hits = sum(int((net(x).argmax(1) == y).sum()) for x, y in loader)
        return hits / sum(len(y) for _, y in loader)

    results = []
    for reg in L2_GRID:
        net = torch.nn.Sequential(torch.nn.Linear(xs[0].shape[1], 3), torch.nn.Sigmoid())
        opt = torch.optim.Adam(net.parameters(), lr=0.01, weight_decay=reg)
        best, best_net, bad_epochs = -1.0, None, 0
        for _epoch in range(200):
            for x, y in loaders[0]:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(net(x), y).backward()
                opt.step()
            score = acc(net, loaders[1])
            if score > best:
                best, best_net = score, copy.deepcopy(net)
            else:
                bad_epochs += 1
                if bad_epochs == 6:
                    break
        results.append((best, reg, best_net))
    best, reg, net = max(results, key=lambda r: r[0])  # first maximum
    return acc(net, loaders[2]), reg


def test_steb_probe_follows_the_protocol_and_is_deterministic() -> None:
    rng = np.random.default_rng(2)
    y = np.arange(700) % 3
    x = (rng.normal(size=(700, 6)) + 2.0 * np.eye(3, 6)[y]).astype(np.float32)
    xs = (x[:560], y[:560], x[560:630], y[560:630], x[630:], y[630:])
    first = probing(*xs, mode="steb", seed=5)
    accuracy, reg = protocol_oracle(xs, seed=5)
    assert first["accuracy"] == pytest.approx(accuracy, abs=1e-6)
    assert first.details["regularisation"] == reg
    assert first["accuracy"] > 0.5  # chance is 1/3
    second = probing(*xs, mode="steb", seed=5)
    assert second["accuracy"] == first["accuracy"]
    assert second.details["regularisation"] == first.details["regularisation"]
    np.testing.assert_array_equal(second["details"]["test_pred"], first["details"]["test_pred"])


def test_string_classes_and_bad_input() -> None:
    xs = list(data(3))
    names = np.array(["low", "mid", "high"])
    for k in (1, 3, 5):
        xs[k] = names[xs[k]]
    result = probing(*xs, mode="logreg")
    assert set(result["details"]["test_pred"]) <= set(names)
    with pytest.raises(ValueError, match="y_test has classes absent"):
        probing(xs[0], xs[1], xs[2], xs[3], xs[4], np.array(["other"] * 15), mode="logreg")
    with pytest.raises(ValueError, match="mode"):
        probing(*xs, mode="svm")
    with pytest.raises(ValueError, match="same number of columns"):
        probing(xs[0], xs[1], xs[2][:, :3], xs[3], xs[4], xs[5])
