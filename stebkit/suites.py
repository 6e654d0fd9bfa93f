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
                                       #  remote_code: true; it needs --trust-remote-code)
        columns: {text: Request, label: Community, split: split}
        splits: {train: train, validation: dev, test: test}  # values of the split column
        # or make a seeded, stratified split when the file has none:
        # split: {fractions: [0.6, 0.2, 0.2], seed: 42}
        min_per_label: 10              # optional documented filter (counts are reported)

Run settings may sit beside the datasets, in a ``run:`` mapping; the command line's
options override them::

    run:
      trust_remote_code: false         # true: the suite needs models/datasets that run
                                       #   repository code (granted by --trust-remote-code)
      preset: benchmark                # the reference's presets: benchmark or fast
      episode_sizes: [1, 2, 5]         # texts per episode (a list of positive ints or -1)
      episodes_per_label: 50           # episodes sampled per label
      device: cpu                      # cpu, cuda, cuda:1, mps
      executor: {kind: slurm, partition: gpu, gpus_per_job: 1}  # or local, sequential

A suite file is data from elsewhere: what would run code on its reader's behalf only
runs when the reader grants it (:data:`GRANTS`). ``trust_remote_code: true`` and a source's
``remote_code: true`` need ``--trust-remote-code``; the executor's ``setup`` lines (shell
commands run before each SLURM job) need ``--allow-setup``, its ``extra`` sbatch options
``--allow-sbatch-extra``. In Python, :meth:`Suite.granted_run` takes the same grants and
returns the settings to pass to :func:`stebkit.evaluate`; otherwise the refusal names the
suite file's line that asks.

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
from ._suitefile import KeyLines, Keys, SuiteError, read_suite_file, unknown_keys
from .datasets.spec import SPLITS, DatasetSpec, License, Source, TaskConfig
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


RUN_OPTIONS = ("trust_remote_code", "preset", "episode_sizes", "episodes_per_label", "device",
               "executor")
"""Keys of a suite file's ``run:`` mapping (the command line's options of the same name)."""

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


@dataclass(frozen=True)
class Suite:
    """A loaded suite: its name, the file it came from and its registered datasets."""

    name: str
    path: Path
    specs: tuple[DatasetSpec, ...]
    run: Mapping[str, Any] = field(default_factory=dict)
    """The file's checked ``run:`` settings (keys of :data:`RUN_OPTIONS`), as written:
    apply them through :meth:`granted_run`."""
    requests: tuple[Request, ...] = ()
    """The file's lines that ask for a grant (:data:`GRANTS`)."""

    @property
    def datasets(self) -> list[str]:
        """The registered dataset names, in file order."""
        return [s.name for s in self.specs]

    def granted_run(self, *, trust_remote_code: bool = False, allow_setup: bool = False,
                    allow_sbatch_extra: bool = False) -> dict[str, Any]:
        """The ``run:`` settings, once every line that asks for a grant has it.

        ``trust_remote_code`` grants ``run: {trust_remote_code: true}`` and the sources
        with ``remote_code: true``; ``allow_setup`` the executor's ``setup`` lines (shell
        commands run before each SLURM job); ``allow_sbatch_extra`` its ``extra`` sbatch
        options.

        Raises
        ------
        SuiteError
            One line per ungranted request: the file, line and setting, and the grant.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "d.csv").write_text("text,label\\nHello.,a\\nHi!,b\\n")
        >>> _ = (folder / "s.yaml").write_text(
        ...     "name: slurm-suite\\nrun:\\n  executor: {kind: slurm, setup: [module load cuda]}"
        ...     "\\ndatasets:\\n  - {name: slurm-greetings, task: clustering,"
        ...     " source: {path: d.csv}}\\n")
        >>> suite = load_suite(folder / "s.yaml", register=False)
        >>> suite.granted_run()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        stebkit._suitefile.SuiteError: ...s.yaml: line 3: run: executor: setup: ...
        >>> suite.granted_run(allow_setup=True)["executor"]["setup"]
        ['module load cuda']
        """
        granted = {"trust_remote_code": trust_remote_code, "allow_setup": allow_setup,
                   "allow_sbatch_extra": allow_sbatch_extra}
        refused = [r.message for r in self.requests if not granted[r.grant]]
        if refused:
            raise SuiteError("\n".join(refused))
        return dict(self.run)


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
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
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
    if "remote_code" in source and ("hf" not in source
                                    or not isinstance(source["remote_code"], bool)):
        raise doc.fail(where, "remote_code (true or false) applies to 'hf' sources only", keys)
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
        if "url" in source and fmt in ("csv", "tsv", "jsonl"):
            _text_columns(file, fmt)  # a local file's text was checked by load_suite
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


_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")


def _typed_columns(frame: Any, path: Path, where: str) -> None:
    """``same`` as booleans and ``position`` as integers, read from text where the table
    holds text (CSV, TSV); a value that is neither is named with its row."""
    import pandas as pd

    if "same" in frame.columns and not pd.api.types.is_bool_dtype(frame["same"]):
        words = frame["same"].map(lambda v: str(v).strip().lower())
        bad = ~words.isin(_TRUE + _FALSE)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise _fail(path, where, f"column 'same' must hold true or false, row {row + 1} "
                        f"of the table holds {frame['same'].iloc[row]!r}")
        frame["same"] = words.isin(_TRUE)
    if "position" in frame.columns and not pd.api.types.is_integer_dtype(frame["position"]):
        numbers = pd.to_numeric(frame["position"], errors="coerce")
        bad = numbers.isna() | (numbers < 0) | (numbers % 1 != 0)
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0])
            raise _fail(path, where, f"column 'position' must hold integers >= 0, row "
                        f"{row + 1} of the table holds {frame['position'].iloc[row]!r}")
        frame["position"] = numbers.astype("int64")


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
    columns = dict(entry.get("columns") or {})
    frame = _rename(_read_table(entry["source"]), columns, path, where, _record_fields(entry))
    frame["text"] = frame["text"].astype(str)
    frame["label"] = frame["label"].astype(str)
    _typed_columns(frame, path, where)
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


class _TableError(ValueError):
    """A text table is malformed; the message starts with the line at fault."""


def _text_columns(file: Path, fmt: str) -> list[str]:
    """The columns of a CSV, TSV or JSONL file, read whole and strictly: a quote left open
    (which would swallow the rows after it), a row with another number of fields than
    the header, or a JSONL line that is not a JSON object raises :class:`_TableError`
    naming the line (and ``UnicodeDecodeError`` for text that is not UTF-8)."""
    import csv

    with open(file, encoding="utf-8-sig", newline="") as fh:  # a BOM is no column name
        if fmt == "jsonl":
            columns: list[str] | None = None
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError as err:
                    raise _TableError(f"line {number}: not JSON ({err})") from None
                if not isinstance(row, dict):
                    raise _TableError(f"line {number}: a JSONL line must be an object "
                                      f"{{\"column\": value, ...}}, got {type(row).__name__}")
                columns = [str(c) for c in row] if columns is None else columns
            return columns or []
        sep = "," if fmt == "csv" else "\t"
        reader = csv.reader(fh, delimiter=sep, strict=True)
        header: list[str] | None = None
        end = 0
        while True:
            start = end + 1
            try:
                row = next(reader, None)
            except csv.Error as err:
                raise _TableError(_quote_problem(str(err), start, reader.line_num,
                                                 sep)) from None
            end = reader.line_num
            if row is None:
                break
            if not row:
                continue
            if header is None:
                header = row
            elif len(row) != len(header):
                raise _TableError(f"line {start}: {len(row)} field(s), the header has "
                                  f"{len(header)}; quote a text holding {sep!r} (or fill "
                                  "the missing fields)")
    if header is None:
        raise _TableError("line 1: the file is empty; it needs a header line")
    return header


def _quote_problem(error: str, start: int, end: int, sep: str) -> str:
    if "unexpected end of data" in error:
        return (f"line {start}: a quote opened on this line is never closed, so every "
                "line after it would become part of one text; close it (a quote inside a "
                "quoted text is written twice: \"\")")
    lines = f"lines {start}-{end}" if end > start else f"line {start}"
    return (f"line {start}: a quoted text closes before {sep!r} or the line's end ({lines}: "
            f"{error}); a quote inside a quoted text is written twice (\"\")")


def _source_columns(source: Mapping[str, Any]) -> list[str] | None:
    """The column names of a local (or already downloaded) table, the whole file checked
    (:func:`_text_columns`); None when they cannot be known without a download."""
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
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return [str(c) for c in pq.read_schema(file).names]
    if fmt in ("csv", "tsv", "jsonl"):
        return _text_columns(file, fmt)
    import codecs  # JSON: all of it must decode

    decoder = codecs.getincrementaldecoder("utf-8")()
    with open(file, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            decoder.decode(block)
    decoder.decode(b"", final=True)
    return None


def _record_fields(entry: Mapping[str, Any]) -> tuple[str, ...]:
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
        checks = [("source", entry["source"], columns, _record_fields(entry))]
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
    if task not in SUITE_TASKS:
        raise doc.fail(where, f"unknown task {task!r}; choose one of {SUITE_TASKS}")
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
        if not isinstance(splits, Mapping) or not set(splits) <= {"train", "validation", "test"} \
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

    def bad(key: str, message: str) -> SuiteError:
        return doc.fail(f"run: {key}", message, (*keys, key))

    if "trust_remote_code" in out and not isinstance(out["trust_remote_code"], bool):
        raise bad("trust_remote_code", f"must be true or false, got "
                  f"{out['trust_remote_code']!r}")
    if out.get("trust_remote_code"):
        doc.ask("trust_remote_code", (*keys, "trust_remote_code"), "run: trust_remote_code",
                "true lets models and datasets run code from their repositories (and a "
                "local model folder's own code)")
    if "preset" in out and out["preset"] not in ("benchmark", "fast"):
        raise bad("preset", f"must be 'benchmark' or 'fast', got {out['preset']!r}")
    if "executor" in out:
        _check_executor(out["executor"], doc)
    if "device" in out and (not isinstance(out["device"], str) or not out["device"].strip()):
        raise bad("device", f"must be a device name such as 'cpu' or 'cuda', "
                  f"got {out['device']!r}")
    per_label = out.get("episodes_per_label", 1)
    if not _is_int(per_label) or per_label < 1:
        raise bad("episodes_per_label", f"must be a positive integer, got {per_label!r}")
    sizes = out.get("episode_sizes", [1])
    if not isinstance(sizes, list) or not sizes or any(
            not _is_int(s) or s == 0 or s < -1 for s in sizes):
        raise bad("episode_sizes", f"must be a list of positive integers (or -1: one "
                  f"episode per label), got {sizes!r}")
    return out


def _check_executor(value: Any, doc: _Doc) -> None:
    """``run: executor``: a valid :class:`~stebkit.executor_config.ExecutorConfig` (checked
    now, not when the run starts); its ``setup`` and ``extra`` ask for grants."""
    from .executor_config import executor_config

    keys: Keys = ("run", "executor")
    if not isinstance(value, (str, Mapping)):
        raise doc.fail("run: executor", f"must be sequential, local or slurm, or a mapping "
                       f"such as {{kind: slurm, partition: gpu, gpus_per_job: 1}} (see "
                       f"stebkit.executor_config.ExecutorConfig), got {value!r}", keys)
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


def _check_clashes(specs: list[DatasetSpec], suite: str, doc: _Doc) -> None:
    """A suite dataset may replace only a dataset that a suite file of the same name
    registered (a re-read of that suite), never a built-in or registered one."""
    from .datasets import get_spec, list_datasets

    known = {n.lower(): n for n in list_datasets()}
    for index, spec in enumerate(specs):
        other = known.get(spec.name.lower())
        if other is None:
            continue
        old = get_spec(other)
        if other in _REGISTERED_FROM and old.suites == (suite,):
            continue
        owner = f"suite(s) {', '.join(old.suites)}" if old.suites else "register()"
        raise doc.fail(f"dataset {spec.name!r}", f"the name clashes with the dataset "
                       f"{other!r} of {owner}; its records and results would replace that "
                       "dataset's. Give the suite's dataset another name",
                       ("datasets", index, "name"))


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
    from .datasets.registry import SUITES

    path = Path(path).resolve()
    data, lines = read_suite_file(path)
    doc = _Doc(path, lines)
    refusal = unknown_keys(data, TOP_KEYS)
    if refusal:
        raise doc.fail("top level", refusal)
    name = _check_name(data.get("name"), doc, "top level", (), "suite")
    if name in SUITES:
        raise doc.fail("name", f"{name!r} is the name of a built-in suite ({', '.join(SUITES)})"
                       "; give the suite another name", ("name",))
    entries = data.get("datasets")
    if not isinstance(entries, list) or not entries:
        raise doc.fail("datasets", "must be a non-empty list of datasets", ("datasets",))
    run = _check_run(data.get("run"), doc)
    seen: set[str] = set()
    specs = []
    for i, raw in enumerate(entries):
        entry = _check_entry(raw, doc, i, seen)
        specs.append(_spec(entry, name, path))
    _check_clashes(specs, name, doc)
    if register:
        from .datasets import register as register_spec

        for spec in specs:
            register_spec(FAMILIES.check_tasks(spec), replace=True)
            _REGISTERED_FROM[spec.name] = path
    return Suite(name, path, tuple(specs), run, tuple(doc.requests))


_REGISTERED_FROM: dict[str, Path] = {}


def suite_file(dataset: str) -> Path | None:
    """The suite file that registered ``dataset`` in this process, or None.

    Processes that run part of an evaluation (local workers, SLURM jobs) load these
    files again so that they know the same datasets.
    """
    return _REGISTERED_FROM.get(dataset)


def _spec(entry: Mapping[str, Any], suite: str, path: Path) -> DatasetSpec:
    task = entry["task"]
    where = f"dataset {entry['name']!r}"
    graded = FAMILIES[task].graded_relevance
    build = _ndcg_records if graded else _labelled_records

    def reader(spec: DatasetSpec, *, seed: int = 42, smoke: bool = False) -> Any:
        from .datasets.hub import check_remote_code, remote_code_trusted

        check_remote_code(spec, remote_code_trusted())  # also when called on its own
        return build(entry, path, where, seed=seed, smoke=smoke)

    languages = entry.get("languages") or [entry.get("language", "en")]
    size = int(entry.get("episode_size", 1))  # types checked by _check_types
    per_label = int(entry.get("episodes_per_label", 1 if size == -1 else 10))
    sources = entry["source"].values() if graded else [entry["source"]]
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
        tasks={task: TaskConfig(episode_sizes=(size,), episodes_per_label=per_label)},
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
