"""The example suite of ``examples/custom_suite`` builds from the mirror, validates and runs."""

from __future__ import annotations

import importlib.util
import inspect
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "custom_suite"


def _build_data():
    spec = importlib.util.spec_from_file_location("build_data", EXAMPLE / "build_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_suite_file_is_in_the_repository(tmp_path):
    from stebkit.suites import SuiteError, load_suite

    suite = EXAMPLE / "federalist_suite.yaml"
    assert suite.is_file()
    # Without its tables the file is rejected with the missing path named (a copy in an
    # empty folder: tables built beside the example do not change the outcome).
    alone = tmp_path / suite.name
    shutil.copyfile(suite, alone)
    with pytest.raises(SuiteError, match="federalist_passages.csv"):
        load_suite(alone, register=False)


def test_example_tables_are_built_into_an_ignored_folder():
    root = EXAMPLE.parents[1]
    default = inspect.signature(_build_data().build).parameters["folder"].default
    folder = Path(default).resolve()
    assert EXAMPLE not in (folder, *folder.parents)  # never beside the tracked example
    assert root in folder.parents
    for name in ("federalist_passages.csv", "federalist_suite.yaml"):
        ignored = subprocess.run(["git", "check-ignore", "-q", str(folder / name)], cwd=root)
        assert ignored.returncode == 0, f"{folder / name} is not git-ignored"
    # Tables written into the example folder by hand are ignored too.
    ignored = subprocess.run(["git", "check-ignore", "-q",
                              str(EXAMPLE / "federalist_qrels.csv")], cwd=root)
    assert ignored.returncode == 0


def test_example_tables_split_by_paper(mirror, tmp_path):
    suite = _build_data().build(tmp_path)
    assert suite.read_text() == (EXAMPLE / suite.name).read_text()
    table = pd.read_csv(tmp_path / "federalist_passages.csv")
    assert set(table["author"]) == {"Hamilton", "Jay", "Madison"}
    assert (table.groupby("paper")["split"].nunique() == 1).all()  # no paper on two sides
    assert (table.groupby("author")["split"].nunique() == 3).all()
    assert table["text"].str.split().str.len().eq(100).all()
    queries = pd.read_csv(tmp_path / "federalist_queries.csv")
    corpus = pd.read_csv(tmp_path / "federalist_corpus.csv")
    qrels = pd.read_csv(tmp_path / "federalist_qrels.csv")
    author = table.set_index("id")["author"]
    assert set(queries["id"]) <= set(table.loc[table["split"] == "test", "id"])
    assert set(corpus["id"]) == set(table.loc[table["split"] == "train", "id"])
    # Relevant = same author, every same-author document judged.
    assert (author[qrels["query_id"]].to_numpy() == author[qrels["doc_id"]].to_numpy()).all()
    expected = sum(int((author[corpus["id"]] == author[q]).sum()) for q in queries["id"])
    assert len(qrels) == expected


def test_example_suite_runs_offline(mirror, tmp_path):
    import stebkit
    from stebkit.suites import load_suite

    suite = load_suite(_build_data().build(tmp_path / "suite"))
    assert suite.datasets == ["federalist-author-classification", "federalist-author-retrieval",
                              "federalist-author-clusters"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        results = stebkit.evaluate(["tfidf-char", "function-words", "random"], suite.datasets,
                                   output_dir=tmp_path / "results", show_progress=False)
    frame = results.main_frame().set_index(["model", "task"])
    assert len(frame) == 9 and (frame["status"] == "ok").all()
    assert frame.loc[("tfidf-char", "classification"), "metric"] == "macro_f1"
    assert frame.loc[("tfidf-char", "retrieval_ndcg"), "metric"] == "ndcg@10"
    for task in ("classification", "retrieval_ndcg"):
        assert frame.loc[("tfidf-char", task), "value"] > frame.loc[("random", task), "value"]
    # Independent check of the classification score: a probe that always predicts the
    # majority class cannot beat the reported macro-F1 of character n-grams.
    table = pd.read_csv(tmp_path / "suite" / "federalist_passages.csv")
    test = table[table["split"] == "test"]["author"]
    majority = table[table["split"] == "train"]["author"].mode()[0]
    floor = f1_score(test, np.full(len(test), majority), average="macro")
    assert frame.loc[("tfidf-char", "classification"), "value"] > floor
    with warnings.catch_warnings():
        # Baselines do not count for correlation grouping: each dataset is its own group.
        warnings.filterwarnings("ignore", ".*correlation grouping needs", UserWarning)
        board = stebkit.leaderboard(results)
    assert list(board["model"])[-1] == "random"  # random vectors rank last
    assert {"classification", "retrieval_ndcg", "clustering"} <= set(board.columns)
