"""Catalogue datasets read from the Hugging Face Hub with the reference's own rules.

Each reader loads its Hub dataset(s) through :func:`stebkit.datasets.hub.load_hub`
(offline or unreachable: ``DataUnavailable`` naming the dataset) and applies what the
reference's loader does; rows that a documented filter leaves out are counted.

MAGE (``read_mage``, ``yaful/MAGE`` test split)
    Rows whose ``src`` starts with ``<domain>_``: ``<domain>_human*`` -> ``human``,
    ``<domain>_machine_<method>_<model>`` -> ``<model>`` (the generation method is
    dropped, so one model is one label); other ``src`` values and blank texts are
    skipped.
AuthBench (``read_authbench``, ``MaoXun/AuthBench`` configs ``queries``,
``candidates``, ``ground_truth``, test split)
    Rows of language ``reader_options["language"]``: each query whose ``query_id`` has
    a ground-truth author is a query of that author (others are skipped), then each
    candidate is a target of its ``author_id``; text = ``content``.
EnDive (``read_endive``, ``abhaygupta1266/<task>`` for 11 NLU tasks)
    Per task, the five dialect splits (AAVE, ChcE, CollSgE, IndE, JamE) are aligned on
    their Standard American English source column (``X`` beside ``Dialect (X)``);
    sources translated into all five, sorted, are cut to 150 with
    ``random.Random(42).sample`` (re-sorted); each gives six records: the source
    (label ``sae``) and its five translations (``aave``, ``chce``, ``collsge``,
    ``inde``, ``jame``). Version followed: the reference's single ``endive`` dataset
    that merges the 11 tasks (clustering and all-to-all pairs, 150 sources per task,
    the SAE source as a sixth label). Its earlier loaders read one task per dataset,
    with the five dialect labels only: 100 sources per task at commit 121e525 (which
    also built order-alignment sets of the five translations), 150 at commit 8d56e8f.
The Pile (``read_the_pile``, ``ArmelR/the-pile-splitted``)
    For every config but ``all`` (sorted), the train split is streamed and its first
    1,000 texts that are non-blank and shorter than 1,000,000 characters are kept,
    labelled by the config (the Pile subset).
Corpus of Diverse Styles (``read_cds``, ``billray110/corpus-of-diverse-styles``)
    Each row is a set: its ``text`` (position 0, the styled original) and its
    ``paraphrase`` (position 1, the neutral paraphrase), labelled by the style.
X-GENRE (``read_x_genre``)
    The ``train``, ``test`` and ``dev`` splits, rows of the ``CORE`` and ``FTD`` parts
    (``dataset`` column; GINCO is Slovenian), text and ``labels``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from numbers import Integral
from typing import Any

import pandas as pd

from .. import hub
from ._steb import frame, set_records, smoke_cut
from .text import report_dropped

__all__ = ["ENDIVE_DIALECTS", "ENDIVE_TASKS", "mage_label", "read_authbench", "read_cds",
           "read_endive", "read_mage", "read_the_pile", "read_x_genre"]


def _load(path: str, **kwargs: Any) -> Any:
    return hub.load_hub(path, **kwargs)


def hub_table(loaded: Any, where: str, needed: Iterable[str] = ()) -> pd.DataFrame:
    """A loaded Hub split as a DataFrame, ``ClassLabel`` ids turned into names, with
    an error naming ``where`` when a needed column is missing."""
    if isinstance(loaded, pd.DataFrame):
        table = loaded.reset_index(drop=True)
    else:
        table = loaded.to_pandas()
        for column, feature in getattr(loaded, "features", {}).items():
            names = getattr(feature, "names", None)
            if names is not None and column in table.columns:
                table[column] = table[column].map(
                    lambda v, n=names: n[int(v)] if isinstance(v, Integral) and v >= 0 else v)
    missing = [c for c in needed if c not in table.columns]
    if missing:
        raise ValueError(f"{where} lacks the column(s) {missing}; it has "
                         f"{list(table.columns)}. The Hub dataset changed its layout.")
    return table


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def mage_label(src: str, domain: str) -> str | None:
    """The reference's MAGE label of a ``src`` value of ``domain``.

    >>> mage_label("eli5_machine_continuation_flan_t5_base", "eli5")
    'flan_t5_base'
    >>> mage_label("sci_gen_human", "sci_gen"), mage_label("eli5_other", "eli5")
    ('human', None)
    """
    suffix = src[len(domain) + 1:]
    if suffix.startswith("human"):
        return "human"
    if suffix.startswith("machine_"):
        parts = suffix.split("_", 2)
        if len(parts) >= 3:
            return parts[2]
    return None


def read_mage(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """One MAGE domain, labelled by generating model (or human)."""
    src = spec.source
    domain = spec.reader_options["domain"]
    where = f"{src.hf_path} ({src.hf_split})"
    table = hub_table(_load(src.hf_path, revision=src.hf_revision, split=src.hf_split),
                      where, ("text", "src"))
    table = table[table["src"].astype(str).str.startswith(f"{domain}_")]
    rows, skipped = [], 0
    for text, source in zip(table["text"], table["src"], strict=True):
        label = mage_label(str(source), domain)
        if _text(text) is None or label is None:
            skipped += 1
            continue
        rows.append({"text": text, "label": label})
    report_dropped(spec.name, skipped, len(table), "rows with a blank text or an unknown src")
    return smoke_cut(frame(rows), smoke)


def read_authbench(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """AuthBench attribution in one language, as retrieval (queries, then candidates)."""
    src = spec.source
    lang = spec.reader_options["language"]
    tables = {}
    for config, needed in (("queries", ("query_id", "content", "lang")),
                           ("candidates", ("author_id", "content", "lang")),
                           ("ground_truth", ("query_id", "author_id"))):
        tables[config] = hub_table(_load(src.hf_path, name=config, revision=src.hf_revision,
                                         split=src.hf_split), f"{src.hf_path} {config}", needed)
    queries = tables["queries"][tables["queries"]["lang"] == lang]
    candidates = tables["candidates"][tables["candidates"]["lang"] == lang]
    ids = set(queries["query_id"])
    truth = tables["ground_truth"]
    author = {q: a for q, a in zip(truth["query_id"], truth["author_id"], strict=True)
              if q in ids}
    rows = [{"text": c, "label": str(author[q]), "side": "query", **meta}
            for q, c, meta in zip(queries["query_id"], queries["content"],
                                  _authbench_meta(queries), strict=True) if q in author]
    report_dropped(spec.name, len(queries) - len(rows), len(queries),
                   "queries without a ground-truth author")
    rows += [{"text": c, "label": str(a), "side": "target", **meta}
             for a, c, meta in zip(candidates["author_id"], candidates["content"],
                                   _authbench_meta(candidates), strict=True)]
    return smoke_cut(frame(rows, ("text", "label", "side", "length_bucket", "primary_genre")),
                     smoke)


AUTHBENCH_LENGTHS = (("short", 10), ("medium", 100), ("long", 500), ("extra_long", None))
"""AuthBench's document-length buckets by token count (upper bounds, inclusive)."""


def authbench_length_bucket(tokens: Any) -> str | None:
    """The AuthBench length bucket of a token count (None when it is unknown).

    >>> [authbench_length_bucket(n) for n in (1, 10, 11, 500, 501, None)]
    ['short', 'short', 'medium', 'long', 'extra_long', None]
    """
    if tokens is None or (isinstance(tokens, float) and tokens != tokens):
        return None
    for name, high in AUTHBENCH_LENGTHS:
        if high is None or int(tokens) <= high:
            return name
    return None  # unreachable: the last bucket has no bound


def _authbench_meta(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Per row: the length bucket (from ``token_length``) and primary genre (the part of
    ``genre`` before the first '/'), the fields of AuthBench's sub-results."""
    n = len(table)
    tokens = table["token_length"].tolist() if "token_length" in table else [None] * n
    genres = table["genre"].tolist() if "genre" in table else [None] * n
    return [{"length_bucket": authbench_length_bucket(t),
             "primary_genre": g.split("/", 1)[0] if isinstance(g, str) else None}
            for t, g in zip(tokens, genres, strict=True)]


ENDIVE_TASKS = ("logic_bench_yn", "logic_bench_mcq", "svamp", "mbpp", "gsm8k", "folio",
                "boolq", "copa", "multirc", "sst-2", "wsc")
"""The EnDive NLU tasks STEB merges (HumanEval left out), in the reference's order."""
ENDIVE_DIALECTS = {"aave": "AAVE", "chce": "ChcE", "collsge": "CollSgE", "inde": "IndE",
                   "jame": "JamE"}
"""Dialect label -> Hub split name, in alphabetical (the reference's) order."""
ENDIVE_PER_TASK = 150


def _endive_columns(columns: Iterable[str], where: str) -> tuple[str, str]:
    columns = list(columns)
    dialect = next((c for c in columns if c.startswith("Dialect (")), None)
    if dialect is None:
        raise ValueError(f"{where} has no 'Dialect (...)' column; it has {columns}")
    inner = dialect[len("Dialect ("):-1].lower()
    source = next((c for c in columns if c.lower() == inner), None)
    if source is None:
        raise ValueError(f"{where} has no source column {inner!r} beside {dialect!r}")
    return source, dialect


def endive_task(splits: dict[str, pd.DataFrame], task: str, seed: int = 42,
                per_task: int = ENDIVE_PER_TASK) -> list[dict]:
    """The six records of each aligned source of one EnDive task (see the module)."""
    source_col, dialect_col = _endive_columns(splits["aave"].columns, f"EnDive {task} AAVE")
    by_source: dict[str, dict[str, str]] = {}
    for dialect in ENDIVE_DIALECTS:
        table = splits[dialect]
        for src, tgt in zip(table[source_col], table[dialect_col], strict=True):
            if isinstance(src, str) and isinstance(tgt, str):
                by_source.setdefault(src, {})[dialect] = tgt
    aligned = sorted(s for s, d in by_source.items() if all(k in d for k in ENDIVE_DIALECTS))
    if len(aligned) > per_task:
        aligned = sorted(random.Random(seed).sample(aligned, per_task))
    rows = []
    for src in aligned:
        rows.append({"text": src, "label": "sae"})
        rows += [{"text": by_source[src][d], "label": d} for d in ENDIVE_DIALECTS]
    return rows


def read_endive(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """EnDive: SAE sources and their five dialect translations, 11 tasks merged."""
    owner = spec.reader_options.get("owner", "abhaygupta1266")
    rows = []
    for task in spec.reader_options.get("tasks", ENDIVE_TASKS):
        path = f"{owner}/{task}"
        splits = {d: hub_table(_load(path, split=split), f"{path} ({split})")
                  for d, split in ENDIVE_DIALECTS.items()}
        rows += endive_task(splits, task, int(spec.reader_options.get("subsample_seed", 42)))
    return smoke_cut(frame(rows), smoke)


def read_the_pile(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """The first 1,000 usable texts of every Pile subset (streamed)."""
    src = spec.source
    opts = dict(spec.reader_options)
    per_subset = 20 if smoke else int(opts.get("per_subset", 1000))
    max_chars = int(opts.get("max_chars", 1_000_000))
    rows, skipped = [], 0
    for config in sorted(hub.hub_configs(src.hf_path, revision=src.hf_revision)):
        if config in opts.get("skip", ["all"]):
            continue
        kept = 0
        for row in _load(src.hf_path, name=config, revision=src.hf_revision,
                         split=src.hf_split, streaming=True):
            if kept >= per_subset:
                break
            text = row.get("text") if isinstance(row, dict) else None
            if _text(text) is None or len(text) >= max_chars:
                skipped += 1
                continue
            rows.append({"text": text, "label": config})
            kept += 1
    report_dropped(spec.name, skipped, skipped + len(rows),
                   f"blank texts or texts of {max_chars:,} characters or more")
    return frame(rows)


def read_cds(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Corpus of Diverse Styles: each styled text with its paraphrase, by style."""
    src = spec.source
    table = hub_table(_load(src.hf_path, revision=src.hf_revision, split=src.hf_split),
                      f"{src.hf_path} ({src.hf_split})", ("text", "paraphrase", "label"))
    sets, skipped = [], 0
    for text, para, label in zip(table["text"], table["paraphrase"], table["label"],
                                 strict=True):
        texts = [t for t in (text, para) if isinstance(t, str)]
        if not texts or label is None or (isinstance(label, float) and label != label):
            skipped += 1
            continue
        sets.append((str(label), texts))
    report_dropped(spec.name, skipped, len(table), "rows without text or style")
    return set_records(sets, smoke)


def read_x_genre(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """X-GENRE: every split, the CORE and FTD parts."""
    src = spec.source
    opts = dict(spec.reader_options)
    keep = set(opts.get("parts", ["CORE", "FTD"]))
    rows, skipped, total = [], 0, 0
    for split in opts.get("splits", ["train", "test", "dev"]):
        table = hub_table(_load(src.hf_path, name=src.hf_name, revision=src.hf_revision,
                                split=split), f"{src.hf_path} ({split})",
                          ("text", "labels", "dataset"))
        table = table[table["dataset"].isin(keep)]
        for text, label in zip(table["text"], table["labels"], strict=True):
            total += 1
            if _text(text) is None or _text(label) is None:
                skipped += 1
                continue
            rows.append({"text": text, "label": label})
    report_dropped(spec.name, skipped, total, "rows with a blank text or label")
    return smoke_cut(frame(rows), smoke)
