"""Datasets on the Hugging Face Hub, through the ``datasets`` library.

:func:`load_hub` resolves the revision to a commit, opens one split at that commit,
records the commit (:func:`resolved_revision`, part of the dataset fingerprint) and turns
every failure (library missing, offline mode, Hub unreachable, unknown config or split,
gated or broken dataset) into :class:`~stebkit.errors.DataUnavailable` naming the dataset
and revision.
:func:`read_hub` is the generic reader of catalogue entries stored on the Hub: what to
take from each row is declared as data in ``spec.reader_options`` and applied by
:func:`hub_records`:

``text``
    Column holding the text (default ``"text"``).
``label`` / ``label_value``
    Column holding the label (default ``"label"``), or one constant label.
``where`` / ``exclude``
    ``{column: [values]}``: keep only the rows with (``where``) or without
    (``exclude``) those values (a selection that defines the dataset, not a filter).
``label_map``
    ``{raw value: label}``: rename labels; rows whose raw label is not a key are left
    out (a selection, e.g. age ranges).
``parallel``
    ``[column, ...]``: each row is one parallel group for order alignment; the texts
    of the listed columns get positions 0, 1, ... (0 = most of the property). A list
    cell contributes its first element.
``max_per_label``
    Keep at most this many rows (groups) per label, sampled with the seed (default 500;
    ``None`` keeps all). ``smoke=True`` caps at 20.
``configs``
    ``[config name, ...]``: read this split of each config and concatenate them (for
    datasets published as one config per part); otherwise ``source.hf_name`` is used.
``blank_texts``
    ``"keep"`` (the default), ``"drop"`` or ``"drop_empty"``: what to do with rows whose
    text is empty or only whitespace. The reference keeps them (its row handler skips
    only a missing text), so they are kept and counted in the load report (a
    ``DroppedRowsWarning`` saying how many were kept); ``"drop"`` leaves them out,
    counted. ``"drop_empty"`` (``blog_age``, ``blog_gender``) is the reference's blog
    loader, which skips a falsy text: empty texts (``""``) are left out, counted, and
    whitespace-only ones kept, counted.
``remote_code``
    True for script-based datasets: loading runs code from the dataset's repository, so
    it happens only when the user opts in (``trust_remote_code=True`` to
    :func:`stebkit.datasets.load_dataset` or :func:`stebkit.evaluate`,
    ``--trust-remote-code`` on the command line; a suite file cannot opt in on its own);
    otherwise :class:`~stebkit.errors.RemoteCodeRefused` names the dataset.

List-valued labels use their first element; integer labels of a ``ClassLabel`` column
are turned into the class names. Rows with a missing text (None) or a missing or blank
label are dropped and counted in a ``DroppedRowsWarning``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._io import write_text
from ..errors import DataUnavailable, RemoteCodeRefused, warn
from ..sources import cache_dir, is_offline
from .readers.text import DroppedRowsWarning, is_absent, is_blank, report_dropped, report_kept

__all__ = ["BLANK_TEXTS", "blank_texts", "check_remote_code", "collecting_commits",
           "dataset_commits", "hub_configs", "hub_records", "keeps_blank_texts", "load_hub",
           "read_hub", "record_dataset_commits", "remote_code_trusted", "resolved_revision",
           "trusting_remote_code"]

DEFAULT_MAX_PER_LABEL = 500
SMOKE_PER_LABEL = 20
BLANK_TEXTS = ("keep", "drop", "drop_empty")
"""Values of the ``blank_texts`` reader option (the first is the default)."""
_TRUSTED: ContextVar[bool] = ContextVar("stebkit_trust_remote_code", default=False)


def check_remote_code(spec: Any, trust_remote_code: bool) -> None:
    """Refuse a dataset that runs code from its repository unless the user opted in.

    Raises
    ------
    RemoteCodeRefused
        Names the dataset, its repository and the three ways to opt in.

    Examples
    --------
    >>> from stebkit.datasets import get_spec
    >>> check_remote_code(get_spec("ag_news"), False)  # no loading script: nothing to do
    >>> try:
    ...     check_remote_code(get_spec("blog_age"), False)
    ... except RemoteCodeRefused as err:
    ...     print(str(err)[:64])
    dataset 'blog_age' runs code from its Hugging Face repository 'b
    """
    if not getattr(spec, "needs_remote_code", False) or trust_remote_code:
        return
    src = spec.source
    pinned = f"at revision {src.hf_revision!r}" if src.hf_revision else \
        "not pinned to a revision"
    raise RemoteCodeRefused(
        f"dataset {spec.name!r} runs code from its Hugging Face repository "
        f"{src.hf_path!r} (a loading script, {pinned}) when it is loaded. Review that code "
        "on the Hub, then opt in: --trust-remote-code (stebkit run) or trust_remote_code=True "
        "(stebkit.evaluate or stebkit.datasets.load_dataset)")


def remote_code_trusted() -> bool:
    """Whether the load under way opted into remote code (:func:`trusting_remote_code`).

    >>> with trusting_remote_code(True):
    ...     remote_code_trusted()
    True
    >>> remote_code_trusted()
    False
    """
    return _TRUSTED.get()


@contextmanager
def trusting_remote_code(allowed: bool) -> Iterator[None]:
    """Within the block, readers may run a dataset's remote code when ``allowed``."""
    token = _TRUSTED.set(bool(allowed))
    try:
        yield
    finally:
        _TRUSTED.reset(token)


def _describe(path: str, name: str | None, revision: str | None, split: str | None) -> str:
    config = f", config {name!r}" if name else ""
    rev = f"revision {revision!r}" if revision else "revision 'main' (not pinned)"
    part = f", split {split!r}" if split else ""
    return f"Hugging Face dataset {path!r}{config}{part} at {rev}"


def load_hub(path: str, *, name: str | None = None, revision: str | None = None,
             split: str | None = None, trust_remote_code: bool = False,
             streaming: bool = False) -> Any:
    """Load one split of a Hub dataset (a ``datasets.Dataset``).

    Parameters
    ----------
    path, name, revision, split
        As in ``datasets.load_dataset``; ``revision`` pins a commit or tag.
    trust_remote_code : bool
        Allow script-based datasets (only for catalogue entries that need it).
    streaming : bool
        Return an iterable dataset read as it streams (for corpora too large to
        download whole, of which a reader takes the first rows).

    The revision is first resolved to a commit sha (``huggingface_hub``), the split is
    loaded at that commit, and the sha is recorded (:func:`resolved_revision`).

    Raises
    ------
    DataUnavailable
        The ``datasets`` library is missing, offline mode is on, the Hub cannot be
        reached, or the load fails for another reason (unknown config or split, gated
        dataset, unreadable files); the message names the dataset and revision and how
        to fix it.

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"STEBKIT_OFFLINE": "1"}):
    ...     try:
    ...         load_hub("ag_news", split="test")
    ...     except DataUnavailable as err:
    ...         print("'ag_news'" in str(err), "offline mode is on" in str(err))
    True True
    """
    what = _describe(path, name, revision, split)
    datasets = _datasets_library(what)
    sha = _resolve(path, revision, what)
    kwargs: dict[str, Any] = {"path": path, "name": name, "revision": sha,
                              "split": split, "cache_dir": str(cache_dir() / "hub")}
    kwargs.update({flag: True for flag, on in (("trust_remote_code", trust_remote_code),
                                               ("streaming", streaming)) if on})
    try:
        loaded = datasets.load_dataset(**kwargs)
    except Exception as exc:  # network, missing config or split, bad files: all unavailable
        raise DataUnavailable(_failure(what, exc, sha)) from exc
    _loaded_at(path, revision, sha)
    return loaded


def _loaded_at(path: str, revision: str | None, sha: str) -> None:
    """Record the commit a load resolved to: in the revisions file, and in the list of a
    :func:`collecting_commits` block around the load."""
    _record_revision(path, revision, sha)
    collected = _COLLECTED.get()
    if collected is not None:
        collected.append(f"{_key(path, revision)}={sha}")


def _datasets_library(what: str) -> Any:
    """The ``datasets`` module, or ``DataUnavailable`` naming ``what`` when offline mode is
    on or the library is missing (both reasons when both hold)."""
    problems = []
    if is_offline():
        problems.append("offline mode is on (STEBKIT_OFFLINE or HF_HUB_OFFLINE is set), so "
                        "the Hub is not contacted; unset them on a machine that can reach "
                        "huggingface.co")
    try:
        import datasets
    except ImportError:
        datasets = None
        problems.append("the 'datasets' library, a dependency of stebkit, is missing "
                        "here: pip install datasets (or make setup)")
    if problems:
        raise DataUnavailable(f"{what} is unavailable: " + "; and ".join(problems) + ".")
    return datasets


def hub_configs(path: str, *, revision: str | None = None) -> list[str]:
    """The config names of a Hub dataset; failures raise ``DataUnavailable``.

    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"STEBKIT_OFFLINE": "1"}):
    ...     try:
    ...         hub_configs("ArmelR/the-pile-splitted")
    ...     except DataUnavailable as err:
    ...         print("'ArmelR/the-pile-splitted'" in str(err))
    True
    """
    what = _describe(path, None, revision, None)
    if is_offline():
        raise DataUnavailable(f"{what} is unavailable: offline mode is on (STEBKIT_OFFLINE "
                              f"or HF_HUB_OFFLINE is set); unset them on a machine that can "
                              f"reach huggingface.co.")
    try:
        import datasets

        return list(datasets.get_dataset_config_names(path, revision=revision))
    except ImportError:
        raise DataUnavailable(f"{what} is unavailable: the 'datasets' library, a dependency "
                              f"of stebkit, is missing here: pip install datasets (or make "
                              f"setup).") from None
    except Exception as exc:
        raise DataUnavailable(_failure(what, exc)) from exc


def _failure(what: str, exc: BaseException, sha: str | None = None) -> str:
    at = f" (resolved to commit {sha})" if sha else ""
    if "scripts are no longer supported" in str(exc):  # datasets >= 4 refuses them
        from importlib.metadata import version

        return (f"{what}{at} could not be loaded: it is built by a loading script, which "
                f"the installed datasets {version('datasets')} no longer runs (datasets 4.0 "
                f"dropped loading scripts; the reference runs them with datasets 3.6.0). "
                f"Load it in an environment with pip install 'datasets<4', or leave it out.")
    if isinstance(exc, (OSError, TimeoutError, ConnectionError)):
        why = "the Hub is unreachable or the dataset is missing"
        fix = "Go online, or choose an offline dataset"
    else:
        why = "the Hub refused it or its files could not be read"
        fix = ("Check the dataset, config and split names on huggingface.co (a gated dataset "
               "needs `huggingface-cli login`), or choose an offline dataset")
    return (f"{what}{at} could not be loaded: {why} ({type(exc).__name__}: {exc}). {fix} "
            f"(stebkit.datasets.list_datasets(offline=True)).")


def _resolve(path: str, revision: str | None, what: str) -> str:
    """The commit sha that ``revision`` (a branch, tag or sha; None = main) names now."""
    try:
        from huggingface_hub import HfApi

        info = HfApi().dataset_info(path, revision=revision)
    except Exception as exc:
        raise DataUnavailable(_failure(what, exc)) from exc
    sha = getattr(info, "sha", None)
    if not sha:
        raise DataUnavailable(f"{what}: the Hub gave no commit for this revision; pin "
                              f"hf_revision to a commit sha")
    return str(sha)


def _revisions_path() -> Path:
    return cache_dir() / "hub" / "revisions.json"


_COLLECTED: ContextVar[list[str] | None] = ContextVar("stebkit_hub_commits", default=None)


@contextmanager
def collecting_commits() -> Iterator[list[str]]:
    """Within the block, every :func:`load_hub` adds ``"<path>@<revision>=<commit>"`` to
    the yielded list (what a reader loaded, whatever Hub datasets it reads)."""
    loads: list[str] = []
    token = _COLLECTED.set(loads)
    try:
        yield loads
    finally:
        _COLLECTED.reset(token)


def _dataset_commits_path() -> Path:
    return cache_dir() / "hub" / "dataset_commits.json"


def record_dataset_commits(name: str, loads: Sequence[str]) -> None:
    """Remember the Hub commits the reader of dataset ``name`` loaded (see
    :func:`dataset_commits`)."""
    file = _dataset_commits_path()
    try:
        known = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
    except ValueError:
        known = {}
    commits = sorted(set(loads))
    if known.get(name) != commits:
        known[name] = commits
        write_text(file, json.dumps(known, indent=1, sort_keys=True) + "\n")


def dataset_commits(name: str) -> list[str] | None:
    """The Hub commits (``"<path>@<revision>=<commit>"``) the last load of dataset
    ``name`` read, or None; they enter the dataset fingerprint.

    >>> import os, tempfile
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"STEBKIT_CACHE": tempfile.mkdtemp()}):
    ...     record_dataset_commits("endive", ["a/boolq@main=c2", "a/copa@main=c1"])
    ...     dataset_commits("endive"), dataset_commits("other")
    (['a/boolq@main=c2', 'a/copa@main=c1'], None)
    """
    file = _dataset_commits_path()
    if not file.is_file():
        return None
    try:
        found = json.loads(file.read_text(encoding="utf-8")).get(name)
    except (ValueError, AttributeError):
        return None
    return list(found) if isinstance(found, list) else None


def _key(path: str, revision: str | None) -> str:
    return f"{path}@{revision or 'main'}"


def _record_revision(path: str, revision: str | None, sha: str) -> None:
    file = _revisions_path()
    try:
        known = json.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}
    except ValueError:
        known = {}
    if known.get(_key(path, revision)) != sha:
        known[_key(path, revision)] = sha
        write_text(file, json.dumps(known, indent=1, sort_keys=True) + "\n")


def resolved_revision(path: str, revision: str | None = None) -> str | None:
    """The commit sha a Hub load of ``path`` at ``revision`` last resolved to (or None).

    :func:`load_hub` records it in ``$STEBKIT_CACHE/hub/revisions.json``; it enters the
    dataset fingerprint (:func:`stebkit.datasets.fingerprint`), so records loaded from
    two commits of a Hub dataset are never mixed up.

    >>> import os, tempfile
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"STEBKIT_CACHE": tempfile.mkdtemp()}):
    ...     _record_revision("user/set", None, "abc123")
    ...     resolved_revision("user/set"), resolved_revision("user/set", "v2")
    ('abc123', None)
    """
    file = _revisions_path()
    if not file.is_file():
        return None
    try:
        return json.loads(file.read_text(encoding="utf-8")).get(_key(path, revision))
    except (ValueError, AttributeError):
        return None


def read_hub(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Generic reader of a catalogue entry stored on the Hub (runs only online).

    Loads ``spec.source`` through :func:`load_hub` and applies :func:`hub_records`
    with ``spec.reader_options``.
    """
    src = spec.source
    if not src.is_hub:
        raise ValueError(f"dataset {spec.name!r}: read_hub needs a Hub source (hf_path)")
    opts = dict(spec.reader_options)
    check_remote_code(spec, remote_code_trusted())
    frames, names = [], {}
    for config in opts.get("configs", [src.hf_name]):
        ds = load_hub(src.hf_path, name=config, revision=src.hf_revision,
                      split=src.hf_split or "train",
                      trust_remote_code=bool(spec.needs_remote_code))
        names.update({col: list(feat.names) for col, feat in ds.features.items()
                      if hasattr(feat, "names")})
        frames.append(ds.to_pandas())
    return hub_records(pd.concat(frames, ignore_index=True), opts, label_names=names,
                       seed=seed, smoke=smoke, dataset=spec.name)


def blank_texts(options: Mapping[str, Any], dataset: str = "dataset") -> str:
    """The ``blank_texts`` option of a Hub reader: ``"keep"`` unless set otherwise
    (:data:`BLANK_TEXTS`).

    >>> blank_texts({}), blank_texts({"blank_texts": "drop"})
    ('keep', 'drop')
    """
    value = options.get("blank_texts", BLANK_TEXTS[0])
    if value not in BLANK_TEXTS:
        raise ValueError(f"dataset {dataset!r}: reader option blank_texts={value!r} must be "
                         f"one of {BLANK_TEXTS}")
    return str(value)


def keeps_blank_texts(spec: Any) -> bool:
    """Whether the records of ``spec`` keep their whitespace-only texts: those of
    :func:`read_hub`, unless its ``blank_texts`` option is ``"drop"``.

    >>> from stebkit.datasets import get_spec
    >>> keeps_blank_texts(get_spec("emotion")), keeps_blank_texts(get_spec("ASSET"))
    (True, False)
    """
    return spec.reader is read_hub and blank_texts(spec.reader_options, spec.name) != "drop"


def _first(value: Any) -> Any:
    if isinstance(value, (list, tuple, np.ndarray)):
        return value[0] if len(value) else None
    return value


def hub_records(frame: pd.DataFrame, options: Mapping[str, Any], *,
                label_names: Mapping[str, Sequence[str]] | None = None, seed: int = 42,
                smoke: bool = False, dataset: str = "dataset") -> pd.DataFrame:
    """Turn the rows of a Hub table into records, as declared by ``options``.

    >>> rows = pd.DataFrame({"text": ["a", "b", "c"], "label": [0, 1, 0],
    ...                      "src": ["x", "x", "y"]})
    >>> hub_records(rows, {"where": {"src": ["x"]}},
    ...             label_names={"label": ["neg", "pos"]}).to_dict("list")
    {'text': ['a', 'b'], 'label': ['neg', 'pos']}
    >>> rows = pd.DataFrame({"pos": ["Hi!!", "Yo"], "neg": ["Hello.", "Good day."],
    ...                      "feature": ["emphatic", "casual"]})
    >>> hub_records(rows, {"parallel": ["pos", "neg"], "label": "feature"})[
    ...     ["text", "label", "group", "position"]].values.tolist()
    [['Hi!!', 'emphatic', '0', 0], ['Hello.', 'emphatic', '0', 1], ['Yo', 'casual', '1', 0], \
['Good day.', 'casual', '1', 1]]
    """
    frame, labels = _labelled_rows(_selected_rows(frame, options), options,
                                   dict(label_names or {}))
    text_cols = list(options.get("parallel", [options.get("text", "text")]))
    texts = pd.DataFrame({c: frame[c].map(_first) for c in text_cols})
    mode = blank_texts(options, dataset)
    keep_blank = mode != "drop"
    texts, labels = _usable_rows(texts, labels, mode, dataset)
    cap = SMOKE_PER_LABEL if smoke else options.get("max_per_label", DEFAULT_MAX_PER_LABEL)
    keep_rows = _cap_per_label(labels, cap, seed)
    texts, labels = texts.iloc[keep_rows].reset_index(drop=True), labels.iloc[keep_rows]
    labels = labels.reset_index(drop=True)
    if keep_blank:
        which = ("a whitespace-only text, as the reference's blog loader keeps them"
                 if mode == "drop_empty" else
                 "an empty or whitespace-only text, as the reference keeps them")
        report_kept(dataset, int(texts.map(is_blank).any(axis=1).sum()), len(texts),
                    f"rows with {which}; reader option blank_texts='drop' leaves them out")
    if "parallel" not in options:
        return pd.DataFrame({"text": texts.iloc[:, 0].astype(str), "label": labels})
    rows = [{"text": str(texts.iat[i, j]), "label": labels[i], "group": str(i),
             "position": j} for i in range(len(texts)) for j in range(len(text_cols))]
    out = pd.DataFrame(rows, columns=["text", "label", "group", "position"])
    return out.astype({"position": "int64"})


def _selected_rows(frame: pd.DataFrame, options: Mapping[str, Any]) -> pd.DataFrame:
    """The rows whose columns hold a value ``options["where"]`` allows and none that
    ``options["exclude"]`` bans."""
    frame = frame.reset_index(drop=True)
    for column, allowed in dict(options.get("where", {})).items():
        frame = frame[frame[column].isin(list(allowed))].reset_index(drop=True)
    for column, banned in dict(options.get("exclude", {})).items():
        frame = frame[~frame[column].isin(list(banned))].reset_index(drop=True)
    return frame


def _labelled_rows(frame: pd.DataFrame, options: Mapping[str, Any],
                   label_names: Mapping[str, Sequence[str]]) -> tuple[pd.DataFrame, pd.Series]:
    """The rows and their labels as str (None when blank): a fixed ``label_value`` or the
    label column (class ids named by ``label_names``), mapped by ``label_map`` (which
    keeps only the rows whose label it maps)."""
    if "label_value" in options:
        labels = pd.Series([options["label_value"]] * len(frame), dtype=object)
    else:
        column = options.get("label", "label")
        names = label_names.get(column)
        labels = frame[column].map(_first).map(
            lambda v: names[int(v)] if names is not None and not is_blank(v) else v)
    labels = labels.astype(object)
    if "label_map" in options:
        mapping = dict(options["label_map"])
        keep = labels.isin(list(mapping)).to_numpy()
        frame, labels = frame[keep].reset_index(drop=True), labels[keep].map(mapping)
    return frame, labels.map(lambda v: None if is_blank(v) else str(v)).reset_index(drop=True)


def _usable_rows(texts: pd.DataFrame, labels: pd.Series, mode: str, dataset: str
                 ) -> tuple[pd.DataFrame, pd.Series]:
    """The texts and labels less the rows with a missing label or text (blank texts too
    with ``mode="drop"``, empty ones with ``"drop_empty"``), reporting what was dropped."""
    keep_blank = mode != "drop"
    bad = labels.isna().to_numpy() | texts.map(
        is_absent if keep_blank else is_blank).any(axis=1).to_numpy()
    if bad.any():
        warn(f"{dataset}: dropped {int(bad.sum())} of {len(texts)} rows with a missing text "
             "or label" + ("" if keep_blank else " (blank texts included: blank_texts='drop')"),
             DroppedRowsWarning)
    texts, labels = texts[~bad].reset_index(drop=True), labels[~bad].reset_index(drop=True)
    if mode == "drop_empty":
        empty = texts.map(lambda v: isinstance(v, str) and not v).any(axis=1).to_numpy()
        report_dropped(dataset, int(empty.sum()), len(texts), "rows with an empty text, as "
                       "the reference's blog loader skips them (reader option "
                       "blank_texts='drop_empty')")
        texts = texts[~empty].reset_index(drop=True)
        labels = labels[~empty].reset_index(drop=True)
    return texts, labels

def _cap_per_label(labels: pd.Series, cap: int | None, seed: int) -> list[int]:
    """Row positions, at most ``cap`` per label, chosen with ``seed``, in original order."""
    if cap is None:
        return list(range(len(labels)))
    rng = np.random.default_rng(seed)
    keep: list[int] = []
    for _, idx in sorted(labels.groupby(labels, sort=True).indices.items()):
        idx = np.asarray(idx)
        keep.extend(idx if len(idx) <= cap else np.sort(rng.choice(idx, cap, replace=False)))
    return sorted(int(i) for i in keep)
