"""Result records: one small versioned JSON file per model x dataset x task x episode size.

Layout: ``<root>/<model>/<dataset>/<task>__e<episode_size>.json`` (names made safe for
every file system, one file name per name — :func:`stebkit.names.file_name`; the record
keeps the real names). A record is written atomically, so
an interrupted run never leaves a half-written file and a rerun skips what is done.

Record (schema 2)
-----------------
``schema``, ``stebkit_version``;
``model``: ``name``, ``revision``, ``category``;
``dataset``: ``name``, ``fingerprint``, ``source_sha256`` (list), ``category``,
``languages``, ``application``;
``task``, ``episode_size``, ``episodes_per_label``, ``seed``;
``protocol``: every parameter the numbers depend on (pooling, smoke, batch size, ...);
``main_metric`` and ``higher_is_better`` (its direction); ``metrics`` (name -> float);
``counts`` (name -> int: pairs, queries, dropped queries ...); ``chosen`` (settings the
task function chose, e.g. ``regularisation``); ``per_label`` (all-vs-all pairs: each
label against all others, ``auc`` and ``eer``, as the reference); ``submetrics`` (the
dataset's declared sub-results: name -> metrics and ``n_items``, or ``error``); ``ci``:
``low``,
``high``, ``level``, ``resamples``, ``unit``; ``n_items`` (the units the interval
resamples: pairs, queries, test texts, ...); ``dropped`` (filter counts);
``per_item``: ``ids`` and ``values`` (per-item contributions to the main metric, for
paired comparisons) and optional aligned lists such as ``labels``;
``collapsed_share`` (share of the distinct texts, or of the items for encoders that embed
episodes themselves, that share one identical vector; a warning above 10%);
``runtime_s``, ``date``; ``status``: ``"ok"``, ``"failed"`` (with ``error`` and
``traceback``) or ``"skipped"`` (with ``reason``); ``warnings`` (list of str).

Schema-1 records (written before metrics, counts and settings were separated) are
converted on reading (:func:`upgrade_record`): counts leave ``metrics``, renamed metrics
get their current names, and ``converted_from`` says so.

Every record is parsed and checked in one place, :meth:`Record.from_json`, when it is
written (:func:`write_record`), read (:func:`read_record`, :meth:`Results.load`) and
imported (:func:`stebkit.records.steb_format.import_steb`), against the fields declared once in
:data:`stebkit.records.schema.FIELDS` (a key it does not declare is refused, as is a JSON
key given twice): an ``ok`` record holds its main metric and every metric is a finite
number inside the range its definition allows (:func:`metric_range`), an interval's bounds
too, around the value; counts are non-negative integers. Whether a file passes depends on
the file alone, never on what the process has registered. A record that fails is named
with its file, field and value; on resume it counts as not done and is recomputed. A
results folder is read without following symbolic links; a record outside its
``<model>/<dataset>/`` folder is left out and named.

A record owns only its measurements: for a registered dataset or a zoo model, the frames
the scores read (:meth:`Results.main_frame`, :meth:`Results.to_frame`) take the category,
languages, application and main metric from the catalogue and the zoo, and
:attr:`Results.notes` names a record that says otherwise
(:mod:`stebkit.records.catalogue`).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stebkit._io import shown as _shown
from stebkit.names import file_name, safe_name
from stebkit.records.schema import SCHEMA, check_fields, upgrade_record

STATUSES = ("ok", "failed", "skipped")
_STATUS_DETAIL = {"ok": None, "failed": "error", "skipped": "reason"}
"""The field that says why a record has its status (:meth:`Results.with_status`)."""
RECOMPUTE = "delete the file to recompute it"
"""The fix a bad record's message names (an imported file's message names another)."""
UNDEFINED = "the metric is undefined on these data (see the warnings); the result is not kept"
"""Why a freshly computed result with a NaN or out-of-range metric is recorded as failed."""

FRAME_COLUMNS = ("model", "model_category", "dataset", "dataset_category", "language",
                 "application", "task", "episode_size", "episodes_per_label", "metric",
                 "value", "is_main", "ci_low", "ci_high", "status")


def record_path(root: str | os.PathLike, model: str, dataset: str, task: str,
                episode_size: int, episodes_per_label: int | None = None) -> Path:
    """Where the record of one model x dataset x task x episode size lives.

    Distinct names always get distinct paths (see :func:`file_name`). Records imported
    from the reference's files name their episodes per label as well
    (``<task>__e<size>_n<episodes per label>.json``), since its files keep one result per
    episode configuration.

    >>> record_path("results", "tfidf-char", "stel", "order_alignment", 1).as_posix()
    'results/tfidf-char/stel/order_alignment__e1.json'
    >>> record_path("results", "m", "d", "clustering", 1, 50).name
    'clustering__e1_n50.json'
    """
    per_label = "" if episodes_per_label is None else f"_n{int(episodes_per_label)}"
    return Path(root) / file_name(model) / file_name(dataset) / \
        f"{safe_name(task)}__e{int(episode_size)}{per_label}.json"


def find_record(root: str | os.PathLike, model: str, dataset: str, task: str,
                episode_size: int) -> Path:
    """The record path of a combination, falling back to the file name of older stebkit
    versions (plain :func:`safe_name`) when only that file exists *and* it holds this very
    model and dataset, so records written before names became injective stay in use.

    >>> find_record("results", "tfidf-char", "stel", "order_alignment", 1).as_posix()
    'results/tfidf-char/stel/order_alignment__e1.json'
    """
    path = record_path(root, model, dataset, task, episode_size)
    legacy = Path(root) / safe_name(model) / safe_name(dataset) / path.name
    if path.exists() or legacy == path or not legacy.is_file():
        return path
    try:
        old = read_record(legacy)
    except (ValueError, OSError):
        return path
    same = (old.get("model") or {}).get("name") == model and \
        (old.get("dataset") or {}).get("name") == dataset
    return legacy if same else path


def jsonable(value: Any) -> Any:
    """``value`` in plain JSON types, as a record holds it: mappings with string keys,
    lists, numbers (numpy's included), strings; non-finite floats become None (JSON has no
    NaN), anything else its ``str``.

    >>> import numpy as np
    >>> jsonable({1: np.float32(0.5), "ci": (np.nan, 2), "n": np.arange(2)})
    {'1': 0.5, 'ci': [None, 2], 'n': [0, 1]}
    """
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return jsonable(value.tolist())
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if hasattr(value, "item"):
        return jsonable(value.item())
    return str(value)


def new_record(*, model: Mapping[str, Any], dataset: Mapping[str, Any], task: str,
               episode_size: int, episodes_per_label: int | str | None, seed: int | None,
               protocol: Mapping[str, Any], main_metric: str, n_items: int | None,
               metrics: Mapping[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """The fields of a new record, in the order every record has them: the schema and
    stebkit version, the model and dataset metadata, the task and its episodes, the seed,
    the protocol (``protocol`` with the task and episodes), the main metric, ``metrics``,
    no interval and no per-item values yet, then ``fields`` (a run's timing, an import's
    status...). The one constructor of records, for a run and for an import.

    >>> rec = new_record(model={"name": "m"}, dataset={"name": "d"}, task="retrieval",
    ...                  episode_size=-1, episodes_per_label=1, seed=42,
    ...                  protocol={"seed": 42}, main_metric="mrr", n_items=0, status="ok")
    >>> list(rec)[:4], list(rec)[-3:]
    (['schema', 'stebkit_version', 'model', 'dataset'], ['n_items', 'per_item', 'status'])
    >>> rec["protocol"]
    {'seed': 42, 'task': 'retrieval', 'episode_size': -1, 'episodes_per_label': 1}
    """
    from stebkit import __version__

    return {"schema": SCHEMA, "stebkit_version": __version__, "model": model,
            "dataset": dataset, "task": task, "episode_size": episode_size,
            "episodes_per_label": episodes_per_label, "seed": seed,
            "protocol": {**protocol, "task": task, "episode_size": episode_size,
                         "episodes_per_label": episodes_per_label},
            "main_metric": main_metric, "metrics": dict(metrics or {}), "ci": None,
            "n_items": n_items, "per_item": {"ids": [], "values": []}, **fields}


def write_record(path: str | os.PathLike, record: Mapping[str, Any]) -> Path:
    """Write ``record`` as JSON atomically (NaN and infinities become ``null``), after
    checking it as :meth:`Record.from_json` does: a record with a bad value is never
    written (the ValueError names the field). A :class:`Record` is checked already and
    written as it is. Its model and dataset folders (the two
    above it, :func:`record_path`) must be real folders: a link is refused, named
    (:class:`stebkit.errors.LinkRefused`), never written through.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> rec = {"schema": 2, "model": {"name": "m"}, "dataset": {"name": "d"},
    ...        "task": "retrieval", "episode_size": -1, "main_metric": "mrr",
    ...        "metrics": {"mrr": 0.5}, "status": "ok"}
    >>> read_record(write_record(d / "a" / "r.json", rec)) == rec
    True
    >>> write_record(d / "b.json", {**rec, "metrics": {"mrr": float("nan")}})
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../b.json: field 'metrics.mrr' is null (NaN or missing); delete the file ...
    """
    from stebkit._io import write_text

    data = record.to_json() if isinstance(record, Record) else check_record(record,
                                                                            where=str(path))
    path = Path(path)  # <root>/<model>/<dataset>/<file> (record_path): real folders only
    return write_text(path, json.dumps(data, indent=2, ensure_ascii=False,
                                       allow_nan=False) + "\n", root=path.parents[2]
                      if len(path.parents) > 2 else None)


def check_record(record: Mapping[str, Any], *, where: str = "record",
                 fix: str = RECOMPUTE) -> dict[str, Any]:
    """``record`` as plain JSON (:func:`write_record`'s form) after checking it with
    :meth:`Record.from_json`; a ValueError names ``where``, the field and ``fix``.

    >>> check_record({"schema": 2, "model": {"name": "m"}, "dataset": {"name": "d"},
    ...               "task": "clustering", "episode_size": 1, "status": "ok",
    ...               "main_metric": "v_measure", "metrics": {"v_measure": 7.5}},
    ...              where="m / d", fix="rerun it")
    Traceback (most recent call last):
    ...
    ValueError: m / d: field 'metrics.v_measure' is 7.5, outside its range [0, 1]; rerun it
    """
    data = jsonable(record)
    Record.from_json(data, where=where, fix=fix)
    return data


def read_record(path: str | os.PathLike) -> dict[str, Any]:
    """Read one record (a file, never a symbolic link) and check it with
    :meth:`Record.from_json`: a record of a known schema whose every value is usable;
    otherwise a ValueError names the file, the field and the value (the JSON form of
    :meth:`Record.read`)."""
    return Record.read(path).to_json()


def _number(value: Any) -> bool:
    """A JSON number (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_SLACK = 1e-9  # rounding in a metric's last bits


def metric_range(task: str, name: str) -> tuple[float, float]:
    """The values metric ``name`` of ``task`` can take: the family's answer
    (:meth:`stebkit.tasks.TaskFamily.metric_range`); a metric of a family this stebkit
    does not know only has to be finite (AMI, ARI, ``mean_rank`` and ``*_std`` keep their
    ranges).

    >>> metric_range("clustering", "v_measure"), metric_range("clustering", "ari")
    ((0.0, 1.0), (-1.0, 1.0))
    >>> metric_range("retrieval", "mean_rank"), metric_range("my_family", "score")
    ((1.0, inf), (-inf, inf))
    """
    from stebkit.tasks import FAMILIES
    from stebkit.tasks.family import metric_range as generic_range

    family = FAMILIES.get(task)
    return family.metric_range(name) if family is not None else \
        generic_range(name, declared=False)


def check_metric(task: str, name: str, value: Any, *, where: str = "record",
                 field_name: str | None = None, missing_ok: bool = False,
                 fix: str = RECOMPUTE) -> float | None:
    """``value`` if it is a finite number inside :func:`metric_range`, else a ValueError
    naming ``where`` (the file), the field (``field_name``, by default
    ``metrics.<name>``), the value and ``fix`` (``missing_ok``: ``None``, what JSON
    makes of NaN, passes).

    >>> check_metric("clustering", "v_measure", 0.25)
    0.25
    >>> check_metric("clustering", "v_measure", 7.5, where="r.json")
    Traceback (most recent call last):
    ...
    ValueError: r.json: field 'metrics.v_measure' is 7.5, outside its range [0, 1]; \
delete the file to recompute it
    """
    if value is None and missing_ok:
        return None
    low, high = metric_range(task, name)
    if not _number(value):
        what = f"{_shown(value)} (a {type(value).__name__}, not a number)" \
            if value is not None else "null (NaN or missing)"
        why = f"is {what}"
    elif not math.isfinite(value):
        why = f"is {_shown(value)}, not a finite number"
    elif not low - _SLACK <= value <= high + _SLACK:
        why = f"is {_shown(value)}, outside its range [{low:g}, {high:g}]"
    else:
        return value
    raise _fail(where, field_name or f"metrics.{name}", why, fix)


def check_metrics(task: str, metrics: Mapping[str, Any], *, where: str = "record",
                  prefix: str = "metrics.", missing_ok: bool = False,
                  fix: str = RECOMPUTE) -> dict[str, float | None]:
    """Every entry of ``metrics`` through :func:`check_metric` (fields named
    ``<prefix><name>``); returns them as a dict.

    >>> check_metrics("retrieval", {"mrr": 0.5, "mean_rank": 2.0})
    {'mrr': 0.5, 'mean_rank': 2.0}
    >>> check_metrics("retrieval", {"mrr": "0.9"}, where="r.json")
    Traceback (most recent call last):
    ...
    ValueError: r.json: field 'metrics.mrr' is '0.9' (a str, not a number); delete the \
file to recompute it
    """
    return {str(k): check_metric(task, str(k), v, where=where, field_name=f"{prefix}{k}",
                                 missing_ok=missing_ok, fix=fix)
            for k, v in metrics.items()}


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _fail(where: str, field_name: str, message: str, fix: str = RECOMPUTE) -> ValueError:
    return ValueError(f"{where}: field {_shown(field_name)} {message}; {fix}")


@dataclass(frozen=True, eq=False)
class Record(Mapping[str, Any]):
    """One result record, parsed and checked: the one place where records are read,
    migrated and validated (see the module docstring for the fields).

    A record reads like its JSON object (``rec["task"]``, ``rec.get("error")``, equal to
    a dict with the same keys and values), and cannot be changed.

    :meth:`from_json` upgrades older schemas (:func:`upgrade_record`) and checks every
    value: names, task, episode size, status, and, for an ``ok`` record, a finite number
    inside its range (:func:`metric_range`) for every metric, the main metric among them;
    counts are non-negative integers, intervals numbers, sub-results numbers in range or
    an ``error``. :meth:`to_json` gives the record back key for key, so reading and
    writing never change a file's bytes.

    >>> rec = Record.from_json({"schema": 2, "model": {"name": "m"},
    ...                         "dataset": {"name": "d"}, "task": "clustering",
    ...                         "episode_size": 1, "main_metric": "v_measure",
    ...                         "metrics": {"v_measure": 0.5}, "status": "ok"})
    >>> rec.model_name, rec.main_value, list(rec.to_json())[:2]
    ('m', 0.5, ['schema', 'model'])
    >>> Record.from_json({"schema": 2, "status": "failed"}, where="r.json")
    Traceback (most recent call last):
    ...
    ValueError: r.json: field 'model' is missing (expected an object with a 'name'); \
delete the file to recompute it
    """

    model: Mapping[str, Any]
    dataset: Mapping[str, Any]
    task: str
    episode_size: int
    episodes_per_label: int | str | None
    status: str
    main_metric: str | None
    metrics: Mapping[str, float | None]
    counts: Mapping[str, int]
    ci: Mapping[str, Any] | None
    protocol: Mapping[str, Any]
    error: str | None
    warnings: tuple[str, ...]
    fields: Mapping[str, Any]
    """The whole record as JSON, every key in its order (what :meth:`to_json` returns)."""
    where: str = "record"
    """Where it was read from (its file), named in every message about it."""

    @property
    def model_name(self) -> str:
        return str(self.model["name"])

    @property
    def dataset_name(self) -> str:
        return str(self.dataset["name"])

    @property
    def main_value(self) -> float | None:
        """The main metric of an ``ok`` record (None otherwise)."""
        if self.status != "ok" or self.main_metric is None:
            return None
        return self.metrics.get(self.main_metric)

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON object (a new dict, keys in the order read)."""
        return dict(self.fields)

    @classmethod
    def read(cls, path: str | os.PathLike) -> Record:
        """Read one record file and check it (:meth:`from_json`); a ValueError names the
        file, the field and the value. The file is read as untrusted
        (:func:`stebkit._io.read_untrusted`): a regular file with one link, at most 16 MB,
        never a symbolic link, FIFO or device.

        >>> import tempfile, pathlib
        >>> file = pathlib.Path(tempfile.mkdtemp()) / "r.json"
        >>> _ = file.write_text('{"schema": 2, "model": {"name": "m"}, "dataset": '
        ...                     '{"name": "d"}, "task": "stel", "episode_size": 1, '
        ...                     '"status": "skipped", "reason": "does not serve"}')
        >>> rec = Record.read(file)
        >>> rec.status, rec["reason"], rec == json.loads(file.read_text())
        ('skipped', 'does not serve', True)
        """
        from stebkit._io import read_json

        data = read_json(path, what="a JSON result record",
                         fix=f"{RECOMPUTE}, or replace it with a copy of the file")
        return cls.from_json(data, where=str(path))

    @classmethod
    def from_json(cls, data: Any, *, where: str = "record", fix: str = RECOMPUTE) -> Record:
        """Parse, migrate and check one record (a JSON object) against its declared
        fields (:data:`~stebkit.records.schema.FIELDS`) and the ranges of its metrics; a
        ValueError names ``where`` (the file), the field, the value and ``fix`` (what to
        do about it). Nothing registered in the process decides whether it passes."""
        if not isinstance(data, Mapping) or "schema" not in data:
            raise ValueError(f"{where}: not a stebkit result record (no 'schema' key)")
        for key in ("metrics", "model", "dataset"):
            if data.get(key) is not None and not isinstance(data[key], Mapping):
                raise ValueError(f"{where}: '{key}' must be a mapping, got "
                                 f"{type(data[key]).__name__}; {fix}")
        data = upgrade_record(dict(data), where=where)
        for key in ("model", "dataset"):
            _name(data, key, where, fix)
        check_fields(data, where=where, fix=fix)
        task, status, main = data["task"], data["status"], data.get("main_metric")
        metrics = check_metrics(task, data.get("metrics") or {}, where=where,
                                missing_ok=status != "ok", fix=fix)
        if status == "ok" and (main is None or main not in metrics):
            raise _fail(where, "main_metric", f"is {_shown(main)}, which is not among the "
                        f"record's metrics {sorted(metrics)}", fix)
        counts = data.get("counts") or {}
        bad = {k: v for k, v in counts.items() if not _count(v)}
        if bad:
            raise _fail(where, "counts", f"holds {_shown(bad)}; counts are non-negative ints",
                        fix)
        ci = data.get("ci")
        _check_interval(task, main, ci, where=where, fix=fix)
        check_submetrics(task, data.get("submetrics"), where=where, fix=fix)
        return cls(model=data["model"], dataset=data["dataset"], task=task,
                   episode_size=data["episode_size"],
                   episodes_per_label=data.get("episodes_per_label"), status=status,
                   main_metric=main, metrics=metrics, counts=counts, ci=ci,
                   protocol=data.get("protocol") or {}, error=data.get("error"),
                   warnings=tuple(data.get("warnings") or ()), fields=data, where=where)


def _check_interval(task: str, main: str | None, ci: Mapping[str, Any] | None, *,
                    where: str, fix: str) -> None:
    """An interval's bounds inside the main metric's range and ``low <= high`` (to
    rounding in the last bits).

    The value itself need not lie between them: a percentile bootstrap of a biased
    statistic can leave out its own estimate (V-measure on resampled episodes is often
    above it; the interval is the resamples', as the reference reports it).

    >>> _check_interval("clustering", "v_measure", {"low": 0.6, "high": 0.4},
    ...                 where="r.json", fix="delete it")
    Traceback (most recent call last):
    ...
    ValueError: r.json: field 'ci' does not hold low <= high (low 0.6, high 0.4); delete it
    """
    if not ci or main is None:
        return
    low, high = ci.get("low"), ci.get("high")
    for key, bound in (("low", low), ("high", high)):
        if bound is not None:
            check_metric(task, main, bound, where=where, field_name=f"ci.{key}", fix=fix)
    if low is not None and high is not None and low > high + _SLACK:
        raise _fail(where, "ci", f"does not hold low <= high (low {_shown(low)}, "
                    f"high {_shown(high)})", fix)


def _name(data: Mapping[str, Any], key: str, where: str, fix: str) -> str:
    from stebkit._io import check_name

    part = data.get(key)
    if part is None:
        raise _fail(where, key, "is missing (expected an object with a 'name')", fix)
    name = part.get("name")
    if key == "model" and isinstance(name, str) and name.startswith("/") and \
            not any(ch in name for ch in "\0\n\r") and \
            all(part not in ("", ".", "..") for part in name[1:].split("/")):
        return name  # a local model folder is named by its path (its file name is escaped)
    try:
        return check_name(name, key)
    except ValueError as err:
        raise _fail(where, f"{key}.name", f"is not usable ({err})", fix) from None


def check_submetrics(task: str, value: Any, *, where: str = "record",
                     fix: str = RECOMPUTE) -> None:
    """Check ``submetrics``: name -> its metrics (each in range, :func:`check_metric`)
    and ``n_items``, or ``{"error": message}``.

    >>> check_submetrics("clustering", {"tweets": {"v_measure": 0.5, "n_items": 10},
    ...                                 "empty": {"error": "ValueError: no labels"}})
    >>> check_submetrics("clustering", {"tweets": {"v_measure": None}}, where="m.json")
    Traceback (most recent call last):
    ...
    ValueError: m.json: field 'submetrics.tweets.v_measure' is null (NaN or missing); \
delete the file to recompute it
    """
    if value is None:
        return
    if not isinstance(value, Mapping):
        raise _fail(where, "submetrics", f"is {type(value).__name__}, not an object", fix)
    for name, sub in value.items():
        field_name = f"submetrics.{name}"
        if not isinstance(sub, Mapping):
            raise _fail(where, field_name, "is not an object of metric: number", fix)
        if "error" in sub:
            if not isinstance(sub["error"], str):
                raise _fail(where, f"{field_name}.error", "is not a message", fix)
            continue
        if "n_items" in sub and not _count(sub["n_items"]):
            raise _fail(where, f"{field_name}.n_items",
                        f"is {_shown(sub['n_items'])}, not a non-negative int", fix)
        check_metrics(task, {k: v for k, v in sub.items() if k != "n_items"}, where=where,
                      prefix=f"{field_name}.", fix=fix)


def _folders(name: str) -> tuple[str, str]:
    """The folder names a record of ``name`` may lie in (older versions: :func:`safe_name`)."""
    return file_name(name), safe_name(name)


def _as_record(record: Any, index: int) -> Record:
    """``record`` as a :class:`Record` (the ``index``-th one given to :class:`Results`)."""
    if isinstance(record, Record):
        return record
    if isinstance(record, Mapping) and "schema" not in record:
        record = {"schema": SCHEMA, **record}
    return Record.from_json(record, where=f"record {index}", fix="correct it or leave it out")


def _value(v: Any) -> float:
    return float("nan") if v is None else float(v)


def _views(records: list[Record]) -> list[Any]:
    """Each record as the score reads it (:meth:`stebkit.records.catalogue.Catalogue.view`)."""
    from stebkit.records.catalogue import Catalogue

    catalogue = Catalogue()
    return [catalogue.view(r) for r in records]


def _misplaced(root: Path, path: Path, rec: Record) -> str | None:
    """Why the record ``rec`` read from ``path`` is left out of ``root``'s results (it
    does not lie in its own ``<model>/<dataset>/`` folder), or None."""
    parts = path.relative_to(root).parts
    home = record_path(root, rec.model_name, rec.dataset_name, rec.task, 1).parent
    if len(parts) != 3:
        where = "at the folder's root" if len(parts) == 1 else f"{len(parts) - 1} folders deep"
        return (f"{path} lies {where}, not in a <model>/<dataset>/ folder: left out (a "
                f"record of {rec.model_name} on {rec.dataset_name} lies in {home}; move it "
                "there, or delete it)")
    if parts[0] in _folders(rec.model_name) and parts[1] in _folders(rec.dataset_name):
        return None
    return (f"{path} holds a result of {rec.model_name} on {rec.dataset_name} but lies in "
            f"another model's or dataset's folder: left out (move it into its own folder, "
            "or delete it)")


def _one_per_result(entries: list[tuple[Path, Record, Any]]) -> tuple[list[Record],
                                                                        list[str]]:
    """The records of ``entries`` (path, record, view), one per result (model, dataset,
    task, episode configuration, names as the score reads them), and a note for each
    second record of a result. A record under the registered names comes first: a
    look-alike never displaces it."""
    def key(rec: Record, view: Any) -> tuple:
        return (view.model, view.dataset, rec.task, rec.episode_size, rec.episodes_per_label)

    seen: dict[tuple, Path] = {}
    notes = []
    for path, rec, view in sorted(entries, key=lambda e: (e[2].model, e[2].dataset) !=
                                  (e[1].model_name, e[1].dataset_name)):
        first = seen.setdefault(key(rec, view), path)
        if first != path:
            notes.append(f"{path} holds the same result as {first} ({view.model} / "
                         f"{view.dataset} / {rec.task}, episode size {rec.episode_size}): "
                         f"left out, {first.name} is used (delete the one you do not want)")
    return [rec for path, rec, view in entries if seen[key(rec, view)] == path], notes


class Results:
    """A set of result records, usually all the JSON files under a results folder.

    Parameters
    ----------
    records : iterable of Record or dict, or a folder
        Result records (see the module docstring), or a results folder to read. Each is
        held as a checked :class:`Record` (a dict is checked by :meth:`Record.from_json`;
        one without a ``schema`` key is read as the current schema).
    root : path, optional
        The folder they were read from.

    Examples
    --------
    >>> r = Results([{"schema": 1, "model": {"name": "m", "category": "baseline"},
    ...               "dataset": {"name": "d", "category": "genre", "languages": ["en"]},
    ...               "task": "clustering", "episode_size": 1, "main_metric": "v_measure",
    ...               "metrics": {"v_measure": 0.5, "ari": 0.2},
    ...               "ci": {"low": 0.4, "high": 0.6}, "status": "ok"}])
    >>> r.main_frame()[["model", "dataset", "metric", "value", "ci_low"]].values.tolist()
    [['m', 'd', 'v_measure', 0.5, 0.4]]
    >>> r.ok
    True
    """

    def __init__(self, records: Any = (), root: str | os.PathLike | None = None) -> None:
        if isinstance(records, (str, os.PathLike)):  # Results("results") reads a folder
            self.__dict__.update(vars(Results.load(records)))
            return
        self.records: list[Record] = [_as_record(r, k) for k, r in enumerate(records)]
        self.root = Path(root) if root is not None else None
        from stebkit.records.catalogue import check_main_metrics, notes

        views = _views(self.records)
        check_main_metrics(self.records, views)
        self.notes: list[str] = notes(views)
        """Records :meth:`load` left out and why (a record outside ``<model>/<dataset>/``
        or in another model's folder, a second record of one result), then what records
        say that the catalogue or the zoo declares otherwise
        (:mod:`stebkit.records.catalogue`: the score reads the catalogue's)."""

    @classmethod
    def load(cls, root: str | os.PathLike) -> Results:
        """Read every ``*.json`` record under ``root`` (sorted by path), each checked
        (:func:`read_record`); a symbolic link under ``root`` is refused, not followed. A
        record that does not lie at ``<model>/<dataset>/<file>`` (at the folder's root,
        deeper), or lies in another model's or dataset's folder, or a second record of
        the same result (names compared as the score reads them: a look-alike of a
        registered name is that name), is left out and named in :attr:`notes`."""
        root = Path(root)
        if not root.is_dir():
            raise FileNotFoundError(f"results folder {str(root)!r} does not exist; run "
                                    f"`stebkit run --output {root}` (Python: "
                                    "stebkit.evaluate(..., output_dir=...)) first")
        from stebkit._io import files_under

        paths = [p for p in files_under(root, "*.json") if not p.name.startswith(".")]
        if not paths:
            raise FileNotFoundError(f"no result records in {root}; run stebkit.evaluate(..., "
                                    f"output_dir={str(root)!r}) or `stebkit run --output "
                                    f"{root}` first")
        from stebkit.records.catalogue import Catalogue

        notes, entries, catalogue = [], [], Catalogue()
        for path in paths:
            rec = Record.read(path)
            note = _misplaced(root, path, rec)
            if note is None:
                entries.append((path, rec, catalogue.view(rec)))
            else:
                notes.append(note)
        kept, twice = _one_per_result(entries)
        out = cls(kept, root=root)
        out.notes = [*notes, *twice, *out.notes]
        return out

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:
        counts = {s: sum(r.get("status") == s for r in self.records) for s in STATUSES}
        where = f", root={str(self.root)!r}" if self.root else ""
        return f"Results({len(self)} records: {counts}{where})"

    @property
    def ok(self) -> bool:
        """True when no record failed."""
        return not any(r.get("status") == "failed" for r in self.records)

    @staticmethod
    def _key_columns(r: Record, view: Any) -> dict[str, Any]:
        """The columns of ``r`` as the score reads it (``view``): the catalogue's names
        and metadata; the interval only when it is the main metric's."""
        ci = (r.ci or {}) if view.main_metric == r.main_metric else {}
        return {"model": view.model, "model_category": view.model_category,
                "dataset": view.dataset, "dataset_category": view.dataset_category,
                "language": view.language, "application": view.application, "task": r.task,
                "episode_size": r.episode_size, "episodes_per_label": r.episodes_per_label,
                "ci_low": _value(ci.get("low")), "ci_high": _value(ci.get("high")),
                "status": r.status}

    def to_frame(self) -> Any:
        """Tidy frame: one row per record and metric (one NaN row for failed/skipped,
        and for a main metric a computed record lacks).

        Columns: model, model_category, dataset, dataset_category, language, application,
        task, episode_size, episodes_per_label, metric, value, is_main, ci_low, ci_high,
        status. Names, categories, languages, applications and main metrics are the
        catalogue's and the zoo's where they register the dataset or model
        (:mod:`stebkit.records.catalogue`), the record's otherwise. The interval columns
        are filled on the main metric's row only.
        """
        import pandas as pd

        rows = []
        for r, view in zip(self.records, _views(self.records), strict=True):
            key, main = self._key_columns(r, view), view.main_metric
            metrics = r.metrics if r.status == "ok" else {}
            if main not in metrics:
                rows.append({**key, "metric": main, "value": float("nan"), "is_main": True})
            for name, value in metrics.items():
                row = {**key, "metric": name, "value": _value(value), "is_main": name == main}
                if name != main:
                    row["ci_low"] = row["ci_high"] = float("nan")
                rows.append(row)
        return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))

    def main_frame(self) -> Any:
        """One row per model x dataset x task x episode size with the main metric (the
        catalogue's for a registered dataset, as :meth:`to_frame`).

        Columns: those of :meth:`to_frame` (``metric`` names the main metric) plus
        ``n_items``.
        """
        import pandas as pd

        rows = []
        for r, view in zip(self.records, _views(self.records), strict=True):
            value = r.metrics.get(view.main_metric) if r.status == "ok" else None
            rows.append({**self._key_columns(r, view), "metric": view.main_metric,
                         "value": _value(value), "is_main": True, "n_items": r.get("n_items")})
        return pd.DataFrame(rows, columns=[*FRAME_COLUMNS, "n_items"])

    def with_status(self, status: str) -> Any:
        """Frame of the records of one status (:data:`STATUSES`): model, dataset, task,
        episode_size and, for ``failed`` records, their ``error``, for ``skipped`` ones
        their ``reason``.

        >>> r = Results([{"schema": 2, "model": {"name": "m"}, "dataset": {"name": "d"},
        ...               "task": "stel", "episode_size": 1, "status": "skipped",
        ...               "reason": "does not serve"}])
        >>> r.with_status("skipped").values.tolist()
        [['m', 'd', 'stel', 1, 'does not serve']]
        >>> len(r.with_status("failed")), list(r.with_status("failed").columns)[-1]
        (0, 'error')
        >>> r.with_status("done")
        Traceback (most recent call last):
        ...
        ValueError: status 'done' is not one of ['ok', 'failed', 'skipped']
        """
        import pandas as pd

        if status not in STATUSES:
            raise ValueError(f"status {status!r} is not one of {list(STATUSES)}")
        why = _STATUS_DETAIL[status]
        columns = ["model", "dataset", "task", "episode_size", *([why] if why else [])]
        rows = [{"model": r["model"].get("name"), "dataset": r["dataset"].get("name"),
                 "task": r.get("task"), "episode_size": r.get("episode_size"),
                 **({why: r.get(why)} if why else {})}
                for r in self.records if r.get("status") == status]
        return pd.DataFrame(rows, columns=columns)
