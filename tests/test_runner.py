"""evaluate(): records, skip-before-load, resume after interruption, overwrite, failures."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stebkit import evaluate
from stebkit.datasets.spec import Dataset, DatasetSpec, License, Source, TaskConfig
from stebkit.encoders.base import BaseEncoder
from stebkit.records.results import Results, read_record, record_path
from stebkit.runs.planning import ProtocolMismatch
from stebkit.tasks import FAMILIES

MARKERS = "qwxzjk"


@pytest.fixture(autouse=True)
def fewer_resamples(monkeypatch):
    """100 bootstrap resamples instead of 1000 keep these tests fast."""
    monkeypatch.setattr("stebkit.runs.context.N_RESAMPLES", 100)


class MarkerEncoder(BaseEncoder):
    """Deterministic toy encoder: counts of marker letters plus a text-hash jitter."""

    name = "marker"
    revision = "1"
    embedding_dim = len(MARKERS) + 2

    def __init__(self, fail_on: str | None = None, interrupt_after: int | None = None):
        self.calls: list[int] = []
        self.fail_on = fail_on
        self.interrupt_after = interrupt_after

    def encode(self, texts, *, batch_size=32, show_progress=False):
        self.calls.append(len(texts))
        if self.interrupt_after is not None and len(self.calls) > self.interrupt_after:
            raise KeyboardInterrupt
        if self.fail_on is not None and any(self.fail_on in t for t in texts):
            raise RuntimeError(f"cannot encode {self.fail_on!r} texts")
        out = np.empty((len(texts), self.embedding_dim), dtype=np.float32)
        for i, t in enumerate(texts):
            jitter = np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8)
            out[i, :len(MARKERS)] = [t.count(m) for m in MARKERS]
            out[i, len(MARKERS):] = 1.0 + jitter[:2] / 255.0
        return out


class EpisodeEncoder(MarkerEncoder):
    """An encoder with its own episode embedding: the element-wise max, not the mean."""

    name = "episodic"

    def __init__(self):
        super().__init__()
        self.episode_sizes: list[int] = []

    def encode_episodes(self, episodes, *, batch_size=32, show_progress=False):
        self.episode_sizes += [len(ep) for ep in episodes]
        return np.stack([self.encode(list(ep)).max(axis=0) for ep in episodes])


def spec(name: str, tasks: dict, category: str = "idiolect") -> DatasetSpec:
    return DatasetSpec(name=name, description="toy", languages=("en",), source=Source(),
                       license=License("CC0-1.0"), label="author", tasks=tasks,
                       category=category, application="authorship_attribution")


def authors_dataset(name: str = "toy_authors", n_per_label: int = 12,
                    word: str = "") -> Dataset:
    """Four authors; every row also carries side, split and a pair id."""
    rows = []
    for k, label in enumerate("abcd"):
        for i in range(n_per_label):
            text = f"{MARKERS[k] * (2 + i % 3)} {word} sample {label}{i} {MARKERS[(k + i) % 6]}"
            rows.append({"text": text, "label": label, "side": ["query", "target"][i % 2],
                         "split": ["train", "train", "validation", "test"][i % 4]})
    frame = pd.DataFrame(rows)
    frame["pair"] = [f"p{j // 2}" for j in range(len(frame))]
    # neighbours share a label except where the label changes; mix in cross-label pairs
    partner = frame["label"].to_numpy()
    frame["same"] = [bool(partner[j] == partner[j ^ 1]) for j in range(len(frame))]
    swap = frame.index[(frame.index % 8) == 1]
    cross = frame.loc[swap, "text"].to_numpy()
    frame.loc[swap, "text"] = np.roll(cross, 3)
    frame.loc[swap, "same"] = False
    frame.loc[swap - 1, "same"] = False
    tasks = {"clustering": TaskConfig((1, 2), 3), "all_to_all_pairs": TaskConfig((1,), 4),
             "retrieval": TaskConfig((-1,), 1), "predefined_pairs": TaskConfig((1,), 2),
             "probing": TaskConfig((1,), 1)}
    return Dataset(spec(name, tasks), frame, f"fp-{name}")


def ordered_dataset(name: str = "toy_ordered") -> Dataset:
    rows = []
    for label, marker in (("formality", "q"), ("simplicity", "w")):
        for g in range(4):
            for p in range(3):
                rows.append({"text": f"{marker * (3 - p)} {label} set{g} pos{p} "
                                     f"{MARKERS[(g + p) % 6] * p}",
                             "label": label, "group": f"{label}{g}", "position": p})
    return Dataset(spec(name, {"order_alignment": TaskConfig((1,), 3)}, "linguistic_features"),
                   pd.DataFrame(rows), f"fp-{name}")


def run(tmp: Path, encoder=None, datasets=None, **kw) -> Results:
    kw.setdefault("show_progress", False)
    kw.setdefault("cache_embeddings", False)
    return evaluate(encoder or MarkerEncoder(), datasets or [authors_dataset(),
                                                             ordered_dataset()],
                    output_dir=tmp, **kw)


def mtimes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*.json")}


def age(root: Path) -> None:
    """Set every record's mtime to the past so a rewrite is detectable."""
    for p in root.rglob("*.json"):
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))


CHEAP = ("retrieval", "predefined_pairs", "order_alignment")  # no model fitting: fast
EXPECTED = {("toy_authors", "clustering", 1), ("toy_authors", "clustering", 2),
            ("toy_authors", "all_to_all_pairs", 1), ("toy_authors", "retrieval", -1),
            ("toy_authors", "predefined_pairs", 1), ("toy_authors", "probing", 1),
            ("toy_ordered", "order_alignment", 1)}


def test_every_task_family_gives_an_ok_record_that_matches_a_direct_computation(tmp_path):
    res = run(tmp_path)
    assert res.ok and len(res) == len(EXPECTED)
    assert {(r["dataset"]["name"], r["task"], r["episode_size"]) for r in res} == EXPECTED
    enc = MarkerEncoder()
    for r in res:
        assert r["status"] == "ok", r.get("error")
        path = record_path(tmp_path, "marker", r["dataset"]["name"], r["task"],
                           r["episode_size"])
        assert read_record(path) == r
        ds = authors_dataset() if r["dataset"]["name"] == "toy_authors" else ordered_dataset()
        family = FAMILIES[r["task"]]
        ti = family.build(ds.frame, episode_size=r["episode_size"],
                          episodes_per_label=r["episodes_per_label"], seed=42)
        direct = family.evaluate(ti, ti.pool(enc.encode(list(ti.texts))), seed=42)
        main = r["main_metric"]
        assert r["metrics"][main] == pytest.approx(direct[main], abs=1e-12)
        assert r["ci"]["low"] <= r["metrics"][main] <= r["ci"]["high"]
        assert r["ci"]["level"] == 0.95 and r["ci"]["resamples"] == 100
        units = len(family.item_ids(ti, direct)) or ti.n_items  # the bootstrap's units
        assert r["n_items"] == units and r["dataset"]["fingerprint"].startswith("fp-")
        assert r["model"] == {"name": "marker", "revision": "1", "category": "custom"}
        assert r["protocol"]["pooling"] == "mean" and r["protocol"]["seed"] == 42
        if r["task"] != "all_to_all_pairs":
            assert len(r["per_item"]["ids"]) == len(r["per_item"]["values"]) > 0
    frame = res.main_frame()
    assert len(frame) == len(EXPECTED) and frame["value"].notna().all()
    assert (frame["model_category"] == "custom").all()
    assert set(Results.load(tmp_path).main_frame()["value"]) == set(frame["value"])


def test_two_runs_with_the_same_seed_give_identical_records(tmp_path):
    a = run(tmp_path / "a")
    b = run(tmp_path / "b")
    strip = ("date", "runtime_s", "encode_s")
    for ra, rb in zip(a, b, strict=True):
        assert {k: v for k, v in ra.items() if k not in strip} == \
            {k: v for k, v in rb.items() if k not in strip}
    c = run(tmp_path / "c", seed=1)
    assert [r["metrics"] for r in c] != [r["metrics"] for r in a]


def test_existing_records_are_skipped_before_loading_the_model(tmp_path, monkeypatch):
    run(tmp_path)
    before = mtimes(tmp_path)

    import stebkit.encoders as encoders

    def no_load(name, **kw):
        raise AssertionError("the model must not be loaded when every record exists")

    monkeypatch.setattr(encoders, "get_encoder", no_load, raising=False)
    res = evaluate("marker", [authors_dataset(), ordered_dataset()], output_dir=tmp_path,
                   show_progress=False, cache_embeddings=False)
    assert res.ok and len(res) == len(EXPECTED)
    assert mtimes(tmp_path) == before


def test_an_interrupted_run_resumes_without_recomputing_what_was_written(tmp_path):
    # the second encode call (second dataset) is interrupted like a Ctrl-C
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path, MarkerEncoder(interrupt_after=1), tasks=CHEAP)
    done = mtimes(tmp_path)
    missing = "marker/toy_ordered/order_alignment__e1.json"
    assert len(done) == 2 * len(CHEAP) - 1 and missing not in done
    assert not list(tmp_path.rglob("*.tmp"))
    enc = MarkerEncoder()
    res = run(tmp_path, enc, tasks=CHEAP)
    assert res.ok and len(res) == 2 * len(CHEAP)
    after = mtimes(tmp_path)
    assert {k: after[k] for k in done} == done  # nothing already written was recomputed
    assert set(after) - set(done) == {missing}
    assert len(enc.calls) == 1  # only the missing dataset was encoded
    clean = run(tmp_path / "clean", tasks=CHEAP)
    assert [r["metrics"] for r in res] == [r["metrics"] for r in clean]


def test_a_record_scored_another_way_is_recomputed_and_old_cosine_records_are_kept(tmp_path):
    # records written before protocol.scoring existed were all scored by cosine
    class L1Marker(MarkerEncoder):
        scoring = "l1"

    tasks = ("predefined_pairs", "retrieval")
    run(tmp_path, tasks=tasks, datasets=[authors_dataset()])
    for path in tmp_path.rglob("*.json"):  # as a record of before the scoring key
        rec = json.loads(path.read_text())
        assert rec["protocol"].pop("scoring") == "cosine"
        path.write_text(json.dumps(rec))
    age(tmp_path)
    before = mtimes(tmp_path)
    run(tmp_path, tasks=tasks, datasets=[authors_dataset()])
    assert mtimes(tmp_path) == before  # a cosine model: nothing to redo
    res = run(tmp_path, L1Marker(), tasks=tasks, datasets=[authors_dataset()])
    changed = {k for k, v in mtimes(tmp_path).items() if v != before[k]}
    # pairs are scored by L1 for such a model, retrieval stays cosine (as the reference)
    assert changed == {"marker/toy_authors/predefined_pairs__e1.json"}
    assert {r["task"]: r["protocol"].get("scoring", "old cosine") for r in res} == {
        "predefined_pairs": "l1", "retrieval": "old cosine"}


def test_a_failure_is_recorded_and_the_other_results_are_kept(tmp_path):
    res = run(tmp_path, MarkerEncoder(fail_on="formality"), tasks=CHEAP)
    assert not res.ok
    failed = res.with_status("failed")
    assert failed[["dataset", "task"]].values.tolist() == [["toy_ordered", "order_alignment"]]
    assert "RuntimeError: cannot encode 'formality' texts" in failed["error"].iloc[0]
    rec = read_record(tmp_path / "marker/toy_ordered/order_alignment__e1.json")
    assert rec["status"] == "failed" and "RuntimeError" in rec["traceback"]
    assert [r["status"] for r in res if r["dataset"]["name"] == "toy_authors"] == \
        ["ok", "ok", "skipped"]  # retrieval, predefined pairs; order alignment is not served
    frame = res.to_frame()
    assert frame.loc[frame["status"] == "failed", "value"].isna().all()
    # only-missing retries the failed record and leaves the others alone
    age(tmp_path)
    before = mtimes(tmp_path)
    res = run(tmp_path, tasks=CHEAP)
    assert res.ok
    changed = {k for k, v in mtimes(tmp_path).items() if v != before[k]}
    assert changed == {"marker/toy_ordered/order_alignment__e1.json"}


def test_overwrite_strategies(tmp_path):
    run(tmp_path, MarkerEncoder(fail_on="formality"), tasks=CHEAP)
    age(tmp_path)
    before = mtimes(tmp_path)
    res = run(tmp_path, overwrite="never", tasks=CHEAP)  # leaves every file, even a failure
    assert mtimes(tmp_path) == before and not res.ok
    res = run(tmp_path, overwrite="always", tasks=CHEAP)
    assert res.ok and all(v != before[k] for k, v in mtimes(tmp_path).items())
    age(tmp_path)
    before = mtimes(tmp_path)
    run(tmp_path, datasets=[authors_dataset()], seed=7, overwrite="never", tasks=CHEAP)
    assert mtimes(tmp_path) == before
    with pytest.raises(ProtocolMismatch, match="seed 42 there, 7 in this run"):
        run(tmp_path, datasets=[authors_dataset()], seed=7, tasks=CHEAP)  # not replaced...
    assert mtimes(tmp_path) == before
    res = run(tmp_path, datasets=[authors_dataset()], seed=7, tasks=CHEAP,
              overwrite="always")  # ...unless asked
    assert {r["seed"] for r in res} == {7}
    changed = {k for k, v in mtimes(tmp_path).items() if v != before[k]}
    assert changed == {k for k in before if k.startswith("marker/toy_authors/")}
    age(tmp_path)
    before = mtimes(tmp_path)
    changed_data = Dataset(authors_dataset().spec, authors_dataset().frame, "fp-v2")
    res = run(tmp_path, datasets=[changed_data], seed=7, tasks=CHEAP)  # new fingerprint
    assert {r["dataset"]["fingerprint"] for r in res} == {"fp-v2"}
    assert {k for k, v in mtimes(tmp_path).items() if v != before[k]} == changed
    with pytest.raises(ValueError, match="overwrite must be one of"):
        run(tmp_path, overwrite="sometimes")


def test_unserved_and_empty_tasks_are_skipped_with_a_reason(tmp_path):
    small = authors_dataset("tiny_authors", n_per_label=2)
    res = run(tmp_path, datasets=[small], tasks=["clustering", "order_alignment"])
    assert res.ok
    by_task = {(r["task"], r["episode_size"]): r for r in res}
    oa = by_task[("order_alignment", 1)]
    assert oa["status"] == "skipped" and "does not serve task 'order_alignment'" in oa["reason"]
    clus = by_task[("clustering", 2)]  # 2 texts per label < 2 x 3 needed
    assert clus["status"] == "skipped"
    assert "task 'clustering', field 'episodes_per_label'" in clus["reason"]
    assert clus["dropped"]["labels"] == 4
    assert any("FilterWarning" in w for w in clus["warnings"])
    assert len(res.with_status("skipped")) == 3  # clustering e1 and e2 need 3 texts per label too
    with pytest.raises(ValueError, match="unknown task"):
        run(tmp_path, tasks=["clusterin"])


def test_an_encoder_with_its_own_episode_embedding_is_used_for_episodes(tmp_path):
    enc = EpisodeEncoder()
    res = run(tmp_path, enc, datasets=[authors_dataset()], tasks=["clustering"])
    assert res.ok and {r["protocol"]["pooling"] for r in res} == {"encoder"}
    assert sorted(set(enc.episode_sizes)) == [1, 2]
    e2 = next(r for r in res if r["episode_size"] == 2)
    ti = FAMILIES["clustering"].build(authors_dataset().frame, episode_size=2,
                        episodes_per_label=3)
    direct = FAMILIES["clustering"].evaluate(ti, enc.encode_episodes(ti.episode_texts()),
                                             seed=42)
    assert e2["metrics"]["v_measure"] == pytest.approx(direct["v_measure"])


def test_the_embedding_cache_serves_a_rerun(tmp_path, monkeypatch):
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    tasks = ["retrieval", "predefined_pairs", "order_alignment"]
    first = MarkerEncoder()
    a = run(tmp_path / "a", first, cache_embeddings=True, tasks=tasks)
    assert sum(first.calls) > 0
    again = MarkerEncoder()
    b = run(tmp_path / "b", again, cache_embeddings=True, tasks=tasks)
    assert again.calls == []  # every text came from the cache
    assert [r["metrics"] for r in a] == [r["metrics"] for r in b]


def test_records_are_plain_json_with_the_documented_keys(tmp_path):
    run(tmp_path, datasets=[authors_dataset()], tasks=["retrieval"])
    rec = json.loads((tmp_path / "marker/toy_authors/retrieval__e-1.json").read_text())
    assert {"schema", "stebkit_version", "model", "dataset", "task", "episode_size",
            "episodes_per_label", "seed", "protocol", "main_metric", "metrics", "ci",
            "n_items", "per_item", "runtime_s", "date", "status"} <= set(rec)
    assert set(rec["dataset"]) == {"name", "fingerprint", "source_sha256", "category",
                                   "languages", "application"}
    assert rec["main_metric"] == "mrr" and rec["ci"]["unit"] == "query"
    assert rec["per_item"]["ids"] == ["query:a", "query:b", "query:c", "query:d"]
    # one result shape: float metrics, integer counts, a stated direction, schema 2
    assert rec["schema"] == 2 and rec["higher_is_better"] is True
    assert rec["counts"] == {"n_queries": 4, "n_queries_dropped": 0, "n_distractors": 0}
    assert "n_queries" not in rec["metrics"] and isinstance(rec["metrics"]["mrr"], float)


def test_unknown_model_names_fail_before_anything_runs(tmp_path):
    with pytest.raises(ValueError, match="unknown model 'randm'.*random"):
        evaluate(["random", "randm"], [authors_dataset()], output_dir=tmp_path,
                 show_progress=False)
    assert not list(tmp_path.rglob("*.json"))


def test_a_model_that_cannot_be_had_here_is_recorded_as_failed(tmp_path):
    res = evaluate(["LUAR-MUD"], [authors_dataset()], tasks=["retrieval", "order_alignment"],
                   output_dir=tmp_path, show_progress=False)
    status = {r["task"]: r["status"] for r in res}
    assert status == {"retrieval": "failed", "order_alignment": "skipped"}
    assert "ModelUnavailable" in res.with_status("failed")["error"].iloc[0]
    assert "trust_remote_code" in res.with_status("failed")["error"].iloc[0]
    assert res.main_frame()["model_category"].tolist() == ["style", "style"]


# one real smoke dataset per task family (checked against the registry below)
SMOKE = ("synthetic-authors-en", "synthetic-author-pairs-en", "synthetic-order-en",
         "ud-ewt-probing-n_pron")


def test_real_smoke_datasets_every_task_family_deterministic(tmp_path, mirror):
    from stebkit.datasets import get_spec, list_datasets

    assert set(SMOKE) <= set(list_datasets(suite="smoke"))
    assert {t for name in SMOKE for t in get_spec(name).tasks} == set(FAMILIES.steb())
    a = evaluate("random", list(SMOKE), output_dir=tmp_path / "a", smoke=True,
                 show_progress=False)
    assert a.ok and not len(a.with_status("skipped")), a.with_status("skipped")
    assert {r["task"] for r in a} == set(FAMILIES.steb())
    frame = a.main_frame()
    assert frame["value"].between(0, 1).all() and (frame["model_category"] == "non_neural").all()
    for r in a:
        assert r["dataset"]["fingerprint"] and r["protocol"]["smoke"] is True
        assert r["ci"]["low"] <= r["metrics"][r["main_metric"]] <= r["ci"]["high"]
    seeded = ["synthetic-authors-en", "ud-ewt-probing-n_pron"]  # k-means and probe seeds
    b = evaluate("random", seeded, tasks=["clustering", "probing"], output_dir=tmp_path / "b",
                 smoke=True, show_progress=False)
    again = [(r["task"], r["metrics"], r["per_item"]) for r in b if r["status"] == "ok"]
    assert len(again) == 3 and len(b.with_status("skipped")) == 4  # tasks the other dataset serves
    assert again == [(r["task"], r["metrics"], r["per_item"]) for r in a
                     if r["task"] in ("clustering", "probing")]
