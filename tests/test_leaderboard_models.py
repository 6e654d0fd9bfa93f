"""`stebkit leaderboard --models`: the leaderboard of some of a folder's models."""

from __future__ import annotations

import warnings

import stebkit
from stebkit import cli


def _evaluate(models, out):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few models: the grouping warns, as it should
        stebkit.evaluate(models, ["synthetic-authors-en", "synthetic-author-pairs-en"],
                         smoke=True, output_dir=out, tasks=["retrieval", "predefined_pairs"],
                         seed=42, show_progress=False)


def _board(argv, capsys) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cli.main(["leaderboard", *argv, "--format", "csv"]) == 0
    return capsys.readouterr().out


def test_leaderboard_of_some_models_equals_that_of_a_folder_holding_only_them(
        tmp_path, capsys, mirror):
    three, two = ["random", "function-words", "tfidf-char"], ["random", "function-words"]
    _evaluate(three, tmp_path / "three")
    _evaluate(two, tmp_path / "two")
    alone = _board([str(tmp_path / "two")], capsys)
    assert "tfidf-char" not in alone and "function-words" in alone
    assert _board([str(tmp_path / "three"), "--models", *two], capsys) == alone
    assert _board([str(tmp_path / "three")], capsys) != alone
    assert cli.main(["leaderboard", str(tmp_path / "three"), "--models", "random",
                     "LUAR-MUD"]) == 2
    err = capsys.readouterr().err
    assert "--models: no records of ['LUAR-MUD']" in err and "'tfidf-char'" in err
    assert "Traceback" not in err
