"""Content-controlled training data: style rules, parallel sources, triplets, split."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from stebkit.train.content import (
    CONTENT_SOURCES,
    TripletSampler,
    load_content_units,
    read_parallel_lines,
)
from stebkit.train.rules import RULES, rule_variants

# Each rule on a fixture, and the only change it may make.
RULE_CASES = {
    "contractions": ("I do not think that it is far, and we are late.",
                     "I don't think that it's far, and we're late."),
    "number_spelling": ("Twenty-one men rode three hundred miles in five days.",
                        "21 men rode 300 miles in 5 days."),
    "number_substitution": ("Wait for me before the great hall tonight.",
                            "W8 4 me b4 the gr8 hall 2nite."),
    "exclamation": ("We are here at last.", "We are here at last!!!"),
    "capitals": ("We are here at last.", "WE ARE HERE AT LAST."),
    "emoticons": ("We are here at last.", "We are here at last. :-)"),
    "emoji": ("We are here at last.", "We are here at last. 😊"),
    "british_spelling": ("The color of the theater was gray.",
                         "The colour of the theatre was grey."),
    "archaic_pronouns": ("Are you sure that you have your sword?",
                         "Art thou sure that thou hast thy sword?"),
    "sentence_join": ("The night was cold. The men slept by the fire. Morning came.",
                      "The night was cold; the men slept by the fire. Morning came."),
    "sentence_split": ("The night was very cold and dark, and the men slept by the fire.",
                       "The night was very cold and dark. And the men slept by the fire."),
    "informal_function_words": ("I am going to see them because I want to know.",
                                "I am gonna see them 'cause I wanna know."),
}


def test_every_rule_has_a_fixture():
    assert set(RULE_CASES) == set(RULES)


@pytest.mark.parametrize("name", sorted(RULE_CASES))
def test_rule_changes_its_feature_and_nothing_else(name):
    before, after = RULE_CASES[name]
    assert RULES[name](before) == after
    assert RULES[name](before) == RULES[name](before, seed=42)  # deterministic


@pytest.mark.parametrize("name", ["contractions", "number_spelling", "british_spelling",
                                  "sentence_join", "informal_function_words"])
def test_rule_leaves_a_text_without_its_feature_unchanged(name):
    text = "Birds sing."
    assert RULES[name](text) == text


def test_name_after_a_sentence_is_not_lower_cased_by_joining():
    assert RULES["sentence_join"]("He left. London slept.") == "He left; London slept."


def test_unchanged_texts_are_counted_never_paired():
    frame, unchanged = rule_variants(["It is late.", "Birds sing.", "We are here."],
                                     rules=["contractions", "british_spelling"])
    assert unchanged == {"contractions": 1, "british_spelling": 3}
    assert frame["content"].tolist() == ["rule:0", "rule:0", "rule:2", "rule:2"]
    assert not frame.duplicated(["content", "text"]).any()
    with pytest.raises(ValueError, match="unknown rule"):
        rule_variants(["x"], rules=["no_such_rule"])


def test_unaligned_parallel_files_are_refused(tmp_path):
    (tmp_path / "orig").write_text("a\nb\nc\n")
    (tmp_path / "simp").write_text("a\nb\n")
    with pytest.raises(ValueError, match="orig has 3 lines, simp has 2 lines"):
        read_parallel_lines([tmp_path / "orig", tmp_path / "simp"])


def _toy_units() -> pd.DataFrame:
    rows = []
    for c in range(4):
        for s in ("x", "y", "z"):
            rows.append((f"text {c} {s}", f"c{c}", s, "toy"))
    rows.append(("lonely", "c9", "x", "other"))  # no second style: never an anchor
    return pd.DataFrame(rows, columns=["text", "content", "style", "source"])


def test_triplets_hold_content_or_style_fixed_and_are_deterministic():
    units = _toy_units()
    sampler = TripletSampler(units, batch_size=16, seed=3)
    for step in range(5):
        a, p, n = sampler.batch(step)
        assert (units["style"].values[a] == units["style"].values[p]).all()
        assert (units["content"].values[a] != units["content"].values[p]).all()
        assert (units["content"].values[a] == units["content"].values[n]).all()
        assert (units["style"].values[a] != units["style"].values[n]).all()
        assert "lonely" not in set(units["text"].values[a])
    again = TripletSampler(units, batch_size=16, seed=3)
    assert all((x == y).all() for x, y in zip(sampler.batch(2), again.batch(2), strict=True))
    assert not all((x == y).all() for x, y in zip(sampler.batch(2), sampler.batch(3), strict=True))


def test_training_refuses_identical_texts_within_a_content():
    from stebkit.train import TrainConfig, train_style_encoder

    units = _toy_units()
    units.loc[1, "text"] = units.loc[0, "text"]
    passages = pd.DataFrame({"text": [f"Text {i} by {a}." for a in "ab" for i in range(4)],
                             "author": list("aaaabbbb"), "work": list("12123434")})
    with pytest.raises(ValueError, match="repeat a text within their content"):
        train_style_encoder(TrainConfig(steps=1, batch_size=2, hard_negatives=0,
                                        content_pairs=2), passages=passages,
                            content_units=units, save=False, show_progress=False)


# -- the real sources ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def units(mirror):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame, report = load_content_units()
    return frame, report


def test_content_units_come_from_every_declared_source(units):
    frame, report = units
    assert set(frame["source"]) == set(CONTENT_SOURCES)
    assert report.units == frame["source"].value_counts().to_dict()
    bible = frame[frame["source"] == "bible"]
    assert set(bible["style"]) == {"ASV", "BBE", "DARBY", "DRA", "KJV", "WEB", "YLT"}
    books = {re.match(r"bible:([A-Za-z0-9]+?)\d+:", c).group(1) for c in bible["content"]}
    assert books == {"Exodus", "Joshua", "Judges", "Hosea", "Galatians"}
    assert set(frame.loc[frame["source"] == "shakespeare", "style"]) == {"original", "modern"}
    assert set(frame.loc[frame["source"] == "asset", "style"]) == {"original", "simplified"}
    # every content has two or more distinct texts, no content repeats a text
    per_content = frame.groupby("content")["text"].agg(["size", "nunique"])
    assert (per_content["size"] >= 2).all()
    assert not frame.duplicated(["content", "text"]).any()
    # rules that found nothing to change are reported, and produced no pair
    assert set(report.unchanged_by_rule) == set(RULES)
    assert report.unchanged_by_rule["british_spelling"] > 0


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def _shingles(text: str, n: int = 12) -> set[str]:
    words = _norm(text).split()
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}


def test_content_units_are_disjoint_from_the_evaluation_sets(units):
    """No content-controlled training text is in a lite dataset built from the same
    corpora (Bible, ASSET, Shakespeare) or in any STEL set, nor shares a 12-word span."""
    from stebkit.datasets import list_datasets, load_dataset

    frame, _ = units
    train = frame[frame["source"] != "rules"]["text"]
    train_exact = {_norm(t) for t in train}
    train_spans = set().union(*(_shingles(t) for t in train))
    names = [n for n in list_datasets(suite="lite")
             if re.match(r"(bible|asset|shakespeare|stel)-", n)]
    assert len(names) >= 8
    conflicts = []
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            records = load_dataset(name).frame
        texts = records["text"].astype(str)
        exact = sum(_norm(t) in train_exact for t in texts)
        spans = sum(bool(_shingles(t) & train_spans) for t in texts)
        if exact or spans:
            conflicts.append(f"{name}: {exact} identical text(s), {spans} sharing a span")
    assert not conflicts, "content training data overlaps evaluation data:\n" + "\n".join(
        conflicts)


def test_stel_sentences_are_never_rule_inputs(units):
    from stebkit.datasets import list_datasets, load_dataset

    frame, _ = units
    rule_plain = {_norm(t) for t in frame.loc[frame["style"] == "plain", "text"]}
    for name in [n for n in list_datasets(suite="lite") if n.startswith("stel-")]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            texts = load_dataset(name).frame["text"].astype(str)
        assert not rule_plain & {_norm(t) for t in texts}, name


def test_sampler_over_the_real_units_draws_every_source(units):
    frame, _ = units
    sampler = TripletSampler(frame, batch_size=64, seed=42)
    a, p, n = sampler.batch(0)
    assert set(frame["source"].values[a]) == set(CONTENT_SOURCES)
    assert np.all(frame["content"].values[a] == frame["content"].values[n])
