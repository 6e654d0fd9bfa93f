"""The dataset registry, the loader and its processed-records cache.

Specs come from the catalogue (suite ``"steb"``), the offline ``lite`` suite
(:mod:`stebkit.datasets.lite` and its probing sets, :mod:`stebkit.datasets.probing_sets`)
and the ``synthetic`` suite (:mod:`stebkit.datasets.synthetic`), each module's
``SPECS`` imported on first use, plus anything passed to :func:`register`.

:func:`load_dataset` calls ``spec.reader(spec, seed=seed, smoke=smoke)``, checks the
records against the schema of :mod:`stebkit.datasets.spec` (:func:`validate_records`)
and keeps them as a parquet file in the store (:mod:`stebkit.store`,
``$STEBKIT_CACHE/processed``), keyed by the dataset's name and fingerprint, so a second
load reads one parquet file and never touches the sources again. The file is named by its
sha256, checked on every read: a file that changed, cannot be read or is not this user's
own is moved aside and rebuilt from the sources, with a warning saying so.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataUnavailable, warn
from ..names import file_name
from ..sources import local_path, locate
from ..store import Store, store_of
from .hub import (
    check_remote_code,
    collecting_commits,
    dataset_commits,
    keeps_blank_texts,
    record_dataset_commits,
    resolved_revision,
    trusting_remote_code,
)
from .readers.text import DroppedRowsWarning, is_absent, is_blank
from .spec import (
    BOOL_COLUMNS,
    RECORD_COLUMNS,
    SIDES,
    SPLITS,
    STRING_COLUMNS,
    Dataset,
    DatasetSpec,
)

__all__ = ["fingerprint", "get_spec", "is_available_offline", "list_datasets",
           "load_dataset", "processed_path", "register", "table", "validate_records"]

_SUITE_MODULES = ("stebkit.datasets.catalogue", "stebkit.datasets.lite",
                  "stebkit.datasets.probing_sets", "stebkit.datasets.synthetic")
_REGISTRY: dict[str, DatasetSpec] = {}
_state = {"loaded": False, "loading": False}

SUITES = ("lite", "smoke", "synthetic", "steb")
"""The built-in suites (a suite may be empty until its module is installed); their names
are the command line's ``--suite`` choices and may not name a suite file's suite."""


def _ensure_loaded() -> None:
    if _state["loaded"] or _state["loading"]:
        return
    _state["loading"] = True
    try:
        for module_name in _SUITE_MODULES:
            try:
                module = importlib.import_module(module_name)
            except ImportError as exc:  # a suite not written yet, never a broken one
                if exc.name == module_name:
                    continue
                raise
            for spec in module.SPECS:
                _add(spec, replace=False)
        _state["loaded"] = True
    finally:
        _state["loading"] = False


def _add(spec: DatasetSpec, *, replace: bool) -> None:
    from stebkit._io import name_skeleton

    if not isinstance(spec, DatasetSpec):
        raise TypeError(f"register() takes a DatasetSpec, got {type(spec).__name__}")
    old = _REGISTRY.get(spec.name)
    if old is not None and not replace and old is not spec and old != spec:
        raise ValueError(f"a different dataset named {spec.name!r} is already registered "
                         f"(suites {old.suites}); pick another name or pass replace=True")
    skeleton = name_skeleton(spec.name)
    twin = _SKELETONS.get(skeleton)
    if twin is not None and twin != spec.name and twin in _REGISTRY:
        raise ValueError(f"dataset name {spec.name!r} looks like the registered dataset "
                         f"{twin!r} ({ascii(spec.name)}: it differs only in case, "
                         "look-alike or invisible characters) and would be shown like it; "
                         "pick a name that looks different")
    _REGISTRY[spec.name] = spec
    _SKELETONS[skeleton] = spec.name


_SKELETONS: dict[str, str] = {}
""":func:`stebkit._io.name_skeleton` of each registered name -> the name."""


def register(spec: DatasetSpec, *, replace: bool = False) -> DatasetSpec:
    """Add a dataset to the registry (and return it).

    Registering the same spec twice is harmless; a different spec under a known name
    raises ``ValueError`` unless ``replace=True``.

    >>> from stebkit.datasets.spec import License, Source, TaskConfig
    >>> spec = DatasetSpec(name="doc_toy", description="toy", languages=("en",),
    ...     source=Source(), license=License("CC0-1.0"), label="author",
    ...     tasks={"clustering": TaskConfig()}, category="idiolect",
    ...     application="authorship_attribution")
    >>> register(spec).name in list_datasets()
    True
    """
    _ensure_loaded()
    _add(spec, replace=replace)
    return spec


def registered(name: str) -> DatasetSpec | None:
    """The spec registered under ``name`` in this process, or None (a suite's dataset
    whose suite is not loaded here, a spec passed to a run without registering it).

    >>> registered("ag_news").name, registered("not-a-dataset") is None
    ('ag_news', True)
    """
    _ensure_loaded()
    return _REGISTRY.get(name) if isinstance(name, str) else None


def get_spec(name: str) -> DatasetSpec:
    """The spec of a registered dataset; unknown names list the closest known ones.

    >>> get_spec("ag_news").source.hf_path
    'ag_news'
    >>> get_spec("ag_nws")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown dataset 'ag_nws'; closest known names: ['ag_news']...
    """
    if isinstance(name, DatasetSpec):
        return name
    if not isinstance(name, str):
        raise TypeError(f"dataset name must be a str, got {type(name).__name__}")
    _ensure_loaded()
    if name in _REGISTRY:
        return _REGISTRY[name]
    lowered = {n.lower(): n for n in _REGISTRY}
    if name.lower() in lowered:
        return _REGISTRY[lowered[name.lower()]]
    close = difflib.get_close_matches(name.lower(), list(lowered), n=5, cutoff=0.5)
    raise ValueError(f"unknown dataset {name!r}; closest known names: "
                     f"{[lowered[c] for c in close]}; `stebkit datasets` lists them all "
                     "(Python: stebkit.list_datasets())")


def is_available_offline(spec: DatasetSpec) -> bool:
    """Whether ``spec`` loads without network: every source file is in the cache or a
    mirror (checked with :func:`stebkit.sources.locate`) and, for data available only
    under an agreement, its local folder is set (``stebkit datasets --add-local``).

    Only specs declared ``offline`` qualify; Hub datasets never do."""
    src = spec.source
    if not spec.offline or src.is_hub:
        return False
    if src.local is not None:
        found = local_path(src.local)
        if found is None or not found.exists():
            return False
    return all(locate(url) is not None for url, _ in src.urls)


def list_datasets(*, suite: str | None = None, task: str | None = None,
                  offline: bool | None = None) -> list[str]:
    """Names of registered datasets, sorted, optionally filtered.

    Parameters
    ----------
    suite : str, optional
        Keep datasets of this suite (``"steb"``, ``"lite"``, ``"smoke"``, ...).
    task : str, optional
        Keep datasets evaluated on this task family (a key of ``stebkit.tasks.FAMILIES``).
    offline : bool, optional
        True: only datasets loadable without network; False: only the others.

    Examples
    --------
    >>> "ag_news" in list_datasets(suite="steb", task="clustering")
    True
    """
    _ensure_loaded()
    specs = sorted(_REGISTRY.values(), key=lambda s: s.name)
    known_tasks = list(dict.fromkeys([*RECORD_COLUMNS, *(t for s in specs for t in s.tasks)]))
    if task is not None and task not in known_tasks:
        raise ValueError(f"task must be one of {known_tasks}, got {task!r}")
    if suite is not None:
        known = sorted(set(SUITES).union(*(spec.suites for spec in specs)))
        if suite not in known:
            raise ValueError(f"unknown suite {suite!r}; known suites: {known}")
        specs = [s for s in specs if suite in s.suites]
    if task is not None:
        specs = [s for s in specs if s.serves(task)]
    if offline is not None:
        specs = [s for s in specs if is_available_offline(s) == offline]
    return [s.name for s in specs]


def fingerprint(spec: DatasetSpec, *, seed: int = 42, smoke: bool = False) -> str:
    """sha256 (hex) of what determines the records: name, reader version and options,
    sources (URLs with their sha256, Hub path/config/revision/split, and the Hub commits
    the last load of the dataset read), seed and smoke.

    >>> spec = get_spec("ag_news")
    >>> fingerprint(spec, seed=1) != fingerprint(spec, seed=2)
    True
    """
    src = spec.source
    payload = {
        "name": spec.name,
        "reader_version": spec.reader_version,
        "reader_options": dict(spec.reader_options),
        "urls": [list(u) for u in src.urls],
        "hub": [src.hf_path, src.hf_name, src.hf_revision, src.hf_split],
        "seed": int(seed),
        "smoke": bool(smoke),
    }
    if src.is_hub:
        payload["hub_commit"] = resolved_revision(src.hf_path, src.hf_revision)
    commits = dataset_commits(spec.name)
    if commits:  # every Hub commit the reader loaded last time
        payload["hub_commits"] = commits
    blob = json.dumps(payload, sort_keys=True, default=repr).encode()
    return hashlib.sha256(blob).hexdigest()


def _processed_store() -> Store:
    return store_of("processed")


def _processed_folder(store: Store, spec: DatasetSpec, fp: str) -> Path:
    """The store folder of the processed records of ``spec`` with fingerprint ``fp``."""
    return store.folder(spec.name, fp, label=file_name(spec.name))


def processed_path(spec: DatasetSpec, fp: str) -> Path | None:
    """The stored file of the processed records of ``spec`` with fingerprint ``fp``
    (always inside ``$STEBKIT_CACHE/processed``, whatever the name), or None; named by its
    sha256, which :func:`load_dataset` checks before it reads them."""
    store = _processed_store()
    return next(iter(store.entries(_processed_folder(store, spec, fp), ".parquet")), None)


def _read_processed(spec: DatasetSpec, fp: str) -> pd.DataFrame | None:
    """The processed records of ``spec`` if the store holds them and they check out; None
    (the store warns, saying why) when they must be rebuilt."""
    import io

    store = _processed_store()
    found = store.first(_processed_folder(store, spec, fp), ".parquet")
    if found is None:
        return None
    try:
        return pd.read_parquet(io.BytesIO(found[1]))
    except Exception as err:  # a corrupt file: rebuilt, never trusted
        store.reject(found[0], f"unreadable ({type(err).__name__}: {str(err)[:200]})")
        return None


def load_dataset(name: str | DatasetSpec, *, seed: int = 42, smoke: bool = False,
                 cache: bool = True, trust_remote_code: bool = False) -> Dataset:
    """Load a dataset's records (validated), from the processed cache when possible.

    Parameters
    ----------
    name : str or DatasetSpec
        A registered name (see :func:`list_datasets`) or a spec.
    seed : int
        Seed of every sampling step of the reader.
    smoke : bool
        Ask the reader for a small version (for quick checks and tests).
    cache : bool
        Read and write the processed cache (``$STEBKIT_CACHE/processed``).
    trust_remote_code : bool, default False
        Allow datasets whose loading runs code from their repository (``blog_age``,
        ``blog_gender``, ``reuters21578``: Hub loading scripts). Review that code first.

    Raises
    ------
    DataUnavailable
        The sources cannot be reached, or stebkit has no reader for this dataset.
    RemoteCodeRefused
        The dataset runs remote code and ``trust_remote_code`` is False.

    Examples
    --------
    >>> from stebkit.datasets.spec import License, Source, TaskConfig
    >>> spec = DatasetSpec(name="doc_tiny", description="tiny", languages=("en",),
    ...     source=Source(), license=License("CC0-1.0"), label="author",
    ...     tasks={"clustering": TaskConfig()}, category="idiolect",
    ...     application="authorship_attribution",
    ...     reader=lambda spec, seed, smoke: pd.DataFrame(
    ...         {"text": ["a b", "c d"], "label": ["x", "y"]}))
    >>> load_dataset(spec, cache=False)
    Dataset('doc_tiny', 2 texts, 2 labels, tasks=['clustering'])
    """
    spec = get_spec(name)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise TypeError(f"seed must be a non-negative int, got {seed!r}")
    check_remote_code(spec, trust_remote_code)
    fp = fingerprint(spec, seed=seed, smoke=smoke)
    cached = _read_processed(spec, fp) if cache else None
    if cached is not None:
        return Dataset(spec, cached, fp)
    if spec.reader is None:
        where = spec.source.note or spec.source.hf_path or "its original distribution"
        raise DataUnavailable(
            f"dataset {spec.name!r} has no reader in stebkit: its data comes from {where} "
            f"under '{spec.license.name}'"
            + (f" (needs: {spec.license.needs_agreement})" if spec.license.needs_agreement
               else "")
            + ". Use an offline dataset instead: stebkit.datasets.list_datasets(offline=True)."
        )
    with trusting_remote_code(trust_remote_code), collecting_commits() as loads:
        raw = spec.reader(spec, seed=seed, smoke=smoke)
    records = validate_records(raw, spec)
    if loads:  # the Hub commits read enter the fingerprint
        record_dataset_commits(spec.name, loads)
        fp = fingerprint(spec, seed=seed, smoke=smoke)
    if cache:
        _write_parquet(records, spec, fp)
    return Dataset(spec, records, fp)


def _write_parquet(records: pd.DataFrame, spec: DatasetSpec, fp: str) -> None:
    import io

    buffer = io.BytesIO()
    records.to_parquet(buffer, index=False, engine="pyarrow")
    store = _processed_store()
    store.put(_processed_folder(store, spec, fp), buffer.getvalue(), ".parquet")


def validate_records(records: Any, spec: DatasetSpec) -> pd.DataFrame:
    """Check a reader's records against the schema; return them cleaned.

    Required: ``text`` and ``label`` (str), plus the columns of the tasks the spec
    serves (``pair``/``same`` for predefined pairs, ``side`` for retrieval,
    ``group``/``position`` for order alignment, ``split`` for probing).
    The one filter: rows whose text is missing or blank are dropped (with the other
    row of their pair, for predefined pairs) and counted in a ``DroppedRowsWarning``;
    blank texts stay where the reader keeps them as the reference does
    (:func:`~stebkit.datasets.hub.keeps_blank_texts`).
    Everything else that is wrong raises ``TypeError``/``ValueError`` naming the dataset
    and column.

    >>> from stebkit.datasets.spec import License, Source, TaskConfig
    >>> spec = DatasetSpec(name="v", description="", languages=("en",), source=Source(),
    ...     license=License("CC0-1.0"), label="author", tasks={"retrieval": TaskConfig()},
    ...     category="idiolect", application="authorship_retrieval")
    >>> validate_records(pd.DataFrame({"text": ["a"], "label": ["x"]}), spec)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: dataset 'v': records lack column(s) ['side'] needed by task 'retrieval' ...
    """
    name = spec.name
    _check_columns(records, spec)
    frame = _without_empty_texts(records.reset_index(drop=True), spec)
    if frame.empty:
        raise ValueError(f"dataset {name!r}: the reader returned no usable records")
    _check_types(frame, name)
    _check_values(frame, "side", SIDES, name)
    _check_values(frame, "split", SPLITS, name)
    _check_task_rows(frame, spec)
    # one dtype per column, so fresh and cached records are identical
    frame = frame.astype({c: "str" for c in STRING_COLUMNS if c in frame.columns})
    if "position" in frame.columns:
        frame["position"] = frame["position"].astype("int64")
    return frame


def _check_columns(records: Any, spec: DatasetSpec) -> None:
    """Raise unless ``records`` is a DataFrame with ``text``, ``label`` and the columns of
    the tasks the spec serves."""
    name = spec.name
    if not isinstance(records, pd.DataFrame):
        raise TypeError(f"dataset {name!r}: the reader must return a pandas DataFrame, "
                        f"got {type(records).__name__}")
    for column in ("text", "label"):
        if column not in records.columns:
            raise ValueError(f"dataset {name!r}: records lack the required column "
                             f"{column!r}; columns are {list(records.columns)}")
    for task in spec.tasks:
        missing = [c for c in RECORD_COLUMNS.get(task, ()) if c not in records.columns]
        if missing:
            raise ValueError(f"dataset {name!r}: records lack column(s) {missing} needed by "
                             f"task {task!r} (see stebkit.datasets.spec for the schema)")


def _without_empty_texts(frame: pd.DataFrame, spec: DatasetSpec) -> pd.DataFrame:
    """``frame`` less its rows with a missing or blank text (and their pair partners), with
    a ``DroppedRowsWarning`` counting them; raise on a text that is not a str."""
    name = spec.name
    empty = frame["text"].map(is_absent if keeps_blank_texts(spec)
                              else is_blank).to_numpy()
    wrong = [i for i, v in enumerate(frame["text"]) if not empty[i] and not isinstance(v, str)]
    if wrong:
        raise TypeError(f"dataset {name!r}: column 'text' must hold str, row {wrong[0]} holds "
                        f"{type(frame['text'].iat[wrong[0]]).__name__} ({len(wrong)} such rows)")
    if empty.any():
        n_empty, dropped = int(empty.sum()), empty.copy()
        extra = ""
        if "pair" in frame.columns and spec.serves("predefined_pairs"):
            dropped = frame["pair"].isin(set(frame.loc[empty, "pair"])).to_numpy()
            extra = f" and {int(dropped.sum()) - n_empty} partner(s) of their pairs"
        warn(f"dataset {name!r}: dropped {n_empty} of {len(frame)} rows with an empty "
             f"text{extra}", DroppedRowsWarning)
        frame = frame[~dropped].reset_index(drop=True)
    return frame


def _check_types(frame: pd.DataFrame, name: str) -> None:
    """Raise unless the string, bool and ``position`` columns hold their types."""
    for column in STRING_COLUMNS:
        if column in frame.columns:
            _check_str(frame, column, name)
    for column in BOOL_COLUMNS:
        if column in frame.columns and not pd.api.types.is_bool_dtype(frame[column]):
            raise TypeError(f"dataset {name!r}: column {column!r} must be bool, got dtype "
                            f"{frame[column].dtype}")
    if "position" in frame.columns:
        pos = frame["position"]
        if not pd.api.types.is_integer_dtype(pos) or (pos < 0).any():
            raise TypeError(f"dataset {name!r}: column 'position' must hold ints >= 0, "
                            f"got dtype {pos.dtype}")


def _check_task_rows(frame: pd.DataFrame, spec: DatasetSpec) -> None:
    """Raise unless retrieval has both sides and every predefined pair two rows that agree."""
    name = spec.name
    if spec.serves("retrieval") and set(frame["side"]) != set(SIDES):
        raise ValueError(f"dataset {name!r}: retrieval needs both 'query' and 'target' rows, "
                         f"got {sorted(set(frame['side']))}")
    if spec.serves("predefined_pairs"):
        sizes = frame.groupby("pair", sort=True)["same"].agg(["size", "nunique"])
        bad = sizes[(sizes["size"] != 2) | (sizes["nunique"] != 1)]
        if len(bad):
            raise ValueError(f"dataset {name!r}: every pair id needs exactly 2 rows with the "
                             f"same 'same' value; {len(bad)} pair(s) do not, e.g. "
                             f"{list(bad.index[:3])}")

def _check_str(frame: pd.DataFrame, column: str, name: str) -> None:
    values = frame[column]
    bad = [i for i, v in enumerate(values) if not isinstance(v, str)]
    if bad:
        first = values.iat[bad[0]]
        raise TypeError(f"dataset {name!r}: column {column!r} must hold str (no missing "
                        f"values), row {bad[0]} holds {type(first).__name__} {first} "
                        f"({len(bad)} such rows); convert it in the reader")


def _check_values(frame: pd.DataFrame, column: str, allowed: tuple[str, ...],
                  name: str) -> None:
    if column in frame.columns:
        unknown = sorted(set(frame[column]) - set(allowed))
        if unknown:
            raise ValueError(f"dataset {name!r}: column {column!r} must be one of "
                             f"{allowed}, got {unknown[:5]}")


def table(*, suite: str | None = None, stats: bool = False) -> pd.DataFrame:
    """One row per dataset: tasks, languages, category, licence flags, availability and
    ``status`` (:attr:`~stebkit.datasets.spec.DatasetSpec.status`: whether the reader is
    tested on the real files, on a constructed file of the same layout, and whether the
    data needs an agreement).

    With ``stats=True``, datasets that load without network (or are already in the
    processed cache) also get ``texts``, ``labels`` and ``median_chars``; others get
    missing values. Without it the table only reads specs and stats a few files.

    >>> t = table(suite="steb")
    >>> t.loc[t["name"] == "ag_news", ["category", "non_commercial"]].values.tolist()
    [['semantic_control', True]]
    """
    rows = []
    for spec_name in list_datasets(suite=suite):
        spec = _REGISTRY[spec_name]
        offline = is_available_offline(spec)
        row = {
            "name": spec.name, "suites": ",".join(spec.suites), "tasks": ",".join(spec.tasks),
            "languages": ",".join(spec.languages), "category": spec.category,
            "application": spec.application, "license": spec.license.name,
            "non_commercial": spec.license.non_commercial,
            "research_only": spec.license.research_only,
            "needs_agreement": spec.license.needs_agreement or "", "offline": offline,
            "status": spec.status,
        }
        if stats:
            cached = processed_path(spec, fingerprint(spec)) is not None
            row.update(texts=pd.NA, labels=pd.NA, median_chars=pd.NA)
            if offline or cached:
                frame = load_dataset(spec).frame
                row.update(texts=len(frame), labels=int(frame["label"].nunique()),
                           median_chars=float(frame["text"].str.len().median()))
        rows.append(row)
    return pd.DataFrame(rows)
