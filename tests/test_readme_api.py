"""The README's five-line API prints a score (issue 42, item 7): three models and the
chance level, so that every task has the 3 models the reference's recipe needs, and a
summary that counts the models given; a default run without the trained style model says
in one line that a run with it scores differently."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from stebkit import cli

README = Path(__file__).resolve().parents[1] / "README.md"


def five_lines() -> str:
    """The code block of the README's section "The Python API in five lines"."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## The Python API in five lines", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_five_lines_give_three_models_and_the_chance_level():
    code = five_lines()
    assert len(code.strip().splitlines()) == 5
    call = next(line for line in code.splitlines() if "stebkit.evaluate(" in line)
    models = re.search(r"evaluate\(\[([^]]*)\]", call).group(1).split(", ")
    assert len(models) == 4 and '"random"' in models  # 3 models: a task score each


@pytest.mark.slow
def test_the_five_lines_print_a_score_for_each_model(tmp_path, mirror):
    env = {**os.environ, "PYTHONPATH": str(README.parent), "STEBKIT_MIRROR": str(mirror)}
    done = subprocess.run([sys.executable, "-c", five_lines()], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout  # the tables of `stebkit leaderboard`, then the summary
    assert "NaN" not in out and "<NA>" not in out
    steb = next(block for block in out.split("\n\n") if block.split("\n")[0].endswith("STEB"))
    ranked = [line.split() for line in steb.splitlines()[1:] if line.split()[0].isdigit()]
    assert [row[0] for row in ranked] == ["1", "2", "3"]
    assert all(0 < float(row[-1].rstrip("*")) < 100 for row in ranked)  # a score (x100)
    assert "random (chance)" in steb
    assert "4 models" in out and "0 models" not in out


def test_a_default_run_without_the_style_model_says_its_scores_differ_from_a_run_with_it(
        tmp_path, capsys, monkeypatch):
    import stebkit.cli.run as cli_run
    import stebkit.encoders

    monkeypatch.setattr(stebkit.encoders, "is_available", lambda name: False)
    monkeypatch.setattr(cli_run, "_preflight", lambda request, context, args: 0)
    argv = ["run", "--suite", "smoke", "--output", str(tmp_path / "r"), "--preflight"]
    assert cli.main(argv) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if "style model" in x]
    assert lines == ["stebkit: note: this run is without the trained style model "
                     "stebkit-style-minilm (`stebkit train` adds it): a run with it differs "
                     "in every model's operational score, which depends on the models "
                     "compared"]
    assert cli.main([*argv, "--models", "random"]) == 0  # models given: nothing to say
    assert "style model" not in capsys.readouterr().err
