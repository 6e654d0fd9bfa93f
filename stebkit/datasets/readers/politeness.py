"""Stanford Politeness Corpus (sudhof/politeness ``corpora/*.annotated.csv``), read by
:func:`read_politeness`, and ConvoKit's politeness corpora (:func:`read_convokit_politeness`).

Each row of an annotated CSV is a request with five annotator scores and a ``Normalized
Score`` (z-scored within its corpus). ``sampling`` chooses the records:

``"all"`` (the STEB catalogue's ``wikipedia_politeness`` and ``stackexchange_politeness``)
    The reference reads ConvoKit's ``wikipedia-politeness-corpus`` and
    ``stack-exchange-politeness-corpus`` (``utterances.jsonl``, label from the
    utterance's ``meta.Binary``: 1 polite, 0 neutral, -1 impolite). Those corpora are
    built from the same annotated requests as the CSV of the site, which is what is
    read here: the ``Request`` texts in file order, labelled with the paper's rule
    behind ``Binary`` (Danescu-Niculescu-Mizil et al., 2013): the top quartile of
    ``Normalized Score`` within the site is ``polite``, the bottom quartile
    ``impolite``, the rest ``neutral``. How it differs: the quartile cut points are
    computed here (inclusive, linear interpolation), so requests at a boundary score
    may be labelled differently from ConvoKit's ``Binary``, and the record order is the
    CSV's, not ConvoKit's utterance order. :func:`read_convokit_politeness` reads
    ConvoKit's own zip exactly as the reference does (``<corpus>/utterances.jsonl``
    read in place; blank texts and a missing or non-integer ``Binary`` skipped,
    counted): give a spec with :data:`CONVOKIT_POLITENESS_URLS` as its source to follow
    the reference online.
``"seeded"`` (the lite suite), by ``reader_options["design"]``:
    ``community``: label = ``wikipedia`` or ``stackexchange`` (the file),
    ``per_label`` requests each. ``level``: label = politeness quintile of
    ``Normalized Score`` over both corpora (``1-least`` ... ``5-most``), ``per_label``
    requests each, with a stratified ``split`` for probing.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pandas as pd

from ._files import json_lines, source_tree
from ._records import is_seeded, labelled, with_splits
from ._steb import frame, smoke_cut
from .text import normalise, read_text, report_dropped, require_columns, rng_for, spec_files

__all__ = ["CONVOKIT_POLITENESS_URLS", "POLITENESS_URLS", "read_convokit_politeness",
           "read_politeness", "read_requests"]

_POLITENESS = ("https://raw.githubusercontent.com/sudhof/politeness/"
               "0449a15089479ee94ecad6b1698e8f3a2e5637ce/corpora")
POLITENESS_URLS = {site: f"{_POLITENESS}/{site}.annotated.csv"
                   for site in ("wikipedia", "stack-exchange")}
CONVOKIT_POLITENESS_URLS = {
    site: f"https://zissou.infosci.cornell.edu/convokit/datasets/{slug}/{slug}.zip"
    for site, slug in (("wikipedia", "wikipedia-politeness-corpus"),
                       ("stack-exchange", "stack-exchange-politeness-corpus"))}

COLUMNS = ("Community", "Request", "Normalized Score")
LEVELS = ("1-least", "2-less", "3-middle", "4-more", "5-most")


def read_requests(path: Any) -> pd.DataFrame:
    """``text, community, score`` of one annotated CSV; errors name the file."""
    text = read_text(path)
    if not text.strip():
        raise ValueError(f"{path}: empty file; expected a politeness CSV")
    try:
        raw = pd.read_csv(io.StringIO(text), dtype={"Request": str})
    except pd.errors.ParserError as err:
        raise ValueError(f"{path}: not a readable CSV ({err})") from None
    require_columns(raw.columns, COLUMNS, str(path))
    score = pd.to_numeric(raw["Normalized Score"], errors="coerce")
    bad = score.isna() | raw["Request"].isna()
    if bad.any():
        line = int(bad.to_numpy().nonzero()[0][0]) + 2
        raise ValueError(f"{path} line {line}: missing request or non-numeric "
                         "'Normalized Score'")
    return pd.DataFrame({"text": raw["Request"].map(normalise), "score": score,
                         "source": "stackexchange" if "stack" in str(path) else "wikipedia"})


def read_politeness(spec: Any, *, seed: int = 42, smoke: bool = False,
                    sampling: str) -> pd.DataFrame:
    """Politeness records: every request of one site labelled by score quartile
    (``sampling="all"``) or a seeded sample for the design in ``spec.reader_options``
    (``"seeded"``); see the module docstring."""
    if is_seeded(sampling, spec.name):
        return _seeded_design(spec, seed, smoke)
    return _all_requests(spec, smoke)


def _seeded_design(spec: Any, seed: int, smoke: bool) -> pd.DataFrame:
    opts = spec.reader_options
    requests = pd.concat([read_requests(p) for p in spec_files(spec).values()],
                         ignore_index=True)
    rng = rng_for(seed)
    k = opts["smoke_per_label" if smoke else "per_label"]
    if opts["design"] == "community":
        return labelled(requests.assign(label=requests["source"]), k, rng)
    bins = pd.qcut(requests["score"], len(LEVELS), labels=list(LEVELS))
    out = labelled(requests.assign(label=bins.astype(str)), k, rng)
    return with_splits(out, rng)


def _all_requests(spec: Any, smoke: bool) -> pd.DataFrame:
    """Requests labelled polite / neutral / impolite by score quartile (module docstring)."""
    [(url, path)] = spec_files(spec).items()
    text = read_text(path, name=url)
    try:
        raw = pd.read_csv(io.StringIO(text), dtype={"Request": str}, keep_default_na=False)
    except pd.errors.ParserError as err:
        raise ValueError(f"{url}: not a readable CSV ({err})") from None
    require_columns(raw.columns, ("Request", "Normalized Score"), url)
    score = pd.to_numeric(raw["Normalized Score"], errors="coerce")
    if score.isna().any():
        line = int(score.isna().to_numpy().nonzero()[0][0]) + 2
        raise ValueError(f"{url} line {line}: 'Normalized Score' is not a number")
    low, high = np.percentile(score.to_numpy(), [25, 75])
    labels = np.where(score >= high, "polite", np.where(score <= low, "impolite", "neutral"))
    keep = raw["Request"].map(lambda t: isinstance(t, str) and bool(t.strip())).to_numpy()
    report_dropped(spec.name, int((~keep).sum()), len(raw), "requests with an empty text")
    out = pd.DataFrame({"text": raw["Request"][keep], "label": labels[keep]})
    return smoke_cut(out.reset_index(drop=True), smoke)


_BINARY = {1: "polite", 0: "neutral", -1: "impolite"}


def read_convokit_politeness(spec: Any, *, seed: int = 42,
                             smoke: bool = False) -> pd.DataFrame:
    """Utterances of a ConvoKit politeness corpus zip, labelled by ``meta.Binary``."""
    del seed
    tree = source_tree(spec)
    member = tree.find("*utterances.jsonl", what="utterances.jsonl")
    where = f"{tree.label} -> {member}"
    utterances = json_lines(tree.text(member), where)
    rows = []
    for utterance in utterances:
        if not isinstance(utterance, dict):
            raise ValueError(f"{where}: an utterance is a {type(utterance).__name__}, "
                             f"expected a JSON object")
        text = utterance.get("text", "")
        binary = (utterance.get("meta") or {}).get("Binary")
        if not isinstance(text, str) or not text.strip() or not isinstance(binary, int) \
                or binary not in _BINARY:
            continue
        rows.append({"text": text, "label": _BINARY[binary]})
    if not rows:
        raise ValueError(f"{where}: no utterance with a text and a Binary label")
    report_dropped(spec.name, len(utterances) - len(rows), len(utterances),
                   "utterances without a text or a -1/0/1 Binary label")
    return smoke_cut(frame(rows), smoke)
