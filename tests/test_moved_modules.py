"""The run wing moved into ``stebkit.runs``: every old module path still answers for one
release, with the very same objects, and says where each name went."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

MOVED = [  # old module, a name, its new module, its new name
    ("stebkit.runner", "plan", "stebkit.runs.engine", "plan"),
    ("stebkit.runner", "RunContext", "stebkit.runs.engine", "RunContext"),
    ("stebkit.executors", "evaluate", "stebkit.runs.executors", "evaluate"),
    ("stebkit.executors", "Unit", "stebkit.runs.executors", "JobUnit"),
    ("stebkit.executors.jobfiles", "Unit", "stebkit.runs.executors.jobfiles", "JobUnit"),
    ("stebkit.executors.worker", "run_job", "stebkit.runs.executors.worker", "run_job"),
    ("stebkit.executors.submission", "plan_units", "stebkit.runs.executors.submission",
     "plan_units"),
    ("stebkit.executors.slurm", "slurm_states", "stebkit.runs.executors.slurm",
     "slurm_states"),
    ("stebkit.executors.states", "status", "stebkit.runs.executors.states", "status"),
    ("stebkit.presets", "preset_entries", "stebkit.tasks.presets", "preset_entries"),
    ("stebkit.preflight", "preflight", "stebkit.runs.preflight", "preflight"),
    ("stebkit.submission", "check_submission", "stebkit.records.submission",
     "check_submission"),
]


@pytest.mark.parametrize(("old", "name", "new", "new_name"), MOVED)
def test_an_old_path_gives_the_same_object_and_names_its_new_home(old, name, new, new_name):
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to {new}\.{new_name}"):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), new_name)


def test_an_unknown_name_of_an_old_path_is_an_attribute_error():
    import stebkit.runner

    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        stebkit.runner.nothing_here  # noqa: B018


def test_the_package_and_its_job_files_have_one_unit_each():
    from stebkit.runs import executors, planning

    assert planning.Unit is not executors.JobUnit
    assert not hasattr(executors, "Unit")


def test_stebkit_evaluate_lives_in_the_run_wing():
    import stebkit

    assert stebkit.evaluate.__module__ == "stebkit.runs.executors.submission"


@pytest.mark.parametrize("module", ["stebkit.executors", "stebkit.runs.executors"])
def test_a_local_worker_starts_by_either_module_path(module, tmp_path):
    payload = tmp_path / "no-such-payload.json"  # the worker reads it first
    done = subprocess.run([sys.executable, "-m", module, str(payload)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and "no-such-payload.json" in done.stderr, done
