"""Reliability and security: nothing lost, nothing let in, no silent wrong result.

One test (or a few) per finding of a sweep of bad inputs, corrupted files and faults; the
test names carry the finding's number.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stebkit import evaluate
from stebkit.datasets.spec import Dataset, DatasetSpec, License, Source, TaskConfig
from stebkit.encoders.base import BaseEncoder
from stebkit.names import safe_name
from stebkit.records.results import Results, read_record
from stebkit.runs.encoders import collapsed_share
from stebkit.runs.request import subset_label


@pytest.fixture(autouse=True)
def fewer_resamples(monkeypatch):
    monkeypatch.setattr("stebkit.runs.context.N_RESAMPLES", 50)


class HashEncoder(BaseEncoder):
    """Deterministic toy encoder: a text's sha256 bytes (salted), scaled to [0, 1]."""

    revision = "1"
    embedding_dim = 8

    def __init__(self, name: str = "hash", salt: str = "", nan_on: str | None = None):
        self.name, self.salt, self.nan_on = name, salt, nan_on
        self.seen: list[str] = []

    def encode(self, texts, *, batch_size=32, show_progress=False):
        self.seen += list(texts)
        out = np.array([np.frombuffer(hashlib.sha256((self.salt + t).encode()).digest()[:8],
                                      dtype=np.uint8) / 255.0 for t in texts], dtype=np.float32)
        if self.nan_on is not None:
            out[[self.nan_on in t for t in texts]] = np.nan
        return out


def toy_spec(name: str, tasks: dict, languages=("en",)) -> DatasetSpec:
    return DatasetSpec(name=name, description="toy", languages=tuple(languages),
                       source=Source(), license=License("CC0-1.0"), label="author",
                       tasks=tasks, category="idiolect", application="authorship_attribution")


def toy_dataset(name: str = "toy", tasks: dict | None = None, languages=("en",),
                texts: list[str] | None = None, n_labels: int = 4, per_label: int = 6) -> Dataset:
    texts = texts or [f"text {i} of author {i % n_labels}" for i in range(n_labels * per_label)]
    frame = pd.DataFrame({"text": texts,
                          "label": [f"a{i % n_labels}" for i in range(len(texts))],
                          "side": ["query" if (i // n_labels) % 2 == 0 else "target"
                                   for i in range(len(texts))]})
    tasks = tasks or {"retrieval": TaskConfig((-1,), 1)}
    return Dataset(toy_spec(name, tasks, languages), frame, f"fp-{name}")


# --------------------------------------------------------------------------- 3


def test_03_names_sharing_a_safe_name_keep_separate_records(tmp_path):
    encoders = [HashEncoder("team/model", "x"), HashEncoder("team__model", "y")]
    res = evaluate(encoders, toy_dataset(), output_dir=tmp_path, show_progress=False,
                   cache_embeddings=False)
    files = sorted(tmp_path.rglob("*.json"))
    assert len(files) == 2
    assert sorted(r["model"]["name"] for r in res) == ["team/model", "team__model"]
    assert sorted(r["model"]["name"] for r in Results.load(tmp_path)) == \
        ["team/model", "team__model"]
    mrr = {r["model"]["name"]: r["metrics"]["mrr"] for r in res}
    assert mrr == {r["model"]["name"]: r["metrics"]["mrr"]
                   for r in map(read_record, files)}


def test_03_a_record_written_under_the_old_file_name_is_still_used(tmp_path):
    name = "my model (v2)"
    first = evaluate(HashEncoder(name), toy_dataset(), output_dir=tmp_path,
                     show_progress=False, cache_embeddings=False)
    (new,) = tmp_path.rglob("*.json")
    legacy = tmp_path / safe_name(name) / "toy" / new.name
    assert legacy != new
    legacy.parent.mkdir(parents=True)
    new.rename(legacy)
    encoder = HashEncoder(name)
    again = evaluate(encoder, toy_dataset(), output_dir=tmp_path, show_progress=False,
                     cache_embeddings=False)
    assert encoder.seen == [] and list(tmp_path.rglob("*.json")) == [legacy]
    assert [r["metrics"] for r in again] == [r["metrics"] for r in first]


# --------------------------------------------------------------------------- 4


def test_04_run_figures_are_named_after_the_suite(tmp_path, capsys):
    from stebkit import cli

    figs = tmp_path / "figures"
    names = ["random", "tfidf-char", "function-words"]  # 3 models, 2 tasks: a STEB score
    common = ["--models", *names, "--tasks", "retrieval", "clustering", "--smoke", "--no-progress",
              "--output", str(tmp_path / "results"), "--figures", str(figs)]
    for datasets in (["synthetic-authors-en"], ["synthetic-authors-en", "synthetic-authors-de"]):
        assert cli.main(["run", "--datasets", *datasets, *common]) == 0
    models = subset_label("models", names)
    labels = {f"{subset_label('datasets', ['synthetic-authors-en'])}-{models}",
              f"{subset_label('datasets', ['synthetic-authors-en', 'synthetic-authors-de'])}"
              f"-{models}"}
    assert {p.name for p in figs.iterdir()} == {
        f"{label}_{stem}.{fmt}" for label in labels for fmt in ("png", "pdf")
        for stem in ("figure1_steb_by_category", "figure1_steb_by_category_column",
                     "task_heatmap")} | {
        f"{label}_figure1_steb_by_category.txt" for label in labels}  # Figure 1's caption
    assert f"written to {figs}" in capsys.readouterr().out


# --------------------------------------------------------------------------- 10


def test_10_collapsed_vectors_are_reported_and_function_words_follow_the_language(
        tmp_path, caplog):
    from stebkit.encoders.baselines import FunctionWordEncoder

    russian = [f"Текст номер {i} автора {i % 4} про море" for i in range(24)]
    german = [f"Der Text {i} " + "und die Frau " * (1 + i) + "mit dem Hund " * (i % 3)
              for i in range(24)]
    datasets = [toy_dataset("toy-ru", languages=("ru",), texts=russian),
                toy_dataset("toy-de", languages=("de",), texts=german)]
    with caplog.at_level("WARNING", logger="stebkit.runs.engine"):
        res = evaluate(FunctionWordEncoder(), datasets, output_dir=tmp_path,
                       show_progress=False, cache_embeddings=False)
    rec = {r["dataset"]["name"]: r for r in res}
    # every Russian episode is all <other>: one vector for all 8 items (4 labels x 2 sides)
    assert rec["toy-ru"]["collapsed_share"] == 1.0
    assert any("share one identical vector" in w for w in rec["toy-ru"]["warnings"])
    assert any("no list for language 'ru'" in w for w in rec["toy-ru"]["warnings"])
    assert "share one identical vector" in caplog.text
    assert any("the 'de' list" in w for w in rec["toy-de"]["warnings"])
    # the German list was used: the same as encoding with it directly
    direct = evaluate(FunctionWordEncoder("de"), datasets[1], output_dir=tmp_path / "de",
                      show_progress=False, cache_embeddings=False)
    assert rec["toy-de"]["metrics"] == direct.records[0]["metrics"]
    assert rec["toy-de"]["collapsed_share"] == direct.records[0]["collapsed_share"] < 0.1


def test_10_collapsed_share_matches_a_count_by_hand():
    x = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [0.5, 0.5]], dtype=np.float32)
    assert collapsed_share(x) == 3 / 5
    assert collapsed_share(np.eye(4)) == 0.0


# --------------------------------------------------------------------------- 11


def test_11_clustering_one_text_per_label_warns_and_gives_nan():
    from stebkit.tasks import DegenerateWarning, clustering

    x = np.random.default_rng(0).normal(size=(40, 8)).astype(np.float32)
    with pytest.warns(DegenerateWarning, match="40 items in 40 labels"):
        out = clustering(x, [str(i) for i in range(40)])
    assert np.isnan(out["v_measure"]) and np.isnan(out["ami"]) and np.isnan(out["ari"])


def test_11_runner_skips_the_same_input_with_the_same_reason(tmp_path):
    from stebkit.tasks.clustering import degenerate_reason

    ds = toy_dataset(tasks={"clustering": TaskConfig((1,), 1)})
    (rec,) = evaluate(HashEncoder(), ds, output_dir=tmp_path, show_progress=False,
                      cache_embeddings=False)
    assert rec["status"] == "skipped"
    assert rec["reason"] == degenerate_reason(["a0", "a1", "a2", "a3"])


# --------------------------------------------------------------------------- 13


def test_13_non_finite_vectors_are_never_cached(tmp_path):
    from stebkit.encoders import cached

    broken = HashEncoder("flaky", nan_on="bad")
    enc = cached(broken, tmp_path)
    texts = ["good one", "bad one", "good two"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        first = enc.encode(texts)
    assert np.isnan(first[1]).all() and np.isfinite(first[[0, 2]]).all()
    for shard in tmp_path.rglob("*.npz"):
        with np.load(shard) as data:
            assert np.isfinite(data["embeddings"]).all() and len(data["keys"]) == 2
    broken.nan_on, broken.seen = None, []  # fixed: a rerun really re-encodes the text
    second = cached(broken, tmp_path).encode(texts)
    assert broken.seen == ["bad one"] and np.isfinite(second).all()
    np.testing.assert_array_equal(second[[0, 2]], first[[0, 2]])


def test_13_non_finite_vectors_cached_by_an_older_version_are_encoded_again(tmp_path):
    from stebkit.encoders import cached

    enc = cached(HashEncoder("old"), tmp_path)
    good = enc.encode(["a", "b"])
    (shard,) = tmp_path.rglob("*.npz")
    with np.load(shard) as data:
        keys, emb = data["keys"], data["embeddings"].copy()
    emb[0] = np.inf
    shard.unlink()  # a shard the store vouches for: only the inf is wrong
    enc.store.put_arrays(shard.parent, keys=keys, embeddings=emb)
    fresh = HashEncoder("old")
    again = cached(fresh, tmp_path).encode(["a", "b"])
    assert fresh.seen == ["a"]
    np.testing.assert_array_equal(again, good)


# --------------------------------------------------------------------------- 1 and 6


def _passages() -> pd.DataFrame:
    return pd.DataFrame({"text": [f"Text {i} by {a}, written {'so' * (i + 1)}." for a in "ab"
                                  for i in range(4)],
                         "author": list("aaaabbbb"), "work": list("12123434")})


def _train(out, **kw):
    from stebkit.train import TrainConfig, train_style_encoder

    config = TrainConfig(steps=2, batch_size=2, max_seq_length=16, hard_negatives=1,
                         hard_negative_pool=2, checkpoint_every=1, content_pairs=0)
    return train_style_encoder(config, passages=_passages(), output_dir=out,
                               show_progress=False, **kw)


def test_01_train_refuses_a_folder_that_is_not_a_model(tmp_path, capsys):
    from stebkit import cli

    out = tmp_path / "thesis"
    (out / "chapters").mkdir(parents=True)
    (out / "chapters" / "one.tex").write_text("precious")
    with pytest.raises(ValueError, match="not empty and holds no stebkit model"):
        _train(out)
    assert cli.main(["train", "--output", str(out), "--steps", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--overwrite" in err and str(out) in err and "Traceback" not in err
    assert (out / "chapters" / "one.tex").read_text() == "precious"
    assert not list(tmp_path.glob(".thesis*")) and not (tmp_path / "thesis.checkpoints").exists()


def test_01_overwrite_writes_beside_other_files_and_a_retrain_keeps_them(tmp_path):
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "notes.txt").write_text("precious")
    first = _train(out, overwrite=True)
    assert (out / "notes.txt").read_text() == "precious"
    assert (out / "model.safetensors").is_file() and first.output_dir == out
    stamp = (out / "model.safetensors").stat().st_mtime_ns
    _train(out, resume=False)  # now a model folder: replaced, its other files kept
    assert (out / "notes.txt").read_text() == "precious"
    assert (out / "model.safetensors").stat().st_mtime_ns != stamp
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thesis"]


def test_01_overwrite_never_replaces_a_file_of_the_folder(tmp_path):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "README.md").write_text("my readme")
    with pytest.raises(ValueError, match="README.md"):
        _train(out, overwrite=True)
    assert (out / "README.md").read_text() == "my readme"


class _Planted:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "code ran"))


def test_06_a_planted_checkpoint_is_refused_without_running_its_code(tmp_path):
    import torch

    from stebkit.train.loop import checkpoint_dir

    out, marker = tmp_path / "model", tmp_path / "marker.txt"
    ckpt = checkpoint_dir(out)
    ckpt.mkdir()
    torch.save({"step": 1, "payload": _Planted(marker)}, ckpt / "step-0000001.pt")
    with pytest.raises(ValueError, match="not a plain stebkit checkpoint"):
        _train(out)
    assert not marker.exists()


def test_06_checkpoints_load_with_weights_only_and_resume(tmp_path):
    import torch

    from stebkit.train.loop import checkpoint_dir

    out = tmp_path / "model"
    _train(out, until_step=1, save=False)
    (path,) = checkpoint_dir(out).glob("step-*.pt")
    state = torch.load(path, map_location="cpu", weights_only=True)
    assert state["step"] == 1 and state["negatives"].dtype == torch.int64
    resumed = _train(out)
    assert resumed.resumed_from == 1 and resumed.step == 2
    assert (out / "model.safetensors").is_file()


# --------------------------------------------------------------------------- 2, 12, 15


def _suite(folder: Path, entry: str, *, name: str = "mine", data: bytes | None = None) -> Path:
    (folder / "d.csv").write_bytes(data or b"text,label\nHello there.,a\nHi you!,b\n"
                                   b"Hey.,a\nYo!,b\n")
    suite = folder / "suite.yaml"
    suite.write_text(f"name: {name}\ndatasets:\n  - {{{entry}}}\n", encoding="utf-8")
    return suite


def test_02_a_suite_dataset_cannot_replace_a_built_in_one(tmp_path):
    from stebkit.datasets import get_spec
    from stebkit.suites import SuiteError, load_suite

    before = get_spec("eltec-eng-authorship")
    suite = _suite(tmp_path, "name: eltec-eng-authorship, task: clustering, "
                             "source: {path: d.csv}")
    with pytest.raises(SuiteError, match="eltec-eng-authorship.*clashes with the dataset "
                                         "'eltec-eng-authorship' of suite"):
        load_suite(suite)
    assert get_spec("eltec-eng-authorship") is before
    # a name differing only in case would share its record folder on some file systems
    with pytest.raises(SuiteError, match="differs only in case"):
        load_suite(_suite(tmp_path, "name: ELTEC-eng-authorship, task: clustering, "
                                    "source: {path: d.csv}"))
    # reading one's own suite again is fine
    own = _suite(tmp_path, "name: my-greetings-02, task: clustering, source: {path: d.csv}")
    assert load_suite(own).datasets == load_suite(own).datasets == ["my-greetings-02"]


@pytest.mark.parametrize("field, message", [
    ("languages: en", "languages must be a list of language codes such as [en, de], got 'en'"),
    ("episode_size: two", "episode_size must be an int in [1, 1000000) or -1, got 'two'"),
    ("episode_size: 0", "episode_size must be an int in [1, 1000000) or -1, got 0"),
    ("episodes_per_label: -3", "episodes_per_label must be an int in [1, 1000000), got -3"),
    ("episodes_per_label: 1000000", "episodes_per_label must be an int in [1, 1000000)"),
    ("min_per_label: lots", "min_per_label must be a non-negative integer, got 'lots'"),
    ("columns: [text, label]", "columns must map fields to column names"),
    ("columns: {text: body}", "column(s) ['body'] (for ['text']"),
    ("language: [en]", "language must be a string"),
])
def test_12_15_suite_fields_are_checked_before_any_work(tmp_path, field, message,
                                                          monkeypatch):
    from stebkit import suites
    from stebkit.suites import checks

    # the one read of the data while a suite is loaded: the columns of each table, checked
    # after every field (the records themselves are read when a run loads the dataset)
    read = []
    columns = checks._source_columns
    monkeypatch.setattr(checks, "_source_columns",
                        lambda source: read.append(source) or columns(source))
    suite = _suite(tmp_path, f"name: my-greetings-12, task: clustering, "
                             f"source: {{path: d.csv}}, {field}")
    with pytest.raises(suites.SuiteError) as err:
        suites.load_suite(suite)
    assert str(err.value).startswith(f"{suite}: dataset 'my-greetings-12': ")
    needs_the_columns = message.startswith("column(s)")
    assert message in str(err.value) and bool(read) == needs_the_columns


def test_15_non_utf8_suite_and_data_files_are_named(tmp_path):
    from stebkit.suites import SuiteError, load_suite

    suite = tmp_path / "suite.yaml"
    suite.write_bytes("name: caf\xe9\ndatasets: []\n".encode("latin-1"))
    with pytest.raises(SuiteError, match=f"{suite}: not UTF-8 text"):
        load_suite(suite)
    suite = _suite(tmp_path, "name: my-latin-15, task: clustering, source: {path: d.csv}",
                   data="text,label\ncaf\xe9,a\n".encode("latin-1"))
    with pytest.raises(SuiteError, match="dataset 'my-latin-15': source: .*d.csv is not UTF-8"):
        load_suite(suite)


def test_15_seed_empty_results_and_malformed_records_are_named(tmp_path):
    from stebkit import cli

    with pytest.raises(ValueError, match=r"seed must be an int in \[0, 4294967296\), got 'a'"):
        evaluate(HashEncoder(), toy_dataset(), seed="a", output_dir=tmp_path)
    assert not list(tmp_path.iterdir())
    with pytest.raises(FileNotFoundError, match=f"no result records in {tmp_path}"):
        Results.load(tmp_path)
    bad = tmp_path / "m" / "d" / "retrieval__e-1.json"
    bad.parent.mkdir(parents=True)
    bad.write_text(json.dumps({"schema": 1, "status": "ok", "metrics": [0.5]}))
    with pytest.raises(ValueError, match=f"{bad}: 'metrics' must be a mapping"):
        Results.load(tmp_path)
    assert cli.main(["leaderboard", str(tmp_path / "m" / "d")]) == 2


# --------------------------------------------------------------------------- 5


@pytest.mark.parametrize("name", ["../../escaped", "/tmp/absolute", "a/../../b", "a\\b",
                                  "~/home", "tab\tname"])
def test_05_names_that_could_leave_their_folder_are_refused_where_declared(name, tmp_path):
    from stebkit.suites import SuiteError, load_suite

    with pytest.raises(ValueError, match="could reach outside its folder"):
        toy_spec(name, {"clustering": TaskConfig()})
    with pytest.raises(ValueError, match="model name .* could reach outside its folder"):
        evaluate(HashEncoder(name), toy_dataset(), output_dir=tmp_path / "r")
    folder = tmp_path / "suite"
    folder.mkdir()
    escaped = json.dumps(name)  # a YAML double-quoted string
    suite = _suite(folder, f"name: {escaped}, task: clustering, source: {{path: d.csv}}")
    with pytest.raises(SuiteError, match="could reach outside its folder"):
        load_suite(suite)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite"]


def test_05_cache_paths_stay_inside_their_folders(tmp_path, monkeypatch):
    from stebkit import sources
    from stebkit.datasets import registry

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    for name in ("org/data", "../../up", "org/../../up"):
        spec = toy_spec("org/data", {"clustering": TaskConfig()})
        object.__setattr__(spec, "name", name)  # as if declared so, past the check
        folder = registry._processed_folder(registry._processed_store(), spec, "f" * 64)
        assert folder.parent.parent == tmp_path / "cache" / "processed"
    for url in ("https://../etc/passwd", "https://../../x/y.txt", "https://.hidden/x.txt"):
        with pytest.raises(ValueError, match="host"):
            sources.fetch(url)
        with pytest.raises(ValueError, match="host"):
            sources.locate(url)
    assert not (tmp_path / "cache").exists()


# --------------------------------------------------------------------------- 8 and 16


class _Counting:
    def __init__(self, frame):
        self.frame, self.calls = frame, 0

    def __call__(self, spec, *, seed=42, smoke=False):
        self.calls += 1
        return self.frame.copy()


def _cached_spec(name: str) -> tuple[DatasetSpec, _Counting]:
    frame = pd.DataFrame({"text": [f"{hashlib.sha256(str(i).encode()).hexdigest()} by {i % 3}."
                                   for i in range(30)],
                          "label": [f"a{i % 3}" for i in range(30)]})
    reader = _Counting(frame)
    spec = DatasetSpec(name=name, description="toy", languages=("en",), source=Source(),
                       license=License("CC0-1.0"), label="author",
                       tasks={"clustering": TaskConfig()}, category="idiolect",
                       application="authorship_attribution", reader=reader)
    return spec, reader


def test_08_a_changed_processed_file_is_rebuilt_with_a_warning(tmp_path, monkeypatch):
    from stebkit.datasets import load_dataset
    from stebkit.datasets.registry import processed_path

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    spec, reader = _cached_spec("flip-08")
    first = load_dataset(spec)
    path = processed_path(spec, first.fingerprint)
    assert path.name == hashlib.sha256(path.read_bytes()).hexdigest() + ".parquet"
    data = bytearray(path.read_bytes())
    offset = data.index(hashlib.sha256(b"7").hexdigest()[:16].encode())
    data[offset + 5] ^= 0x01  # one hex digit -> another: a valid parquet file, one text changed
    path.write_bytes(bytes(data))
    with pytest.raises(AssertionError):  # the flipped byte changed a text silently
        pd.testing.assert_frame_equal(pd.read_parquet(path), first.frame)
    with pytest.warns(RuntimeWarning, match=f"processed dataset {path}: its bytes .* are "
                      "not the ones it was written with.*built again"):
        again = load_dataset(spec)
    assert reader.calls == 2
    pd.testing.assert_frame_equal(again.frame, first.frame)
    pd.testing.assert_frame_equal(pd.read_parquet(path), first.frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_dataset(spec)
    assert reader.calls == 2


def test_16_a_corrupt_processed_file_is_rebuilt_with_a_message(tmp_path, monkeypatch):
    from stebkit.datasets import load_dataset
    from stebkit.datasets.registry import processed_path

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    spec, reader = _cached_spec("truncated-16")
    first = load_dataset(spec)
    path = processed_path(spec, first.fingerprint)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.warns(RuntimeWarning, match=f"processed dataset {path}: its bytes"):
        again = load_dataset(spec)
    assert reader.calls == 2
    pd.testing.assert_frame_equal(again.frame, first.frame)


def test_16_a_corrupt_cached_download_is_replaced_by_a_good_mirror_copy(tmp_path,
                                                                         monkeypatch):
    from stebkit import sources
    from stebkit.errors import ChecksumMismatch

    good = b"the real data\n" * 100
    sha = hashlib.sha256(good).hexdigest()
    url = "https://example.org/data/file.txt"
    cache, mirror = tmp_path / "cache", tmp_path / "mirror"
    monkeypatch.setenv("STEBKIT_CACHE", str(cache))
    monkeypatch.setenv("STEBKIT_MIRROR", str(mirror))
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    monkeypatch.setattr(sources, "_verified", {})
    cached = cache / "downloads" / "example.org" / "data" / "file.txt"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(good[:-5] + b"XXXXX")
    with pytest.raises(ChecksumMismatch, match="cached file"):  # no good copy anywhere
        sources.fetch(url, sha)
    mirrored = mirror / "example.org" / "data" / "file.txt"
    mirrored.parent.mkdir(parents=True)
    mirrored.write_bytes(good)
    with pytest.warns(RuntimeWarning, match="corrupt copy.*passed over"):
        assert sources.fetch(url, sha) == mirrored
    assert not cached.exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sources.fetch(url, sha) == mirrored


# --------------------------------------------------------------------------- 14


def test_14_an_unreadable_suite_file_is_one_line_with_the_path(tmp_path, capsys, monkeypatch):
    import errno

    from stebkit import cli

    suite = _suite(tmp_path, "name: my-locked-14, task: clustering, source: {path: d.csv}")
    real = os.open

    def locked(path, *args, **kwargs):
        if Path(path) == suite:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", locked)
    assert cli.main(["run", "--suite", str(suite), "--models", "random", "--output",
                     str(tmp_path / "r"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"cannot access {suite}: permission denied; make it readable" in err


def test_14_a_full_disk_mid_run_says_how_to_resume(tmp_path, capsys):
    import errno

    from stebkit import cli
    from stebkit.errors import inject_fault

    out = tmp_path / "r"
    argv = ["run", "--models", "random", "--datasets", "synthetic-authors-en",
            "synthetic-authors-de", "--tasks", "retrieval", "--smoke", "--no-progress",
            "--output", str(out), "--figures", str(tmp_path / "f")]
    written = []

    def full(path):  # the disk fills after the first record
        if out in path.parents and path.suffix == ".json":
            if written:
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
            written.append(path)

    with inject_fault("write", full):
        assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "no space left on device" in err and "rerun the same `stebkit run`" in err
    assert str(out) in err and "resumes where it stopped" in err
    kept = {p: p.stat().st_mtime_ns for p in out.rglob("*.json")}
    assert len(kept) == 1
    with pytest.warns(UserWarning, match="correlation grouping needs 3"):
        assert cli.main(argv) == 0  # the rerun resumes: the first record is not recomputed
    assert {p: p.stat().st_mtime_ns for p in kept} == kept
    assert len(list(out.rglob("*.json"))) == 2


def test_an_unregistered_dataset_keeps_the_main_metric_it_declares(tmp_path):
    # a spec passed to the run without registering it (a suite not loaded where records
    # are read): its records are written with its declared main metric and read back
    import dataclasses

    data = toy_dataset("toy-declared", {"clustering": TaskConfig((1,), 6)})
    data = dataclasses.replace(data, spec=dataclasses.replace(data.spec, main_metric="ari"))
    res = evaluate(HashEncoder(), data, output_dir=tmp_path, show_progress=False,
                   cache_embeddings=False)
    assert res.ok and [r["main_metric"] for r in res] == ["ari"]
    assert [r["main_metric"] for r in Results.load(tmp_path)] == ["ari"]
