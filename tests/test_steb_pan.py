"""PAN releases and the Enron corpus: the catalogue readers on constructed archives laid
out as the reference's download script unpacks them."""

from __future__ import annotations

import json
import random

import pytest
from steb_files import jsonl, read

from stebkit.datasets.readers.pan import subsample_pairs
from stebkit.errors import DataUnavailable


def _problems(folder: str, truth: str, problems: dict[str, dict[str, str]]) -> dict:
    out = {f"{folder}/truth.txt": truth}
    for pid, files in problems.items():
        out.update({f"{folder}/{pid}/{name}": text for name, text in files.items()})
    return out


def _pairs(records) -> list[tuple]:
    return list(zip(records["pair"], records["label"], records["same"], records["text"],
                    strict=True))


def test_pan13_joins_known_texts_keeps_language_and_skips_incomplete(built):
    inner = "pan13-authorship-verification-test-corpus2-2013-05-29"
    files = _problems(inner, "EN002 N\nEN001 Y\nGR001 Y\nEN003 N\n", {
        "EN001": {"known01.txt": "k one", "known02.txt": "k two", "unknown.txt": "u one"},
        "EN002": {"known01.txt": "k three", "unknown.txt": "u two"},
        "GR001": {"known01.txt": "greek", "unknown.txt": "greek u"},
        "EN003": {"known01.txt": "no unknown here"}})
    built.put_spec("pan13_authorship_verification_english_test",
                   {f"{inner}.zip": files, "pan13-training.zip": {"x.txt": "ignored"}})
    records, dropped = read("pan13_authorship_verification_english_test")
    assert _pairs(records) == [
        ("EN001", "trial_EN001_true", True, "k one\n\nk two"),
        ("EN001", "trial_EN001_true", True, "u one"),
        ("EN002", "trial_EN002_false", False, "k three"),
        ("EN002", "trial_EN002_false", False, "u two")]
    assert dropped == ["pan13_authorship_verification_english_test: dropped 1 of 3 items "
                       "(problems without their known/unknown files)"]


@pytest.mark.parametrize("name,chain", [
    ("pan14_authorship_verification_corpus2_dutch_reviews_test",
     ["pan14-authorship-verification-test-corpus2-2014-04-22.zip",
      "pan14-author-verification-test-corpus2-dutch-reviews-2014-04-22.zip"]),
    ("pan15_authorship_verification_greek_test",
     ["pan15-authorship-verification-test-dataset2-2015-04-19.zip",
      "pan15-authorship-verification-test-dataset2-greek-2015-04-19.zip"]),
])
def test_pan14_15_read_only_known01_from_nested_zips(built, name, chain):
    folder = chain[-1][: -len(".zip")]
    files = _problems(folder, "DR002 Y\nDR001 N\n", {
        "DR001": {"known01.txt": "first", "known02.txt": "not read", "unknown.txt": "q1"},
        "DR002": {"known01.txt": "second", "unknown.txt": "q2"}})
    archive = {chain[1]: files, "other-corpus.zip": {"a.txt": "x"}}
    built.put_spec(name, {chain[0]: archive})
    records, _ = read(name)
    assert _pairs(records) == [("DR001", "trial_DR001_false", False, "first"),
                               ("DR001", "trial_DR001_false", False, "q1"),
                               ("DR002", "trial_DR002_true", True, "second"),
                               ("DR002", "trial_DR002_true", True, "q2")]


def test_enron_reads_bom_truth_and_every_known_mail(built):
    root = "Enron (80 authors)"
    files = _problems(root, "\ufeffAnn.smith[Y] Y\nBob.jones[N] N\n", {
        "Ann.smith[Y]": {"known - Ann - Mail_2.txt": "b", "known - Ann - Mail_1.txt": "a",
                         "unknown - Ann - Mail_9.txt": "c"},
        "Bob.jones[N]": {"known - Bob - Mail_1.txt": "d", "unknown - X - Mail_3.txt": "e"}})
    built.put_spec("enron_authorship_corpus", files)
    records, _ = read("enron_authorship_corpus")
    assert _pairs(records) == [
        ("Ann.smith[Y]", "trial_Ann.smith[Y]_true", True, "a\n\nb"),
        ("Ann.smith[Y]", "trial_Ann.smith[Y]_true", True, "c"),
        ("Bob.jones[N]", "trial_Bob.jones[N]_false", False, "d"),
        ("Bob.jones[N]", "trial_Bob.jones[N]_false", False, "e")]


def test_subsample_pairs_is_the_reference_download_cut():
    ids = [f"id{i:03d}" for i in range(900)]
    same = {i: n % 3 != 0 for n, i in enumerate(ids)}
    # the reference's script, restated: module random seeded with 42, shuffle both lists
    random.seed(42)
    s = [i for i in ids if same[i]]
    d = [i for i in ids if not same[i]]
    random.shuffle(s)
    random.shuffle(d)
    got = subsample_pairs(ids, same, 250)
    assert got == s[:250] + d[:250]
    assert len(set(got)) == 500 and all(same[i] for i in got[:250])


def test_pan20_pairs_in_subsample_order(built):
    folder = "pan20-authorship-verification-test"
    data = [{"id": f"p{i}", "fandoms": ["a", "b"], "pair": [f"a{i}", f"b{i}"]}
            for i in range(6)]
    truth = [{"id": f"p{i}", "same": i % 2 == 0, "authors": ["x", "y"]} for i in range(6)]
    built.put_spec("pan20_authorship_verification_test",
                   {f"{folder}/{folder}.jsonl": jsonl(data),
                    f"{folder}/{folder}-truth.jsonl": jsonl(truth)})
    records, _ = read("pan20_authorship_verification_test")
    order = subsample_pairs([f"p{i}" for i in range(6)],
                            {f"p{i}": i % 2 == 0 for i in range(6)}, 250)
    assert list(dict.fromkeys(records["pair"])) == order
    first = records.iloc[:2]
    pid = order[0]
    assert first["text"].tolist() == [f"a{pid[1:]}", f"b{pid[1:]}"]
    assert first["label"].tolist() == [f"trial_{pid}_true"] * 2


def test_pan20_truth_missing_an_id_is_an_error(built):
    folder = "pan20-authorship-verification-test"
    built.put_spec("pan20_authorship_verification_test",
                   {f"{folder}/{folder}.jsonl": jsonl([{"id": "p0", "pair": ["a", "b"]}]),
                    f"{folder}/{folder}-truth.jsonl": jsonl([{"id": "zz", "same": True}])})
    with pytest.raises(ValueError, match="record 1 .id 'p0'. has no line"):
        read("pan20_authorship_verification_test")


def test_pan18_style_change_cuts_documents(built):
    folder = "pan18-style-change-detection-validation-dataset-2018-01-31"
    built.put_spec("pan18_style_change", {
        f"{folder}/problem-1.txt": "one two three four",
        f"{folder}/problem-1.truth": json.dumps({"changes": False, "positions": []}),
        f"{folder}/problem-2.txt": "aaaa bbb cccc",
        f"{folder}/problem-2.truth": json.dumps({"changes": True, "positions": [5, 9]}),
        f"{folder}/problem-3.txt": "   xyz",
        f"{folder}/problem-3.truth": json.dumps({"changes": True, "positions": [3]})})
    records, dropped = read("pan18_style_change")
    assert _pairs(records) == [("1", "trial_1_true", True, "one two "),
                               ("1", "trial_1_true", True, "three four"),
                               ("2", "trial_2_false", False, "aaaa "),
                               ("2", "trial_2_false", False, "bbb ")]
    assert dropped == ["pan18_style_change: dropped 1 of 3 items (documents with a blank side)"]


def _style_docs(folder: str) -> dict:
    return {f"{folder}/problem-1.txt": "s0\ns1\n\ns2\ns3\n",
            f"{folder}/truth-problem-1.json": json.dumps({"authors": 2, "changes": [0, 0, 1]}),
            f"{folder}/problem-2.txt": "t0\nt1\nt2\n",
            f"{folder}/truth-problem-2.json": json.dumps({"authors": 2, "changes": [0, 1]}),
            f"{folder}/problem-3.txt": "only one line\n",
            f"{folder}/truth-problem-3.json": json.dumps({"changes": [1]})}


def test_pan22_style_change_every_consecutive_pair(built):
    built.put_spec("pan22_style_change_advanced",
                   {**_style_docs("pan22/dataset2/validation"),
                    **_style_docs("pan22/dataset2/train")})
    records, dropped = read("pan22_style_change_advanced")
    assert list(dict.fromkeys(records["label"])) == [
        "trial_advanced_1_0_true", "trial_advanced_1_1_true", "trial_advanced_1_2_false",
        "trial_advanced_2_0_true", "trial_advanced_2_1_false"]
    assert records["text"].tolist()[:6] == ["s0", "s1", "s1", "s2", "s2", "s3"]
    assert "dropped 1 of 3 items" in dropped[0]


def test_pan26_style_change_balances_same_author_pairs(built):
    built.put_spec("pan26_style_change_medium", _style_docs("mawsa26-pan-zenodo/medium/validation"))
    records, dropped = read("pan26_style_change_medium")
    rng = random.Random(42)  # rate 2 different / 3 same: keep round(2/3 * n) per document
    keep1, keep2 = rng.sample([0, 1], 1), rng.sample([0], 1)
    expected = ([f"trial_medium_1_{i}_true" for i in keep1] + ["trial_medium_1_2_false"]
                + [f"trial_medium_2_{i}_true" for i in keep2] + ["trial_medium_2_1_false"])
    assert list(dict.fromkeys(records["label"])) == expected
    assert any("dropped 1 of 3 items (same-author pairs" in m for m in dropped)


def test_pan18_attribution_becomes_retrieval(built):
    folder = "pan18-cross-domain-authorship-attribution-test-dataset2-2018-04-20"
    gt = {"ground_truth": [{"unknown-text": "unknown00001.txt", "true-author": "candidate00002"}]}
    inner = {f"{folder}/collection-info.json": json.dumps([
        {"problem-name": "problem00001", "language": "en", "encoding": "UTF-8"},
        {"problem-name": "problem00002", "language": "fr", "encoding": "UTF-8"}]),
        f"{folder}/problem00001/ground-truth.json": json.dumps(gt),
        f"{folder}/problem00001/problem-info.json": "{}",
        f"{folder}/problem00001/candidate00001/known00002.txt": "c1 second",
        f"{folder}/problem00001/candidate00001/known00001.txt": "c1 first",
        f"{folder}/problem00001/candidate00002/known00001.txt": "c2",
        f"{folder}/problem00001/unknown/unknown00001.txt": "query text",
        f"{folder}/problem00001/unknown/unknown00002.txt": "no truth",
        f"{folder}/problem00002/ground-truth.json": json.dumps({"ground_truth": []}),
        f"{folder}/problem00002/candidate00001/known00001.txt": "french"}
    built.put_spec("pan18_cross_domain_authorship_attribution_english",
                   {f"{folder}.zip": inner})
    records, dropped = read("pan18_cross_domain_authorship_attribution_english")
    assert records[["text", "label", "side"]].values.tolist() == [
        ["c1 first\n\nc1 second", "problem00001_candidate00001", "target"],
        ["c2", "problem00001_candidate00002", "target"],
        ["query text", "problem00001_candidate00002", "query"]]
    assert "dropped 1 of 2 items" in dropped[0]


def test_pan24_news_labels_by_file(built):
    root = "pan24-generative-authorship-news"
    built.put_spec("machine_text_detection_PAN24_news", {
        f"{root}/human.jsonl": jsonl([{"id": "h1", "text": "human one"},
                                      {"id": "h2", "text": "  "}]),
        f"{root}/machines/gpt-4.jsonl": jsonl([{"id": "m1", "text": "gpt text"}]),
        f"{root}/machines/alpaca-7b.jsonl": jsonl([{"id": "m2", "text": "alpaca text"}])})
    records, dropped = read("machine_text_detection_PAN24_news")
    assert records[["text", "label"]].values.tolist() == [
        ["human one", "human"], ["alpaca text", "alpaca-7b"], ["gpt text", "gpt-4"]]
    assert "dropped 1 of 4 items (blank texts)" in dropped[0]


def test_pan25_task1_keeps_one_genre_and_task2_labels_by_kind(built):
    rows = [{"id": "1", "text": "an essay", "model": "human", "label": 0, "genre": "essays"},
            {"id": "2", "text": "news", "model": "gpt-4o", "label": 1, "genre": "news"},
            {"id": "3", "text": "essay by llm", "model": "gpt-4o", "label": 1,
             "genre": "essays"}]
    built.put_spec("machine_text_detection_PAN25_26_essays",
                   {"data/val.jsonl": jsonl(rows), "data/train.jsonl": jsonl(rows[:1])})
    records, _ = read("machine_text_detection_PAN25_26_essays")
    assert records[["text", "label"]].values.tolist() == [["an essay", "human"],
                                                           ["essay by llm", "gpt-4o"]]
    built.put_spec("machine_text_detection_PAN25_collaborative", {"dev.jsonl": jsonl([
        {"text": "t1", "label_text": "fully human-written", "label": 0},
        {"text": "t2", "label_text": "deeply-mixed text", "label": 3}])})
    records, _ = read("machine_text_detection_PAN25_collaborative")
    assert records["label"].tolist() == ["fully human-written", "deeply-mixed text"]


def test_bad_json_line_and_missing_member_name_the_file(built):
    built.put_spec("machine_text_detection_PAN25_collaborative",
                   {"dev.jsonl": '{"text": "ok", "label_text": "x"}\n{"text": \n'})
    with pytest.raises(ValueError, match=r"dev.jsonl line 2 is not valid JSON"):
        read("machine_text_detection_PAN25_collaborative")
    built.put_spec("machine_text_detection_PAN25_26_news", {"data/train.jsonl": "{}\n"})
    with pytest.raises(DataUnavailable, match=r"has no val.jsonl"):
        read("machine_text_detection_PAN25_26_news")
    built.put_spec("machine_text_detection_PAN25_collaborative",
                   {"dev.jsonl": jsonl([{"text": "no label column"}])})
    with pytest.raises(ValueError, match=r"record 1 lacks the field\(s\) \['label_text'\]"):
        read("machine_text_detection_PAN25_collaborative")
