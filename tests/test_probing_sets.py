"""Probing datasets: quantile bins, balanced splits, the UD EWT specs."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from stebkit.datasets import probing_sets as P
from stebkit.datasets.features import FOUNDATION_FEATURES
from stebkit.datasets.readers.text import DroppedRowsWarning
from stebkit.datasets.registry import validate_records


def quantile_labels(values: np.ndarray, n_bins: int) -> np.ndarray:
    """Independent oracle: right-closed bins between the distinct numpy quantiles."""
    edges = np.unique(np.quantile(values, np.linspace(0, 1, n_bins + 1)))
    return np.maximum(np.searchsorted(edges, values, side="left") - 1, 0)


@pytest.mark.parametrize("n_bins", [5, 4])
def test_bins_match_numpy_quantiles_and_are_balanced(n_bins: int) -> None:
    rng = np.random.default_rng(0)
    values = rng.poisson(6, size=400).astype(float)  # many ties at the bin edges
    texts = [f"text {i}" for i in range(len(values))]
    df = P.probing_records(texts, values, feature_name="toy", seed=1, n_bins=n_bins)
    expected = quantile_labels(values, n_bins)
    index = df["text"].str.slice(5).astype(int).to_numpy()
    assert (df["label"].astype(int).to_numpy() == expected[index]).all()
    assert (df["value"].to_numpy() == values[index]).all()
    per_bin = np.bincount(expected).min()
    sizes = df.groupby("label").size()
    assert len(sizes) == expected.max() + 1 and (sizes == per_bin).all()
    for _, rows in df.groupby("label"):
        counts = rows["split"].value_counts()
        assert counts.get("train", 0) == int(0.8 * per_bin)
        assert counts.get("validation", 0) == int(0.1 * per_bin)
        assert counts.get("test", 0) == per_bin - int(0.8 * per_bin) - int(0.1 * per_bin)
    assert df["text"].is_unique and (df["feature"] == "toy").all()


def test_tied_edges_merge_bins() -> None:
    values = [0.0] * 60 + [1.0] * 20 + [2.0] * 20  # the first three quintile edges are 0
    df = P.probing_records([str(i) for i in range(100)], values, feature_name="ties")
    assert sorted(df["label"].unique()) == ["0", "1", "2"]
    assert (df.groupby("label").size() == 20).all()


def test_seeded_and_capped() -> None:
    texts = [f"t{i}" for i in range(100)]
    a = P.probing_records(texts, list(range(100)), feature_name="x", seed=3)
    pd.testing.assert_frame_equal(a, P.probing_records(texts, list(range(100)),
                                                       feature_name="x", seed=3))
    b = P.probing_records(texts, list(range(100)), feature_name="x", seed=4)
    assert not a["split"].equals(b["split"])
    capped = P.probing_records(texts, list(range(100)), feature_name="x", max_total=50)
    assert (capped.groupby("label").size() == 10).all()


def test_missing_values_are_reported_and_bad_input_rejected() -> None:
    values = [float(i) for i in range(20)] + [float("nan")] * 3
    with pytest.warns(DroppedRowsWarning, match="dropped 3 of 23"):
        df = P.probing_records([str(i) for i in range(23)], values, feature_name="nan")
    assert len(df) == 20
    with pytest.raises(ValueError, match="differ in length"):
        P.probing_records(["a", "b"], [1.0], feature_name="f")
    with pytest.raises(ValueError, match="n_bins"):
        P.probing_records(["a", "b"], [1.0, 2.0], feature_name="f", n_bins=1)
    with pytest.raises(ValueError, match="all values are equal"):
        P.probing_records(list("abcdefgh"), [1.0] * 8, feature_name="f")
    with pytest.raises(ValueError, match="infinities"):
        P.probing_records(list("abcdef"), [1, 2, 3, 4, 5, np.inf], feature_name="f")
    with pytest.raises(TypeError, match="must be numbers"):
        P.probing_records(list("abcde"), ["x", 2, 3, 4, 5], feature_name="f")


def test_specs_are_lite_offline_probing_datasets() -> None:
    assert [s.name for s in P.SPECS] == [f"ud-ewt-probing-{k}" for k in P.PROBING_FEATURES]
    for spec in P.SPECS:
        assert spec.offline and spec.suites == ("lite", "smoke")
        assert dict(spec.tasks) == {"probing": P.TaskConfig((1,), 1)}
        assert (spec.category, spec.application) == ("linguistic_features", "linguistic_probing")
        assert len(spec.source.urls) == 600
        assert all(re.fullmatch(r"[0-9a-f]{64}", sha) for _, sha in spec.source.urls)
    assert set(P.PROBING_FEATURES) <= set(FOUNDATION_FEATURES)


def test_smoke_records_from_real_documents(mirror) -> None:
    spec = P.SPECS[3]  # number of pronouns
    with pytest.warns(DroppedRowsWarning, match="fewer than 32 tokens"):
        P._ewt_feature_table.cache_clear()
        records = spec.reader(spec, seed=42, smoke=True)
    clean = validate_records(records, spec)
    assert len(clean) == len(records) >= 40
    sizes = records.groupby("label").size()
    assert len(sizes) == 5 and sizes.nunique() == 1
    # hand check on the data: the label order follows the feature values
    means = records.groupby("label")["value"].mean()
    assert means.is_monotonic_increasing
    assert records["text"].str.split().str.len().min() >= 20
