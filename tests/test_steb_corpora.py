"""Corpora of the STEB catalogue read from their own files (XML, tables, text files):
the readers on constructed files laid out as the reference reads them."""

from __future__ import annotations

import gzip
import json

import pytest
from steb_files import read

from stebkit.datasets import get_spec

_OA = ["text", "label", "group", "position"]


def test_core_one_record_per_sub_register_across_the_three_files(built):
    train = ("IN EN NA\tid1\tAn encyclopedia text.\nOP OB RV\tid2\tMy opinion.\n"
             "IN\tid3\tOnly main.\n")
    dev = "HI HT\tid4\t   \nbroken line without tabs\n"
    test = "ID qa\tid5\tA forum thread.\r\n"
    built.put_spec("core", *(gzip.compress(t.encode()) for t in (train, dev, test)))
    records, dropped = read("core")
    assert records[["text", "label"]].values.tolist() == [
        ["An encyclopedia text.", "encyclopedia_article"], ["My opinion.", "opinion_blog"],
        ["My opinion.", "reviews"], ["A forum thread.", "question_answer_forum"]]
    assert dropped == ["core: dropped 2 of 6 items (lines without three fields or with a "
                       "blank text)"]


def test_masc_cuts_each_genre_into_150_equal_ranges(built):
    root = "MASC-3.0.0/data"
    built.put_spec("masc_text_genre", {
        f"{root}/written/email/spam/b.txt": "B" * 200,
        f"{root}/written/email/enron/a.txt": "A" * 100,
        f"{root}/written/email/a.ann": "not text",
        f"{root}/spoken/telephone/t.txt": "x" * 149 + "yz",
        f"{root}/written/README.txt": "not in a genre folder"})
    records, _ = read("masc_text_genre")
    assert records.groupby("label").size().to_dict() == {"email": 150, "telephone": 150}
    email = records[records["label"] == "email"]["text"].tolist()
    assert "".join(email) == "A" * 100 + "\n" + "B" * 200 and len(email[0]) == 2
    assert records["label"].iloc[0] == "email"  # genres in sorted order


def test_ceeces_letters_labelled_by_period(built):
    def tei(letters: str) -> str:
        return f'<teiCorpus xmlns:xml="http://www.w3.org/XML/1998/namespace">{letters}</teiCorpus>'

    one = tei('<TEI xml:id="L1"><text><p>Dear <hi>Sir</hi>,\n thanks</p><p>Yours</p></text>'
              '</TEI><TEI xml:id="L2"><text><p>no period</p></text></TEI>')
    two = tei('<TEI xml:id="M1"><text><p>Madam</p></text></TEI>'
              '<TEI xml:id="M2"><text></text></TEI>')
    meta1 = "LetterID\tPeriod\tAuthor\r\nL1\t1680-1699\tX\r\nL2\t\tY\r\n".encode("cp1252")
    meta2 = "LetterID\tPeriod\r\nM1\t1700-1719\r\nM2\t1700-1719\r\n".encode("cp1252")
    built.put_spec("ceeces", meta1, {"CEECES 1 - XML files by collection/a.xml": one},
                   meta2, {"CEECES 2 - XML files by collection/b.xml": two})
    records, dropped = read("ceeces")
    assert records[["text", "label"]].values.tolist() == [
        ["Dear Sir, thanks\n\nYours", "1680-1699"], ["Madam", "1700-1719"]]
    assert "dropped 2 of 4 items" in dropped[0]


def test_fce_keeps_the_learners_words(built):
    script = ("<learner><head><candidate><personnel><language>Spanish</language>"
              "</personnel></candidate></head><text><answer1><coded_answer>"
              "<p>I <NS type='RV'><i>goed</i><c>went</c></NS> to   the park.</p>"
              "<p>Bye</p></coded_answer></answer1><answer2><coded_answer><p>Second one"
              "</p></coded_answer></answer2></text></learner>")
    built.put_spec("fce_l1", {"fce-released-dataset/dataset/0100_2000_6/doc1.xml": script,
                              "fce-released-dataset/prompts/p.xml": "<x/>"})
    records, _ = read("fce_l1")
    assert records[["text", "label"]].values.tolist() == [
        ["I goed to the park.\n\nBye", "Spanish"], ["Second one", "Spanish"]]
    bad = script.replace("<language>Spanish</language>", "")
    built.put_spec("fce_l1", {"fce-released-dataset/dataset/x/doc1.xml": bad})
    with pytest.raises(ValueError, match=r"doc1.xml has no personnel/language"):
        read("fce_l1")


def test_ewave_joins_varieties_and_drops_single_examples(built):
    examples = ("ID,Language_ID,Primary_Text,Gloss\n1,66,He go home.,\n2,66,  She done it. ,\n"
                "3,44,Mi go.,\n4,99,Unknown variety.,\n5,66,,\n")
    languages = "ID,Name,Glottocode\n66,Cook Islands English,x\n44,Cameroon Pidgin,y\n"
    built.put_spec("ewave", examples, languages)
    records, dropped = read("ewave")
    assert records[["text", "label"]].values.tolist() == [
        ["He go home.", "Cook Islands English"], ["She done it.", "Cook Islands English"]]
    assert len(dropped) == 2 and "dropped 2 of 5" in dropped[0] and "dropped 1 of 3" in dropped[1]


@pytest.mark.parametrize("attr,expected", [("gender", ["Male"]), ("age", ["25-34", "18-24"])])
def test_pastel_stories_by_persona_attribute(built, attr, expected):
    def story(sid, persona):
        return json.dumps({"id": sid, "persona": persona,
                           "output.sentences": [" First one. ", "Second.", ""]})

    built.put_spec(f"pastel_{attr}", {
        "data_v2/stories/train/1_1.json": story("1", {"age": "25-34", "gender": "Male"}),
        "data_v2/stories/test/2_1.json": story("2", {"age": "18-24", "gender": "Empty"}),
        "data_v2/sentences/train/3.json": story("3", {"age": "x", "gender": "Female"})})
    records, _ = read(f"pastel_{attr}")
    assert records["text"].unique().tolist() == ["First one. Second."]
    assert sorted(records["label"]) == sorted(expected)
    assert records["label"].tolist() == sorted(expected, key=lambda v: v != "18-24")


def test_styleptb_triplets_target_first_and_excluded_codes(built):
    lines = ["TFU", "he ate .", "he will eat .", "NAR", "a happy man", "a sad man",
             "ATP", "the dog bit him .", "he was bitten by the dog .", "PPR", "", "x"]
    built.put_spec("styleptb", {"StylePTB-master/fulldata.h16": "\n".join(lines) + "\n"})
    records, dropped = read("styleptb")
    assert records[_OA].values.tolist() == [
        ["he will eat .", "to_future", "g000000", 0], ["he ate .", "to_future", "g000000", 1],
        ["he was bitten by the dog .", "active_to_passive", "g000001", 0],
        ["the dog bit him .", "active_to_passive", "g000001", 1]]
    assert "dropped 1 of 3 items" in dropped[0]


def test_graded_formality_sets_informal_first(built):
    header = "model,source,input,level1,level2,level3,level4\n"
    folder = "graded_formality_generated_gpt-5-mini"
    built.put_spec("graded_formality", {
        f"{folder}/b_sms.csv": header + "m,sms,hey,hi,hello,good day,greetings\n",
        f"{folder}/a_tweet.csv": header + "m,tweet,lol,ha,funny,amusing,most amusing\n"
                                          "m,tweet,yo,,x,y,z\n",
        f"__MACOSX/{folder}/._a_tweet.csv": "junk"})
    records, dropped = read("graded_formality")
    assert records.groupby("group")["label"].first().tolist() == ["sms", "tweet"]
    assert records[records["group"] == "g000001"]["text"].tolist() == [
        "lol", "ha", "funny", "amusing", "most amusing"]
    assert "dropped 1 of 3 items (rows with a blank level)" in dropped[0]
    built.put_spec("graded_formality", {f"{folder}/a.csv": "model,source,input\nm,s,x\n"})
    with pytest.raises(ValueError, match=r"a.csv lacks the column\(s\) \['level1'"):
        read("graded_formality")


def test_aave_sae_line_aligned_pairs(built):
    files = {"EMNLP-AAVE-files/aave_samples.txt": "he finna go\n\nwe been knew\n",
             "EMNLP-AAVE-files/sae_samples.txt": "he is about to go\nsomething\nwe knew\n",
             "EMNLP-AAVE-files/other.txt": "x"}
    built.put_spec("twitter_aave_sae", files)
    records, dropped = read("twitter_aave_sae")
    assert records[_OA].values.tolist() == [
        ["he finna go", "aave", "g000000", 0], ["he is about to go", "aave", "g000000", 1],
        ["we been knew", "aave", "g000001", 0], ["we knew", "aave", "g000001", 1]]
    assert "dropped 1 of 3 items" in dropped[0]
    files["EMNLP-AAVE-files/sae_samples.txt"] = "only one line\n"
    built.put_spec("twitter_aave_sae", files)
    with pytest.raises(ValueError, match="has 3 lines but .*sae_samples.txt has 1"):
        read("twitter_aave_sae")


def test_catalogue_entries_point_at_the_reference_sources():
    assert get_spec("fce_l1").source.urls[0][0].startswith(
        "https://s3-eu-west-1.amazonaws.com/ilexir-website-media/")
    assert get_spec("twitter_aave_sae").source.urls[0][0].startswith(
        "https://aclanthology.org/attachments/2020.emnlp-main.473")
    assert get_spec("masc_text_genre").source.urls[0][0].endswith("MASC-3.0.0.zip")


def test_tree_reads_tar_members_and_skips_macos_resource_files(tmp_path):
    import io
    import tarfile

    from stebkit.datasets.readers._files import Tree

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in (("./data/x.json", b"[1]"), ("./data/._x.json", b"\x00\x05"),
                           ("__MACOSX/data/x.json", b"junk")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    path = tmp_path / "release.tar.gz"
    path.write_bytes(buf.getvalue())
    tree = Tree(path)
    assert tree.names() == ["data/x.json"]
    assert tree.find("*x.json") == "data/x.json" and tree.text("data/x.json") == "[1]"
