"""Clustering against scikit-learn's MiniBatchKMeans and cluster metrics."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import MiniBatchKMeans
from sklearn.metrics import adjusted_mutual_info_score, adjusted_rand_score, v_measure_score

from stebkit.tasks import clustering


def blobs(seed: int = 0, n_labels: int = 4, per_label: int = 25) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = np.repeat([f"author{i}" for i in range(n_labels)], per_label)
    centres = rng.normal(scale=2.0, size=(n_labels, 8))
    codes = np.repeat(np.arange(n_labels), per_label)
    return (centres[codes] + rng.normal(size=(codes.size, 8))).astype(np.float32), labels


def test_matches_one_sklearn_fit_on_raw_embeddings() -> None:
    emb, labels = blobs()
    km = MiniBatchKMeans(n_clusters=4, random_state=42, batch_size=32, n_init="auto").fit(emb)
    result = clustering(emb, labels)
    assert result["v_measure"] == pytest.approx(v_measure_score(labels, km.labels_), abs=1e-12)
    assert result["ami"] == pytest.approx(adjusted_mutual_info_score(labels, km.labels_))
    assert result["ari"] == pytest.approx(adjusted_rand_score(labels, km.labels_))
    np.testing.assert_array_equal(result["details"]["clusters"], km.labels_)
    assert "v_measure_std" not in result


def test_n_runs_reports_mean_and_std_over_seeds() -> None:
    emb, labels = blobs(1)
    runs = [v_measure_score(labels, MiniBatchKMeans(n_clusters=4, random_state=s, batch_size=32,
                                                    n_init="auto").fit(emb).labels_)
            for s in (7, 8, 9)]
    result = clustering(emb, labels, seed=7, n_runs=3)
    assert result["v_measure"] == pytest.approx(np.mean(runs))
    assert result["v_measure_std"] == pytest.approx(np.std(runs))


def test_well_separated_clusters_are_recovered() -> None:
    emb = np.repeat(np.eye(3, dtype=np.float32) * 10, 5, axis=0)
    result = clustering(emb, np.repeat([2, 0, 1], 5))
    assert result["v_measure"] == pytest.approx(1.0) and result["ari"] == pytest.approx(1.0)


def test_bad_input() -> None:
    emb, labels = blobs()
    with pytest.raises(ValueError, match="single distinct value"):
        clustering(emb, np.zeros(len(labels)))
    with pytest.raises(ValueError, match="labels has 3 entries"):
        clustering(emb, labels[:3])
    with pytest.raises(ValueError, match="n_runs"):
        clustering(emb, labels, n_runs=0)
    with pytest.raises(TypeError, match="floating dtype"):
        clustering(emb.astype(int), labels)
    bad = emb.copy()
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="embeddings contains NaN or infinite"):
        clustering(bad, labels)
