"""Reading a suite dataset's tables: the strict check of a text table (CSV, TSV,
JSONL) that names the line at fault, its columns, and the whole table as a frame."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stebkit.suites.suitefile import SuiteError


def _read_table(source: Mapping[str, Any]) -> Any:
    import pandas as pd

    if "hf" in source:
        from stebkit.datasets.hub import load_hub

        frame = load_hub(source["hf"], name=source.get("config"),
                         revision=source.get("revision"), split=source.get("split", "train"),
                         trust_remote_code=bool(source.get("remote_code")))
        return frame if isinstance(frame, pd.DataFrame) else frame.to_pandas()
    if "url" in source:
        from stebkit.sources import fetch

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


class _TableError(ValueError):
    """A text table is malformed; the message starts with the line at fault."""


def _text_columns(file: Path, fmt: str) -> list[str]:
    """The columns of a CSV, TSV or JSONL file, read whole and strictly: a quote left open
    (which would swallow the rows after it), a row with another number of fields than
    the header, or a JSONL line that is not a JSON object raises :class:`_TableError`
    naming the line (and ``UnicodeDecodeError`` for text that is not UTF-8)."""
    import csv
    import io

    from stebkit._io import open_file

    raw = open_file(file, fix="name a data file (CSV, TSV, JSONL, JSON or Parquet)",
                    chosen=True)
    with io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as fh:  # a BOM: no column
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


_CHECKED: dict[tuple[str, str, int, int], list[str] | None] = {}
"""Tables already checked in this process, by path, format, size and modification time:
a suite whose datasets share a table reads it once, so a check is linear in the file."""


def _source_columns(source: Mapping[str, Any]) -> list[str] | None:
    """The column names of a local (or already downloaded) table, the whole file checked
    (:func:`_text_columns`) once per version of the file; None when they cannot be known
    without a download."""
    if "hf" in source:
        return None
    if "url" in source:
        from stebkit.sources import locate

        file = locate(source["url"])
        if file is None:
            return None
    else:
        file = Path(source["path"])
    st = file.stat()
    key = (str(file.resolve()), source["format"], st.st_size, st.st_mtime_ns)
    if key not in _CHECKED:
        _CHECKED[key] = _file_columns(file, source["format"])
    columns = _CHECKED[key]
    return None if columns is None else list(columns)


def _file_columns(file: Path, fmt: str) -> list[str] | None:
    """The columns of one table file, all of it checked (None for JSON)."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return [str(c) for c in pq.read_schema(file).names]
    if fmt in ("csv", "tsv", "jsonl"):
        return _text_columns(file, fmt)
    import codecs  # JSON: all of it must decode

    from stebkit._io import open_file

    decoder = codecs.getincrementaldecoder("utf-8")()
    with open_file(file, fix="name a data file (CSV, TSV, JSONL, JSON or Parquet)",
                   chosen=True) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            decoder.decode(block)
    decoder.decode(b"", final=True)
    return None
