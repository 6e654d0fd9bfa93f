"""The catalogue of reference datasets, and Hub loading (offline behaviour, row layout)."""

from __future__ import annotations

import sys

import huggingface_hub
import pandas as pd
import pytest

from stebkit.datasets import catalogue, fingerprint, get_spec, load_dataset
from stebkit.datasets.hub import hub_records, load_hub, read_hub, resolved_revision
from stebkit.datasets.readers.text import DroppedRowsWarning
from stebkit.datasets.spec import APPLICATIONS, CATEGORIES
from stebkit.errors import DataUnavailable
from stebkit.tasks import FAMILIES

SPECS = {s.name: s for s in catalogue.SPECS}

# From the reference's scripts/benchmark_clustering/config.py.
REFERENCE_SEMANTIC = {"20_Newsgroups_Fixed", "ag_news", "reuters21578", "emotion",
                      "financial_phrasebank", "twitter-airline-sentiment", "yelp_polarity"}
REFERENCE_NON_ENGLISH = {
    "pan13_authorship_verification_greek_test", "pan13_authorship_verification_spanish_test",
    *(f"pan14_authorship_verification_{c}_{g}_test" for c in ("corpus1", "corpus2")
      for g in ("dutch_essays", "dutch_reviews", "greek_articles", "spanish_articles")),
    *(f"pan15_authorship_verification_{lang}_test" for lang in ("dutch", "greek", "spanish")),
    *(f"pan18_cross_domain_authorship_attribution_{lang}"
      for lang in ("french", "italian", "polish", "spanish")),
}


def test_size_and_unique_names():
    assert len(catalogue.SPECS) >= 90
    assert len(SPECS) == len(catalogue.SPECS)
    steb_names = [s.steb_name for s in catalogue.SPECS]
    assert len(set(steb_names)) == len(steb_names)


@pytest.mark.parametrize("spec", catalogue.SPECS, ids=lambda s: s.name)
def test_every_entry_is_complete(spec):
    assert spec.tasks and set(spec.tasks) <= set(FAMILIES.steb())
    assert spec.category in CATEGORIES and spec.application in APPLICATIONS
    src = spec.source
    assert src.urls or src.hf_path or src.note, "no source declared"
    assert spec.license.name.strip() and spec.citation.strip() and spec.description.strip()
    assert spec.label.strip() and spec.languages and all(len(x) == 2 for x in spec.languages)
    assert spec.suites == ("steb",)
    # loadable without network once its files are cached or mirrored (or a local folder set)
    assert spec.offline == (spec.reader is not None and not src.is_hub
                            and bool(src.urls or src.local))
    assert spec.steb_name and catalogue.catalogue_name(spec.steb_name) == spec.name
    for task, cfg in spec.tasks.items():
        preset = FAMILIES[task].config()
        assert cfg.episode_sizes is None  # the family's preset, filled in where it runs
        assert FAMILIES[task].config(cfg).episode_sizes == preset.episode_sizes
        if spec.name != "fce_l1":
            assert FAMILIES[task].config(cfg) == preset
    if spec.reader is read_hub:
        assert src.is_hub


def test_spot_checks_against_reference_configs():
    # ag_news/config.json: path ag_news, split test, all-to-all pairs + clustering
    ag = SPECS["ag_news"]
    assert (ag.source.hf_path, ag.source.hf_split) == ("ag_news", "test")
    assert set(ag.tasks) == {"all_to_all_pairs", "clustering"}
    # ASSET/config.json: facebook/asset (config simplification, validation+test) is
    # built from the GitHub files asset.{valid,test}.{orig,simp.0-9}, which are read
    asset = SPECS["asset"]
    assert [u.rsplit("/", 1)[1] for u, _ in asset.source.urls][:2] == [
        "asset.valid.orig", "asset.valid.simp.0"] and len(asset.source.urls) == 22
    assert "facebook/asset" in asset.source.note
    assert set(asset.tasks) == {"order_alignment"} and asset.license.non_commercial
    # twitter-airline-sentiment/config.json: label getter airline_sentiment, split train
    air = SPECS["twitter_airline_sentiment"]
    assert air.reader_options["label"] == "airline_sentiment"
    assert air.source.hf_split == "train"
    # reuters21578/config.json: ModLewis config, label getter topics
    reuters = SPECS["reuters21578"]
    assert reuters.source.hf_name == "ModLewis" and reuters.reader_options["label"] == "topics"
    # task families of custom entries
    assert set(SPECS["pan13_authorship_verification_english_test"].tasks) == {
        "predefined_pairs"}
    assert set(SPECS["amazon"].tasks) == {"retrieval"}
    assert set(SPECS["probing_amazon"].tasks) == {"probing"}
    assert set(SPECS["corpus_of_diverse_styles"].tasks) == {
        "clustering", "all_to_all_pairs", "order_alignment"}
    # fce_l1/config.json overrides n_episodes_per_class to 100
    assert SPECS["fce_l1"].tasks["clustering"].episodes_per_label == 100
    # licences that need an agreement (the PAN releases are plain Zenodo downloads)
    assert SPECS["fisher_speaker_attribution_ldc_hard"].license.needs_agreement
    assert not SPECS["pan15_authorship_verification_english_test"].license.needs_agreement


def test_semantic_and_non_english_sets_match_the_reference():
    semantic = {s.steb_name for s in catalogue.SPECS if s.category == "semantic_control"}
    assert semantic == REFERENCE_SEMANTIC
    assert all(SPECS[catalogue.catalogue_name(n)].application == "semantic_control"
               for n in REFERENCE_SEMANTIC)
    for name in REFERENCE_NON_ENGLISH:
        assert SPECS[name].languages != ("en",), name


def test_reference_clusters_point_at_catalogue_entries_of_that_category():
    from stebkit.scores import reference_clusters

    clusters = reference_clusters()
    for cluster, entries in clusters.items():
        assert entries, cluster
        for entry in entries:
            assert entry["name"] in SPECS, (cluster, entry["name"])
            if entry["oa_metric"] is not None:
                assert SPECS[entry["name"]].serves("order_alignment")
    by_axis = {"genre": "genre", "register": "register", "time": "time",
               "demographics": "demographics",
               "dialect": "dialect", "idiolect": "idiolect",
               "predefined_features": "linguistic_features"}
    for cluster, category in by_axis.items():
        for entry in clusters[cluster]:
            assert SPECS[entry["name"]].category == category, (cluster, entry)
    svc = clusters["style_vs_content"]
    assert len(svc) == 10 and all(e["oa_only"] and e["oa_metric"] == "distractor_acc_mean"
                                  for e in svc)


def test_hub_offline_error_names_dataset_and_revision(monkeypatch):
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    with pytest.raises(DataUnavailable) as err:
        load_hub("facebook/asset", name="simplification", revision="abc123", split="test")
    msg = str(err.value)
    assert "'facebook/asset'" in msg and "'abc123'" in msg and "offline" in msg
    with pytest.raises(DataUnavailable, match="'ag_news'.*not pinned"):
        load_dataset("ag_news", cache=False)


def test_hub_missing_library_says_what_to_install(monkeypatch, online):
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets -> ImportError
    with pytest.raises(DataUnavailable, match=r"pip install datasets \(or make setup\)"):
        load_hub("emotion", split="test")


def test_entries_not_mirrored_say_where_the_data_lives(tmp_path, monkeypatch):
    monkeypatch.setenv("STEBKIT_MIRROR", str(tmp_path))
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    with pytest.raises(DataUnavailable) as err:
        load_dataset("pan15_authorship_verification_english_test", cache=False)
    msg = str(err.value)
    assert "https://zenodo.org/records/3737563/files/" in msg and "no reader" not in msg


def test_hub_row_layouts_of_catalogue_entries():
    # blog_age: age buckets of Schler et al.; ages in the gaps are not part of the set
    rows = pd.DataFrame({"text": ["a", "b", "c", "d", "e"], "age": [15, 20, 25, 40, 17]})
    out = hub_records(rows, SPECS["blog_age"].reader_options)
    assert out.to_dict("list") == {"text": ["a", "c", "d", "e"],
                                   "label": ["10s", "20s", "30s", "10s"]}
    # reuters: list labels use their first topic; rows without topics are counted
    rows = pd.DataFrame({"text": ["x", "y", "z"], "topics": [["earn", "acq"], [], ["grain"]]})
    with pytest.warns(DroppedRowsWarning, match="dropped 1 of 3 rows"):
        out = hub_records(rows, SPECS["reuters21578"].reader_options)
    assert out["label"].tolist() == ["earn", "grain"]


def test_hub_records_cap_per_label_is_seeded():
    rows = pd.DataFrame({"text": [f"t{i}" for i in range(100)], "label": ["a", "b"] * 50})
    a = hub_records(rows, {"max_per_label": 10}, seed=1)
    b = hub_records(rows, {"max_per_label": 10}, seed=1)
    c = hub_records(rows, {"max_per_label": 10}, seed=2)
    assert a.equals(b) and not a.equals(c)
    assert a["label"].value_counts().to_dict() == {"a": 10, "b": 10}
    assert len(hub_records(rows, {}, smoke=True)) == 40


class _FakeHubSplit:
    def __init__(self, frame, features):
        self.frame, self.features = frame, features

    def to_pandas(self):
        return self.frame.copy()


class _ClassLabel:
    def __init__(self, names):
        self.names = names


def test_read_hub_end_to_end_with_a_stand_in_datasets_library(monkeypatch, online, tmp_path):
    """The online path, with ``datasets.load_dataset`` replaced by a local stand-in."""
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    calls = []

    def fake_load(**kwargs):
        calls.append(kwargs)
        if kwargs["path"] == "ag_news":
            frame = pd.DataFrame({"text": ["stocks up", "cup final", "rates cut"],
                                  "label": [2, 1, 2]})
            return _FakeHubSplit(frame, {"label": _ClassLabel(["World", "Sports",
                                                                "Business", "Sci/Tech"])})
        part = kwargs["split"]  # X-GENRE: every split of the default config
        frame = pd.DataFrame({"text": [f"{part} en", f"{part} sl", f"{part} ftd"],
                              "labels": ["News", "News", "Forum"],
                              "dataset": ["CORE", "GINCO", "FTD"]})
        return _FakeHubSplit(frame, {})

    fake = type(sys)("datasets")
    fake.load_dataset = fake_load
    monkeypatch.setitem(sys.modules, "datasets", fake)
    commits = {"ag_news": "a9c0ffee", "TajaKuzmanPungersek/X-GENRE-text-genre-dataset": "b7"}
    asked = []

    class FakeApi:  # the Hub's answer: the commit each revision names now
        def dataset_info(self, path, revision=None):
            asked.append((path, revision))
            return type("Info", (), {"sha": commits[path]})()

    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    spec = get_spec("ag_news")
    before = fingerprint(spec)
    ag = load_dataset("ag_news")
    assert ag.frame["label"].tolist() == ["Business", "Sports", "Business"]
    # the split is loaded at the commit the revision resolved to, which is recorded and
    # enters the fingerprint
    assert asked[0] == ("ag_news", None)
    assert calls[0]["split"] == "test" and calls[0]["revision"] == "a9c0ffee"
    assert resolved_revision("ag_news") == "a9c0ffee"
    assert ag.fingerprint == fingerprint(spec) != before
    assert load_dataset("ag_news").fingerprint == ag.fingerprint and len(calls) == 1
    xg = load_dataset("x_genre")
    assert [(c["name"], c["split"]) for c in calls[1:]] == [
        (None, "train"), (None, "test"), (None, "dev")]
    assert xg.frame["text"].tolist() == ["train en", "train ftd", "test en", "test ftd",
                                           "dev en", "dev ftd"]
    assert len(calls) == 4
    load_dataset("x_genre")  # processed cache: the Hub is not asked again
    assert len(calls) == 4


@pytest.mark.parametrize("where", ["resolve", "load"])
def test_hub_errors_other_than_network_become_data_unavailable(where, monkeypatch, online,
                                                               tmp_path):
    """A gated repo, an unknown config or split, a broken file: DataUnavailable naming
    the dataset, not a raw library error."""
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))

    class GatedRepoError(Exception):
        pass

    class FakeApi:
        def dataset_info(self, path, revision=None):
            if where == "resolve":
                raise GatedRepoError(f"{path} is gated")
            return type("Info", (), {"sha": "c0de"})()

    def fake_load(**kwargs):
        raise ValueError("BuilderConfig 'nope' not found. Available: ['default']")

    fake = type(sys)("datasets")
    fake.load_dataset = fake_load
    monkeypatch.setitem(sys.modules, "datasets", fake)
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    expected = "GatedRepoError: user/set is gated" if where == "resolve" else \
        "ValueError: BuilderConfig 'nope' not found"
    with pytest.raises(DataUnavailable, match="'user/set', config 'nope'.*") as info:
        load_hub("user/set", name="nope", split="train")
    assert expected in str(info.value) and "huggingface-cli login" in str(info.value)
    assert resolved_revision("user/set") is None  # nothing recorded for a failed load


def test_every_entry_has_a_reader_and_says_how_it_is_tested():
    statuses = {s.name: s.status for s in catalogue.SPECS}
    unchecked = {n: st for n, st in statuses.items() if st in ("no reader", "untested")}
    assert not unchecked
    assert {st.split(";")[0] for st in statuses.values()} == {"real files", "constructed file"}
    # agreement data is flagged in the status, and only there
    for spec in catalogue.SPECS:
        assert ("; agreement only: " in spec.status) == bool(spec.license.needs_agreement)


def test_every_hub_commit_a_reader_loads_enters_the_fingerprint(monkeypatch, online, tmp_path):
    """A reader reading two Hub datasets (as EnDive does): both commits are recorded."""
    from stebkit.datasets import hub
    from stebkit.datasets.spec import DatasetSpec, License, Source, TaskConfig

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))
    commits = {"org/one": "c1", "org/two": "c2"}

    class FakeApi:
        def dataset_info(self, path, revision=None):
            return type("Info", (), {"sha": commits[path]})()

    fake = type(sys)("datasets")
    fake.load_dataset = lambda **kw: pd.DataFrame({"text": [f"{kw['path']} text"],
                                                   "label": [kw["path"]]})
    monkeypatch.setitem(sys.modules, "datasets", fake)
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)

    def reader(spec, *, seed, smoke):
        return pd.concat([hub.load_hub(p, split="test") for p in ("org/two", "org/one")])

    spec = DatasetSpec(name="two_hubs", description="", languages=("en",),
                       source=Source(note="two Hub datasets"), license=License("none"),
                       label="x", tasks={"clustering": TaskConfig()}, category="genre",
                       application="register_classification", reader=reader)
    before = fingerprint(spec)
    first = load_dataset(spec)
    assert hub.dataset_commits("two_hubs") == ["org/one@main=c1", "org/two@main=c2"]
    assert first.fingerprint == fingerprint(spec) != before
    assert load_dataset(spec).fingerprint == first.fingerprint  # from the processed cache
    commits["org/one"] = "c3"  # a new commit upstream: a new load records it
    third = load_dataset(spec, cache=False)
    assert hub.dataset_commits("two_hubs") == ["org/one@main=c3", "org/two@main=c2"]
    assert third.fingerprint not in (first.fingerprint, before)
