"""A run's records are built, not patched: each step returns a new draft, and the three
constructors return a checked Record that is written as it is."""

from __future__ import annotations

import json
import time

import pytest

from stebkit.records.results import Record, check_record, write_record
from stebkit.runs import records
from stebkit.runs.context import RunContext
from stebkit.runs.planning import plan


@pytest.fixture
def draft(tmp_path):
    (unit,) = plan("random", "synthetic-authors-en", tasks=["retrieval"],
                   context=RunContext(smoke=True), output_dir=tmp_path)
    return unit, records.start(unit, {"seed": 42, "served": True, "pooling": "mean"},
                               {"name": "random"}, records.dataset_meta(unit))


def test_a_failed_record_keeps_what_the_steps_before_it_added(draft):
    unit, start = draft
    scored = records.with_protocol(start, scoring="cosine")
    rec = records.failed(scored, ValueError("no texts"), where="r.json",
                         started=time.perf_counter())
    assert isinstance(rec, Record) and rec.status == "failed"
    assert rec.error == "ValueError: no texts" and rec["protocol"]["scoring"] == "cosine"
    assert "scoring" not in start["protocol"] and "status" not in scored  # never changed


def test_ok_checks_once_and_names_the_field_out_of_range(draft):
    unit, start = draft
    bad = records.with_fields(start, status="ok", metrics={"mrr": 1.5})
    with pytest.raises(ValueError, match=r"m / d: field 'metrics.mrr' is 1.5, outside"):
        records.ok(bad, where="m / d", started=time.perf_counter())


def test_a_skipped_record_is_written_as_checked(draft, tmp_path):
    unit, start = draft
    rec = records.skipped(start, "not served", where=str(unit.path), dropped={"a": 1})
    assert [k for k in rec][-3:] == ["status", "dropped", "reason"]
    path = write_record(unit.path, rec)
    assert json.loads(path.read_text()) == check_record(rec.to_json())


def test_a_draft_cannot_be_changed_in_place(draft):
    """Every step returns a new draft; none, nor its protocol, can be patched in place."""
    unit, start = draft
    steps = [start, records.with_fields(start, n_items=3),
             records.with_protocol(start, scoring="cosine")]
    for step in steps:
        with pytest.raises(TypeError):
            step["status"] = "ok"
        with pytest.raises(TypeError):
            step["protocol"]["seed"] = 7
        with pytest.raises(AttributeError):
            step.update(status="ok")
    assert start["n_items"] == 0 and steps[1]["n_items"] == 3
    assert "scoring" not in start["protocol"] and steps[2]["protocol"]["scoring"] == "cosine"
