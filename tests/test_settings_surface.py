"""A new setting is one field in one file (issue 53, section 1): a field added to a settings
class is found on the command line (its flag, help, default and parsing), in a suite file,
in the repr and in the error messages, with nothing else changed. The classes below add a
field to :class:`ExecutorConfig` and :class:`TrainConfig` and stand where the real ones
are looked up; every assertion is about the added field."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from stebkit import cli
from stebkit.cli.train import checked_config
from stebkit.errors import InvalidSetting
from stebkit.settings import Choice, Setting, setting
from stebkit.suites import SuiteError, load_suite
from stebkit.suites.executor_config import ExecutorConfig, executor_config
from stebkit.train.loop import TrainConfig


@dataclass(frozen=True, repr=False)
class WithNodes(ExecutorConfig):
    nodes: int = setting(1, Setting("executor: nodes", "int", low=1, high=64,
                                    flag="--slurm-nodes", metavar="N",
                                    help="nodes per SLURM job"))


class Optimizer(Choice):
    ADAMW = "adamw"
    SGD = "sgd"


@dataclass(frozen=True, repr=False)
class WithOptimizer(TrainConfig):
    optimizer: str = setting("adamw", Setting("optimizer", "choice", choices=Optimizer,
                                              help="optimizer of the weights"))


@pytest.fixture
def nodes(monkeypatch):
    """:class:`WithNodes` where the suite reader and ``stebkit run`` make the executor's
    settings, and ``stebkit run``'s evaluation recorded instead of run."""
    import stebkit.runs
    from stebkit.records.results import Results

    monkeypatch.setattr("stebkit.suites.executor_config.ExecutorConfig", WithNodes)
    monkeypatch.setattr("stebkit.cli.run.ExecutorConfig", WithNodes)
    calls: list[dict] = []
    monkeypatch.setattr(stebkit.runs, "evaluate",
                        lambda models, datasets, **kw: calls.append(kw) or Results([]))
    return calls


def _help(capsys, command: str) -> str:
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    return " ".join(capsys.readouterr().out.split())


def _run(tmp_path: Path, *argv: str) -> int:
    return cli.main(["run", "--models", "random", "--output", str(tmp_path / "r"),
                     "--no-progress", *argv])


def _suite(tmp_path: Path, executor: str) -> Path:
    (tmp_path / "d.csv").write_text("text,label\n" + "".join(
        f"Text number {i} by {a}.,{a}\n" for a in "ab" for i in range(4)))
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: nodes-suite\nrun:\n  executor: {executor}\ndatasets:\n"
                    "  - {name: nodes-set, task: clustering, source: {path: d.csv}}\n")
    return path


def test_the_repr_shows_only_what_differs_from_the_defaults():
    assert repr(TrainConfig(steps=10)) == "TrainConfig(steps=10)"
    assert repr(TrainConfig()) == "TrainConfig()"
    assert repr(ExecutorConfig()) == "ExecutorConfig()"
    assert repr(ExecutorConfig(kind="local", jobs=4)) == "ExecutorConfig(kind='local', jobs=4)"


def test_a_new_executor_field_is_a_flag_of_stebkit_run(nodes, capsys, tmp_path):
    assert "--slurm-nodes N nodes per SLURM job (default: 1)" in _help(capsys, "run")
    argv = ("--datasets", "synthetic-authors-en", "--smoke", "--executor", "local")
    assert _run(tmp_path, *argv, "--slurm-nodes", "4") == 0
    executor = nodes[-1]["executor"]
    assert isinstance(executor, WithNodes) and executor.nodes == 4
    assert repr(executor) == "WithNodes(kind='local', nodes=4)"
    assert _run(tmp_path, *argv, "--slurm-nodes", "0") == 2
    assert "stebkit: error: --slurm-nodes must be an int in [1, 64), got 0" in \
        capsys.readouterr().err


def test_a_new_executor_field_is_a_key_of_a_suite_file(nodes, capsys, tmp_path):
    path = _suite(tmp_path, "{kind: local, nodes: 3}")
    assert executor_config(load_suite(path).run["executor"]).nodes == 3
    assert _run(tmp_path, "--suite", str(path)) == 0
    assert nodes[-1]["executor"].nodes == 3
    assert _run(tmp_path, "--suite", str(path), "--slurm-nodes", "5") == 0  # the flag wins
    assert nodes[-1]["executor"].nodes == 5
    bad = _suite(tmp_path, "{kind: local, nodes: 65}")
    with pytest.raises(SuiteError, match=r"suite.yaml: line 3: run: executor: nodes must be "
                                         r"an int in \[1, 64\), got 65"):
        load_suite(bad)
    with pytest.raises(InvalidSetting, match=r"^executor: nodes must be an int in \[1, 64\), "
                                             "got True$"):
        WithNodes(nodes=True)


def test_a_new_training_field_is_a_flag_of_stebkit_train(monkeypatch, capsys):
    monkeypatch.setattr("stebkit.cli.train.TrainConfig", WithOptimizer)
    assert "--optimizer {adamw,sgd} optimizer of the weights (default: adamw)" in \
        _help(capsys, "train")
    parsed = cli.build_parser().parse_args(["train", "--optimizer", "sgd", "--steps", "9"])
    config = checked_config(parsed)
    assert repr(config) == "WithOptimizer(steps=9, optimizer='sgd')"
    assert type(config.optimizer) is str  # stored as its plain text
    assert WithOptimizer(optimizer=Optimizer.SGD) == config.replace(steps=TrainConfig().steps)
    with pytest.raises(InvalidSetting, match="^optimizer must be one of 'adamw', 'sgd', got "
                                             "'lion'$"):
        WithOptimizer(optimizer="lion")
    with pytest.raises(TypeError, match="unknown training setting 'optimiser'; the settings "
                                        "are .*, precision, optimizer$"):
        config.replace(optimiser="sgd")
