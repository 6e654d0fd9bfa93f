"""Human vs. machine text of the STEB catalogue: M4 domain files, GEDE essays and the
DetectRL test files.

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
DetectRL (``read_detectrl``)
    A JSON list of ``{text, label, llm_type}`` (``Benchmark/Benchmark_Data`` of
    NLP2CT/DetectRL, pinned to one commit). ``reader_options["labels"]``:
    ``"generator"`` (``human``, else the ``llm_type``: multi-domain and direct-prompt
    sets) or ``"binary"`` (``human``/``llm``: the attack sets). Rows without a text,
    and (binary) with another label, are dropped (counted).
"""

from __future__ import annotations

import posixpath
from typing import Any

import pandas as pd

from ._files import json_lines, load_json, source_tree
from ._steb import frame, smoke_cut
from .text import read_text, report_dropped, spec_files

__all__ = ["DETECTRL_URLS", "read_detectrl", "read_gede", "read_m4"]

_DETECTRL = ("https://raw.githubusercontent.com/NLP2CT/DetectRL/"
             "3472f0ae3cc81133c821e901f6d5c8f79c60dd23/Benchmark/Benchmark_Data")
DETECTRL_URLS = {
    "arxiv": f"{_DETECTRL}/Multi_Domain/multi_domains_arxiv_test.json",
    "writing_prompt": f"{_DETECTRL}/Multi_Domain/multi_domains_writing_prompt_test.json",
    "xsum": f"{_DETECTRL}/Multi_Domain/multi_domains_xsum_test.json",
    "yelp_review": f"{_DETECTRL}/Multi_Domain/multi_domains_yelp_review_test.json",
    "direct_prompt": f"{_DETECTRL}/Direct_Prompt/direct_prompt_test.json",
    "paraphrase": f"{_DETECTRL}/Paraphrase_Attacks/paraphrase_attacks_llm_test.json",
    "perturbation": f"{_DETECTRL}/Perturbation_Attacks/perturbation_attacks_llm_test.json",
    "prompt": f"{_DETECTRL}/Prompt_Attacks/prompt_attacks_llm_test.json",
}

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


def read_detectrl(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """DetectRL test records labelled by generator or human/llm (module docstring)."""
    del seed
    [(url, path)] = spec_files(spec).items()
    data = load_json(read_text(path, name=url), url)
    if not isinstance(data, list):
        raise ValueError(f"{url}: expected a JSON list of records, got "
                         f"{type(data).__name__}")
    binary = spec.reader_options["labels"] == "binary"
    rows = []
    for i, row in enumerate(data):
        if not isinstance(row, dict):
            raise ValueError(f"{url}: record {i} is a {type(row).__name__}, expected an "
                             f"object with 'text' and 'label'")
        text = row.get("text")
        if not text or not isinstance(text, str):
            continue
        if binary:
            label = row.get("label")
            if label not in ("human", "llm"):
                continue
        else:
            label = "human" if row.get("label") == "human" else row.get("llm_type", "llm")
            if label is None:
                continue
        rows.append({"text": text, "label": str(label)})
    report_dropped(spec.name, len(data) - len(rows), len(data),
                   "records without a text" + (" or a human/llm label" if binary else
                                               " or generator"))
    return smoke_cut(frame(rows), smoke)
