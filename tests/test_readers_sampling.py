"""One reader per source, two samplings: ``sampling="all"`` gives what the STEB catalogue's
reader gave, ``sampling="seeded"`` what the lite suite's reader gave.

Each test writes small files with the source's real layout into a private mirror and
runs both references (the catalogue spec and the lite spec, whose readers pass the
option) on them. The expected records are worked out by hand from the documented rules
(module docstrings of the readers), not by running reader code.
"""

from __future__ import annotations

import dataclasses
import hashlib

import pandas as pd
import pytest
from steb_files import read

from stebkit.datasets import get_spec
from stebkit.datasets.readers import bible, parallel, politeness, stel
from stebkit.datasets.readers.text import DroppedRowsWarning
from stebkit.datasets.spec import Source


def _with_files(spec, *urls, **options):
    """``spec`` reading only ``urls`` (no checksum), with ``options`` merged in."""
    return dataclasses.replace(spec, source=Source(urls=tuple((u, None) for u in urls)),
                               reader_options={**spec.reader_options, **options})


def _rows(records, *columns):
    return records[list(columns)].values.tolist()


def test_an_unknown_sampling_is_an_error_naming_the_dataset_and_the_choices():
    with pytest.raises(ValueError, match=r"dataset 'asset': unknown sampling 'some'; use "
                                         r"one of \('all', 'seeded'\)"):
        parallel.read_asset(get_spec("asset"), sampling="some")


# ------------------------------------------------------------------------------- ASSET

def test_asset_all_and_seeded(built):
    urls = {u.rsplit("/", 1)[1]: u for u in parallel.ASSET_URLS}
    origs = {"valid": ["First original.", "Second original."],
             "test": ["Third  original. ", "Fourth original."]}
    for split, lines in origs.items():
        built.put(urls[f"asset.{split}.orig"], "".join(f"{t}\n" for t in lines))
        for k in range(10):  # simplification k of line i reads "<split> s<k> of <i>"
            built.put(urls[f"asset.{split}.simp.{k}"],
                      "".join(f"{split} s{k} of {i}\n" for i in range(len(lines))))

    def chosen(split, i, original):  # the documented rule: sha256(original) mod 10
        return f"{split} s{int(hashlib.sha256(original.encode()).hexdigest(), 16) % 10} of {i}"

    everything, dropped = read("asset")
    expected = [(chosen(s, i, o.strip()), o.strip()) for s in ("valid", "test")
                for i, o in enumerate(origs[s])]
    assert _rows(everything, "text", "label", "position") == [
        [t, "simple", p] for pair in expected for p, t in enumerate(pair)]
    assert everything["group"].tolist() == [f"g{g:06d}" for g in range(4) for _ in (0, 1)]
    assert dropped == []

    # the lite reading: the test split only, normalised lines; all ten simplifications of
    # a line read the same here, so the seeded draw of one cannot change the records
    for k in range(10):
        built.put(urls[f"asset.test.simp.{k}"], "simple third\nsimple fourth\n")
    lite = get_spec("asset-simplification")
    lite = _with_files(lite, *(u for u, _ in lite.source.urls))
    seeded = lite.reader(lite, seed=42, smoke=False)
    assert _rows(seeded, "text", "position", "work") == [
        ["simple third", 0, "line1"], ["Third original.", 1, "line1"],
        ["simple fourth", 0, "line2"], ["Fourth original.", 1, "line2"]]
    assert set(seeded["label"]) == {lite.label}


# ------------------------------------------------------------------------- Shakespeare

def test_shakespeare_all_and_seeded(built):
    original_url, modern_url = parallel.SHAKESPEARE_URLS[:2]
    built.put(original_url, "Thou art  a villain.\r\nGood morrow.\n\nWhat say you?\n")
    built.put(modern_url, "You are a villain.\ngood  MORROW.\nHello\nWhat do you say?\n")
    catalogue = _with_files(get_spec("parallel_shakespeare"), original_url, modern_url)
    with pytest.warns(DroppedRowsWarning, match=r"dropped 2 of 4 items \(line pairs with an empty "
                      r"side or no change beyond case and spacing\)") as seen:
        everything = catalogue.reader(catalogue, seed=42, smoke=False)
    assert seen[0].filename == __file__  # the caller's line, not the reader's
    assert _rows(everything, "text", "label", "group", "position") == [
        ["Thou art  a villain.", "shakespeare", "g000000", 0],
        ["You are a villain.", "shakespeare", "g000000", 1],
        ["What say you?", "shakespeare", "g000001", 0],
        ["What do you say?", "shakespeare", "g000001", 1]]

    lite = get_spec("shakespeare-modern")
    lite_urls = [u for u, _ in lite.source.urls]
    kept = ("Thou art a  villain and a knave, sirrah, begone!",
            "You are a villain and a rascal, sir, go away!")
    lines = [kept,
             ("Good morrow to you all, my good friends here.",  # identical: dropped
              "good morrow to you all, my good friends  here."),
             ("Short line.", "A short line.")]  # under 8 words: dropped
    for url in lite_urls:
        side = 0 if url.endswith(".original") else 1
        built.put(url, "".join(f"{pair[side]}\n" for pair in lines))
    lite = _with_files(lite, *lite_urls)
    seeded = lite.reader(lite, seed=42, smoke=False)
    assert _rows(seeded, "text", "group", "position", "work") == [
        ["Thou art a villain and a knave, sirrah, begone!", "g0000", 0, "line1"],
        ["You are a villain and a rascal, sir, go away!", "g0000", 1, "line1"]]


# -------------------------------------------------------------------------------- STEL

_STEL_TSV = (
    "\tAnchor 1\tAnchor 2\tAlternative 1.1\tAlternative 1.2\tCorrect Alternative\tID"
    "\tstyle type\n"
    "0\tit's late\tit is late\twe are here\twe're here\t2"
    "\tQQ_contraction-1-wiki-1_wiki-2-contraction-2--1\tcontraction\n"
    "1\tit's late\tit is late\tthey're out\tthey are out\t1"
    "\tQQ_contraction-1-wiki-1_contraction-3-wiki-3--2\tcontraction\n")


def test_stel_all_and_seeded(built):
    url = next(u for u in stel.STEL_URLS if u.endswith("char_contraction.tsv"))
    built.put(url, _STEL_TSV)
    catalogue = _with_files(get_spec("stel_feature"), url)
    with pytest.warns(DroppedRowsWarning, match=r"dropped 1 of 4 items \(pairs already seen"):
        everything = catalogue.reader(catalogue, seed=42, smoke=False)
    # [with the contraction, without]; the second row's anchors repeat the first's
    assert _rows(everything, "text", "group", "position") == [
        ["it's late", "g000000", 0], ["it is late", "g000000", 1],
        ["we're here", "g000001", 0], ["we are here", "g000001", 1],
        ["they're out", "g000002", 0], ["they are out", "g000002", 1]]
    assert set(everything["label"]) == {"contraction"}

    lite = _with_files(get_spec("stel-contraction"), url)
    seeded = lite.reader(lite, seed=42, smoke=False)  # 50 quadruples asked: both kept
    first, second = "QQ_contraction-1-wiki-1_wiki-2-contraction-2--1", \
        "QQ_contraction-1-wiki-1_contraction-3-wiki-3--2"
    assert _rows(seeded, "text", "label", "group", "position", "slot", "correct",
                 "repeat") == [
        ["it's late", "contraction", f"{first}/anchor", 0, "anchor1", 2, False],
        ["it is late", "contraction", f"{first}/anchor", 1, "anchor2", 2, False],
        ["we're here", "contraction", f"{first}/alternative", 0, "alt2", 2, False],
        ["we are here", "contraction", f"{first}/alternative", 1, "alt1", 2, False],
        ["it's late", "contraction", f"{second}/anchor", 0, "anchor1", 1, True],
        ["it is late", "contraction", f"{second}/anchor", 1, "anchor2", 1, True],
        ["they're out", "contraction", f"{second}/alternative", 0, "alt1", 1, False],
        ["they are out", "contraction", f"{second}/alternative", 1, "alt2", 1, False]]


# ------------------------------------------------------------------------------- Bible

def test_bible_all_and_seeded(built):
    words = " ".join(["word"] * 27)  # each verse: 30 words
    urls = {v: next(u for u in bible.bible_urls([v]) if u.endswith("/Genesis/Genesis1.txt"))
            for v in ("KJV", "WEB")}
    for version, url in urls.items():
        built.put(url, f"1 {version} verse  one {words}\n"
                       f"2 Both verse two {words}\n3 Both verse three {words}\n")
    catalogue = _with_files(get_spec("bible_versions"), *urls.values(),
                            versions=["KJV", "WEB"])
    with pytest.warns(DroppedRowsWarning, match=r"dropped 2 of 3 items \(verses where two "
                                         r"translations read the same\)"):
        everything = catalogue.reader(catalogue, seed=42, smoke=False)
    assert _rows(everything, "text", "label") == [
        [f"KJV verse  one {words}", "KJV"], [f"WEB verse  one {words}", "WEB"]]

    lite = _with_files(get_spec("bible-versions"), *urls.values(), versions=["KJV", "WEB"])
    seeded = lite.reader(lite, seed=42, smoke=False)
    # verses 1-2 make one 60-word span (verse 3 alone is too short), cut from each version
    assert _rows(seeded, "text", "label", "work") == [
        [f"KJV verse one {words} Both verse two {words}", "KJV", "Genesis 1:1-2"],
        [f"WEB verse one {words} Both verse two {words}", "WEB", "Genesis 1:1-2"]]


# -------------------------------------------------------------------------- politeness

def _requests(site, scores):
    rows = [{"Community": site, "Id": i, "Request": f"Could you  help {site} {i}? ",
             "Normalized Score": s} for i, s in enumerate(scores)]
    return pd.DataFrame(rows).to_csv(index=False)


def test_politeness_all_and_seeded(built):
    wiki, stack = politeness.POLITENESS_URLS["wikipedia"], \
        politeness.POLITENESS_URLS["stack-exchange"]
    built.put(wiki, _requests("wikipedia", [0.0, 2.0, -2.0, 1.0, -1.0]))
    built.put(stack, _requests("stackexchange", [0.5]))
    everything, _ = read("wikipedia_politeness")
    # quartiles of (-2, -1, 0, 1, 2): -1 and 1; at or above 1 polite, at or below -1 impolite
    assert _rows(everything, "text", "label") == [
        ["Could you  help wikipedia 0? ", "neutral"], ["Could you  help wikipedia 1? ", "polite"],
        ["Could you  help wikipedia 2? ", "impolite"], ["Could you  help wikipedia 3? ", "polite"],
        ["Could you  help wikipedia 4? ", "impolite"]]

    lite = get_spec("politeness-community")
    seeded = lite.reader(_with_files(lite, stack, wiki), seed=42, smoke=False)
    # 20 per community asked: every request, communities in sorted order, normalised
    assert _rows(seeded, "text", "label") == [
        ["Could you help stackexchange 0?", "stackexchange"],
        *([f"Could you help wikipedia {i}?", "wikipedia"] for i in range(5))]
