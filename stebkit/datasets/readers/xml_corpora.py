"""XML corpora of the STEB catalogue: CEECES letters (TEI) and FCE learner scripts.

CEECES (``read_ceeces``)
    CEECES 1 and 2 (Zenodo): per subset, a tab-separated metadata file (Windows-1252,
    columns ``LetterID`` and ``Period``) and a zip of TEI files
    (``CEECES <n> - XML files by collection/*.xml``, sorted). Each ``<TEI xml:id=...>``
    element is a letter; its text is its ``<text>``'s ``<p>`` paragraphs (inline markup
    flattened, whitespace collapsed) joined with a blank line; the label is the
    letter's ``Period`` (e.g. ``1680-1699``). Letters without a period in the metadata,
    or without text, are skipped (counted).
FCE (``read_fce``)
    ``fce-released-dataset/dataset/**/*.xml`` (sorted): one record per
    ``<coded_answer>``, labelled by ``personnel/language`` (the writer's first
    language, required). The learner's own words are kept: every correction ``<c>`` is
    dropped with its content (its tail kept); paragraphs are whitespace-collapsed and
    joined with a blank line. A paragraph without leading text is an error, as in the
    reference.
"""

from __future__ import annotations

import csv
import io
import posixpath
import re
import xml.etree.ElementTree as ET
from typing import Any

import pandas as pd

from ._files import open_source
from ._steb import frame, smoke_cut
from .text import decode, report_dropped

__all__ = ["read_ceeces", "read_fce"]

_XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
_WS = re.compile(r"\s+")


def _local(tag: Any) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _children(elem: ET.Element, name: str) -> list[ET.Element]:
    return [c for c in elem if _local(c.tag) == name]


def _parse(data: bytes, where: str) -> ET.Element:
    try:
        return ET.fromstring(data)
    except ET.ParseError as err:
        raise ValueError(f"{where} is not well-formed XML ({err}); the file is damaged: "
                         f"delete it to download it again") from None


def _periods(text: str, where: str) -> dict[str, str]:
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t")
    missing = {"LetterID", "Period"} - set(reader.fieldnames or [])
    if missing:
        raise ValueError(f"{where} lacks the column(s) {sorted(missing)}; it has "
                         f"{reader.fieldnames}")
    return {row["LetterID"].strip(): (row["Period"] or "").strip() for row in reader
            if (row["LetterID"] or "").strip() and (row["Period"] or "").strip()}


def letter_text(tei: ET.Element) -> str:
    """The paragraphs of a TEI letter's ``<text>``, flattened and joined.

    >>> letter_text(ET.fromstring("<TEI><text><p>Dear <hi>Sir</hi>,\\n  thanks</p>"
    ...                           "<p> </p><p>Yours</p></text></TEI>"))
    'Dear Sir, thanks\\n\\nYours'
    """
    texts = _children(tei, "text")
    if not texts:
        return ""
    paragraphs = [_WS.sub(" ", "".join(p.itertext())).strip()
                  for p in _children(texts[0], "p")]
    return "\n\n".join(p for p in paragraphs if p)


def read_ceeces(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """CEECES 1 and 2 letters labelled by their 20-year period."""
    urls = dict(spec.source.urls)
    rows, skipped, total = [], 0, 0
    for part in spec.reader_options["parts"]:
        meta_url, zip_url = part["metadata"], part["archive"]
        meta = open_source(meta_url, urls.get(meta_url))
        periods = _periods(decode(meta.read(meta.names()[0]), meta_url, "cp1252"), meta_url)
        tree = open_source(zip_url, urls.get(zip_url))
        folder = part["folder"]
        names = sorted(n for n in tree.names() if posixpath.dirname(n).endswith(folder)
                       and n.endswith(".xml"))
        if not names:
            tree.find(f"*{folder}/*.xml", what="TEI file")
        for name in names:
            root = _parse(tree.read(name), f"{tree.label}: {name}")
            for tei in (e for e in root.iter() if _local(e.tag) == "TEI"):
                letter = tei.attrib.get(_XML_ID)
                if not letter:
                    continue
                total += 1
                text = letter_text(tei)
                if not periods.get(letter) or not text:
                    skipped += 1
                    continue
                rows.append({"text": text, "label": periods[letter]})
    report_dropped(spec.name, skipped, total, "letters without a period or without text")
    return smoke_cut(frame(rows), smoke)


def _learner_words(elem: ET.Element, out: list[str], where: str) -> None:
    for child in elem:
        if child.tag == "c":
            if child.tail:
                out.append(child.tail)
            continue
        if child.text:
            out.append(child.text)
        _learner_words(child, out, where)
        if child.tail:
            out.append(child.tail)


def learner_text(answer: ET.Element, where: str = "answer") -> str:
    """The learner's own text of one ``<coded_answer>`` (corrections ``<c>`` dropped).

    >>> learner_text(ET.fromstring("<coded_answer><p>I <NS><i>goed</i><c>went</c></NS> "
    ...                            "home.</p><p>Bye</p></coded_answer>"))
    'I goed home.\\n\\nBye'
    """
    paragraphs = []
    for p in answer.findall("p"):
        if not p.text:
            raise ValueError(f"{where}: a <p> paragraph has no leading text; the reference "
                             f"rejects such scripts")
        chunks = [p.text]
        _learner_words(p, chunks, where)
        cleaned = _WS.sub(" ", "".join(chunks)).strip()
        if cleaned:
            paragraphs.append(cleaned)
    return "\n\n".join(paragraphs)


def read_fce(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """FCE answers labelled by the writer's first language."""
    url, sha = spec.source.urls[0]
    tree = open_source(url, sha)
    names = sorted((n for n in tree.names() if "fce-released-dataset/dataset/" in n
                    and n.endswith(".xml")), key=lambda n: n.split("/"))  # path order
    if not names:
        tree.find("*fce-released-dataset/dataset/*.xml", what="learner script")
    rows = []
    for name in names:
        where = f"{tree.label}: {name}"
        root = _parse(tree.read(name), where)
        language = root.find(".//personnel/language")
        if language is None or not (language.text or "").strip():
            raise ValueError(f"{where} has no personnel/language (the label); the file is "
                             f"not an FCE learner script")
        for answer in root.iter("coded_answer"):
            rows.append({"text": learner_text(answer, where), "label": language.text.strip()})
    return smoke_cut(frame(rows), smoke)
