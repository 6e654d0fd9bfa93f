"""One plan per run, one context of settings: what a run resolves, and how often."""

from __future__ import annotations

import collections
import dataclasses
import inspect
import json
import pickle
import re

import pytest

import stebkit
import stebkit.datasets
import stebkit.datasets.registry
import stebkit.encoders.zoo
from stebkit import runs
from stebkit.cli import main
from stebkit.errors import NothingRan
from stebkit.runs import Plan, RunContext, RunState, engine, executors, planning
from stebkit.runs.context import run_protocol
from stebkit.runs.encoders import prepare_encoder
from stebkit.runs.executors.submission import job_payload
from stebkit.runs.planning import _resolve_models

DATASETS = ["synthetic-authors-en", "synthetic-authors-de"]
MODELS = ["random", "tfidf-char"]


@pytest.fixture
def lookups(monkeypatch):
    """Counts of the name resolutions a run makes: dataset names in the registry, model
    names in the zoo."""
    counts: collections.Counter = collections.Counter()
    real_spec = stebkit.datasets.registry.get_spec
    real_find = stebkit.encoders.zoo.find_model

    def get_spec(name, *args, **kwargs):
        if isinstance(name, str):
            counts["dataset", name] += 1
        return real_spec(name, *args, **kwargs)

    def find(name):
        counts["model", name] += 1
        return real_find(name)

    monkeypatch.setattr(stebkit.datasets.registry, "get_spec", get_spec)
    monkeypatch.setattr(stebkit.datasets, "get_spec", get_spec)
    monkeypatch.setattr(stebkit.encoders.zoo, "find_model", find)
    return counts


def test_a_sequential_run_resolves_each_dataset_once_and_asks_the_zoo_once_per_model(
        tmp_path, lookups):
    res = runs.evaluate(MODELS, DATASETS, tasks=["retrieval", "clustering"], smoke=True,
                        output_dir=tmp_path, show_progress=False)
    assert res.ok and len(res) == 2 * 2 * 3  # retrieval e-1, clustering e1 and e2
    # each dataset name is resolved once, by the plan; each model is looked up once, by
    # the plan (its entry gives the scoring it asks for and builds it)
    assert lookups == {**{("dataset", d): 1 for d in DATASETS},
                       **{("model", m): 1 for m in MODELS}}
    # the same run again: everything is done, so no model is built at all
    lookups.clear()
    again = runs.evaluate(MODELS, DATASETS, tasks=["retrieval", "clustering"],
                          smoke=True, output_dir=tmp_path, show_progress=False)
    assert again.records == res.records
    assert lookups == {**{("dataset", d): 1 for d in DATASETS},
                       **{("model", m): 1 for m in MODELS}}


@pytest.mark.filterwarnings("ignore:.*correlation grouping needs:UserWarning")  # 2 models
def test_the_cli_resolves_and_loads_each_dataset_once(tmp_path, lookups, monkeypatch):
    # the CLI checks that the data can be reached before any model is built; the dataset
    # that check loads is the one the run evaluates
    loads: collections.Counter = collections.Counter()
    real_load = stebkit.datasets.load_dataset

    def load_dataset(dataset, *args, **kwargs):
        loads[getattr(dataset, "name", dataset)] += 1
        return real_load(dataset, *args, **kwargs)

    monkeypatch.setattr(stebkit.datasets, "load_dataset", load_dataset)
    argv = ["run", "--datasets", *DATASETS, "--models", *MODELS, "--tasks", "retrieval",
            "--smoke", "--output", str(tmp_path / "out"), "--figures", str(tmp_path / "fig"),
            "--no-progress"]
    assert main(argv) == 0
    assert loads == {d: 1 for d in DATASETS}
    assert {k: n for k, n in lookups.items() if k[0] == "dataset"} == {
        ("dataset", d): 1 for d in DATASETS}
    records = {p: p.read_bytes() for p in (tmp_path / "out").rglob("retrieval__*.json")}
    assert len(records) == len(MODELS) * len(DATASETS)
    # run again: the records made from the loaded dataset count as done (same fingerprint)
    loads.clear()
    assert main(argv) == 0
    assert {p: p.read_bytes() for p in records} == records


def test_planning_a_resumed_run_reads_each_record_there_once(tmp_path, monkeypatch):
    ctx = RunContext(smoke=True, show_progress=False)
    done = runs.run_plan(runs.plan(MODELS, DATASETS, tasks=["retrieval"], context=ctx,
                                       output_dir=tmp_path), ctx)
    reads: collections.Counter = collections.Counter()
    real_read = planning.read_record

    def read_record(path):
        reads[path] += 1
        return real_read(path)

    monkeypatch.setattr(planning, "read_record", read_record)
    again = runs.plan(MODELS, DATASETS, tasks=["retrieval", "clustering"], context=ctx,
                        output_dir=tmp_path)
    assert sorted(reads.values()) == [1] * len(done)  # the four retrieval records, once each
    assert [u.task for u, due in zip(again.units, again.pending, strict=True) if not due] == [
        "retrieval"] * len(done)
    reads.clear()  # nothing to decide from a record: none is read
    for overwrite in ("always", "never"):
        runs.plan(MODELS, DATASETS, tasks=["retrieval"], output_dir=tmp_path,
                    context=RunContext(smoke=True, overwrite=overwrite))
    assert not reads


def test_the_plan_holds_what_every_executor_runs(tmp_path):
    ctx = RunContext(smoke=True, show_progress=False)
    the_plan = runs.plan(MODELS, DATASETS[:1], tasks=["retrieval"], output_dir=tmp_path,
                           context=ctx)
    assert isinstance(the_plan, Plan)
    assert [(m.name, m.given, m.scoring) for m in the_plan.models] == [
        ("random", None, "cosine"), ("tfidf-char", None, "cosine")]
    assert the_plan.models[1].info is stebkit.encoders.zoo.MODELS["tfidf-char"]
    assert [spec.name for spec, loaded in the_plan.datasets] == DATASETS[:1]
    assert [(u.model, u.task, u.episode_size) for u in the_plan] == [
        ("random", "retrieval", -1), ("tfidf-char", "retrieval", -1)]
    assert the_plan.pending == (True, True)
    # the executors' units (one model on one dataset) come from the same plan
    assert [(u.label, u.record_paths, u.pending) for u in executors.submission.units_of(
        the_plan)] == [(f"{u.model} / {u.spec.name}", (u.path,), True) for u in the_plan]
    results = runs.run_plan(the_plan, ctx)
    assert results.ok and [r.model_name for r in results] == MODELS
    # planned again, nothing is pending
    assert runs.plan(MODELS, DATASETS[:1], tasks=["retrieval"], output_dir=tmp_path,
                       context=ctx).pending == (False, False)


def test_a_context_holds_the_run_settings_checked_once():
    ctx = RunContext(seed=7, smoke=True, batch_size=8, sampling="shuffle")
    assert ctx.protocol == run_protocol(seed=7, smoke=True, batch_size=8,
                                               sampling="shuffle")
    with pytest.raises(ValueError, match="overwrite must be one of"):
        RunContext(overwrite="sometimes")
    with pytest.raises(ValueError, match=re.escape(
            "seed must be an int in [0, 4294967296), got -1")):
        RunContext(seed=-1)
    with pytest.raises(ValueError, match="sampling must be one of"):
        RunContext(sampling="random")
    with pytest.raises(TypeError, match="a context or settings, not both"):
        runs.plan("random", DATASETS[0], context=ctx, seed=3)
    # settings change through the one checked constructor; an unknown name lists them
    assert ctx.with_settings(seed=8) == RunContext(seed=8, smoke=True, batch_size=8,
                                                   sampling="shuffle")
    with pytest.raises(ValueError, match=r"batch_size must be an int in \[1, 1000000\)"):
        ctx.with_settings(batch_size=0)
    with pytest.raises(TypeError, match="unknown run setting 'sed'; the settings are seed, "):
        ctx.with_settings(sed=8)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.seed = 8  # type: ignore[misc]
    # the models a run keeps (its state, not its settings) are built once per state
    kept = RunState().models
    (model,) = _resolve_models("tfidf-char")
    assert prepare_encoder(model, ctx, kept) is prepare_encoder(model, ctx, kept)
    assert list(kept) == [("tfidf-char", (), None, "auto")]  # name, options, device, dtype
    assert prepare_encoder(model, ctx) is not prepare_encoder(model, ctx)
    assert not hasattr(engine, "_BUILT") and not hasattr(engine, "reuse_encoders")


@pytest.fixture
def fingerprints(monkeypatch):
    """The dataset fingerprints a plan computes, by dataset name (a plan computes one per
    dataset of each planning; loading a dataset is not planning)."""
    counts: collections.Counter = collections.Counter()
    real = stebkit.datasets.fingerprint

    def fingerprint(spec, *args, **kwargs):
        counts[spec.name] += 1
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(stebkit.datasets, "fingerprint", fingerprint)
    return counts


def test_a_preset_run_plans_each_entry_once_and_asks_the_zoo_once_per_model(
        tmp_path, lookups, fingerprints):
    options = {"preset": "benchmark", "tasks": ["retrieval", "clustering"], "smoke": True}
    res = stebkit.evaluate(MODELS, DATASETS, output_dir=tmp_path, show_progress=False,
                           **options)
    # retrieval e-1 and clustering e1, e2, e5 (the preset's sizes) per model and dataset
    assert res.ok and len(res) == 2 * 2 * (1 + 3)
    # the units listed for `stebkit status` and the records run come from one planning:
    # each of the two entries planned once on each dataset
    assert fingerprints == {d: 2 for d in DATASETS}
    assert {k: n for k, n in lookups.items() if k[0] == "model"} == {
        ("model", m): 1 for m in MODELS}
    saved = [json.loads(line) for line in
             (tmp_path / "jobs" / "plan.jsonl").read_text().splitlines()]
    assert [(u["model"], u["dataset"]) for u in saved] == [
        (m, d) for m in MODELS for d in DATASETS]
    # listing the units plans each entry once too
    fingerprints.clear()
    units = executors.plan_units(MODELS, DATASETS[::-1], output_dir=tmp_path, **options)
    assert fingerprints == {d: 2 for d in DATASETS}
    assert [(u.model, u.dataset, len(u.record_paths), u.pending) for u in units] == [
        (m, d, 4, False) for m in MODELS for d in DATASETS[::-1]]


@pytest.mark.parametrize("executor", ["sequential", "local"])
def test_a_preset_with_nothing_to_run_is_refused_alike_by_every_executor(tmp_path, executor):
    with pytest.raises(NothingRan, match=r"^preset 'benchmark' runs no entry on the datasets "
                                         r"\['synthetic-authors-en'\] \(with the tasks "
                                         r"given\)"):
        stebkit.evaluate("random", ["synthetic-authors-en"], preset="benchmark",
                         tasks=["stel"], smoke=True, output_dir=tmp_path, executor=executor,
                         show_progress=False)
    assert not any(tmp_path.rglob("*.json"))  # refused before any work


def test_evaluate_takes_its_settings_as_one_context_or_by_name(tmp_path):
    assert stebkit.RunContext is RunContext
    context = stebkit.RunContext(smoke=True, show_progress=False)
    res = stebkit.evaluate("random", DATASETS[0], tasks=["retrieval"], output_dir=tmp_path,
                           context=context, seed=3)  # a setting by name over the context's
    (rec,) = res.records
    assert (rec["seed"], rec["protocol"]["smoke"], rec["protocol"]["seed"]) == (3, True, 3)
    assert context.seed == 42  # the given context is not changed
    with pytest.raises(TypeError, match="unknown run setting 'sed'; the settings are seed"):
        stebkit.evaluate("random", DATASETS[0], output_dir=tmp_path / "b", sed=3)
    assert not (tmp_path / "b").exists()  # refused before any folder is made
    params = inspect.signature(stebkit.evaluate).parameters
    assert len(params) <= 10 and not set(params) & set(RunContext.__dataclass_fields__)


def test_the_unit_function_returns_checked_records_and_writes_nothing(tmp_path):
    ctx = RunContext(smoke=True, show_progress=False)
    the_plan = runs.plan(MODELS, DATASETS, tasks=["retrieval", "clustering", "stel"],
                           output_dir=tmp_path, context=ctx)
    state = RunState()
    out = []
    for model in the_plan.models:
        encoder = prepare_encoder(model, ctx, state.models)
        for spec, _ in the_plan.datasets:
            units = [u for u in the_plan if u.model == model.name and u.spec.name == spec.name]
            state.next_model()
            out += list(engine.evaluate_units(model, encoder, units, ctx, state))
    assert not any(tmp_path.rglob("*.json"))  # the caller writes
    assert sorted(u.path for u, _ in out) == sorted(u.path for u in the_plan)
    assert all(isinstance(r, stebkit.records.record.Record) for _, r in out)
    assert {u.task: r.status for u, r in out} == {"retrieval": "ok", "clustering": "ok",
                                                 "stel": "skipped"}
    # every input is built once per dataset, task and episode configuration, for both models
    assert sorted(state.inputs) == sorted(
        {(u.spec.name, u.task, u.episode_size, u.episodes_per_label)
         for u in the_plan if u.served})
    assert set(state.datasets) == set(DATASETS)
    assert set(state.models) == {(m, (), None, "auto") for m in MODELS}
    # written by the run, the records are those the unit function returned
    def summary(records):
        return sorted((r.model_name, r["dataset"]["name"], r.task, r.status, r.main_value)
                      for r in records)

    assert summary(runs.run_plan(the_plan, ctx)) == summary(r for _, r in out)


def test_a_unit_holds_its_family_and_travels_with_its_name(tmp_path):
    from stebkit.tasks import FAMILIES

    (unit,) = runs.plan("random", DATASETS[0], tasks=["retrieval"], output_dir=tmp_path,
                          context=RunContext(smoke=True))
    assert unit.family is FAMILIES["retrieval"] and unit.task == "retrieval"
    blob = pickle.dumps(unit.family)
    assert b"retrieval" in blob and len(blob) < 200  # its name, not its fields
    assert pickle.loads(blob) is FAMILIES["retrieval"]
    # a family nobody registered cannot travel: the error names it and the fix
    stray = dataclasses.replace(FAMILIES["retrieval"], name="stray_retrieval")
    with pytest.raises(TypeError, match="task family 'stray_retrieval' is not the registered "
                                        "family of that name: register it"):
        pickle.dumps(stray)


def test_the_run_state_is_an_honestly_mutable_cache_per_run():
    state = RunState()
    state.datasets["d"] = "loaded"
    state.datasets = {}  # a cache may be let go whole
    assert state.datasets == {} and state != RunState() and state == state


def test_a_job_runs_the_plan_it_is_given_and_plans_nothing_again(tmp_path, monkeypatch,
                                                                 fingerprints):
    tasks = ["retrieval", "clustering"]
    units = executors.plan_units(MODELS, DATASETS, tasks=tasks, smoke=True,
                                 output_dir=tmp_path)
    assert [len(u.rows) for u in units] == [3] * 4  # retrieval e-1, clustering e1 and e2
    context = dataclasses.asdict(RunContext(smoke=True))
    payload = json.loads(json.dumps(job_payload("r1", tmp_path, units, context, [])))
    # what the plan says runs, and only that: a unit it marks done is not run
    skipped = payload["units"][0]["plan"].pop(1)
    payload["units"][0]["plan"].append({**skipped, "pending": False})
    fingerprints.clear()
    read = collections.Counter()
    real_read = planning.read_record
    monkeypatch.setattr(planning, "read_record",
                        lambda path, *a, **k: read.update([path]) or real_read(path, *a, **k))
    assert executors.run_job(payload)["ran"] == 4
    assert not fingerprints and not read  # nothing planned again: no fingerprint, no record
    written = sorted(p.relative_to(tmp_path).as_posix()
                     for p in tmp_path.glob("*/*/*.json"))
    rows = [r for u in payload["units"] for r in u["plan"] if r["pending"]]
    assert written == sorted(r["record"] for r in rows) and skipped["record"] not in written
    # each record is the one the sequential executor makes of that unit
    same = runs.evaluate(MODELS, DATASETS, tasks=tasks, smoke=True,
                         output_dir=tmp_path / "seq", show_progress=False)
    def values(records):
        return {(r.model_name, r["dataset"]["name"], r.task, r["episode_size"]): r.main_value
                for r in records}

    mine = values(map(stebkit.records.record.Record.read, tmp_path.glob("*/*/*.json")))
    assert len(mine) == len(rows)
    assert mine == {key: value for key, value in values(same).items() if key in mine}
