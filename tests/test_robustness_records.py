"""Result records and the reference's files: every value checked, nothing dropped, no
symbolic link followed, every message naming its file (issues 26 and 29)."""

from __future__ import annotations

import dataclasses
import errno
import json
import math
import os

import pytest
from result_records import result_record as _record

import stebkit
from stebkit import cli
from stebkit.records.results import Record, Results, read_record, record_path, write_record
from stebkit.records.steb_format import export_steb, import_steb, scan_steb
from stebkit.records.submission import check_submission

_METRICS = {  # one valid metrics.json per reference task folder
    "clustering": {"v_measure": 0.5},
    "all_to_all_pair_classification": {"eer": 0.3, "auc": 0.7},
    "pre_defined_pair_classification": {"eer": 0.3, "auc": 0.7},
    "retrieval": {"mrr": 0.4},
    "order_alignment": {"acc_mean": 0.5, "distractor_acc_mean": 0.5},
    "probing": {"task_0": 0.6, "average": 0.6},
}
_FOLDERS = {"all_to_all_pairs": "all_to_all_pair_classification",
            "predefined_pairs": "pre_defined_pair_classification"}


def write_benchmark(root, short: str):
    """The files a whole run of the reference's benchmark preset writes for one model:
    every catalogue dataset its entries run, with each entry's episode configuration."""
    from stebkit.datasets import get_spec
    from stebkit.tasks.presets import preset_entries, resolve_datasets

    for entry in preset_entries("benchmark"):
        task = _FOLDERS.get(entry.task, entry.task)
        for name in resolve_datasets(entry, None, []):
            spec = get_spec(name)
            for size in entry.episode_sizes:
                path = (root / (spec.steb_name or spec.name) / short
                        / f"{size}_{entry.episodes_per_label}" / task / "metrics.json")
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(_METRICS[task]))
    return root


def _steb_file(root, relative: str, content: str):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


# --------------------------------------------------------------------------- 4


def test_04_import_keeps_every_episode_configuration(tmp_path, capsys) -> None:
    steb = tmp_path / "steb"
    a = _steb_file(steb, "d/m/1_50/clustering/metrics.json", '{"v_measure": 0.25}')
    b = _steb_file(steb, "d/m/1_100/clustering/metrics.json", '{"v_measure": 0.75}')
    assert cli.main(["import", str(steb), str(tmp_path / "records")]) == 0
    assert "2 record(s) written" in capsys.readouterr().out
    files = sorted((tmp_path / "records").rglob("*.json"))
    assert len(files) == 2  # one record per file, none written over another
    back = Results.load(tmp_path / "records")
    assert sorted((r["episodes_per_label"], r["metrics"]["v_measure"]) for r in back) == \
        [(50, 0.25), (100, 0.75)]
    again = tmp_path / "again"
    assert len(export_steb(tmp_path / "records", again).written) == 2
    for original in (a, b):
        assert (again / original.relative_to(steb)).read_bytes() == original.read_bytes()


def test_04_two_folders_of_one_dataset_are_named_not_merged(tmp_path) -> None:
    steb = tmp_path / "steb"
    first = _steb_file(steb, "STEL_register/m/1_100/order_alignment/metrics.json",
                       '{"distractor_acc_mean": 0.5}')
    second = _steb_file(steb, "stel_register/m/1_100/order_alignment/metrics.json",
                        '{"distractor_acc_mean": 0.7}')
    with pytest.raises(ValueError, match="holds the same result as") as err:
        import_steb(steb, tmp_path / "records")
    assert str(first) in str(err.value) and str(second) in str(err.value)
    assert not (tmp_path / "records").exists()


# --------------------------------------------------------------------------- 11


@pytest.mark.parametrize("bad, shown", [
    (float("nan"), "is nan, not a finite number"),
    (None, "is null (NaN or missing)"),
    ("0.9", "is '0.9' (a str, not a number)"),
    (7.5, "is 7.5, outside its range [0, 1]"),
])
def test_11_a_bad_value_is_recomputed_on_resume_and_named_by_the_leaderboard(
        tmp_path, capsys, bad, shown) -> None:
    out = tmp_path / "results"
    kwargs = dict(tasks=["retrieval"], smoke=True, output_dir=out, show_progress=False)
    stebkit.evaluate("random", ["synthetic-authors-en"], **kwargs)
    (path,) = out.rglob("*.json")
    good = json.loads(path.read_text())
    path.write_text(json.dumps({**good, "metrics": {**good["metrics"], "mrr": bad}}))
    with pytest.raises(ValueError) as err:
        Results.load(out)
    assert str(err.value).startswith(f"{path}: field 'metrics.mrr' {shown}")
    assert cli.main(["leaderboard", str(out)]) == 2
    message = capsys.readouterr().err
    assert str(path) in message and "'metrics.mrr'" in message and "Traceback" not in message
    stebkit.evaluate("random", ["synthetic-authors-en"], **kwargs)  # resumes: recomputed
    again = json.loads(path.read_text())
    assert again["metrics"] == good["metrics"] and again["status"] == "ok"


def test_11_values_are_checked_against_their_range_when_written_and_read(tmp_path) -> None:
    for metrics in ({"v_measure": 7.5}, {"v_measure": -0.1}, {"v_measure": 0.5, "ari": -2.0},
                    {"v_measure": math.inf}, {"v_measure": True}):
        with pytest.raises(ValueError, match="field 'metrics.(v_measure|ari)'"):
            write_record(tmp_path / "r.json", _record(**metrics))
        assert not (tmp_path / "r.json").exists()
    # the ranges follow the metrics' definitions: ARI may be negative, a mean rank > 1
    write_record(tmp_path / "ok.json", _record(v_measure=0.0, ari=-0.2, ami=1.0,
                                               v_measure_std=0.01))
    retrieval = {**_record(task="retrieval", size=-1, per_label=1), "main_metric": "mrr",
                 "metrics": {"mrr": 1.0, "mean_rank": 12.5, "recall@1": 0.0}}
    assert read_record(write_record(tmp_path / "rr.json", retrieval)) == retrieval
    with pytest.raises(ValueError, match=r"'metrics.mean_rank' is 0.5, outside .*\[1, inf\]"):
        write_record(tmp_path / "x.json", {**retrieval, "metrics": {"mrr": 1.0,
                                                                     "mean_rank": 0.5}})
    for field, value, message in (
            ("counts", {"n_pairs": -3}, "field 'counts' holds {'n_pairs': -3}"),
            ("counts", {"n_pairs": 2.5}, "field 'counts' holds {'n_pairs': 2.5}"),
            ("episode_size", 0, "field 'episode_size' is 0"),
            ("episode_size", "1", "field 'episode_size' is '1'"),
            ("status", "done", "field 'status' is 'done'"),
            ("main_metric", "ari", "field 'main_metric' is 'ari'"),
            ("ci", {"low": "a", "high": 0.6}, "field 'ci.low' is 'a'"),
            ("submetrics", {"tweets": {"v_measure": 3.0}},
             "field 'submetrics.tweets.v_measure' is 3.0, outside its range"),
            ("model", {"name": "../../escaped"}, "field 'model.name' is not usable")):
        bad = tmp_path / f"{field}.json"
        bad.write_text(json.dumps({**_record(), field: value}))
        with pytest.raises(ValueError) as err:
            read_record(bad)
        assert str(err.value).startswith(f"{bad}: {message}"), err.value


def test_11_import_refuses_a_value_outside_its_range(tmp_path, capsys) -> None:
    steb = tmp_path / "steb"
    bad = _steb_file(steb, "d/m/1_50/clustering/metrics.json", '{"v_measure": 7.5}')
    assert cli.main(["import", str(steb), str(tmp_path / "records")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: field 'v_measure' is 7.5, outside its range [0, 1]" in err
    assert "correct or remove that file" in err and not (tmp_path / "records").exists()
    bad.write_text('{"v_measure": 0.5, "submetrics": {"tweets": {"v_measure": -1}}}')
    with pytest.raises(ValueError, match="field 'submetrics.tweets.v_measure' is -1"):
        import_steb(steb, tmp_path / "records")
    assert not check_submission(steb, "org/m").ok  # the submission check reads the same way


def test_11_an_undefined_metric_is_recorded_as_failed_not_ok(tmp_path) -> None:
    from stebkit.tasks import FAMILIES, TaskResult

    retrieval = FAMILIES["retrieval"]

    class Undefined(type(retrieval)):
        """Retrieval whose MRR is undefined (NaN) on every input."""

        def evaluate(self, task_input, item_embeddings, **kwargs):
            result = super().evaluate(task_input, item_embeddings, **kwargs)
            return TaskResult({**result.metrics, "mrr": float("nan")}, result.counts,
                              result.details)

    fields = {f.name: getattr(retrieval, f.name) for f in dataclasses.fields(retrieval)
              if f.init}
    FAMILIES.register(Undefined(**fields), replace=True)
    try:
        res = stebkit.evaluate("random", ["synthetic-authors-en"], tasks=["retrieval"],
                               smoke=True, output_dir=tmp_path, show_progress=False)
    finally:
        FAMILIES.register(retrieval, replace=True)
    (rec,) = res.records
    assert rec["status"] == "failed"
    assert "field 'metrics.mrr' is null (NaN or missing)" in rec["error"]
    assert "the metric is undefined on these data" in rec["error"]


def test_11_record_parses_and_gives_back_the_same_bytes(tmp_path) -> None:
    out = tmp_path / "results"
    stebkit.evaluate("random", ["synthetic-authors-en"], tasks=["clustering"], smoke=True,
                    output_dir=out, show_progress=False)
    for path in out.rglob("*.json"):
        raw = json.loads(path.read_text())
        rec = Record.from_json(raw, where=str(path))
        assert rec.task == "clustering" and rec.model_name == "random"
        assert rec.main_value == raw["metrics"][raw["main_metric"]]
        assert rec.counts == raw["counts"] and rec.warnings == tuple(raw["warnings"])
        before = path.read_bytes()
        write_record(path, rec.to_json())
        assert path.read_bytes() == before


# --------------------------------------------------------------------------- 15


@pytest.mark.parametrize("content, field", [
    ({"schema": 2, "status": "failed"}, "'model' is missing"),
    ({"schema": 2, "model": {"name": "m"}, "dataset": {"name": "d"}, "status": "failed"},
     "'task' is None"),
])
def test_15_a_record_without_its_keys_is_named_not_a_traceback(tmp_path, capsys, content,
                                                                field) -> None:
    write_record(record_path(tmp_path, "m", "d", "clustering", 1), _record())
    bad = tmp_path / "m" / "d" / "all_to_all_pairs__e1.json"
    bad.write_text(json.dumps(content))
    assert cli.main(["leaderboard", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1
    assert f"{bad}: field {field}" in err and "delete the file to recompute it" in err


# --------------------------------------------------------------------------- 20


def test_20_a_dataset_name_with_a_slash_survives_export_and_import(tmp_path, capsys) -> None:
    records = [_record(dataset="org/my-set"), _record(dataset="org/my-set", size=2)]
    first = export_steb(records, tmp_path / "steb")
    assert [p.relative_to(tmp_path / "steb").parts[0] for p in first.written] == \
        ["org__my-set", "org__my-set"]
    assert cli.main(["import", str(tmp_path / "steb"), str(tmp_path / "records")]) == 0
    assert "2 record(s) written" in capsys.readouterr().out
    again = export_steb(tmp_path / "records", tmp_path / "again")
    assert sorted(p.relative_to(tmp_path / "again") for p in again.written) == \
        sorted(p.relative_to(tmp_path / "steb") for p in first.written)
    for path in first.written:
        assert (tmp_path / "again" / path.relative_to(tmp_path / "steb")).read_bytes() == \
            path.read_bytes()


# --------------------------------------------------------------------------- 21


def test_21_export_into_the_results_folder_is_refused(tmp_path, capsys) -> None:
    out = tmp_path / "out"
    write_record(record_path(out, "m", "d", "clustering", 1), _record())
    before = sorted(out.rglob("*"))
    for target in (out / "steb", out):
        assert cli.main(["export", str(out), str(target), "--overwrite"]) == 2
        err = capsys.readouterr().err
        assert f"{target} is inside the results folder {out}" in err
    assert sorted(out.rglob("*")) == before  # nothing written
    with pytest.warns(UserWarning, match="correlation grouping needs 3"):
        assert cli.main(["leaderboard", str(out)]) == 0
    capsys.readouterr()
    steb = tmp_path / "steb"
    export_steb(out, steb)
    assert cli.main(["import", str(steb), str(steb / "records")]) == 0  # records beside it
    assert cli.main(["import", str(steb), str(tmp_path)]) == 2  # STEB files inside results
    assert "inside the results folder" in capsys.readouterr().err


# --------------------------------------------------------------------------- 23


def test_23_messages_name_the_real_file(tmp_path, capsys, monkeypatch) -> None:
    from test_steb_format import GOOD_ENTRY

    steb = write_benchmark(tmp_path / "steb", "random")
    subs = tmp_path / "SUBMISSIONS.yaml"
    subs.write_bytes(GOOD_ENTRY.replace("someone", "Jos\u00e9").encode("latin-1"))
    assert cli.main(["submission", "check", str(steb), "--model", "stebkit/random",
                     "--submissions", str(subs)]) == 1
    assert f"{subs}: not UTF-8 text" in capsys.readouterr().err
    models = tmp_path / "models_all.txt"
    models.write_bytes("stebkit/random # Jos\u00e9\n".encode("latin-1"))
    check = check_submission(steb, "stebkit/random", models_file=models)
    assert any(e.startswith(f"{models}: not UTF-8 text") for e in check.errors)

    results = tmp_path / "results"
    write_record(record_path(results, "m", "d", "clustering", 1), _record())
    bad = record_path(results, "m", "e", "clustering", 1)
    bad.parent.mkdir()
    bad.write_text(json.dumps(_record(dataset="e", v_measure="abc")))
    assert cli.main(["leaderboard", str(results)]) == 2
    assert f"{bad}: field 'metrics.v_measure' is 'abc'" in capsys.readouterr().err
    bad.unlink()

    from stebkit.errors import inject_fault

    def read_only(path):
        name = os.path.join(path.parent, f".{path.name}.x1y2.tmp")
        raise OSError(errno.EROFS, "Read-only file system", name)

    board = tmp_path / "board.md"
    with pytest.warns(UserWarning, match="correlation grouping needs 3"), \
            inject_fault("write", read_only):
        assert cli.main(["leaderboard", str(results), "--output", str(board)]) == 2
    err = capsys.readouterr().err
    assert f"cannot access {board}: read-only file system" in err and ".tmp" not in err


# --------------------------------------------------------------------------- 25


def test_25_symbolic_links_are_refused_not_followed(tmp_path, capsys) -> None:
    outside = _steb_file(tmp_path / "elsewhere", "metrics.json", '{"v_measure": 0.5}')
    steb = tmp_path / "steb"
    _steb_file(steb, "d/m/1_50/clustering/metrics.json", '{"v_measure": 0.25}')
    link = steb / "d" / "m" / "2_50" / "clustering" / "metrics.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    assert cli.main(["import", str(steb), str(tmp_path / "records")]) == 2
    assert f"{link} is a symbolic link" in capsys.readouterr().err
    assert not (tmp_path / "records").exists()
    link.unlink()
    (steb / "e").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(ValueError, match=f"{steb / 'e'} is a symbolic link"):
        scan_steb(steb)
    assert not check_submission(steb, "org/m").ok
    (steb / "e").unlink()

    results = tmp_path / "results"
    write_record(record_path(results, "m", "d", "clustering", 1), _record())
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps(_record(dataset="x")))
    link = record_path(results, "m", "x", "clustering", 1)
    link.parent.mkdir(parents=True)
    link.symlink_to(foreign)
    assert cli.main(["leaderboard", str(results)]) == 2
    assert f"{link} is a symbolic link" in capsys.readouterr().err
    with pytest.raises(ValueError, match="a symbolic link"):
        read_record(link)


# --------------------------------------------------------------------------- 29 (issue 29)


def test_29_submission_check_refuses_what_is_not_the_whole_benchmark(tmp_path) -> None:
    from stebkit.datasets import list_datasets

    lite = [_record(dataset=name) for name in list_datasets(suite="lite")[:3]]
    export_steb(lite, tmp_path / "lite")
    check = check_submission(tmp_path / "lite", "org/m")
    assert not check.ok
    assert any("lacks 315 of the 315 result files" in e and "126 of the 126 STEB datasets "
               "have none" in e for e in check.errors), check.errors
    assert any(e.startswith("3 dataset folder(s) are not STEB datasets") and
               "argugpt-generator" in e for e in check.errors)

    full = write_benchmark(tmp_path / "full", "m")
    assert check_submission(full, "org/m").ok
    moved = full / "STEL_register" / "m" / "1_100"
    moved.rename(moved.with_name("1_10"))
    (full / "ASSET").rename(tmp_path / "ASSET")  # one dataset left out
    errors = check_submission(full, "org/m").errors
    assert any("lacks" in e and "1 of the 126 STEB datasets have none: ASSET" in e and
               "STEL_register/m/1_100/order_alignment" in e for e in errors), errors
    assert "1 result file(s) use another episode configuration than the reference's: " \
        "STEL_register/m/1_10/order_alignment (the reference: 1_100)" in errors
