"""Remote code runs only on the user's explicit opt-in (catalogue datasets and models)."""

from __future__ import annotations

import pandas as pd
import pytest

import stebkit
from stebkit import cli
from stebkit.datasets import get_spec, list_datasets, load_dataset
from stebkit.datasets import hub as hub_module
from stebkit.errors import RemoteCodeRefused

SCRIPTED = ["blog_age", "blog_gender", "reuters21578"]


class _FakeHubDataset:
    """What ``datasets.load_dataset`` returns, as far as read_hub uses it."""

    features: dict = {}

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def to_pandas(self) -> pd.DataFrame:
        return self.frame.copy()


@pytest.fixture
def fake_hub(monkeypatch, tmp_path):
    """Replace the Hub: record each call's trust_remote_code and return blog-like rows
    (with an empty cache, so that every load reaches the fake Hub)."""
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    calls = []

    def load_hub(path, *, name=None, revision=None, split=None, trust_remote_code=False):
        calls.append({"path": path, "trust_remote_code": trust_remote_code})
        ages = [15, 16, 24, 25, 35, 36] * 8
        return _FakeHubDataset(pd.DataFrame({
            "text": [f"Post {i} by someone aged {a}." for i, a in enumerate(ages)],
            "age": ages, "gender": ["male", "female"] * 24, "label": [0, 1] * 24,
            "topics": [["acq"], ["earn"], ["crude"]] * 16}))

    monkeypatch.setattr(hub_module, "load_hub", load_hub)
    return calls


def test_exactly_the_script_datasets_need_remote_code() -> None:
    needing = [n for n in list_datasets() if get_spec(n).needs_remote_code]
    assert needing == SCRIPTED


@pytest.mark.parametrize("name", SCRIPTED)
def test_loading_without_opt_in_is_refused_before_the_hub_is_touched(name, fake_hub) -> None:
    with pytest.raises(RemoteCodeRefused) as err:
        load_dataset(name, cache=False)
    message = str(err.value)
    assert f"dataset {name!r}" in message and get_spec(name).source.hf_path in message
    assert "--trust-remote-code" in message and "trust_remote_code=True" in message
    assert "not pinned to a revision" in message
    assert fake_hub == []


def test_the_reader_alone_refuses_too(fake_hub) -> None:
    spec = get_spec("blog_gender")
    with pytest.raises(RemoteCodeRefused, match="'blog_gender'"):
        spec.reader(spec, seed=42, smoke=True)
    assert fake_hub == []


def test_opting_in_loads_with_remote_code(fake_hub) -> None:
    ds = load_dataset("blog_age", smoke=True, cache=False, trust_remote_code=True)
    assert fake_hub == [{"path": "barilan/blog_authorship_corpus", "trust_remote_code": True}]
    assert set(ds.frame["label"]) == {"10s", "20s", "30s"}
    # a dataset without a loading script never gets remote code, even when allowed
    fake_hub.clear()
    load_dataset("ag_news", smoke=True, cache=False, trust_remote_code=True)
    assert fake_hub[0]["trust_remote_code"] is False


def test_evaluate_stops_before_any_work_without_opt_in(tmp_path, fake_hub, monkeypatch) -> None:
    monkeypatch.setattr("stebkit.runs.context.N_RESAMPLES", 50)
    with pytest.raises(RemoteCodeRefused, match="'reuters21578'"):
        stebkit.evaluate("random", ["ag_news", "reuters21578"], tasks=["clustering"],
                        smoke=True, output_dir=tmp_path, show_progress=False)
    assert not list(tmp_path.rglob("*.json")) and fake_hub == []
    res = stebkit.evaluate("random", "blog_gender", tasks=["clustering"], smoke=True,
                          output_dir=tmp_path, show_progress=False, trust_remote_code=True)
    assert res.ok and len(res) == 3 and fake_hub[0]["trust_remote_code"] is True


def test_cli_flag_and_message(tmp_path, fake_hub, capsys, monkeypatch) -> None:
    monkeypatch.setattr("stebkit.runs.context.N_RESAMPLES", 50)
    argv = ["run", "--models", "random", "--datasets", "blog_age", "--tasks", "clustering",
            "--smoke", "--output", str(tmp_path / "r"), "--figures", str(tmp_path / "f"),
            "--no-progress"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("stebkit: error: dataset 'blog_age' runs code") and fake_hub == []
    with pytest.warns(UserWarning, match="correlation grouping"):  # one model only
        assert cli.main([*argv, "--trust-remote-code"]) == 0
    assert fake_hub and all(c["trust_remote_code"] for c in fake_hub)


def _suite(tmp_path, run: str, source: str = "{hf: someone/scripted, remote_code: true}"):
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: scripted-suite\n{run}datasets:\n"
                    f"  - {{name: scripted-set, task: clustering, source: {source}}}\n")
    return path


def test_suite_file_opt_in(tmp_path, fake_hub, monkeypatch, capsys) -> None:
    from stebkit.suites import SuiteError, load_suite

    monkeypatch.setattr("stebkit.runs.context.N_RESAMPLES", 50)
    refused = load_suite(_suite(tmp_path, ""))
    assert refused.run == {} and get_spec("scripted-set").needs_remote_code
    with pytest.raises(RemoteCodeRefused, match="'scripted-set'.*'someone/scripted'"):
        load_dataset("scripted-set", cache=False)
    allowed = load_suite(_suite(tmp_path, "run: {trust_remote_code: true}\n"))
    assert allowed.run == {"trust_remote_code": True}
    with pytest.raises(SuiteError, match="run: trust_remote_code must be true or false"):
        load_suite(_suite(tmp_path, "run: {trust_remote_code: 'yes'}\n"))
    with pytest.raises(SuiteError, match="remote_code .* applies to 'hf' sources only"):
        load_suite(_suite(tmp_path, "", source="{url: 'https://x.org/a.csv', "
                                               "remote_code: true}"))
    # the suite file's own 'true' grants nothing: only the command line does
    path = _suite(tmp_path, "run: {trust_remote_code: true}\n")
    argv = ["run", "--suite", str(path), "--models", "random", "--output",
            str(tmp_path / "r"), "--figures", str(tmp_path / "f"), "--no-progress"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"{path}: line 2: run: trust_remote_code: true" in err
    assert f"{path}: line 4: dataset 'scripted-set': source: remote_code: true" in err
    assert "--trust-remote-code" in err and fake_hub == []
    with pytest.warns(UserWarning, match="correlation grouping"):
        assert cli.main([*argv, "--trust-remote-code"]) == 0
    assert fake_hub[-1] == {"path": "someone/scripted", "trust_remote_code": True}


def test_models_get_remote_code_only_when_they_need_it() -> None:
    from stebkit.runs.encoders import _encoder_options
    from stebkit.runs.planning import _resolve_models

    def options(name: str, trust: bool) -> dict:
        (model,) = _resolve_models(name)
        return _encoder_options(model, trust)

    assert options("LUAR-MUD", True) == {"trust_remote_code": True}
    assert options("rrivera1849/LUAR-CRUD", True) == {"trust_remote_code": True}
    assert options("LUAR-MUD", False) == {}
    assert options("tfidf-char", True) == {}  # runs no repository code
    assert options("all-mpnet-base-v2", True) == {}
    assert options("some-org/unlisted-model", True) == \
        {"trust_remote_code": True}


def test_a_suite_run_leaves_remote_code_datasets_out_and_says_so(tmp_path, capsys,
                                                                  monkeypatch) -> None:
    """`stebkit run --suite steb` runs what it can: the script datasets are listed and left
    out (an explicit --datasets request is refused instead, see above)."""
    import stebkit.runs

    seen = {}

    class Stop(Exception):
        pass

    def fake_evaluate(models, datasets, **kw):
        # the first dataset arrives loaded (the reachability check loaded it): its name
        seen["datasets"] = [getattr(d, "name", d) for d in datasets]
        seen["trust"] = kw["trust_remote_code"]
        raise Stop

    monkeypatch.setattr(stebkit.runs, "evaluate", fake_evaluate)
    argv = ["run", "--suite", "steb", "--models", "random", "--output", str(tmp_path / "r")]
    with pytest.raises(Stop):
        cli.main(argv)
    scripted = {"blog_age", "blog_gender", "reuters21578"}
    assert scripted.isdisjoint(seen["datasets"]) and len(seen["datasets"]) > 100
    err = capsys.readouterr().err
    assert "3 dataset(s) left out" in err and "--trust-remote-code" in err
    assert all(name in err for name in scripted)
    with pytest.raises(Stop):
        cli.main([*argv, "--trust-remote-code"])
    assert scripted <= set(seen["datasets"]) and seen["trust"] is True
