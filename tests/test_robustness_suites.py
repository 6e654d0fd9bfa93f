"""Suite files are untrusted input: what they may ask for, and how they are read.

A suite file cannot grant itself remote code, shell setup lines or sbatch options; it
cannot replace a built-in dataset; its YAML cannot blow up; unknown or misspelled keys,
values of the wrong type and broken tables are refused with the file, the line and the
field. Numbers in test names are those of the defects they cover.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from stebkit import cli
from stebkit.datasets import get_spec, list_datasets, load_dataset
from stebkit.suites import SuiteError, load_suite

ROWS = "".join(f"Text number {i} by {a}.,{a}\n" for a in "ab" for i in range(4))


def _suite(folder: Path, body: str, *, name: str = "mine", csv: str | None = None,
           top: str = "") -> Path:
    """A suite file with one dataset ``{body}`` reading d.csv, and ``top`` lines above."""
    (folder / "d.csv").write_text(csv if csv is not None else "text,label\n" + ROWS)
    path = folder / "suite.yaml"
    path.write_text(f"name: {name}\n{top}datasets:\n  - {{{body}}}\n")
    return path


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.fixture
def run_calls(monkeypatch):
    """`stebkit run` up to the evaluation, which is recorded instead of run."""
    import stebkit.runs
    from stebkit.records.results import Results

    calls = []

    def record(models, datasets, **kwargs):
        calls.append(kwargs)
        return Results([])

    monkeypatch.setattr(stebkit.runs, "evaluate", record)
    return calls


def _run(path: Path, tmp_path: Path, *extra: str) -> int:
    return cli.main(["run", "--suite", str(path), "--models", "random", "--output",
                     str(tmp_path / "r"), "--figures", str(tmp_path / "f"), "--no-progress",
                     *extra])


# --------------------------------------------------------------------------- 3


SLURM_RUN = ("run:\n  executor:\n    kind: slurm\n    setup: ['touch /tmp/owned']\n"
             "    extra: {account: someone-else}\n")


def test_03_setup_lines_and_sbatch_options_need_the_command_line(tmp_path, run_calls, capsys):
    path = _suite(tmp_path, "name: mine-slurm, task: clustering, source: {path: d.csv}",
                  top=SLURM_RUN)
    assert _run(path, tmp_path) == 2
    err = capsys.readouterr().err
    setup, extra = _line_of(path, "setup:"), _line_of(path, "extra:")
    assert f"{path}: line {setup}: run: executor: setup: ['touch /tmp/owned']" in err
    assert f"{path}: line {extra}: run: executor: extra: {{'account': 'someone-else'}}" in err
    assert "--allow-setup" in err and "--allow-sbatch-extra" in err and run_calls == []
    assert _run(path, tmp_path, "--allow-setup") == 2  # the sbatch options still ask
    err = capsys.readouterr().err
    assert "--allow-sbatch-extra" in err and "--allow-setup" not in err and run_calls == []
    assert _run(path, tmp_path, "--allow-setup", "--allow-sbatch-extra") == 0
    config = run_calls[-1]["executor"]
    assert config.setup == ("touch /tmp/owned",) and config.extra == {"account": "someone-else"}
    # lines given on the command line replace the file's: nothing of the file's runs
    assert _run(path, tmp_path, "--slurm-setup", "module load cuda", "--slurm-extra",
                "account=mine") == 0
    config = run_calls[-1]["executor"]
    assert config.setup == ("module load cuda",) and config.extra == {"account": "mine"}
    assert "--allow-setup" in cli.build_parser()._subparsers._group_actions[0].choices[
        "run"].format_help()


def test_03_a_suite_file_cannot_trust_remote_code_by_itself(tmp_path, run_calls, capsys):
    path = _suite(tmp_path, "name: mine-trust, task: clustering, source: {path: d.csv}",
                  top="run: {trust_remote_code: true}\n")
    assert _run(path, tmp_path) == 2
    err = capsys.readouterr().err
    assert f"{path}: line 2: run: trust_remote_code: true" in err
    assert "--trust-remote-code" in err and run_calls == []
    assert _run(path, tmp_path, "--trust-remote-code") == 0
    assert run_calls[-1]["trust_remote_code"] is True
    # in Python the same grants are arguments
    suite = load_suite(path)
    with pytest.raises(SuiteError, match="line 2: run: trust_remote_code"):
        suite.granted_run()
    assert suite.granted_run(trust_remote_code=True) == {"trust_remote_code": True}


def test_03_a_toml_suite_names_its_lines_too(tmp_path):
    (tmp_path / "d.csv").write_text("text,label\n" + ROWS)
    path = tmp_path / "suite.toml"
    path.write_text('name = "mine"\n\n[run.executor]\nkind = "slurm"\n'
                    'setup = ["module load cuda"]\n\n[[datasets]]\nname = "mine-toml"\n'
                    'task = "clustering"\nsource = {path = "d.csv"}\n')
    suite = load_suite(path, register=False)
    with pytest.raises(SuiteError) as err:
        suite.granted_run(trust_remote_code=True, allow_sbatch_extra=True)
    assert str(err.value).startswith(f"{path}: line 5: run: executor: setup: "
                                     "['module load cuda'] are shell lines")
    assert suite.granted_run(allow_setup=True)["executor"]["setup"] == ["module load cuda"]


def test_03_a_suite_datasets_remote_code_is_refused_even_by_its_reader(tmp_path, monkeypatch):
    from stebkit.datasets import hub
    from stebkit.errors import RemoteCodeRefused

    calls = []
    monkeypatch.setattr(hub, "load_hub", lambda *a, **k: calls.append(k))
    path = _suite(tmp_path, "name: mine-script, task: clustering, "
                            "source: {hf: someone/scripted, remote_code: true}")
    suite = load_suite(path, register=False)  # (registered, it would join the catalogue's)
    with pytest.raises(SuiteError, match=f"{path}: line 3: dataset 'mine-script': source: "
                                         "remote_code: true loads the Hub dataset"):
        suite.granted_run()
    (spec,) = suite.specs
    with pytest.raises(RemoteCodeRefused, match="'mine-script'"):
        spec.reader(spec, seed=42, smoke=True)
    assert calls == []


# --------------------------------------------------------------------------- 5


@pytest.mark.parametrize("suite", ["smoke", "lite"])
def test_05_a_suite_named_like_a_built_in_one_replaces_nothing(tmp_path, suite):
    taken = list_datasets(suite=suite)[0]
    before = get_spec(taken)
    path = _suite(tmp_path, f"name: {taken}, task: clustering, source: {{path: d.csv}}",
                  name=suite)
    with pytest.raises(SuiteError, match=f"'{suite}' is the name of a built-in suite"):
        load_suite(path)
    assert get_spec(taken) is before


def test_05_the_clash_is_refused_whatever_the_suite_is_named(tmp_path, monkeypatch):
    from dataclasses import replace

    from stebkit.datasets import registry

    registered = replace(get_spec("synthetic-authors-en"), name="mine-registered",
                         suites=("mine",))  # as register() would, for this test only
    monkeypatch.setitem(registry._REGISTRY, registered.name, registered)
    path = _suite(tmp_path, "name: mine-registered, task: clustering, source: {path: d.csv}")
    with pytest.raises(SuiteError, match="line 3: dataset 'mine-registered': the name clashes "
                                         "with the dataset 'mine-registered' of suite"):
        load_suite(path)
    assert get_spec("mine-registered") is registered
    # a suite read again still replaces its own datasets
    own = _suite(tmp_path, "name: mine-own-05, task: clustering, source: {path: d.csv}")
    assert load_suite(own).datasets == load_suite(own).datasets == ["mine-own-05"]


# --------------------------------------------------------------------------- 8


def _alias_bomb(levels: int) -> str:
    """Each alias level repeats the one below nine times: 9**levels values."""
    lines = ["  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "x:\n" + "\n".join(lines) + "\n"


def test_08_yaml_aliases_cannot_blow_a_suite_up(tmp_path, capsys):
    path = _suite(tmp_path, "name: mine-bomb, task: clustering, source: {path: d.csv}",
                  top=_alias_bomb(7))  # 9**7 = 4.8 million values from a few hundred bytes
    assert path.stat().st_size < 1000
    with pytest.raises(SuiteError, match=f"{path}: line \\d+: its aliases .* expand the file"):
        load_suite(path)
    assert cli.main(["validate", str(path)]) == 1
    assert "its aliases (*name) expand the file" in capsys.readouterr().err
    recursive = tmp_path / "recursive.yaml"
    recursive.write_text("name: mine\nx: &x [*x]\ndatasets: []\n")
    with pytest.raises(SuiteError, match="line 2: an alias .* refers to a value that contains"):
        load_suite(recursive)
    # aliases within reason are fine
    shared = tmp_path / "shared.yaml"
    shared.write_text("name: mine\ndatasets:\n"
                      "  - {name: mine-a, task: clustering, source: &src {path: d.csv}}\n"
                      "  - {name: mine-b, task: clustering, source: *src}\n")
    assert load_suite(shared, register=False).datasets == ["mine-a", "mine-b"]


@pytest.mark.parametrize("body, top, message", [
    ("name: mine-k1, task: clustering, source: {path: d.csv, fromat: csv}", "",
     "unknown key of a 'path' source 'fromat' (did you mean 'format'?)"),
    ("name: mine-k2, task: clustering, source: {hf: org/set, revison: abc}", "",
     "unknown key of a 'hf' source 'revison' (did you mean 'revision'?)"),
    ("name: mine-k3, task: classification, source: {path: d.csv}, "
     "split: {fractions: [0.6, 0.2, 0.2], sede: 1}", "",
     "unknown key of split 'sede' (did you mean 'seed'?)"),
    ("name: mine-k4, task: clustering, source: {path: d.csv}", "descripton: mine\n",
     "unknown key 'descripton'"),
    ("name: mine-k5, task: clustering, source: {path: d.csv}, columns: {txt: text}", "",
     "unknown key of columns 'txt' (did you mean 'text'?)"),
    ("name: mine-k6, task: clustering, source: {path: d.csv}", "name: again\n",
     "line 2: the key 'name' is given twice in one mapping (first on line 1)"),
    ("name: mine-k7, task: clustering, source: {path: d.csv}",
     "run: {executor: {kind: slurm, gpu: 1}}\n", "line 2: run: executor: unknown option(s) "
     "['gpu']"),
])
def test_08_unknown_and_repeated_keys_are_refused(tmp_path, body, top, message):
    path = _suite(tmp_path, body, top=top)
    with pytest.raises(SuiteError) as err:
        load_suite(path, register=False)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)


# --------------------------------------------------------------------------- 13


def test_13_a_misspelled_top_level_key_names_the_closest_one(tmp_path):
    path = _suite(tmp_path, "name: mine-13, task: clustering, source: {path: d.csv}",
                  top="runs: {device: cpu}\n")
    with pytest.raises(SuiteError) as err:
        load_suite(path, register=False)
    assert str(err.value) == (f"{path}: top level: unknown key 'runs' (did you mean 'run'?); "
                              "known keys: name, datasets, run")


# --------------------------------------------------------------------------- 14, 22


@pytest.mark.parametrize("split, field, shown", [
    ("{fractions: [a, b, c]}", "split.fractions", "['a', 'b', 'c']"),
    ("{fractions: [0.5, null, 0.5]}", "split.fractions", "[0.5, None, 0.5]"),
    ("{fractions: [0.6, 0.2, 0.2], seed: abc}", "split.seed", "'abc'"),
    ("{fractions: [0.6, 0.2, 0.2], seed: -1}", "split.seed", "-1"),
    ("[0.6, 0.2, 0.2]", "split must be a mapping", "[0.6, 0.2, 0.2]"),
])
def test_14_22_split_values_are_checked_when_the_suite_loads(tmp_path, split, field, shown):
    path = _suite(tmp_path, f"name: mine-split, task: classification, source: {{path: d.csv}}, "
                            f"split: {split}")
    with pytest.raises(SuiteError) as err:
        load_suite(path, register=False)
    message = str(err.value)
    assert message.startswith(f"{path}: ") and "dataset 'mine-split'" in message
    assert field in message and f"got {shown}" in message


def test_22_a_name_that_is_no_string_is_not_called_missing(tmp_path):
    path = _suite(tmp_path, "name: 12345, task: clustering, source: {path: d.csv}")
    with pytest.raises(SuiteError) as err:
        load_suite(path, register=False)
    assert str(err.value) == (f"{path}: line 3: datasets[0]: name must be a non-empty string, "
                              "got 12345 (int); quote it: name: '12345'")
    path = _suite(tmp_path, "task: clustering, source: {path: d.csv}")
    with pytest.raises(SuiteError, match="datasets\\[0\\]: missing 'name'"):
        load_suite(path, register=False)
    path = _suite(tmp_path, "name: mine-22, task: clustering, source: {path: d.csv}",
                  name="12345")
    with pytest.raises(SuiteError) as err:
        load_suite(path, register=False)
    assert str(err.value).startswith(f"{path}: line 1: top level: name must be a non-empty "
                                     "string, got 12345 (int)")


def test_22_task_columns_are_checked_up_front_and_kept(tmp_path):
    path = _suite(tmp_path, "name: mine-retrieval, task: retrieval, source: {path: d.csv}")
    with pytest.raises(SuiteError, match="column\\(s\\) \\['side'\\] \\(for \\['side'\\].*"
                                         "retrieval needs text, label, side"):
        load_suite(path, register=False)
    # a side column of that name is used without being mapped
    sides = "text,label,side\n" + "".join(f"Text {i} by {a}.,{a},{'query' if i < 2 else 'target'}"
                                          "\n" for a in "ab" for i in range(4))
    path = _suite(tmp_path, "name: mine-retrieval, task: retrieval, source: {path: d.csv}",
                  csv=sides)
    load_suite(path)
    records = load_dataset("mine-retrieval", cache=False).frame
    assert records["side"].value_counts().to_dict() == {"query": 4, "target": 4}


def test_22_pairs_from_a_csv_get_booleans_and_bad_values_are_named(tmp_path):
    rows = "text,label,pair,same\n" + "".join(
        f"Text {i}{k} by {a}.,{a},p{i},{'true' if i % 2 else 'False'}\n"
        for i in range(4) for k, a in enumerate("ab"))
    path = _suite(tmp_path, "name: mine-pairs, task: predefined_pairs, source: {path: d.csv}",
                  csv=rows)
    load_suite(path)
    records = load_dataset("mine-pairs", cache=False).frame
    assert records["same"].tolist() == [False, False, True, True] * 2
    path = _suite(tmp_path, "name: mine-pairs, task: predefined_pairs, source: {path: d.csv}",
                  csv=rows.replace("p2,False", "p2,maybe"))
    load_suite(path)
    with pytest.raises(SuiteError, match="dataset 'mine-pairs': column 'same' must hold true "
                                         "or false, row 5 of the table holds 'maybe'"):
        load_dataset("mine-pairs", cache=False)


@pytest.mark.parametrize("csv, line, message", [
    ("text,label\nHello there.,a\n\"Hi you!,b\nHey.,a\nYo!,b\n", 3,
     "a quote opened on this line is never closed"),
    ("text,label\nHello there.,a\n\"Hi you!,b\nHey.,a\nHe said \"no\",b\n", 3,
     "a quoted text closes before ',' or the line's end (lines 3-5"),
    ("text,label\nHello there.,a\nHi you!\nHey.,a\n", 3, "1 field(s), the header has 2"),
    ("text,label\nHello there.,a\nHi, you!,b\nHey.,a\n", 3, "3 field(s), the header has 2"),
])
def test_22_a_broken_csv_is_refused_with_its_file_and_line(tmp_path, csv, line, message):
    path = _suite(tmp_path, "name: mine-csv, task: clustering, source: {path: d.csv}", csv=csv)
    with pytest.raises(SuiteError) as err:
        load_suite(path, register=False)
    assert f"dataset 'mine-csv': source: cannot read {tmp_path / 'd.csv'} as csv: line {line}: " \
           f"{message}" in str(err.value)


def test_22_a_broken_jsonl_line_is_named(tmp_path):
    (tmp_path / "d.jsonl").write_text(json.dumps({"text": "Hi.", "label": "a"}) + "\n"
                                      '{"text": "Yo.", "label": \n')
    path = _suite(tmp_path, "name: mine-jsonl, task: clustering, source: {path: d.jsonl}")
    with pytest.raises(SuiteError, match="as jsonl: line 2: not JSON"):
        load_suite(path, register=False)


# --------------------------------------------------------------------------- 23


def test_23_a_local_model_folder_without_weights_is_named(tmp_path, capsys):
    from stebkit.encoders import get_encoder
    from stebkit.errors import ModelUnavailable

    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "bert"}')
    with pytest.raises(ModelUnavailable) as err:
        get_encoder(str(folder))
    message = str(err.value)
    assert f"model folder {folder} lacks weights: none of model.safetensors" in message
    assert "pytorch_model.bin" in message and "it holds config.json" in message
    assert "Hub" not in message.split(".")[0]
    (folder / "config.json").unlink()
    (folder / "vocab.txt").write_text("[PAD]\n")
    with pytest.raises(ModelUnavailable, match="lacks config.json .*; it holds vocab.txt"):
        get_encoder(str(folder))
    (folder / "config.json").write_text('{"model_type": "bert"}')
    assert cli.main(["run", "--models", str(folder), "--datasets", "synthetic-authors-en",
                     "--tasks", "retrieval", "--smoke", "--output", str(tmp_path / "r"),
                     "--no-progress"]) == 1
    assert f"model folder {folder} lacks weights" in capsys.readouterr().err


# --------------------------------------------------------------------------- issue 28


def test_add_local_refuses_a_name_no_dataset_uses(tmp_path, monkeypatch, capsys):
    from stebkit.sources import local_sources

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    key = "fisher_speaker_attribution"
    assert cli.main(["datasets", "--add-local", "fisher_speaker_attributon", str(tmp_path)]) == 2
    assert f"did you mean {key!r}?" in capsys.readouterr().err
    dataset = next(n for n in list_datasets() if get_spec(n).source.local == key)
    assert cli.main(["datasets", "--add-local", dataset, str(tmp_path)]) == 2
    assert f"use --add-local {key} PATH" in capsys.readouterr().err
    assert local_sources() == {}
    assert cli.main(["datasets", "--add-local", key, str(tmp_path)]) == 0
    assert local_sources() == {key: str(tmp_path.resolve())}


def test_pandas_reads_what_the_csv_check_accepts(tmp_path):
    """The strict check and pandas agree on a file with a byte-order mark, quoted
    separators, doubled quotes, a text over two lines and blank lines."""
    from stebkit.suites.tables import _text_columns

    text = ('\ufefftext,label\n"Hello, there.",a\n"She said ""hi"".",b\n\n"Two\nlines",a\n'
            'Plain "quote" inside,b\n')
    (tmp_path / "ok.csv").write_text(text, encoding="utf-8")
    assert _text_columns(tmp_path / "ok.csv", "csv") == ["text", "label"]
    frame = pd.read_csv(tmp_path / "ok.csv", dtype=str, keep_default_na=False)
    assert frame["text"].tolist() == ["Hello, there.", 'She said "hi".', "Two\nlines",
                                      'Plain "quote" inside']


@pytest.mark.parametrize("value", ['"false"', "1", "yes-please"])
def test_43_2_a_remote_code_that_is_no_bool_is_named_as_such(tmp_path, value):
    path = _suite(tmp_path, f"name: mine-hub, task: clustering, "
                            f"source: {{hf: someone/set, remote_code: {value}}}")
    with pytest.raises(SuiteError, match="source: remote_code must be true or false, got") \
            as err:
        load_suite(path, register=False)
    assert "applies to 'hf' sources only" not in str(err.value)
    elsewhere = _suite(tmp_path, "name: mine-csv, task: clustering, "
                                 "source: {path: d.csv, remote_code: false}")
    with pytest.raises(SuiteError, match="applies to 'hf' sources only"):
        load_suite(elsewhere, register=False)
