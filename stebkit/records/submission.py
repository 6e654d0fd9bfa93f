"""Check a submission to the published STEB leaderboard before opening the pull request.

STEB takes new models as pull requests that add (1) a four-key entry to its
``SUBMISSIONS.yaml`` (``short_name``, ``hf_id``, ``run_command``, ``contributor``), (2)
the model's line in ``scripts/models_all.txt`` and (3) the result files the reference
writes, under ``submitted_results/<dataset>/<short_name>/...`` (see
:mod:`stebkit.records.steb_format`; ``stebkit export RESULTS OUT --format steb`` writes them).
:func:`check_submission` checks what the reference's validator checks:

1. every ``SUBMISSIONS.yaml`` entry (when the file is given) is a mapping with the four
   keys as non-empty strings, and one of them declares this model;
2. the model has a results subtree ``<dataset>/<short_name>/`` under the results folder;
3. every ``metrics.json`` there parses as JSON (stebkit also checks the layout, the task
   folders, that every value is a number inside its metric's range, that no file or
   folder is a symbolic link, and that the results cover the whole benchmark:
   :func:`coverage_errors`);
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
        """A summary for the terminal or a pull-request comment: the errors, warnings and
        notes, and only when it passes, the entry to paste."""
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
        if self.ok:  # after a FAIL, nothing to paste yet: fix the errors first
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

    from stebkit._io import read_text

    try:
        data = yaml.safe_load(read_text(path, fix="save it as UTF-8 YAML (a regular file)",
                                        chosen=True)) or []
    except ValueError as err:
        errors.append(str(err))
        return []
    except (OSError, yaml.YAMLError) as err:
        errors.append(f"{path}: cannot be read as YAML ({err})")
        return []
    if not isinstance(data, list):
        errors.append(f"{path}: must hold a top-level YAML list of entries, got "
                      f"{type(data).__name__}")
        return []
    return data


def _listed_models(path: Path, errors: list[str]) -> set[str]:
    from stebkit._io import read_text

    try:
        lines = read_text(path, fix="save it as UTF-8 text (a regular file)",
                          chosen=True).splitlines()
    except ValueError as err:
        errors.append(str(err))
        return set()
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
    >>> check = check_submission(root, "org/m")
    >>> check.ok, check.errors[0][:40]
    (False, 'the submission lacks 314 of the 315 resu')
    >>> check_submission(root, "org/other").errors[0][:45]
    "no results subtree <dataset>/'other'/ under /"
    """
    from stebkit._io import files_under
    from stebkit.records.steb_format import read_metrics, scan_steb

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
    on_disk = {m.name for d in root.iterdir() if d.is_dir() and not d.is_symlink()
               for m in d.iterdir() if m.is_dir() and not m.is_symlink()}
    if short not in on_disk:
        check.errors.append(f"no results subtree <dataset>/{short!r}/ under {root}; copy "
                            f"the model's result files (stebkit export RESULTS OUT --format "
                            f"steb) or check that the short name matches the folders")
    check.warnings += [f"{root} holds results of {o!r} but no entry declares it"
                       for o in sorted(on_disk - declared)]
    # 3. every metrics file parses (as JSON, and in the layout with numbers in range)
    try:
        paths = files_under(root, "metrics.json")
    except ValueError as err:
        check.errors.append(f"layout: {err}")
        paths = []
    malformed = False
    for path in paths:
        try:
            read_metrics(path)
        except ValueError as err:
            check.errors.append(f"malformed metrics file: {err}")
            malformed = True
    if paths and not malformed:
        try:
            items = scan_steb(root)
        except ValueError as err:
            check.errors.append(f"layout: {err}")
        else:  # 3b. the whole benchmark, as the reference runs it
            check.errors += coverage_errors([i for i in items if i["model"] == short], short)
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


def expected_files() -> dict[tuple[str, str], set[str]]:
    """What the reference's benchmark writes for one model: (dataset folder, task folder)
    -> its episode folders (``<size>_<episodes per label>``), for every dataset of the
    STEB catalogue that the ``benchmark`` preset runs (:mod:`stebkit.tasks.presets`).

    >>> files = expected_files()
    >>> sorted(files[("STEL_register", "order_alignment")])
    ['1_100']
    >>> sum(map(len, files.values()))
    315
    """
    from stebkit.records.steb_format import REFERENCE_TASK_NAMES, reference_folder
    from stebkit.tasks.presets import preset_entries, resolve_datasets

    out: dict[tuple[str, str], set[str]] = {}
    for entry in preset_entries("benchmark"):
        folders = {f"{size}_{entry.episodes_per_label}" for size in entry.episode_sizes}
        for name in resolve_datasets(entry, None, []):
            out[(reference_folder(name), REFERENCE_TASK_NAMES[entry.task])] = folders
    return out


def coverage_errors(items: list[dict[str, Any]], short: str) -> list[str]:
    """Why one model's scanned result files (:func:`stebkit.records.steb_format.scan_steb`) are
    not a whole benchmark run: result files missing (and how many STEB datasets have
    none), files with another episode configuration than the reference's, and dataset
    folders that are not STEB datasets. Empty when the run is complete.

    >>> coverage_errors([], "m")[0][:60]
    'the submission lacks 315 of the 315 result files the referen'
    """
    from stebkit.records.steb_format import REFERENCE_TASK_NAMES

    expected = expected_files()
    steb = {d for d, _ in expected}
    have: dict[tuple[str, str], set[str]] = {}
    for it in items:
        key = (it["dataset"], REFERENCE_TASK_NAMES[it["task"]])
        have.setdefault(key, set()).add(f"{it['episode_size']}_{it['episodes_per_label']}")
    errors = []
    missing = sorted(f"{d}/{short}/{e}/{t}" for (d, t), eps in expected.items()
                     for e in sorted(eps - have.get((d, t), set())))
    if missing:
        empty = sorted(steb - {d for d, _ in have})
        errors.append(f"the submission lacks {len(missing)} of the "
                      f"{sum(map(len, expected.values()))} result files the reference's "
                      f"benchmark writes ({len(empty)} of the {len(steb)} STEB datasets have "
                      f"none{': ' + _some(empty) if empty else ''}; e.g. {_some(missing)}); "
                      "run the whole benchmark (stebkit run --preset benchmark)")
    other = sorted(f"{d}/{short}/{e}/{t} (the reference: {', '.join(sorted(expected[d, t]))})"
                   for (d, t), eps in have.items() if (d, t) in expected
                   for e in sorted(eps - expected[d, t]))
    if other:
        errors.append(f"{len(other)} result file(s) use another episode configuration than "
                      f"the reference's: {_some(other)}")
    foreign = sorted({d for d, t in have if d not in steb})
    if foreign:
        errors.append(f"{len(foreign)} dataset folder(s) are not STEB datasets the benchmark "
                      f"runs: {_some(foreign)}")
    return errors


def _some(names: list[str], limit: int = 5) -> str:
    more = f", ... ({len(names) - limit} more)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more
