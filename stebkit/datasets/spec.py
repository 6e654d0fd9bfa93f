"""Declarative dataset specifications.

A :class:`DatasetSpec` says everything about one benchmark dataset — where its
files come from, its licence, what the label means, which task families it serves
and with which episode configuration, and how to turn the raw files into records.
Specs are frozen: the catalogue is data, not code paths.

Records
-------
A reader returns a :class:`pandas.DataFrame` with one row per text. Columns:

``text`` (str, always)
    The text.
``label`` (str, always)
    The class a text belongs to: author, genre, register, Bible version, generator,
    feature bin, or — for order alignment — the style dimension of the set.
``group`` (str, order alignment / STEL)
    Id of a parallel set: texts with the same ``group`` say the same thing in
    different styles.
``position`` (int, order alignment / STEL)
    Rank of the text inside its group in the style order (0 = most of the property).
``pair`` (str) and ``same`` (bool), predefined pairs
    Exactly two rows share a ``pair`` id; ``same`` is True when the two texts share
    the style property (e.g. the same author).
``side`` (``"query"`` or ``"target"``), retrieval
    Which side of the retrieval a text is on; ``label`` links queries to targets.
``split`` (``"train"``, ``"validation"``, ``"test"``), probing
    The probe's split.
``feature`` (str, probing) and ``value`` (float, optional)
    The linguistic feature the probe predicts (``label`` is its quantile bin) and its
    raw value. A probing set with several features (the STEB ``probing_*`` sets) has one
    row per text and feature the text is probed on, each feature with its own splits; a
    probe is trained and scored per ``feature``. The dataset's main metric is the mean
    test accuracy over its features (the reference's ``average``), each feature's
    accuracy is kept as the sub-metric ``accuracy[<feature>]``. Without this column the
    dataset is one feature.
``work`` (str, optional)
    The work (novel, document, source file) a passage comes from.
``distractor`` (bool, optional, order alignment)
    Marks texts whose content differs from the group (STEL-or-Content style checks).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

SPLITS = ("train", "validation", "test")
"""Values of the ``split`` column (probing, classification)."""

SIDES = ("query", "target")
"""Values of the ``side`` column (retrieval)."""

STRING_COLUMNS = ("text", "label", "group", "pair", "side", "split", "work", "feature")
"""Record columns that hold strings."""

BOOL_COLUMNS = ("same", "distractor")
"""Record columns that hold booleans."""

RECORD_COLUMNS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "clustering": (), "all_to_all_pairs": (), "predefined_pairs": ("pair", "same"),
    "retrieval": ("side",), "order_alignment": ("group", "position"), "probing": ("split",),
    "classification": ("split",), "retrieval_ndcg": ("side", "group", "relevance"),
    "stel": ("group", "position")})
"""The columns beyond ``text`` and ``label`` that the records of each built-in task family
need (each family declares its ``columns`` from here); :func:`validate_records
<stebkit.datasets.registry.validate_records>` checks them."""

CATEGORIES = (
    "genre",
    "register",
    "time",
    "demographics",
    "dialect",
    "idiolect",
    "linguistic_features",
    "style_vs_content",
    "semantic_control",
    "other",
)
"""Definitional categories. ``semantic_control`` marks topic/meaning sets; ``other``
marks datasets outside STEB's definitional score (e.g. user suites)."""

APPLICATIONS = (
    "authorship_verification",
    "authorship_retrieval",
    "authorship_attribution",
    "ai_text_detection",
    "style_transfer_evaluation",
    "register_classification",
    "linguistic_probing",
    "semantic_control",
    "custom",
)


SUBMETRIC_SIDES = ("both", "query")


@dataclass(frozen=True)
class Submetric:
    """A sub-result of one task on part of a dataset (the reference's ``submetrics``).

    Either ``labels``: the items of these labels, taken from the episodes already built
    (the reference filters its processed data by label), or ``field`` and ``value``: the
    records whose column ``field`` equals ``value``, rebuilt into episodes with the same
    configuration; with ``sides="query"`` (retrieval) only queries are filtered and every
    target stays in the pool. A ``value`` of None declares one sub-result per distinct
    value of ``field``, its name the declared one with ``{value}`` filled in.

    >>> Submetric(labels=("tweets", "switchboard")).kind
    'labels'
    >>> Submetric(field="length_bucket", value="short", sides="query").kind
    'field'
    """

    labels: tuple[str, ...] = ()
    field: str | None = None
    value: str | None = None
    sides: str = "both"

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", tuple(str(v) for v in self.labels))
        if bool(self.labels) == (self.field is not None):
            raise ValueError("a submetric takes either labels or a field (with a value), "
                             f"got labels={self.labels!r}, field={self.field!r}")
        if self.sides not in SUBMETRIC_SIDES:
            raise ValueError(f"submetric sides must be one of {SUBMETRIC_SIDES}, got "
                             f"{self.sides!r}")
        if self.labels and self.sides != "both":
            raise ValueError("a label submetric filters every side; sides='query' needs a "
                             "field and value")

    @property
    def kind(self) -> str:
        """``"labels"`` or ``"field"``."""
        return "labels" if self.labels else "field"


def expand_submetrics(submetrics: Mapping[str, Submetric],
                      records: Any) -> dict[str, Submetric]:
    """The submetrics of one dataset, with per-value declarations expanded on its records.

    >>> import pandas as pd
    >>> rec = pd.DataFrame({"text": ["a", "b", "c"], "genre": ["news", "blog", "news"]})
    >>> sorted(expand_submetrics({"topic_{value}": Submetric(field="genre")}, rec))
    ['topic_blog', 'topic_news']
    """
    out: dict[str, Submetric] = {}
    for name, sub in submetrics.items():
        if sub.field is not None and sub.value is None:
            if "{value}" not in name:
                raise ValueError(f"submetric {name!r} declares one result per value of "
                                 f"{sub.field!r}; its name needs a '{{value}}' placeholder")
            if sub.field not in records.columns:
                raise ValueError(f"submetric {name!r}: the records have no column "
                                 f"{sub.field!r}; the reader must provide it")
            for value in sorted(records[sub.field].dropna().astype(str).unique()):
                out[name.replace("{value}", value)] = Submetric(field=sub.field, value=value,
                                                                sides=sub.sides)
        else:
            out[name] = sub
    return out


@dataclass(frozen=True)
class TaskConfig:
    """Episode configuration of one task on one dataset.

    ``episode_sizes``: texts pooled into one episode embedding (``-1``: all texts of a
    label form one episode, as the reference's retrieval). ``episodes_per_label``:
    episodes sampled per label (the reference's ``n_episodes_per_class``), or ``"auto"``
    (:func:`stebkit.tasks.auto_episodes`). ``None`` stands for the task family's
    reference preset (the catalogue's rows say so); :meth:`stebkit.tasks.TaskFamily.config`
    fills it in where a dataset meets its family.

    >>> TaskConfig(episode_sizes=(1, 2, 5), episodes_per_label=50).episode_sizes
    (1, 2, 5)
    >>> TaskConfig(None, None).episode_sizes is None, TaskConfig().episodes_per_label
    (True, 50)

    ``submetrics`` maps a name to a :class:`Submetric`: results of the same task on part
    of the dataset, kept in the record beside the main result (the reference's
    ``submetrics``).
    """

    episode_sizes: tuple[int, ...] | None = (1,)
    episodes_per_label: int | str | None = 50
    submetrics: Mapping[str, Submetric] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        sizes = self.episode_sizes
        if sizes is not None and (not sizes or any(s == 0 or s < -1 for s in sizes)):
            raise ValueError(f"episode_sizes must be positive ints or -1, got {sizes}")
        per = self.episodes_per_label
        if per is not None and per != "auto" and (
                isinstance(per, bool) or not isinstance(per, int) or per < 1):
            raise ValueError(f"episodes_per_label must be an int >= 1 or 'auto', got {per!r}")
        for name, sub in self.submetrics.items():
            if not isinstance(sub, Submetric):
                raise TypeError(f"submetric {name!r} must be a Submetric, got "
                                f"{type(sub).__name__}")
        object.__setattr__(self, "submetrics", MappingProxyType(dict(self.submetrics)))


@dataclass(frozen=True)
class Source:
    """Where a dataset's raw data lives.

    Either ``urls`` (each with its sha256, fetched by :func:`stebkit.sources.fetch`;
    a sha256 of ``None`` is recorded at the first download and checked afterwards), a
    Hugging Face ``hf_path`` with ``hf_name``/``hf_revision``/``hf_split``, or, for data
    available only under an agreement, ``local``: the key of a local folder
    (:func:`stebkit.sources.local_source`, ``stebkit datasets --add-local KEY PATH``).
    """

    urls: tuple[tuple[str, str | None], ...] = ()
    hf_path: str | None = None
    hf_name: str | None = None
    hf_revision: str | None = None
    hf_split: str | None = None
    note: str = ""
    local: str | None = None

    @property
    def is_hub(self) -> bool:
        return self.hf_path is not None

    @property
    def unpinned(self) -> tuple[str, ...]:
        """The URLs of files in a GitHub repository that name a branch (``HEAD``,
        ``master``) rather than a 40-hex commit: their bytes may change upstream, so only
        the sha256 recorded at the first download keeps them fixed.

        >>> Source(urls=(("https://github.com/o/r/raw/master/a.zip", None),
        ...              ("https://raw.githubusercontent.com/o/r/" + "0" * 40 + "/b", None),
        ...              ("https://zenodo.org/records/1/files/c.zip", None))).unpinned
        ('https://github.com/o/r/raw/master/a.zip',)
        """
        return tuple(url for url, _ in self.urls if _github_ref(url) not in (None, "commit"))


_COMMIT = re.compile(r"[0-9a-f]{40}")


def _github_ref(url: str) -> str | None:
    """``"commit"`` or the branch a GitHub file URL names; None for other URLs."""
    parts = url.split("/")
    if len(parts) < 6 or parts[0] != "https:" or parts[1]:
        return None
    host, rest = parts[2], parts[3:]
    if host == "raw.githubusercontent.com":
        ref = rest[2]
    elif host == "github.com" and rest[2] in ("raw", "blob") and len(rest) > 3:
        ref = rest[3]
    elif host == "github.com" and rest[2] == "archive":
        ref = rest[3].removesuffix(".zip").removesuffix(".tar.gz")
    else:
        return None
    return "commit" if _COMMIT.fullmatch(ref) else ref


@dataclass(frozen=True)
class License:
    """Licence terms of a dataset, with the flags users filter on."""

    name: str
    non_commercial: bool = False
    research_only: bool = False
    needs_agreement: str | None = None  # what must be requested first, e.g. "LDC licence"
    url: str | None = None  # the licence's page; with needs_agreement: where to request


TESTED_ON = ("mirror", "constructed", "generated")
"""Values of :attr:`DatasetSpec.tested_on`: the reader's test reads the source's real
files (kept in a ``STEBKIT_MIRROR``), a small file of the same layout that the test
writes, or the records the dataset's code generates (the synthetic suite)."""


@dataclass(frozen=True)
class DatasetSpec:
    """One benchmark dataset, declared as data.

    >>> spec = DatasetSpec(
    ...     name="toy", description="two authors", languages=("en",),
    ...     source=Source(), license=License("CC0-1.0"), label="author",
    ...     tasks={"clustering": TaskConfig()}, category="idiolect",
    ...     application="authorship_attribution")
    >>> spec.serves("clustering"), spec.serves("retrieval")
    (True, False)
    """

    name: str
    description: str
    languages: tuple[str, ...]
    source: Source
    license: License
    label: str
    tasks: Mapping[str, TaskConfig]
    category: str
    application: str
    citation: str = ""
    reader: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    reader_version: int = 1
    reader_options: Mapping[str, Any] = field(default_factory=dict, compare=False)
    offline: bool = False
    suites: tuple[str, ...] = ()
    steb_name: str | None = None  # the reference's dataset name, when different
    main_metric: str | None = None  # overrides the task's main metric (user suites)
    tested_on: str | None = None  # one of TESTED_ON: how the reader is tested

    def __post_init__(self) -> None:
        if self.tested_on not in (None, *TESTED_ON):
            raise ValueError(f"dataset {self.name!r}: tested_on must be one of {TESTED_ON} "
                             f"or None, got {self.tested_on!r}")
        self._check_names()

    def _check_names(self) -> None:
        from stebkit._io import check_name

        check_name(self.name, "dataset")  # it becomes part of cache and record paths
        # the task names are checked against the task families where a spec is registered
        # or run (stebkit.tasks.FAMILIES.check_tasks): the datasets know no task family
        if self.category not in CATEGORIES:
            raise ValueError(f"dataset {self.name!r}: unknown category {self.category!r}; "
                             f"choose one of {CATEGORIES}")
        if self.application not in APPLICATIONS:
            raise ValueError(f"dataset {self.name!r}: unknown application "
                             f"{self.application!r}; choose one of {APPLICATIONS}")
        object.__setattr__(self, "tasks", MappingProxyType(dict(self.tasks)))
        object.__setattr__(self, "reader_options", MappingProxyType(dict(self.reader_options)))

    def serves(self, task: str) -> bool:
        """Whether this dataset is evaluated on ``task``."""
        return task in self.tasks

    @property
    def needs_remote_code(self) -> bool:
        """Whether loading runs code from the dataset's repository (a Hub loading script,
        declared as ``reader_options["remote_code"]``); it needs the user's opt-in."""
        return bool(self.reader_options.get("remote_code"))

    @property
    def status(self) -> str:
        """How far the reader is checked, for users: ``"real files"`` (tested on the
        source's own files), ``"constructed file"`` (tested on a file of the same
        layout written by the test), ``"generated in code"`` (the synthetic suite, its
        generated records tested), either followed by ``"; agreement only: <what>,
        request at <where>"`` when the data is released only on request, or
        ``"no reader"`` / ``"untested"``.

        >>> from dataclasses import replace
        >>> spec = DatasetSpec(name="toy", description="", languages=("en",),
        ...     source=Source(), license=License("LDC", needs_agreement="LDC licence",
        ...                                      url="https://catalog.ldc.upenn.edu"),
        ...     label="speaker", tasks={"clustering": TaskConfig()}, category="idiolect",
        ...     application="authorship_attribution", reader=print, tested_on="constructed")
        >>> spec.status
        'constructed file; agreement only: LDC licence, request at https://catalog.ldc.upenn.edu'
        >>> replace(spec, reader=None).status
        'no reader'
        """
        if self.reader is None:
            return "no reader"
        base = {"mirror": "real files", "constructed": "constructed file",
                "generated": "generated in code", None: "untested"}[self.tested_on]
        agreement = self.license.needs_agreement
        if not agreement:
            return base
        where = f", request at {self.license.url}" if self.license.url else ""
        return f"{base}; agreement only: {agreement}{where}"

    @property
    def language(self) -> str:
        """The first (main) language code."""
        return self.languages[0]


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset: its spec, its rows (``frame``: a DataFrame of one text each, with
    the columns documented in this module), and a fingerprint of how they were made.

    ``fingerprint`` hashes the source checksums, reader version, seed and size, so
    results and caches can tell two versions of the same dataset apart.

    >>> import pandas as pd
    >>> spec = DatasetSpec(name="tiny", description="", languages=("en",), source=Source(),
    ...     license=License("CC0-1.0"), label="author", tasks={"clustering": TaskConfig()},
    ...     category="idiolect", application="authorship_attribution")
    >>> ds = Dataset(spec, pd.DataFrame({"text": ["a b", "c d"], "label": ["x", "y"]}), "fp")
    >>> ds.frame["label"].tolist(), len(ds)
    (['x', 'y'], 2)
    """

    spec: DatasetSpec
    frame: Any  # pandas.DataFrame with the columns documented in this module
    fingerprint: str

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def records(self) -> Any:
        """The old name of :attr:`frame` (result records are another thing): it still
        works, with a :class:`DeprecationWarning`, and will be removed in stebkit 1.0."""
        import warnings

        warnings.warn("Dataset.records is now Dataset.frame", DeprecationWarning, stacklevel=2)
        return self.frame

    def __len__(self) -> int:
        return len(self.frame)

    def __repr__(self) -> str:
        n_labels = self.frame["label"].nunique() if len(self.frame) else 0
        return (f"Dataset({self.spec.name!r}, {len(self.frame)} texts, {n_labels} labels, "
                f"tasks={list(self.spec.tasks)})")
