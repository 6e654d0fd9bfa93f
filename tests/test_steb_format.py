"""The reference's result files both ways, and submission checks, on a real smoke run."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from test_robustness_records import write_benchmark

import stebkit
from stebkit import cli
from stebkit.records.results import Results
from stebkit.records.steb_format import (
    REFERENCE_METRICS,
    export_steb,
    import_steb,
    reference_metrics,
    scan_steb,
)
from stebkit.records.submission import check_submission
from stebkit.runs import context as run_context

DATASETS = ["synthetic-authors-en", "synthetic-author-pairs-en", "synthetic-order-en",
            "politeness-level"]


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory, mirror):
    """One smoke run of the random model on datasets covering all six STEB tasks."""
    out = tmp_path_factory.mktemp("smoke") / "results"
    old, run_context.N_RESAMPLES = run_context.N_RESAMPLES, 50
    try:
        res = stebkit.evaluate("random", DATASETS, smoke=True, output_dir=out,
                              show_progress=False)
    finally:
        run_context.N_RESAMPLES = old
    assert res.ok and {r["task"] for r in res if r["status"] == "ok"} == set(REFERENCE_METRICS)
    return out


@pytest.fixture
def exported(smoke_run, tmp_path):
    out = tmp_path / "steb"
    export_steb(smoke_run, out)
    return out


def test_export_writes_the_reference_layout_and_keys(smoke_run, exported) -> None:
    ok = [r for r in Results.load(smoke_run) if r["status"] == "ok"]
    files = sorted(p.relative_to(exported).as_posix() for p in exported.rglob("*") if p.is_file())
    assert len(files) == len(ok)
    assert "synthetic-authors-en/random/-1_1/retrieval/metrics.json" in files
    assert "synthetic-authors-en/random/2_5/all_to_all_pair_classification/metrics.json" in files
    assert "synthetic-author-pairs-en/random/1_2/pre_defined_pair_classification/metrics.json" \
        in files
    for r in ok:
        size, n = r["episode_size"], r["episodes_per_label"]
        task = {"all_to_all_pairs": "all_to_all_pair_classification",
                "predefined_pairs": "pre_defined_pair_classification"}.get(r["task"], r["task"])
        path = exported / r["dataset"]["name"] / "random" / f"{size}_{n}" / task / "metrics.json"
        text = path.read_text()
        # one line, json.dumps defaults (", " and ": "), keys in the reference's order
        assert "\n" not in text and text == json.dumps(reference_metrics(r))
        written = json.loads(text)
        expected = ["task_0", "average"] if r["task"] == "probing" else \
            list(REFERENCE_METRICS[r["task"]])
        assert list(written) == expected
        main = "average" if r["task"] == "probing" else r["main_metric"]
        assert written[main] == r["metrics"][r["main_metric"]]  # exact float round trip


def test_order_alignment_writes_both_distractor_variants() -> None:
    from stebkit.tasks import order_alignment

    rng = np.random.default_rng(0)
    emb = rng.normal(size=(4, 3, 5)).astype(np.float32)
    r = order_alignment(emb, ["a", "a", "a", "b"])
    d = r["details"]
    assert r["distractor_last_acc_mean"] == pytest.approx(d["distractor_last_acc"].mean())
    assert r["distractor_first_acc_mean"] == pytest.approx(d["distractor_first_acc"].mean())
    # three pairs, each variant weighted equally: the main metric is their mean
    assert r["distractor_acc_mean"] == pytest.approx(
        (r["distractor_last_acc_mean"] + r["distractor_first_acc_mean"]) / 2)


def test_round_trip_is_lossless(smoke_run, exported, tmp_path) -> None:
    imported = tmp_path / "imported"
    written = import_steb(exported, imported)
    assert len(written) == len(list(exported.rglob("metrics.json")))
    again = tmp_path / "again"
    export_steb(imported, again)
    for path in exported.rglob("metrics.json"):
        assert (again / path.relative_to(exported)).read_bytes() == path.read_bytes()
    original = Results.load(smoke_run).main_frame().query("status == 'ok'")
    back = Results.load(imported).main_frame()
    key = ["model", "dataset", "task", "episode_size"]
    merged = original.merge(back, on=key, suffixes=("", "_imported"))
    assert len(merged) == len(original) == len(back)
    assert (merged["value"] == merged["value_imported"]).all()
    assert (merged["metric"] == merged["metric_imported"]).all()
    assert (merged["dataset_category"] == merged["dataset_category_imported"]).all()


def test_imported_records_score_like_the_originals(smoke_run, exported, tmp_path) -> None:
    from stebkit.scores import leaderboard

    import_steb(exported, tmp_path / "imported")
    cols = ["clustering", "all_to_all_pairs", "predefined_pairs", "retrieval",
            "order_alignment", "probing", "steb_score", "definitional_score"]
    # one model: the correlation grouping would skip every task, the fixed one scores them
    a = leaderboard(Results.load(smoke_run), with_ci=False, grouping="fixed")[cols]
    b = leaderboard(Results.load(tmp_path / "imported"), with_ci=False, grouping="fixed")[cols]
    np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), equal_nan=True)


def test_export_refuses_an_existing_target_and_mixed_protocols(smoke_run, exported,
                                                              tmp_path) -> None:
    export_steb(smoke_run, exported)  # the same export again resumes: its files are kept
    (exported / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="holds files this export would not write.*--overwrite"):
        export_steb(smoke_run, exported)
    (exported / "notes.txt").unlink()
    before = {p: p.read_bytes() for p in exported.rglob("metrics.json")}
    export_steb(smoke_run, exported, overwrite=True)
    assert before == {p: p.read_bytes() for p in exported.rglob("metrics.json")}
    records = [r for r in Results.load(smoke_run) if r["status"] == "ok"]
    full = dict(records[0], protocol={**records[0]["protocol"], "smoke": False},
                dataset={**records[0]["dataset"], "name": "other-set"})
    with pytest.raises(ValueError, match="mix protocols.*smoke=True.*smoke=False"):
        export_steb([*records, full], tmp_path / "mixed")
    assert not (tmp_path / "mixed").exists()  # nothing written


def _break(exported, tmp_path, relative: str, content: str | None):
    broken = tmp_path / "broken"
    shutil.copytree(exported, broken)
    target = broken / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if content is None:
        target.unlink()
    else:
        target.write_text(content)
    return broken, target


@pytest.mark.parametrize("relative, content, message", [
    ("synthetic-order-en/random/1_10/ordering/metrics.json", '{"acc_mean": 0.5}',
     "unknown task folder 'ordering'"),
    ("synthetic-order-en/random/1_10/order_alignment/metrics.json",
     '{"acc_mean": 0.5, "distractor_acc_mean": "high"}',
     "field 'distractor_acc_mean' is 'high' (a str, not a number)"),
    ("synthetic-order-en/random/1_10/order_alignment/metrics.json", '{"acc_mean": 0.5}',
     "lack their main metric 'distractor_acc_mean'"),
    ("synthetic-order-en/random/ten/order_alignment/metrics.json",
     '{"distractor_acc_mean": 0.5}', "episode folder 'ten'"),
    ("synthetic-order-en/random/1_10/order_alignment/metrics.json", '{"acc_mean": 0.5,',
     "not valid JSON"),
    ("synthetic-order-en/random/1_10/order_alignment/metrics.json",
     '{"distractor_acc_mean": 0.5, "submetrics": {"tweets": {"acc_mean": null}}}',
     "field 'submetrics.tweets.acc_mean' is null (NaN or missing)"),
])
def test_import_names_the_bad_file(exported, tmp_path, relative, content, message) -> None:
    broken, target = _break(exported, tmp_path, relative, content)
    with pytest.raises(ValueError, match="metrics.json: ") as err:
        import_steb(broken, tmp_path / "records")
    assert str(target) in str(err.value) and message in str(err.value)
    assert not (tmp_path / "records").exists()  # checked before anything is written


def test_import_refuses_to_overwrite_records(exported, tmp_path) -> None:
    first = import_steb(exported, tmp_path / "records")
    assert import_steb(exported, tmp_path / "records") == first  # the same import resumes
    changed = next(exported.rglob("metrics.json"))
    values = json.loads(changed.read_text())
    changed.write_text(json.dumps({**values, next(iter(values)): 0.123456}))
    with pytest.raises(ValueError, match="exists .*--overwrite"):
        import_steb(exported, tmp_path / "records")
    assert len(import_steb(exported, tmp_path / "records", overwrite=True)) == \
        len(scan_steb(exported))


# --------------------------------------------------------------------------- submissions


def _submission_files(tmp_path, entry: str, models: str = "stebkit/random\n"):
    subs, listed = tmp_path / "SUBMISSIONS.yaml", tmp_path / "models_all.txt"
    subs.write_text(entry)
    listed.write_text(models)
    return ["--submissions", str(subs), "--models-file", str(listed)]


GOOD_ENTRY = ("- short_name: random\n  hf_id: stebkit/random\n"
              "  run_command: steb \"stebkit/random\"\n  contributor: someone\n")


def test_submission_check_passes_on_a_whole_benchmark_run(tmp_path, capsys) -> None:
    full = write_benchmark(tmp_path / "full", "random")
    argv = ["submission", "check", str(full), "--model", "stebkit/random",
            "--contributor", "someone"]
    assert cli.main([*argv, *_submission_files(tmp_path, GOOD_ENTRY)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK: the submission passes")
    assert "- short_name: random\n  hf_id: stebkit/random\n  run_command: 'steb " \
        "\"stebkit/random\"'\n  contributor: someone" in out
    import yaml  # the printed entry is valid YAML with the four keys

    entry = yaml.safe_load(out.split("entry to paste:\n")[1].split("\n\n")[0])[0]
    assert entry == {"short_name": "random", "hf_id": "stebkit/random",
                     "run_command": 'steb "stebkit/random"', "contributor": "someone"}
    assert cli.main(argv) == 0  # without the files: the generated entry, and notes


@pytest.mark.parametrize("case, message", [
    ("malformed metrics", "malformed metrics file: "),
    ("no subtree", "no results subtree <dataset>/'random'/"),
    ("entry lacks a key", "entry #0 ('random'): missing the required key 'contributor'"),
    ("not listed", "neither 'stebkit/random' nor 'random' is listed"),
])
def test_submission_check_fails_with_a_named_reason(exported, tmp_path, capsys, case,
                                                    message) -> None:
    root, entry, models = exported, GOOD_ENTRY, "stebkit/random\n"
    if case == "malformed metrics":
        root, _ = _break(exported, tmp_path, "synthetic-order-en/random/1_10/"
                         "order_alignment/metrics.json", '{"acc_mean": 0.5,')
    elif case == "no subtree":
        root = tmp_path / "other"
        shutil.copytree(exported, root)
        for folder in root.glob("*/random"):
            folder.rename(folder.with_name("random-v2"))
    elif case == "entry lacks a key":
        entry = GOOD_ENTRY.replace("  contributor: someone\n", "")
    else:
        models = "stebkit/another-model\n"
    argv = ["submission", "check", str(root), "--model", "stebkit/random",
            *_submission_files(tmp_path, entry, models)]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("FAIL: ") and message in err
    assert "entry to paste" not in err and "models_all.txt line" not in err
    check = check_submission(root, "stebkit/random", submissions=tmp_path / "SUBMISSIONS.yaml",
                             models_file=tmp_path / "models_all.txt")
    assert not check.ok and any(message in e for e in check.errors)


def test_cli_export_import(smoke_run, tmp_path, capsys) -> None:
    out = tmp_path / "steb"
    assert cli.main(["export", str(smoke_run), str(out), "--format", "steb"]) == 0
    assert "metrics.json file(s) written" in capsys.readouterr().out
    (out / "notes.txt").write_text("mine")
    assert cli.main(["export", str(smoke_run), str(out)]) == 2
    assert "holds files this export would not write" in capsys.readouterr().err
    (out / "notes.txt").unlink()
    assert cli.main(["import", str(out), str(tmp_path / "records")]) == 0
    assert "record(s) written" in capsys.readouterr().out


def test_submetrics_travel_both_ways(tmp_path) -> None:
    """The reference writes a dataset's sub-results under ``submetrics`` in metrics.json."""
    rec = {"schema": 2, "model": {"name": "org/m"}, "dataset": {"name": "d"},
           "task": "clustering", "episode_size": 1, "episodes_per_label": 50,
           "protocol": {"seed": 42, "smoke": False}, "status": "ok",
           "metrics": {"v_measure": 0.25, "ami": 0.1},
           "submetrics": {"tweets_vs_switchboard": {"v_measure": 0.5, "n_items": 100},
                          "empty": {"error": "ValueError: none of the labels"}}}
    report = export_steb([rec], tmp_path / "steb")
    written = json.loads(report.written[0].read_text())
    assert written == {"v_measure": 0.25, "submetrics": rec["submetrics"]}
    import_steb(tmp_path / "steb", tmp_path / "records")
    back = Results.load(tmp_path / "records").records[0]
    assert back["submetrics"] == rec["submetrics"]
    assert back["metrics"] == {"v_measure": 0.25}


# the field order of the records stebkit wrote before runs and imports shared one
# constructor (stebkit.records.record.new_record)
_RECORD_HEAD = ["schema", "stebkit_version", "model", "dataset", "task", "episode_size",
                "episodes_per_label", "seed", "protocol", "main_metric", "metrics", "ci",
                "n_items", "per_item"]


def test_run_and_imported_records_keep_their_fields_in_order(smoke_run, tmp_path) -> None:
    for path in sorted(smoke_run.rglob("*.json")):
        rec = json.loads(path.read_text())
        assert list(rec)[:16] == [*_RECORD_HEAD, "runtime_s", "date"], path
        assert list(rec["protocol"])[:10] == [
            "seed", "smoke", "batch_size", "sampling", "bootstrap", "served", "pooling",
            "task", "episode_size", "episodes_per_label"], path
    steb = tmp_path / "steb" / "STEL_register" / "m" / "1_100" / "order_alignment"
    steb.mkdir(parents=True)
    (steb / "metrics.json").write_text(json.dumps(
        {"acc_mean": 0.5, "distractor_acc_mean": 0.25, "submetrics": {"x": {"acc_mean": 0.5}}}))
    (written,) = import_steb(tmp_path / "steb", tmp_path / "records")
    rec = json.loads(written.read_text())
    assert list(rec) == [*_RECORD_HEAD, "status", "warnings", "submetrics"]
    assert list(rec["protocol"]) == ["source", "file", "task", "episode_size",
                                     "episodes_per_label"]
    assert (rec["seed"], rec["n_items"], rec["ci"], rec["per_item"]) == (
        None, None, None, {"ids": [], "values": []})
