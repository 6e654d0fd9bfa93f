"""Inputs checked where they are typed (issue 36): the environment, names of datasets,
`stebkit train` options, local model folders, and `stebkit validate` at scale."""

from __future__ import annotations

import pytest

from stebkit.cli import main

# ------------------------------------------------------------- 12: the environment


@pytest.mark.parametrize("cache", ["file", "/proc/stebkit-nope"])
def test_36_12_a_cache_that_is_no_folder_stops_before_work(tmp_path, monkeypatch, capsys,
                                                           cache):
    if cache == "file":
        cache = tmp_path / "a-file"
        cache.write_text("not a folder")
    monkeypatch.setenv("STEBKIT_CACHE", str(cache))
    out = tmp_path / "r0"
    code = main(["run", "--datasets", "federalist-authorship", "--smoke", "--models",
                 "random", "--output", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()  # stopped before any work
    assert err.count("\n") == 1 and f"STEBKIT_CACHE={cache} is not a folder" in err


def test_36_12_an_unknown_offline_switch_is_refused(monkeypatch, capsys):
    from stebkit.sources import is_offline

    monkeypatch.setenv("STEBKIT_OFFLINE", "maybe")
    assert main(["models"]) == 2
    assert "STEBKIT_OFFLINE='maybe' is not a switch" in capsys.readouterr().err
    with pytest.raises(ValueError, match="STEBKIT_OFFLINE='maybe'"):
        is_offline()
    for value, offline in (("0", False), ("off", False), ("", False), ("Yes", True)):
        monkeypatch.setenv("STEBKIT_OFFLINE", value)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
        assert is_offline() is offline
