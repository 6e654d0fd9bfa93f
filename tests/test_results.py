"""Result records: paths, atomic writes, schema checks, frames, per-item round trips."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from stebkit.names import safe_name
from stebkit.records import results as R
from stebkit.records.items import item_details
from stebkit.records.results import Results, read_record, record_path, write_record
from stebkit.records.schema import upgrade_record


def record(model="m", dataset="d", task="retrieval", size=-1, status="ok", value=0.5,
           category="style", **extra):
    rec = {"schema": 1, "model": {"name": model, "revision": "r", "category": category},
           "dataset": {"name": dataset, "category": "idiolect", "languages": ["de", "en"]},
           "task": task, "episode_size": size, "main_metric": "mrr",
           "metrics": {"mrr": value, "recall@1": value / 2} if status == "ok" else {},
           "ci": {"low": value - 0.1, "high": value + 0.1} if status == "ok" else None,
           "n_items": 3, "status": status}
    rec.update(extra)
    return rec


def test_paths_are_safe_and_keep_task_and_episode_size(tmp_path):
    assert safe_name("org/model v2") == "org__model_v2"
    assert safe_name("../../etc") == "etc" and safe_name(".hidden") == "hidden"
    path = record_path(tmp_path, "org/name", "ELTeC (eng)", "retrieval", -1)
    assert path.relative_to(tmp_path).parts[0] == "org__name"
    assert path.parent.name.startswith("ELTeC_eng~") and path.name == "retrieval__e-1.json"
    assert path.resolve().is_relative_to(tmp_path.resolve())
    with pytest.raises(ValueError, match="non-empty string"):
        safe_name("  ")


def test_write_is_atomic_and_nan_becomes_null(tmp_path, monkeypatch):
    path = tmp_path / "a" / "r.json"
    failed = record(status="failed", error="RuntimeError: boom")
    write_record(path, {**failed, "metrics": {"mrr": float("nan")},
                        "dataset": {**failed["dataset"], "source_sha256": np.array(["a"])},
                        "n_texts": np.int64(3), "runtime_s": np.float32(0.25)})
    assert json.loads(path.read_text()) == {
        **failed, "metrics": {"mrr": None}, "n_texts": 3, "runtime_s": 0.25,
        "dataset": {**failed["dataset"], "source_sha256": ["a"]}}

    def broken_replace(src, dst, **dir_fds):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        write_record(path, record())
    assert json.loads(path.read_text())["metrics"]["mrr"] is None  # the old record is intact
    assert [p.name for p in path.parent.iterdir()] == ["r.json"]  # no temporary left


def test_read_record_refuses_broken_and_foreign_files(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a JSON result record"):
        read_record(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"a": 1}')
    with pytest.raises(ValueError, match="no 'schema' key"):
        read_record(tmp_path / "other.json")
    (tmp_path / "future.json").write_text('{"schema": 99}')
    with pytest.raises(ValueError, match="field .schema. is 99, which this stebkit cannot"):
        read_record(tmp_path / "future.json")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        Results.load(tmp_path / "missing")


def test_frames_failures_and_load(tmp_path):
    recs = [record(), record(model="n", value=0.7, category="semantic"),
            record(dataset="e", status="failed", error="RuntimeError: boom"),
            record(dataset="f", status="skipped", reason="does not serve")]
    for r in recs:
        write_record(record_path(tmp_path, r["model"]["name"], r["dataset"]["name"],
                                 r["task"], r["episode_size"]), r)
    res = Results.load(tmp_path)
    assert len(res) == 4 and not res.ok
    assert Results(str(tmp_path)).records == res.records
    tidy = res.to_frame()
    assert list(tidy.columns) == list(R.FRAME_COLUMNS)
    assert len(tidy) == 2 * 2 + 1 + 1
    main_rows = tidy[tidy["is_main"] & (tidy["status"] == "ok")]
    assert sorted(main_rows["value"]) == [0.5, 0.7]
    side = tidy[tidy["metric"] == "recall@1"]
    assert side["ci_low"].isna().all() and (tidy["language"] == "de").all()
    main = res.main_frame()
    assert len(main) == 4 and main.loc[main["status"] != "ok", "value"].isna().all()
    assert main.set_index(["model", "dataset"]).loc[("n", "d"), "ci_high"] == pytest.approx(0.8)
    assert res.with_status("failed").to_dict("records") == [
        {"model": "m", "dataset": "e", "task": "retrieval", "episode_size": -1,
         "failure": "error", "error": "RuntimeError: boom"}]
    assert res.with_status("skipped")["reason"].tolist() == ["does not serve"]
    assert "1 records" not in repr(res) and "'failed': 1" in repr(res)


def test_results_hold_checked_records_that_read_like_their_json(tmp_path):
    recs = [record(), record(dataset="e", status="failed", error="RuntimeError: boom"),
            record(dataset="f", status="skipped", reason="does not serve")]
    for r in recs:
        write_record(record_path(tmp_path, "m", r["dataset"]["name"], "retrieval", -1), r)
    res = Results.load(tmp_path)
    assert all(isinstance(r, R.Record) for r in res)
    # each record equals the file's JSON (schema 1, upgraded), key for key, and cannot be
    # changed
    for r in res:
        data = upgrade_record(json.loads(record_path(
            tmp_path, "m", r.dataset_name, "retrieval", -1).read_text()))
        assert r == data and list(r) == list(data) and data["schema"] == 2
    with pytest.raises(TypeError):
        res.records[0]["status"] = "failed"
    # one method for every status: the ok records too, and an unknown status is named
    assert res.with_status("ok")[["dataset", "task"]].values.tolist() == [["d", "retrieval"]]
    assert list(res.with_status("failed").columns) == [
        "model", "dataset", "task", "episode_size", "failure", "error"]
    with pytest.raises(ValueError, match="'broken' is not one of"):
        res.with_status("broken")
    # records given in memory are checked as files are: the bad one is named
    with pytest.raises(ValueError, match=r"record 1: field 'metrics.mrr' is 7.5"):
        Results([record(), record(dataset="x", value=7.5)])


def test_per_item_round_trip_reproduces_the_bootstrap_of_the_original_result():
    from stebkit.tasks import (
        FAMILIES,
        bootstrap_ci,
        clustering,
        order_alignment,
        paired_bootstrap,
        predefined_pairs,
        retrieval,
    )

    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 5)
    emb = (rng.normal(size=(20, 6)) + 2 * np.eye(6)[y]).astype(np.float32)
    cases = {
        "clustering": clustering(emb, y, seed=1),
        "predefined_pairs": predefined_pairs(emb[:10], emb[10:], rng.random(10) < 0.5),
        "retrieval": retrieval(emb[:8], y[:8], emb[8:], y[8:]),
        "order_alignment": order_alignment(emb.reshape(5, 4, 6)[:, :3], np.zeros(5)),
    }
    for task, result in cases.items():
        n = len(next(iter(result["details"].values())))
        if task == "order_alignment":
            n = len(result["details"]["acc"])
        if task == "retrieval":
            n = len(result["details"]["per_query_rr"])
        ids = [f"u{i}" for i in range(n)]
        kept = FAMILIES[task].item_values(result, ids)
        rec = {"task": task, "per_item": json.loads(json.dumps(kept))}
        rebuilt = item_details(rec)
        assert bootstrap_ci(rebuilt, task=task, n_resamples=200, seed=3) == \
            bootstrap_ci(result, task=task, n_resamples=200, seed=3), task
        diff = paired_bootstrap(rebuilt, result, task=task, n_resamples=50)
        assert diff["diff"] == 0.0
    with pytest.raises(ValueError, match="3 item ids for 2"):
        FAMILIES["retrieval"].item_values({"details": {"per_query_rr": np.ones(2)}},
                                          ["a", "b", "c"])
    assert FAMILIES["all_to_all_pairs"].item_values({"details": {}}, []) == \
        {"ids": [], "values": []}


def test_version_1_records_are_converted_not_rejected(tmp_path):
    """A record written before metrics, counts and settings were separated reads as the
    current schema: counts move out of metrics, renamed metrics get their new names."""
    old = {"schema": 1, "model": {"name": "m", "category": "baseline"},
           "dataset": {"name": "d", "category": "genre", "languages": ["en"]},
           "task": "probing", "episode_size": 1, "main_metric": "accuracy", "status": "ok",
           "metrics": {"accuracy": 0.5, "val_accuracy": 0.75, "l2": 0.01}}
    pairs = {**old, "task": "predefined_pairs", "main_metric": "auc",
             "metrics": {"auc": 0.9, "eer": 0.1, "n_pos": 3.0, "n_neg": 5.0}}
    stel = {**old, "task": "stel", "main_metric": "stel_acc",
            "metrics": {"stel_acc": 0.8, "stel_or_content_acc": 0.6}}
    folder = tmp_path / "m" / "d"
    folder.mkdir(parents=True)
    for name, rec in (("probing", old), ("pairs", pairs), ("stel", stel)):
        (folder / f"{name}.json").write_text(json.dumps(rec))
    probing = read_record(folder / "probing.json")
    assert probing["schema"] == 2 and probing["converted_from"] == 1
    assert probing["metrics"] == {"accuracy": 0.5, "validation_score": 0.75}
    assert probing["chosen"] == {"regularisation": 0.01}
    converted = read_record(folder / "pairs.json")
    assert converted["metrics"] == {"auc": 0.9, "eer": 0.1}
    assert converted["counts"] == {"n_pos": 3, "n_neg": 5}
    assert read_record(folder / "stel.json")["main_metric"] == "accuracy"
    frame = Results.load(tmp_path).main_frame().set_index("task")
    assert frame.loc["stel", "value"] == 0.8 and frame.loc["predefined_pairs", "value"] == 0.9
    (tmp_path / "future.json").write_text(json.dumps({**old, "schema": 9}))
    with pytest.raises(ValueError, match=r"future.json: field 'schema' is 9"):
        read_record(tmp_path / "future.json")
