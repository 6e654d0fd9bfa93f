"""Shared helpers of the readers: fetching a spec's files, normalising text, cutting
passages on sentence boundaries, seeded sampling and reporting dropped rows.

Every reader turns raw files into the records documented in
:mod:`stebkit.datasets.spec`. The helpers here keep that uniform: the same sentence
splitter, the same passage lengths and the same way of saying what was filtered out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import warn

PASSAGE_MIN_WORDS = 60
PASSAGE_MAX_WORDS = 120


class DroppedRowsWarning(Warning):
    """The load report of a dataset: a documented filter removed rows from a source, or a
    documented rule kept rows a user may not expect (e.g. blank texts); the message gives
    the counts.

    It derives from :class:`Warning` (not :class:`UserWarning`): it reports an
    expected, documented filter, not a problem with the caller's input.
    """


def report_dropped(dataset: str, dropped: int, total: int, reason: str) -> None:
    """Warn that a documented filter removed ``dropped`` of ``total`` items.

    Nothing is reported when nothing was dropped.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     report_dropped("m4-deu", 3, 200, "not German")
    >>> str(caught[0].message)
    'm4-deu: dropped 3 of 200 items (not German)'
    """
    _report(dataset, "dropped", dropped, total, reason)


def report_kept(dataset: str, kept: int, total: int, reason: str) -> None:
    """Like :func:`report_dropped`, for ``kept`` of ``total`` items that a documented rule
    keeps where a user may expect a filter (``"<dataset>: kept 2 of 50 items (...)"``)."""
    _report(dataset, "kept", kept, total, reason)


def _report(dataset: str, verb: str, count: int, total: int, reason: str) -> None:
    if count:  # the warning names the caller's line that loaded the dataset
        warn(f"{dataset}: {verb} {count} of {total} items ({reason})", DroppedRowsWarning)


def is_absent(value: Any) -> bool:
    """A missing value of a table cell: ``None`` or NaN (not an empty string).

    >>> is_absent(None), is_absent(float("nan")), is_absent(""), is_absent(" ")
    (True, True, False, False)
    """
    return value is None or (isinstance(value, float) and value != value)


def is_blank(value: Any) -> bool:
    """A missing value, or a string of nothing but white space.

    >>> is_blank(None), is_blank("   "), is_blank("a")
    (True, True, False)
    """
    return is_absent(value) or (isinstance(value, str) and not value.strip())


def spec_files(spec: Any) -> dict[str, Path]:
    """Local paths of every file a spec's source pins, keyed by URL (sorted).

    Files come through :func:`stebkit.sources.fetch` (mirror, cache or download,
    checksum verified).
    """
    from stebkit.sources import fetch

    return {url: Path(fetch(url, sha256=sha)) for url, sha in sorted(spec.source.urls)}


def read_text(path: Path, encoding: str = "utf-8", name: str | None = None, *,
              newline: str | None = "") -> str:
    """Read a whole text file, with an error naming the file (or ``name``, e.g. its
    URL) and byte on bad encoding.

    ``newline`` is read as :func:`open` reads it (:func:`line_ends`): ``None`` reads the
    line ends as text mode does, ``""`` (the default here) keeps them as stored.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "bad.txt"
    >>> _ = p.write_bytes(b"ok\\xff")
    >>> read_text(p)
    Traceback (most recent call last):
    ...
    ValueError: .../bad.txt is not valid utf-8 (byte 2: invalid start byte)...
    >>> _ = p.write_bytes(b"a\\r\\nb\\rc")
    >>> read_text(p), read_text(p, newline=None)
    ('a\\r\\nb\\rc', 'a\\nb\\nc')
    """
    data = Path(path).read_bytes()
    return line_ends(decode(data, str(path) if name is None else name, encoding), newline)


def text_mode(text: str) -> str:
    """``text`` with its line ends as Python's text mode reads a file (universal
    newlines): ``\\r\\n`` and a lone ``\\r`` become ``\\n``; no other character changes.

    >>> text_mode("a\\r\\nb\\rc\\n\\u2028")
    'a\\nb\\nc\\n\\u2028'
    """
    return text.replace("\r\n", "\n").replace("\r", "\n")


def line_ends(text: str, newline: str | None) -> str:
    """``text`` with its line ends as ``open(..., newline=newline)`` reads them: ``None``
    reads them as text mode does (:func:`text_mode`), ``""`` keeps them as stored.

    The ``newline`` keyword of the readers (:func:`read_text`, ``Tree.text``) means this;
    the other values :func:`open` takes are not used, and are refused.

    >>> line_ends("a\\r\\nb\\r\\u2028", None), line_ends("a\\r\\nb\\r\\u2028", "")
    ('a\\nb\\n\\u2028', 'a\\r\\nb\\r\\u2028')
    >>> line_ends("a", "\\n")
    Traceback (most recent call last):
    ...
    ValueError: newline must be None (text mode's line ends) or '' (as stored), not '\\n'
    """
    if newline is None:
        return text_mode(text)
    if newline != "":
        raise ValueError(f"newline must be None (text mode's line ends) or '' (as stored), "
                         f"not {newline!r}")
    return text


def file_lines(text: str) -> list[str]:
    """The lines of a text file as Python iterates them (universal newlines), without
    their line ends.

    >>> file_lines("a\\r\\nb\\u2028c\\n"), file_lines("a\\n\\nb")
    (['a', 'b\\u2028c'], ['a', '', 'b'])
    """
    lines = text_mode(text).split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def text_lines(text: str) -> list[str]:
    """The lines Python's text mode yields for ``text`` (:func:`file_lines`), each stripped.

    ``\\r\\n`` and ``\\r`` end lines like ``\\n``; no other character does (unlike
    :meth:`str.splitlines`), and a final newline adds no empty line.

    >>> text_lines("a \\r\\nb\\u2028c\\n\\n")
    ['a', 'b\\u2028c', '']
    """
    return [line.strip() for line in file_lines(text)]


def folded(text: str) -> str:
    """``text`` lower-cased with whitespace runs collapsed, for "reads the same" checks.

    >>> folded("  The  LORD\\nsaid ")
    'the lord said'
    """
    return " ".join(text.lower().split())


def decode(data: bytes, name: str, encoding: str = "utf-8") -> str:
    """Decode ``data``; a decoding error names ``name`` and the line."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise ValueError(f"{name} is not valid {encoding} (byte {err.start}: {err.reason}); "
                         f"line {line}. Re-download the file or check its encoding.") from None


def require_columns(columns: Iterable[str], needed: Iterable[str], name: str) -> None:
    """Raise a ValueError naming the file and the missing columns.

    >>> require_columns(["text"], ["text", "label"], "a.csv")
    Traceback (most recent call last):
    ...
    ValueError: a.csv: missing column(s) ['label']; found ['text']. The file is not in the \
expected format.
    """
    columns = list(columns)
    missing = [c for c in needed if c not in set(columns)]
    if missing:
        raise ValueError(f"{name}: missing column(s) {missing}; found {columns}. "
                         "The file is not in the expected format.")


_WS = re.compile(r"\s+")


def normalise(text: str) -> str:
    """NFC-normalise and collapse all whitespace to single spaces.

    >>> normalise("  Hello,\\n\\n  world\\u00a0! ")
    'Hello, world !'
    """
    return _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def n_words(text: str) -> int:
    """Whitespace tokens, counting each CJK character as a word.

    >>> n_words("one two  three"), n_words("我们是")
    (3, 3)
    """
    cjk = len(_CJK.findall(text))
    return len(_CJK.sub(" ", text).split()) + cjk


# A sentence ends with . ! ? … (optionally followed by closing quotes/brackets) and the
# next one starts with an upper-case letter, a digit or an opening quote/dash; CJK
# full stops end a sentence wherever they are.
_SENT_END = re.compile(
    r"(?<=[.!?…][\"'”’»)\]])\s+(?=[\"'“‘«„¿¡(\[—–-]?[^\W_a-z])"
    r"|(?<=[.!?…])\s+(?=[\"'“‘«„¿¡(\[—–-]?[^\W_a-z])"
    r"|(?<=[。！？])"
)
_ABBREV = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|St|Mt|Prof|Sr|Jr|vs|etc|No|Gen|Col|Capt|Lt|"
                     r"Rev|Hon|Mme|Mlle|M|Sra|Sr|Dña|Hr|Fr|Dr|Nr|Sig|Sgr|ca|cf|z\.B|"
                     r"u\.a|d\.h|i\.e|e\.g)\.|\b[A-Z]\.)$")


def split_sentences_by_regex(text: str) -> list[str]:
    """Split normalised text into sentences with a conservative rule.

    A break needs sentence-final punctuation followed by a capital, digit or opening
    quote; common abbreviations and initials do not end a sentence.

    >>> split_sentences_by_regex("Mr. Smith came. He sat down! Did he? Yes.")
    ['Mr. Smith came.', 'He sat down!', 'Did he?', 'Yes.']
    """
    text = normalise(text)
    if not text:
        return []
    pieces = [p for p in _SENT_END.split(text) if p and p.strip()]
    sentences: list[str] = []
    for piece in pieces:
        piece = piece.strip()
        if sentences and _ABBREV.search(sentences[-1]):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences


_CLAUSE = re.compile(r"(?<=[;:,])\s+")


def _split_long(sentence: str, max_words: int) -> list[str]:
    """Cut a sentence longer than ``max_words`` at clause punctuation, else by words."""
    parts: list[str] = []
    current: list[str] = []
    for clause in _CLAUSE.split(sentence):
        candidate = " ".join([*current, clause])
        if current and n_words(candidate) > max_words:
            parts.append(" ".join(current))
            current = [clause]
        else:
            current.append(clause)
    if current:
        parts.append(" ".join(current))
    out: list[str] = []
    for part in parts:
        words = part.split()
        if n_words(part) <= max_words or len(words) < 2:
            out.append(part)
        else:
            out.extend(" ".join(words[i:i + max_words]) for i in range(0, len(words), max_words))
    return out


def cut_passages(text: str | Sequence[str], min_words: int = PASSAGE_MIN_WORDS,
                 max_words: int = PASSAGE_MAX_WORDS) -> list[str]:
    """Cut text (or a sequence of paragraphs) into consecutive passages on sentence
    boundaries, each of ``min_words`` to ``max_words`` words.

    Sentences longer than ``max_words`` are cut at clause punctuation. A trailing
    remainder shorter than ``min_words`` is not returned.

    >>> text = " ".join(f"Sentence number {i} has exactly seven words." for i in range(30))
    >>> [n_words(p) for p in cut_passages(text, min_words=20, max_words=40)]
    [35, 35, 35, 35, 35, 35]
    """
    paragraphs = [text] if isinstance(text, str) else list(text)
    passages: list[str] = []
    current: list[str] = []
    count = 0
    for paragraph in paragraphs:
        for sentence in split_sentences_by_regex(paragraph):
            for piece in (_split_long(sentence, max_words)
                          if n_words(sentence) > max_words else [sentence]):
                k = n_words(piece)
                if count + k > max_words:
                    if count >= min_words:
                        passages.append(" ".join(current))
                    current, count = [], 0
                current.append(piece)
                count += k
    if count >= min_words:
        passages.append(" ".join(current))
    return passages


def spread_passages(paragraphs: Sequence[str], k: int, rng: np.random.Generator,
                    min_words: int = PASSAGE_MIN_WORDS,
                    max_words: int = PASSAGE_MAX_WORDS) -> list[str]:
    """Up to ``k`` passages spread over a long text, without cutting all of it.

    The paragraphs are divided into ``k`` equal stretches; in each, a passage is cut
    from a seeded start paragraph on (sentence boundaries, ``min_words`` to
    ``max_words`` words). Stretches too short to yield a passage give none, and a
    passage found twice is kept once. Texts of fewer than ``4 * k`` paragraphs are
    cut whole and ``k`` passages sampled.

    >>> paras = [f"Paragraph {i} says one thing. It then says another thing." for i in range(40)]
    >>> out = spread_passages(paras, 3, rng_for(0), min_words=20, max_words=30)
    >>> len(out), all(20 <= n_words(p) <= 30 for p in out)
    (3, True)
    """
    n = len(paragraphs)
    if k <= 0 or n == 0:
        return []
    if n < 4 * k:  # too few paragraphs to spread over: cut them all and sample
        return sample(cut_passages(paragraphs, min_words, max_words), k, rng)
    bounds = np.linspace(0, n, k + 1).astype(int)
    out: list[str] = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        if hi <= lo:
            continue
        end = start = int(rng.integers(lo, hi))
        words = 0
        while end < n and words < 3 * max_words:
            words += len(paragraphs[end].split())
            end += 1
        found = cut_passages(paragraphs[start:end], min_words, max_words)
        if found and found[0] not in out:
            out.append(found[0])
    return out


def leading_passage(text: str, max_words: int = PASSAGE_MAX_WORDS) -> str:
    """The leading sentences of ``text`` up to ``max_words`` words (at least one piece).

    >>> leading_passage("One two three. Four five six. Seven.", max_words=6)
    'One two three. Four five six.'
    """
    out: list[str] = []
    count = 0
    for sentence in split_sentences_by_regex(text):
        for piece in (_split_long(sentence, max_words)
                      if n_words(sentence) > max_words else [sentence]):
            k = n_words(piece)
            if out and count + k > max_words:
                return " ".join(out)
            out.append(piece)
            count += k
    return " ".join(out)


def rng_for(seed: int) -> np.random.Generator:
    """The only source of randomness of the readers."""
    return np.random.default_rng(seed)


def sample(items: Sequence[Any], k: int, rng: np.random.Generator) -> list[Any]:
    """``k`` items drawn without replacement, kept in their input order (all if fewer).

    >>> sample(list("abcdef"), 3, rng_for(0))
    ['d', 'e', 'f']
    """
    if k >= len(items):
        return list(items)
    idx = np.sort(rng.choice(len(items), size=k, replace=False))
    return [items[i] for i in idx]


def per_label_sample(frame: Any, k: int, rng: np.random.Generator, by: str = "label") -> Any:
    """Up to ``k`` rows per value of ``by`` (labels visited in sorted order)."""
    import pandas as pd

    parts = []
    for _, group in sorted(frame.groupby(by, sort=True), key=lambda kv: str(kv[0])):
        rows = sample(list(range(len(group))), k, rng)
        parts.append(group.iloc[rows])
    if not parts:
        return frame.iloc[:0]
    return pd.concat(parts, ignore_index=True)


def strip_diacritics(text: str) -> str:
    """Remove combining marks: ``"Féval"`` -> ``"Feval"``."""
    return "".join(c for c in unicodedata.normalize("NFKD", text)
                   if not unicodedata.combining(c))
