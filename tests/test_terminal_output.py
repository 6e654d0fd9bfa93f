"""What reaches the terminal goes through :func:`stebkit.escape.text_cell` (issue 52, ask 4):
file names, job logs and model names are shown as the text they are, so none of them can
recolour the screen, retitle the window or overwrite a line.

The scan, read from the source with ``ast`` as the opener's scan in
``tests/test_one_opener.py``: no module of ``stebkit/`` but :mod:`stebkit.escape` calls
``print``, writes ``sys.stdout``/``sys.stderr``, renders a frame with ``.to_string``, or
labels a progress bar with a ``desc`` that is neither a literal nor a ``text_cell(...)``.
"""

from __future__ import annotations

import ast
import json
import logging
import sys
from pathlib import Path

import pytest
from test_one_opener import PACKAGE, _dotted
from test_one_opener import package as package  # noqa: F401 - the planting fixture

from stebkit import cli

WRITER = "escape.py"
"""The module of the one terminal writer: the scan skips it."""

STREAM_WRITES = {f"sys.{stream}.{method}" for stream in ("stdout", "stderr")
                 for method in ("write", "writelines")}


def _escaped_or_literal(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.Call) and _dotted(node.func) == "text_cell"


def terminal_call(node: ast.Call) -> str | None:
    """The kind of terminal write ``node`` is (``print``, ``sys.stderr.write``,
    ``.to_string``, ``tqdm(desc=...)``), or None."""
    func, name = node.func, _dotted(node.func)
    if isinstance(func, ast.Name) and func.id == "print":
        return "print"
    if name in STREAM_WRITES:
        return name
    if isinstance(func, ast.Attribute) and func.attr == "to_string":
        return ".to_string"
    if name is not None and name.split(".")[-1] == "tqdm" and any(
            k.arg == "desc" and not _escaped_or_literal(k.value) for k in node.keywords):
        return "tqdm(desc=...)"
    return None


def terminal_writes(package_dir: Path) -> list[str]:
    """``stebkit/<module>:<line>: <call>`` of each terminal write outside the writer."""
    out = []
    for path in sorted(package_dir.rglob("*.py")):
        module = path.relative_to(package_dir).as_posix()
        if module == WRITER:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        out += [f"stebkit/{module}:{node.lineno}: {call}" for node in ast.walk(tree)
                if isinstance(node, ast.Call) and (call := terminal_call(node))]
    return out


def test_nothing_reaches_the_terminal_around_the_escaper():
    found = terminal_writes(PACKAGE)
    assert not found, ("terminal output around stebkit.escape (use echo, text_table, or "
                       "desc=text_cell(...)):\n" + "\n".join(found))


def test_the_scan_finds_each_way_around(package):  # noqa: F811 - the fixture
    module = package / "names.py"
    module.write_text(module.read_text(encoding="utf-8") + "\n\n" + (
        "def show(name, frame, items):\n"
        "    import sys\n"
        "    from tqdm.auto import tqdm\n"
        "    print(name)\n"
        "    sys.stderr.write(name)\n"
        "    text = frame.to_string()\n"
        "    bar = tqdm(items, desc=name)\n"
        "    fine = tqdm(items, desc='names')\n"
        "    return text, bar, fine\n"), encoding="utf-8")
    found = terminal_writes(package)
    assert [f.split(": ")[1] for f in found] == ["print", "sys.stderr.write", ".to_string",
                                                "tqdm(desc=...)"]
    assert all(f.startswith("stebkit/names.py:") for f in found)


# --------------------------------------------------------------------------- the commands

ESCAPES = "\x1b]0;owned\x07\x1b[2J\r"
"""A window title, a cleared screen and a carriage return: what a name must not do."""


def _shown_as_text(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text


def test_import_shows_a_path_with_an_escape_sequence_as_text(tmp_path, capsys):
    steb = tmp_path / "steb"
    metrics = steb / "d" / "m" / "1_50" / "clustering" / "metrics.json"
    metrics.parent.mkdir(parents=True)
    metrics.write_text('{"v_measure": 0.25}')
    results = tmp_path / "res\x1b[31m"
    assert cli.main(["import", str(steb), str(results)]) == 0
    out = capsys.readouterr().out
    _shown_as_text(out)
    assert f"1 record(s) written under {tmp_path}/res\\x1b[31m;" in out


def _planted_slurm_job(out: Path, model: str, log: str) -> None:
    """A results folder whose plan has one unit, and a SLURM job that ran it and left
    ``log`` (the job index and the log where stebkit puts them)."""
    jobs = out / "jobs"
    jobs.mkdir(parents=True)
    (jobs / "plan.jsonl").write_text(json.dumps(
        {"model": model, "dataset": "d", "records": ["m/d/retrieval__e-1.json"]}) + "\n")
    (jobs / "index.jsonl").write_text(json.dumps(
        {"job": "4242", "executor": "slurm", "run": "r1", "units": [[model, "d"]],
         "log": "slurm-4242.log"}) + "\n")
    (jobs / "slurm-4242.log").write_text(log)


def test_status_shows_a_planted_job_log_as_text(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # no squeue
    out = tmp_path / "res"
    _planted_slurm_job(out, "m", f"{ESCAPES}stebkit: all 12 units done\n")
    assert cli.main(["status", str(out)]) == 1
    text = capsys.readouterr().out
    _shown_as_text(text)
    # the log's last lines (the carriage return ends one) in the reason, as text
    assert "failed at start-up, before running any unit (\\x1b]0;owned\\x07\\x1b[2J | " \
        "stebkit: all 12 units done)" in text


def test_a_model_name_with_control_characters_is_shown_as_text(tmp_path, capsys,
                                                               monkeypatch):
    from stebkit.scores.ranking import Leaderboard

    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))
    model = f"evil{ESCAPES}model"
    _planted_slurm_job(tmp_path / "res", model, "")
    assert cli.main(["status", str(tmp_path / "res")]) == 1
    text = capsys.readouterr().out
    _shown_as_text(text)
    assert "evil\\x1b]0;owned\\x07\\x1b[2J\\rmodel" in text
    board = repr(Leaderboard({"model": [model, "b"], "steb_score": [0.5, 0.25]}))
    _shown_as_text(board)
    assert "evil\\x1b]0;owned" in board


def test_log_records_and_warnings_the_command_shows_are_escaped(capsys):
    from stebkit.cli.reporting import one_line_warning

    assert one_line_warning(UserWarning(f"cannot read {ESCAPES}x"), UserWarning, "f", 1) == \
        "stebkit: warning: cannot read \\x1b]0;owned\\x07\\x1b[2J\\rx\n"
    before = logging.lastResort.formatter
    restore = cli._escaped_log_records()  # as main() does for the command's duration
    try:
        logging.lastResort.handle(logging.makeLogRecord(
            {"msg": "%s cannot be read; skipped", "args": (f"shard{ESCAPES}.npz",),
             "levelno": logging.WARNING}))
    finally:
        restore()
    assert logging.lastResort.formatter is before
    err = capsys.readouterr().err
    _shown_as_text(err)
    assert "shard\\x1b]0;owned\\x07\\x1b[2J\\r.npz cannot be read; skipped" in err


@pytest.mark.parametrize("value", ["plain", "中文 ✓", "tab\there"])
def test_printable_text_is_left_as_it_is(value, capsys):
    from stebkit.escape import echo

    echo(value)
    assert capsys.readouterr().out == ("tab\\there\n" if "\t" in value else value + "\n")
