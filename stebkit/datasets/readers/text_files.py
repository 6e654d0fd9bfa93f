"""Text-file corpora of the STEB catalogue: MASC, StylePTB, AAVE/SAE tweets, PASTEL.

MASC (``read_masc``)
    ``data/spoken/<genre>/**.txt`` and ``data/written/<genre>/**.txt`` of MASC 3.0.0:
    the files of a genre (the folder under ``spoken``/``written``; nested folders such
    as e-mail's belong to it), in sorted path order, read as text mode reads them
    (``\\r\\n`` and ``\\r`` become ``\\n``), give the reference's 150 samples per
    genre; genres in sorted order. As the reference's recursive glob, files and folders
    below the genre whose name starts with ``.`` are left out (counted).
    ``reader_options["chunks"]`` chooses the cut, one per stored version of the
    reference's ``steb/steb_datasets/masc_text_genre/loader.py``:
    ``"characters"`` (the default; commit 07110ea) joins the files with a newline and
    cuts the result into 150 contiguous character ranges of equal length, whitespace
    kept; ``"words"`` (commit e5d6ebc) joins them with a space, splits on whitespace
    and joins each of 150 equal runs of words with single spaces. Neither can be shown
    to be the newer by content: the reference's dataset configuration, dataset loader
    and tests do not depend on the cut, and both give exactly 150 samples per genre.
    The default stays the character ranges, the cut stebkit has always used, so stored
    MASC results stay comparable. A third stored version (blank-line blocks grouped up
    to a per-genre word target, at most 150 per genre) is not offered.
StylePTB (``read_styleptb``)
    ``fulldata.h16``: a sequence of lines read as triplets ``<code>``, ``<source>``,
    ``<target>`` at every line whose first three characters are one of the 15 kept
    transformation codes; the set is ``[target, source]`` (the transformed sentence at
    position 0), labelled by the transformation's name. The synonym/antonym
    replacements (NSR, ASR, VSR, NAR, AAR, VAR) are excluded; sets with a blank side are
    skipped (counted). Text keeps the Penn Treebank tokenisation.
AAVE/SAE tweets (``read_aave_sae``)
    ``aave_samples.txt`` and ``sae_samples.txt``, line-aligned (equal line counts
    required): each pair of stripped lines is a set ``[aave, sae]`` labelled ``aave``;
    pairs with a blank side are skipped (counted).
PASTEL (``read_pastel``)
    Every story ``*.json`` under ``stories/`` (train, dev and test, sorted by path): the
    ``output.sentences`` joined with spaces, labelled by the annotator's
    ``persona[reader_options["attribute"]]``; stories without text or whose attribute
    is missing, blank or ``Empty`` are skipped (counted).
"""

from __future__ import annotations

import posixpath
from typing import Any

import pandas as pd

from ._files import load_json, source_tree
from ._steb import frame, set_records, smoke_cut
from .text import report_dropped, text_lines

__all__ = ["MASC_CHUNKS", "STYLEPTB_CODES", "equal_chunks", "equal_word_chunks",
           "read_aave_sae", "read_masc", "read_pastel", "read_styleptb"]

MASC_SAMPLES = 150
MASC_CHUNKS = ("characters", "words")
"""Values of MASC's ``chunks`` reader option (the first is the default)."""


def equal_chunks(text: str, n: int) -> list[str]:
    """``text`` cut into ``n`` contiguous ranges of (almost) equal length.

    >>> equal_chunks("abcdefg", 3)
    ['ab', 'cd', 'efg']
    """
    size = len(text)
    return [text[i * size // n:(i + 1) * size // n] for i in range(n)]


def equal_word_chunks(text: str, n: int) -> list[str]:
    """The words of ``text`` (split on whitespace) cut into ``n`` contiguous runs of
    (almost) equal length, each joined with single spaces.

    >>> equal_word_chunks("a b\\nc  d e", 2)
    ['a b', 'c d e']
    """
    words = text.split()
    size = len(words)
    return [" ".join(words[i * size // n:(i + 1) * size // n]) for i in range(n)]


def read_masc(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """MASC passages, 150 per genre."""
    chunks = spec.reader_options.get("chunks", MASC_CHUNKS[0])
    if chunks not in MASC_CHUNKS:
        raise ValueError(f"dataset {spec.name!r}: reader option chunks={chunks!r} must be "
                         f"one of {MASC_CHUNKS}")
    tree = source_tree(spec)
    genres: dict[str, list[str]] = {}
    hidden = 0
    for name in tree.names():
        parts = name.split("/")
        for i in range(len(parts) - 3):
            if parts[i] == "data" and parts[i + 1] in ("spoken", "written") \
                    and name.endswith(".txt"):
                if any(p.startswith(".") for p in parts[i + 3:]):
                    hidden += 1
                else:
                    genres.setdefault(parts[i + 2], []).append(name)
                break
    if not genres:
        tree.find("*data/written/*.txt", what="MASC text file")
    report_dropped(spec.name, hidden, hidden + sum(map(len, genres.values())),
                   "text files named or filed under a name starting with '.', which the "
                   "reference's glob skips")
    rows = []
    for genre in sorted(genres):
        texts = [tree.text(n, errors="replace", newline=None) for n in sorted(genres[genre])]
        cut = (equal_chunks("\n".join(texts), MASC_SAMPLES) if chunks == "characters"
               else equal_word_chunks(" ".join(texts), MASC_SAMPLES))
        rows += [{"text": chunk, "label": genre} for chunk in cut]
    return smoke_cut(frame(rows), smoke)


STYLEPTB_CODES: dict[str, str] = {
    "TFU": "to_future", "TPA": "to_past", "TPR": "to_present", "ATP": "active_to_passive",
    "PTA": "passive_to_active", "PFB": "pp_front_to_back", "PBF": "pp_back_to_front",
    "ARR": "adjective_adverb_removal", "SBR": "substatement_removal", "PPR": "pp_removal",
    "IAD": "information_addition", "AEM": "adjective_emphasis", "VEM": "verb_emphasis",
    "LFS": "least_frequent_synonym", "MFS": "most_frequent_synonym",
}
"""The 15 StylePTB transformations STEB keeps, code -> name."""


def read_styleptb(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """StylePTB single-transform pairs as ordered sets ``[target, source]``."""
    tree = source_tree(spec)
    name = tree.find("*fulldata.h16", what="fulldata.h16")
    lines = tree.text(name).splitlines()
    sets, skipped = [], 0
    for i in range(len(lines) - 2):
        code = lines[i][:3]
        if code not in STYLEPTB_CODES:
            continue
        source, target = lines[i + 1], lines[i + 2]
        if not source or not target:
            skipped += 1
            continue
        sets.append((STYLEPTB_CODES[code], [target, source]))
    report_dropped(spec.name, skipped, skipped + len(sets), "pairs with a blank side")
    return set_records(sets, smoke)


def read_aave_sae(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Line-aligned AAVE tweets and their SAE rewrites, AAVE first."""
    tree = source_tree(spec)
    sides = []
    for leaf in ("aave_samples.txt", "sae_samples.txt"):
        member = tree.find(f"*{leaf}", what=leaf)
        sides.append((member, text_lines(tree.text(member))))
    (a_name, aave), (s_name, sae) = sides
    if len(aave) != len(sae):
        raise ValueError(f"{tree.label}: {a_name} has {len(aave)} lines but {s_name} has "
                         f"{len(sae)}; the two files must be line-aligned")
    sets = [("aave", [a, s]) for a, s in zip(aave, sae, strict=True) if a and s]
    report_dropped(spec.name, len(aave) - len(sets), len(aave), "pairs with a blank side")
    return set_records(sets, smoke)


def read_pastel(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """PASTEL stories labelled by one persona attribute of their annotator."""
    attribute = spec.reader_options["attribute"]
    tree = source_tree(spec)
    names = sorted(n for n in tree.names() if "/stories/" in f"/{n}" and n.endswith(".json")
                   and not posixpath.basename(n).startswith("."))
    if not names:
        tree.find("*stories/*.json", what="story file")
    rows = []
    for name in names:
        story = load_json(tree.text(name), f"{tree.label}: {name}")
        sentences = story.get("output.sentences", []) if isinstance(story, dict) else []
        if isinstance(sentences, str):
            sentences = [sentences]
        text = " ".join(s.strip() for s in sentences if isinstance(s, str) and s.strip())
        persona = story.get("persona", {}) if isinstance(story, dict) else {}
        label = persona.get(attribute, "") if isinstance(persona, dict) else ""
        if text and label and label != "Empty":
            rows.append({"text": text, "label": str(label)})
    report_dropped(spec.name, len(names) - len(rows), len(names),
                   f"stories without text or without the annotator's {attribute}")
    return smoke_cut(frame(rows), smoke)
