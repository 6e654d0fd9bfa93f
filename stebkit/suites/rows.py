"""A suite dataset's rows, built from its checked entry: columns renamed and typed,
splits mapped or drawn (seeded, stratified), the ``min_per_label`` filter (with a warning
that counts what it drops), and the queries and corpus of a ``retrieval_ndcg`` dataset."""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.suites.checks import _fail, _row_fields
from stebkit.suites.tables import _read_table


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


def _labelled_rows(entry: Mapping[str, Any], path: Path, where: str, *, seed: int,
                      smoke: bool) -> Any:
    columns = dict(entry.get("columns") or {})
    frame = _rename(_read_table(entry["source"]), columns, path, where, _row_fields(entry))
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


def _ndcg_rows(entry: Mapping[str, Any], path: Path, where: str, *, seed: int,
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
