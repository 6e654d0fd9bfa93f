"""The docstring examples of the repository's scripts hold: the suite's doctests
(``--doctest-modules`` over ``stebkit/``, ``tests/`` and ``benchmarks/``) do not reach
``docs/`` and ``scripts/``, so they are run here."""

from __future__ import annotations

import doctest
import re
import sys

import pytest
import repo_scripts

SCRIPTS = ("docs/build_site.py", "docs/griffe_markup.py", "scripts/execute_notebooks.py",
           "scripts/time_notebooks.py", "scripts/gpu_bundle.py")


@pytest.mark.parametrize("script", SCRIPTS)
def test_docstring_examples_of_the_script_hold(script, monkeypatch):
    module = repo_scripts.load(script)
    # doctest keeps the examples of the objects whose module is the one in sys.modules
    monkeypatch.setitem(sys.modules, module.__name__, module)
    failed, tried = doctest.testmod(module, report=False)
    assert tried > 0, f"{script}: no docstring example found"
    assert failed == 0, f"{script}: {failed} of {tried} docstring examples fail (run " \
        f"`pytest --doctest-modules {script}` to see them)"


# ------------------------------------------------------------ the tests' system packages

PREREQUISITES = repo_scripts.ROOT / "scripts" / "system-prerequisites.sh"


def _tools(folder, **scripts):
    """Executables named after the keywords, each a shell script with the given body."""
    folder.mkdir(exist_ok=True)
    for name, body in scripts.items():
        tool = folder / name.replace("_", "-")
        tool.write_text(f"#!/bin/sh\n{body}\n")
        tool.chmod(0o755)
    return folder


def _prerequisites(path, sbin=None):
    """The prerequisite step with ``path`` as PATH and ``sbin`` (default: none) as the
    system folders it also looks in."""
    import shutil
    import subprocess

    return subprocess.run([shutil.which("bash"), str(PREREQUISITES)], capture_output=True,
                          text=True, timeout=60,
                          env={"PATH": str(path), "SBIN_DIRS": str(sbin or path / "none")})


def test_the_prerequisite_step_names_what_to_install_when_it_cannot(tmp_path):
    """Not root: one line naming every missing package, and a failing status."""
    done = _prerequisites(_tools(tmp_path / "bin", id="echo 1000", slurmctld="true",
                                 pdflatex="true", kpsewhich="true"))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "apt-get install -y chromium munge" in done.stderr
    assert "slurm-wlm" not in done.stderr and "texlive" not in done.stderr  # both there
    done = _prerequisites(_tools(tmp_path / "tex", id="echo 1000", slurmctld="true",
                                 chromium="true", munged="true", kpsewhich="exit 1"))
    assert "apt-get install -y texlive-latex-base texlive-latex-recommended" in done.stderr


def test_the_prerequisite_step_installs_the_missing_packages_as_root(tmp_path):
    log = tmp_path / "apt.log"
    bin_dir = _tools(tmp_path / "bin", id="echo 0", munged="true",
                     apt_get=f'echo "$@" >> {log}')
    done = _prerequisites(bin_dir)
    assert done.returncode == 0, done.stderr
    wait = "-o DPkg::Lock::Timeout=600"  # another package manager's lock is waited for
    assert log.read_text().splitlines() == [
        f"{wait} update -q", f"{wait} install -y -q chromium slurm-wlm texlive-latex-base "
                             "texlive-latex-recommended"]


def test_the_prerequisite_step_finds_daemons_outside_the_users_path(tmp_path):
    sbin = _tools(tmp_path / "sbin", slurmctld="true", munged="true")
    done = _prerequisites(_tools(tmp_path / "bin", id="echo 1000", chromium="true",
                                 pdflatex="true", kpsewhich="true"), sbin)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_prerequisite_step_says_another_package_manager_is_running(tmp_path):
    locked = ('echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by '
              'process 4242 (apt-get)" >&2; exit 100')
    done = _prerequisites(_tools(tmp_path / "bin", id="echo 0", chromium="true",
                                 munged="true", apt_get=locked))
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "error: another package manager is running" in done.stderr
    failing = 'echo "E: Unable to locate package slurm-wlm" >&2; exit 100'
    done = _prerequisites(_tools(tmp_path / "bin2", id="echo 0", chromium="true",
                                 munged="true", apt_get=failing))
    assert done.returncode == 1 and "another package manager" not in done.stderr
    assert "(E: Unable to locate package slurm-wlm)" in done.stderr


def test_the_prerequisite_step_is_silent_when_everything_is_there(tmp_path):
    done = _prerequisites(_tools(tmp_path / "bin", id="echo 1000", chromium_browser="true",
                                 slurmctld="true", munged="true", pdflatex="true",
                                 kpsewhich="true"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_make_test_and_ci_run_the_prerequisite_step_before_the_tests():
    makefile = (repo_scripts.ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ntest: setup\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert recipe[0].strip() == "@scripts/system-prerequisites.sh"
    assert "pytest" in recipe[1]
    ci = (repo_scripts.ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.index("scripts/system-prerequisites.sh") < ci.index("make test")
    assert "apt-get" not in ci.replace("apt-get install make", "")  # one place installs


def test_make_setup_says_each_install_step_and_the_time_so_far(tmp_path):
    """Each command of the setup recipe that creates or installs is announced by a step
    line, and the line's shell prints what and the minutes and seconds so far."""
    import subprocess

    makefile = (repo_scripts.ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\n$(STAMP): pyproject.toml\n", 1)[1].split("\n\n", 1)[0]
    lines = recipe.splitlines()
    installs = [i for i, x in enumerate(lines) if "pip install" in x or "-m venv" in x]
    assert len(installs) == 5
    assert all(lines[i - 1].strip().startswith("$(call step,") for i in installs)
    (tmp_path / "Makefile").write_text(makefile, encoding="utf-8")
    (tmp_path / "pyproject.toml").touch()
    shown = subprocess.run(["make", "-n", "setup"], capture_output=True, text=True,
                           cwd=tmp_path, timeout=60)
    assert shown.returncode == 0, shown.stderr
    steps = [x for x in shown.stdout.splitlines() if x.startswith("elapsed=")]
    out = subprocess.run(["bash", "-c", steps[2]], capture_output=True, text=True).stdout
    assert re.fullmatch(r"setup \[0:0\d so far\]: installing torch [\d.]+ unless present "
                        r"\(the largest download\)\n", out)
