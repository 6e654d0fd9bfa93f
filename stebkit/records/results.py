"""Result records: one small versioned JSON file per model x dataset x task x episode size.

Layout: ``<root>/<model>/<dataset>/<task>__e<episode_size>.json`` (names made safe for
every file system, one file name per name — :func:`stebkit.names.file_name`; the record
keeps the real names). A record is written atomically, so
an interrupted run never leaves a half-written file and a rerun skips what is done.

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
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from stebkit.names import file_name, safe_name
from stebkit.records.record import STATUSES, Record, check_record
from stebkit.records.schema import SCHEMA

_STATUS_DETAIL = {"ok": (), "failed": ("failure", "error"), "skipped": ("reason",)}
"""The fields that say why a record has its status (:meth:`Results.with_status`)."""
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


def read_record(path: str | os.PathLike) -> dict[str, Any]:
    """Read one record (a file, never a symbolic link) and check it with
    :meth:`Record.from_json`: a record of a known schema whose every value is usable;
    otherwise a ValueError names the file, the field and the value (the JSON form of
    :meth:`Record.read`)."""
    return Record.read(path).to_json()


def _lies_in(folder: str, name: str) -> bool:
    """Whether a record of ``name`` may lie in ``folder`` (older versions:
    :func:`safe_name`)."""
    return folder == file_name(name) or folder == safe_name(name)


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
    """Each record as the score reads it (:meth:`stebkit.records.catalogue.Catalogue.view`,
    one catalogue for them all)."""
    from stebkit.records.catalogue import Catalogue

    catalogue = Catalogue()
    return [catalogue.view(r) for r in records]


def _misplaced(root: Path, path: Path, rec: Record) -> str | None:
    """Why the record ``rec`` read from ``path`` is left out of ``root``'s results (it
    does not lie in its own ``<model>/<dataset>/`` folder), or None."""
    parts = path.relative_to(root).parts
    if len(parts) == 3 and _lies_in(parts[0], rec.model_name) and \
            _lies_in(parts[1], rec.dataset_name):
        return None
    if len(parts) != 3:
        home = record_path(root, rec.model_name, rec.dataset_name, rec.task, 1).parent
        where = "at the folder's root" if len(parts) == 1 else f"{len(parts) - 1} folders deep"
        return (f"{path} lies {where}, not in a <model>/<dataset>/ folder: left out (a "
                f"record of {rec.model_name} on {rec.dataset_name} lies in {home}; move it "
                "there, or delete it)")
    return (f"{path} holds a result of {rec.model_name} on {rec.dataset_name} but lies in "
            f"another model's or dataset's folder: left out (move it into its own folder, "
            "or delete it)")


def _one_per_result(entries: list[tuple[Path, Record, Any]]
                    ) -> tuple[list[tuple[Record, Any]], list[str]]:
    """The records of ``entries`` (path, record, view) with their views, one per result
    (model, dataset, task, episode configuration, names as the score reads them), and a
    note for each second record of a result. A record under the registered names comes
    first: a look-alike never displaces it."""
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
    return [(rec, view) for path, rec, view in entries if seen[key(rec, view)] == path], notes


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

    Each record is read as the score reads it once, when the set is made
    (:attr:`views`), and each frame is built once, when first asked for: a set of
    results does not change.
    """

    def __init__(self, records: Any = (), root: str | os.PathLike | None = None) -> None:
        if isinstance(records, (str, os.PathLike)):  # Results("results") reads a folder
            self.__dict__.update(vars(Results.load(records)))
            return
        records = [_as_record(r, k) for k, r in enumerate(records)]
        self._hold(records, _views(records), root)

    def _hold(self, records: list[Record], views: list[Any], root: Any,
              left_out: list[str] | None = None) -> None:
        """Hold ``records`` with their ``views`` (one per record, made by one catalogue)."""
        from stebkit.records.catalogue import check_main_metrics, notes

        check_main_metrics(records, views)
        self.records: tuple[Record, ...] = tuple(records)
        self.views: tuple[Any, ...] = tuple(views)
        """Each record as the score reads it (a
        :class:`stebkit.records.catalogue.View`: the catalogue's names and metadata),
        in the order of :attr:`records`."""
        self.root = Path(root) if root is not None else None
        self.notes: list[str] = [*(left_out or ()), *notes(views)]
        """Records :meth:`load` left out and why (a record outside ``<model>/<dataset>/``
        or in another model's folder, a second record of one result), then what records
        say that the catalogue or the zoo declares otherwise
        (:mod:`stebkit.records.catalogue`: the score reads the catalogue's)."""
        self._frames: dict[str, Any] = {}

    @classmethod
    def _made(cls, records: list[Record], views: list[Any], root: Any,
              left_out: list[str] | None = None) -> Results:
        out = cls.__new__(cls)
        out._hold(records, views, root, left_out)
        return out

    def select(self, keep: Any) -> Results:
        """The records for which ``keep(record)`` is true, with their views as read.

        >>> r = Results([{"model": {"name": m}, "dataset": {"name": "d"}, "task": "stel",
        ...               "episode_size": 1, "status": "skipped", "reason": "-"}
        ...              for m in ("a", "b")])
        >>> [rec.model_name for rec in r.select(lambda rec: rec.model_name == "b")]
        ['b']
        """
        kept = [(r, v) for r, v in zip(self.records, self.views, strict=True) if keep(r)]
        return Results._made([r for r, _ in kept], [v for _, v in kept], self.root)

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
        return cls._made([rec for rec, _ in kept], [view for _, view in kept], root,
                         [*notes, *twice])

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
        if "tidy" not in self._frames:
            self._frames["tidy"] = self._tidy_rows()
        return self._frames["tidy"].copy()

    def _tidy_rows(self) -> Any:
        import pandas as pd

        rows = []
        for r, view in zip(self.records, self.views, strict=True):
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
        if "main" not in self._frames:
            import pandas as pd

            rows = []
            for r, view in zip(self.records, self.views, strict=True):
                value = r.metrics.get(view.main_metric) if r.status == "ok" else None
                rows.append({**self._key_columns(r, view), "metric": view.main_metric,
                             "value": _value(value), "is_main": True,
                             "n_items": r.get("n_items")})
            self._frames["main"] = pd.DataFrame(rows, columns=[*FRAME_COLUMNS, "n_items"])
        return self._frames["main"].copy()

    def with_status(self, status: str) -> Any:
        """Frame of the records of one status (:data:`STATUSES`): model, dataset, task,
        episode_size and, for ``failed`` records, their kind of ``failure``
        (:attr:`Record.failure`) and ``error``, for ``skipped`` ones their ``reason``.

        >>> r = Results([{"schema": 2, "model": {"name": "m"}, "dataset": {"name": "d"},
        ...               "task": "stel", "episode_size": 1, "status": "skipped",
        ...               "reason": "does not serve"}])
        >>> r.with_status("skipped").values.tolist()
        [['m', 'd', 'stel', 1, 'does not serve']]
        >>> len(r.with_status("failed")), list(r.with_status("failed").columns)[-2:]
        (0, ['failure', 'error'])
        >>> r.with_status("done")
        Traceback (most recent call last):
        ...
        ValueError: status 'done' is not one of ['ok', 'failed', 'skipped']
        """
        import pandas as pd

        if status not in STATUSES:
            raise ValueError(f"status {status!r} is not one of {list(STATUSES)}")
        why = _STATUS_DETAIL[status]
        columns = ["model", "dataset", "task", "episode_size", *why]
        rows = [{"model": r["model"].get("name"), "dataset": r["dataset"].get("name"),
                 "task": r.get("task"), "episode_size": r.get("episode_size"),
                 **{k: r.failure if k == "failure" else r.get(k) for k in why}}
                for r in self.records if r.get("status") == status]
        return pd.DataFrame(rows, columns=columns)
