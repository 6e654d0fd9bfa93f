"""What a ``stebkit run`` asks for, resolved by :class:`stebkit.runs.request.RunRequest`
before anything runs."""

from __future__ import annotations

import hashlib

import pytest

from stebkit.datasets import get_spec, list_datasets
from stebkit.encoders import default_models
from stebkit.runs.request import RunRequest


def _hash(names):
    return hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()[:8]


def test_a_built_in_suite_leaves_out_remote_code_unless_trusted():
    every = list(list_datasets(suite="steb"))
    remote = tuple(n for n in every if get_spec(n).needs_remote_code)
    assert remote  # the reference's Hub scripts: the filter has something to do
    request = RunRequest.resolve(suite="steb")
    assert request.left_out == remote
    assert request.datasets == [n for n in every if n not in remote]
    assert request.left_out_note().startswith(f"{len(remote)} dataset(s) left out")
    trusted = RunRequest.resolve(suite="steb", settings={"trust_remote_code": True})
    assert trusted.datasets == every and trusted.left_out == ()
    assert trusted.left_out_note() is None and trusted.settings["trust_remote_code"] is True
    # named on purpose: kept (the run refuses it later, with its own message)
    named = RunRequest.resolve(suite="steb", datasets=["blog_age"])
    assert named.datasets == ["blog_age"] and named.left_out == ()


def test_labels_models_and_smoke():
    request = RunRequest.resolve(suite="smoke")
    assert request.models == default_models() and request.label == "smoke"
    assert request.smoke and request.executor is None
    chosen = RunRequest.resolve(datasets=["b-set", "a-set"], models=["random"])
    assert chosen.label == f"datasets-{_hash(['a-set', 'b-set'])}-models-{_hash(['random'])}"
    assert not chosen.smoke and chosen.datasets == ["b-set", "a-set"]
    preset = RunRequest.resolve(settings={"preset": "fast"})
    assert preset.datasets is None and preset.label == "preset-fast"
    assert preset.settings == {"trust_remote_code": False, "preset": "fast",
                               "episode_sizes": None, "episodes_per_label": None,
                               "device": None}


def test_a_suite_file_gives_settings_the_command_line_overrides(tmp_path):
    (tmp_path / "d.csv").write_text("text,label\nHello.,a\nHi!,b\n")
    suite = tmp_path / "s.yaml"
    suite.write_text("name: request-suite\nrun:\n  episodes_per_label: 7\n  device: cpu\n"
                     "  executor: {kind: local, jobs: 3}\n"
                     "datasets:\n  - {name: request-greetings, task: clustering,"
                     " source: {path: d.csv}}\n")
    request = RunRequest.resolve(suite=str(suite), settings={"device": "cuda"})
    assert request.datasets == ["request-greetings"] and request.label == "request-suite"
    assert request.settings["episodes_per_label"] == 7
    assert request.settings["device"] == "cuda"  # the command line's value wins
    assert request.executor == {"kind": "local", "jobs": 3}


def test_what_cannot_be_resolved_is_named():
    with pytest.raises(ValueError, match="say what to run: --suite lite"):
        RunRequest.resolve()
    with pytest.raises(ValueError, match=r"--suite 'nope' is neither a built-in suite .* nor "
                                         r"a suite file \(.yaml, .yml, .toml\)"):
        RunRequest.resolve(suite="nope")
