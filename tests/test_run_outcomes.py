"""A run's records are built once from their parts, not patched: the three constructors
take the unit's draft with what the run found and return a checked Record that is
written as it is."""

from __future__ import annotations

import json
import time

import pytest

from stebkit.records.record import Record, check_record
from stebkit.records.results import write_record
from stebkit.runs import outcomes
from stebkit.runs.context import RunContext
from stebkit.runs.planning import plan


@pytest.fixture
def draft(tmp_path):
    (unit,) = plan("random", "synthetic-authors-en", tasks=["retrieval"],
                   context=RunContext(smoke=True), output_dir=tmp_path)
    return unit, outcomes.start(unit, {"seed": 42, "served": True, "pooling": "mean"},
                               {"name": "random"}, outcomes.dataset_meta(unit))


def test_a_failed_record_keeps_the_parts_found_before(draft):
    unit, start = draft
    rec = outcomes.failed(start, ValueError("no texts"), where="r.json",
                         started=time.perf_counter(), protocol={"scoring": "cosine"},
                         warnings=["w"], encode_s=0.25)
    assert isinstance(rec, Record) and rec.status == "failed"
    assert rec.error == "ValueError: no texts" and rec["protocol"]["scoring"] == "cosine"
    assert rec.warnings == ("w",) and rec["encode_s"] == 0.25
    assert list(rec)[-8:] == ["runtime_s", "date", "warnings", "encode_s", "status",
                              "failure", "error", "traceback"]  # a draft's key keeps its place
    assert "scoring" not in start["protocol"] and "status" not in start  # never changed


def test_ok_checks_once_and_names_the_field_out_of_range(draft):
    unit, start = draft
    with pytest.raises(ValueError, match=r"m / d: field 'metrics.mrr' is 1.5, outside"):
        outcomes.ok(start, where="m / d", started=time.perf_counter(), metrics={"mrr": 1.5})


def test_a_skipped_record_is_written_as_checked(draft, tmp_path):
    unit, start = draft
    rec = outcomes.skipped(start, "not served", where=str(unit.path), dropped={"a": 1})
    assert [k for k in rec][-3:] == ["status", "dropped", "reason"]
    path = write_record(unit.path, rec)
    assert json.loads(path.read_text()) == check_record(rec.to_json())


def test_a_draft_cannot_be_changed_in_place(draft):
    """The draft, nor its protocol, can be patched in place; a record built from it
    leaves it as it was."""
    unit, start = draft
    with pytest.raises(TypeError):
        start["status"] = "ok"
    with pytest.raises(TypeError):
        start["protocol"]["seed"] = 7
    with pytest.raises(AttributeError):
        start.update(status="ok")
    rec = outcomes.skipped(start, "not served", where="r.json", warnings=["w"], n_items=3)
    assert rec["n_items"] == 3 and rec["protocol"]["seed"] == 42 and rec.warnings == ("w",)
    assert start["n_items"] == 0 and "warnings" not in start


def test_a_failure_is_classified_by_its_type_not_its_text(draft):
    from stebkit.errors import DataUnavailable, ModelUnavailable

    unit, start = draft
    kinds = {}
    for err in (DataUnavailable("no mirror"), ModelUnavailable("offline"),
                ValueError("DataUnavailable: a message that only looks like one")):
        rec = outcomes.failed(start, err, where="r.json", started=time.perf_counter())
        kinds[type(err).__name__] = (rec["failure"], rec.failure)
    assert kinds == {"DataUnavailable": ("data_unavailable",) * 2,
                     "ModelUnavailable": ("model_unavailable",) * 2,
                     "ValueError": ("error", "error")}
    with pytest.raises(ValueError, match=r"field 'failure' is 'lost', not one of \["):
        Record.from_json({**rec.to_json(), "failure": "lost"}, where="r.json")
