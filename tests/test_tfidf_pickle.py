"""The reference's pickled TF-IDF baselines: restricted unpickling and the encoder."""

from __future__ import annotations

import hashlib
import os
import pickle
import re

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer

from stebkit.encoders.tfidf_pickle import (
    REFERENCE_PICKLES,
    PickledTfidfEncoder,
    UnsafePickle,
    load_vectorizers,
    representations,
)

CORPUS = ["The cat sat on the mat.", "A dog ran in the park!", "Cats and dogs, they said.",
          "We went home early; it rained."]


def _bundle() -> dict:
    """Three fitted vectorizers, set up like the reference's (char, token, POS views)."""
    char, tok, pos = representations(CORPUS)
    out = {}
    for key, analyzer, rng, docs in (("char_vec", "char", (3, 5), char),
                                     ("tok_vec", "word", (1, 2), tok),
                                     ("pos_vec", "word", (1, 2), pos)):
        out[key] = TfidfVectorizer(analyzer=analyzer, ngram_range=rng, lowercase=True,
                                   norm="l2", max_features=50).fit(docs)
    return out


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def bundle_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("vec") / "bundle.pkl"
    path.write_bytes(pickle.dumps(_bundle()))
    return path


@pytest.fixture
def published(bundle_file, monkeypatch):
    """The test's bundle pinned as if it were the published mud_subset 1-2grams file."""
    from stebkit.encoders import tfidf_pickle

    name = "tfidfngrams_mud_subset_1-2grams.pkl"
    pins = dict(tfidf_pickle.REFERENCE_PICKLES)
    pins[name] = tfidf_pickle.ReferencePickle(pins[name].commit, _sha(bundle_file))
    monkeypatch.setattr(tfidf_pickle, "REFERENCE_PICKLES", pins)
    return name


@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
def test_a_vectorizer_bundle_loads_and_matches_plain_pickle(tmp_path, protocol) -> None:
    path = tmp_path / "b.pkl"
    bundle = _bundle()
    path.write_bytes(pickle.dumps(bundle, protocol=protocol))
    loaded = load_vectorizers(path, sha256=_sha(path))
    for key, vec in bundle.items():
        assert loaded[key].vocabulary_ == vec.vocabulary_
        np.testing.assert_array_equal(loaded[key].idf_, vec.idf_)


def test_the_encoder_concatenates_the_three_views(bundle_file, published) -> None:
    enc = PickledTfidfEncoder(bundle_file)  # a local copy of a pinned bundle
    assert enc.name == published
    texts = ["The cat ran home.", "Dogs sat in the rain."]
    emb = enc.encode(texts)
    oracle = pickle.loads(bundle_file.read_bytes())  # the test's own file: plain pickle
    char, tok, pos = representations(texts)
    expected = np.hstack([oracle["char_vec"].transform(char).toarray(),
                          oracle["tok_vec"].transform(tok).toarray(),
                          oracle["pos_vec"].transform(pos).toarray()])
    assert emb.dtype == np.float32 and emb.shape == expected.shape == (2, enc.embedding_dim)
    np.testing.assert_allclose(emb, expected, rtol=1e-6)
    assert tok[0] == "the cat ran home ." and pos[0].split()[:2] == ["DET", "NOUN"]
    # an episode is its texts joined by a space, as the reference embeds it
    np.testing.assert_allclose(enc.encode_episodes([texts])[0],
                               enc.encode([" ".join(texts)])[0])


class _Smuggler:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_smuggled_callable_is_refused_and_never_runs(tmp_path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pkl"
    bundle = _bundle()
    bundle["char_vec"].smuggled = _Smuggler(marker)  # hidden inside an allowed object
    path.write_bytes(pickle.dumps(bundle))
    with pytest.raises(UnsafePickle, match=r"evil.pkl: refused to load '(posix|os)\.system'"):
        load_vectorizers(path, sha256=_sha(path))
    assert not marker.exists()


@pytest.mark.parametrize("payload, message", [
    (lambda: {"char_vec": eval}, "refused to load 'builtins.eval'"),
    (lambda: {"char_vec": TfidfVectorizer(tokenizer=str.split,
                                                    token_pattern=None).fit(CORPUS)},
     "refused to load 'builtins.getattr'"),
    (lambda: {"char_vec": 1, "tok_vec": 2, "pos_vec": 3}, "'char_vec' is not a fitted"),
    (lambda: ["not", "a", "bundle"], "expected a dict with"),
])
def test_other_unsafe_or_wrong_pickles(tmp_path, payload, message) -> None:
    path = tmp_path / "x.pkl"
    path.write_bytes(pickle.dumps(payload()))
    with pytest.raises(UnsafePickle, match=message):
        load_vectorizers(path, sha256=_sha(path))


def test_a_truncated_file_is_named(tmp_path, bundle_file) -> None:
    path = tmp_path / "cut.pkl"
    path.write_bytes(bundle_file.read_bytes()[:200])
    with pytest.raises(UnsafePickle, match="cut.pkl: not a readable pickle"):
        load_vectorizers(path, sha256=_sha(path))


def test_the_zoo_entries_fetch_the_reference_files_at_a_pinned_commit(monkeypatch) -> None:
    from stebkit.encoders import get_encoder
    from stebkit.errors import ModelUnavailable

    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    for name, ref in REFERENCE_PICKLES.items():
        enc = get_encoder(name)
        assert isinstance(enc, PickledTfidfEncoder) and enc.commit == ref.commit
        assert enc.revision == f"{ref.commit} (no admitted copy)"  # nothing found offline
    with pytest.raises(ModelUnavailable, match="model file .* is missing: cannot get .*/STEB/"
                                               "aa8f06614faa6a66faa8df489ff612dd71fcca3c/"
                                               "models/tfidfngrams_mud_subset"):
        get_encoder("tfidfngrams_mud_subset_1-2grams.pkl").encode(["hello"])


def test_a_run_without_the_bundle_says_its_model_file_is_missing(tmp_path, monkeypatch,
                                                                 capsys) -> None:
    from stebkit import cli

    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    name = "tfidfngrams_mud_subset_1-2grams.pkl"
    assert cli.main(["run", "--smoke", "--models", name, "--datasets", "synthetic-authors-en",
                     "--tasks", "retrieval", "--output", str(tmp_path / "r"),
                     "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "could not be loaded" not in captured.out + captured.err  # no dataset is at fault
    assert f"ModelUnavailable: model {name}: its model file (the reference's fitted TF-IDF " \
           "bundle) is missing" in captured.err


def _mirror_copy(tmp_path, monkeypatch, name: str, data: bytes):
    """``data`` in a mirror at the pinned URL of ``name`` (and nowhere else)."""
    from stebkit import sources
    from stebkit.encoders.tfidf_pickle import pickle_url

    mirror = tmp_path / "mirror"
    path = mirror / sources.relative_path(pickle_url(name))
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    monkeypatch.setenv("STEBKIT_MIRROR", str(mirror))
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    return path


@pytest.fixture
def no_unpickling(monkeypatch):
    """Any unpickling fails the test: a refused file must be refused before it."""
    from stebkit.encoders import tfidf_pickle

    def refuse(self):
        raise AssertionError(f"{self.where} was unpickled")

    monkeypatch.setattr(tfidf_pickle.RestrictedUnpickler, "load", refuse)


def test_10_a_tampered_bundle_at_the_pinned_url_is_never_loaded(tmp_path, monkeypatch,
                                                                 bundle_file, published,
                                                                 no_unpickling):
    from stebkit.encoders import get_encoder
    from stebkit.errors import ChecksumMismatch

    tampered = _bundle()
    tampered["char_vec"].idf_ = tampered["char_vec"].idf_ * 2  # other numbers, same types
    path = _mirror_copy(tmp_path, monkeypatch, published, pickle.dumps(tampered))
    with pytest.raises(ChecksumMismatch, match=f"mirror file {path} .*expected "
                                               f"{_sha(bundle_file)}"):
        get_encoder(published).encode(["hello"])


def test_10_a_bundle_without_a_recorded_sha256_is_trusted_on_first_use_and_checked(
        tmp_path, monkeypatch, bundle_file):
    from stebkit.encoders import get_encoder

    name = "tfidfngrams_fineweb_sample10bt_1-3grams.pkl"
    assert REFERENCE_PICKLES[name].sha256 is None
    path = _mirror_copy(tmp_path, monkeypatch, name, bundle_file.read_bytes())
    with pytest.warns(UserWarning, match=f"{name}: stebkit records no published sha256 .*"
                                         f"copy of https://.*/{name} \\(file {name}, "
                                         f"sha256 {_sha(bundle_file)}\\)") as seen:
        vectors = get_encoder(name).encode(["hello", "world"])
    assert not [w for w in seen if w.category is UserWarning and str(path.parent) in str(w.message)]
    assert vectors.shape[0] == 2 and np.isfinite(vectors).all()
    # a planted token pattern is refused before it matches anything
    bundle = _bundle()
    bundle["tok_vec"].token_pattern = r"(\w+)+#"
    path = _mirror_copy(tmp_path / "other", monkeypatch, name, pickle.dumps(bundle))
    with pytest.warns(UserWarning), pytest.raises(
            UnsafePickle, match=f"{path}: 'tok_vec' is not a vectorizer of the reference's "
                                "bundles: token_pattern"):
        get_encoder(name).encode(["a" * 40])


def test_08_a_local_bundle_that_is_not_a_published_one_is_never_unpickled(tmp_path,
                                                                          published,
                                                                          no_unpickling):
    bundle = _bundle()
    bundle["tok_vec"].token_pattern = r"(\w+)+#"  # catastrophic backtracking on any word
    path = tmp_path / "slow.pkl"
    path.write_bytes(pickle.dumps(bundle))
    with pytest.raises(UnsafePickle, match=f"{path}: sha256 {_sha(path)} is none of the "
                                           "published"):
        PickledTfidfEncoder(path).encode(["a" * 40])
    with pytest.raises(UnsafePickle, match="is not the expected"):
        load_vectorizers(path, sha256="0" * 64)


def test_08_a_catastrophic_token_pattern_is_refused_whatever_the_sha256(tmp_path):
    bundle = _bundle()
    bundle["tok_vec"].token_pattern = r"(\w+)+#"
    path = tmp_path / "tfidfngrams_mud_subset_1-3grams.pkl"
    path.write_bytes(pickle.dumps(bundle))
    with pytest.raises(UnsafePickle, match=re.escape("token_pattern " + repr(r"(\w+)+#"))):
        load_vectorizers(path, sha256=_sha(path))
    with pytest.raises(UnsafePickle, match="token_pattern"):
        load_vectorizers(path, sha256=None)


# ------------------------------------------------- issue 36, item 3: settings and pins


@pytest.mark.parametrize("setting, value", [
    ("input", "filename"),  # would open() every text as a path
    ("lowercase", False),
    ("decode_error", "ignore"),
    ("stop_words", "english"),
    ("strip_accents", "unicode"),
    ("sublinear_tf", True),
    ("dtype", np.float32),
    ("norm", "l1"),
    ("lowercase", 1),  # equal to True, but not the reference's type
])
def test_36_3_every_setting_of_a_vectorizer_is_checked(tmp_path, setting, value) -> None:
    bundle = _bundle()
    setattr(bundle["pos_vec"], setting, value)
    path = tmp_path / "b.pkl"
    path.write_bytes(pickle.dumps(bundle))
    with pytest.raises(UnsafePickle, match=f"'pos_vec' is not a vectorizer of the "
                                           f"reference's bundles: {setting} "):
        load_vectorizers(path, sha256=_sha(path))


@pytest.mark.parametrize("attribute, value, message", [
    ("vocabulary_", {b"cat": 0}, "maps b'cat' to 0"),
    ("vocabulary_", {"cat": 0, "dog": 0}, "does not number its 2 terms"),
    ("vocabulary_", ["cat"], "must be a non-empty dict"),
])
def test_36_3_the_vocabulary_is_checked(tmp_path, attribute, value, message) -> None:
    bundle = _bundle()
    setattr(bundle["tok_vec"], attribute, value)
    path = tmp_path / "b.pkl"
    path.write_bytes(pickle.dumps(bundle))
    with pytest.raises(UnsafePickle, match=f"'tok_vec': vocabulary_ {message}"):
        load_vectorizers(path, sha256=None)


def test_36_3_the_idf_weights_are_checked(tmp_path) -> None:
    bundle = _bundle()
    bundle["tok_vec"]._tfidf.idf_ = bundle["tok_vec"].idf_.astype(object)
    path = tmp_path / "b.pkl"
    path.write_bytes(pickle.dumps(bundle))
    with pytest.raises(UnsafePickle, match="'tok_vec': its IDF weights are object"):
        load_vectorizers(path, sha256=None)


def test_36_3_the_vectorizers_are_rebuilt_from_the_checked_values_only(tmp_path) -> None:
    bundle = _bundle()
    bundle["char_vec"].planted = "anything"  # an attribute no vectorizer has
    path = tmp_path / "b.pkl"
    path.write_bytes(pickle.dumps(bundle))
    loaded = load_vectorizers(path, sha256=None)
    for key, vec in loaded.items():
        assert vec is not bundle[key] and not hasattr(vec, "planted")
        assert vec.get_params()["input"] == "content" and vec.lowercase is True
        docs = ["The cat ran home.", "Dogs sat in the rain."]  # the fitted one: the oracle
        np.testing.assert_allclose(vec.transform(docs).toarray(),
                                   bundle[key].transform(docs).toarray())


def _cached_copy(tmp_path, monkeypatch, name: str, data: bytes, record: dict | None):
    """``data`` in the download cache at the pinned URL of ``name``, with ``record`` (the
    JSON fetch keeps beside a file) or none; offline, no mirror."""
    import json

    from stebkit import sources
    from stebkit.encoders.tfidf_pickle import pickle_url

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    monkeypatch.delenv("STEBKIT_MIRROR", raising=False)
    path = tmp_path / "cache" / "downloads" / sources.relative_path(pickle_url(name))
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    if record is not None:
        record = {"url": pickle_url(name), "bytes": len(data),
                  "sha256": hashlib.sha256(data).hexdigest(), **record}
        sources.record_path(path).write_text(json.dumps(record))
    return path


UNPINNED = "tfidfngrams_fineweb_sample10bt_1-2grams.pkl"


def test_36_3_a_copy_planted_in_the_download_cache_is_refused(tmp_path, monkeypatch,
                                                               bundle_file, no_unpickling):
    from stebkit.encoders import get_encoder

    assert REFERENCE_PICKLES[UNPINNED].sha256 is None
    path = _cached_copy(tmp_path, monkeypatch, UNPINNED, bundle_file.read_bytes(), None)
    for _ in range(2):  # the record fetch writes for it does not make it trusted
        with pytest.raises(UnsafePickle, match=f"{path}: .* stebkit did not download it"):
            get_encoder(UNPINNED).encode(["hello"])


def test_36_3_a_copy_stebkit_downloaded_is_pinned_and_later_copies_checked(
        tmp_path, monkeypatch, bundle_file) -> None:
    import json
    import warnings

    from stebkit import sources
    from stebkit.encoders import get_encoder
    from stebkit.errors import ChecksumMismatch

    def download(url, target, sha256, show_progress):  # the network, for the test
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(bundle_file.read_bytes())
        return target

    monkeypatch.setattr(sources, "_download", download)
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("STEBKIT_MIRROR", raising=False)
    for var in sources.OFFLINE_VARIABLES:
        monkeypatch.delenv(var, raising=False)
    first_use = f"{_sha(bundle_file)}\\), is trusted on first use and pinned"
    with pytest.warns(UserWarning, match=first_use):
        assert get_encoder(UNPINNED).encode(["hello"]).shape[0] == 1
    path = sources.cache_path(PickledTfidfEncoder(UNPINNED)._url())
    assert json.loads(sources.record_path(path).read_text())["downloaded"] is True
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # the pinned copy: no warning any more
        assert get_encoder(UNPINNED).encode(["hello"]).shape[0] == 1
    path.unlink()  # the record (the pin) stays; a mirror now holds another bundle
    tampered = _bundle()
    tampered["char_vec"].idf_ = tampered["char_vec"].idf_ * 2
    mirror = _mirror_copy(tmp_path / "m", monkeypatch, UNPINNED, pickle.dumps(tampered))
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ChecksumMismatch, match=f"mirror file {mirror} .*expected "
                                               f"{_sha(bundle_file)}"):
        get_encoder(UNPINNED).encode(["hello"])
    local = tmp_path / UNPINNED  # a local copy by file name: checked against the pin too
    local.write_bytes(pickle.dumps(tampered))
    with pytest.raises(UnsafePickle, match=f"{local}: sha256 .* is not {_sha(bundle_file)}, "
                                           "the sha256 pinned"):
        PickledTfidfEncoder(local).encode(["hello"])


# ------------------------------------- issue 43, item 3: vectors keyed by the bundle bytes


TWO = ["The cat sat on the mat.", "A dog ran in the park!"]


def test_43_3_an_unpinned_copys_vectors_never_outlive_the_copy(tmp_path, monkeypatch,
                                                               bundle_file) -> None:
    from stebkit.encoders import cached, get_encoder
    from stebkit.errors import ModelUnavailable

    data = bundle_file.read_bytes()
    mirror = _mirror_copy(tmp_path, monkeypatch, UNPINNED, data)
    with pytest.warns(UserWarning, match="used unpinned"):
        first = cached(get_encoder(UNPINNED))
        vectors = first.encode(TWO)
    assert first.revision == f"sha256:{_sha(bundle_file)}"  # what the record names
    assert first.misses == 2
    with pytest.warns(UserWarning, match="used unpinned"):  # the same copy: checked again
        again = cached(get_encoder(UNPINNED))
        np.testing.assert_array_equal(again.encode(TWO), vectors)
    assert again.hits == 2
    mirror.unlink()  # the copy is gone: its vectors are not served
    with pytest.raises(ModelUnavailable, match=UNPINNED):
        cached(get_encoder(UNPINNED)).encode(TWO)
    other = _bundle()
    idf = other["char_vec"].idf_
    other["char_vec"].idf_ = idf * np.linspace(1, 3, len(idf))  # other weights, same types
    mirror.write_bytes(pickle.dumps(other))  # another unpinned copy: its own vectors
    with pytest.warns(UserWarning, match="used unpinned"):
        fresh = cached(get_encoder(UNPINNED))
        assert not np.array_equal(fresh.encode(TWO), vectors)
    assert fresh.misses == 2 and fresh.revision == f"sha256:{_sha(mirror)}"


def test_43_3_a_copy_now_refused_is_not_served_from_the_cache(tmp_path, monkeypatch,
                                                              bundle_file) -> None:
    from stebkit import sources
    from stebkit.encoders import cached, get_encoder
    from stebkit.encoders.tfidf_pickle import pickle_url

    mirror = _mirror_copy(tmp_path, monkeypatch, UNPINNED, bundle_file.read_bytes())
    with pytest.warns(UserWarning, match="used unpinned"):
        cached(get_encoder(UNPINNED)).encode(["hello"])
    mirror.unlink()
    planted = tmp_path / "cache" / "downloads" / sources.relative_path(pickle_url(UNPINNED))
    planted.parent.mkdir(parents=True)
    planted.write_bytes(bundle_file.read_bytes())  # same bytes, but nobody downloaded them
    enc = cached(get_encoder(UNPINNED))
    with pytest.raises(UnsafePickle, match="stebkit did not download it"):
        enc.encode(["hello"])
    assert enc.hits == 0
