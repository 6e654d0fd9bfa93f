"""Human vs. machine text of the STEB catalogue: M4 domain files and GEDE essays.

M4 (``read_m4``)
    The ``data/<domain>_<model>.jsonl`` files of the M4 repository (read inside its
    GitHub archive), in sorted file order. Files whose first record has no
    ``human_text`` (the bloomz variants, another schema) are left out. Each record
    gives its ``human_text`` (label ``human``) and its ``machine_text`` (label = the
    file's ``model`` field, else the file name); a human text, or a machine text,
    already seen is not repeated; blank texts are skipped. For ``peerread`` both fields
    are lists of reviews, each one a text. All filters are counted.
GEDE (``read_gede``)
    ``gede_essays.json``, a JSON list of essays: text ``answer``, label
    ``text_author``; entries missing either are skipped (counted).
"""

from __future__ import annotations

import posixpath
from typing import Any

import pandas as pd

from ._files import json_lines, load_json, source_tree
from ._steb import frame, smoke_cut
from .text import report_dropped

__all__ = ["read_gede", "read_m4"]

_LIST_DOMAINS = {"peerread"}


def read_m4(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """One M4 domain: human texts and each generator's texts, deduplicated."""
    domain = spec.reader_options["domain"]
    tree = source_tree(spec)
    files = sorted((n for n in tree.names() if posixpath.basename(posixpath.dirname(n)) == "data"
                    and posixpath.basename(n).startswith(f"{domain}_")
                    and n.endswith(".jsonl")), key=posixpath.basename)
    if not files:
        raise ValueError(f"dataset {spec.name!r}: {tree.label} has no data/{domain}_*.jsonl "
                         f"file; the download is incomplete or another release")
    seen: dict[str, set[str]] = {"human": set(), "machine": set()}
    rows, other_schema, repeated, blank = [], 0, 0, 0
    for name in files:
        records = json_lines(tree.text(name), f"{tree.label}: {name}")
        if not records or "human_text" not in records[0]:
            other_schema += 1
            continue
        model = str(records[0].get("model", posixpath.basename(name)))
        for row in records:
            human, machine = row.get("human_text"), row.get("machine_text")
            if human is None or machine is None:
                blank += 1
                continue
            for kind, raw, label in (("human", human, "human"), ("machine", machine, model)):
                items = raw if domain in _LIST_DOMAINS and isinstance(raw, list) else [raw]
                for text in items:
                    if not isinstance(text, str) or not text:
                        blank += 1
                    elif text in seen[kind]:
                        repeated += 1
                    else:
                        seen[kind].add(text)
                        rows.append({"text": text, "label": label})
    report_dropped(spec.name, other_schema, len(files), "files without human_text/machine_text")
    report_dropped(spec.name, repeated, repeated + len(rows), "repeated texts")
    report_dropped(spec.name, blank, blank + len(rows), "records or texts that are missing")
    return smoke_cut(frame(rows), smoke)


def read_gede(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """GEDE essays, labelled by who wrote them."""
    tree = source_tree(spec)
    name = tree.find("*gede_essays.json", what="gede_essays.json")
    entries = load_json(tree.text(name), f"{tree.label}: {name}")
    if not isinstance(entries, list):
        raise ValueError(f"{tree.label}: {name} holds a {type(entries).__name__}, expected a "
                         f"JSON list of essays")
    rows = [{"text": e["answer"], "label": str(e["text_author"])} for e in entries
            if isinstance(e, dict) and isinstance(e.get("answer"), str) and e["answer"]
            and e.get("text_author")]
    report_dropped(spec.name, len(entries) - len(rows), len(entries),
                   "essays without an answer or text_author")
    return smoke_cut(frame(rows), smoke)

