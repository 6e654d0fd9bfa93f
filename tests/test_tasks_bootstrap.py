"""Bootstrap intervals: statistics reproduce the task metrics, resampling is honest."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from stebkit.tasks import (
    FAMILIES,
    all_to_all_pairs,
    bootstrap_ci,
    clustering,
    order_alignment,
    paired_bootstrap,
    predefined_pairs,
    retrieval,
    stel,
    task_statistic,
)


@pytest.fixture(scope="module")
def results() -> dict:
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(5), 8)
    emb = (rng.normal(size=(40, 6)) + np.eye(5, 6)[labels]).astype(np.float32)
    a = rng.normal(size=(30, 4))
    same = rng.random(30) < 0.5
    seqs = rng.normal(size=(6, 3, 4)) + np.linspace(0, 1, 3)[None, :, None]
    return {
        "clustering": clustering(emb, labels),
        "all_to_all_pairs": all_to_all_pairs(emb, labels),
        "predefined_pairs": predefined_pairs(a, a + rng.normal(size=a.shape) * (2 - same[:, None]),
                                             same),
        "retrieval": retrieval(emb[::2], labels[::2], emb[1::2], labels[1::2]),
        "order_alignment": order_alignment(seqs, [0, 0, 0, 1, 1, 1]),
        "stel": stel(a[:10], a[10:20], a[20:30], a[:10] + 0.1, np.arange(10) % 2 + 1),
    }


def test_statistic_on_all_items_is_the_main_metric(results: dict) -> None:
    for task, result in results.items():
        n, stat = task_statistic(task, result)
        main = FAMILIES[task].main_metric
        assert stat(np.arange(n)) == pytest.approx(result[main], abs=1e-12), task
        ci = bootstrap_ci(result, task=task, n_resamples=50)
        assert ci["low"] <= ci["high"] and ci["estimate"] == pytest.approx(
            result[main], abs=1e-12)


def test_resampled_pair_auc_equals_sklearn_on_the_resampled_list(results: dict) -> None:
    d = results["predefined_pairs"]["details"]
    n, stat = task_statistic("predefined_pairs", results["predefined_pairs"])
    idx = np.random.default_rng(1).integers(0, n, n)
    assert stat(idx) == pytest.approx(roc_auc_score(d["same"][idx], d["scores"][idx]), abs=1e-12)
    ties = {"details": {"scores": np.round(d["scores"], 1), "same": d["same"]}}
    _, stat = task_statistic("predefined_pairs", ties)
    assert stat(idx) == pytest.approx(
        roc_auc_score(d["same"][idx], np.round(d["scores"], 1)[idx]), abs=1e-12)


def test_percentile_interval_of_a_mean() -> None:
    values = np.random.default_rng(2).normal(size=400)
    ci = bootstrap_ci(values, n_resamples=1000, seed=3)
    rng = np.random.default_rng(3)
    means = [values[rng.integers(0, 400, 400)].mean() for _ in range(1000)]
    assert ci["low"] == pytest.approx(np.quantile(means, 0.025))
    assert ci["high"] == pytest.approx(np.quantile(means, 0.975))
    sem = values.std() / np.sqrt(400)  # normal approximation as a sanity check
    assert ci["high"] - ci["low"] == pytest.approx(2 * 1.96 * sem, rel=0.15)
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(values, seed=3)


def test_paired_bootstrap() -> None:
    rng = np.random.default_rng(4)
    a = rng.random(200)
    same = paired_bootstrap(a, a, n_resamples=200)
    assert same["diff"] == 0 and same["p_value"] == 1.0
    better = paired_bootstrap(a + 0.05, a, n_resamples=200)
    assert better["diff"] == pytest.approx(0.05) and better["low"] == pytest.approx(0.05)
    noisy = paired_bootstrap(a, rng.random(200), n_resamples=300)
    assert 0 < noisy["p_value"] <= 1 and noisy["low"] < noisy["diff"] < noisy["high"]


def test_bad_input(results: dict) -> None:
    with pytest.raises(ValueError, match="unknown task"):
        bootstrap_ci(results["stel"], task="ranking")
    with pytest.raises(TypeError, match="result dict"):
        bootstrap_ci([1.0, 2.0], task="stel")
    with pytest.raises(ValueError, match="same items"):
        paired_bootstrap([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_ci([1.0, np.nan])
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_ci([1.0], confidence=95)


def test_clustering_resample_statistic_equals_sklearn_v_measure():
    from sklearn.metrics import v_measure_score

    from stebkit.tasks.bootstrap import task_statistic

    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(2, 60))
        y = rng.integers(0, int(rng.integers(1, 6)), n)
        c = rng.integers(0, int(rng.integers(1, 6)), n)
        n_items, stat = task_statistic("clustering", {"details": {"label_codes": y,
                                                                  "clusters": c}})
        idx = rng.integers(0, n, n)
        assert n_items == n
        assert stat(idx) == pytest.approx(v_measure_score(y[idx], c[idx]), abs=1e-12)


def test_paired_bootstrap_mean_is_stratified_and_reduces_to_the_paired_bootstrap():
    from stebkit.tasks import paired_bootstrap_mean

    rng = np.random.default_rng(3)
    a, b = rng.random(40), rng.random(40)
    one = paired_bootstrap_mean([(a, b)], n_resamples=300, seed=7)
    ref = paired_bootstrap(a, b, n_resamples=300, seed=7)
    assert {k: one[k] for k in ref} == pytest.approx(ref)
    # two datasets: the mean of their differences, each resampled within itself
    c, d = np.ones(5), np.zeros(5)  # a constant difference of 1 in every resample
    two = paired_bootstrap_mean([(a, b), (c, d)], n_resamples=300, seed=7)
    assert two["diff"] == pytest.approx(((a.mean() - b.mean()) + 1.0) / 2)
    assert two["low"] <= two["diff"] <= two["high"] and two["n_datasets"] == 2
    # the constant dataset adds no spread: the interval is about half as wide
    assert 0.35 < (two["high"] - two["low"]) / (ref["high"] - ref["low"]) < 0.65
    with pytest.raises(ValueError, match="dataset 1: a has 5 items but b has 4"):
        paired_bootstrap_mean([(a, b), (c, d[:4])])
