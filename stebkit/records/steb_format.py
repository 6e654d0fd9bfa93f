"""The reference's result files, both ways: export stebkit records, import STEB's.

The STEB reference writes one file per dataset, model, episode configuration and task::

    <root>/<dataset>/<short_name>/<episode_size>_<episodes_per_label>/<task>/metrics.json

``<dataset>`` is the reference's dataset name, ``<short_name>`` the part of the model id
after its last ``/``, ``<task>`` the reference's task name
(:data:`REFERENCE_TASK_NAMES`), and ``metrics.json`` a one-line JSON
object (``json.dumps`` with its default separators) holding the task's metrics under the
reference's keys (:data:`REFERENCE_METRICS`; probing writes ``task_0`` ... and their
``average``).

:func:`export_steb` writes that layout from a stebkit results folder (only the results
with status ``ok``; records of tasks the reference does not have are listed, not
written). :func:`import_steb` reads it back into stebkit records, one per file
(``<task>__e<size>_n<episodes per label>.json``, so that two episode configurations stay
two records), so the maintainers' canonical result set can be loaded, re-scored and
plotted. Export, import and export again gives the same files byte for byte: every
metric the reference writes survives. A dataset name holding ``/`` is written as one
folder (``/`` as ``__``). Neither folder may lie inside a stebkit results folder (its
``metrics.json`` files would be read as records); a symbolic link in the folder read is
refused, and every value is checked against its metric's range before anything is
written.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REFERENCE_TASK_NAMES = {
    "clustering": "clustering", "all_to_all_pairs": "all_to_all_pair_classification",
    "predefined_pairs": "pre_defined_pair_classification",
    "order_alignment": "order_alignment", "retrieval": "retrieval", "probing": "probing",
}
"""stebkit task family -> the reference's task name."""

STEB_TASKS = {v: k for k, v in REFERENCE_TASK_NAMES.items()}
"""The reference's task name -> stebkit's task family."""

_FPR = ("auc@0.01", "auc@0.05", "auc@0.10", "auc@0.20", "auc@0.30", "auc@0.50")
REFERENCE_METRICS: Mapping[str, tuple[str, ...]] = {
    "clustering": ("v_measure",),
    "all_to_all_pairs": ("eer", "auc", *_FPR),
    "predefined_pairs": ("eer", "auc", *_FPR),
    "retrieval": ("mrr", "mean_rank", "recall@1", "recall@8", "recall@16", "recall@32",
                  "recall@64", "recall@128"),
    "order_alignment": ("acc_mean", "distractor_last_acc_mean", "distractor_first_acc_mean",
                        "distractor_acc_mean"),
    "probing": ("task_0", "average"),
}
"""Per stebkit task: the keys the reference writes, in its order (probing: one
``task_<i>`` per probed feature, then ``average``; a stebkit probing record is one
feature, so ``task_0`` and ``average`` both hold its accuracy)."""

NAMES_FILE = "stebkit-datasets.json"
"""Beside the dataset folders of an export: folder -> dataset name, for the names a
folder does not give back (``team/set`` is written ``team__set``); read back by
:func:`import_steb`."""

_EPISODE_DIR = re.compile(r"^(-1|[1-9][0-9]*)_([1-9][0-9]*)$")
_PROBE_KEY = re.compile(r"^task_[0-9]+$")


@dataclass
class ExportReport:
    """What :func:`export_steb` wrote and what it left out, with the reason."""

    written: list[Path] = field(default_factory=list)
    not_written: list[str] = field(default_factory=list)

    def summary(self, out: str | os.PathLike[str]) -> str:
        lines = [f"{len(self.written)} metrics.json file(s) written under {out}"]
        if self.not_written:
            lines.append(f"{len(self.not_written)} record(s) not exported:")
            lines += [f"  - {w}" for w in self.not_written]
        return "\n".join(lines)


def short_name(model: str) -> str:
    """The reference's folder name of a model: the part after the last ``/``.

    >>> short_name("sentence-transformers/all-mpnet-base-v2"), short_name("random")
    ('all-mpnet-base-v2', 'random')
    """
    name = str(model).rstrip("/")
    return name.rsplit("/", 1)[-1] or name


def reference_folder(name: str) -> str:
    """The reference's folder name of a stebkit dataset (catalogue datasets keep the
    reference's spelling; others, e.g. the offline suites, keep stebkit's name, a ``/``
    in it written ``__`` so that the name stays one folder).

    >>> reference_folder("stel_register"), reference_folder("org/my-set")
    ('STEL_register', 'org__my-set')
    """
    from stebkit.datasets import get_spec

    try:
        spec = get_spec(name)
    except (KeyError, ValueError):
        return name.replace("/", "__")
    folder = spec.steb_name if spec.steb_name and "steb" in spec.suites else spec.name
    return folder.replace("/", "__")


def _stebkit_dataset(folder: str, catalogue: Any) -> tuple[str, Any]:
    """A reference dataset folder -> (stebkit name, spec or None). A folder whose name
    looks like a registered dataset's in ``catalogue``
    (:class:`stebkit.records.catalogue.Catalogue`; :func:`stebkit._io.name_skeleton`: it
    differs only in case, look-alike or invisible characters) is that dataset."""
    from stebkit._io import name_skeleton
    from stebkit.datasets import get_spec, list_datasets

    steb = [get_spec(name) for name in list_datasets(suite="steb")]
    for spec in steb:
        if folder in (spec.steb_name, spec.name):
            return spec.name, spec
    skeleton = name_skeleton(folder)
    for spec in steb:
        if spec.steb_name and name_skeleton(spec.steb_name) == skeleton:
            return spec.name, spec
    for name in dict.fromkeys((folder, folder.replace("__", "/"))):
        spec = catalogue.dataset(name)
        if spec is not None:
            return spec.name, spec
    return folder, None


def reference_metrics(record: Mapping[str, Any]) -> dict[str, float]:
    """The metrics of one stebkit record under the reference's keys and order.

    >>> reference_metrics({"task": "clustering", "metrics": {"v_measure": 0.5, "ari": 0.1}})
    {'v_measure': 0.5}
    >>> reference_metrics({"task": "probing", "metrics": {"accuracy": 0.75, "l2": 0.01}})
    {'task_0': 0.75, 'average': 0.75}
    """
    task = record["task"]
    metrics = record.get("metrics") or {}
    if task == "probing":
        probes = {k: v for k, v in metrics.items() if _PROBE_KEY.match(k)}
        if probes:  # imported from the reference: keep its probes as they were
            return {**probes, "average": metrics.get("average", metrics.get("accuracy"))}
        return {"task_0": metrics["accuracy"], "average": metrics["accuracy"]}
    return {k: metrics[k] for k in REFERENCE_METRICS[task] if k in metrics}


def _check_apart(steb: Path, results: Path, action: str) -> None:
    """Refuse a reference-layout folder inside (or equal to) a stebkit results folder: its
    ``metrics.json`` files would be read as records there."""
    a, b = Path(os.path.abspath(steb)), Path(os.path.abspath(results))
    if a == b or b in a.parents:
        raise ValueError(f"{action}: {steb} is inside the results folder {results}, where "
                         "its metrics.json files would be read as result records; choose a "
                         "folder outside it")


def _check_target(out: Path, overwrite: bool, texts: Mapping[Path, str]) -> None:
    """Refuse a target that is not a folder, or (without ``overwrite``) one holding a file
    this export would not write as it is: a folder holding only files of this export
    (an interrupted one) and its temporary files is resumed."""
    from stebkit._io import files_under

    if out.exists() and not out.is_dir():
        raise ValueError(f"export target {out} exists and is not a folder")
    if overwrite or not out.is_dir():
        return
    stray = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")
    texts = {Path(os.path.abspath(p)): text for p, text in texts.items()}
    for path in files_under(out, "*"):
        if stray.fullmatch(path.name) or _holds(path, texts.get(Path(os.path.abspath(path)))):
            continue
        raise ValueError(f"export target {out} exists and holds files this export would not "
                         f"write (e.g. {path}); choose a new folder or pass --overwrite "
                         "(overwrite=True) to replace its files")


def _holds(path: Path, text: str | None) -> bool:
    """Whether the file ``path`` holds ``text`` (read as untrusted; None: never)."""
    from stebkit._io import read_untrusted

    if text is None:
        return False
    try:
        return read_untrusted(path, limit=len(text.encode()) + 1) == text.encode()
    except (OSError, ValueError):
        return False


def _clash(path: Path, first: tuple[str, Mapping[str, Any]], model: str,
           dataset: str) -> None:
    """Refuse a second record mapped to the file ``path`` of ``first`` (its model, record),
    naming both."""
    if first[1]["dataset"]["name"] != dataset:
        raise ValueError(f"two datasets, {first[1]['dataset']['name']!r} and {dataset!r}, "
                         f"map to one folder {reference_folder(dataset)!r} ({path}); "
                         "export them into separate folders")
    raise ValueError(f"two results map to one file {path}: {first[0]!r} and {model!r} (same "
                     f"short name {short_name(model)!r}, or the same dataset twice); export "
                     "them into separate folders")


def export_steb(results: Any, out: str | os.PathLike[str], *,
                overwrite: bool = False) -> ExportReport:
    """Write results in the reference's layout (``metrics.json`` files).

    Parameters
    ----------
    results : Results or a results folder
    out : path
        The new folder (the reference's ``results/`` or ``submitted_results/``).
    overwrite : bool, default False
        Allow a non-empty ``out`` (files of the same path are replaced).

    Returns
    -------
    ExportReport
        The files written and the records left out with the reason (failed or skipped
        results, tasks the reference does not have).

    Raises
    ------
    ValueError
        ``out`` exists and is not empty (without ``overwrite``); the results mix
        protocols (seeds, smoke and full data); two records map to one file (e.g. two
        models with the same short name).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> rec = {"schema": 1, "model": {"name": "org/m"}, "dataset": {"name": "d"},
    ...        "task": "clustering", "episode_size": 1, "episodes_per_label": 50,
    ...        "protocol": {"seed": 42, "smoke": False}, "status": "ok",
    ...        "metrics": {"v_measure": 0.25, "ami": 0.1}}
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "steb"
    >>> report = export_steb([rec], out)
    >>> [p.relative_to(out).as_posix() for p in report.written]
    ['d/m/1_50/clustering/metrics.json']
    >>> report.written[0].read_text()
    '{"v_measure": 0.25}'
    """
    from stebkit._io import inside
    from stebkit.records.catalogue import Catalogue
    from stebkit.records.results import Results

    out = Path(out)
    if isinstance(results, (str, os.PathLike)):
        _check_apart(out, Path(results), "export")
        records = Results(results).records
    else:
        records = list(results)
    report = ExportReport()
    protocols: dict[tuple[Any, bool], str] = {}
    planned: dict[Path, tuple[str, Mapping[str, Any]]] = {}
    for r in records:
        model, dataset = r["model"]["name"], r["dataset"]["name"]
        what = f"{model} / {dataset} / {r['task']} (episode size {r.get('episode_size')})"
        if r.get("status") != "ok":
            report.not_written.append(f"{what}: status {r.get('status')!r} (the reference "
                                      "writes files for computed results only)")
            continue
        if r["task"] not in REFERENCE_METRICS:
            report.not_written.append(f"{what}: task {r['task']!r} is not a STEB task")
            continue
        proto = r.get("protocol") or {}
        protocols.setdefault((proto.get("seed", r.get("seed")), bool(proto.get("smoke"))),
                             what)
        path = inside(out, _segment(reference_folder(dataset), dataset, "dataset"),
                      _segment(short_name(model), model, "model"),
                      f"{int(r['episode_size'])}_{int(r['episodes_per_label'])}",
                      REFERENCE_TASK_NAMES[r["task"]], "metrics.json")
        if path in planned:
            _clash(path, planned[path], model, dataset)
        planned[path] = (model, r)
    if len(protocols) > 1:
        shown = "; ".join(f"seed {s}, smoke={m} (e.g. {w})" for (s, m), w in protocols.items())
        raise ValueError(f"the results mix protocols ({shown}); export one protocol at a "
                         "time (one results folder per run setting)")
    texts = {path: json.dumps(_exported(r)) for path, (_, r) in planned.items()}
    names = {reference_folder(r["dataset"]["name"]): r["dataset"]["name"]
             for _, r in planned.values()}
    catalogue = Catalogue()
    names = {k: v for k, v in sorted(names.items())
             if _stebkit_dataset(k, catalogue)[0] != v}
    if names:
        texts[out / NAMES_FILE] = json.dumps(names, indent=1, ensure_ascii=False) + "\n"
    _check_target(out, overwrite, texts)
    for path, text in texts.items():
        _write(path, text, Path(os.path.abspath(out)))
    for path, (_, r) in planned.items():
        missing = [k for k in REFERENCE_METRICS[r["task"]] if k not in _exported(r)]
        if missing and r["task"] != "probing":
            report.not_written.append(
                f"{r['model']['name']} / {r['dataset']['name']} / {r['task']}: written "
                f"without {missing} (the record predates them; rerun with --overwrite always)")
        report.written.append(path)
    return report


def _segment(folder: str, name: str, what: str) -> str:
    """``folder``, the one folder level the export writes for the ``what`` ``name``;
    refused when it is empty, ``.`` or ``..``, or holds a ``/`` (a name that would
    collapse or add folder levels)."""
    if folder in ("", ".", "..") or "/" in folder or "\0" in folder:
        raise ValueError(f"{what} name {name!r} gives the folder {folder!r}, which is not "
                         "one folder level; export only records whose names have no '.', "
                         "'..' or empty parts")
    return folder


def _exported(record: Mapping[str, Any]) -> dict[str, Any]:
    """The ``metrics.json`` content of one record: its reference metrics and sub-results."""
    metrics: dict[str, Any] = reference_metrics(record)
    if record.get("submetrics"):
        metrics["submetrics"] = record["submetrics"]
    return metrics


def _write(path: Path, text: str, root: Path) -> Path:
    """One file as the reference writes it (``metrics.json``: ``json.dumps`` of the
    metrics, one line, default separators, no trailing newline), atomically, every folder
    below ``root`` opened without following a link; temporary files a killed export left
    beside it are removed."""
    from stebkit._io import atomic_file, remove_stray_temps

    remove_stray_temps(path)
    with atomic_file(path, "w", encoding="utf-8", root=root) as fh:
        fh.write(text)
    return path


# --------------------------------------------------------------------------- import


def _fail(path: Path, message: str) -> ValueError:
    return ValueError(f"{path}: {message}")


IMPORT_FIX = "correct or remove that file, then import again"
"""What a message about a bad reference file tells its reader to do."""


def read_metrics(path: str | os.PathLike[str], task: str = "") -> dict[str, Any]:
    """Read one reference ``metrics.json``: a JSON object of finite numbers (inside their
    range when ``task``, stebkit's family name, is given:
    :func:`stebkit.records.record.metric_range`), and ``submetrics``.

    The file is read as untrusted (:func:`stebkit._io.read_untrusted`: a regular file
    with one link, at most 16 MB; never a FIFO, device or symbolic link).

    Raises
    ------
    ValueError
        Not a regular file, not UTF-8 JSON, nested too deeply, not an object, or a value
        that is not a number in range; names the file and the key.
    """
    from stebkit._io import read_json
    from stebkit.records.record import check_metrics, check_submetrics

    path = Path(path)
    data = read_json(path, fix=IMPORT_FIX)
    if not isinstance(data, dict) or not data:
        raise _fail(path, "expected a non-empty JSON object of metric: number")
    check_metrics(task, {k: v for k, v in data.items() if k != "submetrics"},
                  where=str(path), prefix="", fix=IMPORT_FIX)
    check_submetrics(task, data.get("submetrics"), where=str(path), fix=IMPORT_FIX)
    return data


def scan_steb(root: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every ``metrics.json`` under ``root`` with its parsed path parts, checked.

    Each item: ``path``, ``dataset`` (folder), ``model`` (short name), ``episode_size``,
    ``episodes_per_label``, ``task`` (stebkit name), ``metrics``.

    Raises
    ------
    ValueError
        A file not at ``<dataset>/<model>/<size>_<n>/<task>/metrics.json``, an unknown
        task folder, an episode folder that is not ``<size>_<n>``, a metrics file that
        does not parse, holds a value outside its range or lacks the task's main metric, a
        symbolic link (never followed); names the file.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"STEB results folder {str(root)!r} does not exist")
    from stebkit._io import files_under

    items = []
    for path in files_under(root, "metrics.json"):
        parts = path.relative_to(root).parts
        if len(parts) != 5:
            raise _fail(path, "expected <dataset>/<model>/<episode_size>_<episodes per "
                        "label>/<task>/metrics.json under the results folder")
        dataset, model, episodes, task, _ = parts
        if task not in STEB_TASKS:
            raise _fail(path, f"unknown task folder {task!r}; the reference's tasks are "
                        f"{sorted(STEB_TASKS)}")
        match = _EPISODE_DIR.match(episodes)
        if not match:
            raise _fail(path, f"episode folder {episodes!r} is not <episode_size>_<episodes "
                        "per label> (e.g. 1_50, -1_1)")
        family = STEB_TASKS[task]
        metrics = read_metrics(path, family)
        main = "average" if family == "probing" else _main_metric(family)
        if main not in metrics:
            raise _fail(path, f"the {task} metrics lack their main metric {main!r}")
        items.append({"path": path, "dataset": dataset, "model": model,
                      "episode_size": int(match.group(1)),
                      "episodes_per_label": int(match.group(2)), "task": family,
                      "metrics": metrics})
    if not items:
        raise ValueError(f"no metrics.json files under {root}")
    return items


def _main_metric(task: str) -> str:
    from stebkit.tasks import FAMILIES

    return FAMILIES[task].main_metric


def import_steb(root: str | os.PathLike[str], results: str | os.PathLike[str], *,
                overwrite: bool = False) -> list[Path]:
    """Read the reference's layout into stebkit records under ``results``.

    Records get the model's zoo category when the short name is a zoo model, the
    dataset's catalogue metadata when the folder is a catalogue dataset, the main metric
    of the task on that dataset (``accuracy`` = the probing ``average``) and
    ``protocol.source`` naming the imported file; they have no interval or per-item
    values (the reference writes none). Names are compared by their look-alike skeleton
    (:func:`stebkit._io.name_skeleton`): a folder that differs from a registered
    dataset's or a zoo model's name only in case, look-alike or invisible characters is
    imported as that dataset or model, with a warning in the record naming the folder and
    one ``UserWarning`` per such folder (``stebkit import`` prints it). Two files of one
    result (a look-alike folder beside the real one) stop the import, naming the model or
    dataset that has two folders.

    Parameters
    ----------
    root : path
        A folder in the reference's layout (its ``results/`` or ``submitted_results/``).
    results : path
        The stebkit results folder to write.
    overwrite : bool, default False
        Replace existing records, and a run's record of the same model, dataset, task and
        episode size; otherwise such a record stops the import (a record this import
        wrote before, unchanged, does not: an interrupted import resumes). A dataset name
        an export kept in :data:`NAMES_FILE` (``team/set``) is restored.

    Returns
    -------
    list of Path
        The records written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> f = tmp / "steb" / "STEL_register" / "m" / "1_100" / "order_alignment" / "metrics.json"
    >>> f.parent.mkdir(parents=True)
    >>> _ = f.write_text('{"acc_mean": 0.5, "distractor_acc_mean": 0.25}')
    >>> from stebkit.records.results import Results
    >>> _ = import_steb(tmp / "steb", tmp / "results")
    >>> Results.load(tmp / "results").main_frame()[["dataset", "metric", "value"]].values.tolist()
    [['stel_register', 'distractor_acc_mean', 0.25]]
    """
    from stebkit._io import remove_stray_temps
    from stebkit.records.catalogue import Catalogue
    from stebkit.records.record import check_record
    from stebkit.records.results import record_path, write_record

    _check_apart(Path(root), Path(results), "import")
    names = _exported_names(Path(root))
    planned: dict[Path, tuple[Path, dict[str, Any]]] = {}
    replaced: list[Path] = []
    catalogue = Catalogue()
    for it in scan_steb(root):
        name, spec = _stebkit_dataset(names.get(it["dataset"], it["dataset"]), catalogue)
        info = catalogue.model(it["model"])  # a look-alike of a zoo name is that model
        it = {**it, "model": info.name if info is not None else it["model"],
              "model_folder": it["model"]}
        path = record_path(results, it["model"], name, it["task"], it["episode_size"],
                           it["episodes_per_label"])
        if path in planned:
            raise _fail(it["path"], f"holds the same result as {planned[path][0]} "
                        f"({_twice(it, planned[path][0], root, name)}); keep one of them")
        record = check_record(_imported(it, name, spec), where=str(it["path"]),
                              fix=IMPORT_FIX)
        if path.exists() and not overwrite and not _same_import(path, record):
            raise ValueError(f"{path} exists (imported from {it['path']}); import into a new "
                             "results folder or pass --overwrite (overwrite=True)")
        run = record_path(results, it["model"], name, it["task"], it["episode_size"])
        if run.exists():
            if not overwrite:
                raise ValueError(f"{run} holds a run's result for the slot {it['path']} would "
                                 "fill (the leaderboard reads one result per model, dataset, "
                                 "task and episode size); import into a new results folder "
                                 "or pass --overwrite (overwrite=True) to replace it")
            replaced.append(run)
        planned[path] = (it["path"], record)
    written = []
    for path, (_, record) in planned.items():
        remove_stray_temps(path)
        written.append(write_record(path, record))
    for run in replaced:
        run.unlink(missing_ok=True)
    _note_look_alikes([record for _, record in planned.values()])
    return written


def _twice(it: Mapping[str, Any], first: Path, root: str | os.PathLike[str], name: str
           ) -> str:
    """What two reference files of one result differ in: the folder of the model, of the
    dataset, or both (``first``: the file met before ``it``)."""
    dataset_folder, model_folder = first.relative_to(root).parts[:2]
    parts = [f"model {it['model']!r}" if model_folder != it["model_folder"] else "",
             f"dataset {name!r}" if dataset_folder != it["dataset"] else ""]
    return " and ".join(p for p in parts if p) + " under two folder names"


def _note_look_alikes(records: list[Mapping[str, Any]]) -> None:
    """One warning per folder imported as the registered dataset or zoo model it looks
    like (the records keep theirs), with the number of records it gave."""
    from collections import Counter

    from stebkit.errors import warn

    found = Counter(w for record in records for w in record.get("warnings") or ()
                    if w.startswith(LOOK_ALIKE))
    for message, count in found.items():
        warn(f"{message.removeprefix(LOOK_ALIKE)} ({count} record(s))")


def _same_import(path: Path, record: Mapping[str, Any]) -> bool:
    """Whether the record at ``path`` is ``record``, imported before (an interrupted import
    resumes): everything equal but the date and version of stebkit."""
    from stebkit.records.record import Record

    try:
        old = Record.read(path).to_json()
    except (OSError, ValueError):
        return False
    keep = ("date", "stebkit_version")
    return {k: v for k, v in old.items() if k not in keep} == \
        {k: v for k, v in record.items() if k not in keep}


def _exported_names(root: Path) -> dict[str, str]:
    """The dataset names an export kept in :data:`NAMES_FILE` (folder -> name), checked:
    each a usable name whose folder is the one it is listed under."""
    from stebkit._io import check_name, read_json

    path = root / NAMES_FILE
    if not os.path.lexists(path):
        return {}
    data = read_json(path, fix=IMPORT_FIX)
    if not isinstance(data, dict):
        raise _fail(path, "expected a JSON object of dataset folder: dataset name")
    for folder, name in data.items():
        try:
            check_name(name, "dataset")
        except ValueError as err:
            raise _fail(path, f"entry {folder!r}: {err}; {IMPORT_FIX}") from None
        if reference_folder(name) != folder:
            raise _fail(path, f"entry {folder!r}: the dataset {name!r} is written in the "
                        f"folder {reference_folder(name)!r}, not this one; {IMPORT_FIX}")
    return data


def _imported(it: Mapping[str, Any], name: str, spec: Any) -> dict[str, Any]:
    """The stebkit record of one scanned reference file (:func:`scan_steb`), with the
    main metric of ``spec`` (:func:`stebkit.records.schema.main_metric_of`) and a warning
    when the file's folder names its dataset or model by a look-alike."""
    from stebkit.records.record import new_record
    from stebkit.records.schema import main_metric_of

    metrics = dict(it["metrics"])
    submetrics = metrics.pop("submetrics", None)
    if it["task"] == "probing":
        metrics["accuracy"] = metrics["average"]
    return new_record(
        model={"name": it["model"], "revision": "unknown",
               "category": _model_category(it["model"])},
        dataset={"name": name, "steb_name": it["dataset"],
                 "category": spec.category if spec else "other",
                 "languages": list(spec.languages) if spec else [],
                 "application": spec.application if spec else "custom"},
        task=it["task"], episode_size=it["episode_size"],
        episodes_per_label=it["episodes_per_label"], seed=None,
        protocol={"source": "STEB result file", "file": str(it["path"])},
        main_metric=main_metric_of(it["task"], spec) if spec else _main_metric(it["task"]),
        metrics=metrics, n_items=None, status="ok",
        warnings=[*_look_alike("dataset", it["dataset"], (spec.name, spec.steb_name or "",
                                                          reference_folder(spec.name))
                               if spec else ()),
                  *_look_alike("zoo model", it["model_folder"], (it["model"],))],
        **({"submetrics": submetrics} if submetrics else {}))


LOOK_ALIKE = "LookAlikeName: "
"""How the warning of a record imported from a look-alike folder begins."""


def _look_alike(what: str, folder: str, names: tuple[str, ...]) -> list[str]:
    """The warning of a record imported from a folder that only looks like the name of
    the registered ``what`` it is imported as (``names``: that name first, then the
    folder names it has; none when the folder is one of them)."""
    if not names or folder in names:
        return []
    return [f"{LOOK_ALIKE}the reference's folder {folder!r} ({ascii(folder)}) differs "
            f"from the registered {what} {names[0]!r} only in case, look-alike or invisible "
            "characters; imported as it"]


def _model_category(short: str) -> str:
    from stebkit.encoders.zoo import MODELS

    info = MODELS.get(short)
    return info.category if info is not None else "custom"

