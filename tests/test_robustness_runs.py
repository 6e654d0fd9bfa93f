"""The run lifecycle at its boundaries: what a results folder holds is never trusted, a
run replaces no number unless asked, stops cleanly, and its exit status says whether
everything ran.

Each test reproduces a reported defect in a scratch folder; the SLURM ones use the
single-node cluster of ``scripts/slurm-local.sh`` (see tests/test_executors.py).
"""

from __future__ import annotations

import errno
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_executors import slurm  # noqa: F401 - the single-node SLURM cluster fixture

import stebkit
from stebkit import cli
from stebkit.records.results import Results
from stebkit.runs import executors
from stebkit.runs.executors import claim_path, status

# the leaderboards and figures of these small runs warn (one model, two datasets)
pytestmark = [pytest.mark.filterwarnings("ignore:.*correlation grouping needs:UserWarning"),
              pytest.mark.filterwarnings("ignore:.*with missing results:UserWarning"),
              pytest.mark.filterwarnings("ignore:constrained_layout not applied:UserWarning")]

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["synthetic-authors-en", "synthetic-order-en"]


def _run(out: Path, *extra: str, datasets=SMALL, tasks=("retrieval", "order_alignment")
         ) -> int:
    return cli.main(["run", "--models", "random", "--datasets", *datasets,
                     *(["--tasks", *tasks] if tasks else []), "--output", str(out),
                     "--figures", str(out.parent / "fig"), "--no-progress", *extra])


def _records(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.json"))
            if p.relative_to(root).parts[0] != "jobs"}


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


# --------------------------------------------------------------------------- status (1)


class _Exploit:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def test_status_never_unpickles_a_file_of_the_results_folder(tmp_path, monkeypatch, capsys):
    out = tmp_path / "res"
    jobs = out / "jobs"
    jobs.mkdir(parents=True)
    marker = tmp_path / "owned"
    evil = jobs / "evil.pkl"
    evil.write_bytes(pickle.dumps(_Exploit(marker)))
    (jobs / "plan.jsonl").write_text(json.dumps(
        {"model": "random", "dataset": "bible-eras",
         "records": ["random/bible-eras/order_alignment__e1.json"]}) + "\n")
    (jobs / "index.jsonl").write_text(json.dumps(
        {"job": "999_0", "executor": "slurm", "run": "r1", "units": [["random", "bible-eras"]],
         "result": str(evil), "log": str(jobs / "999_0_log.out"),
         "err": str(jobs / "999_0_log.err"), "time": "1"}) + "\n")
    monkeypatch.setattr(executors.slurm, "slurm_states", lambda ids: {})  # SLURM forgot the job
    assert cli.main(["status", str(out)]) == 1  # pending, no job left to run it
    assert not marker.exists(), "status ran code from a pickle of the results folder"
    text = capsys.readouterr().out
    assert "0 done, 0 failed, 0 running, 1 pending unit(s)" in text and "999_0" in text
    # the job's own outcome is JSON, read field by field: a forged one is an error of its own
    path = executors.outcome_path(out, "r1", "999_0")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"state": ["success"]}))
    (row,) = status(out).itertuples()
    assert "is not one stebkit wrote" in row.reason and not marker.exists()
    path.write_text(json.dumps({"state": "error", "error": "RuntimeError: boom"}))
    (row,) = status(out).itertuples()
    assert "job 999_0 failed: RuntimeError: boom" in row.reason


def test_status_refuses_a_linked_record_instead_of_following_it(tmp_path, capsys):
    out = tmp_path / "res"
    (out / "random" / "bible-eras").mkdir(parents=True)
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    (out / "random" / "bible-eras" / "order_alignment__e1.json").symlink_to(outside)
    with pytest.raises(ValueError, match="is a symbolic link; stebkit does not follow"):
        status(out)
    assert cli.main(["status", str(out)]) == 2
    assert "symbolic link" in capsys.readouterr().err


# --------------------------------------------------------------------------- claims (2, 7)


def test_a_claim_that_is_a_link_is_refused_and_its_target_untouched(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    out = tmp_path / "res"
    link = claim_path(out, "random", SMALL[0])
    link.parent.mkdir(parents=True)
    link.symlink_to(notes)
    code = _run(out, "--executor", "local", "--jobs", "1")
    assert code == 2 and notes.read_text() == "my notes\n"
    err = capsys.readouterr().err
    assert f"{link} is a symbolic link or not a regular file" in err
    assert not _records(out)  # refused before anything ran
    # the worker's own claim refuses it too, and a linked folder of the claims as well
    with pytest.raises(executors.ExecutorError, match="symbolic link"):
        executors.Claim(link, out).acquire({"job": "me"})
    link.unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link.parent.rmdir()
    link.parent.symlink_to(elsewhere)
    with pytest.raises(executors.ExecutorError, match=f"{link.parent} is a symbolic link"):
        executors.Claim(link, out).acquire({"job": "me"})
    assert notes.read_text() == "my notes\n" and not list(elsewhere.iterdir())


def test_names_that_escape_alike_have_claims_of_their_own(tmp_path):
    rows = "".join(f"Text number {i} by author {'ab'[i % 2]}.,{'ab'[i % 2]}\n"
                   for i in range(24))
    (tmp_path / "d.csv").write_text("text,label\n" + rows)
    (tmp_path / "s.yaml").write_text(
        "name: escapes\ndatasets:\n"
        "  - {name: team/set, task: clustering, source: {path: d.csv}}\n"
        "  - {name: team__set, task: clustering, source: {path: d.csv}}\n")
    out = tmp_path / "res"
    for executor in ("local", "sequential"):
        target = out / executor
        assert cli.main(["run", "--suite", str(tmp_path / "s.yaml"), "--models", "random",
                         "tfidf-char", "--episode-sizes", "1", "--output", str(target),
                         "--figures", str(tmp_path / "f"), "--executor", executor,
                         "--jobs", "1", "--no-progress"]) == 0
    got, want = _records(out / "local"), _records(out / "sequential")
    assert len(want) == 4 and sorted(got) == sorted(want)
    table = status(out / "local")
    assert len(table) == 4 and (table["state"] == "done").all()
    # what the jobs keep beside the records is no record
    assert len(Results.load(out / "local")) == 4


# --------------------------------------------------------------------------- settings (6)


def test_a_run_with_other_settings_replaces_no_record(tmp_path, capsys):
    out = tmp_path / "res"
    assert _run(out) == 0
    before = _records(out)
    assert len(before) == 4
    for extra, diff in ((["--smoke"], "smoke False there, True in this run"),
                        (["--seed", "7"], "seed 42 there, 7 in this run"),
                        (["--sampling", "shuffle"], "sampling 'reference' there"),
                        (["--smoke", "--executor", "local", "--jobs", "1"], "smoke False")):
        capsys.readouterr()
        assert _run(out, *extra) == 2, extra
        (line,) = _lines(capsys.readouterr().err)
        assert diff in line and "--overwrite always" in line and "2 record(s)" in line
        assert _records(out) == before
    with pytest.raises(ValueError, match="seed 42 there, 7 in this run"):
        stebkit.evaluate("random", SMALL, tasks=["retrieval"], seed=7, output_dir=out,
                         show_progress=False)
    assert _records(out) == before
    # asked for: replaced
    assert _run(out, "--seed", "7", "--overwrite", "always") == 0
    after = _records(out)
    assert sorted(after) == sorted(before) and all(after[k] != before[k] for k in before)
    assert {json.loads(v)["protocol"]["seed"] for v in after.values()} == {7}


# --------------------------------------------------------------------------- Ctrl-C (16)


# imported first by the run (on PYTHONPATH): each record written takes a while, and the
# first one leaves a marker, so that the test interrupts the run in its middle
_SLOW_RECORDS = '''
import os, time
from stebkit.records import results

_write = results.write_record


def write_record(path, record):
    out = _write(path, record)
    open(os.environ["STEBKIT_TEST_MARKER"], "a").write(f"{path}\\n")
    time.sleep(1.0)
    return out


results.write_record = write_record
'''


def _as_in_a_terminal() -> None:
    """Ctrl-C's default action in the child, as in a terminal's foreground job: a test
    run started in the background (a shell without job control) ignores SIGINT, and a
    process inherits that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.parametrize("executor", ["sequential", "local"])
def test_ctrl_c_prints_one_line_and_the_rerun_resumes(executor, tmp_path):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_SLOW_RECORDS)
    marker = tmp_path / "written.txt"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hook), str(ROOT)]),
           "STEBKIT_TEST_MARKER": str(marker)}
    out = tmp_path / "res"
    argv = [sys.executable, "-m", "stebkit", "run", "--models", "random", "--datasets",
            *SMALL, "--tasks", "retrieval", "order_alignment", "clustering", "--output",
            str(out), "--figures", str(tmp_path / "f"), "--no-progress", "--executor",
            executor, "--jobs", "1"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=_as_in_a_terminal)
    deadline = time.time() + 120
    while not marker.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert marker.exists(), proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the whole process group
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    (line,) = _lines(err)
    from stebkit.runs import plan

    total = len(plan("random", SMALL, tasks=["retrieval", "order_alignment", "clustering"]))
    written = _records(out)
    assert 0 < len(written) < total
    assert line == (f"stebkit: interrupted; {len(written)} complete record(s) are saved in "
                    f"{out}; run the same command again to resume")
    # the rerun computes only the rest
    env.pop("PYTHONPATH")
    done = subprocess.run(argv, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    after = _records(out)
    assert len(after) == total and {k: after[k] for k in written} == written


# --------------------------------------------------------------------------- full cache (18)


@pytest.mark.parametrize(("code", "errno_", "words"), [
    (1, errno.ENOSPC, "no space left on device (the disk or quota is full)"),
    (2, errno.EROFS, "read-only file system; choose a folder on a writable disk")])
def test_a_full_or_read_only_cache_stops_the_run_at_its_first_error(
        tmp_path, monkeypatch, capsys, code, errno_, words):
    from stebkit.errors import inject_fault

    cache = tmp_path / "cache"
    monkeypatch.setenv("STEBKIT_CACHE", str(cache))
    calls = []

    def cache_fault(path):
        if path.parent.is_relative_to(cache):
            calls.append(path.parent)
            raise OSError(errno_, os.strerror(errno_), str(path.parent / "x.tmp"))

    out = tmp_path / "res"
    with inject_fault("write", cache_fault):
        assert _run(out, datasets=[*SMALL, "synthetic-author-pairs-en"],
                    tasks=("retrieval", "predefined_pairs", "clustering")) == code
    (line,) = _lines(capsys.readouterr().err)
    assert line.startswith(f"stebkit: error: cannot write {cache}") or \
        line.startswith(f"stebkit: error: cannot access {cache}")
    assert words in line and len(calls) == 1
    assert not [r for r in _records(out).values() if json.loads(r)["status"] == "failed"]
    # the Python API raises it too, instead of a failed record per result
    with pytest.raises(OSError, match=os.strerror(errno_)), inject_fault("write", cache_fault):
        stebkit.evaluate("random", SMALL, tasks=["retrieval"], output_dir=out,
                         show_progress=False)


# --------------------------------------------------------------------------- exit codes (29)


def test_a_run_needs_a_suite_datasets_or_a_preset(tmp_path, monkeypatch, capsys):
    def started(*args, **kwargs):
        raise AssertionError("a run started without --suite, --datasets or --preset")

    monkeypatch.setattr(stebkit.runs, "evaluate", started)
    assert cli.main(["run", "--models", "random", "--output", str(tmp_path / "r")]) == 2
    (line,) = _lines(capsys.readouterr().err)
    assert "--suite lite" in line and "--datasets" in line and "--preset" in line


def test_a_run_without_its_data_fails_with_one_summary_line(tmp_path, monkeypatch, capsys):
    # no mirror and no network: nothing can be loaded, which is no success
    monkeypatch.delenv("STEBKIT_MIRROR", raising=False)
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "res"
    datasets = ["federalist-authorship", "bible-eras"]
    assert _run(out, datasets=datasets, tasks=None) == 2  # stopped before any model
    captured = capsys.readouterr()
    assert "| " not in captured.out  # no leaderboard
    (line,) = _lines(captured.err)
    assert "none of the 2 datasets of this run can be loaded" in line
    assert "export STEBKIT_MIRROR=" in line
    assert not _records(out)
    # the Python API: the same failures, visible in the results it returns
    res = stebkit.evaluate("random", datasets, output_dir=out, show_progress=False)
    assert not res.ok and set(res.with_status("failed")["dataset"]) == set(datasets)
    assert (res.with_status("failed")["failure"] == "data_unavailable").all()


# --------------------------------------------------------------------------- local counts (24)


# imported first by the worker (on PYTHONPATH): it dies (SIGKILL) right after writing its
# third record, in the middle of a chunk of datasets
_DIE_AFTER_THREE = '''
import os, signal
from stebkit.records import results

_write = results.write_record
_n = [0]


def write_record(path, record):
    out = _write(path, record)
    _n[0] += 1
    if _n[0] == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return out


results.write_record = write_record
'''


def test_a_dead_worker_counts_its_units_as_status_does(tmp_path, monkeypatch, capsys):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_DIE_AFTER_THREE)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(hook), str(ROOT)]))
    out = tmp_path / "res"
    datasets = [*SMALL, "synthetic-author-pairs-en", "synthetic-authors-es"]
    # one record per unit; one worker takes the units in chunks of two datasets
    assert _run(out, "--executor", "local", "--jobs", "1", datasets=datasets,
                tasks=("retrieval",)) == 1
    err = capsys.readouterr().err
    table = status(out)
    pending = table[table["state"] == "pending"]
    assert list(table["state"]) == ["done", "done", "done", "pending"]
    assert f"{len(pending)} unit(s) not finished and pending again: random / " \
           f"{datasets[3]}" in err
    assert "signal SIGKILL" in err


# --------------------------------------------------------------------------- SLURM (24)

# imported first by each job (sbatch passes the environment on): once its units are
# written, the job says so and waits, to be cancelled by the test
_WAIT_WHEN_DONE = '''
import os, time
from stebkit.runs.executors import worker

_run_job = worker.run_job


def run_job(payload):
    out = _run_job(payload)
    with open(os.environ["STEBKIT_TEST_MARKER"], "a") as fh:
        fh.write(os.environ["SLURM_JOB_ID"] + "\\n")
    time.sleep(600)
    return out


worker.run_job = run_job
'''


@pytest.mark.usefixtures("slurm")
def test_a_job_cancelled_after_its_units_were_written_is_no_failure(tmp_path, monkeypatch,
                                                                   capsys):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_WAIT_WHEN_DONE)
    marker = tmp_path / "done.txt"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(hook), str(ROOT)]))
    monkeypatch.setenv("STEBKIT_TEST_MARKER", str(marker))

    def cancel() -> None:
        deadline = time.time() + 300
        while not marker.exists() and time.time() < deadline:
            time.sleep(0.5)
        if marker.exists():
            subprocess.run(["scancel", marker.read_text().split()[0]], check=True)

    canceller = threading.Thread(target=cancel)
    canceller.start()
    out = tmp_path / "res"
    code = _run(out, "--executor", "slurm", "--slurm-datasets-per-job", "2")  # one job
    canceller.join()
    assert marker.exists(), capsys.readouterr().err
    err = capsys.readouterr().err
    assert code == 0, err
    assert "not finished" not in err and "cancelled" not in err
    assert (status(out)["state"] == "done").all()


@pytest.mark.usefixtures("slurm")
def test_a_job_queued_behind_a_drained_node_shows_slurms_reason(tmp_path, capsys):
    node = subprocess.run(["sinfo", "-h", "-N", "-o", "%N"], capture_output=True, text=True,
                          check=True).stdout.split()[0]
    subprocess.run(["scontrol", "update", f"NodeName={node}", "State=DRAIN",
                    "Reason=disk check"], check=True)
    out = tmp_path / "res"
    try:
        assert _run(out, "--executor", "slurm", "--slurm-datasets-per-job", "2",
                    "--no-wait") == 0
        (job,) = [json.loads(line) for line in (out / "jobs" / "index.jsonl").read_text()
                  .splitlines()]
        def reason() -> str:
            return subprocess.run(["squeue", "-h", "-j", job["job"], "-o", "%r"],
                                  capture_output=True, text=True).stdout.strip()

        deadline = time.time() + 60
        while reason() in ("", "None") and time.time() < deadline:  # named on its next pass
            time.sleep(0.5)
        before = reason()
        table = status(out)
        said = {f"queued in job {job['job']} (pending: {why})" for why in (before, reason())}
        assert before not in ("", "None") and (table["state"] == "pending").all()
        assert set(table["reason"]) <= said, (table["reason"].tolist(), said)
    finally:
        for job in (out / "jobs" / "index.jsonl").read_text().splitlines():
            subprocess.run(["scancel", json.loads(job)["job"]], capture_output=True)
        subprocess.run(["scontrol", "update", f"NodeName={node}", "State=RESUME"],
                       capture_output=True)
