"""Check a submission to the published STEB leaderboard before opening the pull request.

STEB takes new models as pull requests that add (1) a four-key entry to its
``SUBMISSIONS.yaml`` (``short_name``, ``hf_id``, ``run_command``, ``contributor``), (2)
the model's line in ``scripts/models_all.txt`` and (3) the result files the reference
writes, under ``submitted_results/<dataset>/<short_name>/...`` (see
:mod:`stebkit.steb_format`; ``stebkit export RESULTS OUT --format steb`` writes them).
:func:`check_submission` checks what the reference's validator checks:

1. every ``SUBMISSIONS.yaml`` entry (when the file is given) is a mapping with the four
   keys as non-empty strings, and one of them declares this model;
2. the model has a results subtree ``<dataset>/<short_name>/`` under the results folder;
3. every ``metrics.json`` there parses as JSON (stebkit also checks the layout, the task
   folders and that every value is a number);
4. the model's Hub id or short name is listed in ``models_all.txt`` (when given).

It returns the errors (each naming its file and the reason), warnings (result subtrees
that no entry declares) and the entry to paste.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REQUIRED_KEYS = ("short_name", "hf_id", "run_command", "contributor")
"""The four keys of a ``SUBMISSIONS.yaml`` entry."""


@dataclass
class SubmissionCheck:
    """The outcome of :func:`check_submission`."""

    entry: dict[str, str]
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def entry_yaml(self) -> str:
        """The ``SUBMISSIONS.yaml`` entry, ready to paste."""
        lines = [f"- {REQUIRED_KEYS[0]}: {self.entry[REQUIRED_KEYS[0]]}"]
        for key in REQUIRED_KEYS[1:]:
            value = self.entry[key]
            shown = "'" + value.replace("'", "''") + "'" if any(c in value for c in ':#"\'') \
                else value
            lines.append(f"  {key}: {shown}")
        return "\n".join(lines)

    def report(self) -> str:
        """A summary for the terminal or a pull-request comment."""
        out = []
        if self.errors:
            out.append(f"FAIL: {len(self.errors)} error(s)")
            out += [f"  - {e}" for e in self.errors]
        else:
            out.append("OK: the submission passes the reference validator's checks")
        if self.warnings:
            out.append("warnings:")
            out += [f"  - {w}" for w in self.warnings]
        out += [f"note: {n}" for n in self.notes]
        out += ["", "SUBMISSIONS.yaml entry to paste:", self.entry_yaml(), "",
                "scripts/models_all.txt line:", self.entry["hf_id"]]
        return "\n".join(out)


def submission_entry(model: str, *, contributor: str | None = None) -> dict[str, str]:
    """The ``SUBMISSIONS.yaml`` entry of a model ``ORG/NAME``.

    ``run_command`` is the reference's command that produces the result files;
    ``contributor`` defaults to ``ORG`` (give your GitHub handle).

    >>> submission_entry("my-org/my-model", contributor="me")["run_command"]
    'steb "my-org/my-model"'
    >>> submission_entry("no-org")
    Traceback (most recent call last):
    ...
    ValueError: --model must be ORG/NAME (the Hub id), got 'no-org'
    """
    org, sep, name = str(model).strip().rpartition("/")
    if not sep or not org.strip("/") or not name:
        raise ValueError(f"--model must be ORG/NAME (the Hub id), got {model!r}")
    return {"short_name": name, "hf_id": f"{org}/{name}", "run_command": f'steb "{model}"',
            "contributor": contributor or org.split("/")[0]}


def _entry_errors(entry: Any, index: int) -> list[str]:
    if not isinstance(entry, dict):
        return [f"entry #{index}: must be a mapping, got {type(entry).__name__}"]
    errors = []
    for key in REQUIRED_KEYS:
        if key not in entry:
            errors.append(f"entry #{index} ({entry.get('short_name', '?')!r}): missing the "
                          f"required key {key!r}")
        elif not isinstance(entry[key], str) or not entry[key].strip():
            errors.append(f"entry #{index} ({entry.get('short_name', '?')!r}): {key!r} must "
                          "be a non-empty string")
    return errors


def _read_submissions(path: Path, errors: list[str]) -> list[Any]:
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    except (OSError, yaml.YAMLError) as err:
        errors.append(f"{path}: cannot be read as YAML ({err})")
        return []
    if not isinstance(data, list):
        errors.append(f"{path}: must hold a top-level YAML list of entries, got "
                      f"{type(data).__name__}")
        return []
    return data


def _listed_models(path: Path, errors: list[str]) -> set[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        errors.append(f"{path}: cannot be read ({err})")
        return set()
    out = set()
    for line in lines:
        line = line.strip()
        if line and not line.startswith("#"):
            out.update({line, line.rsplit("/", 1)[-1]})
    return out


def check_submission(results: str | os.PathLike[str], model: str, *,
                     submissions: str | os.PathLike[str] | None = None,
                     models_file: str | os.PathLike[str] | None = None,
                     contributor: str | None = None) -> SubmissionCheck:
    """Check a model's submission as the reference's validator does.

    Parameters
    ----------
    results : path
        The results in the reference's layout (what will go under
        ``submitted_results/``; written by ``stebkit export ... --format steb``).
    model : str
        The model's Hub id ``ORG/NAME``; ``NAME`` is the short name of its folders.
    submissions : path, optional
        The edited ``SUBMISSIONS.yaml``; without it, the generated entry is checked.
    models_file : path, optional
        The edited ``scripts/models_all.txt``; without it, a note says what to add.
    contributor : str, optional
        Your GitHub handle for the entry (default: ``ORG``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> f = root / "STEL_register" / "m" / "1_100" / "order_alignment" / "metrics.json"
    >>> f.parent.mkdir(parents=True)
    >>> _ = f.write_text('{"acc_mean": 0.5, "distractor_acc_mean": 0.25}')
    >>> check_submission(root, "org/m").ok
    True
    >>> check_submission(root, "org/other").errors[0][:45]
    "no results subtree <dataset>/'other'/ under /"
    """
    from stebkit.steb_format import read_metrics, scan_steb

    entry = submission_entry(model, contributor=contributor)
    check = SubmissionCheck(entry)
    root = Path(results)
    if not root.is_dir():
        check.errors.append(f"results folder {root} does not exist")
        return check
    short = entry["short_name"]
    # 1. SUBMISSIONS.yaml
    declared: set[str] = set()
    if submissions is not None:
        entries = _read_submissions(Path(submissions), check.errors)
        for i, e in enumerate(entries):
            problems = _entry_errors(e, i)
            check.errors += [f"{submissions}: {p}" for p in problems]
            if not problems:
                declared.add(e["short_name"])
        if short not in declared:
            check.errors.append(f"{submissions}: no valid entry declares short_name "
                                f"{short!r}; paste the entry below")
    else:
        check.errors += _entry_errors(entry, 0)
        declared.add(short)
        check.notes.append("no SUBMISSIONS.yaml given (--submissions): checked the entry "
                           "below; append it to SUBMISSIONS.yaml")
    # 2. a results subtree per model
    on_disk = {m.name for d in root.iterdir() if d.is_dir() for m in d.iterdir() if m.is_dir()}
    if short not in on_disk:
        check.errors.append(f"no results subtree <dataset>/{short!r}/ under {root}; copy "
                            f"the model's result files (stebkit export RESULTS OUT --format "
                            f"steb) or check that the short name matches the folders")
    check.warnings += [f"{root} holds results of {o!r} but no entry declares it"
                       for o in sorted(on_disk - declared)]
    # 3. every metrics file parses (as JSON, and in the layout with numbers)
    for path in sorted(root.rglob("metrics.json")):
        try:
            read_metrics(path)
        except ValueError as err:
            check.errors.append(f"malformed metrics file: {err}")
    if not [e for e in check.errors if e.startswith("malformed metrics file")]:
        try:
            scan_steb(root)
        except ValueError as err:
            check.errors.append(f"layout: {err}")
    # 4. the model is listed
    if models_file is not None:
        listed = _listed_models(Path(models_file), check.errors)
        if entry["hf_id"] not in listed and short not in listed:
            check.errors.append(f"{models_file}: neither {entry['hf_id']!r} nor {short!r} is "
                                "listed; add the line below")
    else:
        check.notes.append("no models_all.txt given (--models-file): add the line below to "
                           "scripts/models_all.txt")
    return check
