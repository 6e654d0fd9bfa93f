"""Catalogue readers of Hub datasets, on stand-in splits with the real column layout
(the Hub loader is replaced; offline, each dataset says which Hub dataset it needs)."""

from __future__ import annotations

import dataclasses
import random

import pytest
from steb_files import FakeSplit, read

from stebkit.datasets import get_spec
from stebkit.datasets.readers.hub_sets import ENDIVE_DIALECTS, ENDIVE_TASKS, read_the_pile
from stebkit.datasets.readers.text import DroppedRowsWarning
from stebkit.errors import DataUnavailable


def test_mage_labels_by_model_of_one_domain(hub_data):
    hub_data["yaful/MAGE", None, "test"] = FakeSplit({
        "text": ["h", "m1", "m2", "other", "", "sci"],
        "label": [1, 0, 0, 0, 0, 1],
        "src": ["eli5_human", "eli5_machine_continuation_flan_t5_base",
                "eli5_machine_topical_gpt-3.5-trubo", "eli5_unknown", "eli5_human",
                "sci_gen_human"]})
    records, dropped = read("machine_text_detection_mage_eli5")
    assert records[["text", "label"]].values.tolist() == [
        ["h", "human"], ["m1", "flan_t5_base"], ["m2", "gpt-3.5-trubo"]]
    assert "dropped 2 of 5 items" in dropped[0]


def test_authbench_queries_then_candidates_of_one_language(hub_data):
    hub_data["MaoXun/AuthBench", "queries", "test"] = FakeSplit({
        "query_id": ["q1", "q2", "q3"], "content": ["query en", "query ja", "orphan"],
        "lang": ["en", "ja", "en"], "genre": ["blog/x", "news", "news"],
        "token_length": [12, 40, 3]})
    hub_data["MaoXun/AuthBench", "candidates", "test"] = FakeSplit({
        "candidate_id": ["c1", "c2"], "author_id": ["a1", "a2"],
        "content": ["cand en", "cand ja"], "lang": ["en", "ja"]})
    hub_data["MaoXun/AuthBench", "ground_truth", "test"] = FakeSplit({
        "query_id": ["q1", "q2"], "author_id": ["a1", "a2"]})
    records, dropped = read("authbench_attribution_en")
    assert records[["text", "label", "side"]].values.tolist() == [
        ["query en", "a1", "query"], ["cand en", "a1", "target"]]
    # the fields of AuthBench's sub-results: 12 tokens is 'medium' (11-100), 'blog/x' is
    # primary genre 'blog'; these candidates carry neither column
    assert records.loc[0, ["length_bucket", "primary_genre"]].tolist() == ["medium", "blog"]
    assert records.loc[1, ["length_bucket", "primary_genre"]].isna().all()
    from stebkit.datasets.spec import expand_submetrics
    subs = expand_submetrics(get_spec("authbench_attribution_en").tasks["retrieval"]
                             .submetrics, records)
    assert sorted(subs) == ["length_extra_long", "length_long", "length_medium",
                            "length_short", "topic_pool_blog"]
    assert subs["length_short"].sides == "query" and subs["topic_pool_blog"].sides == "both"
    assert "dropped 1 of 2 items (queries without" in dropped[0]


def test_endive_aligns_sources_and_samples_150_per_task(hub_data):
    n_sources = 160
    for task in ENDIVE_TASKS:
        for dialect, split in ENDIVE_DIALECTS.items():
            sources = [f"{task} s{i:03d}" for i in range(n_sources)]
            if dialect == "jame":
                sources = sources[1:]  # s000 is not translated into JamE
            hub_data[f"abhaygupta1266/{task}", None, split] = FakeSplit({
                "Question": sources, "Dialect (question)": [f"{s} {dialect}" for s in sources],
                "Answer": ["x"] * len(sources)})
    records, _ = read("endive")
    assert sorted(records["label"].unique()) == ["aave", "chce", "collsge", "inde", "jame",
                                                 "sae"]
    assert records["label"].value_counts().unique().tolist() == [150 * len(ENDIVE_TASKS)]
    first_task = records.iloc[: 150 * 6]
    aligned = sorted(f"{ENDIVE_TASKS[0]} s{i:03d}" for i in range(1, n_sources))
    expected = sorted(random.Random(42).sample(aligned, 150))
    assert first_task[first_task["label"] == "sae"]["text"].tolist() == expected
    assert first_task["text"].tolist()[:6] == [expected[0]] + [
        f"{expected[0]} {d}" for d in ENDIVE_DIALECTS]


def test_the_pile_streams_the_first_usable_texts_of_each_subset(hub_data):
    class Stream:
        def __init__(self, texts):
            self.texts = texts

        def __iter__(self):
            return iter({"text": t, "meta": {}} for t in self.texts)

    hub_data["ArmelR/the-pile-splitted", "all", "train"] = Stream(["never read"])
    hub_data["ArmelR/the-pile-splitted", "ArXiv", "train"] = Stream(
        ["", "x" * 1_000_000, "paper one", "paper two", "paper three"])
    hub_data["ArmelR/the-pile-splitted", "Github", "train"] = Stream(["code"])
    spec = get_spec("the_pile")
    small = dataclasses.replace(spec, reader_options={**spec.reader_options, "per_subset": 2})
    with pytest.warns(DroppedRowsWarning, match="dropped 2 of 5 items"):
        records = read_the_pile(small)
    assert records[["text", "label"]].values.tolist() == [
        ["paper one", "ArXiv"], ["paper two", "ArXiv"], ["code", "Github"]]
    assert all(c[3] for c in hub_data["calls"])  # streamed, never downloaded whole


def test_cds_sets_of_text_and_paraphrase(hub_data):
    hub_data["billray110/corpus-of-diverse-styles", None, "train"] = FakeSplit(
        {"text": ["Thou art", "lol ok", None], "paraphrase": ["You are", "Okay.", None],
         "label": [0, 1, 1]}, names={"label": ["shakespeare", "tweets"]})
    records, dropped = read("corpus_of_diverse_styles")
    assert records[["text", "label", "group", "position"]].values.tolist() == [
        ["Thou art", "shakespeare", "g000000", 0], ["You are", "shakespeare", "g000000", 1],
        ["lol ok", "tweets", "g000001", 0], ["Okay.", "tweets", "g000001", 1]]
    assert "dropped 1 of 3 items" in dropped[0]


def test_x_genre_reads_every_split_of_core_and_ftd(hub_data):
    for split, rows in (("train", ["a", "b"]), ("test", ["c"]), ("dev", ["d"])):
        hub_data["TajaKuzmanPungersek/X-GENRE-text-genre-dataset", None, split] = FakeSplit({
            "text": rows, "labels": ["News"] * len(rows),
            "dataset": ["CORE", "GINCO", "FTD", "CORE"][: len(rows)] if split == "train"
            else ["FTD"] * len(rows)})
    records, _ = read("x_genre")
    assert records["text"].tolist() == ["a", "c", "d"]
    assert [c[2] for c in hub_data["calls"]] == ["train", "test", "dev"]


def test_hub_layout_change_is_an_error(hub_data):
    hub_data["yaful/MAGE", None, "test"] = FakeSplit({"text": ["x"], "source": ["eli5_human"]})
    with pytest.raises(ValueError, match=r"yaful/MAGE \(test\) lacks the column\(s\) \['src'\]"):
        read("machine_text_detection_mage_eli5")


@pytest.mark.parametrize("name,hub_id", [
    ("machine_text_detection_mage_cmv", "yaful/MAGE"),
    ("authbench_attribution_ja", "MaoXun/AuthBench"),
    ("endive", "abhaygupta1266/logic_bench_yn"),
    ("the_pile", "ArmelR/the-pile-splitted"),
    ("corpus_of_diverse_styles", "billray110/corpus-of-diverse-styles"),
    ("x_genre", "TajaKuzmanPungersek/X-GENRE-text-genre-dataset")])
def test_offline_hub_datasets_name_their_hub_dataset(monkeypatch, name, hub_id):
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    with pytest.raises(DataUnavailable, match=f"'{hub_id}'") as err:
        read(name)
    assert "no reader" not in str(err.value)


_SEMANTIC_ROWS = {  # dataset -> (Hub path, config, split, label column, label names)
    "20_newsgroups_fixed": ("rungalileo/20_Newsgroups_Fixed", None, "test", "label", None),
    "ag_news": ("ag_news", None, "test", "label", ["World", "Sports", "Business", "Sci/Tech"]),
    "emotion": ("emotion", None, "test", "label", ["sadness", "joy", "love", "anger"]),
    "financial_phrasebank": ("FinanceMTEB/financial_phrasebank", None, "test", "label", None),
    "twitter_airline_sentiment": ("osanseviero/twitter-airline-sentiment", None, "train",
                                  "airline_sentiment", None),
    "yelp_polarity": ("yelp_polarity", None, "test", "label", ["1", "2"]),
}


@pytest.mark.parametrize("name", sorted(_SEMANTIC_ROWS))
def test_hub_label_sets_keep_every_record_in_order(hub_data, name):
    path, config, split, column, names = _SEMANTIC_ROWS[name]
    n = 700  # more than the old 500-per-label cap: the loader keeps every record
    labels = [i % 2 for i in range(n)] if names else ["pos" if i % 2 else "neg"
                                                       for i in range(n)]
    texts = [f"text {i}" for i in range(n)]
    texts[3] = "   "  # a blank text: kept, as the reference keeps it, and counted
    hub_data[path, config, split] = FakeSplit({"text": texts, column: labels},
                                              names={column: names} if names else None)
    records, report = read(name)
    assert len(records) == n and records["text"].iloc[:4].tolist() == texts[:4]
    first = names[0] if names else "neg"
    assert records["label"].iloc[0] == first and records["label"].nunique() == 2
    assert any(f"kept 1 of {n} items (rows with an empty" in m for m in report)


def test_reuters_first_topic_and_blog_buckets_keep_every_record(hub_data):
    hub_data["reuters21578", "ModLewis", "test"] = FakeSplit(
        {"text": ["a", "b", "c"], "topics": [["earn", "acq"], [], ["grain"]]})
    records, _ = read("reuters21578", trust_remote_code=True)  # a loading script
    assert records[["text", "label"]].values.tolist() == [["a", "earn"], ["c", "grain"]]
    ages = [15, 20, 25, 40, 17] * 200
    hub_data["barilan/blog_authorship_corpus", None, "train+validation"] = FakeSplit(
        {"text": [f"post {i}" for i in range(len(ages))], "age": ages,
         "gender": ["male", "female", "male", "female", "male"] * 200})
    records, _ = read("blog_age", trust_remote_code=True)
    assert records["label"].value_counts().to_dict() == {"10s": 400, "20s": 200, "30s": 200}
    assert records["label"].iloc[:4].tolist() == ["10s", "20s", "30s", "10s"]
    records, _ = read("blog_gender", trust_remote_code=True)
    assert len(records) == 1000
