"""Non-neural baselines against independent oracles (scikit-learn, hand counts)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from stebkit.encoders import get_encoder
from stebkit.encoders.baselines import (
    FUNCTION_WORD_LANGUAGES,
    REFERENCE_SHA256,
    REFERENCE_URL,
    TfidfEncoder,
    function_words,
)

CORPUS = ["The cat sat on the mat.", "A dog ran in the park!", "The dog and the cat.",
          "Rain fell on the quiet town."]
TEXTS = ["The cat ran.", "Dogs in the rain, on the mat."]


def _top_ngrams(analyzer: str, rng: tuple[int, int], corpus: list[str], k: int) -> list[str]:
    """The ``k`` most frequent n-grams of ``corpus`` counted by hand, ties in string
    order, returned in string order."""
    import collections

    from sklearn.feature_extraction.text import CountVectorizer

    kw = {"token_pattern": r"(?u)\b\w+\b"} if analyzer == "word" else {}
    analyze = CountVectorizer(analyzer=analyzer, ngram_range=rng, **kw).build_analyzer()
    counts = collections.Counter(g for doc in corpus for g in analyze(doc))
    return sorted(sorted(counts, key=lambda g: (-counts[g], g))[:k])


@pytest.mark.parametrize("analyzer,rng", [("word", (1, 2)), ("char", (3, 5))])
def test_tfidf_matches_sklearn(analyzer, rng):
    from sklearn.feature_extraction.text import TfidfVectorizer

    enc = TfidfEncoder(analyzer, corpus=CORPUS, max_features=30)
    kw = {"token_pattern": r"(?u)\b\w+\b"} if analyzer == "word" else {}
    # the 30 most frequent n-grams, ties at the cut in string order (counted by hand) ...
    vocab = _top_ngrams(analyzer, rng, CORPUS, 30)
    assert enc.vocabulary == [*vocab, "<other>"]
    # ... weighted as scikit-learn weights them with that vocabulary
    oracle = TfidfVectorizer(analyzer=analyzer, ngram_range=rng, vocabulary=vocab, **kw)
    oracle.fit(CORPUS)
    got = enc.encode(TEXTS).astype(np.float64)
    # The vocabulary columns are scikit-learn's TF-IDF direction ...
    inside = got[:, :-1] / np.linalg.norm(got[:, :-1], axis=1, keepdims=True)
    assert np.allclose(inside, oracle.transform(TEXTS).toarray(), atol=1e-6)
    # ... and <other> counts the n-grams outside the vocabulary (weight 1) before the
    # row is L2-normalised.
    analyze = oracle.build_analyzer()
    n_other = np.array([sum(g not in oracle.vocabulary_ for g in analyze(t)) for t in TEXTS])
    unnormalised = oracle.transform(TEXTS).toarray()  # rows of unit norm
    tfidf_norm = [np.linalg.norm(oracle.idf_ * np.array(
        [analyze(t).count(v) for v in oracle.get_feature_names_out()])) for t in TEXTS]
    expected = np.hstack([unnormalised * np.array(tfidf_norm)[:, None], n_other[:, None]])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(got, expected, atol=1e-6)
    with pytest.warns(UserWarning, match="empty"):
        empty = enc.encode([""])[0]
    assert empty[-1] == 1 and not empty[:-1].any()


@pytest.mark.parametrize("analyzer,rng", [("word", (1, 2)), ("char", (3, 5))])
def test_tfidf_without_ties_at_the_cut_is_sklearns_max_features(analyzer, rng):
    from sklearn.feature_extraction.text import TfidfVectorizer

    kw = {"token_pattern": r"(?u)\b\w+\b"} if analyzer == "word" else {}
    counts = TfidfVectorizer(analyzer=analyzer, ngram_range=rng, use_idf=False, norm=None,
                             **kw).fit_transform(CORPUS).sum(axis=0).A1
    k = int((counts > 1).sum())  # every n-gram seen twice or more: no tie at the cut
    oracle = TfidfVectorizer(analyzer=analyzer, ngram_range=rng, max_features=k, **kw)
    oracle.fit(CORPUS)
    enc = TfidfEncoder(analyzer, corpus=CORPUS, max_features=k)
    assert enc.vocabulary == [*oracle.get_feature_names_out(), "<other>"]
    enc.encode(TEXTS)
    assert np.array_equal(enc._idf, oracle.idf_)


def test_tfidf_reference_corpus(mirror):
    from stebkit.sources import fetch, file_sha256

    assert file_sha256(fetch(REFERENCE_URL, REFERENCE_SHA256)) == REFERENCE_SHA256
    from stebkit.encoders.baselines import reference_corpus

    enc = get_encoder("tfidf-word")
    assert enc.revision == "nltk-inaugural@5db857e6f7+other+ties-by-ngram"
    assert enc.embedding_dim == 2001
    assert {"the", "of the", "fellow citizens"} <= set(enc.vocabulary)
    # 186 word n-grams share the frequency at the cut (22 are kept), 11 character ones (9
    # kept): the same ones on every processor, the first in string order
    corpus = reference_corpus()
    assert enc.vocabulary[:-1] == _top_ngrams("word", (1, 2), corpus, 2000)
    assert get_encoder("tfidf-char").vocabulary[:-1] == _top_ngrams("char", (3, 5), corpus, 2000)
    emb = enc.encode(TEXTS)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-5)


def test_tfidf_episodes_are_concatenated_documents():
    enc = TfidfEncoder("word", corpus=CORPUS, max_features=30)
    got = enc.encode_episodes([TEXTS])
    assert np.allclose(got, enc.encode([" ".join(TEXTS)]))


def test_function_words_hand_counts():
    enc = get_encoder("function-words")
    v = enc.encode(["In order to win, the team and the coach worked as well as they could."])[0]
    voc = enc.vocabulary
    n_tokens = 15
    assert v[voc.index("the")] == pytest.approx(2 / n_tokens)
    assert v[voc.index("in order to")] == pytest.approx(1 / n_tokens)
    assert v[voc.index("as well as")] == pytest.approx(1 / n_tokens)
    assert v[voc.index("as")] == pytest.approx(2 / n_tokens)
    assert v[voc.index("could")] == pytest.approx(1 / n_tokens)
    # Not single function words: order, win, team, coach, worked ("order" only occurs in
    # the phrase "in order to", and phrases are not subtracted).
    assert v[voc.index("<other>")] == pytest.approx(5 / n_tokens)
    german = enc.encode(["Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich."])
    assert german[0, -1] > 0.8 and np.linalg.norm(german) > 0


def test_functionwordfreq_is_the_references_vocabulary_and_counts():
    # hand counts: 12 tokens; "the" 2, "a few" 1 (a phrase, its words counted too: "a" 1,
    # "few" 1), "i" 1 ("I" and "i" one item), "according to" 1, "to" 1; no other column
    enc = get_encoder("functionwordfreq")
    voc = enc.vocabulary
    assert len(voc) == 458 and len(set(voc)) == 458 and "<other>" not in voc
    assert sum(" " in v for v in voc) == 69 and voc.index("tons of") == 457
    v = enc.encode(["I saw the dog and a few cats, according to the vet."])[0]
    assert v.dtype == np.float32 and v.shape == (458,)
    for item, count in (("the", 2), ("a few", 1), ("a", 1), ("few", 1), ("i", 1),
                        ("according to", 1), ("to", 1), ("and", 1)):
        assert v[voc.index(item)] == np.float32(count) / np.float32(12)
    assert v.sum() == pytest.approx(9 / 12, abs=1e-6)  # the items above, nothing else
    # text without a function word: the zero vector (the reference's); items that no
    # \b\w+\b token can spell never count
    assert not enc.encode(["Zwölf Boxkämpfer jagen Viktor"]).any()
    assert enc.encode(["and/or i.e. e.g."])[0][voc.index("and/or")] == 0
    # sklearn's CountVectorizer over the same vocabulary is the oracle of every count
    from sklearn.feature_extraction.text import CountVectorizer

    texts = [" ".join(TEXTS), "Once upon a time, in spite of it all, she had better go."]
    counts = CountVectorizer(token_pattern=r"(?u)\b\w+\b", ngram_range=(1, 4),
                             vocabulary=voc).transform(texts).toarray().astype(np.float32)
    import re

    tokens = np.array([[len(re.findall(r"(?u)\b\w+\b", t.lower()))] for t in texts],
                      dtype=np.float32)
    assert np.array_equal(enc.encode(texts), counts / tokens)


def test_functionwordfreq_zero_vectors_are_scored_as_the_reference_scores_them(mirror, tmp_path):
    """Emoticon and leetspeak STEL texts hold no function word: the reference's baseline
    embeds them as the zero vector, which the reference's cosine scores 0 with every
    text; the run computes the task instead of failing on them."""
    import stebkit

    texts = stebkit.load_dataset("stel-emotives", smoke=True).frame["text"].tolist()
    zero = ~get_encoder("functionwordfreq").encode(texts).any(axis=1)
    assert zero.sum() >= 1
    res = stebkit.evaluate("functionwordfreq", "stel-emotives", smoke=True,
                           output_dir=tmp_path, show_progress=False)
    (record,) = res.records
    assert res.ok and record["status"] == "ok"
    assert 0.0 <= record["metrics"]["acc_mean"] <= 1.0


@pytest.mark.parametrize("lang", FUNCTION_WORD_LANGUAGES)
def test_function_word_lists(lang):
    words = function_words(lang)
    assert len(words) > 150 and len(set(words)) == len(words)
    assert all(w == w.lower().strip() for w in words)


def test_function_words_french_elision():
    enc = get_encoder("function-words", language="fr")
    v = enc.encode(["L'homme et la femme."])[0]
    assert v[enc.vocabulary.index("l")] == pytest.approx(1 / 5)
    with pytest.raises(ValueError, match="available: en, de, fr, es, it"):
        get_encoder("function-words", language="xx")


def test_random_is_deterministic_per_text():
    enc = get_encoder("random")
    a = enc.encode(["alpha", "beta", "alpha"])
    assert a.shape == (3, 384) and a.dtype == np.float32
    assert np.array_equal(a[0], a[2]) and not np.array_equal(a[0], a[1])
    assert np.array_equal(enc.encode(["beta"])[0], a[1])
    other_seed = get_encoder("random", seed=7).encode(["alpha"])[0]
    assert not np.array_equal(other_seed, a[0])
    assert abs(float(a.mean())) < 0.2 and 0.8 < float(a.std()) < 1.2


@pytest.mark.skipif(importlib.util.find_spec("stebkit.datasets.features") is None,
                    reason="stebkit.datasets.features not present")
def test_lftk_standardised_features(mirror):
    from stebkit.datasets.features import lftk_features

    enc = get_encoder("lftk-zscore")  # "lftk" is the reference's L2-normalised variant
    texts = ["I came, I saw, I conquered. Then I went home.",
             "Notwithstanding the aforementioned provisions, the agreement remains valid."]
    emb = enc.encode(texts)
    stats = enc._standardiser()
    raw = lftk_features(texts, features="foundation")[enc.columns].to_numpy(float)
    assert emb.shape == (2, len(enc.columns))
    assert np.allclose(emb, (raw - stats["mean"]) / stats["std"], atol=1e-4)
    # the reference's LFTK model: raw features scaled to unit length
    ref = get_encoder("lftk")
    clean = np.nan_to_num(raw)
    assert ref.columns == enc.columns
    assert np.allclose(ref.encode(texts), clean / np.linalg.norm(clean, axis=1,
                                                                 keepdims=True), atol=1e-5)
    # each text's vector is independent of the batch it is encoded with
    assert np.allclose(enc.encode(texts[:1])[0], emb[0], atol=1e-6)
    # compared as the reference compares them: the raw variant by L1, the z-scores by cosine
    assert (ref.scoring, enc.scoring, get_encoder("surface_pos.yaml").scoring) == \
        ("l1", "cosine", "l1")


@pytest.mark.skipif(importlib.util.find_spec("lftk") is None, reason="lftk not installed")
def test_surface_pos_counts_as_the_reference_lftk_model(mirror):
    from stebkit.datasets.features import lftk_features
    from stebkit.encoders.baselines import lftk_surface_pos_keys

    enc = get_encoder("surface_pos.yaml")
    texts = ['He said "Stop!" and ran.', "Hi", "Well, yes: it is (I think) fine!"]
    emb = enc.encode(texts)
    assert enc.columns == lftk_surface_pos_keys() and emb.shape == (3, 58)
    raw = lftk_features(texts, features=enc.columns, sentences="sentencizer", decimals=7,
                        min_tokens=2).to_numpy(float)
    assert raw[0, enc.columns.index("t_sent")] == 2.0  # the sentencizer ends one at "!"
    assert not emb[1].any()  # one token: the zero vector
    unit = raw[[0, 2]] / np.linalg.norm(raw[[0, 2]], axis=1, keepdims=True)
    assert np.allclose(emb[[0, 2]], unit, atol=1e-6)
    assert np.allclose(enc.encode(texts[::-1])[::-1], emb, atol=0)  # not the batch's
