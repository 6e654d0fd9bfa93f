"""ELTeC novels (COST-ELTeC ``level1`` TEI XML plus the collection's metadata TSV).

Each novel is parsed once with :mod:`xml.etree.ElementTree`; the paragraphs
(``<p>``, and verse lines ``<l>``) of ``<text>/<body>`` are kept, notes dropped, and
the text is cut into 60-120-word passages on sentence boundaries. The author comes
from the TSV ``author-name`` column joined on the file name, or from the TEI
``titleStmt/author`` when that cell is blank or ``NA``; authors are grouped after
removing life dates, bracketed pseudonym notes, case and diacritics.

Designs (``reader_options["design"]``):

Passages are spread over each novel (:func:`~.text.spread_passages`), so that the
whole novel need not be cut.

``authorship``
    ``per_label`` passages per author, half from each novel (label = author, ``work`` =
    novel): clustering and all-to-all pairs.
``verification``
    predefined pairs: ``pairs_per_label`` same-author pairs per author, each joining a
    passage of the author's first novel with one of the second; as many
    different-author pairs (no passage reused).
``retrieval``
    ``per_side`` passages of the author's first novel (``side="query"``) and of the
    second (``side="target"``), label = author.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pandas as pd

from ._records import cross_work_pairs, cross_work_retrieval, labelled
from .text import (
    normalise,
    read_text,
    require_columns,
    rng_for,
    spec_files,
    spread_passages,
    strip_diacritics,
)

TEI = "{http://www.tei-c.org/ns/1.0}"
_DATES = re.compile(r"\(?\b\d{3,4}\s*[-–]\s*\d{0,4}\b\)?|\[[^\]]*\]|\([^)]*\)")


def clean_author(name: str) -> str:
    """Display form of an author name: dates and bracketed notes removed.

    >>> clean_author("Ward, Humphry, Mrs. (1851-1920)")
    'Ward, Humphry, Mrs.'
    >>> clean_author("Eliot, George [pseud.]")
    'Eliot, George'
    """
    return normalise(_DATES.sub(" ", name)).strip(" ,;")


def author_key(name: str) -> str:
    """Grouping key: cleaned, case-folded, without diacritics.

    >>> author_key("Féval, Paul Henri Corentin [dit Paul Féval père]")
    'feval, paul henri corentin'
    """
    return strip_diacritics(clean_author(name)).casefold()


def _text_of(elem: ET.Element) -> str:
    """All text under ``elem`` except inside notes, keeping tails."""
    parts: list[str] = []

    def walk(e: ET.Element) -> None:
        if e.tag == f"{TEI}note":
            return
        if e.text:
            parts.append(e.text)
        for child in e:
            walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(elem)
    return normalise(" ".join(parts))


def read_novel(path: Path) -> tuple[str, list[str]]:
    """(TEI ``titleStmt`` author, body paragraphs) of one ELTeC level-1 file."""
    data = Path(path).read_bytes()
    if not data.strip():
        raise ValueError(f"{path}: empty file; expected an ELTeC TEI document")
    try:
        root = ET.parse(io.BytesIO(data)).getroot()
    except ET.ParseError as err:
        line, col = err.position
        raise ValueError(f"{path} line {line}, column {col}: malformed XML ({err}); "
                         "the file may be truncated: fetch it again") from None
    author = root.find(f"{TEI}teiHeader/{TEI}fileDesc/{TEI}titleStmt/{TEI}author")
    author_name = _text_of(author) if author is not None else ""
    body = root.find(f"{TEI}text/{TEI}body")
    if body is None:
        raise ValueError(f"{path}: no <text>/<body> element; not an ELTeC TEI file")
    paragraphs = [t for e in body.iter() if e.tag in (f"{TEI}p", f"{TEI}l")
                  if (t := _text_of(e))]
    if not paragraphs:
        raise ValueError(f"{path}: the body has no paragraphs")
    return author_name, paragraphs


def read_metadata(path: Path) -> dict[str, str]:
    """File name (without ``.xml``) -> ``author-name`` from an ELTeC metadata TSV."""
    frame = pd.read_csv(io.StringIO(read_text(path)), sep="\t", dtype=str,
                        keep_default_na=False)
    require_columns(frame.columns, ("filename", "author-name"), str(path))
    return {f.strip(): a.strip() for f, a in zip(frame["filename"], frame["author-name"],
                                                 strict=True)}


def select_novels(spec: Any, parsed: dict[Path, tuple[str, list[str]]] | None = None
                  ) -> dict[str, list[tuple[str, Path]]]:
    """Author label -> their first two novels ``(file stem, path)`` by file name, for
    authors with at least two novels among the spec's files (sorted by author key).

    Novels parsed to find their author are kept in ``parsed`` (path -> result of
    :func:`read_novel`), so that no file is parsed twice.
    """
    parsed = {} if parsed is None else parsed
    files = spec_files(spec)
    meta_urls = [u for u in files if u.endswith("_metadata.tsv")]
    if len(meta_urls) != 1:
        raise ValueError(f"{spec.name}: expected one ELTeC metadata TSV among the URLs")
    meta = read_metadata(files[meta_urls[0]])
    by_key: dict[str, list[tuple[str, str, Path]]] = {}
    for url, path in sorted(files.items()):
        if not url.endswith(".xml"):
            continue
        stem = Path(url).name[:-4]
        name = meta.get(stem, "")
        if name in ("", "NA"):
            parsed[path] = read_novel(path)
            name = parsed[path][0]  # the TEI header names the author
        if not clean_author(name):
            raise ValueError(f"{path}: no author in the metadata TSV or the TEI header")
        by_key.setdefault(author_key(name), []).append((stem, clean_author(name), path))
    selected = {}
    for _, works in sorted(by_key.items()):
        works = sorted(works)
        if len(works) >= 2:
            selected[works[0][1]] = [(stem, path) for stem, _, path in works[:2]]
    if not selected:
        raise ValueError(f"{spec.name}: no author has two novels among the spec's files")
    return selected


def read_passages(novels: dict[str, list[tuple[str, Path]]], per_work: int, rng: Any,
                  parsed: dict[Path, tuple[str, list[str]]] | None = None) -> pd.DataFrame:
    """``per_work`` passages spread over each novel: ``text, label, work``."""
    parsed = {} if parsed is None else parsed
    rows = []
    for label, works in novels.items():
        for stem, path in works:
            paragraphs = (parsed.get(path) or read_novel(path))[1]
            rows += [{"text": t, "label": label, "work": stem}
                     for t in spread_passages(paragraphs, per_work, rng)]
    return pd.DataFrame(rows, columns=["text", "label", "work"])


def read_eltec(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """ELTeC records for the design in ``spec.reader_options`` (see module docs)."""
    opts = spec.reader_options
    rng = rng_for(seed)
    parsed: dict[Path, tuple[str, list[str]]] = {}
    novels = select_novels(spec, parsed)
    if smoke:
        novels = dict(list(novels.items())[: opts.get("smoke_authors", 4)])
    design = opts["design"]
    suffix = "smoke_" if smoke else ""
    if design == "authorship":
        k = opts[f"{suffix}per_label"]
        return labelled(read_passages(novels, -(-k // 2), rng, parsed), k, rng)
    if design == "retrieval":
        k = opts[f"{suffix}per_side"]
        return cross_work_retrieval(read_passages(novels, k, rng, parsed), k, rng)
    if design == "verification":
        n = opts[f"{suffix}pairs_per_label"]
        return cross_work_pairs(read_passages(novels, 3 * n, rng, parsed), n, rng)
    raise ValueError(f"{spec.name}: unknown ELTeC design {design!r}; "
                     "use 'authorship', 'verification' or 'retrieval'")
