"""A run's records are built, not patched: each step returns a new draft, and the three
constructors return a checked Record that is written as it is."""

from __future__ import annotations

import ast
import json
import time
from pathlib import Path

import pytest

import stebkit
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


def test_the_run_wing_never_patches_a_record():
    """No ``rec[...] = ...`` and no ``.update(...)`` on a record or draft in stebkit.runs:
    records are made by the constructors of stebkit.runs.records only."""
    names = {"rec", "record", "draft", "records"}
    sites = []
    for path in sorted((Path(stebkit.__file__).parent / "runs").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AugAssign) else [])
            for t in targets:
                while isinstance(t, ast.Subscript):
                    t = t.value
                    if isinstance(t, ast.Name) and t.id in names:
                        sites.append(f"{path.name}:{node.lineno}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("update", "setdefault")
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in names):
                sites.append(f"{path.name}:{node.lineno}")
    assert not sites, f"records patched in place at {sites}"
