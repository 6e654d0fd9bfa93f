"""Files read and written through the one opener and the one writer (issue 43, items 4 to
11): export never writes through a link, files named on the command line and the files of
``<output>/jobs`` are read without hanging or blowing up, a held lock is named, figures draw
names as written, an import and a run share the run lock and a slot, a preset refuses what
it does not run, a finished run leaves nothing behind.

Each test reproduces a reported defect in a scratch folder, most with the cheap run
``stebkit run --datasets federalist-authorship --smoke --models random``.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import threading
import tracemalloc
from pathlib import Path

import pandas as pd
import pytest

from stebkit import cli

pytestmark = [pytest.mark.filterwarnings("ignore:.*correlation grouping needs:UserWarning"),
              pytest.mark.filterwarnings("ignore:.*with missing results:UserWarning"),
              pytest.mark.filterwarnings("ignore:constrained_layout not applied:UserWarning")]


def _r0(out: Path, *extra: str) -> int:
    """The issue's cheap run into ``out``."""
    return cli.main(["run", "--datasets", "federalist-authorship", "--smoke", "--models",
                     "random", "--output", str(out), "--figures", str(out.parent / "fig"),
                     "--no-progress", *extra])


@pytest.fixture
def r0(tmp_path, monkeypatch, capsys) -> Path:
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    assert _r0(tmp_path / "r0") == 0
    capsys.readouterr()
    return tmp_path / "r0"


def _stebkit(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """``stebkit ARGS`` in a process of its own (a hang is a failure, not a hung test)."""
    return subprocess.run([sys.executable, "-m", "stebkit", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=timeout, env=os.environ.copy())


# --------------------------------------------------------------------------- 4: export


def test_4_export_overwrite_never_writes_through_a_planted_folder_link(r0, capsys):
    out, elsewhere = r0.parent / "ex", r0.parent / "elsewhere"
    assert cli.main(["export", str(r0), str(out)]) == 0
    elsewhere.mkdir()
    (dataset,) = [p for p in out.iterdir() if p.is_dir()]
    (model,) = list(dataset.iterdir())
    os.rename(model, r0.parent / "moved")
    model.symlink_to(elsewhere)  # another user's link in place of a folder of OUT
    capsys.readouterr()
    assert cli.main(["export", str(r0), str(out), "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert f"{model} is a symbolic link or not a folder" in err
    assert list(elsewhere.iterdir()) == []


def test_4_names_with_dot_segments_are_refused_where_records_are_read(tmp_path):
    from stebkit.records.results import Record
    from stebkit.records.steb_format import export_steb

    record = {"schema": 2, "model": {"name": "/a/../.."}, "dataset": {"name": "d"},
              "task": "clustering", "episode_size": 1, "episodes_per_label": 10,
              "status": "ok", "main_metric": "v_measure", "metrics": {"v_measure": 0.5},
              "protocol": {"seed": 42, "smoke": True}}
    with pytest.raises(ValueError, match=r"field 'model.name' is not usable \(model name "
                                         r"'/a/\.\./\.\.' could reach outside its folder"):
        Record.from_json(record, where="r.json")
    assert Record.from_json({**record, "model": {"name": "/models/mine"}}).model_name \
        == "/models/mine"  # a local model folder's path stays a usable name
    with pytest.raises(ValueError, match=r"model name '/a/\.\./\.\.' gives the folder '\.\.'"):
        export_steb([record], tmp_path / "out")
    assert not (tmp_path / "out").exists() and sorted(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- 5: files


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "fifo.yaml"
    os.mkfifo(path)
    return path


def test_5_validate_refuses_a_fifo_and_a_link_to_a_device_at_once(tmp_path, fifo):
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    done = _stebkit("validate", "fifo.yaml", "zero.yaml", cwd=tmp_path)
    assert done.returncode == 1
    said = done.stdout + done.stderr
    assert "fifo.yaml: not a regular file (a FIFO)" in said
    assert "zero.yaml: not a regular file (a character device)" in said


def test_5_run_names_a_fifo_suite_file_as_such(tmp_path, fifo):
    done = _stebkit("run", "--suite", "fifo.yaml", "--models", "random", "--output", "r",
                    cwd=tmp_path)
    assert done.returncode == 2
    assert "fifo.yaml: not a regular file (a FIFO)" in done.stderr
    assert "no such suite file" not in done.stderr


def test_5_submission_check_refuses_fifo_files(tmp_path, fifo):
    for option in ("--submissions", "--models-file"):
        done = _stebkit("submission", "check", str(tmp_path), "--model", "org/m", option,
                        "fifo.yaml", cwd=tmp_path)
        assert "fifo.yaml: not a regular file (a FIFO)" in done.stdout + done.stderr, option


@pytest.mark.parametrize("name", ["index.jsonl", "plan.jsonl"])
def test_5_a_planted_huge_job_file_is_refused_unread(r0, capsys, name):
    path = r0 / "jobs" / name
    path.unlink(missing_ok=True)
    with open(path, "wb") as fh:  # 5 GB, sparse: nothing of it need be read
        fh.truncate(5 * 2**30)
    tracemalloc.start()
    code = cli.main(["status", str(r0)])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert code == 2 and peak < 64 * 2**20
    assert f"{path}: larger than 268,435,456 bytes" in capsys.readouterr().err


def test_5_a_jobs_file_that_is_a_fifo_is_named_not_waited_on(r0, capsys):
    os.mkfifo(r0 / "jobs" / "index.jsonl")
    assert cli.main(["status", str(r0)]) == 2
    assert "index.jsonl: not a regular file (a FIFO)" in capsys.readouterr().err


def test_5_a_jobs_log_is_read_from_its_end(tmp_path, monkeypatch):
    from stebkit.runs.executors.slurm import job_outcome

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    log = tmp_path / "jobs" / "7_0_0_log.err"
    log.parent.mkdir()
    with open(log, "wb") as fh:
        fh.seek(512 * 2**20)  # a planted 512 MB log (sparse), the reason at its end
        fh.write(b"slurmstepd: error: *** JOB 7 CANCELLED AT 2026-01-01 ***\n")
    tracemalloc.start()
    why = job_outcome(tmp_path, {"job": "7_0", "run": "r", "err": str(log)}, {})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert why == "was cancelled (scancel)" and peak < 8 * 2**20


# --------------------------------------------------------------------------- 6: the mutex


def test_6_a_held_run_mutex_times_out_naming_its_holder(tmp_path, monkeypatch):
    from stebkit.runs.executors import jobfiles

    (tmp_path / "jobs").mkdir()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, os, sys, time
        fd = os.open({str(tmp_path / 'jobs' / '.run.mutex')!r}, os.O_RDWR | os.O_CREAT)
        fcntl.lockf(fd, fcntl.LOCK_EX)
        print("held", flush=True)
        time.sleep(60)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(jobfiles, "LOCK_WAIT_S", 0.5)
        outcome: list = []

        def take() -> None:
            try:
                with jobfiles.run_lock(tmp_path, {"run": "mine"}):
                    outcome.append("taken")
            except jobfiles.RunBusy as err:
                outcome.append(str(err))

        thread = threading.Thread(target=take, daemon=True)
        thread.start()
        thread.join(timeout=30)
        assert not thread.is_alive(), "the run waited on the held mutex without end"
    finally:
        holder.kill()
        holder.wait()
    (message,) = outcome
    assert message.startswith(f"{tmp_path / 'jobs' / '.run.mutex'} has been locked for 0.5 s")
    assert "stop it or remove the file" in message


def test_6_the_mutex_holder_is_named_by_what_it_wrote(tmp_path, monkeypatch):
    from stebkit.runs.executors import jobfiles

    code = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from stebkit.runs.executors import jobfiles
        with jobfiles.file_lock(Path({str(tmp_path / 'm')!r})):
            print("held", flush=True)
            time.sleep(60)
        """)
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(jobfiles, "LOCK_WAIT_S", 0.2)
        with pytest.raises(jobfiles.RunBusy, match=rf"locked for 0.2 s by pid {holder.pid}, "):
            with jobfiles.file_lock(tmp_path / "m"):
                pass
    finally:
        holder.kill()
        holder.wait()


# --------------------------------------------------------------------------- 7


def test_7_model_names_are_drawn_as_written_never_as_formulas(tmp_path):
    from stebkit import plots

    names = ["m$_$", "$x$", "b"]
    board = pd.DataFrame({"model": names, "model_category": ["style", "semantic", "baseline"],
                          "clustering": [0.1, 0.2, 0.3], "retrieval": [0.2, 0.3, 0.4],
                          "steb_score": [0.1, 0.2, 0.3], "steb_ci_low": [0.05, 0.1, 0.2],
                          "steb_ci_high": [0.2, 0.3, 0.4]})
    for draw in (plots.figure1, plots.task_heatmap):
        ax = draw(board, directory=tmp_path).figure.axes[0]
        labels = ax.get_yticklabels()
        assert sorted(t.get_text() for t in labels) == sorted(names)
        assert not any(t.get_parse_math() for t in labels)


def test_7_make_figures_names_a_disk_error_without_a_traceback(tmp_path, monkeypatch,
                                                               capsys):
    import repo_scripts

    tool = repo_scripts.load("scripts/execute_notebooks.py")
    builder = tool.site_builder()
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / "00_a.ipynb").write_text("{}", encoding="utf-8")
    for name, value in (("ROOT", tmp_path), ("NOTEBOOKS", notebooks),
                        ("FIGURES", tmp_path / "figures")):
        monkeypatch.setattr(tool, name, value)
    monkeypatch.setenv("STEBKIT_FIGURES", "elsewhere")  # restored after the test

    def full_disk(path, *, full, output, timeout):
        raise OSError(errno.ENOSPC, "No space left on device", str(output))

    monkeypatch.setattr(builder, "execute_notebook", full_disk)
    assert tool.main([]) == 1
    err = capsys.readouterr().err
    assert "00_a.ipynb: cannot write" in err and "No space left on device" in err
    assert "free space" in err and "Traceback" not in err


def test_7_an_interrupted_export_to_a_relative_folder_resumes(r0, capsys):
    assert cli.main(["export", "r0", "ex"]) == 0  # relative, from the working folder
    written = sorted(Path("ex").rglob("metrics.json"))
    written[0].unlink()  # the export was killed before its first file
    capsys.readouterr()
    assert cli.main(["export", "r0", "ex"]) == 0, capsys.readouterr().err
    assert written[0].is_file()


def test_7_the_longest_name_accepted_still_fits_every_file_name_made_of_it(tmp_path):
    from stebkit._io import check_name
    from stebkit.names import LONGEST_SUFFIX, MAX_FILE_NAME_BYTES, file_name

    with pytest.raises(ValueError, match="becomes a file name of 223 bytes"):
        check_name("a/" * 74 + "a", "dataset")  # 149 bytes, fine before
    longest = "a/" * 69 + "ab"
    assert check_name(longest, "dataset") == longest
    assert len(file_name(longest)) + LONGEST_SUFFIX == MAX_FILE_NAME_BYTES
    with pytest.raises(ValueError, match="becomes a file name of 210 bytes"):
        check_name(longest + "c", "dataset")
    # the longest file stebkit makes of it: a checksum's temporary file beside a
    # processed dataset (registry: <name>-<fingerprint>.parquet.sha256, atomic_file)
    made = f".{file_name(longest)}-{'0' * 16}.parquet.sha256.abcd1234.tmp"
    os.close(os.open(tmp_path / made, os.O_CREAT | os.O_WRONLY))


# --------------------------------------------------------------------------- 8


def test_8_import_waits_for_no_run_it_would_write_under(r0, capsys):
    ex = r0.parent / "ex"
    assert cli.main(["export", str(r0), str(ex)]) == 0
    target = r0.parent / "res"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from pathlib import Path
        from stebkit.runs.executors.jobfiles import run_lock
        with run_lock(Path({str(target)!r}), {{"run": "a-running-run", "pid": 1}}):
            print("held", flush=True)
            time.sleep(60)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        capsys.readouterr()
        assert cli.main(["import", str(ex), str(target)]) == 2
    finally:
        holder.kill()
        holder.wait()
    err = capsys.readouterr().err
    assert "is being written by another run (run a-running-run" in err
    assert not list(target.glob("random/**/*.json"))


def test_8_a_run_never_adds_a_second_result_beside_an_imported_one(r0, capsys):
    ex, res = r0.parent / "ex", r0.parent / "res"
    assert cli.main(["export", str(r0), str(ex)]) == 0
    assert cli.main(["import", str(ex), str(res)]) == 0
    before = sorted(p.name for p in res.rglob("*.json"))
    capsys.readouterr()
    assert _r0(res) == 2
    err = capsys.readouterr().err
    assert "clustering__e1_n10.json holds an imported result of random / " \
           "federalist-authorship / clustering (episode size 1)" in err
    assert sorted(p.name for p in res.rglob("*.json")) == before


# --------------------------------------------------------------------------- 9


@pytest.mark.filterwarnings("ignore:preset 'fast'.*that entry is not run:UserWarning")
def test_9_a_preset_refuses_unknown_datasets_and_says_when_nothing_ran(tmp_path, capsys,
                                                                      monkeypatch):
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    base = ["run", "--preset", "fast", "--models", "random", "--smoke", "--no-progress",
            "--output", str(tmp_path / "r")]
    assert cli.main([*base, "--datasets", "nope"]) == 2
    assert "unknown dataset 'nope'" in capsys.readouterr().err
    assert cli.main([*base, "--datasets", "federalist-authorship"]) == 1
    err = capsys.readouterr().err
    assert "stebkit: nothing ran: preset 'fast' runs no entry on the datasets " \
           "['federalist-authorship']" in err
    assert not (tmp_path / "r").exists()


def test_9_a_slurm_job_that_left_no_trace_is_of_unknown_state(tmp_path, monkeypatch):
    from stebkit.runs.executors.slurm import job_outcome

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    why = job_outcome(tmp_path, {"job": "41_2", "run": "r", "log": "41_2_0_log.out",
                                 "err": "41_2_0_log.err"}, {})
    assert why.startswith("ended, state unknown") and "sacct -j 41_2" in why
    assert "start-up" not in why


# --------------------------------------------------------------------------- 10


def test_10_a_start_that_fails_on_a_full_disk_leaves_no_private_folder(tmp_path,
                                                                      monkeypatch, capsys):
    from stebkit.errors import inject_fault

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))

    def full(path):  # the disk fills as the worker's arguments are written
        if path.suffix == ".args":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))

    with inject_fault("write", full):
        assert _r0(tmp_path / "r", "--executor", "local", "--jobs", "1") != 0
    assert "the disk or quota is full" in capsys.readouterr().err
    assert (tmp_path / "cache" / "jobs").is_dir()
    assert not list((tmp_path / "cache" / "jobs").iterdir())


def test_10_a_resumed_save_removes_what_a_killed_one_left(tmp_path):
    from matplotlib.figure import Figure

    from stebkit import plots

    stray = tmp_path / ".demo.pdf.k3j9x2q1.tmp"
    stray.write_bytes(b"%PDF half")
    fig = Figure()
    fig.add_subplot().plot([0, 1])
    plots.save(fig, "demo", tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.pdf", "demo.png"]
