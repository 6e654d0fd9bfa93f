"""Names are escaped in every table format, files stebkit did not write are read safely,
no record chooses its own score, nothing is dropped silently, interrupted imports and
exports resume, and dataset names survive an export (issue 36: items 4, 5, 7, 9, 17, 18)."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import warnings

import pytest
from result_records import result_record as _record

from stebkit import cli
from stebkit.records.results import Record, Results, record_path, write_record
from stebkit.records.steb_format import export_steb, import_steb

HOSTILE = ['=HYPERLINK("e.vil")', "@SUM(A1)", "a|b|c", "<img src=x onerror=alert(1)>",
           "[x](javascript:alert(1))", "t^x~y"]
_TASKS = {"clustering": ("argugpt-generator", "v_measure"),
          "all_to_all_pairs": ("argugpt-generator", "auc"),
          "predefined_pairs": ("eltec-eng-verification", "auc"),
          "retrieval": ("eltec-eng-retrieval", "mrr"),
          "order_alignment": ("asset-simplification", "distractor_acc_mean"),
          "probing": ("politeness-level", "accuracy")}


def _board(root):
    """Records of the hostile models and the chance level on the six families."""
    models = {"random": 0.1, **{m: 0.2 + 0.1 * k for k, m in enumerate(HOSTILE)}}
    for model, base in models.items():
        for j, (task, (dataset, metric)) in enumerate(_TASKS.items()):
            rec = _record(model, dataset, task, main=metric, **{metric: base + 0.01 * j})
            rec["model"]["category"] = "non_neural"
            write_record(record_path(root, model, dataset, task, 1), rec)
    return root


def _leaderboard(root, fmt, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few models for the correlation grouping
        assert cli.main(["leaderboard", str(root), "--format", fmt]) == 0
    return capsys.readouterr().out


# --------------------------------------------------------------------------- 4


def test_04_names_are_escaped_in_csv_markdown_and_latex(tmp_path, capsys) -> None:
    root = _board(tmp_path / "r")
    rows = list(csv.reader(io.StringIO(_leaderboard(root, "csv", capsys))))
    cells = [c for row in rows for c in row]
    for model in HOSTILE:
        assert any(c in (model, "'" + model) for c in cells), model
    for cell in cells:  # no cell a spreadsheet runs: text never starts with = + - @
        if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
            float(cell)  # only a number may
    md = _leaderboard(root, "md", capsys).strip()
    tables = [t.splitlines() for t in md.split("\n\n") if t.startswith("|")]
    for table in tables:  # the operational and the definitional table
        width = len(re.findall(r"(?<!\\)\|", table[0]))
        assert all(len(re.findall(r"(?<!\\)\|", line)) == width for line in table)
    text = "\n".join(line for table in tables for line in table)
    assert "<img" not in text and "](" not in text and "&lt;img" in text
    tex = _leaderboard(root, "latex", capsys)
    plain = tex.replace(r"\textasciicircum{}", "").replace(r"\textasciitilde{}", "")
    assert "^" not in plain and "~" not in plain and r"t\textasciicircum{}x" in tex


def test_04_the_website_writes_names_escaped(tmp_path, capsys, monkeypatch) -> None:
    import repo_scripts

    build_site = repo_scripts.load("docs/build_site.py")
    out = tmp_path / "lite.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cli.main(["leaderboard", str(_board(tmp_path / "r")), "--format", "csv",
                         "--output", str(out)]) == 0
    monkeypatch.setattr(build_site, "LITE_LEADERBOARD", out)
    monkeypatch.setattr(build_site, "SRC", tmp_path / "src")
    (tmp_path / "src" / "figures").mkdir(parents=True)
    page = build_site.leaderboard_page()
    assert "<img" not in page and "](javascript" not in page
    assert "| a|b|c |" not in page and r"a\|b\|c" in page


# --------------------------------------------------------------------------- 5


def _metrics_file(root):
    path = root / "steb" / "d" / "m" / "1_50" / "clustering" / "metrics.json"
    path.parent.mkdir(parents=True)
    return path


def test_05_import_reads_regular_files_only(tmp_path, capsys) -> None:
    path = _metrics_file(tmp_path)
    os.mkfifo(path)  # the old reader waited on it for ever
    assert cli.main(["import", str(tmp_path / "steb"), str(tmp_path / "rec")]) == 2
    err = capsys.readouterr().err
    assert f"{path}: not a regular file (a FIFO)" in err and "Traceback" not in err
    path.unlink()
    (tmp_path / "elsewhere.json").write_text('{"v_measure": 0.5}')
    os.link(tmp_path / "elsewhere.json", path)
    with pytest.raises(ValueError, match="a file with 2 hard links"):
        import_steb(tmp_path / "steb", tmp_path / "rec")


def test_05_deep_and_huge_files_are_refused_with_a_short_message(tmp_path, capsys) -> None:
    path = _metrics_file(tmp_path)
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert cli.main(["import", str(tmp_path / "steb"), str(tmp_path / "rec")]) == 2
    assert "nested too deeply" in capsys.readouterr().err
    path.write_text(json.dumps({"v_measure": "x" * 1_000_000}))
    assert cli.main(["import", str(tmp_path / "steb"), str(tmp_path / "rec")]) == 2
    err = capsys.readouterr().err
    assert "field 'v_measure' is 'xxx" in err and len(err) < 1000
    path.write_text(" " * (17 * 2**20) + "{}")
    with pytest.raises(ValueError, match="larger than 16,777,216 bytes"):
        import_steb(tmp_path / "steb", tmp_path / "rec")
    rec = tmp_path / "r" / "m" / "d" / "clustering__e1.json"
    rec.parent.mkdir(parents=True)
    rec.write_text("[" * 100_000 + "]" * 100_000)
    assert cli.main(["leaderboard", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"{rec}: not a JSON result record (nested too deeply)" in err


# --------------------------------------------------------------------------- 7


def test_07_a_record_does_not_choose_its_main_metric(tmp_path) -> None:
    bad = _record(dataset="federalist-authorship", main="ari", v_measure=0.08, ari=0.99)
    path = write_record(record_path(tmp_path / "r", "m", "federalist-authorship",
                                    "clustering", 1), bad)  # a file of declared fields
    results = Results.load(tmp_path / "r")
    frame = results.main_frame()  # the catalogue's main metric, named where it differs
    assert frame[["metric", "value"]].values.tolist() == [["v_measure", 0.08]]
    assert [n for n in results.notes if "main_metric" in n] == [
        f"{path}: field 'main_metric' is 'ari', but the main metric of "
        "'federalist-authorship' (clustering) is 'v_measure': the score takes 'v_measure'"]
    assert Record.from_json({**bad, "main_metric": "v_measure"}).main_value == 0.08


# --------------------------------------------------------------------------- 9


def test_09_a_record_in_another_models_folder_is_named(tmp_path, capsys) -> None:
    root = tmp_path / "r"
    write_record(record_path(root, "a", "d", "clustering", 1), _record("a"))
    stray = record_path(root, "b", "d", "clustering", 1)
    stray.parent.mkdir(parents=True)
    stray.write_text(json.dumps(_record("a", v_measure=0.9)))
    results = Results.load(root)
    assert [r.main_value for r in results] == [0.5]
    assert len(results.notes) == 1 and str(stray) in results.notes[0]
    assert "another model's or dataset's folder" in results.notes[0]


def test_09_an_import_into_a_slot_a_run_holds_is_refused(tmp_path) -> None:
    run = write_record(record_path(tmp_path / "r", "m", "d", "clustering", 1), _record())
    steb = _metrics_file(tmp_path)
    steb.write_text('{"v_measure": 0.25}')
    with pytest.raises(ValueError, match="holds a run's result for the slot"):
        import_steb(tmp_path / "steb", tmp_path / "r")
    import_steb(tmp_path / "steb", tmp_path / "r", overwrite=True)
    assert not run.exists()
    assert [r.main_value for r in Results.load(tmp_path / "r")] == [0.25]


# --------------------------------------------------------------------------- 17


def test_17_an_interrupted_import_and_export_resume(tmp_path) -> None:
    steb = _metrics_file(tmp_path)
    steb.write_text('{"v_measure": 0.25}')
    (first,) = import_steb(tmp_path / "steb", tmp_path / "r")
    stray = first.parent / f".{first.name}.ab12cd_9.tmp"
    stray.write_text("{")  # what a killed writer leaves
    assert import_steb(tmp_path / "steb", tmp_path / "r") == [first]  # resumes
    assert not stray.exists()
    records = [_record(), _record(size=2)]
    out = tmp_path / "out"
    done = export_steb(records[:1], out).written[0]  # then killed before the second
    left = done.parent / f".{done.name}.zz99yy_1.tmp"
    left.write_text("{")
    assert len(export_steb(records, out).written) == 2  # the same command resumes
    assert not left.exists()
    left.write_text("{")
    export_steb(records, out, overwrite=True)
    assert not left.exists()
    (out / "d" / "other.txt").write_text("mine")
    with pytest.raises(ValueError, match="holds files this export would not write"):
        export_steb(records, out)


# --------------------------------------------------------------------------- 18


def test_18_two_datasets_of_one_folder_are_named(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"two datasets, 'team/set' and 'team__set', map "
                                         r"to one folder 'team__set'"):
        export_steb([_record(dataset="team/set"), _record(dataset="team__set")],
                    tmp_path / "out")


def test_18_a_slash_name_survives_export_and_import(tmp_path) -> None:
    export_steb([_record(dataset="team/set")], tmp_path / "out")
    import_steb(tmp_path / "out", tmp_path / "r")
    assert [r.dataset_name for r in Results.load(tmp_path / "r")] == ["team/set"]
    export_steb(tmp_path / "r", tmp_path / "again")
    for path in sorted(p for p in (tmp_path / "out").rglob("*") if p.is_file()):
        assert (tmp_path / "again" / path.relative_to(tmp_path / "out")).read_bytes() == \
            path.read_bytes()
