"""Inputs checked where they are typed (issue 36): the environment, names of datasets,
`stebkit train` options, local model folders, and `stebkit validate` at scale."""

from __future__ import annotations

import pytest

from stebkit.cli import main

# ------------------------------------------------------------- 12: the environment


@pytest.mark.parametrize("cache", ["file", "/proc/stebkit-nope"])
def test_36_12_a_cache_that_is_no_folder_stops_before_work(tmp_path, monkeypatch, capsys,
                                                           cache):
    if cache == "file":
        cache = tmp_path / "a-file"
        cache.write_text("not a folder")
    monkeypatch.setenv("STEBKIT_CACHE", str(cache))
    out = tmp_path / "r0"
    code = main(["run", "--datasets", "federalist-authorship", "--smoke", "--models",
                 "random", "--output", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()  # stopped before any work
    assert err.count("\n") == 1 and f"STEBKIT_CACHE={cache} is not a folder" in err


def test_36_12_an_unknown_offline_switch_is_refused(monkeypatch, capsys):
    from stebkit.sources import is_offline

    monkeypatch.setenv("STEBKIT_OFFLINE", "maybe")
    assert main(["models"]) == 2
    assert "STEBKIT_OFFLINE='maybe' is not a switch" in capsys.readouterr().err
    with pytest.raises(ValueError, match="STEBKIT_OFFLINE='maybe'"):
        is_offline()
    for value, offline in (("0", False), ("off", False), ("", False), ("Yes", True)):
        monkeypatch.setenv("STEBKIT_OFFLINE", value)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
        assert is_offline() is offline


def test_the_fast_switch_takes_the_usual_spellings_and_refuses_others(monkeypatch):
    from stebkit.plots.notebook import is_fast, setup

    for value, fast in (("true", True), (" ON", True), ("1", True), ("yes", True),
                        ("false", False), ("0", False), ("", False)):
        monkeypatch.setenv("STEBKIT_FAST", value)
        assert is_fast() is fast
    monkeypatch.setenv("STEBKIT_FAST", "true")
    assert setup(["random"], full=["all-MiniLM-L6-v2"]).smoke  # a notebook's own set-up
    monkeypatch.setenv("STEBKIT_FAST", "fast")
    with pytest.raises(ValueError, match="STEBKIT_FAST='fast' is not a switch: set it to 1"):
        is_fast()


def test_the_fast_switch_is_read_in_one_place():
    """Every notebook, solution and module reads ``STEBKIT_FAST`` through ``is_fast``."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    raw = re.compile(r"environ(\.get\(|\[)\\?[\"']STEBKIT_FAST")
    files = [*(root / "stebkit").rglob("*.py"), *(root / "docs" / "solutions").glob("*.py"),
             *(root / "notebooks").glob("*.ipynb")]
    readers = [f.relative_to(root).as_posix() for f in files if raw.search(f.read_text())]
    assert len(files) > 40 and readers == []


# ---------------------------------------------------- 16: validate, linear in the file


def _big_suite(folder, n: int, tables: int = 1):
    """A suite of ``n`` clustering datasets over ``tables`` shared CSV tables."""
    for t in range(tables):
        rows = "".join(f"text {i} of table {t},l{i % 3}\n" for i in range(30))
        (folder / f"t{t}.csv").write_text("text,label\n" + rows)
    entries = "".join(f"  - {{name: big-{i}, task: clustering, source: {{path: t{i % tables}"
                      f".csv}}}}\n" for i in range(n))
    path = folder / f"big{n}.yaml"
    path.write_text(f"name: big-{n}\ndatasets:\n{entries}")
    return path


def test_36_16_each_table_is_read_once_whatever_the_number_of_datasets(tmp_path,
                                                                        monkeypatch):
    from stebkit.suites import tables
    from stebkit.suites.validate import check_suite_file

    reads: list[str] = []
    real = tables._text_columns
    monkeypatch.setattr(tables, "_text_columns",
                        lambda file, fmt: reads.append(str(file)) or real(file, fmt))
    for n in (20, 80):  # four times the datasets, the same reads: linear in the file
        reads.clear()
        tables._CHECKED.clear()
        assert check_suite_file(_big_suite(tmp_path, n, tables=2)) == []
        assert sorted(reads) == sorted(str((tmp_path / f"t{t}.csv").resolve())
                                       for t in range(2))


def test_36_16_validate_says_how_far_it_is(tmp_path, monkeypatch, capsys):
    from stebkit.cli import reference

    monkeypatch.setattr(reference, "PROGRESS_EVERY", 10)
    path = _big_suite(tmp_path, 25)
    assert main(["validate", "--no-catalogue", str(path)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"stebkit validate: {path}: {k} of 25 dataset(s) checked"
                   for k in (10, 20, 25)]


# ------------------------------------------------------------ 15: dataset names


def _one_dataset_suite(folder, name: str):
    (folder / "d.csv").write_text("text,label\nHello.,a\nHi!,b\nHey.,a\nYo.,b\n")
    path = folder / "s.yaml"
    path.write_text(f"name: names\ndatasets:\n  - {{name: '{name}', task: clustering, "
                    "source: {path: d.csv}}\n", encoding="utf-8")
    return path


def test_36_15_a_name_too_long_for_a_file_name_is_refused_where_declared(tmp_path):
    from stebkit.suites.validate import check_suite_file

    name = "d" * 300
    (problem,) = check_suite_file(_one_dataset_suite(tmp_path, name))
    assert "s.yaml: line 3" in problem and "is 300 bytes long" in problem
    assert "at most 150" in problem


@pytest.mark.parametrize("name", ["federalist\u2010authorship",  # a Unicode hyphen
                                  "feder\u0430list-authorship",  # a Cyrillic a
                                  "federalist-authorship\u200b",  # a zero-width space
                                  "ＦＥＤＥＲＡＬＩＳＴ-authorship"])  # full-width letters
def test_36_15_look_alikes_of_a_registered_name_are_refused(tmp_path, name):
    from stebkit.datasets import get_spec, register
    from stebkit.suites import load_suite
    from stebkit.suites.checks import SuiteError

    assert get_spec("federalist-authorship").name == "federalist-authorship"
    with pytest.raises(SuiteError, match="differs only in case, look-alike or invisible "
                                         "characters from the dataset 'federalist-authorship'"):
        load_suite(_one_dataset_suite(tmp_path, name), register=False)
    from dataclasses import replace

    twin = replace(get_spec("federalist-authorship"), name=name)
    with pytest.raises(ValueError, match="looks like the registered dataset "
                                         "'federalist-authorship'"):
        register(twin)


def test_36_15_other_unicode_names_stay_welcome(tmp_path):
    from stebkit.suites import load_suite

    suite = load_suite(_one_dataset_suite(tmp_path, "дневники-авторов"), register=False)
    assert suite.datasets == ["дневники-авторов"]


# --------------------------------------------------------- 11: stebkit train options

_TRAIN_CASES = [
    (["--content-sources", "nope"], "--content-sources: unknown source(s) ['nope']"),
    (["--matryoshka", "abc,-5"], "--matryoshka: 'abc' is not a whole number"),
    (["--matryoshka", "128,64"], "--matryoshka must be increasing positive ints"),
    (["--learning-rate", "nan"], "--learning-rate must be a finite number > 0 and <= 1, got nan"),
    (["--learning-rate", "0"], "--learning-rate must be a finite number > 0"),
    (["--temperature", "inf"], "--temperature must be a finite number > 0 and <= 100, got inf"),
    (["--steps", "0"], "--steps must be an int in [1, 10000000), got 0"),
    (["--dropout1d", "1.5"], "--dropout1d must be a finite number >= 0 and < 1, got 1.5"),
    (["--base-model", "/etc"], "model folder /etc lacks config.json"),
    (["--base-model", "/nonexistent-model-folder"], "--base-model /nonexistent-model-folder: "
                                                    "no such folder"),
]

_TRAIN_SCRIPT = """
import contextlib, io, json, sys
from stebkit.cli import main
out = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["train", *argv])
    out.append([code, err.getvalue()])
heavy = [m for m in ("torch", "transformers") if m in sys.modules]
print(json.dumps({"runs": out, "heavy": heavy}))
"""


def test_36_11_train_options_are_checked_before_any_heavy_import(tmp_path):
    import json
    import os
    import subprocess
    import sys

    argvs = [argv + ["--output", str(tmp_path / "m")] for argv, _ in _TRAIN_CASES]
    done = subprocess.run([sys.executable, "-c", _TRAIN_SCRIPT, json.dumps(argvs)],
                          capture_output=True, text=True, timeout=300, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["heavy"] == []  # no option was checked by torch or a tokenizer
    for (argv, message), (code, err) in zip(_TRAIN_CASES, report["runs"], strict=True):
        assert code == 2 and message in err and err.count("\n") == 1, (argv, err)
    assert not (tmp_path / "m").exists()


# ------------------------------------------------- 10: a model folder typed as ./x


def test_36_10_a_model_folder_typed_with_dot_segments_is_its_plain_name(capsys):
    from stebkit.cli import build_parser

    def models(*typed):
        return build_parser().parse_args(["run", "--datasets", "x", "--models", *typed]).models

    assert models("./tiny", "tiny/", "runs/./tiny", "org/model") == \
        ["tiny", "tiny", "runs/tiny", "org/model"]
    with pytest.raises(SystemExit) as stop:
        models("../tiny")
    assert stop.value.code == 2
    assert "'../tiny' is a folder outside the working folder" in capsys.readouterr().err
