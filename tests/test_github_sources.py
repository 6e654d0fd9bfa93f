"""STEB datasets with public GitHub sources, read from the real (mirrored) files.

Each test pins what the reference's loader yields for the real file: the label set, the
number of records (texts, or parallel sets for order alignment) per label, and the first
record of each label (its leading characters and length). The expected values were
checked against the reference's loaders run on the same files. Bad input is tested on
constructed files in a private mirror.
"""

from __future__ import annotations

import json

import pytest
from steb_files import read

from stebkit.datasets import get_spec, list_datasets, load_dataset
from stebkit.datasets.readers.bible import BIBLE_VERSIONS
from stebkit.datasets.readers.text import text_lines
from stebkit.errors import DataUnavailable

pytestmark = pytest.mark.usefixtures("mirror")


def _sets(records):
    """(label, [texts by position]) per parallel set, in record order."""
    by_group = records.groupby("group", sort=False)
    assert (by_group["position"].diff().dropna() > 0).all()  # positions ascend in a set
    sets = by_group.agg(label=("label", "first"), texts=("text", list))
    return list(zip(sets["label"], sets["texts"], strict=True))


def _summary(records):
    """Records per label, and the first record of each label (prefixes / length)."""
    if "group" in records.columns:
        sets = _sets(records)
        counts: dict[str, int] = {}
        first: dict[str, list[str]] = {}
        for label, texts in sets:
            counts[label] = counts.get(label, 0) + 1
            first.setdefault(label, [t[:50] for t in texts])
        return counts, first
    counts = records["label"].value_counts().to_dict()
    first = {label: (g["text"].iat[0][:50], len(g["text"].iat[0]))
             for label, g in records.groupby("label", sort=False)}
    return counts, first


def test_stel_feature_and_register():
    counts, first = _summary(load_dataset("stel_feature").frame)
    assert counts == {"contraction": 101, "emotives": 200, "nbr_substitution": 100}
    assert first["emotives"] == ["proud :) LINK/MEDIA", "proud 😀 LINK/MEDIA"]
    assert first["nbr_substitution"] == ["<3 friends 4ever", "<3 friends forever"]
    assert first["contraction"] == ["The line's name derives from its use in the Mediev"] * 2
    records = load_dataset("stel_feature").frame
    contraction = next(t for lab, t in _sets(records) if lab == "contraction")
    assert "it'd already" in contraction[0] and "it had already" in contraction[1]
    counts, first = _summary(load_dataset("stel_register").frame)
    assert counts == {"formality": 196, "simplicity": 197}
    # position 0 has more of the style: the formal sentence, the simple sentence
    assert first["formality"] == ["He has a very distinct walk.",
                                  "But has a lil slang 2 his walk."]
    assert first["simplicity"] == ["Human skin can change from very dark brown to very",
                                   "Human skin hues can range from very dark brown to "]


def test_parallel_shakespeare():
    counts, first = _summary(load_dataset("parallel_shakespeare").frame)
    assert counts == {"shakespeare": 19746}
    assert first["shakespeare"] == ["I have a mind to strike thee ere thou speak’st.",
                                    "I have half a mind to hit you before you speak aga"]


def test_onestop_english():
    records = load_dataset("onestopenglishcorpus").frame
    counts, first = _summary(records)
    assert counts == {"complexity": 2117}
    assert first["complexity"] == ["When you see the word Amazon, what’s the first thi"] * 3
    assert records["position"].max() == 2  # advanced, intermediate, elementary


def test_asset_picks_the_simplification_by_sha256_of_the_original():
    import hashlib

    records = load_dataset("asset").frame
    counts, first = _summary(records)
    assert counts == {"simple": 2359}  # 2,000 validation + 359 test originals
    assert first["simple"] == ["Nearby counties are Marin, Mendocino, Lake, Napa, ",
                               "Adjacent counties are Marin (to the south), Mendoc"]
    # the hand-computed choice for the first original: sha256 % 10 picks simp.<k>
    [(_, (simple, original))] = _sets(records.head(2))
    k = int(hashlib.sha256(original.encode()).hexdigest(), 16) % 10
    spec = get_spec("asset")
    from stebkit.sources import fetch

    url = next(u for u, _ in spec.source.urls if u.endswith(f"asset.valid.simp.{k}"))
    assert text_lines(fetch(url).read_text(encoding="utf-8"))[0] == simple


def test_politeness_from_the_annotated_csvs():
    counts, first = _summary(load_dataset("wikipedia_politeness").frame)
    assert counts == {"neutral": 2175, "impolite": 1089, "polite": 1089}
    assert first == {
        "impolite": ("Where did you learn English? How come you're takin", 72),
        "polite": ("Thanks very much for your edit to the <url> articl", 108),
        "neutral": ("Sir i think u hav many friends on wiki who can rev", 99)}
    counts, first = _summary(load_dataset("stackexchange_politeness").frame)
    assert counts == {"neutral": 3301, "impolite": 1651, "polite": 1651}
    assert first == {
        "neutral": ("Can you explain more in detail, what should I sdde", 75),
        "polite": ("Is `A` a global variable?  What is x?", 37),
        "impolite": ("This is a very confusing question!  How are you co", 74)}


_GENERATORS = {"ChatGPT": 252, "Google-PaLM": 252, "Claude-instant": 252, "Llama-2-70b": 252}
_ARXIV_HUMAN = ("We propose and study a model with glassy behavior.", 826)


@pytest.mark.parametrize("part, counts, first", [
    ("arxiv", {"human": 1000, **_GENERATORS}, {
        "human": _ARXIV_HUMAN,
        "ChatGPT": ("This study investigates the redshift phenomenon an", 1981),
        "Google-PaLM": ("The stuffed pyrochlore Ho2TiO5 is an intriguing ma", 900),
        "Claude-instant": ("Here is a 5 sentence abstract for the given articl", 695),
        "Llama-2-70b": ("In this study, we present the results of a Gemini ", 962)}),
    ("direct_prompt", {"human": 1008, **_GENERATORS}, {
        "human": _ARXIV_HUMAN,
        "ChatGPT": ("In this sixth installment of the Geometric Complex", 1134),
        "Google-PaLM": ("In this paper, we investigate the gravitational ac", 480),
        "Claude-instant": ("Here is a 9 sentence abstract for the given articl", 1401),
        "Llama-2-70b": ("The ionization fraction of Barnard 68, a nearby mo", 1164)}),
    ("writing_prompt", {"human": 1000, **_GENERATORS}, {
        "human": ("New York. Chicago. Los Angeles. They were all gone", 1858),
        "ChatGPT": ("Shhh, the more you think about it. The closer it g", 1999),
        "Google-PaLM": ("In a world transformed by scientific marvel, a rev", 1826),
        "Claude-instant": ("Here is an 11 sentence story based on the prompt:S", 1117),
        "Llama-2-70b": ("Once upon a time, in a land far, far away, there w", 892)}),
    ("xsum", {"human": 1000, **_GENERATORS}, {
        "human": ("Ewan McGregor, Ewen Bremner, Jonny Lee Miller and ", 1855),
        "ChatGPT": ("Title: Joe Ledley's Unconventional Journey to Euro", 1936),
        "Google-PaLM": ("**Reading winger Garath McCleary could return to a", 842),
        "Claude-instant": ("Here is a 4 sentence news article based on the pro", 676),
        "Llama-2-70b": ("The co-founder of Russia's largest search engine, ", 593)}),
    ("yelp_review", {"human": 1000, **_GENERATORS}, {
        "human": ("nnMy girlfriend and I have been looking for a new ", 1299),
        "ChatGPT": ("After a wild night of St. Patty's day celebrations", 1928),
        "Google-PaLM": ("Ok, here is the continued review with 17 sentences", 1549),
        "Claude-instant": ("Here is a 24 sentence continuation of the review:F", 1649),
        "Llama-2-70b": ("However, I recently discovered a new sushi spot in", 1320)}),
    ("paraphrase_attacks", {"human": 1008, "llm": 1008}, {
        "human": _ARXIV_HUMAN,
        "llm": ("The flip operation, a fundamental concept in these", 656)}),
    ("perturbation_attacks", {"human": 1008, "llm": 1008}, {
        "human": _ARXIV_HUMAN,
        "llm": ("In this sixth installment of the Geometric Complex", 1132)}),
    ("prompt_attacks", {"human": 1008, "llm": 1024}, {
        "human": _ARXIV_HUMAN,
        "llm": ("In this sixth installment of the Geometric Complex", 1225)}),
])
def test_detectrl_test_files(part, counts, first):
    name = f"machine_text_detection_detectrl_{part}"
    assert _summary(load_dataset(name).frame) == (counts, first)


def test_bible_versions_uses_all_eight_translations():
    records = load_dataset("bible_versions").frame
    counts, first = _summary(records)
    assert counts == dict.fromkeys(BIBLE_VERSIONS, 25044)
    assert first == {
        "ASV": ("So I caused them to go forth out of the land of Eg", 92),
        "BBE": ("So I made them go out of the land of Egypt and too", 77),
        "DARBY": ("And I caused them to go forth out of the land of E", 93),
        "DRA": ("Therefore I brought them out from the land of Egyp", 86),
        "KJV": ("Wherefore I caused them to go forth out of the lan", 99),
        "LEB": ("And I brought them out from the land of Egypt, and", 80),
        "WEB": ("So I caused them to go out of the land of Egypt, a", 86),
        "YLT": ("And I bring them out of the land of Egypt, And I b", 83)}
    # every verse comes as eight consecutive records, one per translation, in order
    assert records["label"].head(16).tolist() == [*BIBLE_VERSIONS, *BIBLE_VERSIONS]


def test_mirrored_datasets_are_offline_and_marked_as_tested_on_real_files():
    mirrored = {"stel_feature", "stel_register", "parallel_shakespeare",
                "onestopenglishcorpus", "asset", "wikipedia_politeness",
                "stackexchange_politeness", "bible_versions",
                *(n for n in list_datasets(suite="steb") if "detectrl" in n)}
    assert len(mirrored) == 16
    offline = set(list_datasets(suite="steb", offline=True))
    for name in mirrored:
        spec = get_spec(name)
        assert spec.tested_on == "mirror" and spec.status == "real files", name
        assert name in offline, name


# ------------------------------------------------------------------------- bad input

def _url(name: str, ending: str) -> str:
    return next(u for u, _ in get_spec(name).source.urls if u.endswith(ending))


def test_detectrl_bad_json_names_file_and_line(built):
    name = "machine_text_detection_detectrl_xsum"
    url = _url(name, ".json")
    built.put(url, '[{"text": "a", "label": "human"},\n{"text": ')
    with pytest.raises(ValueError, match=rf"{url} line 2 is not valid JSON"):
        read(name)


def test_detectrl_dropped_records_are_counted(built):
    name = "machine_text_detection_detectrl_prompt_attacks"
    rows = [{"text": "human text", "label": "human", "llm_type": "ChatGPT"},
            {"text": "", "label": "llm", "llm_type": "ChatGPT"},
            {"text": "odd label", "label": "mixed", "llm_type": "ChatGPT"},
            {"text": "machine text", "label": "llm", "llm_type": "ChatGPT"}]
    built.put(_url(name, ".json"), json.dumps(rows))
    records, dropped = read(name)
    assert list(zip(records["text"], records["label"], strict=True)) == [
        ("human text", "human"), ("machine text", "llm")]
    assert dropped == [f"{name}: dropped 2 of 4 items (records without a text or a "
                       f"human/llm label)"]


def test_politeness_without_the_score_column_names_file_and_column(built):
    url = _url("wikipedia_politeness", ".csv")
    built.put(url, "Community,Id,Request\nWikipedia,1,Could you help?\n")
    with pytest.raises(ValueError, match=r"wikipedia.annotated.csv: missing column\(s\) "
                                         r"\['Normalized Score'\]"):
        read("wikipedia_politeness")


def test_shakespeare_line_count_mismatch_names_the_play(built):
    for url, _ in get_spec("parallel_shakespeare").source.urls:
        side = "thou art\nhe is\n" if url.endswith("hamlet_original.snt.aligned") else "x\n"
        built.put(url, side if "hamlet" in url else f"{url[-30:]}\nchanged\n")
    with pytest.raises(ValueError, match=r"hamlet_original.snt.aligned: 2 lines, but .*"
                                         r"hamlet_modern.snt.aligned has 1"):
        read("parallel_shakespeare")


def test_stel_without_style_type_column_names_the_file(built):
    for url, _ in get_spec("stel_feature").source.urls:
        built.put(url, "\tAnchor 1\tAnchor 2\tAlternative 1.1\tAlternative 1.2\tID\n")
    with pytest.raises(ValueError, match=r"quad_questions_char_contraction.tsv: missing "
                                         r"column\(s\) \['style type'\]"):
        read("stel_feature")


def test_stel_decodes_ids_and_drops_duplicates_on_a_constructed_file(built):
    header = ("\tAnchor 1\tAnchor 2\tAlternative 1.1\tAlternative 1.2\tCorrect Alternative"
              "\tID\t# Votes out of 5 for Correct Alternative\tstyle type\n")
    rows = [  # formal first (f-), informal first (i-), an ID that does not decode
        "0\tformal a\tinformal a\tinformal b\tformal b\t2\tQQ_f-1-i-1_i-2-f-2--1\t\tformality",
        "1\tformal a\tinformal a\tformal c\tinformal c\t1\tQQ_f-1-i-1_f-3-i-3--1\t\tformality",
        "2\tx\ty\tz\tw\t1\tnot-an-id\t\tformality",
        "3\tsimple\tcomplex\tcomplex 2\tsimple 2\t2\tQQ_s-t1-5-c-5_x-6-s-6--1\t\tsimplicity",
    ]
    urls = [u for u, _ in get_spec("stel_register").source.urls]
    for url in urls:
        built.put(url, header + ("\n".join(rows) + "\n" if url.endswith("formal-100_sample.tsv")
                                 else ""))
    records, dropped = read("stel_register")
    assert _sets(records) == [
        ("formality", ["formal a", "informal a"]), ("formality", ["formal b", "informal b"]),
        ("formality", ["formal c", "informal c"]), ("simplicity", ["simple", "complex"]),
        ("simplicity", ["simple 2", "complex 2"])]
    assert dropped == [
        "stel_register: dropped 1 of 4 items (rows whose ID gives no ordered pair)",
        "stel_register: dropped 1 of 6 items (pairs already seen for the same style type)"]


def test_bible_keeps_only_verses_of_every_translation(built):
    import dataclasses

    from stebkit.datasets.spec import Source

    genesis = [u for u, _ in get_spec("bible_versions").source.urls
               if u.endswith("/Genesis/Genesis1.txt")]
    assert len(genesis) == 8
    for url in genesis:
        version = url.split("/Bibles/")[1].split("/")[0]
        verses = {1: f"In the beginning ({version})", 2: f"And the earth ({version})",
                  3: "Let there be light"}  # verse 3 reads the same everywhere
        if version != "LEB":
            verses[4] = f"And God saw ({version})"  # missing from LEB
        built.put(url, "".join(f"{n} {t}\n" for n, t in verses.items()) + "no number\n")
    spec = dataclasses.replace(get_spec("bible_versions"),
                               source=Source(urls=tuple((u, None) for u in genesis)))
    records, dropped = read_spec(spec)
    assert len(records) == 2 * 8 and set(records["label"]) == set(BIBLE_VERSIONS)
    assert set(records["text"]) >= {"In the beginning (LEB)", "And the earth (KJV)"}
    assert dropped == [
        "bible_versions: dropped 1 of 3 items (verses where two translations read the same)"]


# ------------------------------------------------------------------------- SynthSTEL
# (a Hub dataset, on a stand-in split with its real column layout)

def test_synthstel_lowercases_and_strips_features_before_the_group_filter(monkeypatch):
    import pandas as pd

    from stebkit.datasets import hub

    split = pd.DataFrame({
        "positive": [" Could you please help? ", "I can't", "LOL", "", "Sure thing!"],
        "negative": ["Help.", " I cannot ", "That is funny.", "empty side", "Certainly."],
        "feature": ["Polite / Impolite ", "contractions", " With Humor / Without Humor",
                    "emojis", "  "],
        "feature_clean": ["x"] * 5})
    asked = []

    def fake_load(path, *, name=None, revision=None, split=None, **kwargs):
        asked.append((path, name, split))
        return table

    table = split
    monkeypatch.setattr(hub, "load_hub", fake_load)
    register, dropped = read("synthstel_register")
    assert asked == [("StyleDistance/synthstel", None, "train+test")]
    assert _sets(register) == [("polite / impolite", ["Could you please help?", "Help."]),
                               ("with humor / without humor", ["LOL", "That is funny."])]
    assert dropped == ["synthstel_register: dropped 2 of 5 items (rows with an empty text "
                       "or feature)"]
    feature, _ = read("synthstel_feature")
    assert _sets(feature) == [("contractions", ["I can't", "I cannot"])]
    table = split.drop(columns=["feature"])
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['feature'\]"):
        read("synthstel_feature")


def test_convokit_politeness_zip_is_read_as_the_reference_reads_it(built):
    import dataclasses

    from steb_files import jsonl

    from stebkit.datasets.readers.politeness import (
        CONVOKIT_POLITENESS_URLS,
        read_convokit_politeness,
    )
    from stebkit.datasets.spec import Source

    url = CONVOKIT_POLITENESS_URLS["wikipedia"]
    utterances = [
        {"id": "1", "text": "Could you please look?", "meta": {"Binary": 1}},
        {"id": "2", "text": "Fix it.", "meta": {"Binary": -1}},
        {"id": "3", "text": "Where is it?", "meta": {"Binary": 0}},
        {"id": "4", "text": "   ", "meta": {"Binary": 0}},
        {"id": "5", "text": "No label", "meta": {}},
        {"id": "6", "text": "Float label", "meta": {"Binary": 1.0}}]
    built.put(url, {"wikipedia-politeness-corpus/utterances.jsonl": jsonl(utterances),
                    "wikipedia-politeness-corpus/corpus.json": "{}"})
    spec = dataclasses.replace(get_spec("wikipedia_politeness"),
                               source=Source(urls=((url, None),)),
                               reader=read_convokit_politeness)
    records, dropped = read_spec(spec)
    assert records[["text", "label"]].values.tolist() == [
        ["Could you please look?", "polite"], ["Fix it.", "impolite"],
        ["Where is it?", "neutral"]]
    assert dropped == ["wikipedia_politeness: dropped 3 of 6 items (utterances without a "
                       "text or a -1/0/1 Binary label)"]
    built.put(url, {"wikipedia-politeness-corpus/utterances.jsonl":
                    jsonl(utterances[:2]) + '{"id": "3", "text": \n'})
    with pytest.raises(ValueError, match=r"utterances.jsonl line 3 is not valid JSON"):
        read_spec(spec)
    built.put(url, {"wikipedia-politeness-corpus/corpus.json": "{}"})
    with pytest.raises(DataUnavailable, match=r"has no utterances.jsonl"):
        read_spec(spec)


def read_spec(spec):
    """Records of ``spec`` and the dropped-rows messages its reader reported."""
    import warnings

    from stebkit.datasets.readers.text import DroppedRowsWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = load_dataset(spec, cache=False).frame
    return records, [str(w.message) for w in caught if w.category is DroppedRowsWarning]
