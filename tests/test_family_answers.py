"""A task family answers what was once looked up by its name: its short code, the range of
each of its metrics and the per-item values a record keeps."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from test_families import TOY, NearestNeighbour

from stebkit.cli import compact_datasets
from stebkit.records.record import check_metric, metric_range
from stebkit.tasks import FAMILIES


def test_the_short_codes_are_the_families_own():
    assert {n: FAMILIES[n].code for n in ("clustering", "all_to_all_pairs", "probing",
                                          "stel")} == \
        {"clustering": "clu", "all_to_all_pairs": "a2a", "probing": "probe", "stel": "stel"}
    assert TOY.code == "nearest_neighbour"  # none declared: the name


def test_an_outside_family_shows_its_declared_code_in_the_datasets_table():
    coded = NearestNeighbour(name="near_coded", code="nn", function=TOY.function,
                             metrics={"nn_accuracy": True}, unit="episode", steb=False)
    FAMILIES.register(coded)
    try:
        frame = pd.DataFrame({"name": ["toy"], "tasks": ["near_coded,clustering,mystery"],
                              "languages": ["en"], "status": ["constructed file"]})
        text = compact_datasets(frame)
    finally:
        FAMILIES.unregister("near_coded")
    assert "nn,clu,mystery" in text.splitlines()[1]
    assert "tasks: nn near_coded, clu clustering, mystery mystery" in text


def test_metric_ranges_come_from_the_family():
    # the probing family knows the reference's keys; another family does not declare them
    assert FAMILIES["probing"].metric_range("task_3") == (0.0, 1.0)
    assert FAMILIES["clustering"].metric_range("task_3") == (-math.inf, math.inf)
    assert FAMILIES["retrieval"].metric_range("mean_rank") == (1.0, math.inf)

    class Bounded(NearestNeighbour):  # an outside family with a metric of its own range
        def metric_range(self, name):
            return (0.0, 10.0) if name == "grade" else super().metric_range(name)

    graded = Bounded(name="graded", function=TOY.function, metrics={"grade": True},
                     unit="episode", steb=False)
    FAMILIES.register(graded)
    try:
        assert metric_range("graded", "grade") == (0.0, 10.0)
        assert check_metric("graded", "grade", 7.5) == 7.5
        outside = r"metrics.grade' is 11.0, outside its range \[0, 10\]"
        with pytest.raises(ValueError, match=outside):
            check_metric("graded", "grade", 11.0)
    finally:
        FAMILIES.unregister("graded")
    assert metric_range("graded", "grade") == (-math.inf, math.inf)  # unknown: only finite


def test_item_values_round_trip_through_the_family():
    family = FAMILIES["predefined_pairs"]
    result = {"details": {"scores": np.array([0.9, 0.2]), "same": np.array([True, False])}}
    items = family.item_values(result, ["p1", "p2"])
    assert items == {"ids": ["p1", "p2"], "values": [0.9, 0.2], "labels": [True, False]}
    rebuilt = family.item_details(items)["details"]
    np.testing.assert_array_equal(rebuilt["scores"], [0.9, 0.2])
    np.testing.assert_array_equal(rebuilt["same"], [True, False])
    with pytest.raises(ValueError, match="predefined_pairs: 3 item ids for 2 per-item values"):
        family.item_values(result, ["a", "b", "c"])
    with pytest.raises(ValueError, match="'all_to_all_pairs' keep no per-item values"):
        FAMILIES["all_to_all_pairs"].item_details(items)
