"""The one store of derived files: keyed by what made them, checked against their own
digest on every read, never served when foreign, moved aside and rebuilt once."""

from __future__ import annotations

import hashlib
import os
import stat
import warnings

import numpy as np
import pytest
from test_cache import Counting

from stebkit.encoders import cached
from stebkit.store import Store, entry_key


def _one_shard(tmp_path):
    inner = Counting()
    cached(inner, tmp_path).encode(["one", "two"])
    enc = cached(inner, tmp_path)
    (shard,) = enc.store.entries(enc.directory, ".npz")
    inner.calls.clear()
    return inner, enc, shard


def test_an_entry_is_named_by_the_sha256_of_its_bytes(tmp_path):
    store = Store(tmp_path, "note")
    path = store.put(store.folder("p", 1), b"abc", ".txt")
    assert path.name == hashlib.sha256(b"abc").hexdigest() + ".txt"
    assert path.parent.parent.name == "p"
    assert store.get(path) == b"abc"


def test_a_store_below_folders_not_made_yet_writes_them(tmp_path):
    store = Store(tmp_path / "cache" / "kind", "note")
    path = store.put(store.folder("p", 1), b"abc", ".txt")
    assert store.get(path) == b"abc"


def test_the_key_holds_producer_version_inputs_and_any_setting():
    base = entry_key("m", "1", inputs={"weights": "sha256:aa"}, settings={"pooling": "mean"})
    assert base != entry_key("m", "2", inputs={"weights": "sha256:aa"},
                             settings={"pooling": "mean"})
    assert base != entry_key("m", "1", inputs={"weights": "sha256:bb"},
                             settings={"pooling": "mean"})
    assert base != entry_key("m", "1", inputs={"weights": "sha256:aa"},
                             settings={"pooling": "mean", "dtype": "bfloat16"})
    assert base == entry_key("m", "1", settings={"pooling": "mean"},
                             inputs={"weights": "sha256:aa"})


def test_a_shard_changed_in_place_is_moved_aside_and_re_encoded_once(tmp_path):
    inner, enc, shard = _one_shard(tmp_path)
    with np.load(shard) as data:
        keys = data["keys"]
    store = Store(tmp_path, "x")  # a shard with other vectors, written under the old name
    other = store.put_arrays(tmp_path / "elsewhere", keys=keys,
                             embeddings=np.zeros((2, 3), dtype=np.float32))
    shard.write_bytes(other.read_bytes())
    with pytest.warns(RuntimeWarning, match=r"its bytes .* are not the ones it was written"
                      ) as caught:
        out = enc.encode(["one", "two"])
    assert sum(str(shard) in str(w.message) for w in caught) == 1
    assert np.array_equal(out, inner.encode(["one", "two"]))
    assert shard.with_name(shard.name + ".rejected").exists()
    inner.calls.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(cached(inner, tmp_path).encode(["one", "two"]), out)
    assert inner.calls == []  # rebuilt once, then served


def test_a_fifo_in_a_shards_place_is_refused_not_waited_on(tmp_path):
    inner, enc, shard = _one_shard(tmp_path)
    shard.unlink()
    os.mkfifo(shard)
    with pytest.warns(RuntimeWarning, match=r"not a regular file \(a FIFO\)"):
        out = enc.encode(["one", "two"])
    assert inner.calls == [["one", "two"]] and out.shape == (2, 3)
    assert stat.S_ISFIFO(os.lstat(shard.with_name(shard.name + ".rejected")).st_mode)
    assert stat.S_ISREG(os.lstat(shard).st_mode)  # the same vectors, written again


def test_a_link_in_a_shards_place_is_refused(tmp_path):
    inner, enc, shard = _one_shard(tmp_path)
    target = tmp_path / "target.npz"
    shard.rename(target)
    shard.symlink_to(target)
    with pytest.warns(RuntimeWarning, match="a symbolic link"):
        enc.encode(["one", "two"])
    assert inner.calls == [["one", "two"]]


def test_a_key_folder_linked_to_another_keys_folder_is_never_served(tmp_path):
    class Other(Counting):
        revision = "2"  # another key: its vectors must never serve revision 1

    _, first, shard = _one_shard(tmp_path)
    other = cached(Other(), tmp_path)
    other.directory.parent.mkdir(parents=True, exist_ok=True)
    other.directory.symlink_to(shard.parent, target_is_directory=True)
    with pytest.warns(RuntimeWarning, match=rf"the folder {other.directory} is a symbolic "):
        other.encode(["one", "two"])
    assert other.encoder.calls == [["one", "two"]]


def test_a_foreign_entry_is_never_served(tmp_path, monkeypatch):
    inner, enc, shard = _one_shard(tmp_path)
    me = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: me + 1)  # the files are now another user's
    with pytest.warns(RuntimeWarning, match=rf"written by another user \(uid {me}\)"):
        enc.encode(["one", "two"])
    assert inner.calls == [["one", "two"]]


def test_a_group_writable_entry_is_never_served(tmp_path):
    inner, enc, shard = _one_shard(tmp_path)
    shard.chmod(0o664)
    with pytest.warns(RuntimeWarning, match=r"writable by other users \(mode 0664\)"):
        enc.encode(["one", "two"])
    assert inner.calls == [["one", "two"]]


def test_an_entry_in_a_folder_others_can_write_is_never_served(tmp_path):
    inner, enc, shard = _one_shard(tmp_path)
    shard.parent.chmod(0o777)
    with pytest.warns(RuntimeWarning, match=rf"the folder {shard.parent} is writable by "):
        enc.encode(["one", "two"])
    assert inner.calls == [["one", "two"]]


def _foreign(path, monkeypatch):
    """Make ``path`` another user's: chown it where this user may (root), else let the
    process take another uid, to which all it wrote is another's."""
    if os.getuid() == 0:
        os.chown(path, 65534, -1)
    else:
        me = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: me + 1)


def test_nothing_is_stored_in_another_users_folder_and_every_result_is_made(
        tmp_path, monkeypatch):
    """Another user made the key's folder first (a shared cache): its entries are never
    used, nothing is written there, and the vectors are still made, with one warning."""
    inner, enc, shard = _one_shard(tmp_path)
    _foreign(shard.parent, monkeypatch)
    with pytest.warns(RuntimeWarning) as caught:
        out = enc.encode(["one", "two"])
        again = enc.encode(["one", "two", "three"])
    assert np.array_equal(out, inner.encode(["one", "two"]))
    assert np.array_equal(again[2], inner.encode(["three"])[0])
    messages = [str(w.message) for w in caught]
    assert sum("not stored in" in m and "belongs to another user" in m for m in messages) == 1
    assert {p.name for p in enc.store.entries(shard.parent, ".npz")} <= {shard.name}


def test_entries_are_private_to_their_writer_under_a_permissive_umask(tmp_path):
    old = os.umask(0o002)
    try:
        path = Store(tmp_path / "s", "note").put(tmp_path / "s" / "a" / "b", b"x", ".txt")
    finally:
        os.umask(old)
    assert [oct(p.stat().st_mode & 0o777) for p in (path, path.parent, path.parent.parent)] \
        == ["0o644", "0o755", "0o755"]
    assert Store(tmp_path / "s", "note").get(path) == b"x"


def test_an_old_format_shard_is_simply_rebuilt(tmp_path):
    inner, enc, shard = _one_shard(tmp_path)
    old = enc.directory / "0123456789abcdef.npz"  # the name of an earlier version's shard
    shard.rename(old)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enc.encode(["one", "two"])
    assert inner.calls == [["one", "two"]]


def test_a_record_names_the_forward_pass_that_made_its_vectors(tmp_path):
    """A fast pass that fails its check hands over to the model's own before any vector:
    the record says ``model``, not the pass planned before the weights were loaded."""
    from test_robustness import toy_dataset

    import stebkit
    from stebkit.records.results import Results

    class FallsBack(Counting):
        name = "falls-back"

        def __init__(self):
            super().__init__()
            self.forward = "onnx"  # planned

        @property
        def cache_config(self):
            return {"forward": self.forward}

        def encode(self, texts, *, batch_size=32, show_progress=False):
            self.forward = "model"  # the check failed: the model's own pass
            return np.array([[len(t), t.count("1"), 1.0] for t in texts], dtype=np.float32)

    res = stebkit.evaluate([FallsBack()], [toy_dataset()], output_dir=tmp_path / "out",
                           cache_embeddings=False)
    (record,) = Results(res).records
    assert record["status"] == "ok"
    assert record["model"]["encoder_config"] == {"forward": "model"}


# --------------------------------------------------------------------------- LFTK shards


@pytest.fixture
def feature_store(tmp_path):
    """A feature store holding one planted shard (its arrays given), as another version or
    another program could have left it, written under its own digest."""
    pytest.importorskip("lftk")
    from stebkit.datasets.features import FeatureStore, _text_key

    def plant(**arrays):
        store = FeatureStore("en", root=tmp_path)
        keys = np.frombuffer(_text_key("a b.") + _text_key("c"), dtype=np.uint8)
        full = {"keys": keys.reshape(2, 32), "columns": np.array(["t_word"]),
                "values": np.array([[2.0], [1.0]]), "measured": np.array([True, True])}
        return store.store.put_arrays(store.folder, **{**full, **arrays})

    return plant


@pytest.mark.parametrize(("arrays", "message"), [
    ({"values": np.array([[2.0]])}, r"do not fit together: .* values \(1, 1\)"),
    ({"measured": np.array([True])}, r"do not fit together: .* measured \(1,\)"),
    ({"values": np.array([[np.nan], [1.0]])}, "hold NaN or infinite numbers"),
    ({"values": np.array([[2], [1]], dtype=np.int64)}, "expected uint8 keys"),
])
def test_a_feature_shard_with_mismatched_arrays_or_nan_is_refused_by_name(
        feature_store, tmp_path, arrays, message):
    from stebkit.datasets.features import FeatureStore

    shard = feature_store(**arrays)
    with pytest.warns(RuntimeWarning, match=rf"LFTK feature shard {shard}: .*{message}"):
        assert FeatureStore("en", root=tmp_path).lookup(["a b.", "c"], ("t_word",)) == {}
    assert not shard.exists()


def test_a_fifo_in_a_feature_shards_place_is_refused_not_waited_on(feature_store, tmp_path):
    from stebkit.datasets.features import FeatureStore

    shard = feature_store()
    assert FeatureStore("en", root=tmp_path).lookup(["c"], ("t_word",)) == {"c": {"t_word": 1.0}}
    shard.unlink()
    os.mkfifo(shard)
    with pytest.warns(RuntimeWarning, match=r"not a regular file \(a FIFO\)"):
        assert FeatureStore("en", root=tmp_path).lookup(["c"], ("t_word",)) == {}


def test_feature_rows_with_nan_are_never_stored(tmp_path):
    pytest.importorskip("lftk")
    from stebkit.datasets.features import FeatureStore

    store = FeatureStore("en", root=tmp_path)
    store.add(["x", "y"], ("t_word",), [{"t_word": float("nan")}, {"t_word": 1.0}])
    assert FeatureStore("en", root=tmp_path).lookup(["x", "y"], ("t_word",)) == \
        {"y": {"t_word": 1.0}}
