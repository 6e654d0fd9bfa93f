"""What a suite file may say, and the checks of every key and value before any data is
read: the datasets' fields, sources and columns, the ``run:`` settings, and the lines that
ask for a grant (:data:`GRANTS`)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from stebkit._io import check_name, shown
from stebkit.datasets.spec import SPLITS
from stebkit.errors import InvalidSetting
from stebkit.settings import MAX_COUNT, Setting
from stebkit.suites.suitefile import KeyLines, Keys, SuiteError, unknown_keys
from stebkit.suites.tables import _source_columns
from stebkit.tasks import FAMILIES
from stebkit.tasks.presets import Preset


class _TaskMetrics(Mapping[str, tuple[str, ...]]):
    """Family -> its metrics, main first (read from ``stebkit.tasks.FAMILIES``)."""

    def __getitem__(self, task: str) -> tuple[str, ...]:
        family = FAMILIES[task]
        return (family.main_metric,
                *(m for m in family.metrics if m != family.main_metric))

    def __iter__(self) -> Any:
        return iter(FAMILIES)

    def __len__(self) -> int:
        return len(FAMILIES)


TASK_METRICS: Mapping[str, tuple[str, ...]] = _TaskMetrics()
"""Metrics a suite may name as ``main_metric``, per task (the first is the default)."""

_FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".json": "json",
            ".parquet": "parquet"}
TOP_KEYS = ("name", "datasets", "run")
"""Keys of a suite file's top level."""
_DATASET_KEYS = ("name", "task", "main_metric", "language", "languages", "license",
                 "description", "label_meaning", "source", "columns", "splits", "split",
                 "min_per_label", "episode_size", "episodes_per_label", "citation")
SOURCE_KEYS: Mapping[str, tuple[str, ...]] = {
    "path": ("path", "format", "sha256"),
    "url": ("url", "sha256", "format"),
    "hf": ("hf", "config", "revision", "split", "remote_code"),
}
"""Keys of a ``source:`` mapping, by its kind (the key that says where the data is)."""
_SPLIT_KEYS = ("fractions", "seed")
_RECORD_FIELDS = ("text", "label", "split", "group", "position", "pair", "same", "side",
                  "work", "feature")
_TABLE_FIELDS = {"queries": ("id", "text"), "corpus": ("id", "text"),
                 "qrels": ("query_id", "doc_id", "relevance")}


RUN_SETTINGS: Mapping[str, Setting] = {
    "trust_remote_code": Setting(
        "trust_remote_code", "bool",
        help="allow models and datasets that run code from their repository (LUAR, gte, "
             "jina; the Hub loading scripts of blog_age, blog_gender, reuters21578; a local "
             "model folder's own code), also when a suite file asks for it (it cannot allow "
             "it itself); review that code first"),
    "preset": Setting(
        "preset", "choice", choices=Preset, optional=True,
        help="the reference's presets: benchmark (every task on every STEB dataset, the "
             "reference's episode sizes) or fast (one dataset per task); --datasets/--suite "
             "restrict it"),
    "episode_sizes": Setting(
        "episode_sizes", "int", low=1, high=MAX_COUNT, choices=(-1,), optional=True,
        many=True, metavar="N",
        help="texts pooled per episode (-1: one episode of all texts per label); overrides "
             "the datasets' sizes except for single-text tasks"),
    "episodes_per_label": Setting(
        "episodes_per_label", "int", low=1, high=MAX_COUNT, optional=True, metavar="N",
        help="episodes sampled per label (the reference's n_episodes_per_class; a --smoke "
             "run samples at most 10)"),
    "device": Setting(
        "device", "text", optional=True,
        help="torch device of the neural models: cpu, cuda, cuda:1, mps (default: a GPU "
             "when there is one)"),
}
"""The run settings a suite file's ``run:`` may give (a flag of ``stebkit run`` of the same
name wins), each declared here once: :class:`~stebkit.runs.context.RunContext` and the
options of :func:`stebkit.evaluate` take these declarations, and a suite file's value is
checked through them (``many``: a list, each item checked)."""

RUN_OPTIONS = (*RUN_SETTINGS, "executor")
"""Keys of a suite file's ``run:`` mapping: :data:`RUN_SETTINGS` and ``executor``."""

GRANTS: Mapping[str, str] = {
    "trust_remote_code": "--trust-remote-code",
    "allow_setup": "--allow-setup",
    "allow_sbatch_extra": "--allow-sbatch-extra",
}
"""What a suite file may ask for but only its reader may grant: the keyword of
:meth:`Suite.granted_run` -> the option of ``stebkit run`` that grants it."""


@dataclass(frozen=True)
class Request:
    """A line of a suite file asking for something only its reader may grant."""

    grant: str
    """A key of :data:`GRANTS`."""
    message: str
    """The file, line and setting that asks, what it would do, and how to grant it."""



@dataclass
class _Doc:
    """The suite file being checked: its path, the lines of its keys, its requests."""

    path: Path
    lines: KeyLines
    requests: list[Request] = field(default_factory=list)

    def fail(self, where: str, message: str, keys: Keys = ()) -> SuiteError:
        return SuiteError(f"{self.path}: {self.lines.at(keys)}{where}: {message}")

    def ask(self, grant: str, keys: Keys, where: str, does: str) -> None:
        self.requests.append(Request(grant, (
            f"{self.path}: {self.lines.at(keys)}{where}: {does}; a suite file cannot allow "
            f"that on its own: review it, then add {GRANTS[grant]} to `stebkit run` (in "
            f"Python, {grant}=True to Suite.granted_run"
            + (" or stebkit.evaluate)" if grant == "trust_remote_code" else ")"))))


def _fail(path: Path, where: str, message: str) -> SuiteError:
    return SuiteError(f"{path}: {where}: {message}")


def _sha256(path: Path) -> str:
    from stebkit._io import open_file

    digest = hashlib.sha256()
    with open_file(path, fix="name a data file", chosen=True) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_source(source: Any, doc: _Doc, where: str, keys: Keys) -> dict[str, Any]:
    if not isinstance(source, Mapping):
        raise doc.fail(where, "source must be a mapping with 'path', 'url' or 'hf'", keys)
    kinds = [k for k in SOURCE_KEYS if k in source]
    if len(kinds) != 1:
        raise doc.fail(where, f"source needs exactly one of 'path', 'url', 'hf', "
                       f"got {sorted(map(str, source))}", keys)
    if "remote_code" in source and "hf" not in source:
        raise doc.fail(where, "remote_code (true or false) applies to 'hf' sources only", keys)
    if "remote_code" in source and not isinstance(source["remote_code"], bool):
        raise doc.fail(where, f"source: remote_code must be true or false, got "
                       f"{shown(source['remote_code'])}", (*keys, "remote_code"))
    refusal = unknown_keys(source, SOURCE_KEYS[kinds[0]], f"key of a {kinds[0]!r} source")
    if refusal:
        raise doc.fail(where, refusal, keys)
    bad = [k for k, v in source.items() if k != "remote_code" and not isinstance(v, str)
           and not (k == "sha256" and v is None)]
    if bad:
        raise doc.fail(where, f"source: {bad[0]} must be a string, got {source[bad[0]]!r}",
                       (*keys, bad[0]))
    out = dict(source)
    if out.get("remote_code"):
        doc.ask("trust_remote_code", (*keys, "remote_code"), f"{where}: remote_code",
                f"true loads the Hub dataset {out['hf']!r} by running its loading script")
    if "path" in out:
        file = (doc.path.parent / out["path"]).resolve()
        if file.exists() and not file.is_file():  # a FIFO or device would hang or never end
            raise doc.fail(where, f"source file {out['path']!r} is not a regular file ({file} "
                           f"is a {_kind(file)}); give the path of a plain data file",
                           (*keys, "path"))
        if not file.is_file():
            raise doc.fail(where, f"source file {out['path']!r} not found (looked for {file})",
                           (*keys, "path"))
        out["path"] = str(file)
        digest = _sha256(file)
        if out.setdefault("sha256", digest) != digest:
            raise doc.fail(where, f"{file} has sha256 {digest}, not the {out['sha256']} the "
                           "suite file gives: the file changed; check it, then update "
                           "sha256", (*keys, "sha256"))
    fmt = out.get("format")
    if "hf" not in out:
        suffix = Path(out.get("path") or out["url"]).suffix.lower()
        fmt = fmt or _FORMATS.get(suffix)
        if fmt not in _FORMATS.values():
            raise doc.fail(where, f"cannot tell the format of {suffix or 'the source'!r}: "
                           f"add format: one of {sorted(set(_FORMATS.values()))}", keys)
        out["format"] = fmt
    return out


_STR_FIELDS = ("task", "main_metric", "language", "license", "description",
               "label_meaning", "citation")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _check_types(entry: Mapping[str, Any], path: Path, where: str) -> None:
    """Every field has the type the format says, before anything is read."""
    for key in _STR_FIELDS:
        if key in entry and not isinstance(entry[key], str):
            raise _fail(path, where, f"{key} must be a string, got {entry[key]!r}")
    if "languages" in entry:
        langs = entry["languages"]
        if isinstance(langs, str) or not isinstance(langs, list) or not langs or \
                not all(isinstance(x, str) and x for x in langs):
            hint = f"; for one language write language: {langs}" if isinstance(langs, str) \
                else ""
            raise _fail(path, where, f"languages must be a list of language codes such as "
                        f"[en, de], got {langs!r}{hint}")
    for key, run_key in (("episode_size", "episode_sizes"),
                         ("episodes_per_label", "episodes_per_label")):
        if key in entry:  # as the same setting of run: (one size of episode_sizes)
            try:
                replace(RUN_SETTINGS[run_key], name=key, optional=False).check(entry[key])
            except InvalidSetting as err:
                raise _fail(path, where, str(err)) from None
    minimum = entry.get("min_per_label", 0)
    if not _is_int(minimum) or minimum < 0:
        raise _fail(path, where, f"min_per_label must be a non-negative integer, got "
                    f"{minimum!r}")
    columns = entry.get("columns", {})
    family = FAMILIES.get(entry.get("task")) if isinstance(entry.get("task"), str) else None
    tables = tuple(_TABLE_FIELDS) if family is not None and family.graded_relevance else ()
    if not isinstance(columns, Mapping):
        raise _fail(path, where, "columns must map fields to column names, e.g. {text: "
                    f"Request, label: Community}}, got {type(columns).__name__} {columns!r}")
    refusal = unknown_keys(columns, tables or _RECORD_FIELDS, "key of columns")
    if refusal:
        raise _fail(path, where, refusal)
    for key, column in columns.items():
        if tables:
            if not isinstance(column, Mapping) or not all(
                    isinstance(c, str) for c in column.values()):
                raise _fail(path, where, f"columns.{key} must map fields to column names, "
                            f"got {column!r}")
            refusal = unknown_keys(column, _TABLE_FIELDS[key], f"key of columns.{key}")
            if refusal:
                raise _fail(path, where, refusal)
        elif not isinstance(column, str):
            raise _fail(path, where, f"columns.{key} must be a column name (a string), "
                        f"got {column!r}")


def _row_fields(entry: Mapping[str, Any]) -> tuple[str, ...]:
    """The fields a (not retrieval_ndcg) dataset's table holds: text, label and the
    columns of its task (its split only when ``split:`` does not make one)."""
    extra = [c for c in FAMILIES[entry["task"]].columns
             if not (c == "split" and "split" in entry)]
    return ("text", "label", *extra)


def _check_columns(entry: Mapping[str, Any], doc: _Doc, where: str) -> None:
    """A column named in the suite file (or a default one) must be in the data."""
    task = entry["task"]
    columns = dict(entry.get("columns") or {})
    if FAMILIES[task].graded_relevance:
        checks = [(f"source.{k}", entry["source"][k], dict(columns.get(k, {})), needs)
                  for k, needs in _TABLE_FIELDS.items()]
    else:
        checks = [("source", entry["source"], columns, _row_fields(entry))]
    for part, source, mapping, required in checks:
        try:
            have = _source_columns(source)
        except UnicodeDecodeError:
            raise doc.fail(f"{where}: {part}", f"{source.get('path') or source.get('url')}"
                           " is not UTF-8 text; convert it to UTF-8") from None
        except Exception as err:
            raise doc.fail(f"{where}: {part}", f"cannot read "
                           f"{source.get('path') or source.get('url')} as {source['format']}: "
                           f"{err}") from None
        if have is None:
            continue
        wanted = {f: mapping.get(f, f) for f in required}
        wanted.update({f: c for f, c in mapping.items() if f not in wanted})
        missing = {f: c for f, c in wanted.items() if c not in have}
        if missing:
            needed = f" ({task} needs {', '.join(required)})" if set(missing) - set(mapping) \
                else ""
            raise doc.fail(f"{where}: {part}", f"column(s) {sorted(missing.values())} "
                           f"(for {sorted(missing)}, see 'columns') not in "
                           f"{source.get('path') or source.get('url')}{needed}; it has "
                           f"{have[:12]}")


def _check_name(value: Any, doc: _Doc, where: str, keys: Keys, what: str) -> str:
    if value is None:
        raise doc.fail(where, f"missing 'name' (the {what}'s name)", keys)
    if not isinstance(value, str) or not value.strip():
        hint = f"; quote it: name: '{value}'" if isinstance(value, (int, float)) else ""
        raise doc.fail(where, f"name must be a non-empty string, got {value!r} "
                       f"({type(value).__name__}){hint}", (*keys, "name"))
    return value


def _check_split(split: Any, doc: _Doc, where: str, keys: Keys) -> None:
    """``split: {fractions: [train, validation, test], seed: N}``, every value checked."""
    if not isinstance(split, Mapping):
        raise doc.fail(where, f"split must be a mapping such as {{fractions: [0.6, 0.2, 0.2], "
                       f"seed: 42}}, got {split!r}", keys)
    refusal = unknown_keys(split, _SPLIT_KEYS, "key of split")
    if refusal:
        raise doc.fail(where, refusal, keys)
    fr = split.get("fractions")
    numbers = isinstance(fr, list) and all(
        isinstance(f, (int, float)) and not isinstance(f, bool) for f in fr)
    if not (numbers and len(fr) == 3 and all(0 < f < 1 for f in fr)
            and abs(sum(fr) - 1) < 1e-9):
        raise doc.fail(where, "split.fractions must be three positive numbers summing to 1 "
                       f"(train, validation, test), got {fr!r}", (*keys, "fractions"))
    seed = split.get("seed", 0)
    if not _is_int(seed) or seed < 0:
        raise doc.fail(where, f"split.seed must be a non-negative integer, got {seed!r}",
                       (*keys, "seed"))


def _check_entry(entry: Any, doc: _Doc, index: int, seen: set[str]) -> dict[str, Any]:
    keys: Keys = ("datasets", index)
    where = f"datasets[{index}]"
    if not isinstance(entry, Mapping):
        raise doc.fail(where, "each dataset must be a mapping", keys)
    name = _check_name(entry.get("name"), doc, where, keys, "dataset")
    try:
        check_name(name, "dataset")
    except ValueError as err:
        raise doc.fail(where, str(err), (*keys, "name")) from None
    where = f"dataset {name!r}"
    if name in seen:
        raise doc.fail(where, "duplicated dataset name; names must be unique", keys)
    seen.add(name)
    refusal = unknown_keys(entry, _DATASET_KEYS, "field")
    if refusal:
        raise doc.fail(where, refusal, keys)
    _check_types(entry, doc.path, where)
    task = entry.get("task")
    if task not in FAMILIES:  # every family registered when the file is read
        raise doc.fail(where, f"unknown task {task!r}; choose one of {tuple(FAMILIES)}")
    metric = entry.get("main_metric", TASK_METRICS[task][0])
    if metric not in TASK_METRICS[task]:
        raise doc.fail(where, f"main_metric {metric!r} is not a metric of {task}; "
                       f"choose one of {TASK_METRICS[task]}")
    out = dict(entry, main_metric=metric)
    if "source" not in entry:
        raise doc.fail(where, "missing 'source'")
    keys = (*keys, "source")
    family = FAMILIES[task]
    if family.graded_relevance:
        src = entry["source"]
        if not isinstance(src, Mapping) or set(src) != {"queries", "corpus", "qrels"}:
            raise doc.fail(where, "a retrieval_ndcg source needs exactly the tables "
                           "'queries', 'corpus' and 'qrels'", keys)
        out["source"] = {k: _check_source(v, doc, f"{where}: source.{k}", (*keys, k))
                         for k, v in src.items()}
    else:
        out["source"] = _check_source(entry["source"], doc, f"{where}: source", keys)
    if "splits" in entry and "split" in entry:
        raise doc.fail(where, "give either 'splits' (values of a split column) or "
                       "'split' (fractions for a seeded split), not both")
    if "splits" in entry:
        splits = entry["splits"]
        if not isinstance(splits, Mapping) or not set(splits) <= set(SPLITS) \
                or not all(isinstance(v, (str, int)) and not isinstance(v, bool)
                           for v in splits.values()):
            raise doc.fail(where, "splits must map train/validation/test to the values of "
                           f"the split column, got {splits!r}", (*keys[:-1], "splits"))
        needed = set(SPLITS) if family.requires_split else set()
        if needed - set(splits):
            raise doc.fail(where, f"splits lacks {sorted(needed - set(splits))}")
    if "split" in entry:
        _check_split(entry["split"], doc, where, (*keys[:-1], "split"))
    if family.requires_split and "splits" not in entry and "split" not in entry:
        raise doc.fail(where, f"{task} needs train/validation/test: give 'splits' or "
                       "'split: {fractions: [...]}'")
    _check_columns(out, doc, where)
    return out


def _check_run(run: Any, doc: _Doc) -> dict[str, Any]:
    """The ``run:`` mapping, each value checked for its type; what it asks that only the
    command line may grant is noted in ``doc.requests``."""
    if run is None:
        return {}
    keys: Keys = ("run",)
    if not isinstance(run, Mapping):
        raise doc.fail("run", f"must be a mapping of {list(RUN_OPTIONS)}, got {run!r}", keys)
    refusal = unknown_keys(run, RUN_OPTIONS, "setting")
    if refusal:
        raise doc.fail("run", refusal, keys)
    out = dict(run)
    for key, value in out.items():
        if key in RUN_SETTINGS:
            _check_run_setting(key, value, doc)
    if out.get("trust_remote_code"):
        doc.ask("trust_remote_code", (*keys, "trust_remote_code"), "run: trust_remote_code",
                "true lets models and datasets run code from their repositories (and a "
                "local model folder's own code)")
    if "executor" in out:
        _check_executor(out["executor"], doc)
    return out


def _check_run_setting(key: str, value: Any, doc: _Doc) -> None:
    """One value of ``run:`` through its declared setting (:data:`RUN_SETTINGS`), named
    as the file writes it (``run: episodes_per_label``)."""
    declared = RUN_SETTINGS[key].named(f"run: {key}")
    try:
        if declared.many and (not isinstance(value, list) or not value):
            raise InvalidSetting(f"run: {key} must be a list, each item {declared.describe()}"
                                 f", got {shown(value)}")
        for item in value if declared.many else [value]:
            declared.check(item)
    except InvalidSetting as err:
        raise SuiteError(f"{doc.path}: {doc.lines.at(('run', key))}{err}") from None


def _check_executor(value: Any, doc: _Doc) -> None:
    """``run: executor``: a valid :class:`~stebkit.suites.executor_config.ExecutorConfig` (checked
    now, not when the run starts); its ``setup`` and ``extra`` ask for grants."""
    from stebkit.suites.executor_config import executor_config

    keys: Keys = ("run", "executor")
    if not isinstance(value, (str, Mapping)):
        raise doc.fail("run: executor", f"must be sequential, local or slurm, or a mapping "
                       f"such as {{kind: slurm, partition: gpu, gpus_per_job: 1}} (see "
                       f"stebkit.suites.executor_config.ExecutorConfig), got {value!r}", keys)
    setup = value.get("setup", []) if isinstance(value, Mapping) else []
    if not isinstance(setup, str) and not (isinstance(setup, list)
                                           and all(isinstance(x, str) for x in setup)):
        raise doc.fail("run: executor: setup", f"must be a list of shell lines, got "
                       f"{setup!r}", (*keys, "setup"))
    try:
        config = executor_config(value)
    except ValueError as err:
        raise doc.fail("run: executor", str(err).removeprefix("executor: "), keys) from None
    if config.setup:
        doc.ask("allow_setup", (*keys, "setup"), "run: executor: setup",
                f"{list(config.setup)!r} are shell lines run before each SLURM job")
    if config.extra:
        doc.ask("allow_sbatch_extra", (*keys, "extra"), "run: executor: extra",
                f"{dict(config.extra)!r} are sbatch options passed as they are")


def _kind(path: Path) -> str:
    """What a path that is no regular file is, in words (``folder``, ``FIFO``, ...)."""
    import stat

    mode = path.stat().st_mode
    kinds = ((stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "FIFO (named pipe)"),
             (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
             (stat.S_ISSOCK, "socket"))
    return next((name for test, name in kinds if test(mode)), "special file")
