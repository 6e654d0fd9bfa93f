"""Result records: one small versioned JSON file per model x dataset x task x episode size.

Layout: ``<root>/<model>/<dataset>/<task>__e<episode_size>.json`` (names made safe for
every file system, one file name per name — :func:`file_name`; the record keeps the real
names). A record is written atomically, so
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
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA = 2
STATUSES = ("ok", "failed", "skipped")

FRAME_COLUMNS = ("model", "model_category", "dataset", "dataset_category", "language",
                 "task", "episode_size", "metric", "value", "is_main", "ci_low", "ci_high",
                 "status")


def safe_name(name: str) -> str:
    """A file-system-safe version of a model or dataset name.

    >>> safe_name("sentence-transformers/all-MiniLM-L6-v2")
    'sentence-transformers__all-MiniLM-L6-v2'
    >>> safe_name("my model: v2?")
    'my_model_v2'
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a model or dataset name must be a non-empty string, got {name!r}")
    out = name.strip().replace("/", "__").replace("\\", "__")
    out = re.sub(r"[^A-Za-z0-9._+=-]+", "_", out).strip("._")
    return out or "_"


_PLAIN = re.compile(r"[A-Za-z0-9+=-]+(?:[./][A-Za-z0-9+=-]+|_[A-Za-z0-9+=-]+)*")


def file_name(name: str) -> str:
    """The file name of a model or dataset: one name, one file name, never shared.

    A plain name (letters, digits, ``.+=-``, single ``_`` and ``/`` between them) keeps
    its :func:`safe_name` (``/`` becomes ``__``, which a plain name never holds itself);
    any other name gets its :func:`safe_name` plus ``~`` and a short hash of the exact
    name, so ``team/model`` and ``team__model`` never share a file.

    >>> file_name("sentence-transformers/all-MiniLM-L6-v2")
    'sentence-transformers__all-MiniLM-L6-v2'
    >>> file_name("team/model") != file_name("team__model")
    True
    >>> file_name("team__model")
    'team__model~29cce84dd9'
    """
    base = safe_name(name)
    if _PLAIN.fullmatch(name):
        return base
    import hashlib

    return f"{base}~{hashlib.sha256(name.encode('utf-8')).hexdigest()[:10]}"


def record_path(root: str | os.PathLike, model: str, dataset: str, task: str,
                episode_size: int) -> Path:
    """Where the record of one model x dataset x task x episode size lives.

    Distinct names always get distinct paths (see :func:`file_name`).

    >>> record_path("results", "tfidf-char", "stel", "order_alignment", 1).as_posix()
    'results/tfidf-char/stel/order_alignment__e1.json'
    """
    return Path(root) / file_name(model) / file_name(dataset) / \
        f"{safe_name(task)}__e{int(episode_size)}.json"


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


def _jsonable(value: Any) -> Any:
    """Plain JSON types; non-finite floats become None (JSON has no NaN)."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return _jsonable(value.tolist())
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if hasattr(value, "item"):
        return _jsonable(value.item())
    return str(value)


def write_record(path: str | os.PathLike, record: Mapping[str, Any]) -> Path:
    """Write ``record`` as JSON atomically (NaN and infinities become ``null``).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> path = write_record(d / "a" / "r.json", {"schema": 2, "status": "ok"})
    >>> read_record(path)
    {'schema': 2, 'status': 'ok'}
    """
    from stebkit._io import write_text

    return write_text(path, json.dumps(_jsonable(record), indent=2, ensure_ascii=False,
                                       allow_nan=False) + "\n")


def read_record(path: str | os.PathLike) -> dict[str, Any]:
    """Read one record, checking that it is a stebkit result of a known schema."""
    path = Path(path)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not a JSON result record ({err}); delete it to "
                         "recompute") from None
    if not isinstance(record, dict) or "schema" not in record:
        raise ValueError(f"{path}: not a stebkit result record (no 'schema' key)")
    for key in ("metrics", "model", "dataset"):
        if record.get(key) is not None and not isinstance(record[key], Mapping):
            raise ValueError(f"{path}: '{key}' must be a mapping, got "
                             f"{type(record[key]).__name__}; delete the file to recompute")
    return upgrade_record(record, where=str(path))


# schema 1 -> 2: scalar entries of ``metrics`` that are counts or chosen settings, and
# metric names that changed (per task).
_V1_COUNTS = ("n_pos", "n_neg", "n_queries", "n_queries_dropped", "n_targets_dropped",
              "n_pairs", "n_queries_without_relevant")
_V1_RENAMES: Mapping[str, Mapping[str, str]] = {
    "probing": {"val_accuracy": "validation_score"},
    "classification": {"val_macro_f1": "validation_score"},
    "stel": {"stel_acc": "accuracy", "stel_or_content_acc": "or_content_accuracy"},
}


def upgrade_record(record: dict[str, Any], *, where: str = "record") -> dict[str, Any]:
    """A record in the current schema; older schemas are converted, unknown ones refused.

    >>> old = {"schema": 1, "task": "probing", "main_metric": "accuracy", "status": "ok",
    ...        "metrics": {"accuracy": 0.5, "val_accuracy": 0.6, "l2": 0.001}}
    >>> new = upgrade_record(old)
    >>> new["schema"], new["metrics"], new["chosen"], new["converted_from"]
    (2, {'accuracy': 0.5, 'validation_score': 0.6}, {'regularisation': 0.001}, 1)
    >>> upgrade_record({"schema": 7})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: record: field 'schema' is 7, which this stebkit cannot read (it reads ...
    """
    version = record.get("schema")
    if version == SCHEMA:
        return record
    if version != 1:
        raise ValueError(f"{where}: field 'schema' is {version!r}, which this stebkit cannot "
                         f"read (it reads schemas 1 and {SCHEMA}); upgrade stebkit or rerun "
                         "the evaluation")
    out = dict(record)
    task = out.get("task")
    metrics = dict(out.get("metrics") or {}) if isinstance(out.get("metrics"), Mapping) \
        else out.get("metrics")
    counts: dict[str, int] = {}
    chosen: dict[str, Any] = {}
    if isinstance(metrics, dict):
        for key in _V1_COUNTS:
            if key in metrics:
                value = metrics.pop(key)
                counts[key] = int(value) if value is not None else 0
        if task == "probing" and "l2" in metrics:
            chosen["regularisation"] = metrics.pop("l2")
        if task == "classification" and "C" in metrics:
            c = metrics.pop("C")
            chosen.update(C=c, regularisation=None if not c else 1.0 / c)
        renames = _V1_RENAMES.get(task, {})
        metrics = {renames.get(k, k): v for k, v in metrics.items()}
        out["metrics"] = metrics
        main = out.get("main_metric")
        out["main_metric"] = renames.get(main, main)
    out.update(schema=SCHEMA, counts=counts, chosen=chosen, converted_from=1)
    return out


def per_item(task: str, result: Mapping[str, Any], ids: list[str]) -> dict[str, list]:
    """The per-item part of a record: ``ids``, ``values`` and, where needed, ``labels``.

    What is kept is the family's :attr:`~stebkit.tasks.TaskFamily.per_item`: enough for a
    paired bootstrap. All-to-all pairs keep nothing (their n(n-1)/2 pair scores are not
    stored).

    >>> import numpy as np
    >>> per_item("retrieval", {"details": {"per_query_rr": np.array([1.0, 0.5])}}, ["q1", "q2"])
    {'ids': ['q1', 'q2'], 'values': [1.0, 0.5]}
    """
    from stebkit.tasks import FAMILIES

    keep = FAMILIES.get_family(task).per_item
    if keep is None:
        return {"ids": [], "values": []}
    details = result["details"]
    values_key, labels_key = keep
    values = np.asarray(details[values_key])
    if len(ids) != len(values):
        raise ValueError(f"{task}: {len(ids)} item ids for {len(values)} per-item values")
    out = {"ids": list(ids), "values": values.tolist()}
    if labels_key is not None and labels_key in details:
        out["labels"] = np.asarray(details[labels_key]).tolist()
    return out


def item_details(record: Mapping[str, Any]) -> dict[str, Any]:
    """Rebuild ``{"details": ...}`` from a record's ``per_item`` for
    :func:`stebkit.tasks.paired_bootstrap` / :func:`stebkit.tasks.bootstrap_ci` with
    ``task=record["task"]``. Align two records on ``per_item["ids"]`` before pairing them.

    >>> rec = {"task": "predefined_pairs",
    ...        "per_item": {"ids": ["p1", "p2"], "values": [0.9, 0.1], "labels": [True, False]}}
    >>> item_details(rec)["details"]["same"]
    array([ True, False])
    """
    from stebkit.tasks import FAMILIES

    task = record["task"]
    keep = FAMILIES.get_family(task).per_item
    if keep is None:
        raise ValueError(f"records of task {task!r} keep no per-item values")
    items = record["per_item"]
    values_key, labels_key = keep
    details = {values_key: np.asarray(items["values"], dtype=np.float64)}
    if labels_key is not None and "labels" in items:
        details[labels_key] = np.asarray(items["labels"])
    return {"details": details}


def _value(v: Any) -> float:
    return float("nan") if v is None else float(v)


class Results:
    """A set of result records, usually all the JSON files under a results folder.

    Parameters
    ----------
    records : iterable of dict, or a folder
        Result records (see the module docstring), or a results folder to read.
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
            root, records = records, Results.load(records).records
        self.records: list[dict[str, Any]] = [
            upgrade_record(dict(r)) if r.get("schema") == 1 else dict(r) for r in records]
        self.root = Path(root) if root is not None else None

    @classmethod
    def load(cls, root: str | os.PathLike) -> Results:
        """Read every ``*.json`` record under ``root`` (sorted by path)."""
        root = Path(root)
        if not root.is_dir():
            raise FileNotFoundError(f"results folder {str(root)!r} does not exist; run "
                                    "stebkit.evaluate(..., output_dir=...) first")
        paths = sorted(p for p in root.rglob("*.json") if not p.name.startswith("."))
        if not paths:
            raise FileNotFoundError(f"no result records in {root}; run stebkit.evaluate(..., "
                                    f"output_dir={str(root)!r}) or `stebkit run --output "
                                    f"{root}` first")
        return cls((read_record(p) for p in paths), root=root)

    def __iter__(self) -> Iterator[dict[str, Any]]:
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

    def _key_columns(self, r: dict[str, Any]) -> dict[str, Any]:
        model, dataset = r.get("model", {}), r.get("dataset", {})
        languages = dataset.get("languages") or [None]
        ci = r.get("ci") or {}
        return {"model": model.get("name"), "model_category": model.get("category"),
                "dataset": dataset.get("name"), "dataset_category": dataset.get("category"),
                "language": languages[0], "task": r.get("task"),
                "episode_size": r.get("episode_size"), "ci_low": _value(ci.get("low")),
                "ci_high": _value(ci.get("high")), "status": r.get("status")}

    def to_frame(self) -> Any:
        """Tidy frame: one row per record and metric (one NaN row for failed/skipped).

        Columns: model, model_category, dataset, dataset_category, language, task,
        episode_size, metric, value, is_main, ci_low, ci_high, status. The interval
        columns are filled on the main metric's row only.
        """
        import pandas as pd

        rows = []
        for r in self.records:
            key = self._key_columns(r)
            main = r.get("main_metric")
            metrics = r.get("metrics") or {}
            if r.get("status") != "ok" or not metrics:
                rows.append({**key, "metric": main, "value": float("nan"), "is_main": True})
                continue
            for name, value in metrics.items():
                is_main = name == main
                row = {**key, "metric": name, "value": _value(value), "is_main": is_main}
                if not is_main:
                    row["ci_low"] = row["ci_high"] = float("nan")
                rows.append(row)
        return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))

    def main_frame(self) -> Any:
        """One row per model x dataset x task x episode size with the main metric.

        Columns: those of :meth:`to_frame` (``metric`` names the main metric) plus
        ``n_items``.
        """
        import pandas as pd

        rows = []
        for r in self.records:
            main = r.get("main_metric")
            value = (r.get("metrics") or {}).get(main) if r.get("status") == "ok" else None
            rows.append({**self._key_columns(r), "metric": main, "value": _value(value),
                         "is_main": True, "n_items": r.get("n_items")})
        return pd.DataFrame(rows, columns=[*FRAME_COLUMNS, "n_items"])

    def failures(self) -> Any:
        """Frame of the failed records: model, dataset, task, episode_size, error."""
        import pandas as pd

        rows = [{"model": r["model"].get("name"), "dataset": r["dataset"].get("name"),
                 "task": r.get("task"), "episode_size": r.get("episode_size"),
                 "error": r.get("error")}
                for r in self.records if r.get("status") == "failed"]
        return pd.DataFrame(rows, columns=["model", "dataset", "task", "episode_size", "error"])

    def skipped(self) -> Any:
        """Frame of the skipped records: model, dataset, task, episode_size, reason."""
        import pandas as pd

        rows = [{"model": r["model"].get("name"), "dataset": r["dataset"].get("name"),
                 "task": r.get("task"), "episode_size": r.get("episode_size"),
                 "reason": r.get("reason")}
                for r in self.records if r.get("status") == "skipped"]
        return pd.DataFrame(rows, columns=["model", "dataset", "task", "episode_size", "reason"])
