"""The published STEB leaderboard, shipped as package data, and comparisons with it.

``stebkit/data/published_leaderboard.csv`` holds the 40 models of the reference's
``docs/leaderboard.md`` (its source — repository, path, commit, date retrieved — is in
the file's ``#`` header lines): the six operational task columns and the STEB score,
the six object-of-study dimensions, Object of Study, Linguistic Features, Content
Independence and the definitional score, all in percent as published, plus each model's
category as in the paper's Figure 1 (style, semantic, MLM, CLM, non-neural; stored with
the zoo's names ``style``, ``semantic``, ``masked_lm``, ``causal_lm``, ``non_neural``).

:func:`published_leaderboard` returns it in the layout of
:func:`stebkit.scores.leaderboard` (scores as fractions unless ``percent=True``), so the
two can be shown together. :func:`comparability` says whether a set of results covers
the datasets and protocol the published numbers come from, and :func:`with_published`
adds the published rows to a leaderboard — ranked together only when comparable, and
otherwise (with ``allow_partial=True``) marked "not comparable" and left unranked.
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PUBLISHED_FILE = Path(__file__).parents[1] / "data" / "published_leaderboard.csv"

TASK_COLUMNS = ("clustering", "all_to_all_pairs", "predefined_pairs", "order_alignment",
                "retrieval", "probing")
"""The operational task columns (the reference's six task families, stebkit's names)."""

OBJECT_OF_STUDY = ("genre", "register", "time", "demographics", "dialect", "idiolect")
"""The six object-of-study dimensions of the definitional score (:mod:`stebkit.scores`
computes its leaderboard columns from these)."""
DEFINITIONAL_AXES = ("object_of_study", "linguistic_features", "content_independence")
"""The three axes the definitional score averages."""
SCORE_COLUMNS = (*TASK_COLUMNS, "steb_score", *OBJECT_OF_STUDY, *DEFINITIONAL_AXES,
                 "definitional_score")
COLUMNS = ("model", "category", *SCORE_COLUMNS)
"""The columns of the package-data file, in order."""

CATEGORY_LABELS = {"style": "style", "semantic": "semantic", "masked_lm": "MLM",
                   "causal_lm": "CLM", "non_neural": "non-neural",
                   "multilingual": "multilingual", "baseline": "baseline", "other": "other"}
"""Model category (the zoo's name, as records keep it) -> the label readers see in every
figure, table and leaderboard CSV (:func:`category_label`): the paper's Figure 1 labels."""
PAPER_CATEGORIES = {c: CATEGORY_LABELS[c] for c in
                    ("style", "semantic", "masked_lm", "causal_lm", "non_neural")}
"""Model category (zoo name) -> the label the paper's Figure 1 uses."""


def category_label(category: Any) -> str:
    """How a model category reads in a figure or table (:data:`CATEGORY_LABELS`); an
    unknown one is shown with spaces for underscores.

    >>> category_label("non_neural"), category_label("masked_lm"), category_label("my_kind")
    ('non-neural', 'MLM', 'my kind')
    """
    return CATEGORY_LABELS.get(category, str(category).replace("_", " "))


def category_key(label: Any) -> Any:
    """The model category a label of :func:`category_label` stands for (a leaderboard CSV
    read back); anything else as it is.

    >>> category_key("non-neural"), category_key("MLM"), category_key("style")
    ('non_neural', 'masked_lm', 'style')
    """
    keys = {v: k for k, v in CATEGORY_LABELS.items()}
    return keys.get(label, label) if isinstance(label, str) else label

SOURCE_KEYS = ("repository", "path", "commit", "retrieved")
PUBLISHED_SUITE = "STEB (published)"
NOT_COMPARABLE = "not comparable"


def _fail(path: Path, line: int | None, message: str) -> ValueError:
    where = f"{path}, line {line}" if line is not None else str(path)
    return ValueError(f"published leaderboard {where}: {message}")


def read_published(path: str | os.PathLike[str] = PUBLISHED_FILE, *,
                   percent: bool = False) -> Any:
    """Read a published-leaderboard file (the package-data format), checking every cell.

    Parameters
    ----------
    path : path, default the shipped file
        A CSV file with ``# key: value`` header lines (``repository``, ``path``,
        ``commit``, ``retrieved``) and the columns of :data:`COLUMNS`, values in percent.
    percent : bool, default False
        Keep the values in percent (as published) instead of fractions.

    Returns
    -------
    DataFrame
        ``rank``, ``model``, ``model_category``, ``paper_category`` and the score
        columns, best operational score first; ``attrs["source"]`` holds the header.

    Raises
    ------
    ValueError
        A missing or unknown column, a header key missing, a duplicated model, an
        unknown category or a value that is not a number between 0 and 100; the message
        names the file and line.

    Examples
    --------
    >>> board = read_published()
    >>> len(board), board.attrs["source"]["repository"]
    (40, 'rrivera1849/STEB')
    """
    path = Path(path)
    lines = _lines(path)
    source, start = _header(path, lines)
    rows = list(csv.reader(lines[start:]))
    _check_columns(path, start + 1, rows[0] if rows else [])
    records, seen = [], set()
    for offset, row in enumerate(rows[1:], start=start + 2):
        if row:
            records.append(_model_row(path, offset, row, seen, percent=percent))
    if not records:
        raise _fail(path, None, "no model rows")
    return _ranked_frame(records, source, percent=percent)


def _check_columns(path: Path, line: int, got: list[str]) -> None:
    """Raise unless the column row (at ``line``) is :data:`COLUMNS`."""
    if tuple(got) != COLUMNS:
        raise _fail(path, line, f"expected the columns {list(COLUMNS)}; missing "
                    f"{[c for c in COLUMNS if c not in got]}, unknown "
                    f"{[c for c in got if c not in COLUMNS]}")



def _lines(path: Path) -> list[str]:
    """The lines of a published-leaderboard file, read through the one opener."""
    from stebkit._io import read_text

    try:
        return read_text(path, fix="name the published leaderboard's CSV file",
                         chosen=True).splitlines()
    except ValueError as err:
        raise _fail(path, None, f"cannot be read ({err})") from None
    except OSError as err:
        raise _fail(path, None, f"cannot be read ({err.strerror or err})") from None


def _ranked_frame(records: list[dict[str, Any]], source: dict[str, str], *,
                  percent: bool) -> Any:
    """The published rows as a DataFrame, best operational score first, ranked, with the
    source header and the units in ``attrs``."""
    import pandas as pd

    frame = pd.DataFrame(records)
    frame = frame.sort_values(["steb_score", "model"], ascending=[False, True],
                              kind="stable").reset_index(drop=True)
    frame.insert(0, "rank", frame["steb_score"].rank(ascending=False, method="min")
                 .astype("Int64"))
    frame.attrs["source"] = dict(source)
    frame.attrs["suite"] = PUBLISHED_SUITE
    frame.attrs["percent"] = percent
    return frame


def _header(path: Path, lines: list[str]) -> tuple[dict[str, str], int]:
    """The ``# key: value`` source header of a published-leaderboard file and the index of
    its first line after the header."""
    source: dict[str, str] = {}
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        key, sep, value = lines[start].lstrip("#").partition(":")
        if sep and key.strip() in SOURCE_KEYS:
            source[key.strip()] = value.strip()
        start += 1
    missing = [k for k in SOURCE_KEYS if k not in source]
    if missing:
        raise _fail(path, None, f"header line(s) '# {missing[0]}: ...' missing (the source "
                    f"must name {', '.join(SOURCE_KEYS)})")
    return source, start


def _model_row(path: Path, offset: int, row: list[str], seen: set[str], *,
               percent: bool) -> dict[str, Any]:
    """One model's checked row (line ``offset``) as a record; adds the model to ``seen``."""
    if len(row) != len(COLUMNS):
        raise _fail(path, offset, f"{len(row)} cells for {len(COLUMNS)} columns")
    model, category = row[0].strip(), row[1].strip()
    if not model or model in seen:
        raise _fail(path, offset, f"model name {model!r} is empty or repeated")
    seen.add(model)
    if category not in PAPER_CATEGORIES:
        raise _fail(path, offset, f"model {model!r}: category {category!r} is not one "
                    f"of {list(PAPER_CATEGORIES)}")
    rec: dict[str, Any] = {"model": model, "model_category": category,
                           "paper_category": PAPER_CATEGORIES[category]}
    for col, cell in zip(SCORE_COLUMNS, row[2:], strict=True):
        try:
            value = float(cell)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or not 0.0 <= value <= 100.0:
            raise _fail(path, offset, f"model {model!r}, column {col!r}: {cell!r} is "
                        "not a number between 0 and 100 (values are in percent)")
        rec[col] = value if percent else value / 100.0
    return rec


def published_leaderboard(*, percent: bool = False) -> Any:
    """The published STEB leaderboard (40 models) as a DataFrame.

    Columns: ``rank``, ``model``, ``model_category`` (``style``, ``semantic``,
    ``masked_lm``, ``causal_lm``, ``non_neural``), ``paper_category`` (the paper's
    labels: style, semantic, MLM, CLM, non-neural), the six task columns of
    :data:`TASK_COLUMNS`, ``steb_score``, the six object-of-study dimensions,
    ``object_of_study``, ``linguistic_features``, ``content_independence`` and
    ``definitional_score``. Scores are fractions (as :func:`stebkit.scores.leaderboard`)
    unless ``percent=True``. ``attrs["source"]`` names the repository, file, commit and
    the date it was retrieved.

    Examples
    --------
    >>> board = published_leaderboard(percent=True)
    >>> board.loc[board["model"] == "all-mpnet-base-v2",
    ...           ["steb_score", "definitional_score"]].values.tolist()
    [[40.34, 36.02]]
    >>> sorted(board["paper_category"].unique())
    ['CLM', 'MLM', 'non-neural', 'semantic', 'style']
    """
    return read_published(PUBLISHED_FILE, percent=percent)


# --------------------------------------------------------------------------- comparison


@dataclass
class Comparability:
    """Whether a set of results can be ranked against the published numbers."""

    missing: list[str] = field(default_factory=list)
    """STEB datasets (with a task) the published scores use and the results lack."""
    extra: list[str] = field(default_factory=list)
    """Datasets in the results that the published benchmark does not have."""
    protocol: list[str] = field(default_factory=list)
    """Records made with another protocol (smoke data, other episodes per label)."""

    @property
    def comparable(self) -> bool:
        return not (self.missing or self.extra or self.protocol)

    def reasons(self, limit: int = 8) -> str:
        """One sentence per problem, listing at most ``limit`` names each."""
        def some(names: list[str]) -> str:
            more = f", ... ({len(names) - limit} more)" if len(names) > limit else ""
            return ", ".join(names[:limit]) + more

        out = []
        if self.missing:
            out.append(f"{len(self.missing)} dataset/task result(s) of the published "
                       f"benchmark are missing ({some(self.missing)})")
        if self.extra:
            out.append(f"{len(self.extra)} dataset(s) are not part of the published "
                       f"benchmark ({some(self.extra)})")
        if self.protocol:
            out.append(f"{len(self.protocol)} record(s) use another protocol "
                       f"({some(self.protocol)})")
        return "; ".join(out)


def _required() -> dict[tuple[str, str], Any]:
    """(dataset, task) -> spec of what the published scores use: the STEB catalogue less
    the default exclusions (non-English and semantic-control datasets) and the Fisher
    sets, which the reference's benchmark preset leaves out."""
    from stebkit.datasets import get_spec, list_datasets

    out = {}
    for name in list_datasets(suite="steb"):
        spec = get_spec(name)
        if (spec.category == "semantic_control" or "en" not in spec.languages
                or "fisher" in name):
            continue
        for task in spec.tasks:
            out[(name, task)] = spec
    return out


def comparability(results: Any) -> Comparability:
    """Check that ``results`` cover the published benchmark's datasets and protocol.

    The published scores use every English, non-semantic-control dataset of the STEB
    catalogue (``list_datasets(suite="steb")``, less the Fisher sets that the reference's
    benchmark preset leaves out) on every task it serves, with the full
    data (not the smoke version) and the reference's episodes per label.

    Parameters
    ----------
    results : Results or iterable of records

    Examples
    --------
    >>> comp = comparability([])
    >>> comp.comparable, len(comp.missing) > 100
    (False, True)
    """
    from stebkit.tasks import FAMILIES

    required = _required()
    steb = {d for d, _ in required}
    have: set[tuple[str, str]] = set()
    extra, protocol = set(), []
    for r in results:
        dataset = (r.get("dataset") or {}).get("name")
        task = r.get("task")
        if r.get("status") != "ok":
            continue
        if dataset not in steb:
            extra.add(dataset)
            continue
        have.add((dataset, task))
        spec = required.get((dataset, task))
        proto = r.get("protocol") or {}
        if spec is not None:
            want = FAMILIES[task].config(spec.tasks[task]).episodes_per_label
            if proto.get("smoke") or r.get("episodes_per_label") != want:
                protocol.append(f"{(r.get('model') or {}).get('name')}/{dataset}/{task}: "
                                f"smoke={bool(proto.get('smoke'))}, episodes per label "
                                f"{r.get('episodes_per_label')} (published: {want})")
    missing = sorted(f"{d}/{t}" for d, t in set(required) - have)
    return Comparability(missing=missing, extra=sorted(e for e in extra if e),
                         protocol=protocol)


def with_published(board: Any, results: Any, *, allow_partial: bool = False,
                   published: Any = None, label: str = "this run") -> Any:
    """Add the published rows to a leaderboard of ``results``.

    Parameters
    ----------
    board : DataFrame
        :func:`stebkit.scores.leaderboard` of ``results``.
    results : Results or iterable of records
        The results the board was computed from (checked with :func:`comparability`).
    allow_partial : bool, default False
        When the results are not comparable, show them anyway: their rows get ``[not
        comparable]`` after the model name, ``comparable=False`` and no rank.
    published : DataFrame, optional
        The published board (default :func:`published_leaderboard`).
    label : str, default "this run"
        The ``suite`` label of the rows of ``board`` (e.g. ``"lite suite (offline)"``).

    Returns
    -------
    DataFrame
        Both sets of rows with a ``suite`` column (``"STEB (published)"`` or ``label``)
        and ``comparable``; ranked together when comparable, best first.

    Raises
    ------
    ValueError
        The results are not comparable and ``allow_partial`` is False; the message says
        which datasets are missing or extra and what to do.

    Examples
    --------
    >>> import pandas as pd
    >>> mine = pd.DataFrame({"rank": [1], "model": ["mine"], "model_category": ["style"],
    ...                      "steb_score": [0.9]})
    >>> both = with_published(mine, [], allow_partial=True)
    >>> both.loc[both["suite"] == "this run", ["model", "rank"]].values.tolist()
    [['mine [not comparable]', <NA>]]
    >>> int(both["rank"].max())
    40
    """
    comp = comparability(results)
    _require_comparable(comp, allow_partial=allow_partial)
    pub = _marked(published if published is not None else published_leaderboard(),
                  PUBLISHED_SUITE, comparable=True)
    out = _ranked_together(pub, _marked(board, label, comparable=comp.comparable))
    out.attrs.update(board.attrs)
    out.attrs["published_source"] = pub.attrs.get("source", {})
    out.attrs["comparability"] = comp
    return out


def _require_comparable(comp: Comparability, *, allow_partial: bool) -> None:
    """Raise, saying why and what to do, when results that are not comparable are not
    allowed."""
    if not comp.comparable and not allow_partial:
        raise ValueError("these results are not comparable with the published STEB "
                         f"leaderboard: {comp.reasons()}. Run the full STEB suite "
                         "(stebkit run --suite steb) for a comparable score, or pass "
                         "--allow-partial (allow_partial=True) to show them marked "
                         f"'{NOT_COMPARABLE}'")


def _marked(board: Any, suite: str, *, comparable: bool) -> Any:
    """A copy of ``board`` with its ``suite`` and ``comparable`` columns; the model names of
    rows that are not comparable say so."""
    board = board.copy()
    board["suite"], board["comparable"] = suite, comparable
    if not comparable:
        board["model"] = board["model"].astype(str) + f" [{NOT_COMPARABLE}]"
    return board


def _ranked_together(pub: Any, mine: Any) -> Any:
    """The rows of both boards, best first, ranked together (comparable rows only; a chance
    row is a line, never ranked)."""
    import pandas as pd

    out = pd.concat([pub.drop(columns=["rank"]), mine.drop(columns=["rank"],
                                                           errors="ignore")],
                    ignore_index=True)
    out = out.sort_values(["steb_score", "model"], ascending=[False, True],
                          na_position="last", kind="stable").reset_index(drop=True)
    chance = out["chance"].eq(True) if "chance" in out.columns else False
    ranked = out["steb_score"].where(out["comparable"].astype(bool) & ~chance)  # chance: a line
    out.insert(0, "rank", ranked.rank(ascending=False, method="min").astype("Int64"))
    out["comparable"] = out["comparable"].astype(bool).astype(object)  # a label, not a score
    return out


def source_note(source: Mapping[str, str] | None = None) -> str:
    """One line naming where the published numbers come from.

    >>> source_note().startswith("published STEB leaderboard: rrivera1849/STEB")
    True
    """
    s = dict(source or read_published().attrs["source"])
    return (f"published STEB leaderboard: {s['repository']} {s['path']} at commit "
            f"{s['commit'][:12]} (retrieved {s['retrieved']})")
