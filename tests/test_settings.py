"""Every public entry point checks its settings through the one declared schema
(:mod:`stebkit.settings`), issue 43 item 2: each declared field of ``RunContext``,
``evaluate``, ``TrainConfig`` / ``train_style_encoder`` and the ``run`` and ``train``
commands is fed a wrong type, a string for a bool, NaN, a negative and a huge value, and
must give one clear error naming it, before anything is written."""

from __future__ import annotations

import math
import re
from dataclasses import fields

import pytest

from stebkit import cli
from stebkit.errors import InvalidSetting
from stebkit.runs.context import OPTIONS, SETTINGS, RunContext, check_options
from stebkit.runs.evaluation import evaluate
from stebkit.settings import SEED, Setting, declared
from stebkit.suites.executor_config import ExecutorConfig
from stebkit.train.loop import TRAIN_OPTIONS, TrainConfig, train_style_encoder

BAD = {"a wrong type": object(), "a string for a bool": "false", "NaN": math.nan,
       "a negative": -1, "a huge value": 10**30}
"""The values every setting is fed."""

VALID = {("output_dir", "a string for a bool"),  # a folder may be named "false"
         ("episode_sizes", "a negative"),  # -1: every text of a label
         ("base_model", "a string for a bool"),  # a folder name: checked as a folder later
         ("partition", "a string for a bool"), ("mem", "a string for a bool")}  # SLURM's
"""The (setting, value) pairs the schema declares valid; every other pair is refused."""


def _cases(names):
    return [(name, what) for name in names for what in BAD if (name, what) not in VALID]


def _one_clear_error(err: pytest.ExceptionInfo, name: str) -> None:
    message = str(err.value)
    assert re.search(rf"\b{name}\b", message), message
    assert "\n" not in message and len(message) < 400, message


def test_every_run_setting_and_option_is_declared():
    assert tuple(declared(RunContext)) == SETTINGS == tuple(f.name for f in fields(RunContext))
    assert set(OPTIONS) == {"tasks", "episode_sizes", "episodes_per_label", "preset",
                            "output_dir"}


@pytest.mark.parametrize("name, what", _cases(SETTINGS))
def test_run_context_refuses_each_bad_value(name, what):
    with pytest.raises(InvalidSetting) as err:
        RunContext(**{name: BAD[what]})
    _one_clear_error(err, name)
    with pytest.raises(InvalidSetting):  # and so does a change of settings
        RunContext().with_settings(**{name: BAD[what]})


@pytest.mark.parametrize("name, what", _cases([*SETTINGS, *OPTIONS]))
def test_evaluate_refuses_each_bad_value_before_writing(tmp_path, name, what):
    out = tmp_path / "res"
    options = {"smoke": True, "show_progress": False, "output_dir": out, name: BAD[what]}
    with pytest.raises(ValueError) as err:
        evaluate("random", "synthetic-authors-en", **options)
    _one_clear_error(err, name)
    assert not out.exists() and not (tmp_path / "false").exists()


EXECUTOR_SETTINGS = tuple(declared(ExecutorConfig))


@pytest.mark.parametrize("name, what", _cases(EXECUTOR_SETTINGS))
def test_evaluate_refuses_each_bad_executor_setting(tmp_path, name, what):
    out = tmp_path / "res"
    with pytest.raises(ValueError) as err:
        evaluate("random", "synthetic-authors-en", smoke=True, show_progress=False,
                 output_dir=out, executor={"kind": "local", name: BAD[what]})
    _one_clear_error(err, name)
    assert not out.exists()


@pytest.mark.parametrize("value", ["true", "false", 0, 1, None])
def test_a_switch_is_only_a_bool(value):
    """The reported defect: ``trust_remote_code="false"`` was True and ran a folder's code."""
    for name in ("smoke", "trust_remote_code", "cache_embeddings", "show_progress"):
        with pytest.raises(InvalidSetting, match=f"{name} must be true or false"):
            RunContext(**{name: value})
    assert RunContext(trust_remote_code=False).trust_remote_code is False


def test_a_seed_is_below_two_to_the_32():
    assert RunContext(seed=2**32 - 1).seed == 2**32 - 1
    with pytest.raises(InvalidSetting, match=r"seed must be an int in \[0, 4294967296\), "
                                             "got 4294967296"):
        RunContext(seed=2**32)


def test_the_repr_shows_what_differs_from_the_defaults():
    assert repr(RunContext()) == "RunContext()"
    assert repr(RunContext(smoke=True, seed=7)) == "RunContext(seed=7, smoke=True)"
    assert RunContext(seed=7).get_params() == {**RunContext().get_params(), "seed": 7}


@pytest.mark.parametrize("value, expected", [
    ({"clustering": [1, 2], "retrieval": [-1]}, None),
    ({"clustering": [2, 0]}, "episode_sizes must be an int in [1, 1000000) or -1"),
    ([True], "episode_sizes must be"),
    ("12", "episode_sizes must be"),
])
def test_episode_sizes_are_checked_inside_lists_and_mappings(value, expected):
    if expected is None:
        assert check_options(episode_sizes=value)["episode_sizes"] == value
        return
    with pytest.raises(InvalidSetting, match=re.escape(expected)):
        check_options(episode_sizes=value)


TRAIN_SETTINGS = tuple(declared(TrainConfig))


def test_every_number_of_a_training_configuration_is_declared():
    undeclared = {f.name for f in fields(TrainConfig)} - set(TRAIN_SETTINGS)
    assert undeclared == {"matryoshka_dims", "content_sources", "rule_weights"}  # item by item


@pytest.mark.parametrize("name, what", _cases([*TRAIN_SETTINGS, "matryoshka_dims"]))
def test_a_training_configuration_refuses_each_bad_value(name, what):
    value = BAD[what]
    value = (64, value) if name == "matryoshka_dims" else value
    with pytest.raises(InvalidSetting) as err:
        TrainConfig(**{name: value})
    _one_clear_error(err, name)


@pytest.mark.parametrize("name, what", _cases(TRAIN_OPTIONS))
def test_train_style_encoder_refuses_each_bad_option(tmp_path, name, what):
    with pytest.raises(InvalidSetting) as err:
        train_style_encoder(TrainConfig(), output_dir=tmp_path / "m", passages=object(),
                            **{name: BAD[what]})
    _one_clear_error(err, name)
    assert not list(tmp_path.iterdir())


def test_matryoshka_widths_wider_than_the_model_stop_training_before_it_starts(tmp_path):
    with pytest.raises(InvalidSetting, match="matryoshka_dims: 999999 is wider than the "
                                             r"base model's embedding \(384 dimensions\)"):
        train_style_encoder(TrainConfig(matryoshka_dims=(64, 999999)),
                            output_dir=tmp_path / "m", passages=object())
    assert not (tmp_path / "m").exists() and not (tmp_path / "m.checkpoints").exists()


RUN_ARGUMENTS = [  # a setting named as the flag that gives it, as in every command
    (["--seed", "4294967296"], r"--seed must be an int in \[0, 4294967296\)"),
    (["--seed", "-1"], "--seed must be"),
    (["--batch-size", "0"], "--batch-size must be"),
    (["--batch-size", str(10**30)], "--batch-size must be"),
    (["--episodes-per-label", "0"], "--episodes-per-label must be"),
    (["--episode-sizes", "2", "0"], "--episode-sizes must be"),
    (["--output", ""], "--output must be a non-empty text, got ''"),
    (["--device", "false"], "device 'false' is not a torch device name"),
    (["--seed", "nan"], "argument --seed: invalid int value: 'nan'"),
]


def _main(argv: list[str]) -> int:
    try:
        return cli.main(argv)
    except SystemExit as done:  # argparse's own refusal of a value that is no int
        return int(done.code)


@pytest.mark.parametrize("argv, message", RUN_ARGUMENTS)
def test_stebkit_run_refuses_bad_arguments_with_exit_2(tmp_path, monkeypatch, capsys, argv,
                                                       message):
    monkeypatch.chdir(tmp_path)
    code = _main(["run", "--datasets", "federalist-authorship", "--smoke", "--models",
                  "random", "--output", "r0", *argv])
    err = capsys.readouterr().err
    assert code == 2 and re.search(message, err), err
    assert not list(tmp_path.iterdir())  # nothing written, not even in the working folder


@pytest.mark.filterwarnings("ignore:.*correlation grouping needs:UserWarning")
def test_a_smoke_run_says_it_caps_the_episodes_per_label(tmp_path):
    said = ("a smoke run samples at most 10 episodes per label: episodes_per_label 50 is "
            "capped at 10")
    with pytest.warns(UserWarning, match=said):
        code = cli.main(["run", "--datasets", "synthetic-authors-en", "--tasks", "retrieval",
                         "--smoke", "--models", "random", "--episodes-per-label", "50",
                         "--output", str(tmp_path / "r"), "--figures", str(tmp_path / "f"),
                         "--no-progress"])
    assert code == 0


def test_stebkit_prefetch_refuses_a_seed_out_of_range(tmp_path, capsys):
    code = cli.main(["prefetch", "--datasets", "synthetic-authors-en", "--models", "random",
                     "--seed", "4294967296", "--no-progress"])
    assert code == 2
    assert "--seed must be an int in [0, 4294967296), got 4294967296" in capsys.readouterr().err


TRAIN_ARGUMENTS = [
    (["--matryoshka", "999999"], "--matryoshka: 999999 is wider than the base model's"),
    (["--matryoshka", "64,1000000"], "--matryoshka must be an int in [1, 1000000)"),
    (["--steps", str(10**30)], "--steps must be an int in [1, 10000000)"),
    (["--batch-size", "1"], "--batch-size must be an int in [2, 1000000)"),
    (["--learning-rate", "-1"], "--learning-rate must be a finite number > 0"),
    (["--content-weight", "nan"], "--content-weight must be a finite number"),
    (["--seed", "4294967296"], "--seed must be an int in [0, 4294967296)"),
    (["--threads", "0"], "--threads must be an int in [1, 4096)"),
]


@pytest.mark.parametrize("argv, message", TRAIN_ARGUMENTS)
def test_stebkit_train_refuses_bad_arguments_before_training(tmp_path, capsys, argv,
                                                             message):
    code = cli.main(["train", "--output", str(tmp_path / "m"), "--no-progress", *argv])
    err = capsys.readouterr().err
    assert code == 2 and f"stebkit: error: {message}" in err, err
    assert not list(tmp_path.iterdir())


def test_a_setting_can_be_declared_once_and_checked_anywhere():
    assert SEED.named("--seed").check(3) == 3
    with pytest.raises(InvalidSetting, match="--seed must be"):
        SEED.named("--seed").check(3.0)
    with pytest.raises(ValueError, match="kind 'float' is none of"):
        Setting("x", "float")
