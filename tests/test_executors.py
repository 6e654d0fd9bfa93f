"""Executors: local worker processes and a real single-node SLURM (scripts/slurm-local.sh).

The reference is a sequential run computed without the embedding cache; every other
executor must write records with exactly the same metric values. The SLURM tests start
the cluster of ``scripts/slurm-local.sh`` (Debian's slurm-wlm and munge, as root) and
are skipped, with the reason, where that cannot run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stebkit import evaluate as run_sequential
from stebkit.cli import main
from stebkit.runs import executors
from stebkit.runs.executors import claim_path, read_claim, status

# the leaderboards of these small runs warn (two models; a model without results)
pytestmark = [pytest.mark.filterwarnings("ignore:.*correlation grouping needs:UserWarning"),
              pytest.mark.filterwarnings("ignore:.*with missing results:UserWarning")]

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "slurm-local.sh"
MODELS = ["random", "tfidf-char"]
FEW = ["federalist-authorship", "bible-eras", "eltec-eng-retrieval"]


def _smoke_datasets() -> list[str]:
    from stebkit.datasets import list_datasets

    return list(list_datasets(suite="smoke"))


def _records(root: Path) -> dict[str, dict]:
    """Every record under ``root`` by relative path, without run-specific fields."""
    out = {}
    for path in sorted(root.rglob("*.json")):
        if path.name.startswith(".") or "jobs" in path.relative_to(root).parts[:1]:
            continue
        rec = json.loads(path.read_text())
        out[path.relative_to(root).as_posix()] = {
            k: rec.get(k) for k in ("status", "metrics", "ci", "n_items", "per_item",
                                    "main_metric", "error", "reason", "dropped")}
    return out


def _assert_identical(got: Path, want: Path) -> None:
    a, b = _records(got), _records(want)
    assert sorted(a) == sorted(b)
    different = [k for k in a if a[k] != b[k]]
    assert not different, f"records differ: {different[:5]}"
    assert sum(r["status"] == "ok" for r in a.values()) > 0


@pytest.fixture(scope="module")
def reference(tmp_path_factory, mirror) -> Path:
    """Sequential run of the smoke suite, random and tfidf-char, embeddings not cached."""
    out = tmp_path_factory.mktemp("sequential")
    res = run_sequential(MODELS, _smoke_datasets(), smoke=True, output_dir=out,
                         show_progress=False, cache_embeddings=False)
    assert res.ok
    return out


def _subset(reference: Path, out: Path, datasets: list[str]) -> Path:
    """The records of ``datasets`` of the reference, copied to ``out``."""
    for model in MODELS:
        for d in datasets:
            shutil.copytree(reference / model / d, out / model / d)
    return out


# --------------------------------------------------------------------------- no SLURM needed


# imported first by each worker process (on PYTHONPATH): every model the zoo builds is
# written down with the process id, so that the test counts the loads of each worker
_COUNT_BUILDS = '''
import os
from stebkit.encoders import zoo

_build = zoo.build_encoder


def build_encoder(name, info, /, **options):
    with open(os.environ["STEBKIT_TEST_BUILDS"], "a") as fh:
        fh.write(f"{os.getpid()} {name}\\n")
    return _build(name, info, **options)


zoo.build_encoder = build_encoder
'''


def test_a_local_run_that_does_not_wait_leaves_no_job_folder(tmp_path):
    """Each worker removes its argument file once read, the last one the run's private
    job folder: nobody is left to clean up after a --no-wait run."""
    from stebkit.runs.executors.jobfiles import job_files_dir

    out = tmp_path / "res"
    assert main(["run", "--models", "random", "--datasets", "synthetic-authors-en",
                 "synthetic-order-en", "--tasks", "retrieval", "order_alignment", "--smoke",
                 "--output", str(out), "--figures", str(tmp_path / "fig"), "--executor",
                 "local", "--jobs", "2", "--no-wait", "--no-progress"]) == 0
    index = [json.loads(line) for line in (out / "jobs" / "index.jsonl").read_text()
             .splitlines()]
    assert len(index) == 2 and len({j["run"] for j in index}) == 1
    folder = job_files_dir(out, index[0]["run"])
    deadline = time.time() + 120
    while (folder.exists() or (status(out)["state"] != "done").any()) \
            and time.time() < deadline:
        time.sleep(0.2)
    assert not folder.exists()
    assert (status(out)["state"] == "done").all()


@pytest.mark.slow
def test_local_executor_identical_to_sequential(reference, tmp_path, monkeypatch):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_COUNT_BUILDS)
    builds = tmp_path / "builds.txt"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(hook), *filter(None, [os.environ.get("PYTHONPATH")])]))
    monkeypatch.setenv("STEBKIT_TEST_BUILDS", str(builds))
    out = tmp_path / "local"
    assert main(["run", "--suite", "smoke", "--models", *MODELS, "--output", str(out),
                 "--figures", str(tmp_path / "fig"), "--executor", "local", "--jobs", "2",
                 "--no-progress"]) == 0
    _assert_identical(out, reference)
    index = [json.loads(line) for line in (out / "jobs" / "index.jsonl").read_text()
             .splitlines()]
    assert len(index) == 2 and {j["executor"] for j in index} == {"local"}
    # both workers ran units, and each unit was run once
    logs = [Path(j["log"]).read_text() for j in index]
    assert all("done in" in log for log in logs)
    # each worker ran several chunks of a model's datasets, and built that model once
    chunks = {(j["pid"], m): len(re.findall(rf"^\[.*\] {re.escape(m)}: \d+ dataset", log, re.M))
              for j, log in zip(index, logs, strict=True) for m in MODELS}
    assert max(chunks.values()) > 1, chunks
    built = [tuple(line.split()) for line in builds.read_text().splitlines()]
    assert sorted(built) == sorted({(str(pid), m) for (pid, m), n in chunks.items() if n})
    # a second run has nothing to do: no worker starts
    assert main(["run", "--suite", "smoke", "--models", *MODELS, "--output", str(out),
                 "--figures", str(tmp_path / "fig"), "--executor", "local",
                 "--no-progress"]) == 0
    assert len((out / "jobs" / "index.jsonl").read_text().splitlines()) == 2


_TASK_NUMBERS = """
import json, sys, tempfile
from stebkit import evaluate
res = evaluate(["function-words"], ["informal-genre"], tasks=["all_to_all_pairs"],
               output_dir=tempfile.mkdtemp(), show_progress=False, cache_embeddings=False)
print(json.dumps([r["metrics"] for r in res], sort_keys=True))
"""


@pytest.mark.slow
def test_task_numbers_do_not_depend_on_the_blas_threads(mirror, tmp_path):
    # a local worker runs its BLAS on one thread, a sequential run on every core; on this
    # dataset two threads used to move an AUC in its 7th digit (0.5320419 vs 0.5320421)
    script = tmp_path / "blas_threads_run.py"
    script.write_text(_TASK_NUMBERS)
    out = {}
    for threads in ("1", "2"):
        env = {**os.environ, "OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads}
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                              text=True, check=True)
        out[threads] = json.loads(done.stdout)
    assert len(out["1"]) == 2 and out["1"] == out["2"]


PRESET_DATASETS = ["synthetic-authors-en", "synthetic-order-en", "synthetic-author-pairs-en"]


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["benchmark", "fast"])
def test_presets_run_with_the_local_executor(preset, tmp_path):
    # each preset sets every family's episode sizes and episodes per label; the units a
    # worker gets carry them, so local workers write what a sequential run writes
    argv = ["run", "--preset", preset, "--models", *MODELS, "--figures", str(tmp_path / "f"),
            "--no-progress"] + (["--datasets", *PRESET_DATASETS] if preset == "benchmark"
                                else [])
    runs = {}
    for kind in ("sequential", "local"):
        out = tmp_path / kind
        with (pytest.warns(UserWarning, match="clustering on 'sms_spam': not in the stebkit")
              if preset == "fast" else contextlib.nullcontext()):
            code = main([*argv, "--output", str(out), "--executor", kind, "--jobs", "2"])
        runs[kind] = (code, _records(out), status(out))
    (code, got, table), (want_code, want, want_table) = runs["local"], runs["sequential"]
    assert code == want_code and got == want
    assert table.drop(columns="job").equals(want_table.drop(columns="job"))
    protocol = {}
    for path in sorted((tmp_path / "local").rglob("*__e*.json")):
        rec = json.loads(path.read_text())
        protocol.setdefault(rec["task"], set()).add(
            (rec["episode_size"], rec["protocol"]["episodes_per_label"]))
    if preset == "benchmark":  # the reference's benchmark preset, not the datasets' own
        assert len(got) == 2 * 9
        ok = sorted(k for k, r in got.items() if r["status"] == "ok")
        assert [k.split("/", 1)[1] for k in ok] == 2 * [
            "synthetic-author-pairs-en/predefined_pairs__e1.json",
            "synthetic-authors-en/retrieval__e-1.json"]
        # the small synthetic labels cannot fill the preset's 50 and 100 episodes
        assert all("50 episode(s)" in r["reason"] or "100 episode(s)" in r["reason"]
                   for k, r in got.items() if k not in ok)
        assert protocol == {"clustering": {(1, 50), (2, 50), (5, 50)},
                            "all_to_all_pairs": {(1, 50), (2, 50), (5, 50)},
                            "retrieval": {(-1, 1)}, "order_alignment": {(1, 100)},
                            "predefined_pairs": {(1, 2)}}
    else:  # its datasets are not offline here: the same failed records, and no sms_spam
        assert protocol == {"order_alignment": {(1, 50)}, "all_to_all_pairs": {(1, 100)},
                            "retrieval": {(-1, 1)}, "predefined_pairs": {(1, 2)}}
        assert set(table["dataset"]) == {"corpus_of_diverse_styles", "amazon",
                                         "pan15_authorship_verification_english_test"}


@pytest.mark.slow
def test_datasets_of_one_source_are_processed_together(tmp_path, monkeypatch):
    # the UD-EWT probing sets share one spaCy analysis: the worker that processes one of
    # them processes the run's others too, and leaves datasets of other sources alone
    from stebkit.datasets import fingerprint, get_spec
    from stebkit.datasets.registry import processed_path
    from stebkit.runs.executors.worker import _prepare_datasets

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    probing = ["ud-ewt-probing-n_adj", "ud-ewt-probing-t_punct"]
    _prepare_datasets(probing[:1], {"smoke": True}, [*probing, "bible-eras"])

    def processed(name: str) -> bool:
        spec = get_spec(name)
        return processed_path(spec, fingerprint(spec, seed=42, smoke=True)) is not None

    assert [processed(n) for n in [*probing, "bible-eras", "ud-ewt-probing-n_pron"]] == [
        True, True, False, False]


_HOLDER = """
import sys, time
from pathlib import Path
from stebkit.runs.executors import Claim
claim = Claim(Path(sys.argv[1]))
assert claim.acquire({"job": "holder", "host": "here", "state": "running", "run": sys.argv[2]})
print("held", flush=True)
time.sleep(120)
"""


def _hold(path: Path, run: str = "run-1") -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path), run],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_claim_is_owned_by_one_process_and_freed_when_it_dies(tmp_path):
    path = claim_path(tmp_path, "random", "bible-eras")
    holder = _hold(path)
    try:
        held, content = read_claim(path)
        assert held and content["job"] == "holder"
        assert not executors.Claim(path).acquire({"job": "me"}, tries=2)
    finally:
        holder.kill()  # SIGKILL: no clean-up runs, the lock goes with the process
        holder.wait()
    assert read_claim(path)[0] is False
    claim = executors.Claim(path)
    assert claim.acquire({"job": "me"})
    claim.release()


@pytest.mark.parametrize(("run", "waits"), [("run-1", False), ("run-0", True)])
def test_a_sibling_jobs_running_claim_is_passed_over_at_once(tmp_path, monkeypatch, run,
                                                             waits):
    """A job of the same run holds its claim for the whole unit: no retry waits for it.
    Another holder (an instant probe by `stebkit status`) gets the quick retries."""
    from stebkit.runs.executors import jobfiles

    slept = []
    monkeypatch.setattr(jobfiles.time, "sleep", slept.append)
    path = claim_path(tmp_path, "random", "bible-eras")
    holder = _hold(path, run="run-1")
    try:
        assert not executors.Claim(path).acquire({"job": "me", "run": run}, tries=3)
    finally:
        holder.kill()
        holder.wait()
    assert slept == ([0.05, 0.1] if waits else [])


@pytest.mark.slow
def test_status_reports_done_failed_running_and_pending(reference, tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["run", "--suite", "smoke", "--models", "random", "LUAR-MUD", "--datasets",
                 *FEW, "--output", str(out), "--figures", str(tmp_path / "f"),
                 "--no-progress"]) == 1  # LUAR-MUD cannot run offline: failed records
    capsys.readouterr()
    (out / "random" / "bible-eras" / "order_alignment__e1.json").unlink()  # pending
    holder = _hold(claim_path(out, "random", "eltec-eng-retrieval"))  # running
    try:
        table = status(out)
        states = {(r.model, r.dataset): r for r in table.itertuples()}
        assert states[("random", "federalist-authorship")].state == "done"
        assert states[("random", "federalist-authorship")].records == "4/4"
        failed = states[("LUAR-MUD", "federalist-authorship")]
        assert failed.state == "failed" and "ModelUnavailable" in failed.reason
        pending = states[("random", "bible-eras")]
        assert pending.state == "pending" and pending.records == "0/1"
        assert pending.reason == "not started"
        running = states[("random", "eltec-eng-retrieval")]
        assert running.state == "running" and "holder" in running.reason
        assert len(table) == 6
        assert main(["status", str(out)]) == 3  # a unit still running: poll again
        text = capsys.readouterr().out
        assert text.splitlines()[0] == "1 done, 3 failed, 1 running, 1 pending unit(s)"
        assert "ModelUnavailable" in text and "holder" in text
    finally:
        holder.kill()
        holder.wait()
    # the pending unit is computed by a rerun, identical to the reference
    assert main(["run", "--suite", "smoke", "--models", "random", "--datasets", *FEW,
                 "--output", str(out), "--figures", str(tmp_path / "f"),
                 "--executor", "local", "--no-progress"]) == 0
    assert status(out).set_index(["model", "dataset"]).loc[
        ("random", "bible-eras"), "state"] == "done"
    want = _subset(reference, tmp_path / "want", FEW)
    got = {k: v for k, v in _records(out).items() if k.startswith("random/")}
    assert got == {k: v for k, v in _records(want).items() if k.startswith("random/")}


def test_slurm_without_slurm_names_the_units(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    code = main(["run", "--suite", "smoke", "--models", "random", "--datasets", *FEW,
                 "--output", str(tmp_path), "--executor", "slurm", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert "SLURM is not available on this machine" in err and "sbatch" in err
    assert "random / federalist-authorship" in err and "--executor local" in err


def test_bad_executor_options_are_named(tmp_path, capsys):
    assert main(["run", "--suite", "smoke", "--models", "random", "--datasets", *FEW,
                 "--output", str(tmp_path), "--executor", "slurm", "--slurm-time",
                 "soon"]) == 2
    assert "time 'soon' is not a SLURM time" in capsys.readouterr().err
    assert main(["run", "--suite", "smoke", "--models", "random", "--datasets", *FEW,
                 "--output", str(tmp_path), "--executor", "slurm", "--slurm-extra",
                 "account"]) == 2
    assert "--slurm-extra 'account': expected KEY=VALUE" in capsys.readouterr().err
    with pytest.raises(executors.ExecutorError, match="unknown option"):
        executors.executor_config({"kind": "local", "workers": 3})


def test_suite_file_sets_the_executor(tmp_path):
    from stebkit.suites import load_suite, suite_file

    rows = "".join(f"{w} text number {i}.,{'ab'[i % 2]}\n" for i, w in
                   enumerate(["One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight"]))
    (tmp_path / "d.csv").write_text("text,label\n" + rows)
    (tmp_path / "s.yaml").write_text(
        "name: tiny\nrun: {executor: {kind: local, jobs: 1}}\ndatasets:\n"
        "  - {name: tiny-exec-greetings, task: clustering, episodes_per_label: 2,\n"
        "     source: {path: d.csv}}\n")  # 4 texts per label: 2 episodes each, not 10
    suite = load_suite(tmp_path / "s.yaml")
    config = executors.executor_config(suite.run["executor"])
    assert (config.kind, config.jobs) == ("local", 1)
    assert suite_file("tiny-exec-greetings") == (tmp_path / "s.yaml").resolve()
    # the command line runs it with the suite's executor; the worker loads the suite file
    out = tmp_path / "res"
    assert main(["run", "--suite", str(tmp_path / "s.yaml"), "--models", "random",
                 "--output", str(out), "--figures", str(tmp_path / "f"),
                 "--no-progress"]) == 0
    (job,) = [json.loads(line) for line in (out / "jobs" / "index.jsonl").read_text()
              .splitlines()]
    assert job["executor"] == "local" and job["units"] == [["random", "tiny-exec-greetings"]]
    assert (status(out)["state"] == "done").all()


# --------------------------------------------------------------------------- real SLURM


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    """A single-node SLURM cluster on localhost for this module's tests."""
    missing = [c for c in ("munged", "slurmctld", "slurmd", "sbatch") if shutil.which(c) is None]
    if missing:
        pytest.skip(f"SLURM tests need Debian's slurm-wlm and munge (missing: {missing})")
    if os.geteuid() != 0:
        pytest.skip("SLURM tests start slurmd, which must run as root")
    try:
        import submitit  # noqa: F401
    except ImportError:
        pytest.skip("SLURM tests need submitit (pip install stebkit[cluster])")
    folder = tmp_path_factory.mktemp("slurm") / "cluster"
    env = {**os.environ, "STEBKIT_SLURM_CPUS": "4"}
    out = subprocess.run(["bash", str(SCRIPT), "start", str(folder)], capture_output=True,
                         text=True, env=env)
    if out.returncode != 0:
        pytest.skip(f"the local SLURM cluster did not start: {out.stderr.strip()}")
    conf = out.stdout.strip().split("=", 1)[1]
    old = os.environ.get("SLURM_CONF")
    os.environ["SLURM_CONF"] = conf
    yield conf
    subprocess.run(["bash", str(SCRIPT), "stop", str(folder)], capture_output=True)
    if old is None:
        os.environ.pop("SLURM_CONF", None)
    else:
        os.environ["SLURM_CONF"] = old


@pytest.fixture(scope="module")
def time_limited(slurm, tmp_path_factory):
    """A job past its time limit, started first because SLURM needs a minute to stop it."""
    out = tmp_path_factory.mktemp("timeout")
    proc = subprocess.Popen(
        [sys.executable, "-m", "stebkit", "run", "--suite", "smoke", "--models", "random",
         "--datasets", "bible-eras", "--output", str(out), "--executor", "slurm",
         "--slurm-time", "1", "--slurm-setup", "sleep 600", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, out


def test_slurm_run_is_identical_to_sequential(slurm, time_limited, reference, tmp_path):
    out = tmp_path / "slurm"
    assert main(["run", "--suite", "smoke", "--models", *MODELS, "--output", str(out),
                 "--figures", str(tmp_path / "fig"), "--executor", "slurm",
                 "--slurm-datasets-per-job", "13", "--slurm-cpus-per-job", "1",
                 "--no-progress"]) == 0
    _assert_identical(out, reference)
    index = [json.loads(line) for line in (out / "jobs" / "index.jsonl").read_text()
             .splitlines()]
    assert len(index) == 8  # 2 models x 4 shards of the 49 datasets
    for job in index:  # the end of each log is kept beside the results
        log = (out / "jobs" / Path(job["log"]).name).read_text()
        assert "finished" in log
        assert executors.read_outcome(out, job["run"], job["job"]) == ("success", "")
        assert len({m for m, _ in job["units"]}) == 1  # one model per job
    assert {(m, d) for j in index for m, d in j["units"]} == {
        (m, d) for m in MODELS for d in _smoke_datasets()}
    assert (status(out)["state"] == "done").all()


def _finished(out: Path) -> set[tuple[str, str]]:
    return {(m, d) for m, d in _units(out)
            if read_claim(claim_path(out, m, d))[1].get("state") == "finished"}


def _units(out: Path) -> list[tuple[str, str]]:
    return [(m, d) for m in MODELS for d in _smoke_datasets()]


def test_cancelled_job_leaves_complete_records_and_rerun_submits_only_the_rest(
        slurm, time_limited, reference, tmp_path, capsys):
    out = tmp_path / "slurm"
    argv = ["run", "--suite", "smoke", "--models", *MODELS, "--output", str(out),
            "--figures", str(tmp_path / "fig"), "--executor", "slurm",
            "--slurm-datasets-per-job", "7", "--slurm-array-parallelism", "2",
            "--no-progress"]
    assert main([*argv, "--no-wait"]) == 0
    first = [json.loads(line) for line in (out / "jobs" / "index.jsonl").read_text()
             .splitlines()]
    array = first[0]["job"].split("_")[0]
    deadline = time.time() + 300
    while len(_finished(out)) < 3 and time.time() < deadline:
        time.sleep(0.5)
    assert len(_finished(out)) >= 3, "no unit finished within 5 minutes"
    subprocess.run(["scancel", array], check=True)
    while subprocess.run(["squeue", "-h", "-j", array, "-t", "pending,running,completing"],
                         capture_output=True, text=True).stdout.strip():
        time.sleep(0.5)
    # nothing half-written: every record parses, no temporary file is left
    assert not list(out.rglob("*.tmp"))
    for path in out.rglob("*.json"):
        assert json.loads(path.read_text())["status"] in ("ok", "skipped")
    table = status(out)
    done = {(r.model, r.dataset) for r in table.itertuples() if r.state == "done"}
    pending = table[table["state"] == "pending"]
    assert done and len(pending) and not (table["state"] == "running").any()
    assert len(done) + len(pending) == len(_units(out))
    assert pending["reason"].str.contains("was cancelled|not started|queued").all()
    assert pending["reason"].str.contains(f"job {array}_").any()
    capsys.readouterr()
    # the rerun submits exactly the units that are not done
    assert main(argv) == 0
    index = [json.loads(line) for line in (out / "jobs" / "index.jsonl").read_text()
             .splitlines()]
    second = [j for j in index if j["run"] != first[0]["run"]]
    assert {(m, d) for j in second for m, d in j["units"]} == set(_units(out)) - done
    _assert_identical(out, reference)


def test_unknown_partition_is_named(slurm, tmp_path, capsys):
    code = main(["run", "--suite", "smoke", "--models", "random", "--datasets", *FEW,
                 "--output", str(tmp_path), "--executor", "slurm", "--slurm-partition",
                 "gpu-nowhere", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--slurm-partition 'gpu-nowhere': no such partition" in err
    assert "debug*" in err and "random / bible-eras" in err


def test_failing_setup_names_the_job_its_log_and_units(slurm, tmp_path, capsys):
    code = main(["run", "--suite", "smoke", "--models", "random", "--datasets", *FEW,
                 "--output", str(tmp_path), "--executor", "slurm", "--slurm-setup",
                 "module load no-such-module", "--slurm-datasets-per-job", "3",
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1
    (job,) = [json.loads(line) for line in (tmp_path / "jobs" / "index.jsonl").read_text()
              .splitlines()]
    assert f"job {job['job']} failed at start-up" in err and "--slurm-setup" in err
    kept = tmp_path / "jobs" / Path(job["err"]).name  # the private folder is gone
    assert str(kept) in err and "module" in kept.read_text()
    assert "3 unit(s) not finished and pending again" in err
    assert "random / federalist-authorship" in err
    table = status(tmp_path)
    assert (table["state"] == "pending").all()
    assert table["reason"].str.contains("failed at start-up").all()


def test_time_limit_names_the_job_its_log_and_units(time_limited):
    proc, out = time_limited
    _, err = proc.communicate(timeout=400)
    assert proc.returncode == 1, err
    job = json.loads((out / "jobs" / "index.jsonl").read_text().splitlines()[0])
    assert f"job {job['job']} stopped at its time limit (1)" in err
    assert str(out / "jobs" / Path(job["err"]).name) in err and "random / bible-eras" in err
    assert "raise --slurm-time" in err


def test_the_package_and_its_job_files_have_one_unit_each():
    from stebkit.runs import planning

    assert planning.Unit is not executors.JobUnit
    assert not hasattr(executors, "Unit")


def test_a_local_worker_starts_by_its_module_path(tmp_path):
    payload = tmp_path / "no-such-payload.json"  # the worker reads it first
    done = subprocess.run([sys.executable, "-m", "stebkit.runs.executors", str(payload)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "no-such-payload.json" in done.stderr, done
