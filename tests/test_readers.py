"""Readers against the real mirrored files and against broken files.

Oracles are independent of the readers: counts stated in the sources' documentation
(data/SOURCES.md), properties a correct reading must have (a contraction has an
apostrophe, leetspeak has digits), and hand-made files.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stebkit.datasets.lite import SPECS
from stebkit.datasets.readers import (
    bible,
    conllu,
    detection,
    eltec,
    federalist,
    informal,
    nltk_zip,
    parallel,
    politeness,
    stel,
)
from stebkit.datasets.readers._files import Tree
from stebkit.datasets.readers._records import (
    cross_work_pairs,
    cross_work_retrieval,
    with_splits,
)
from stebkit.datasets.readers.text import (
    DroppedRowsWarning,
    cut_passages,
    n_words,
    read_text,
    split_sentences_by_regex,
)

BY_NAME = {s.name: s for s in SPECS}
GH = "raw.githubusercontent.com"


def find(mirror: Path, pattern: str) -> Path:
    found = sorted((mirror / GH).glob(pattern))
    assert found, pattern
    return found[0]


# --- shared text helpers -----------------------------------------------------------

def test_sentences_and_passages_are_cut_on_boundaries():
    text = ("Dr. Watson arrived at 5 p.m. and sat down. " * 3
            + "It was late! Was it? \u201cYes,\u201d she said. " * 10)
    sentences = split_sentences_by_regex(text)
    assert sentences[0] == "Dr. Watson arrived at 5 p.m. and sat down."
    assert "It was late!" in sentences and "Was it?" in sentences
    passages = cut_passages(text, min_words=20, max_words=40)
    assert passages and all(20 <= n_words(p) <= 40 for p in passages)
    assert all(p.rstrip()[-1] in ".!?\u201d" for p in passages)
    # one endless sentence is cut at clauses, then words, never exceeding the cap
    long = ", ".join(["word"] * 500) + "."
    assert all(n_words(p) <= 120 for p in cut_passages(long))


_LINE_ENDS = "a\r\nb\rc\u2028d\r\r\ne\n\r"  # \u2028 ends no line of a file


@pytest.mark.parametrize(("newline", "expected"), [
    (None, "a\nb\nc\u2028d\n\ne\n\n"),  # text mode: \r\n and \r read as \n
    ("", _LINE_ENDS),  # as stored (the readers' default)
])
def test_the_newline_keyword_reads_line_ends_as_open_does(tmp_path, newline, expected):
    path, damaged, archive = tmp_path / "x.txt", tmp_path / "bad.txt", tmp_path / "a.zip"
    path.write_bytes(_LINE_ENDS.encode())
    damaged.write_bytes(_LINE_ENDS.encode() + b"\xff")
    with zipfile.ZipFile(archive, "w") as z:
        z.write(path, "x.txt")
        z.write(damaged, "bad.txt")
    with open(path, encoding="utf-8", newline=newline) as fh:
        assert fh.read() == expected
    with open(damaged, encoding="utf-8", errors="replace", newline=newline) as fh:
        replaced = fh.read()
    assert replaced == expected + "\ufffd"
    assert read_text(path, newline=newline) == expected
    assert Tree(path).text("x.txt", newline=newline) == expected  # a plain file
    assert Tree(archive).text("x.txt", newline=newline) == expected
    assert Tree(archive).text("bad.txt", errors="replace", newline=newline) == replaced
    # the default keeps the line ends as stored
    assert read_text(path) == Tree(archive).text("x.txt") == _LINE_ENDS


def test_pairs_and_retrieval_builders_use_distinct_works():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"text": [f"t{i}" for i in range(60)],
                          "label": np.repeat(list("abc"), 20),
                          "work": np.tile(["w1", "w2"], 30)})
    pairs = cross_work_pairs(frame, 3, rng)
    assert pairs.groupby("pair").size().eq(2).all() and not pairs["text"].duplicated().any()
    same = pairs[pairs["same"]].groupby("pair")
    assert same["label"].nunique().eq(1).all() and same["work"].nunique().eq(2).all()
    diff = pairs[~pairs["same"]].groupby("pair")["label"].nunique()
    assert len(diff) == 9 and diff.eq(2).all()
    ret = cross_work_retrieval(frame, 4, rng)
    assert ret.groupby(["label", "side"]).size().eq(4).all()
    assert (ret.groupby("label")["work"].nunique() == 2).all()
    split = with_splits(frame, rng)
    assert split.groupby("label")["split"].value_counts().unstack().eq([4, 12, 4]).all().all()


# --- STEL ----------------------------------------------------------------------------

def test_stel_orders_sequences_by_the_characteristic(mirror):
    checks = {
        "contraction": lambda t: t.count("'") + t.count("\u2019"),
        "nbr_substitution": lambda t: sum(c.isdigit() for c in t),
        "em-subj-pronoun": lambda t: sum(w.strip(".,").lower() == "em" for w in t.split()),
        "emotives": lambda t: -sum(ord(c) > 0xFFFF for c in t),  # emoji at position 1
    }
    for path in sorted((mirror / GH).glob("nlpsoc/STEL/*/Data/STEL/characteristics/*.tsv")):
        quads = stel.read_quadruples(path)
        assert len(quads) in (100, 200)
        records = stel.quadruple_records(quads)
        style = quads["style_type"].iloc[0]
        score = records["text"].map(checks[style])
        wide = records.assign(score=score).pivot(index="group", columns="position",
                                                 values="score")
        assert (wide[0] > wide[1]).mean() > 0.9, style  # leetspeak is not always digits
        rebuilt = stel.quadruples(records)
        pd.testing.assert_frame_equal(
            rebuilt, quads[["anchor1", "anchor2", "alt1", "alt2", "correct"]])


def test_stel_broken_files(tmp_path):
    empty = tmp_path / "empty.tsv"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty.tsv: empty file"):
        stel.read_quadruples(empty)
    missing = tmp_path / "missing.tsv"
    missing.write_text("\tAnchor 1\tAnchor 2\tID\n0\ta\tb\tQQ_x\n")
    with pytest.raises(ValueError, match=r"missing.tsv: missing column\(s\)"):
        stel.read_quadruples(missing)
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(b"\tAnchor 1\n0\t\xff\xfe\n")
    with pytest.raises(ValueError, match="bad.tsv is not valid utf-8"):
        stel.read_quadruples(bad)


# --- Bible ---------------------------------------------------------------------------

def test_bible_chapter_and_alignment_on_verse_numbers(mirror, tmp_path, monkeypatch):
    kjv = bible.read_chapter(find(mirror, "keithecarlson/*/*/Data/Bibles/KJV/Genesis/Genesis1.txt"))
    assert len(kjv) == 31 and kjv[1].startswith("In the beginning God created")
    root = tmp_path / "Data" / "Bibles"
    for version, lines in {"AAA": ["1 one a", "2 two a", "3 three a"],
                           "BBB": ["1 one b", "3 three b", "4 four b"]}.items():
        path = root / version / "Ruth" / "Ruth1.txt"
        path.parent.mkdir(parents=True)
        path.write_text("\n".join(lines) + "\n")
    files = {f"https://x/Data/Bibles/{v}/Ruth/Ruth1.txt": root / v / "Ruth" / "Ruth1.txt"
             for v in ("AAA", "BBB")}
    monkeypatch.setattr(bible, "spec_files", lambda spec: files)

    class Spec:
        name = "toy-bible"
        reader_options = {"versions": ("AAA", "BBB")}

    with pytest.warns(DroppedRowsWarning, match="dropped 2 of 4"):
        aligned = bible.read_aligned(Spec())
    assert aligned[["verse", "AAA", "BBB"]].values.tolist() == [
        [1, "one a", "one b"], [3, "three a", "three b"]]


def test_bible_broken_files(tmp_path):
    bad = tmp_path / "Gen1.txt"
    bad.write_text("1 fine\nno number here\n")
    with pytest.raises(ValueError, match="Gen1.txt line 2"):
        bible.read_chapter(bad)
    empty = tmp_path / "Gen2.txt"
    empty.write_text("\n")
    with pytest.raises(ValueError, match="empty chapter"):
        bible.read_chapter(empty)


def test_bible_versions_share_content(mirror):
    spec = BY_NAME["bible-versions"]
    frame = spec.reader(spec, seed=1, smoke=True)
    by_work = frame.groupby("work")["label"].apply(sorted)
    assert (by_work.map(tuple) == ("KJV", "WEB")).all()


# --- ELTeC ---------------------------------------------------------------------------

def test_eltec_novel_and_authors(mirror):
    author, paragraphs = eltec.read_novel(
        find(mirror, "COST-ELTeC/ELTeC-eng/*/level1/ENG18951_Ward.xml"))
    assert eltec.clean_author(author) == "Ward, Humphry, Mrs."
    assert paragraphs[0].startswith("IT was an August evening")
    assert sum(map(n_words, paragraphs)) == pytest.approx(23459, rel=0.05)  # TEI <extent>
    for code, expected in {"eng": "Broughton", "fra": "Adam", "ita": "Aleramo"}.items():
        spec = BY_NAME[f"eltec-{code}-authorship"]
        novels = eltec.select_novels(spec)
        assert len(novels) == 8 and all(len(w) == 2 for w in novels.values())
        assert next(iter(novels)).startswith(expected)
    # the blank TSV author cells (DEU027, DEU058) fall back to the TEI header
    deu = eltec.select_novels(BY_NAME["eltec-deu-authorship"])
    assert {s for works in deu.values() for s, _ in works} >= {"DEU027", "DEU058"}


def test_eltec_broken_files(tmp_path, mirror):
    source = find(mirror, "COST-ELTeC/ELTeC-eng/*/level1/ENG18951_Ward.xml").read_bytes()
    truncated = tmp_path / "truncated.xml"
    truncated.write_bytes(source[: len(source) // 2])
    with pytest.raises(ValueError, match=r"truncated.xml line \d+, column \d+: malformed XML"):
        eltec.read_novel(truncated)
    empty = tmp_path / "empty.xml"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty.xml: empty file"):
        eltec.read_novel(empty)
    nobody = tmp_path / "nobody.xml"
    nobody.write_text('<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader/></TEI>')
    with pytest.raises(ValueError, match="no <text>/<body>"):
        eltec.read_novel(nobody)
    meta = tmp_path / "meta.tsv"
    meta.write_text("filename\ttitle\nX\tY\n")
    with pytest.raises(ValueError, match=r"meta.tsv: missing column\(s\) \['author-name'\]"):
        eltec.read_metadata(meta)


# --- CoNLL-U ---------------------------------------------------------------------------

def test_conllu_documents_and_summaries(mirror):
    doc = conllu.read_document(find(mirror, "UniversalDependencies/UD_English-GUM/*/"
                                            "not-to-release/sources/GUM_academic_art.conllu"))
    assert doc["meta"]["genre"] == "academic"
    assert doc["paragraphs"][0] == ("Aesthetic Appreciation and Spanish Art: "
                                    "Insights from Eye-Tracking")
    writers = [w for w, _ in conllu.summaries(doc, "art")]
    assert writers == ["human", "claude-3-5-sonnet-20241022", None,
                       "Llama-3.2-3B-Instruct", "Qwen2.5-7B-Instruct"]
    email = find(mirror, "UniversalDependencies/UD_English-EWT/*/not-to-release/sources/"
                         "email/*.conllu")
    text = email.read_text()
    n_sent = text.count("# text = ")
    doc = conllu.read_document(email)
    assert sum(len(split_sentences_by_regex(p)) for p in doc["paragraphs"]) >= n_sent * 0.8


def test_conllu_broken_files(tmp_path):
    empty = tmp_path / "empty.conllu"
    empty.write_text("")
    with pytest.raises(ValueError, match="empty.conllu: no '# text =' lines"):
        conllu.read_document(empty)
    bad = tmp_path / "bad.conllu"
    bad.write_text("# text = Hi.\n1\tHi\thi\n2 . . PUNCT\n")
    with pytest.raises(ValueError, match="bad.conllu line 3"):
        conllu.read_document(bad)


# --- NLTK zips -----------------------------------------------------------------------

def test_nltk_corpora(mirror):
    gut = nltk_zip.read_corpus(find(mirror, "nltk/nltk/*/nltk_data/corpora/gutenberg.zip"),
                               "gutenberg")
    assert gut["label"].value_counts().to_dict() == {
        "austen": 3, "chesterton": 3, "shakespeare": 3, "bible": 1, "blake": 1,
        "carroll": 1, "melville": 1, "milton": 1, "whitman": 1}
    emma = gut.loc[gut["work"] == "austen-emma", "paragraphs"].iloc[0]
    assert emma[0] == "VOLUME I"
    brown = nltk_zip.read_corpus(find(mirror, "nltk/nltk_data/*/packages/corpora/brown.zip"),
                                 "brown")
    assert len(brown) == 500 and brown["label"].nunique() == 15
    first = brown.loc[brown["work"] == "ca01", "paragraphs"].iloc[0][0]
    assert first.startswith('The Fulton County Grand Jury said Friday an investigation of '
                            "Atlanta's recent primary election produced \"no evidence\"")
    masc = nltk_zip.read_corpus(
        find(mirror, "nltk/nltk_data/*/packages/corpora/masc_tagged.zip"), "masc_tagged")
    assert masc["label"].nunique() == 20 and not masc["paragraphs"].map(
        lambda ps: any("_NN" in p for p in ps)).any()
    nps = nltk_zip.read_corpus(
        find(mirror, "nltk/nltk_data/*/packages/corpora/nps_chat.zip"), "nps_chat")
    assert nps["label"].value_counts().to_dict() == {
        "40s": 4, "adults": 4, "20s": 3, "teens": 3, "30s": 1}
    posts = [p for ps in nps["paragraphs"] for p in ps]
    assert 7000 < len(posts) < 10567 and not any(re.search(r"User\d|talkcity_", p) for p in posts)


def test_nltk_broken_files(tmp_path, mirror):
    source = find(mirror, "nltk/nltk_data/*/packages/corpora/webtext.zip").read_bytes()
    truncated = tmp_path / "webtext.zip"
    truncated.write_bytes(source[: len(source) // 3])
    with pytest.raises(ValueError, match="webtext.zip: not a readable zip"):
        nltk_zip.Corpus(truncated)
    odd = tmp_path / "odd.zip"
    with zipfile.ZipFile(odd, "w") as z:
        z.writestr("brown/cats.txt", "ca01\n")
        z.writestr("webtext/bad.txt", b"ok \x81 not cp1252")
    with pytest.raises(ValueError, match="line 1: expected '<file> <category>'"):
        nltk_zip.read_corpus(odd, "brown")
    with pytest.raises(ValueError, match="odd.zip:webtext/bad.txt is not valid cp1252"):
        nltk_zip.Corpus(odd).read("webtext/bad.txt")


# --- Federalist ------------------------------------------------------------------------

def test_federalist_papers(mirror):
    papers = federalist.read_papers(BY_NAME["federalist-authorship"])
    assert len(papers) == 85
    assert papers["author_id"].value_counts().to_dict() == {
        "Hamilton": 51, "Madison": 14, "Disputed": 12, "Jay": 5, "Hamilton_Madison": 3}
    assert papers["text"].str.contains("To the People of the State of New York").mean() > 0.9


def test_federalist_broken_files(tmp_path, mirror):
    source = find(mirror, "browndw/cmu.textstat/*/data/federalist_papers.rda").read_bytes()
    truncated = tmp_path / "papers.rda"
    truncated.write_bytes(source[: len(source) // 2])
    with pytest.raises(ValueError, match="papers.rda: not a readable R data file"):
        federalist.read_rda_frame(truncated, "federalist_papers", ("doc_id", "text"))
    meta = find(mirror, "browndw/cmu.textstat/*/data/federalist_meta.rda")
    with pytest.raises(ValueError, match=r"missing column\(s\) \['text'\]"):
        federalist.read_rda_frame(meta, "federalist_meta", ("doc_id", "text"))


# --- politeness, In_Formal --------------------------------------------------------------

def test_politeness_and_informal(mirror):
    wiki = politeness.read_requests(find(mirror, "sudhof/politeness/*/corpora/"
                                                 "wikipedia.annotated.csv"))
    assert len(wiki) == 4353 and (wiki["source"] == "wikipedia").all()
    assert abs(wiki["score"].mean()) < 1e-6  # z-scored within the corpus
    sent = informal.read_sentences(find(mirror, "ee-2/in_formal_sentences/*/"
                                                "in_formal_sentences.tsv"))
    assert len(sent) == 3000 and sent["domain"].value_counts().eq(250).all()
    assert sent["score"].between(-1, 1).all()
    level = BY_NAME["informal-formality"]
    frame = level.reader(level, seed=3, smoke=False)
    means = frame.assign(s=frame["text"].map(sent.set_index("text")["score"].to_dict())) \
        .groupby("label")["s"].mean()
    assert means.is_monotonic_increasing and list(means.index) == list(informal.LEVELS)


def test_politeness_and_informal_broken_files(tmp_path):
    missing = tmp_path / "p.csv"
    missing.write_text("Community,Id,Request\nWikipedia,1,Hi?\n")
    with pytest.raises(ValueError, match=r"p.csv: missing column\(s\) \['Normalized Score'\]"):
        politeness.read_requests(missing)
    nan = tmp_path / "q.csv"
    nan.write_text("Community,Request,Normalized Score\nW,Hi?,0.1\nW,Ho?,oops\n")
    with pytest.raises(ValueError, match="q.csv line 3"):
        politeness.read_requests(nan)
    bad = tmp_path / "f.tsv"
    bad.write_text("id\tscore\ttext\nnews_1\t0.5\tGut.\nnews2\t0.1\tSchlecht.\n")
    with pytest.raises(ValueError, match="f.tsv line 3"):
        informal.read_sentences(bad)
    empty = tmp_path / "e.tsv"
    empty.write_text(" \n")
    with pytest.raises(ValueError, match="e.tsv: empty file"):
        informal.read_sentences(empty)


# --- machine-generated text -------------------------------------------------------------

def test_fastdetect_prefix_is_removed_from_both_sides(mirror):
    path = find(mirror, "baoguangsheng/fast-detect-gpt/*/exp_main/data/xsum_gpt2-xl.raw_data.json")
    originals, sampled = detection.read_fastdetect(path)
    assert len(originals) == len(sampled) == 500
    spec = BY_NAME["fastdetectgpt-xsum"]
    with pytest.warns(DroppedRowsWarning, match="shared prefix"):
        frame = spec.reader(spec, seed=0, smoke=False)
    assert set(frame["label"]) == {"human", "gpt2-xl", "opt-2.7b", "gpt-neo-2.7B", "gpt-j-6B",
                                   "gpt-neox-20b", "davinci", "gpt-3.5-turbo", "gpt-4"}
    for human, machine in list(zip(originals, sampled, strict=True))[:50]:
        h, m = detection.strip_shared_prefix(human, machine)
        prefix = " ".join(human.split()[:5])
        assert prefix == " ".join(machine.split()[:5])  # the data share a prefix
        assert not h.startswith(prefix) and not m.startswith(prefix)
        if h and m:
            assert h.split()[0] != m.split()[0] or h.split()[:3] != m.split()[:3]


def test_language_detection_matches_the_documented_counts(mirror):
    # SOURCES.md: about 97/100 machine texts of the zh file and 48/100 of the ru file
    # are English; the human sides are in the file's language.
    for stem, lang, machine_range in (("qazh", "zh", (0, 8)), ("russian", "ru", (40, 60))):
        rows = detection.read_jsonl(find(mirror, f"mbzuai-nlp/M4/*/data/test_{stem}_llama2.jsonl"),
                                    ("human_text", "machine_text"))
        human = sum(detection.detect_language(r["human_text"]) == lang for r in rows)
        machine = [detection.detect_language(r["machine_text"]) for r in rows]
        assert human >= 95
        assert machine_range[0] <= machine.count(lang) <= machine_range[1]
        assert machine.count("en") >= 100 - machine_range[1] - 3


def test_detection_broken_files(tmp_path):
    truncated = tmp_path / "x.raw_data.json"
    truncated.write_text(json.dumps({"original": ["a b c"], "sampled": ["a b d"]})[:-5])
    with pytest.raises(ValueError, match=r"x.raw_data.json line 1: invalid JSON"):
        detection.read_fastdetect(truncated)
    uneven = tmp_path / "u.raw_data.json"
    uneven.write_text(json.dumps({"original": ["a"], "sampled": []}))
    with pytest.raises(ValueError, match="differ in length"):
        detection.read_fastdetect(uneven)
    jsonl = tmp_path / "m.jsonl"
    jsonl.write_text('{"human_text": "x", "machine_text": "y", "model": "m"}\n{"human_text": 1}\n')
    with pytest.raises(ValueError, match=r"m.jsonl line 2: missing field\(s\)"):
        detection.read_jsonl(jsonl, ("human_text", "machine_text", "model"))


# --- parallel corpora -------------------------------------------------------------------

def test_asset_and_shakespeare(mirror):
    spec = BY_NAME["asset-simplification"]
    frame = spec.reader(spec, seed=0, smoke=True)
    orig = parallel.read_lines(find(mirror, "facebookresearch/asset/*/dataset/asset.test.orig"))
    assert len(orig) == 359
    originals = frame[frame["position"] == 1]
    lines = originals["work"].str.removeprefix("line").astype(int) - 1
    assert [orig[i] for i in lines] == originals["text"].tolist()
    spec = BY_NAME["shakespeare-modern"]
    with pytest.warns(DroppedRowsWarning, match="dropped"):
        frame = spec.reader(spec, seed=0, smoke=True)
    wide = frame.pivot(index="group", columns="position", values="text")
    assert (wide[0].str.casefold() != wide[1].str.casefold()).all()


def test_parallel_broken_files(tmp_path):
    a, b = tmp_path / "a.orig", tmp_path / "a.simp"
    a.write_text("one\ntwo\n")
    b.write_text("one\n")
    with pytest.raises(ValueError, match="differ in length"):
        parallel.read_aligned({"orig": a, "simp": b})
    b.write_text("")
    with pytest.raises(ValueError, match="a.simp: empty file"):
        parallel.read_lines(b)


def test_stel_records_feed_the_stel_task(mirror):
    """A feature that encodes the characteristic solves STEL; a constant does not."""
    from stebkit.tasks import stel as stel_task

    spec = BY_NAME["stel-contraction"]
    table = stel.quadruples(spec.reader(spec, seed=42, smoke=True))

    def embed(texts):
        counts = np.array([t.count("'") + t.count("\u2019") for t in texts], dtype=np.float32)
        return np.stack([counts, np.ones_like(counts)], axis=1)

    args = [embed(table[c]) for c in ("anchor1", "anchor2", "alt1", "alt2")]
    assert stel_task(*args, table["correct"].to_numpy())["accuracy"] > 0.9
    flat = [np.ones((len(table), 2), dtype=np.float32)] * 4
    assert stel_task(*flat, table["correct"].to_numpy())["accuracy"] == 0.5
