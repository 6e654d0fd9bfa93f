"""The offline lite suite: every dataset loads from the mirror (smoke variant), has the
records its tasks need, stays within the size caps and is deterministic in the seed."""

from __future__ import annotations

import gc
import warnings

import pandas as pd
import pytest

from stebkit.datasets.lite import LITE_SUITES, SPECS
from stebkit.datasets.readers.text import DroppedRowsWarning, n_words
from stebkit.datasets.registry import validate_records
from stebkit.datasets.spec import APPLICATIONS, CATEGORIES, RECORD_COLUMNS
from stebkit.tasks import FAMILIES

BY_NAME = {s.name: s for s in SPECS}
SMOKE_CAP = 60


@pytest.fixture(scope="module")
def smoke(mirror):
    """Every lite dataset in its smoke variant, with the filter warnings it raised."""
    out = {}
    for spec in SPECS:
        gc.collect()  # objects left by earlier tests warn (ResourceWarning) outside the read
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            frame = spec.reader(spec, seed=42, smoke=True)
        out[spec.name] = (frame, [w for w in caught if w.category is DroppedRowsWarning],
                          [w for w in caught if w.category is not DroppedRowsWarning])
    return out


def test_declared_suite_is_broad():
    assert len(SPECS) >= 25
    assert len({s.name for s in SPECS}) == len(SPECS)
    assert {t for s in SPECS for t in s.tasks} == set(FAMILIES.steb())
    assert len({lang for s in SPECS for lang in s.languages}) >= 5
    for spec in SPECS:
        assert spec.offline and spec.suites == LITE_SUITES
        assert spec.category in CATEGORIES and spec.application in APPLICATIONS
        assert spec.source.urls and all(len(sha) == 64 for _, sha in spec.source.urls)
        assert spec.citation and spec.description and spec.license.name


@pytest.mark.slow
def test_every_smoke_dataset_has_its_task_columns(smoke):
    for name, (frame, _, other) in smoke.items():
        spec = BY_NAME[name]
        assert not other, (name, [str(w.message) for w in other])
        clean = validate_records(frame, spec)  # raises on a schema violation
        assert len(clean) == len(frame), name
        for task in spec.tasks:
            assert set(RECORD_COLUMNS.get(task, ())) <= set(frame.columns), (name, task)
        assert frame["text"].map(lambda t: isinstance(t, str) and t.strip() != "").all()
        assert frame["label"].map(lambda t: isinstance(t, str) and t != "").all()


@pytest.mark.slow
def test_smoke_sizes_and_episode_feasibility(smoke):
    for name, (frame, _, _) in smoke.items():
        spec = BY_NAME[name]
        assert 16 <= len(frame) <= SMOKE_CAP, (name, len(frame))
        if "clustering" in spec.tasks:
            cfg = spec.tasks["clustering"]
            need = max(cfg.episode_sizes) * cfg.episodes_per_label
            counts = frame["label"].value_counts()
            assert (counts >= need).sum() >= 2, (name, counts.to_dict(), need)
        if "retrieval" in spec.tasks:
            sides = frame.groupby("label")["side"].nunique()
            assert (sides == 2).all() and len(sides) >= 2, name
        if "predefined_pairs" in spec.tasks:
            pairs = frame.groupby("pair")
            assert (pairs.size() == 2).all()
            same = pairs["same"].first()
            assert same.sum() == (~same).sum() > 0, name
            # same-label pairs join the same label, different pairs two labels
            n_labels = pairs["label"].nunique()
            assert ((n_labels == 1) == same).all(), name
        if "order_alignment" in spec.tasks:
            sets = frame.groupby("group")
            assert sets["label"].nunique().eq(1).all()
            assert sets["position"].apply(lambda p: sorted(p) == list(range(len(p)))).all()
        if "probing" in spec.tasks:
            assert set(frame["split"]) == {"train", "validation", "test"}, name


@pytest.mark.slow
def test_passages_respect_the_length_cap(smoke):
    for name, (frame, _, _) in smoke.items():
        longest = frame["text"].map(n_words).max()
        assert longest <= 125, (name, longest)
    for name in ("eltec-fra-authorship", "federalist-authorship", "brown-genre"):
        words = smoke[name][0]["text"].map(n_words)
        assert words.between(60, 120).all(), name


@pytest.mark.slow
def test_documented_filters_report_their_counts(smoke):
    for name in ("m4-rus-detection", "m4-deu-detection", "shakespeare-modern"):
        messages = [str(w.message) for w in smoke[name][1]]
        assert messages and all(name in m and "dropped" in m for m in messages), name


@pytest.mark.slow
def test_eltec_designs_use_both_novels(smoke):
    retrieval = smoke["eltec-deu-retrieval"][0]
    for _, group in retrieval.groupby("label"):
        q = set(group.loc[group["side"] == "query", "work"])
        t = set(group.loc[group["side"] == "target", "work"])
        assert len(q) == len(t) == 1 and q != t
    pairs = smoke["eltec-ita-verification"][0]
    same = pairs[pairs["same"]].groupby("pair")["work"].nunique()
    assert (same == 2).all()
    assert not pairs["text"].duplicated().any()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["stel-emotives", "bible-versions", "eltec-spa-verification",
                                  "m4-ind-detection", "informal-formality"])
def test_seed_determinism(mirror, name):
    spec = BY_NAME[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedRowsWarning)
        a = spec.reader(spec, seed=7, smoke=True)
        b = spec.reader(spec, seed=7, smoke=True)
        c = spec.reader(spec, seed=8, smoke=True)
    pd.testing.assert_frame_equal(a, b)
    assert not a["text"].reset_index(drop=True).equals(c["text"].reset_index(drop=True))


@pytest.mark.slow
def test_whole_lite_suite_fits_the_demo_budget(mirror):
    total = 0
    for spec in SPECS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DroppedRowsWarning)
            frame = validate_records(spec.reader(spec, seed=42, smoke=False), spec)
        assert len(frame) <= 400, (spec.name, len(frame))
        for task, cfg in spec.tasks.items():
            if task in ("clustering", "all_to_all_pairs"):
                need = max(cfg.episode_sizes) * cfg.episodes_per_label
                assert (frame["label"].value_counts() >= need).all(), (spec.name, task)
            if task == "order_alignment":
                assert frame["group"].nunique() >= cfg.episodes_per_label, spec.name
        total += len(frame)
    assert total <= 8000
