"""Your own suites: declare datasets in a YAML or TOML file and evaluate them like STEB.

A suite file names datasets from local CSV/TSV/JSONL/JSON/Parquet files, from URLs
(fetched with a checksum, so a local mirror works), or from the Hugging Face Hub, says
which columns hold the text, label and split, and which task and main metric score them.
:func:`load_suite` checks the file, registers every dataset (suite name = the file's
``name``), and returns a :class:`Suite`; ``stebkit run --suite path/to/suite.yaml`` runs
it with the same runner, embedding cache, results store and leaderboard as STEB.

Validation data is used only to choose settings (the probe's regularisation); the
reported score is the test split's.

The file format::

    name: my-suite                     # suite name (also the registry's suite tag)
    datasets:
      - name: politeness-community     # unique across the registry
        task: classification           # any STEB task, classification or retrieval_ndcg
        main_metric: macro_f1          # optional; defaults to the task's main metric
        language: en
        license: Apache-2.0
        source: {path: politeness.csv} # or {url: ..., sha256: ...} or {hf: org/name, ...}
                                       # (a Hub dataset with a loading script adds
                                       #  remote_code: true and needs trust_remote_code)
        columns: {text: Request, label: Community, split: split}
        splits: {train: train, validation: dev, test: test}  # values of the split column
        # or make a seeded, stratified split when the file has none:
        # split: {fractions: [0.6, 0.2, 0.2], seed: 42}
        min_per_label: 10              # optional documented filter (counts are reported)

Run settings may sit beside the datasets, in a ``run:`` mapping; the command line's
options override them::

    run:
      trust_remote_code: false         # allow models/datasets that run repository code
      preset: benchmark                # the reference's presets: benchmark or fast
      episode_sizes: [1, 2, 5]         # texts per episode (a list of positive ints or -1)
      episodes_per_label: 50           # episodes sampled per label
      device: cpu                      # cpu, cuda, cuda:1, mps

``retrieval_ndcg`` datasets read three tables — ``queries`` (id, text), ``corpus``
(id, text) and ``qrels`` (query_id, doc_id, relevance) — each a source of its own, with
``columns`` given per table.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ._io import check_name
from .datasets.spec import DatasetSpec, License, Source, TaskConfig
from .tasks import FAMILIES

SUITE_TASKS: tuple[str, ...] = tuple(FAMILIES)
"""Task families a suite dataset may declare (every family of ``stebkit.tasks.FAMILIES``)."""


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
_RECORD_FIELDS = ("text", "label", "split", "group", "position", "pair", "same", "side",
                  "work")
_DATASET_KEYS = {"name", "task", "main_metric", "language", "languages", "license",
                 "description", "label_meaning", "source", "columns", "splits", "split",
                 "min_per_label", "episode_size", "episodes_per_label", "citation"}


RUN_OPTIONS = ("trust_remote_code", "preset", "episode_sizes", "episodes_per_label", "device")
"""Keys of a suite file's ``run:`` mapping (the command line's options of the same name)."""


class SuiteError(ValueError):
    """A suite file is malformed; the message names the file, the dataset and the field."""


@dataclass(frozen=True)
class Suite:
    """A loaded suite: its name, the file it came from and its registered datasets."""

    name: str
    path: Path
    specs: tuple[DatasetSpec, ...]
    run: Mapping[str, Any] = field(default_factory=dict)
    """The file's checked ``run:`` settings (keys of :data:`RUN_OPTIONS`)."""

    @property
    def datasets(self) -> list[str]:
        """The registered dataset names, in file order."""
        return [s.name for s in self.specs]


def _fail(path: Path, where: str, message: str) -> SuiteError:
    return SuiteError(f"{path}: {where}: {message}")


def _read_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise SuiteError(f"{path}: no such suite file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise SuiteError(f"{path}: not UTF-8 text (byte {err.start}: {err.reason}); save the "
                         "suite file as UTF-8") from None
    try:
        if path.suffix.lower() == ".toml":
            try:
                import tomllib
            except ImportError:  # Python 3.10
                import tomli as tomllib
            return tomllib.loads(text)
        import yaml

        data = yaml.safe_load(text)
    except Exception as err:  # yaml/toml parse errors carry their own line numbers
        raise SuiteError(f"{path}: not valid {path.suffix.lstrip('.').upper()}: {err}") from None
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: the top level must be a mapping with 'name' and 'datasets'")
    return data


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_source(source: Any, path: Path, where: str) -> dict[str, Any]:
    if not isinstance(source, Mapping):
        raise _fail(path, where, "source must be a mapping with 'path', 'url' or 'hf'")
    kinds = [k for k in ("path", "url", "hf") if k in source]
    if len(kinds) != 1:
        raise _fail(path, where, f"source needs exactly one of 'path', 'url', 'hf', "
                    f"got {sorted(source)}")
    out = dict(source)
    if "remote_code" in out and ("hf" not in out or not isinstance(out["remote_code"], bool)):
        raise _fail(path, where, "remote_code (true or false) applies to 'hf' sources only")
    if "path" in out:
        file = (path.parent / str(out["path"])).resolve()
        if not file.is_file():
            raise _fail(path, where, f"source file {out['path']!r} not found "
                        f"(looked for {file})")
        out["path"] = str(file)
        out["sha256"] = _sha256(file)
    fmt = out.get("format")
    if "hf" not in out:
        suffix = Path(str(out.get("path") or out.get("url"))).suffix.lower()
        fmt = fmt or _FORMATS.get(suffix)
        if fmt not in _FORMATS.values():
            raise _fail(path, where, f"cannot tell the format of {suffix or 'the source'!r}: "
                        f"add format: one of {sorted(set(_FORMATS.values()))}")
        out["format"] = fmt
    return out


def _read_table(source: Mapping[str, Any]) -> Any:
    import pandas as pd

    if "hf" in source:
        from .datasets.hub import load_hub

        frame = load_hub(source["hf"], name=source.get("config"),
                         revision=source.get("revision"), split=source.get("split", "train"),
                         trust_remote_code=bool(source.get("remote_code")))
        return frame if isinstance(frame, pd.DataFrame) else frame.to_pandas()
    if "url" in source:
        from .sources import fetch

        file = fetch(source["url"], source.get("sha256"))
    else:
        file = Path(source["path"])
    fmt = source["format"]
    try:
        if fmt in ("csv", "tsv"):
            return pd.read_csv(file, sep="," if fmt == "csv" else "\t", dtype=str,
                               keep_default_na=False)
        if fmt in ("jsonl", "json"):
            return pd.read_json(file, lines=fmt == "jsonl", dtype=False)
        return pd.read_parquet(file)
    except Exception as err:
        raise SuiteError(f"{file}: cannot read as {fmt}: {err}") from None


def _rename(frame: Any, columns: Mapping[str, str], path: Path, where: str,
            required: tuple[str, ...]) -> Any:
    mapping = {field: columns.get(field, field) for field in required}
    mapping.update({f: c for f, c in columns.items() if f not in mapping})
    missing = {f: c for f, c in mapping.items() if c not in frame.columns}
    if missing:
        raise _fail(path, where, f"column(s) {sorted(missing.values())} (for "
                    f"{sorted(missing)}) not in the data; it has {list(frame.columns)[:12]}")
    return frame[list(mapping.values())].set_axis(list(mapping), axis=1)


def _stratified_split(labels: np.ndarray, fractions: list[float], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty(len(labels), dtype=object)
    for label in sorted(set(labels.tolist())):
        idx = np.flatnonzero(labels == label)
        idx = idx[rng.permutation(len(idx))]
        n_train = int(round(fractions[0] * len(idx)))
        n_val = int(round(fractions[1] * len(idx)))
        out[idx[:n_train]] = "train"
        out[idx[n_train:n_train + n_val]] = "validation"
        out[idx[n_train + n_val:]] = "test"
    return out


def _labelled_records(entry: Mapping[str, Any], path: Path, where: str, *, seed: int,
                      smoke: bool) -> Any:
    task = entry["task"]
    columns = dict(entry.get("columns") or {})
    needs_split = task in ("classification", "probing")
    required = ("text", "label") + (("split",) if needs_split and "split" not in entry else ())
    frame = _rename(_read_table(entry["source"]), columns, path, where, required)
    frame["text"] = frame["text"].astype(str)
    frame["label"] = frame["label"].astype(str)
    if "splits" in entry:
        mapping = {str(v): k for k, v in entry["splits"].items()}
        unknown = sorted(set(frame["split"].astype(str)) - set(mapping))
        if unknown:
            raise _fail(path, where, f"split values {unknown[:5]} are not named in 'splits' "
                        f"({sorted(mapping)})")
        frame["split"] = frame["split"].astype(str).map(mapping)
    min_per_label = int(entry.get("min_per_label", 0))
    if min_per_label:
        counts = frame["label"].value_counts()
        small = counts[counts < min_per_label]
        if len(small):
            warnings.warn(f"{entry['name']}: min_per_label={min_per_label} dropped "
                          f"{len(small)} label(s) with {int(small.sum())} text(s)",
                          UserWarning, stacklevel=2)
            frame = frame[~frame["label"].isin(small.index)].reset_index(drop=True)
    if "split" in entry:
        spec = entry["split"]
        frame["split"] = _stratified_split(frame["label"].to_numpy(), list(spec["fractions"]),
                                           int(spec.get("seed", seed)))
    if smoke:
        rng = np.random.default_rng(seed)
        keep = np.sort(rng.permutation(len(frame))[:min(len(frame), 300)])
        frame = frame.iloc[keep].reset_index(drop=True)
    return frame


def _ndcg_records(entry: Mapping[str, Any], path: Path, where: str, *, seed: int,
                  smoke: bool) -> Any:
    import pandas as pd

    source, columns = entry["source"], dict(entry.get("columns") or {})
    queries = _rename(_read_table(source["queries"]), columns.get("queries", {}), path,
                      f"{where}: queries", ("id", "text"))
    corpus = _rename(_read_table(source["corpus"]), columns.get("corpus", {}), path,
                     f"{where}: corpus", ("id", "text"))
    qrels = _rename(_read_table(source["qrels"]), columns.get("qrels", {}), path,
                    f"{where}: qrels", ("query_id", "doc_id", "relevance"))
    grades = pd.to_numeric(qrels["relevance"], errors="coerce")
    if grades.isna().any():
        row = int(np.flatnonzero(grades.isna().to_numpy())[0])
        raise _fail(path, f"{where}: qrels", f"relevance must be numbers; row {row} has "
                    f"{qrels['relevance'].iloc[row]!r}")
    qrels = qrels.assign(relevance=grades, query_id=qrels["query_id"].astype(str),
                         doc_id=qrels["doc_id"].astype(str))
    for side, frame in (("queries", queries), ("corpus", corpus)):
        dup = frame["id"].astype(str).duplicated()
        if dup.any():
            raise _fail(path, f"{where}: {side}", f"duplicated id {frame['id'][dup].iloc[0]!r}")
    doc_ids = set(corpus["id"].astype(str))
    unknown = sorted(set(qrels["doc_id"]) - doc_ids)
    if unknown:
        raise _fail(path, f"{where}: qrels", f"doc_id(s) {unknown[:3]} are not in the corpus")
    judged = qrels.groupby("query_id")
    rel = {q: json.dumps(dict(zip(g["doc_id"], g["relevance"].astype(float), strict=True)),
                         sort_keys=True) for q, g in judged}
    queries = queries.assign(id=queries["id"].astype(str))
    corpus = corpus.assign(id=corpus["id"].astype(str))
    if smoke:  # 50 queries, their judged documents and up to 250 others
        rng = np.random.default_rng(seed)
        queries = queries.iloc[np.sort(rng.permutation(len(queries))[:50])]
        judged_docs = set(qrels.loc[qrels["query_id"].isin(set(queries["id"])), "doc_id"])
        others = np.flatnonzero(~corpus["id"].isin(judged_docs).to_numpy())
        extra = set(corpus["id"].iloc[np.sort(rng.permutation(others)[:250])])
        corpus = corpus[corpus["id"].isin(judged_docs | extra)]
    q = pd.DataFrame({"text": queries["text"].astype(str), "label": queries["id"],
                      "group": queries["id"], "side": "query",
                      "relevance": queries["id"].map(rel).fillna("{}")})
    c = pd.DataFrame({"text": corpus["text"].astype(str), "label": corpus["id"],
                      "group": corpus["id"], "side": "target", "relevance": None})
    return pd.concat([q, c], ignore_index=True)


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
    size = entry.get("episode_size", 1)
    if not _is_int(size) or (size < 1 and size != -1):
        raise _fail(path, where, f"episode_size must be a positive integer (or -1: all texts "
                    f"of a label), got {size!r}")
    per_label = entry.get("episodes_per_label", 1)
    if not _is_int(per_label) or per_label < 1:
        raise _fail(path, where, f"episodes_per_label must be a positive integer, got "
                    f"{per_label!r}")
    minimum = entry.get("min_per_label", 0)
    if not _is_int(minimum) or minimum < 0:
        raise _fail(path, where, f"min_per_label must be a non-negative integer, got "
                    f"{minimum!r}")
    columns = entry.get("columns", {})
    tables = ("queries", "corpus", "qrels") if entry.get("task") == "retrieval_ndcg" else ()
    if not isinstance(columns, Mapping):
        raise _fail(path, where, "columns must map fields to column names, e.g. {text: "
                    f"Request, label: Community}}, got {type(columns).__name__} {columns!r}")
    for key, column in columns.items():
        if tables and key in tables:
            if not isinstance(column, Mapping) or not all(
                    isinstance(c, str) for c in column.values()):
                raise _fail(path, where, f"columns.{key} must map fields to column names, "
                            f"got {column!r}")
        elif not isinstance(column, str):
            raise _fail(path, where, f"columns.{key} must be a column name (a string), "
                        f"got {column!r}")


def _source_columns(source: Mapping[str, Any]) -> list[str] | None:
    """The column names of a local (or already downloaded) table, read cheaply; None when
    they cannot be known without a download."""
    import pandas as pd

    if "hf" in source:
        return None
    if "url" in source:
        from .sources import locate

        file = locate(source["url"])
        if file is None:
            return None
    else:
        file = Path(source["path"])
    fmt = source["format"]
    if fmt != "parquet":  # a text format: all of it must decode, not only its header
        import codecs

        decoder = codecs.getincrementaldecoder("utf-8")()
        with open(file, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                decoder.decode(block)
        decoder.decode(b"", final=True)
    if fmt in ("csv", "tsv"):
        return [str(c) for c in pd.read_csv(file, sep="," if fmt == "csv" else "\t", nrows=0,
                                            dtype=str).columns]
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return [str(c) for c in pq.read_schema(file).names]
    if fmt == "jsonl":
        with open(file, encoding="utf-8") as fh:
            first = next((line for line in fh if line.strip()), "{}")
        row = json.loads(first)
        return [str(c) for c in row] if isinstance(row, dict) else None
    return None


def _check_columns(entry: Mapping[str, Any], path: Path, where: str) -> None:
    """A column named in the suite file (or a default one) must be in the data."""
    task = entry["task"]
    columns = dict(entry.get("columns") or {})
    if task == "retrieval_ndcg":
        needs = {"queries": ("id", "text"), "corpus": ("id", "text"),
                 "qrels": ("query_id", "doc_id", "relevance")}
        checks = [(f"source.{k}", entry["source"][k], dict(columns.get(k, {})), needs[k])
                  for k in needs]
    else:
        split = ("split",) if task in ("classification", "probing") and "split" not in entry \
            else ()
        checks = [("source", entry["source"], columns, ("text", "label", *split))]
    for part, source, mapping, required in checks:
        try:
            have = _source_columns(source)
        except UnicodeDecodeError:
            raise _fail(path, f"{where}: {part}", f"{source.get('path') or source.get('url')}"
                        " is not UTF-8 text; convert it to UTF-8") from None
        except Exception as err:
            raise _fail(path, f"{where}: {part}", f"cannot read "
                        f"{source.get('path') or source.get('url')} as {source['format']}: "
                        f"{err}") from None
        if have is None:
            continue
        wanted = {f: mapping.get(f, f) for f in required}
        wanted.update({f: c for f, c in mapping.items() if f not in wanted})
        missing = {f: c for f, c in wanted.items() if c not in have}
        if missing:
            raise _fail(path, f"{where}: {part}", f"column(s) {sorted(missing.values())} "
                        f"(for {sorted(missing)}, see 'columns') not in "
                        f"{source.get('path') or source.get('url')}; it has {have[:12]}")


def _check_entry(entry: Any, path: Path, index: int, seen: set[str]) -> dict[str, Any]:
    where = f"datasets[{index}]"
    if not isinstance(entry, Mapping):
        raise _fail(path, where, "each dataset must be a mapping")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _fail(path, where, "missing 'name'")
    try:
        check_name(name, "dataset")
    except ValueError as err:
        raise _fail(path, where, str(err)) from None
    where = f"dataset {name!r}"
    if name in seen:
        raise _fail(path, where, "duplicated dataset name; names must be unique")
    seen.add(name)
    unknown = sorted(set(entry) - _DATASET_KEYS)
    if unknown:
        raise _fail(path, where, f"unknown field(s) {unknown}; known: {sorted(_DATASET_KEYS)}")
    _check_types(entry, path, where)
    task = entry.get("task")
    if task not in SUITE_TASKS:
        raise _fail(path, where, f"unknown task {task!r}; choose one of {SUITE_TASKS}")
    metric = entry.get("main_metric", TASK_METRICS[task][0])
    if metric not in TASK_METRICS[task]:
        raise _fail(path, where, f"main_metric {metric!r} is not a metric of {task}; "
                    f"choose one of {TASK_METRICS[task]}")
    out = dict(entry, main_metric=metric)
    if "source" not in entry:
        raise _fail(path, where, "missing 'source'")
    if task == "retrieval_ndcg":
        src = entry["source"]
        if not isinstance(src, Mapping) or set(src) != {"queries", "corpus", "qrels"}:
            raise _fail(path, where, "a retrieval_ndcg source needs exactly the tables "
                        "'queries', 'corpus' and 'qrels'")
        out["source"] = {k: _check_source(v, path, f"{where}: source.{k}")
                         for k, v in src.items()}
    else:
        out["source"] = _check_source(entry["source"], path, f"{where}: source")
    if "splits" in entry and "split" in entry:
        raise _fail(path, where, "give either 'splits' (values of a split column) or "
                    "'split' (fractions for a seeded split), not both")
    if "splits" in entry:
        splits = entry["splits"]
        if not isinstance(splits, Mapping) or not set(splits) <= {"train", "validation", "test"}:
            raise _fail(path, where, "splits must map train/validation/test to the values of "
                        f"the split column, got {splits!r}")
        needed = {"train", "validation", "test"} if task in ("classification", "probing") \
            else set()
        if needed - set(splits):
            raise _fail(path, where, f"splits lacks {sorted(needed - set(splits))}")
    if "split" in entry:
        fr = entry["split"].get("fractions") if isinstance(entry["split"], Mapping) else None
        if not (isinstance(fr, list) and len(fr) == 3 and abs(sum(fr) - 1) < 1e-9
                and all(f > 0 for f in fr)):
            raise _fail(path, where, "split.fractions must be three positive numbers summing "
                        "to 1 (train, validation, test)")
    if task in ("classification", "probing") and "splits" not in entry and "split" not in entry:
        raise _fail(path, where, f"{task} needs train/validation/test: give 'splits' or "
                    "'split: {fractions: [...]}'")
    _check_columns(out, path, where)
    return out


def _check_run(run: Any, path: Path) -> dict[str, Any]:
    """The ``run:`` mapping, each value checked for its type."""
    if run is None:
        return {}
    if not isinstance(run, Mapping):
        raise _fail(path, "run", f"must be a mapping of {list(RUN_OPTIONS)}, got {run!r}")
    unknown = sorted(set(run) - set(RUN_OPTIONS))
    if unknown:
        raise _fail(path, "run", f"unknown setting(s) {unknown}; known: {list(RUN_OPTIONS)}")
    out = dict(run)
    if "trust_remote_code" in out and not isinstance(out["trust_remote_code"], bool):
        raise _fail(path, "run: trust_remote_code", f"must be true or false, got "
                    f"{out['trust_remote_code']!r}")
    if "preset" in out and out["preset"] not in ("benchmark", "fast"):
        raise _fail(path, "run: preset", f"must be 'benchmark' or 'fast', got {out['preset']!r}")
    if "device" in out and (not isinstance(out["device"], str) or not out["device"].strip()):
        raise _fail(path, "run: device", f"must be a device name such as 'cpu' or 'cuda', "
                    f"got {out['device']!r}")
    per_label = out.get("episodes_per_label", 1)
    if isinstance(per_label, bool) or not isinstance(per_label, int) or per_label < 1:
        raise _fail(path, "run: episodes_per_label", f"must be a positive integer, got "
                    f"{per_label!r}")
    sizes = out.get("episode_sizes", [1])
    if not isinstance(sizes, list) or not sizes or any(
            isinstance(s, bool) or not isinstance(s, int) or s == 0 or s < -1 for s in sizes):
        raise _fail(path, "run: episode_sizes", f"must be a list of positive integers (or "
                    f"-1: one episode per label), got {sizes!r}")
    return out


def load_suite(path: str | Path, *, register: bool = True) -> Suite:
    """Read, check and (by default) register the datasets of a suite file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "d.csv").write_text("text,label\\nHello.,a\\nHi!,b\\nHey.,a\\n")
    >>> _ = (folder / "s.yaml").write_text(
    ...     "name: tiny\\ndatasets:\\n  - {name: tiny-greetings, task: clustering,"
    ...     " source: {path: d.csv}}\\n")
    >>> load_suite(folder / "s.yaml").datasets
    ['tiny-greetings']
    """
    path = Path(path).resolve()
    data = _read_file(path)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SuiteError(f"{path}: missing top-level 'name'")
    entries = data.get("datasets")
    if not isinstance(entries, list) or not entries:
        raise SuiteError(f"{path}: 'datasets' must be a non-empty list")
    run = _check_run(data.get("run"), path)
    seen: set[str] = set()
    specs = []
    for i, raw in enumerate(entries):
        entry = _check_entry(raw, path, i, seen)
        specs.append(_spec(entry, name, path))
    if register:
        from .datasets import get_spec, list_datasets
        from .datasets import register as register_spec

        known = {n.lower(): n for n in list_datasets()}
        for spec in specs:
            other = known.get(spec.name.lower())
            if other is None:
                continue
            old = get_spec(other)
            if name not in old.suites:  # a re-read of this suite may replace its own
                owner = f"suite(s) {', '.join(old.suites)}" if old.suites else "register()"
                raise SuiteError(f"{path}: dataset {spec.name!r}: the name clashes with the "
                                 f"dataset {other!r} of {owner}; its records and results "
                                 "would replace that dataset's. Give the suite's dataset "
                                 "another name")
        for spec in specs:
            register_spec(spec, replace=True)
    return Suite(name, path, tuple(specs), run)


def _spec(entry: Mapping[str, Any], suite: str, path: Path) -> DatasetSpec:
    task = entry["task"]
    where = f"dataset {entry['name']!r}"
    build = _ndcg_records if task == "retrieval_ndcg" else _labelled_records

    def reader(spec: DatasetSpec, *, seed: int = 42, smoke: bool = False) -> Any:
        return build(entry, path, where, seed=seed, smoke=smoke)

    languages = entry.get("languages") or [entry.get("language", "en")]
    size = int(entry.get("episode_size", 1))  # types checked by _check_types
    per_label = int(entry.get("episodes_per_label", 1 if size == -1 else 10))
    sources = entry["source"].values() if task == "retrieval_ndcg" else [entry["source"]]
    urls = tuple((s["url"], s.get("sha256")) for s in sources if "url" in s)
    hub = next((s for s in sources if "hf" in s), None)
    return DatasetSpec(
        name=entry["name"],
        description=entry.get("description", f"{task} dataset of the suite {suite!r}"),
        languages=tuple(languages),
        source=Source(urls=urls, hf_path=hub["hf"] if hub else None,
                      hf_revision=hub.get("revision") if hub else None,
                      note=f"declared in {path.name}"),
        license=License(str(entry.get("license", "unknown"))),
        label=entry.get("label_meaning", "label"),
        tasks={task: TaskConfig((size,), per_label)},
        category="other",
        application="custom",
        citation=entry.get("citation", ""),
        reader=reader,
        reader_options={"entry": json.dumps(entry, sort_keys=True, default=str),
                        **({"remote_code": True} if any(s.get("remote_code") for s in sources)
                           else {})},
        offline=hub is None,
        suites=(suite,),
        main_metric=entry["main_metric"],
    )


_ASSET = "https://raw.githubusercontent.com/facebookresearch/asset/" \
    "9d659040d0d8942dbc4cd65cf357563b43fd9ab4/dataset/asset.test."
_ASSET_SHA256 = {
    "orig": "673ceb2672a37168a52040d75e16f9ffd1e3777b9f68e19207f2adf6542723f1",
    "simp.0": "66f36029d0c732eb92886021faefe531c6cfd0a32bdbe7ae4aa97fd45bd1b046",
    "simp.1": "d323ceb364abbe84c79b14b028aa1ff563cd94955fbab19049612548dbb0f83f",
    "simp.2": "786b55f8425ce4a993e98be5e2bea9ef87bf536b96dc13f7a57c4733fdb63e06",
    "simp.3": "e211c9e2ede1dfe315097132dbe4feda76b309bdc636a5394cb5d2664ba5bf52",
    "simp.4": "37be9cf0592c0f68d87848dc9c442fe62f344518c1993896c00788bf943b755d",
    "simp.5": "8485210573a3bd76116de8e978b227677c6c207111a4938729397c4e603dfa46",
    "simp.6": "f0cb3ab823d23203ea044f81bd7e67cc823db0632095e43b78a54a9891a0b0a8",
    "simp.7": "35cbb8b9964252a1470607634f19ad946c6bc2951b3e500eedd826baf12bd3c8",
    "simp.8": "047b6419590b88f93b435d3177bba1883dc9c0dc178676e48470b408236446f4",
    "simp.9": "3f5745e4f2743563b88ea4284ec35fa4ddb68d62de80b63ffb87751b998fe6b8",
}


def write_example_suite(directory: str | Path) -> Path:
    """Write the example suite (YAML + the ASSET tables it reads) into ``directory``.

    The ASSET tables are built from the public ASSET test files (fetched with their
    checksums, or read from ``$STEBKIT_MIRROR``): the 359 original sentences are the
    queries, their 3,590 crowd simplifications the corpus, and each simplification is
    relevant (grade 1) to its own original. Returns the suite file's path; pass it to
    :func:`load_suite` or ``stebkit run --suite``.
    """
    from importlib.resources import files

    from ._io import write_text
    from .sources import fetch

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    lines = {k: fetch(_ASSET + k, sha).read_text(encoding="utf-8").splitlines()
             for k, sha in _ASSET_SHA256.items()}
    n = len(lines["orig"])
    bad = [k for k, v in lines.items() if len(v) != n]
    if bad:
        raise ValueError(f"ASSET files {bad} are not line-aligned with asset.test.orig")
    queries = [json.dumps({"id": f"q{i}", "text": t}) for i, t in enumerate(lines["orig"])]
    corpus, qrels = [], ["query_id\tdoc_id\trelevance"]
    for k in range(10):
        for i, t in enumerate(lines[f"simp.{k}"]):
            corpus.append(json.dumps({"id": f"q{i}-s{k}", "text": t}))
            qrels.append(f"q{i}\tq{i}-s{k}\t1")
    write_text(folder / "asset_queries.jsonl", "\n".join(queries) + "\n")
    write_text(folder / "asset_corpus.jsonl", "\n".join(corpus) + "\n")
    write_text(folder / "asset_qrels.tsv", "\n".join(qrels) + "\n")
    suite = folder / "example_suite.yaml"
    write_text(suite, files("stebkit.data").joinpath("example_suite.yaml").read_text())
    return suite
