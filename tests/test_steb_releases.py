"""M4, GEDE, the retrieval releases and RadioTalk: catalogue readers on constructed
files laid out as the reference reads them."""

from __future__ import annotations

import json

import pytest
from steb_files import jsonl, read

from stebkit.errors import DataUnavailable


def test_m4_dedups_per_kind_skips_other_schemas_and_flattens_peerread(built):
    rows = [{"prompt": "p", "human_text": "h1", "machine_text": "m1", "model": "chatGPT"},
            {"prompt": "p", "human_text": "h1", "machine_text": "m2", "model": "chatGPT"},
            {"prompt": "p", "human_text": "", "machine_text": "h1", "model": "chatGPT"}]
    cohere = [{"human_text": "h2", "machine_text": "m1", "model": "cohere"}]
    built.put_spec("machine_text_detection_m4_arxiv", {
        "M4-main/data/arxiv_chatGPT.jsonl": jsonl(rows),
        "M4-main/data/arxiv_bloomz.jsonl": jsonl([{"text": "other schema"}]),
        "M4-main/data/arxiv_cohere.jsonl": jsonl(cohere),
        "M4-main/data/reddit_chatGPT.jsonl": jsonl([{"human_text": "r", "machine_text": "s"}]),
        "M4-main/README.md": "readme"})
    records, dropped = read("machine_text_detection_m4_arxiv")
    assert records[["text", "label"]].values.tolist() == [
        ["h1", "human"], ["m1", "chatGPT"], ["m2", "chatGPT"], ["h1", "chatGPT"],
        ["h2", "human"]]
    assert any("dropped 1 of 3 items (files without" in m for m in dropped)
    assert any("dropped 2 of 7 items (repeated texts)" in m for m in dropped)

    built.put_spec("machine_text_detection_m4_peerread", {"M4/data/peerread_llama.jsonl": jsonl(
        [{"human_text": ["r1", "r2"], "machine_text": ["g1"], "model": "llama"}])})
    records, _ = read("machine_text_detection_m4_peerread")
    assert records["text"].tolist() == ["r1", "r2", "g1"]


def test_gede_labels_by_author_and_counts_incomplete_essays(built):
    essays = [{"answer": "An essay.", "text_author": "human", "prompt": "x"},
              {"answer": "", "text_author": "gpt-4"},
              {"answer": "Generated essay.", "text_author": "gpt-4"}]
    built.put_spec("gede_essay_detection",
                   {"gede_essay_detection/gede_essays.json": json.dumps(essays)})
    records, dropped = read("gede_essay_detection")
    assert records[["text", "label"]].values.tolist() == [["An essay.", "human"],
                                                           ["Generated essay.", "gpt-4"]]
    assert dropped == ["gede_essay_detection: dropped 1 of 3 items (essays without an answer "
                       "or text_author)"]


@pytest.mark.parametrize("name", ["amazon", "fanfiction", "stackexchange_retrieval"])
def test_retrieval_releases_mark_queries_and_targets(built, name):
    part = [{"text": "q a", "label": 7, "is_query": True}, {"text": "t a", "label": 7,
                                                            "is_query": False},
            {"text": "t b", "label": "u2"}]
    built.put_spec(name, {"retrieval/queries_targets.jsonl": jsonl(part),
                          "retrieval/._queries_targets.jsonl": "mac metadata",
                          "retrieval/README.md": "# not data",
                          "retrieval/more.jsonl": jsonl([{"text": "q b", "label": "u2",
                                                          "is_query": True}])})
    records, dropped = read(name)
    assert dropped == [f"{name}: dropped 1 of 3 items (files of the release that are not "
                       "JSON lines (e.g. a README))"]
    assert records[["text", "label", "side"]].values.tolist() == [
        ["q b", "u2", "query"], ["q a", "7", "query"], ["t a", "7", "target"],
        ["t b", "u2", "target"]]


def test_retrieval_release_without_label_column_is_an_error(built):
    built.put_spec("amazon", {"a.jsonl": jsonl([{"text": "x", "author": 1}])})
    with pytest.raises(ValueError, match=r"a.jsonl record 1 lacks the field\(s\) \['label'\]"):
        read("amazon")


def test_archive_without_the_member_names_it(built):
    built.put_spec("radiotalk", {"radiotalk/other.json": "[]"})
    with pytest.raises(DataUnavailable, match="has no radiotalk_pairs.json"):
        read("radiotalk")


def test_fisher_without_a_local_folder_says_where_to_request_it(built):
    with pytest.raises(DataUnavailable) as err:
        read("fisher_speaker_attribution_bbn_harder")
    msg = str(err.value)
    assert "https://catalog.ldc.upenn.edu/LDC2004T19" in msg
    assert "bbn_test_harder_trials.npy" in msg and "no reader" not in msg
