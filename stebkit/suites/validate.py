"""Check dataset declarations: every catalogue spec and any suite file.

:func:`check_spec` lists what is wrong with one :class:`~stebkit.datasets.spec.DatasetSpec`
(fields, types, tasks and their episode configuration, the source's URLs and checksums,
a reader present, a main metric that belongs to its task); :func:`check_suite_file`
loads a suite file without registering it and reports its first error;
:func:`validate` does both for the whole catalogue and the given files, and
``stebkit validate`` prints the list and exits with 1 when it is not empty.
:func:`new_dataset` writes a suite-file stub for a new dataset and a test to fill in.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+/-]*$")
_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
_LANGUAGE = re.compile(r"^[a-z]{2,3}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
SCHEMES = ("https://", "http://", "gdrive://", "file://")


def _nonempty_str(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def check_spec(spec: Any) -> list[str]:
    """Problems of one dataset spec, each naming the dataset and the field.

    Examples
    --------
    >>> from stebkit.datasets import get_spec
    >>> check_spec(get_spec("stel-contraction"))
    []
    >>> from dataclasses import replace
    >>> check_spec(replace(get_spec("stel-contraction"), languages=("english",), reader=None))
    ["dataset 'stel-contraction': languages: 'english' is not a two- or three-letter \
language code (e.g. 'en')", "dataset 'stel-contraction': reader: none; give a reader \
function (spec, *, seed, smoke) -> records"]
    """
    from stebkit.datasets.spec import License, Source, TaskConfig

    name = getattr(spec, "name", None)
    where = f"dataset {name!r}"
    out: list[str] = []

    def bad(field_name: str, message: str) -> None:
        out.append(f"{where}: {field_name}: {message}")

    if not isinstance(name, str) or not _NAME.match(name) or ".." in name.split("/"):
        bad("name", "must be letters, digits and . _ + - (and / between parts, no '..'), "
                    "starting with a letter or digit")
    for field_name in ("description", "label"):
        if not _nonempty_str(getattr(spec, field_name, None)):
            bad(field_name, "must be a non-empty string")
    languages = getattr(spec, "languages", None)
    if not isinstance(languages, tuple) or not languages:
        bad("languages", f"must be a non-empty tuple of language codes, got {languages!r}")
    else:
        for lang in languages:
            if not isinstance(lang, str) or not _LANGUAGE.match(lang):
                bad("languages", f"{lang!r} is not a two- or three-letter language code "
                                 "(e.g. 'en')")
    lic = getattr(spec, "license", None)
    if not isinstance(lic, License) or not _nonempty_str(lic.name):
        bad("license", "must be a License with a name (the terms the data is under)")
    src = getattr(spec, "source", None)
    if not isinstance(src, Source):
        bad("source", f"must be a Source, got {type(src).__name__}")
    else:
        for url, sha in src.urls:
            if not isinstance(url, str) or not url.startswith(SCHEMES):
                bad("source", f"URL {url!r} must start with one of {SCHEMES}")
            if sha is not None and not (isinstance(sha, str) and _SHA256.match(sha)):
                bad("source", f"sha256 of {url} must be 64 lowercase hex digits or None, "
                              f"got {sha!r}")
        if src.hf_path is not None and (not _nonempty_str(src.hf_path) or src.urls):
            bad("source", "a Hub source needs hf_path (org/name) and no URLs")
    tasks = getattr(spec, "tasks", None) or {}
    if not tasks:
        bad("tasks", "no task: declare at least one task family with its TaskConfig")
    for task, config in tasks.items():
        if not isinstance(config, TaskConfig):
            bad("tasks", f"{task}: expected a TaskConfig, got {type(config).__name__}")
    metric = getattr(spec, "main_metric", None)
    if metric is not None:
        from stebkit.suites import TASK_METRICS

        known = {m for t in tasks for m in TASK_METRICS.get(t, ())}
        if metric not in known:
            bad("main_metric", f"{metric!r} is not a metric of {sorted(tasks)}; choose one "
                               f"of {sorted(known)}")
    if not callable(getattr(spec, "reader", None)):
        bad("reader", "none; give a reader function (spec, *, seed, smoke) -> records")
    suites = getattr(spec, "suites", ())
    if not isinstance(suites, tuple) or not suites:
        bad("suites", "must name at least one suite")
    return out


def check_catalogue(names: Iterable[str] | None = None) -> list[str]:
    """Problems of every registered dataset (or of ``names``)."""
    from stebkit.datasets import get_spec, list_datasets

    out = []
    for name in names if names is not None else list_datasets():
        out += check_spec(get_spec(name))
    return out


def check_suite_file(path: str | os.PathLike[str], *,
                     progress: Callable[[int, int], None] | None = None) -> list[str]:
    """The problem of a suite file (loaded without registering it), or ``[]``;
    ``progress(done, total)`` is called as its datasets are checked.

    >>> from stebkit.suites import write_example_suite
    >>> import tempfile
    >>> check_suite_file(write_example_suite(tempfile.mkdtemp()))
    []
    """
    from stebkit._io import read_text
    from stebkit.suites import load_suite

    try:
        text = read_text(path, fix="name a suite file (YAML or TOML, saved as UTF-8)",
                         chosen=True)
    except ValueError as err:
        return [str(err)]
    except OSError as err:
        return [f"{path}: cannot be read ({err.strerror or err})"]
    out = [f"{path}: line {i}: a TODO placeholder is left to fill in"
           for i, line in enumerate(text.splitlines(), start=1)
           if "TODO" in line.split("#", 1)[0]]
    try:
        suite = load_suite(path, register=False, progress=progress)
    except (ValueError, OSError) as err:
        return [*out, str(err)]
    for spec in suite.specs:
        out += [f"{path}: {p}" for p in check_spec(spec)]
    return out


def validate(paths: Sequence[str | os.PathLike[str]] = (), *, catalogue: bool = True,
             progress: Callable[[Path, int, int], None] | None = None) -> list[str]:
    """Problems of the catalogue (when ``catalogue``) and of the suite files ``paths``
    (a folder stands for the ``.yaml``/``.yml``/``.toml`` files in it);
    ``progress(file, done, total)`` is called as each file's datasets are checked."""
    out = check_catalogue() if catalogue else []
    for p in paths:
        p = Path(p)
        files = sorted(f for f in p.iterdir() if f.suffix.lower() in (".yaml", ".yml", ".toml")) \
            if p.is_dir() else [p]
        if p.is_dir() and not files:
            out.append(f"{p}: no suite files (.yaml, .yml, .toml) in this folder")
        for f in files:
            out += check_suite_file(f, progress=None if progress is None else
                                    lambda done, total, f=f: progress(f, done, total))
    return out


# --------------------------------------------------------------------------- new dataset

_STUB = """\
# Suite file declaring the dataset {name!r} ({what}).
# Fill in every TODO, then check it with: stebkit validate {file}
# and run it with: stebkit run --suite {file} --models all-MiniLM-L6-v2
name: {name}-suite
{run}datasets:
  - name: {name}
    task: clustering            # TODO: clustering, all_to_all_pairs, predefined_pairs,
                                #   retrieval, order_alignment, probing, classification
    language: en                # TODO
    license: TODO               # the terms the data is under
    description: TODO one line on what the texts are and what the label means
    label_meaning: TODO         # e.g. author, genre, register
    citation: TODO
    source: {source}
    columns: {{text: text, label: label}}   # TODO: the columns holding text and label
    episode_size: 1
    episodes_per_label: 50
"""
_KINDS = {
    "hub": {"what": "a Hugging Face Hub dataset",
            "run": "run:\n  trust_remote_code: false      # true only if the Hub dataset has "
                   "a loading script (run it with --trust-remote-code)\n",
            "source": "{hf: TODO-org/TODO-dataset, split: test, revision: TODO-commit-sha}"},
    "local": {"what": "a local file", "run": "",
              "source": "{{path: {name}.csv}}  # TODO: CSV/TSV/JSONL/JSON/Parquet, beside "
                        "this file"},
}

_TEST_STUB = '''\
"""Checks of the dataset {name!r} declared in {file}: fill in the expected values."""

from pathlib import Path

import pytest

from stebkit.datasets import load_dataset
from stebkit.suites import load_suite

SUITE = Path(__file__).with_name("{file}")
EXPECTED_TEXTS = None   # TODO: number of texts after loading
EXPECTED_LABELS = None  # TODO: the set of labels, e.g. {{"formal", "informal"}}


def test_{ident}_loads_as_declared():
    if EXPECTED_TEXTS is None or EXPECTED_LABELS is None:
        pytest.fail("fill in EXPECTED_TEXTS and EXPECTED_LABELS in " + __file__)
    load_suite(SUITE)
    frame = load_dataset("{name}").frame
    assert len(frame) == EXPECTED_TEXTS
    assert set(frame["label"]) == EXPECTED_LABELS
    assert frame["text"].str.strip().ne("").all()
'''


def new_dataset(name: str, kind: str, directory: str | os.PathLike[str] = ".", *,
                overwrite: bool = False) -> tuple[Path, Path]:
    """Write ``<name>.yaml`` (a suite-file stub declaring the dataset) and
    ``test_<name>.py`` (a test to fill in) into ``directory``.

    Parameters
    ----------
    name : str
        The dataset's name (letters, digits, ``. _ + -``).
    kind : {"hub", "local"}
        A Hugging Face Hub dataset or a local file.
    directory : path, default "."
    overwrite : bool, default False
        Replace existing files of the same names.

    Examples
    --------
    >>> import tempfile
    >>> spec_file, test_file = new_dataset("my-set", "local", tempfile.mkdtemp())
    >>> spec_file.name, test_file.name
    ('my-set.yaml', 'test_my_set.py')
    """
    from stebkit._io import write_text

    if not isinstance(name, str) or not _FILE_NAME.match(name) or ".." in name:
        raise ValueError(f"dataset name {name!r}: use letters, digits and . _ + - only")
    if kind not in ("hub", "local"):
        raise ValueError(f"--type must be 'hub' or 'local', got {kind!r}")
    folder = Path(directory)
    ident = re.sub(r"\W", "_", name)
    spec_file, test_file = folder / f"{name}.yaml", folder / f"test_{ident}.py"
    existing = [str(f) for f in (spec_file, test_file) if f.exists()]
    if existing and not overwrite:
        raise ValueError(f"{', '.join(existing)} already exist(s); choose another name or "
                         "pass --overwrite")
    parts = dict(_KINDS[kind])
    parts["source"] = parts["source"].format(name=name) if kind == "local" else parts["source"]
    write_text(spec_file, _STUB.format(name=name, file=spec_file.name, **parts))
    write_text(test_file, _TEST_STUB.format(name=name, file=spec_file.name, ident=ident))
    return spec_file, test_file
