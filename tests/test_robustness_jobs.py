"""What a run writes, and where: nothing a job loads and runs lies in the results folder,
no folder below it is a link written through, one run at a time writes there, and the exit
statuses of ``stebkit run`` and ``stebkit status`` say what happened (issue 36: items 1,
2, 6, 13 and 14).

Each test reproduces a reported defect in a scratch folder; the SLURM one uses the
single-node cluster of ``scripts/slurm-local.sh`` (see tests/test_executors.py).
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_executors import slurm  # noqa: F401 - the single-node SLURM cluster fixture

import stebkit
from stebkit import cli
from stebkit.records.results import record_path
from stebkit.runs import executors
from stebkit.runs.executors import status
from stebkit.runs.executors.jobfiles import make_job_files_dir

# the leaderboards and figures of these small runs warn (one model, two datasets)
pytestmark = [pytest.mark.filterwarnings("ignore:.*correlation grouping needs:UserWarning"),
              pytest.mark.filterwarnings("ignore:.*with missing results:UserWarning"),
              pytest.mark.filterwarnings("ignore:constrained_layout not applied:UserWarning")]

SMALL = ["synthetic-authors-en", "synthetic-order-en"]


def _run(out: Path, *extra: str, datasets=SMALL, tasks=("retrieval", "order_alignment"),
         figures: Path | None = None) -> int:
    return cli.main(["run", "--models", "random", "--datasets", *datasets,
                     *(["--tasks", *tasks] if tasks else []), "--output", str(out),
                     *(["--figures", str(figures)] if figures else []), "--no-progress",
                     *extra])


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def _index(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "jobs" / "index.jsonl").read_text()
            .splitlines()]


# --------------------------------------------------------------------------- 1: job files


def test_a_local_workers_arguments_live_in_a_private_folder_of_the_cache(tmp_path,
                                                                       monkeypatch):
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "res"
    seen = _private_folders_at_worker_start(monkeypatch)
    assert _run(out, "--executor", "local", "--jobs", "1", figures=tmp_path / "fig") == 0
    assert not [f for f in _files(out) if f.endswith((".args", ".pkl", ".sh"))], _files(out)
    (job,) = _index(out)
    folder = executors.job_files_dir(out, job["run"])
    assert folder.parent == tmp_path / "cache" / "jobs"
    (files, modes, payload), = seen[folder]
    assert files == ["local-0.args"] and payload["run"] == job["run"]
    assert modes == [0o700, 0o700]
    assert not folder.exists()  # a finished run keeps no file a job would load
    assert "finished" in Path(job["log"]).read_text()  # the log stays beside the results


def _private_folders_at_worker_start(monkeypatch) -> dict:
    """``{private job folder: [(its files, its and its parent's modes, the argument file's
    content)]}`` as each local worker's start found them (the worker removes its file
    once read)."""
    from stebkit.runs.executors import submission

    seen: dict = {}
    real = submission.subprocess.Popen

    def spy(argv, *args, **kwargs):
        if "stebkit.runs.executors" in argv:
            path = Path(argv[-1])
            seen.setdefault(path.parent, []).append((
                _files(path.parent), [stat.S_IMODE(p.stat().st_mode)
                                      for p in (path.parent, path.parent.parent)],
                json.loads(path.read_text())))
        return real(argv, *args, **kwargs)

    monkeypatch.setattr(submission.subprocess, "Popen", spy)
    return seen


def _private_folders_at_clean_up(monkeypatch) -> dict:
    """``{private job folder: [(its files, its and its parent's modes, the first
    argument file's content)]}`` as each run's clean-up found them."""
    from stebkit.runs.executors import submission

    seen: dict = {}
    real = submission._Submission.clean_up

    def spy(self):
        folder = executors.job_files_dir(self.root, self.run)
        args = sorted(folder.glob("*.args"))
        seen.setdefault(folder, []).append((
            _files(folder), [stat.S_IMODE(p.stat().st_mode) for p in (folder, folder.parent)],
            json.loads(args[0].read_text()) if args else None))
        real(self)

    monkeypatch.setattr(submission._Submission, "clean_up", spy)
    return seen


@pytest.mark.usefixtures("slurm")
def test_submitits_pickles_never_lie_in_the_results_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "res"
    seen = _private_folders_at_clean_up(monkeypatch)
    assert _run(out, "--executor", "slurm", datasets=SMALL[:1], tasks=("retrieval",),
                figures=tmp_path / "fig") == 0
    assert not [f for f in _files(out) if f.endswith((".pkl", ".sh", ".args"))], _files(out)
    (job,) = _index(out)
    folder = executors.job_files_dir(out, job["run"])
    (files, modes, _), = seen[folder]
    assert modes[0] == 0o700 and [f for f in files if f.endswith("_submitted.pkl")]
    assert Path(job["log"]).parent == folder and Path(job["log"]).name in files
    assert not folder.exists()  # a finished run keeps no file a job would load
    kept = out / "jobs" / Path(job["log"]).name  # the log's end, where status reads it
    assert "finished" in kept.read_text()
    assert cli.main(["status", str(out)]) == 0


def test_43_1_a_cache_others_may_write_keeps_no_job_files(tmp_path, monkeypatch, capsys):
    shared = tmp_path / "shared"  # a lab's shared cache: anyone may rename jobs/ away
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("STEBKIT_CACHE", str(shared / "cache"))
    out = tmp_path / "res"
    assert _run(out, "--executor", "local", "--jobs", "1", figures=tmp_path / "fig") == 2
    err = capsys.readouterr().err
    assert f"{shared} is writable by other users (mode 0777, no sticky bit)" in err
    assert "chmod go-w" in err and "STEBKIT_CACHE" in err
    assert not list((shared / "cache").rglob("*"))  # nor a processed dataset: nothing
    assert not [f for f in _files(out) if f.endswith(".json")]  # nothing ran
    with pytest.raises(executors.ExecutorError, match="is writable by other users"):
        stebkit.evaluate("random", "synthetic-authors-en", smoke=True, output_dir=out,
                         executor="local", show_progress=False)
    assert not list((shared / "cache").rglob("*"))


@pytest.mark.parametrize("mode, refused", [
    (0o770, "writable by other users (mode 0770"),  # group-writable, no sticky bit
    (0o757, "writable by other users (mode 0757"),
    (0o1777, None),  # /tmp's way: nobody renames what another user owns
    (0o755, None),
])
def test_43_1_every_folder_above_the_job_files_is_checked(tmp_path, monkeypatch, mode,
                                                           refused):
    above = tmp_path / "lab" / "users"
    above.mkdir(parents=True)
    (tmp_path / "lab").chmod(mode)
    monkeypatch.setenv("STEBKIT_CACHE", str(above / "me" / "cache"))
    if refused is None:
        folder = make_job_files_dir(tmp_path / "res", "20260101T000000-abc123")
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        return
    with pytest.raises(executors.ExecutorError, match=re.escape(f"{tmp_path / 'lab'} "
                                                                f"is {refused}")):
        make_job_files_dir(tmp_path / "res", "20260101T000000-abc123")


@pytest.mark.skipif(os.getuid() != 0, reason="handing a folder to another user needs root")
def test_43_1_a_folder_of_another_user_above_the_job_files_is_refused(tmp_path,
                                                                      monkeypatch):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, 65534, 65534)  # nobody's: it could rename anything in it
    monkeypatch.setenv("STEBKIT_CACHE", str(theirs / "cache"))
    with pytest.raises(executors.ExecutorError, match=f"{theirs} belongs to another user"):
        make_job_files_dir(tmp_path / "res", "20260101T000000-abc123")
    linked = tmp_path / "linked"  # a link on the path is judged by what it leads to too
    linked.symlink_to(theirs)
    monkeypatch.setenv("STEBKIT_CACHE", str(linked / "cache"))
    with pytest.raises(executors.ExecutorError, match=f"{theirs} belongs to another user"):
        make_job_files_dir(tmp_path / "res", "20260101T000000-abc123")


# --------------------------------------------------------------------------- 2: links


@pytest.mark.parametrize("executor", ["sequential", "local"])
def test_a_linked_jobs_folder_is_refused_and_nothing_lands_where_it_points(
        tmp_path, capsys, executor):
    out, elsewhere = tmp_path / "res", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "jobs").symlink_to(elsewhere)
    assert _run(out, "--executor", executor, "--jobs", "1", figures=tmp_path / "fig") == 2
    err = capsys.readouterr().err
    assert f"{out / 'jobs'} is a symbolic link" in err
    assert not list(elsewhere.iterdir())


@pytest.mark.parametrize("folder", ["random", f"random/{SMALL[0]}", "figures"])
def test_a_linked_folder_below_the_output_is_refused_and_its_target_untouched(
        tmp_path, capsys, folder):
    out, victim = tmp_path / "res", tmp_path / "victim"
    victim.mkdir()
    (out / folder).parent.mkdir(parents=True)
    (out / folder).symlink_to(victim)  # model, dataset or figures folder: checked where
    assert _run(out) == 2  # each file is written, not once before the run
    assert f"{out / folder} is a symbolic link or not a folder" in capsys.readouterr().err
    assert not list(victim.iterdir())


# --------------------------------------------------------------------------- 6: run lock


# a run that, once planned, waits for the test's word before it computes anything
_HELD_RUN = '''
import sys, time
from pathlib import Path
from stebkit.runs import engine
from stebkit.cli import main

started, go = Path(sys.argv[2]), Path(sys.argv[3])
_run_plan = engine.run_plan


def run_plan(*args, **kwargs):
    started.touch()
    while not go.exists():
        time.sleep(0.05)
    return _run_plan(*args, **kwargs)


engine.run_plan = run_plan
sys.exit(main(["run", "--models", "random", "--datasets", "synthetic-authors-en",
               "synthetic-order-en", "--tasks", "retrieval", "order_alignment",
               "--output", sys.argv[1], "--no-progress", "--figures", sys.argv[4]]))
'''


def test_a_second_concurrent_run_refuses_naming_the_first(tmp_path, capsys):
    out = tmp_path / "res"
    started, go = tmp_path / "started", tmp_path / "go"
    first = subprocess.Popen([sys.executable, "-c", _HELD_RUN, str(out), str(started),
                              str(go), str(tmp_path / "fig")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while not started.exists() and first.poll() is None and time.time() < deadline:
            time.sleep(0.1)
        assert started.exists(), first.communicate()
        assert _run(out, "--smoke", figures=tmp_path / "fig2") == 2
        err = capsys.readouterr().err
        assert f"{out} is being written by another run" in err
        assert f"pid {first.pid}" in err and "smoke False" in err
        assert not [p for p in out.rglob("*.json")]  # the second run wrote nothing
    finally:
        go.touch()
        _, first_err = first.communicate(timeout=300)
    assert first.returncode == 0, first_err
    protocols = {json.loads(p.read_text())["protocol"]["smoke"] for p in out.rglob("*.json")}
    assert protocols == {False}
    # once the first has ended, the folder is free again
    assert _run(out, figures=tmp_path / "fig") == 0


def test_the_jobs_of_one_run_share_its_lock_and_another_run_is_refused(tmp_path):
    out = tmp_path / "res"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path\n"
         "from stebkit.runs.executors import run_lock\n"
         "with run_lock(Path(sys.argv[1]), {'run': 'r1', 'pid': 1}):\n"
         "    print('held', flush=True); time.sleep(60)", str(out)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with executors.run_lock(out, {"run": "r1"}):  # a job of the same run joins it
            pass
        with pytest.raises(executors.RunBusy, match="another run \\(run r1, pid 1\\)"):
            with executors.run_lock(out, {"run": "r2"}):
                pass
    finally:
        holder.kill()
        holder.wait()
    with executors.run_lock(out, {"run": "r2"}):  # free once its holder is gone
        pass


# --------------------------------------------------------------------------- 13: exits


def test_a_run_whose_results_were_all_skipped_exits_1(tmp_path, capsys):
    out = tmp_path / "res"
    assert _run(out, "--episodes-per-label", "999999", datasets=SMALL[:1],
                tasks=("clustering",), figures=tmp_path / "fig") == 1
    err = capsys.readouterr().err
    assert "stebkit: nothing ran: all 2 result(s) were skipped (e.g. dataset " \
           f"'{SMALL[0]}', task 'clustering', field 'episodes_per_label'" in err


_HOLD_CLAIM = '''
import sys, time
from pathlib import Path
from stebkit.runs.executors import Claim, claim_path
claim = Claim(claim_path(Path(sys.argv[1]), "random", sys.argv[2]), Path(sys.argv[1]))
assert claim.acquire({"job": "test-job", "host": "here"})
print("held", flush=True)
time.sleep(60)
'''


def test_status_exit_status_says_done_failed_or_still_running(tmp_path, capsys):
    out = tmp_path / "res"
    assert _run(out, datasets=SMALL[:1], tasks=("retrieval",), figures=tmp_path / "fig") == 0
    assert cli.main(["status", str(out)]) == 0  # every unit done
    plan = out / "jobs" / "plan.jsonl"
    missing = record_path(out, "random", SMALL[1], "order_alignment", 1)
    with plan.open("a") as fh:  # a unit no job runs: pending with nothing to run it
        fh.write(json.dumps({"model": "random", "dataset": SMALL[1], "records": [
            missing.relative_to(out).as_posix()]}) + "\n")
    assert cli.main(["status", str(out)]) == 1
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_CLAIM, str(out), SMALL[1]],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert cli.main(["status", str(out)]) == 3  # running: poll again
    finally:
        holder.kill()
        holder.wait()
    # queued for a live local worker: still to come
    (out / "jobs" / "index.jsonl").write_text(json.dumps(
        {"job": "local-0", "executor": "local", "run": "r1", "host": os.uname().nodename,
         "pid": os.getpid(), "units": [["random", SMALL[1]]], "log": "x.log"}) + "\n")
    assert cli.main(["status", str(out)]) == 3
    assert "exit status: 0 every unit done; 1 a unit failed" in cli.build_parser() \
        ._subparsers._group_actions[0].choices["status"].format_help()


# --------------------------------------------------------------------------- 14: messages


def _suite(tmp_path: Path, path: str) -> Path:
    suite = tmp_path / "s.yaml"
    suite.write_text("name: special\ndatasets:\n  - name: special-set\n    task: clustering\n"
                     f"    source: {{path: {path}}}\n")
    return suite


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_suite_source_that_is_no_regular_file_is_named_as_such(tmp_path, capsys, kind):
    from stebkit.suites import load_suite

    source = tmp_path / "data.csv"
    if kind == "fifo":
        os.mkfifo(source)
    else:
        source.symlink_to("/dev/zero")
    words = "FIFO (named pipe)" if kind == "fifo" else "character device"
    with pytest.raises(ValueError, match="'data.csv' is not a regular file") as err:
        load_suite(_suite(tmp_path, "data.csv"))
    assert words in str(err.value) and "not found" not in str(err.value)


def _dead_local_job(out: Path, log: Path) -> None:
    jobs = out / "jobs"
    jobs.mkdir(parents=True, exist_ok=True)
    (jobs / "plan.jsonl").write_text(json.dumps(
        {"model": "random", "dataset": SMALL[0],
         "records": [f"random/{SMALL[0]}/retrieval__e-1.json"]}) + "\n")
    (jobs / "index.jsonl").write_text(json.dumps(
        {"job": "local-0", "executor": "local", "run": "r1", "host": os.uname().nodename,
         "pid": 2 ** 22 + 7, "units": [["random", SMALL[0]]], "log": str(log)}) + "\n")


def test_status_names_an_outcome_file_replaced_by_a_link(tmp_path):
    out = tmp_path / "res"
    _dead_local_job(out, out / "jobs" / "local-r1-0.log")
    outcome = executors.outcome_path(out, "r1", "local-0")
    outcome.parent.mkdir(parents=True)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({"state": "success", "error": ""}))
    outcome.symlink_to(forged)
    (row,) = status(out).itertuples()
    assert f"{outcome} is a symbolic link" in row.reason
    assert "ended before running it" not in row.reason


def test_status_of_a_copied_folder_names_only_its_own_logs(tmp_path):
    original, copy = tmp_path / "orig", tmp_path / "copy"
    log = original / "jobs" / "local-r1-0.log"
    _dead_local_job(original, log)
    log.write_text("worker log\n")
    _dead_local_job(copy, log)  # the index copied as it was: it names the original's log
    (row,) = status(copy).itertuples()
    assert str(original) not in row.reason and "no log of it in this results folder" \
        in row.reason
    (copy / "jobs" / log.name).write_text("worker log\n")  # the log copied along
    (row,) = status(copy).itertuples()
    assert f"log: {copy / 'jobs' / log.name}" in row.reason
