"""Records own only their measurements (issue 42, item 3): a record's fields are declared
once and whether a file passes depends on the file alone; the score takes a registered
dataset's category, languages, application and main metric from the catalogue and a zoo
model's category from the zoo, and names a record that says otherwise; names are compared
by their look-alike skeleton; records outside ``<model>/<dataset>/``, duplicate JSON keys,
disordered intervals, mixed main metrics and unknown families are named."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from result_records import result_record

from stebkit import cli, scores
from stebkit.datasets import registry
from stebkit.records.results import Record, Results, read_record, record_path, write_record
from stebkit.records.steb_format import import_steb

MODELS = ("m1", "m2", "m3", "random")
DATASETS = ("federalist-authorship", "brown-genre", "bible-versions", "masc-register",
            "nps-chat-age")
"""Lite datasets of five categories, English, serving clustering and all-to-all pairs."""
MAIN = {"clustering": "v_measure", "all_to_all_pairs": "auc"}
LOOK_ALIKE = "f\u0435deralist-authorship"  # a Cyrillic e


def _records():
    """(model, dataset, task, record) of four models on five datasets and two families,
    each record as a run writes it: the catalogue's and the zoo's metadata."""
    rng = np.random.default_rng(0)
    for model in MODELS:
        for dataset in DATASETS:
            spec = registry.get_spec(dataset)
            for task, main in MAIN.items():
                rec = result_record(model, dataset, task, main=main,
                                    **{main: float(rng.uniform(0.5, 0.9)),
                                       "ari": float(rng.uniform(0.0, 0.5))})
                rec["dataset"].update(category=spec.category, languages=list(spec.languages),
                                      application=spec.application)
                rec["model"]["category"] = "non_neural" if model == "random" else "custom"
                yield model, dataset, task, rec


def _write(root, edit=None):
    """The records under ``root``; ``edit(model, dataset, task, record)`` may change one
    (and give the dataset name its folder is named by)."""
    for model, dataset, task, rec in _records():
        if edit is not None:
            rec = edit(model, dataset, task, rec)
        write_record(record_path(root, model, rec["dataset"]["name"], task, 1), rec)
    return root


def _board(root):
    results = Results.load(root)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few models for the correlation grouping
        board = scores.leaderboard(results, n_resamples=0, with_ci=False)
    return board, results.notes


def _edited(key, value):
    def edit(model, dataset, task, rec):
        if dataset == "federalist-authorship" or (key == "model" and model == "random"):
            part = "model" if key == "model" else "dataset"
            rec[part] = {**rec[part], **value}
        return rec
    return edit


@pytest.mark.parametrize("key, value, field", [
    ("category", {"category": "genre"}, "dataset.category"),
    ("languages", {"languages": ["de"]}, "dataset.languages"),
    ("application", {"application": "custom"}, "dataset.application"),
    ("model", {"category": "style"}, "model.category"),
])
def test_editing_a_records_metadata_changes_no_score_and_is_named(tmp_path, key, value,
                                                                  field):
    board, notes = _board(_write(tmp_path / "a"))
    assert notes == []  # records as a run writes them say what the catalogue says
    edited, notes = _board(_write(tmp_path / "b", _edited(key, value)))
    pd.testing.assert_frame_equal(edited, board)
    assert len(notes) == 1 and f"field '{field}' is {value[next(iter(value))]!r}" in notes[0]
    assert notes[0].startswith(str(tmp_path / "b")) and "(and " in notes[0]


def test_a_records_main_metric_changes_no_score_and_is_named(tmp_path):
    board, _ = _board(_write(tmp_path / "a"))

    def edit(model, dataset, task, rec):
        if (dataset, task) == ("federalist-authorship", "clustering"):
            rec["main_metric"] = "ari"  # the catalogue's is v_measure
        return rec

    edited, notes = _board(_write(tmp_path / "b", edit))
    pd.testing.assert_frame_equal(edited, board)
    assert len(notes) == 1 and "field 'main_metric' is 'ari'" in notes[0]
    assert "the score takes 'v_measure'" in notes[0]


def test_a_look_alike_dataset_name_is_the_registered_one_and_is_named(tmp_path):
    board, _ = _board(_write(tmp_path / "a"))

    def edit(model, dataset, task, rec):
        if (model, dataset, task) == ("m1", "federalist-authorship", "clustering"):
            rec["dataset"] = {**rec["dataset"], "name": LOOK_ALIKE}
            rec["main_metric"] = "ari"  # which, unregistered, it kept before
        return rec

    edited, notes = _board(_write(tmp_path / "b", edit))
    pd.testing.assert_frame_equal(edited, board)
    path = record_path(tmp_path / "b", "m1", LOOK_ALIKE, "clustering", 1)
    assert any(n.startswith(f"{path}: field 'dataset.name'") and "looks like the "
               "registered dataset 'federalist-authorship'" in n for n in notes)


def test_a_look_alike_of_a_result_present_is_left_out_and_named(tmp_path):
    root = _write(tmp_path / "r")
    twin = record_path(root, "r\u0430ndom", "brown-genre", "clustering", 1)  # Cyrillic a
    write_record(twin, result_record("r\u0430ndom", "brown-genre", v_measure=0.99))
    results = Results.load(root)
    assert len(results) == len(MODELS) * len(DATASETS) * len(MAIN)
    assert any(n.startswith(f"{twin} holds the same result as") for n in results.notes)


def test_whether_a_record_passes_does_not_depend_on_what_is_registered(monkeypatch):
    from stebkit.datasets.spec import License, Source, TaskConfig

    rec = result_record(dataset="own-main", main="v_measure", v_measure=0.5, ari=0.2)
    before = Record.from_json(rec)
    spec = registry.DatasetSpec(
        name="own-main", description="toy", languages=("en",), source=Source(),
        license=License("CC0-1.0"), label="author", tasks={"clustering": TaskConfig()},
        category="idiolect", application="authorship_attribution", main_metric="ari")
    monkeypatch.setitem(registry._REGISTRY, spec.name, spec)
    assert Record.from_json(rec) == before  # the file passes as it did
    (view,) = Results([rec]).main_frame().to_dict("records")
    assert (view["metric"], view["value"]) == ("ari", 0.2)  # the score reads the catalogue


@pytest.mark.parametrize("change, message", [
    ({"rank": 1}, "field 'rank' is not a field of a result record (schema 2)"),
    ({"model": {"name": "m", "params": 7}}, "field 'model.params' is not a field"),
    ({"dataset": {"name": "d", "languages": "en"}},
     "field 'dataset.languages' is 'en', not a list of strings"),
    ({"ci": {"low": 0.4, "high": 0.6, "lvl": 0.95}}, "field 'ci.lvl' is not a field"),
    ({"seed": "42"}, "field 'seed' is '42', not an int"),
    ({"collapsed_share": 1.5}, "field 'collapsed_share' is 1.5, not a share in [0, 1]"),
])
def test_the_records_fields_are_declared_and_unknown_keys_refused(change, message):
    with pytest.raises(ValueError, match="^r.json: " + message.replace("[", r"\[")
                       .replace("(", r"\(").replace(")", r"\)")):
        Record.from_json({**result_record(), **change}, where="r.json")


@pytest.mark.parametrize("ci, message", [
    ({"low": 0.6, "high": 0.4}, "field 'ci' does not hold low <= high"),
    ({"low": -0.2, "high": 0.6}, "field 'ci.low' is -0.2, outside its range [0, 1]"),
    ({"low": 0.4, "high": 1.5}, "field 'ci.high' is 1.5, outside its range [0, 1]"),
])
def test_an_interval_holds_its_value_inside_the_metrics_range(tmp_path, ci, message):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**result_record(v_measure=0.5), "ci": ci}))
    with pytest.raises(ValueError, match="^" + str(path) + ": " + message.replace(
            "[", r"\[")):
        read_record(path)
    good = {**result_record(v_measure=0.5), "ci": {"low": 0.5, "high": 0.5}}
    assert Record.from_json(good).ci == {"low": 0.5, "high": 0.5}
    # A percentile interval of a biased statistic may leave out its own estimate
    # (a real lite record: V-measure 0.214, resamples' interval [0.251, 0.373]).
    above = {**result_record(v_measure=0.21), "ci": {"low": 0.25, "high": 0.37}}
    assert Record.from_json(above).ci == {"low": 0.25, "high": 0.37}


def test_a_duplicate_json_key_is_refused_not_read_as_its_last_value(tmp_path):
    path = record_path(tmp_path, "m", "d", "clustering", 1)
    path.parent.mkdir(parents=True)
    text = json.dumps(result_record(v_measure=0.1))
    path.write_text(text.replace('"v_measure": 0.1', '"v_measure": 0.1, "v_measure": 0.9'))
    with pytest.raises(ValueError, match=r"key 'v_measure' appears twice in one object"):
        read_record(path)


@pytest.mark.parametrize("parts", [("r.json",), ("x", "m", "d", "r.json")])
def test_a_record_outside_model_dataset_folders_is_left_out_and_named(tmp_path, parts):
    root = tmp_path / "r"
    for model, value in (("m1", 0.2), ("m2", 0.3)):
        write_record(record_path(root, model, "d", "clustering", 1),
                     result_record(model, v_measure=value))
    stray = root.joinpath(*parts)
    stray.parent.mkdir(parents=True, exist_ok=True)
    stray.write_text(json.dumps(result_record("m3", v_measure=0.99)))
    results = Results.load(root)
    assert sorted(r.model_name for r in results) == ["m1", "m2"]
    (note,) = results.notes
    assert note.startswith(f"{stray} lies ") and "not in a <model>/<dataset>/ folder" in note
    assert f"lies in {record_path(root, 'm3', 'd', 'clustering', 1).parent};" in note


def test_mixed_main_metrics_within_one_dataset_and_task_are_refused(tmp_path):
    root = tmp_path / "r"
    write_record(record_path(root, "m1", "d", "clustering", 1), result_record("m1"))
    other = write_record(record_path(root, "m2", "d", "clustering", 1),
                         result_record("m2", main="ari", ari=0.3))
    with pytest.raises(ValueError, match=rf"^{other}: field 'main_metric' is 'ari', but "
                                         r".*m1.* holds 'v_measure' for the same dataset"):
        Results.load(root)


def test_a_record_of_an_unknown_family_names_its_file(tmp_path, capsys):
    root = _write(tmp_path / "r")
    odd = write_record(record_path(root, "m1", "d", "ranking", 1),
                       result_record("m1", task="ranking", main="score", score=0.5))
    assert cli.main(["leaderboard", str(root)]) == 2
    err = capsys.readouterr().err
    assert f"{odd}: field 'task' is 'ranking', a task family this stebkit does not know" in err


def test_an_import_reads_look_alike_folders_as_the_registered_names(tmp_path):
    metrics = tmp_path / "steb" / "STEL_r\u0435gister" / "r\u0430ndom" / "1_100" / \
        "order_alignment" / "metrics.json"  # a Cyrillic e and a Cyrillic a
    metrics.parent.mkdir(parents=True)
    metrics.write_text('{"acc_mean": 0.5, "distractor_acc_mean": 0.25}')
    with pytest.warns(UserWarning, match="folder 'r\u0430ndom' .* zoo model 'random'"), \
            pytest.warns(UserWarning, match="folder 'STEL_r\u0435gister' .* 'stel_register'"):
        (path,) = import_steb(tmp_path / "steb", tmp_path / "results")
    assert path == record_path(tmp_path / "results", "random", "stel_register",
                               "order_alignment", 1, 100)
    rec = read_record(path)
    assert rec["model"]["category"] == "non_neural"
    assert rec["dataset"]["category"] == registry.get_spec("stel_register").category
    assert [w.split(" only in")[0] for w in rec["warnings"]] == [
        "LookAlikeName: the reference's folder 'STEL_r\u0435gister' ('STEL_r\\u0435gister') "
        "differs from the registered dataset 'stel_register'",
        "LookAlikeName: the reference's folder 'r\u0430ndom' ('r\\u0430ndom') differs from "
        "the registered zoo model 'random'"]


def test_an_imported_look_alike_is_named_and_so_is_a_second_folder_of_one_model(tmp_path,
                                                                              capsys):
    steb = tmp_path / "steb"
    for model in ("r\u0430ndom", "random"):  # a Cyrillic a, then the real name
        for dataset in ("STEL_register", "STEL_formality")[:1 if model == "random" else 2]:
            metrics = steb / dataset / model / "1_100" / "order_alignment" / "metrics.json"
            metrics.parent.mkdir(parents=True, exist_ok=True)
            metrics.write_text('{"acc_mean": 0.5, "distractor_acc_mean": 0.25}')
    assert cli.main(["import", str(steb), str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "(model 'random' under two folder names); keep one of them" in err
    assert "dataset" not in err.split("holds the same result as")[1]
    (steb / "STEL_register" / "random" / "1_100" / "order_alignment" / "metrics.json").unlink()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert cli.main(["import", str(steb), str(tmp_path / "r")]) == 0
    assert [str(w.message) for w in seen] == [
        "the reference's folder 'r\u0430ndom' ('r\\u0430ndom') differs from the registered "
        "zoo model 'random' only in case, look-alike or invisible characters; imported as it "
        "(2 record(s))"]
