"""stebkit validate (catalogue specs and suite files) and stebkit new-dataset."""

from __future__ import annotations

import runpy
from dataclasses import replace

import pytest

from stebkit import cli
from stebkit.datasets import get_spec, list_datasets
from stebkit.datasets.spec import Source, TaskConfig
from stebkit.suites.validate import check_catalogue, check_spec, check_suite_file, new_dataset


def test_the_catalogue_passes(capsys) -> None:
    assert check_catalogue() == []
    assert cli.main(["validate"]) == 0
    assert capsys.readouterr().out.startswith(f"OK: {len(list_datasets())} catalogue dataset")


@pytest.mark.parametrize("change, message", [
    ({"description": " "}, "description: must be a non-empty string"),
    ({"languages": ("english",)}, "languages: 'english' is not a two- or three-letter"),
    ({"languages": ()}, "languages: must be a non-empty tuple"),
    ({"source": Source(urls=(("https://x.org/a.csv", "abc"),))},
     "sha256 of https://x.org/a.csv must be 64 lowercase hex digits"),
    ({"source": Source(urls=(("ftp://x.org/a.csv", None),))}, "URL 'ftp://x.org/a.csv' must"),
    ({"reader": None}, "reader: none; give a reader function"),
    ({"tasks": {}}, "tasks: no task"),
    ({"tasks": {"clustering": (1, 2)}}, "tasks: clustering: expected a TaskConfig, got tuple"),
    ({"main_metric": "bleu"}, "main_metric: 'bleu' is not a metric of ['order_alignment']"),
    ({"suites": ()}, "suites: must name at least one suite"),
])
def test_a_broken_spec_is_named_with_its_field(change, message) -> None:
    spec = get_spec("stel-contraction")
    assert check_spec(spec) == []
    problems = check_spec(replace(spec, **change))
    assert len(problems) == 1 and message in problems[0]
    assert problems[0].startswith(f"dataset {spec.name!r}: ")


def test_many_problems_are_listed_together() -> None:
    spec = replace(get_spec("stel-contraction"), description="", reader=None,
                   tasks={"order_alignment": TaskConfig((1,), 10)}, languages=("EN",))
    assert len(check_spec(spec)) == 3


def _suite(tmp_path, body: str):
    (tmp_path / "d.csv").write_text("text,label\nHello.,a\nHi!,b\n")
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: s\ndatasets:\n  - {{name: vset, source: {{path: d.csv}}, {body}}}\n")
    return path


def test_broken_suite_files_fail_with_a_list(tmp_path, capsys) -> None:
    (tmp_path / "good").mkdir()
    good = _suite(tmp_path / "good", "task: clustering")
    assert check_suite_file(good) == []
    bad_task = _suite(tmp_path, "task: ordering")
    (tmp_path / "todo.yaml").write_text(good.read_text().replace("name: s", "name: TODO"))
    assert cli.main(["validate", "--no-catalogue", str(bad_task), str(tmp_path / "todo.yaml"),
                     str(good)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("2 problem(s) in 0 catalogue dataset(s), 3 suite path(s):")
    assert f"{bad_task}: dataset 'vset': unknown task 'ordering'" in err
    assert "todo.yaml: line 1: a TODO placeholder is left to fill in" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli.main(["validate", "--no-catalogue", str(empty)]) == 1
    assert "no suite files" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["local", "hub"])
def test_new_dataset_writes_a_stub_and_a_test_to_fill_in(tmp_path, capsys, kind) -> None:
    assert cli.main(["new-dataset", "my-set", "--type", kind, "--directory",
                     str(tmp_path)]) == 0
    spec_file, test_file = tmp_path / "my-set.yaml", tmp_path / "test_my_set.py"
    assert f"wrote {spec_file}" in capsys.readouterr().out
    problems = check_suite_file(spec_file)
    assert problems and "TODO placeholder" in problems[0]
    assert cli.main(["new-dataset", "my-set", "--type", kind, "--directory",
                     str(tmp_path)]) == 2  # nothing overwritten
    assert "already exist" in capsys.readouterr().err
    module = runpy.run_path(str(test_file))
    with pytest.raises(pytest.fail.Exception, match="fill in EXPECTED_TEXTS"):
        module["test_my_set_loads_as_declared"]()
    if kind == "hub":
        assert "hf: TODO-org/TODO-dataset" in spec_file.read_text()
        return
    # filled in: the declaration validates and the test passes on the data
    (tmp_path / "my-set.csv").write_text("text,label\n\"Dear Sir, I write.\",formal\n"
                                         "hey u there?,informal\nKind regards.,formal\n")
    filled = "\n".join(line.split("#")[0].replace("TODO", "filled").rstrip()
                       for line in spec_file.read_text().splitlines())
    spec_file.write_text(filled + "\n")
    assert check_suite_file(spec_file) == []
    source = test_file.read_text().replace("EXPECTED_TEXTS = None", "EXPECTED_TEXTS = 3")
    test_file.write_text(source.replace("EXPECTED_LABELS = None",
                                        'EXPECTED_LABELS = {"formal", "informal"}'))
    module = runpy.run_path(str(test_file))
    module["test_my_set_loads_as_declared"]()


def test_new_dataset_rejects_bad_names(tmp_path) -> None:
    with pytest.raises(ValueError, match="use letters, digits"):
        new_dataset("../x", "local", tmp_path)
    with pytest.raises(ValueError, match="--type must be 'hub' or 'local'"):
        new_dataset("x", "ftp", tmp_path)
