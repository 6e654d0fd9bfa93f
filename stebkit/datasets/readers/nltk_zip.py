"""NLTK corpus zips (nltk_data ``packages/corpora/<name>.zip``, and the old gutenberg).

Supported corpora (``reader_options["corpus"]``) and their labels:

``gutenberg``
    author, from the file name (``austen-emma.txt``); ``work`` = file.
``state_union``
    president, from the file name (``1961-Kennedy.txt``); ``work`` = address.
``brown``
    genre from ``cats.txt``; ``word/tag`` tokens are untagged and detokenised.
``masc_tagged``
    register/genre from ``categories.txt``; ``word_TAG`` tokens likewise.
``webtext``
    source (firefox forum, overheard, pirates script, ...), from the file name.
``nps_chat``
    age group of the chat room (teens, 20s, 30s, 40s, adults), from the session file
    name; the posts (system JOIN/PART/NICK lines left out) are the paragraphs. User
    names, which spell out the room (``10-19-20sUser7``), and room names
    (``#talkcity_adults``) become ``USER``.

Members are decoded as UTF-8, falling back to Windows-1252, the legacy encoding
of the older NLTK texts; bytes valid in neither raise an error naming the member.
Texts are cut into 60-120-word passages (webtext: each line is a paragraph);
``reader_options["labels"]`` selects labels. Designs: ``labelled`` (``per_label``
passages per label; labels with fewer passages are dropped and reported) and
``retrieval`` (queries from a label's first work, targets from its second).
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd

from ._records import cross_work_retrieval, labelled, passages_per_label
from .text import decode, report_dropped, rng_for, spec_files

_PUNCT_BEFORE = re.compile(r"\s+([.,;:!?%)\]}]|'s\b|n't\b|'re\b|'ll\b|'ve\b|'d\b|'m\b)")
_PUNCT_AFTER = re.compile(r"([(\[{$])\s+")
_NPS_USER = re.compile(r"\d+-\d+-(?:teens|20s|30s|40s|adults)User\d+|#talkcity_\w+")


def detokenise(tokens: list[str]) -> str:
    """Join tokens into plain text.

    >>> detokenise(["``", "Yes", ",", "''", "he", "said", "(", "twice", ")", "."])
    '"Yes," he said (twice).'
    """
    text = " ".join(tokens)
    text = text.replace("``", '"').replace("''", '"')
    text = _PUNCT_BEFORE.sub(r"\1", text)
    text = _PUNCT_AFTER.sub(r"\1", text)
    text = re.sub(r'"\s+([^"]*?)\s+"', r'"\1"', text)
    return re.sub(r'"\s+([.,;:!?])', r'"\1', text)


def untag(line: str, sep: str) -> list[str]:
    """Words of a tagged line (``word/tag`` or ``word_TAG``).

    >>> untag("The/at jury/nn said/vbd ./.", "/")
    ['The', 'jury', 'said', '.']
    """
    return [tok.rsplit(sep, 1)[0] if sep in tok else tok for tok in line.split()]


class Corpus:
    """Read members of one NLTK corpus zip, with errors naming the file and member."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.zip = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError) as err:
            raise ValueError(f"{self.path}: not a readable zip archive ({err}); the file "
                             "may be truncated: fetch it again") from None
        self.names = sorted(n for n in self.zip.namelist() if not n.endswith("/"))

    def read(self, member: str) -> str:
        try:
            data = self.zip.read(member)
        except KeyError:
            raise ValueError(f"{self.path}: no member {member!r}") from None
        except (zipfile.BadZipFile, OSError, EOFError) as err:
            raise ValueError(f"{self.path}: member {member!r} is corrupt ({err})") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return decode(data, f"{self.path}:{member}", "cp1252")


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def read_corpus(path: Path, corpus: str) -> pd.DataFrame:
    """``text`` (whole document, paragraphs joined by newlines), ``label``, ``work``."""
    z = Corpus(path)
    if corpus in ("gutenberg", "state_union", "webtext"):
        rows = _plain_documents(z, corpus)
    elif corpus in ("brown", "masc_tagged"):
        rows = _tagged_documents(z, path, corpus)
    elif corpus == "nps_chat":
        rows = _chat_sessions(z, path)
    else:
        raise ValueError(f"unknown NLTK corpus {corpus!r}; use gutenberg, state_union, "
                         "brown, masc_tagged, webtext or nps_chat")
    if not rows:
        raise ValueError(f"{path}: no documents found for corpus {corpus!r}")
    return pd.DataFrame(rows)


def _plain_documents(z: Corpus, corpus: str) -> list[dict[str, Any]]:
    """The plain-text files of gutenberg, state_union or webtext, labelled by file name."""
    rows = []
    for member in z.names:
        stem = Path(member).stem
        if Path(member).name == "README":
            continue
        text = z.read(member)
        if corpus == "gutenberg":
            label = stem.split("-")[0]
            text = re.sub(r"^\[[^\]]*\]\s*", "", text)  # "[Emma by Jane Austen 1816]"
        elif corpus == "state_union":
            label = stem.split("-")[1]
        else:
            label = stem
        paragraphs = ([line.strip() for line in text.splitlines() if line.strip()]
                      if corpus == "webtext" else _paragraphs(text))
        rows.append({"label": label, "work": stem, "paragraphs": paragraphs})
    return rows


def _tagged_documents(z: Corpus, path: Path, corpus: str) -> list[dict[str, Any]]:
    """The tagged files of brown or masc_tagged, untagged, labelled by the corpus's
    category file."""
    cats_member = f"{corpus}/{'cats.txt' if corpus == 'brown' else 'categories.txt'}"
    categories = {}
    for i, line in enumerate(z.read(cats_member).splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) < 2:
            raise ValueError(f"{path}:{cats_member} line {i}: expected '<file> <category>'")
        categories[parts[0]] = parts[-1]
    sep = "/" if corpus == "brown" else "_"
    rows = []
    for name, label in sorted(categories.items()):
        member = f"{corpus}/{name}"
        paragraphs = [detokenise(untag(p, sep)) for p in _paragraphs(z.read(member))]
        rows.append({"label": label, "work": Path(name).stem, "paragraphs": paragraphs})
    return rows


def _chat_sessions(z: Corpus, path: Path) -> list[dict[str, Any]]:
    """The NPS Chat sessions (posts other than system lines, user names masked), labelled
    by the age group of the room."""
    import xml.etree.ElementTree as ET

    rows = []
    for member in z.names:
        if not member.endswith(".xml"):
            continue
        try:
            root = ET.fromstring(z.read(member))
        except ET.ParseError as err:
            raise ValueError(f"{path}:{member} line {err.position[0]}: malformed XML "
                             f"({err})") from None
        # user names ("10-19-20sUser7") name the room's age group: mask them
        posts = [_NPS_USER.sub("USER", " ".join((p.text or "").split()))
                 for p in root.iter("Post") if p.get("class") != "System"]
        stem = Path(member).stem  # 10-19-20s_706posts
        rows.append({"label": stem.split("_")[0].split("-")[2], "work": stem,
                     "paragraphs": [p for p in posts if p]})
    return rows

def read_nltk(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Records of one NLTK corpus (see module docs for the options)."""
    opts = spec.reader_options
    (path,) = [p for u, p in spec_files(spec).items() if u.endswith(".zip")]
    docs = read_corpus(path, opts["corpus"])
    if "labels" in opts:  # a documented selection, not a filter of bad rows
        docs = docs[docs["label"].isin(opts["labels"])]
    rng = rng_for(seed)
    if opts.get("design", "labelled") == "retrieval":
        k = opts["smoke_per_side" if smoke else "per_side"]
        firsts = docs.sort_values("work").groupby("label", sort=True).head(2)
        return cross_work_retrieval(passages_per_label(firsts, 2 * k, rng), k, rng)
    if smoke:
        keep = sorted(docs["label"].unique())[: opts.get("smoke_labels", 4)]
        docs = docs[docs["label"].isin(keep)]
    k = opts["smoke_per_label" if smoke else "per_label"]
    passages = passages_per_label(docs, k, rng)
    sizes = passages.groupby("label").size()
    small = sizes[sizes < opts.get("min_per_label", k)]
    report_dropped(spec.name, int(small.sum()), len(passages),
                   f"labels with too few passages: {sorted(small.index)}")
    passages = passages[~passages["label"].isin(small.index)]
    return labelled(passages.reset_index(drop=True), k, rng)
