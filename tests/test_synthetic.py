"""The synthetic suite: hand-checked transformations, determinism, records schema."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from stebkit.datasets import synthetic as syn
from stebkit.datasets.registry import validate_records
from stebkit.datasets.spec import CATEGORIES
from stebkit.tasks import FAMILIES


def run(name: str, text: str, language: str = "en", seed: int = 0) -> str:
    return syn.TRANSFORMS[name](text, rng=random.Random(seed), language=language)


@pytest.mark.parametrize(("name", "language", "text", "expected"), [
    ("uppercase", "de", "Der Fluss ist ruhig.", "DER FLUSS IST RUHIG."),
    ("lowercase", "fr", "Le Musée du Louvre.", "le musée du louvre."),
    ("exclamation", "en", "We won.", "We won!!!"),
    ("exclamation", "es", "¿Vienes mañana?", "¿Vienes mañana?!!"),
    ("no_punctuation", "fr", "L'été, c'est bien !", "L'été c'est bien"),
    ("no_punctuation", "es", "¿Qué tal? Bien, gracias.", "Qué tal Bien gracias"),
    ("no_punctuation", "en", "A well-known place, isn't it?", "A well-known place isn't it"),
    ("leetspeak", "it", "Buona idea", "Bu0n4 1d34"),
    ("contractions", "en", "It is late and I do not know what is wrong.",
     "It's late and I don't know what's wrong."),
    ("abbreviations", "en", "Thanks, see you tomorrow before noon.", "thx, cu tmrw b4 noon."),
    ("abbreviations", "de", "Vielleicht am Wochenende, zum Beispiel.", "vllt am WE, z.B.."),
    ("abbreviations", "fr", "Je ne sais pas pourquoi.", "jsp pq."),
    ("abbreviations", "es", "¿Por qué no? Gracias.", "¿xq no? grax."),
    ("abbreviations", "it", "Non so perché.", "nn so xké."),
    ("british_spelling", "en",
     "My favorite color is gray; the theaters organized a laboratory tour.",
     "My favourite colour is grey; the theatres organised a laboratory tour."),
    ("archaic", "en", "You are right, and your plan has merit. I will call you before noon.",
     "Thou art right, and thy plan hath merit. I will call thee ere noon."),
    ("archaic", "en", "It is late. Do you know your aunt?",
     "'Tis late. Dost thou know thine aunt?"),
    ("formal_address", "de", "Hast du deinen Schlüssel? Ich rufe dich an.",
     "Haben Sie Ihren Schlüssel? Ich rufe Sie an."),
    ("formal_address", "fr", "Je t'envoie ton livre. Peux-tu venir ?",
     "Je vous envoie votre livre. Pouvez-vous venir ?"),
    ("formal_address", "es", "¿Tienes tu billete? Te llamo luego.",
     "¿Tiene su billete? Le llamo luego."),
    ("formal_address", "it", "Hai il tuo biglietto? Ti scrivo domani.",
     "Ha il Suo biglietto? Le scrivo domani."),
])
def test_transform_hand_checked(name: str, language: str, text: str, expected: str) -> None:
    assert run(name, text, language) == expected


@pytest.mark.parametrize("language", ["de", "fr", "es", "it"])
def test_formal_address_matches_the_hand_written_forms_of_the_pool(language: str) -> None:
    # Oracle: each pool line carries its informal and formal wording, written by hand.
    slots = 0
    for template in syn._templates(language):
        informal = syn._render(template)
        formal = syn._render(template, formal=True)
        slots += informal != formal
        assert run("formal_address", informal, language) == formal, template
    assert slots >= 17  # enough sets for the order-alignment datasets


def levenshtein_within_one(a: str, b: str) -> bool:
    """One insertion, deletion or adjacent swap turns ``a`` into ``b``."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] \
            and a[diff[1]] == b[diff[0]]
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


@pytest.mark.parametrize("seed", range(8))
def test_typos_edit_some_long_words_by_one_step(seed: int) -> None:
    text = "The children cannot wait for the first snow of the winter season."
    out = run("typos", text, seed=seed)
    before, after = text.split(), out.split()
    assert len(before) == len(after)
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert 1 <= len(changed) <= 3
    for a, b in changed:
        assert len(a.strip(".")) >= 4 and levenshtein_within_one(a, b), (a, b)


def test_decorations_append_from_their_inventory() -> None:
    for seed in range(6):
        out = run("emoji", "See you.", seed=seed)
        assert out.startswith("See you. ") and 1 <= len(out) - len("See you. ") <= 2
        assert all(ch in syn._EMOJI for ch in out[len("See you. "):])
        out = run("emoticons", "See you.", seed=seed)
        assert out[len("See you. "):] in syn._EMOTICONS


def test_registry_languages_and_canonical_apply() -> None:
    assert set(syn.TRANSFORMS["formal_address"].languages) == {"de", "fr", "es", "it"}
    assert syn.TRANSFORMS["archaic"].languages == ("en",)
    assert syn.apply("I do not think it is far.", ["contractions", "uppercase"],
                     language="en") == "I DON'T THINK IT'S FAR."
    with pytest.raises(ValueError, match="does not apply to language 'fr'"):
        syn.apply("Bonjour.", ["archaic"], language="fr")
    with pytest.raises(ValueError, match="unknown transformation 'sarcasm'"):
        syn.apply("Hi.", ["sarcasm"])
    with pytest.raises(TypeError, match="list of names"):
        syn.apply("Hi.", "uppercase")
    with pytest.raises(ValueError, match="language='xx'"):
        syn.pool_sentences("xx")


def test_pools_are_plain_and_large_enough() -> None:
    for language in syn.LANGUAGES:
        pool = syn.pool_sentences(language)
        assert 60 <= len(pool) <= 100 and len(set(pool)) == len(pool)
        assert not any("{" in s or "|" in s for s in pool)


def test_generation_is_deterministic_and_seeded() -> None:
    a = syn.make_authors(6, language="fr", seed=7)
    pd.testing.assert_frame_equal(a, syn.make_authors(6, language="fr", seed=7))
    assert not a.equals(syn.make_authors(6, language="fr", seed=8))
    o = syn.order_records("en", seed=3)
    pd.testing.assert_frame_equal(o, syn.order_records("en", seed=3))
    assert syn.apply("Typing is hard work.", ["typos", "emoji"], seed=5) == \
        syn.apply("Typing is hard work.", ["typos", "emoji"], seed=5)


def test_authors_have_disjoint_content_and_one_style_each() -> None:
    for language in syn.LANGUAGES:
        df = syn.make_authors(6, language=language, seed=42)
        assert df["source"].is_unique  # no sentence is given to two authors
        assert (df.groupby("label")["style"].nunique() == 1).all()
        styles = df.groupby("label")["style"].first()
        assert styles.is_unique
        assert all(2 <= len(s.split("+")) <= 4 for s in styles)
        sides = df.groupby(["label", "side"]).size().unstack()
        assert (sides["query"] >= 4).all() and (sides["target"] >= 4).all()
    with pytest.raises(ValueError, match="texts_per_author"):
        syn.make_authors(6, language="en", texts_per_author=50)


def test_order_records_groups_and_distractors() -> None:
    df = syn.order_records("de", seed=42)
    plain = df[~df["distractor"]]
    for group, rows in plain.groupby("group"):
        assert sorted(rows["position"]) == [0, 1]
        top = rows.set_index("position")
        assert top.at[0, "text"] != top.at[1, "text"]
        assert run(top.at[0, "label"], top.at[1, "source"], "de", seed=1) != top.at[1, "source"]
        distractor = df[df["distractor"] & (df["group"] == group)]
        assert len(distractor) == 1 and distractor["position"].iat[0] == 0
        assert distractor["source"].iat[0] != top.at[1, "source"]
    assert set(df["label"]) == {n for n, t in syn.TRANSFORMS.items() if "de" in t.languages}
    assert (plain.groupby("label")["group"].nunique() == 16).all()


def test_specs_cover_five_languages_and_all_author_tasks() -> None:
    assert len({s.language for s in syn.SPECS}) >= 5
    served = {t for s in syn.SPECS for t in s.tasks}
    assert {"clustering", "all_to_all_pairs", "retrieval", "predefined_pairs",
            "order_alignment"} <= served <= set(FAMILIES.steb())
    for spec in syn.SPECS:
        assert spec.offline and "synthetic" in spec.suites and spec.category in CATEGORIES
        assert spec.license.name == "Apache-2.0" and spec.source.note.startswith("generated")


@pytest.mark.parametrize("smoke", [False, True])
def test_readers_give_valid_records(smoke: bool) -> None:
    for spec in syn.SPECS:
        if spec.language not in ("en", "it") and not smoke:
            continue
        assert spec.status == "generated in code"  # what `stebkit datasets` shows
        records = spec.reader(spec, seed=42, smoke=smoke)
        clean = validate_records(records, spec)
        assert len(clean) == len(records)
        if spec.serves("clustering"):
            cfg = spec.tasks["clustering"]
            need = max(cfg.episode_sizes) * cfg.episodes_per_label
            assert (records.groupby("label").size() >= need).all()
            assert records["label"].nunique() == (3 if smoke else 6)
        if spec.serves("predefined_pairs"):
            for _, pair in records.groupby("pair"):
                assert len(pair) == 2
                assert pair["same"].iat[0] == (pair["label"].nunique() == 1)
            assert records["same"].any() and (~records["same"]).any()
        if spec.serves("order_alignment"):
            cfg = spec.tasks["order_alignment"]
            sets = records[~records["distractor"]].groupby("label")["group"].nunique()
            assert (sets >= cfg.episodes_per_label).all()
