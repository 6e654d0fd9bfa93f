"""Suite files: parsing, clear errors, and the example suite on real data."""

from __future__ import annotations

import json

import numpy as np
import pytest

from stebkit.datasets import load_dataset
from stebkit.suites import SuiteError, load_suite, write_example_suite


def _write(tmp_path, yaml_text, files=None):
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "suite.yaml"
    path.write_text(yaml_text)
    return path


CSV = "text,label,part\n" + "".join(
    f"text number {i} of {lab},{lab},{part}\n"
    for i in range(6) for lab in ("a", "b") for part in ("tr", "dev", "te"))


def test_classification_dataset_from_csv(tmp_path):
    path = _write(tmp_path, """
name: mine
datasets:
  - name: mine-topics
    task: classification
    main_metric: accuracy
    source: {path: d.csv}
    columns: {split: part}
    splits: {train: tr, validation: dev, test: te}
""", {"d.csv": CSV})
    suite = load_suite(path)
    assert suite.datasets == ["mine-topics"] and suite.specs[0].main_metric == "accuracy"
    records = load_dataset("mine-topics", cache=False).frame
    assert sorted(records["split"].unique()) == ["test", "train", "validation"]
    assert (records["split"] == "train").sum() == 12


def test_toml_and_seeded_split(tmp_path):
    (tmp_path / "d.csv").write_text("text,label\n" + "".join(
        f"t{i},{'ab'[i % 2]}\n" for i in range(40)))
    (tmp_path / "s.toml").write_text("""
name = "tomlsuite"
[[datasets]]
name = "toml-topics"
task = "classification"
source = {path = "d.csv"}
split = {fractions = [0.5, 0.25, 0.25], seed = 3}
""")
    load_suite(tmp_path / "s.toml")
    a = load_dataset("toml-topics", cache=False).frame
    assert a.groupby(["label", "split"]).size().to_dict() == {
        ("a", "test"): 5, ("a", "train"): 10, ("a", "validation"): 5,
        ("b", "test"): 5, ("b", "train"): 10, ("b", "validation"): 5}
    b = load_dataset("toml-topics", cache=False).frame
    assert a.equals(b)


@pytest.mark.parametrize("body, message", [
    ("  - {name: x1, task: ranking, source: {path: d.csv}}", "unknown task 'ranking'"),
    ("  - {name: x2, task: clustering, source: {path: d.csv}, columns: {text: body}}",
     "column(s) ['body']"),
    ("  - {name: x3, task: classification, source: {path: d.csv}, columns: {split: part},"
     " splits: {train: tr, validation: dev, test: holdout}}", "split values ['te']"),
    ("  - {name: x4, task: clustering, source: {path: d.csv}}\n"
     "  - {name: x4, task: clustering, source: {path: d.csv}}", "duplicated dataset name"),
    ("  - {name: x5, task: clustering, source: {path: nope.csv}}", "'nope.csv' not found"),
    ("  - {name: x6, task: clustering, main_metric: auc, source: {path: d.csv}}",
     "main_metric 'auc' is not a metric of clustering"),
    ("  - {name: x7, task: classification, source: {path: d.csv}}", "needs train/validation"),
])
def test_bad_suite_names_file_dataset_and_field(tmp_path, body, message):
    path = _write(tmp_path, f"name: bad\ndatasets:\n{body}\n", {"d.csv": CSV})
    with pytest.raises(SuiteError) as err:
        suite = load_suite(path)
        for name in suite.datasets:
            load_dataset(name, cache=False)
    assert str(path) in str(err.value) and message in str(err.value)


def test_relevance_must_be_numbers(tmp_path):
    files = {
        "q.jsonl": json.dumps({"id": "q1", "text": "a question"}) + "\n",
        "c.jsonl": json.dumps({"id": "d1", "text": "a document"}) + "\n",
        "r.tsv": "query_id\tdoc_id\trelevance\nq1\td1\thigh\n",
    }
    path = _write(tmp_path, """
name: badrel
datasets:
  - name: badrel-ndcg
    task: retrieval_ndcg
    source: {queries: {path: q.jsonl}, corpus: {path: c.jsonl}, qrels: {path: r.tsv}}
""", files)
    load_suite(path)
    with pytest.raises(SuiteError, match=r"dataset 'badrel-ndcg': qrels: relevance must be "
                       r"numbers; row 0 has 'high'"):
        load_dataset("badrel-ndcg", cache=False)


def test_example_suite_on_real_data(mirror, tmp_path):
    suite = load_suite(write_example_suite(tmp_path))
    assert suite.name == "example" and len(suite.datasets) == 3
    with pytest.warns(UserWarning, match="min_per_label=100 dropped 11 label"):
        cls = load_dataset("example-politeness-community", cache=False).frame
    assert cls["label"].value_counts().min() >= 100
    ndcg = load_dataset("example-asset-simplifications", smoke=True, cache=False).frame
    queries = ndcg[ndcg["side"] == "query"]
    assert len(queries) == 50
    # Every query's ten simplifications are in the smoke corpus.
    targets = set(ndcg.loc[ndcg["side"] == "target", "group"])
    for rel in queries["relevance"]:
        judged = json.loads(rel)
        assert len(judged) == 10 and set(judged) <= targets
        assert np.allclose(list(judged.values()), 1.0)


def test_example_suite_runs_end_to_end_through_the_cli(mirror, tmp_path, capsys):
    import warnings

    from stebkit.cli import main
    from stebkit.records.results import Results

    suite = write_example_suite(tmp_path / "suite")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the documented filter's counts
        code = main(["run", "--suite", str(suite), "--smoke", "--models", "tfidf-char", "random",
                     "function-words", "--output", str(tmp_path / "results"), "--figures",
                     str(tmp_path / "figures"), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    header = out.splitlines()[0]  # the terminal table's short headers
    for column in ("classification", "retrieval ndcg", "Clustering"):
        assert column in header
    assert header.endswith("example score")  # the suite's score, not STEB's
    records = {(r["model"]["name"], r["task"]): r for r in Results.load(tmp_path / "results")}
    assert len(records) == 9 and all(r["status"] == "ok" for r in records.values())
    ndcg = records[("tfidf-char", "retrieval_ndcg")]
    assert ndcg["main_metric"] == "ndcg@10" and ndcg["ci"]["unit"] == "query"
    # Character n-grams find simplifications far better than random vectors.
    assert ndcg["metrics"]["ndcg@10"] > records[("random", "retrieval_ndcg")]["metrics"][
        "ndcg@10"] + 0.5
    cls = records[("tfidf-char", "classification")]
    assert cls["ci"]["low"] <= cls["metrics"]["macro_f1"] <= cls["ci"]["high"]
