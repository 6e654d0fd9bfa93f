"""The registry and loader: schema validation, the processed cache, fingerprints, table."""

from __future__ import annotations

import hashlib
import io
import re
import sys
import warnings

import pandas as pd
import pytest

from stebkit import sources
from stebkit.datasets import (
    DatasetSpec,
    License,
    Source,
    TaskConfig,
    fingerprint,
    get_spec,
    list_datasets,
    load_dataset,
    register,
    registry,
    table,
)
from stebkit.datasets.readers.text import DroppedRowsWarning
from stebkit.errors import DataUnavailable


@pytest.fixture(autouse=True)
def tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture()
def isolated(monkeypatch):
    """Registrations made by a test disappear afterwards."""
    registry._ensure_loaded()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


def make_spec(frame_or_fn, *, name="toy", tasks=("clustering",), **kw) -> DatasetSpec:
    calls = []

    def reader(spec, *, seed, smoke):
        calls.append((seed, smoke))
        return frame_or_fn(seed) if callable(frame_or_fn) else frame_or_fn.copy()

    spec = DatasetSpec(name=name, description="test", languages=("en",), source=Source(),
                       license=License("CC0-1.0"), label="author",
                       tasks={t: TaskConfig() for t in tasks}, category="idiolect",
                       application="authorship_attribution", reader=reader,
                       suites=("testsuite",), **kw)
    spec.reader.calls = calls
    return spec


BASE = pd.DataFrame({"text": ["one two", "three four", "five six", "seven"],
                     "label": ["a", "a", "b", "b"]})


# ------------------------------------------------------------------- schema validation
@pytest.mark.parametrize("task, columns", [
    ("predefined_pairs", "['pair', 'same']"), ("retrieval", "['side']"),
    ("order_alignment", "['group', 'position']"), ("probing", "['split']"),
])
def test_task_columns_are_required(task, columns):
    spec = make_spec(BASE, tasks=(task,))
    with pytest.raises(ValueError, match=re.escape(f"lack column(s) {columns} needed by task "
                                                   f"'{task}'")):
        load_dataset(spec, cache=False)


@pytest.mark.parametrize("frame, error, match", [
    (BASE.drop(columns="label"), ValueError, "required column 'label'"),
    (BASE.assign(text=["x", 3, "y", "z"]), TypeError, "'text' must hold str, row 1 holds int"),
    (BASE.assign(label=["a", None, "b", "b"]), TypeError, "'label' must hold str.*row 1"),
    (BASE.assign(label=[1, 1, 2, 2]), TypeError, "'label' must hold str.*row 0 holds int64 1 "),
    (BASE.assign(work=["w", "w", 7, "w"]), TypeError, "'work' must hold str"),
    (BASE.assign(distractor=[0, 1, 0, 1]), TypeError, "'distractor' must be bool"),
    (BASE.assign(text=["", " ", None, float("nan")]), ValueError, "no usable records"),
])
def test_bad_records_raise_clear_errors(frame, error, match):
    with pytest.raises(error, match=match), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        load_dataset(make_spec(frame), cache=False)


def test_reader_must_return_a_dataframe():
    spec = make_spec(lambda seed: [{"text": "a", "label": "b"}])
    with pytest.raises(TypeError, match="must return a pandas DataFrame, got list"):
        load_dataset(spec, cache=False)


def test_task_value_checks():
    pairs = pd.DataFrame({"text": list("abcde"), "label": list("xxyyz"),
                          "pair": ["p1", "p1", "p2", "p2", "p2"],
                          "same": [True, True, False, False, False]})
    with pytest.raises(ValueError, match="exactly 2 rows.*\\['p2'\\]"):
        load_dataset(make_spec(pairs, tasks=("predefined_pairs",)), cache=False)
    mixed = pairs.iloc[:4].assign(same=[True, False, False, False])
    with pytest.raises(ValueError, match="1 pair\\(s\\) do not, e.g. \\['p1'\\]"):
        load_dataset(make_spec(mixed, tasks=("predefined_pairs",)), cache=False)
    sides = BASE.assign(side=["query", "target", "query", "doc"])
    with pytest.raises(ValueError, match="'side' must be one of.*\\['doc'\\]"):
        load_dataset(make_spec(sides, tasks=("retrieval",)), cache=False)
    only_queries = BASE.assign(side="query")
    with pytest.raises(ValueError, match="both 'query' and 'target'"):
        load_dataset(make_spec(only_queries, tasks=("retrieval",)), cache=False)
    oa = BASE.assign(group=["g", "g", "h", "h"], position=[0.0, 1.0, 0.0, 1.0])
    with pytest.raises(TypeError, match="'position' must hold ints"):
        load_dataset(make_spec(oa, tasks=("order_alignment",)), cache=False)
    probe = BASE.assign(split=["train", "dev", "test", "test"])
    with pytest.raises(ValueError, match="'split' must be one of.*\\['dev'\\]"):
        load_dataset(make_spec(probe, tasks=("probing",)), cache=False)


def test_empty_text_filter_warns_with_counts():
    frame = pd.DataFrame({"text": ["ok one", "", "ok two", None, "  ", "ok three"],
                          "label": list("aabbcc")})
    with pytest.warns(DroppedRowsWarning, match="dropped 3 of 6 rows with an empty text") \
            as seen:
        ds = load_dataset(make_spec(frame), cache=False)
    # the report names the line that loaded the dataset, never a library file
    assert (seen[0].filename, seen[0].lineno) == (__file__, sys._getframe().f_lineno - 2)
    assert ds.frame["text"].tolist() == ["ok one", "ok two", "ok three"]
    assert ds.frame.index.tolist() == [0, 1, 2]
    with pytest.warns(DeprecationWarning, match="Dataset.records is now Dataset.frame"):
        assert ds.records is ds.frame  # the old name still reads, with a warning


def test_empty_text_in_a_pair_drops_its_partner_and_says_so():
    frame = pd.DataFrame({"text": ["a", "", "c", "d"], "label": list("xyzz"),
                          "pair": ["p1", "p1", "p2", "p2"], "same": [False, False, True, True]})
    with pytest.warns(DroppedRowsWarning, match="dropped 1 of 4 rows .* and 1 partner"):
        ds = load_dataset(make_spec(frame, tasks=("predefined_pairs",)), cache=False)
    assert ds.frame["pair"].tolist() == ["p2", "p2"]


def test_valid_records_of_every_task_pass():
    frame = pd.DataFrame({
        "text": [f"text {i}" for i in range(4)], "label": list("aabb"),
        "pair": ["p1", "p1", "p2", "p2"], "same": [True, True, False, False],
        "side": ["query", "target", "query", "target"], "group": ["g1", "g1", "g2", "g2"],
        "position": [0, 1, 0, 1], "split": ["train", "train", "validation", "test"]})
    ds = load_dataset(make_spec(frame, tasks=(
        "clustering", "predefined_pairs", "retrieval", "order_alignment", "probing")),
        cache=False)
    assert len(ds) == 4 and ds.frame["position"].dtype == "int64"


# ---------------------------------------------------------- processed cache, fingerprint
def test_processed_cache_hit_does_not_call_the_reader(tmp_cache):
    spec = make_spec(lambda seed: BASE.assign(text=BASE["text"] + f" {seed}"))
    first = load_dataset(spec, seed=3)
    second = load_dataset(spec, seed=3)
    assert spec.reader.calls == [(3, False)]
    pd.testing.assert_frame_equal(first.frame, second.frame)
    assert first.fingerprint == second.fingerprint
    [path] = (tmp_cache / "processed").rglob("*.parquet")
    assert path.parent.parent.name == "toy"  # keyed by the name and the fingerprint
    assert path.name == hashlib.sha256(path.read_bytes()).hexdigest() + ".parquet"
    assert list((tmp_cache / "processed").rglob(".*")) == []  # no temp files left
    load_dataset(spec, seed=3, cache=False)
    assert len(spec.reader.calls) == 2


def test_fingerprint_changes_with_seed_smoke_version_and_sources():
    spec = make_spec(BASE)
    fp = fingerprint(spec, seed=42)
    expected_inputs = {fingerprint(spec, seed=43), fingerprint(spec, smoke=True),
                       fingerprint(make_spec(BASE, reader_version=2)),
                       fingerprint(make_spec(BASE, name="toy2"))}
    assert fp == fingerprint(make_spec(BASE), seed=42) and fp not in expected_inputs
    assert len(expected_inputs) == 4
    a = DatasetSpec(**{**spec.__dict__, "source": Source(urls=(("https://h.org/a", "1" * 64),))})
    b = DatasetSpec(**{**spec.__dict__, "source": Source(urls=(("https://h.org/a", "2" * 64),))})
    assert fingerprint(a) != fingerprint(b) != fp
    assert load_dataset(spec, seed=1).fingerprint != load_dataset(spec, seed=2).fingerprint


def test_real_mirror_source_through_reader_and_cache(mirror, monkeypatch):
    manifest = pd.read_csv(mirror.parent / "manifest.tsv", sep="\t")
    row = manifest[manifest["url"].str.contains("STEL/characteristics")].iloc[0]

    def reader(spec, *, seed, smoke):
        url, sha = spec.source.urls[0]
        raw = pd.read_csv(sources.fetch(url, sha), sep="\t")
        texts = pd.concat([raw["Anchor 1"], raw["Anchor 2"]], ignore_index=True)
        kinds = pd.concat([raw["style type"]] * 2, ignore_index=True)
        return pd.DataFrame({"text": texts.astype(str), "label": kinds.astype(str)})

    spec = DatasetSpec(name="stel_anchor_slice", description="STEL anchors",
                       languages=("en",), source=Source(urls=((row["url"], row["sha256"]),)),
                       license=License("MIT"), label="style type",
                       tasks={"clustering": TaskConfig()}, category="linguistic_features",
                       application="linguistic_probing", reader=reader, offline=True)
    ds = load_dataset(spec)
    raw = pd.read_csv(io.BytesIO((mirror / sources.relative_path(row["url"])).read_bytes()),
                      sep="\t")
    assert len(ds) == 2 * len(raw) and set(ds.frame["label"]) == set(raw["style type"])
    assert registry.is_available_offline(spec)
    blob = (mirror / sources.relative_path(row["url"])).read_bytes()
    assert hashlib.sha256(blob).hexdigest() == row["sha256"]


# ---------------------------------------------------------------- registry and listing
def test_get_spec_suggests_close_names():
    with pytest.raises(ValueError, match="unknown dataset 'blog_gendr'.*'blog_gender'"):
        get_spec("blog_gendr")
    assert get_spec("Bible_Versions").name == "bible_versions"


def test_register_rejects_a_different_spec_under_a_known_name(isolated):
    spec = register(make_spec(BASE, name="dup"))
    register(spec)  # the same spec again is fine
    with pytest.raises(ValueError, match="'dup' is already registered"):
        register(make_spec(BASE.iloc[:2], name="dup", reader_version=2))
    register(make_spec(BASE, name="dup", reader_version=2), replace=True)
    assert get_spec("dup").reader_version == 2
    with pytest.raises(TypeError, match="DatasetSpec"):
        register("dup")


def _mirrored_steb() -> set[str]:
    """STEB datasets whose files are in the mirror (tested on the real files), when
    STEBKIT_MIRROR points at it; none without a mirror."""
    import os

    if not os.environ.get("STEBKIT_MIRROR"):
        return set()
    return {n for n in list_datasets(suite="steb") if get_spec(n).tested_on == "mirror"}


def test_list_datasets_filters():
    steb = list_datasets(suite="steb")
    assert len(steb) >= 90 and steb == sorted(steb)
    pairs = list_datasets(suite="steb", task="predefined_pairs")
    assert "enron_authorship_corpus" in pairs and "ag_news" not in pairs
    # STEB datasets load offline exactly when their files are mirrored (or cached)
    assert set(list_datasets(offline=True)) & set(steb) == _mirrored_steb()
    with pytest.raises(ValueError, match="task must be one of"):
        list_datasets(task="ranking")
    with pytest.raises(ValueError, match="unknown suite 'stebb'.*'steb'"):
        list_datasets(suite="stebb")


def test_table_flags_and_stats(isolated):
    frame = pd.DataFrame({"text": ["aa", "bbbb", "cccccc", "d"], "label": list("xyxz")})
    register(make_spec(frame, name="offline_toy", offline=True))
    register(make_spec(frame, name="online_toy", offline=False))
    plain = table(suite="testsuite")
    assert plain["name"].tolist() == ["offline_toy", "online_toy"]
    assert plain["offline"].tolist() == [True, False] and "texts" not in plain
    stats = table(suite="testsuite", stats=True).set_index("name")
    assert stats.loc["offline_toy", "texts"] == 4 and stats.loc["offline_toy", "labels"] == 3
    assert stats.loc["offline_toy", "median_chars"] == frame["text"].str.len().median()
    assert pd.isna(stats.loc["online_toy", "texts"])
    steb = table(suite="steb").set_index("name")
    assert steb.loc["fisher_speaker_attribution_bbn_base", "needs_agreement"].startswith("LDC")
    assert bool(steb.loc["blog_age", "non_commercial"])
    assert set(steb.index[steb["offline"].astype(bool)]) == _mirrored_steb()


def test_unknown_reader_dataset_is_data_unavailable():
    spec = DatasetSpec(name="nowhere", description="", languages=("en",),
                       source=Source(note="a private archive"), license=License("none"),
                       label="x", tasks={"clustering": TaskConfig()}, category="genre",
                       application="register_classification")
    with pytest.raises(DataUnavailable, match="no reader.*a private archive"):
        load_dataset(spec)


def test_offline_availability_needs_every_source_file(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    present = mirror / "example.org" / "a.txt"
    present.parent.mkdir(parents=True)
    present.write_text("x")
    monkeypatch.setenv("STEBKIT_MIRROR", str(mirror))
    urls = (("https://example.org/a.txt", None), ("https://example.org/b.txt", None))
    spec = make_spec(BASE, offline=True)
    both = DatasetSpec(**{**spec.__dict__, "source": Source(urls=urls)})
    one = DatasetSpec(**{**spec.__dict__, "source": Source(urls=urls[:1])})
    not_declared = DatasetSpec(**{**one.__dict__, "offline": False})
    assert not registry.is_available_offline(both)
    assert registry.is_available_offline(one)
    assert not registry.is_available_offline(not_declared)


def test_agreement_data_is_available_offline_once_its_local_folder_is_set(tmp_path,
                                                                         monkeypatch):
    from stebkit.sources import add_local

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("STEBKIT_LOCAL_LDC_TOY", raising=False)
    spec = make_spec(BASE, offline=True)
    ldc = DatasetSpec(**{**spec.__dict__, "source": Source(local="ldc-toy")})
    assert not registry.is_available_offline(ldc)
    (tmp_path / "ldc").mkdir()
    add_local("ldc-toy", tmp_path / "ldc")
    assert registry.is_available_offline(ldc)


def test_tested_on_is_checked_and_shown_as_status():
    spec = make_spec(BASE)
    with pytest.raises(ValueError, match=r"tested_on must be one of \('mirror', "
                                         r"'constructed', 'generated'\) or None, got 'real'"):
        DatasetSpec(**{**spec.__dict__, "tested_on": "real"})
    assert DatasetSpec(**{**spec.__dict__, "tested_on": "mirror"}).status == "real files"
    assert spec.status == "untested"
