"""Machine-generated text: Fast-DetectGPT raw data, M4 (Llama-2 test files) and ArguGPT.

All three give a ``label`` = who wrote the text (``human`` or the generator) for
clustering and all-to-all pairs; texts are cut to their leading 60-120-word passage.

Fast-DetectGPT (``<dataset>_<model>.raw_data.json``: ``original`` and ``sampled``
lists paired by index)
    each machine text continues the first ~30 tokens of its human text. The shared
    word prefix is removed from *both* texts, and so is the rest of the sentence it
    ends in, so the human and the machine side are both continuations. Pairs where
    either side keeps fewer than ``min_words`` words are dropped (reported). Human
    texts repeated across generator files are kept once.
M4 (``test_<source>_llama2.jsonl``: ``human_text``, ``machine_text``, ``model``)
    texts not in ``reader_options["language"]`` (by :func:`detect_language`) are
    dropped and reported: many "German", "Russian" or "Indonesian" machine texts are
    English.
ArguGPT (``machine-*.csv``: ``text``, ``model``)
    machine essays only; label = generator. The first sentence of each gpt2-xl essay
    is human-written and is removed.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ._records import labelled
from .text import (
    leading_passage,
    n_words,
    read_text,
    report_dropped,
    require_columns,
    rng_for,
    spec_files,
    split_sentences_by_regex,
)

_STOPWORDS = {
    "en": set("the of and to a in is that it for was on with as be by this are not at from "
              "or have an but they which you his her he she we their has were been will "
              "would can there all what".split()),
    "de": set("der die und in den von zu das mit sich des auf für ist im dem nicht ein eine "
              "als auch es an er hat aus bei wird sind war noch nach wie einer um über so "
              "zum oder vor zur bis".split()),
    "id": set("yang dan di ini itu dengan untuk tidak dari dalam akan pada juga ke karena "
              "ada oleh mereka saya kami kita sudah bisa atau telah bahwa seperti lebih "
              "menjadi adalah para".split()),
    "fr": set("le la les de des et en un une du est que qui dans pour pas sur au avec il "
              "elle ce sont par plus".split()),
    "es": set("el la los las de y en un una que es por con para del se al lo como más "
              "pero sus le ya".split()),
}
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_UKRAINIAN = re.compile(r"[іїєґІЇЄҐ]")
_RUSSIAN = re.compile(r"[ыэъёЫЭЪЁ]")


def detect_language(text: str) -> str:
    """A crude but sound language guess: script first, then stopword ratio.

    Returns an ISO 639-1 code (``en de id fr es ru uk zh``) or ``"unknown"``.

    >>> detect_language("The cat sat on the mat and it was happy.")
    'en'
    >>> detect_language("Der Hund ist nicht in dem Haus, und die Katze auch nicht.")
    'de'
    >>> detect_language("Это было давно, и мы не знали, что это так.")
    'ru'
    >>> detect_language("我们今天去公园散步。")
    'zh'
    """
    cjk, cyr, lat = (len(rx.findall(text)) for rx in (_CJK, _CYRILLIC, _LATIN))
    letters = cjk + cyr + lat
    if letters == 0:
        return "unknown"
    if cjk / letters > 0.3:
        return "zh"
    if cyr / letters > 0.5:
        return "uk" if len(_UKRAINIAN.findall(text)) > len(_RUSSIAN.findall(text)) else "ru"
    words = re.findall(r"[^\W\d_]+", text.lower())
    if not words:
        return "unknown"
    ratios = {lang: sum(w in sw for w in words) / len(words) for lang, sw in _STOPWORDS.items()}
    best = max(sorted(ratios), key=ratios.__getitem__)
    return best if ratios[best] >= 0.08 else "unknown"


def strip_shared_prefix(human: str, machine: str, limit: int = 400) -> tuple[str, str]:
    """Remove the common word prefix and the rest of the sentence it ends in; at most
    ``limit`` words after the prefix are kept.

    >>> strip_shared_prefix("A man came. He sat down. It rained all day.",
    ...                     "A man came. He left. The sun shone.")
    ('It rained all day.', 'The sun shone.')
    """
    h, m = human.split(), machine.split()
    k = 0
    while k < min(len(h), len(m)) and h[k] == m[k]:
        k += 1

    def rest(words: list[str]) -> str:
        sentences = split_sentences_by_regex(" ".join(words[k:k + limit]))
        if k == 0 or re.search(r"[.!?…][\"'”’)]?$", words[k - 1]):
            return " ".join(sentences)  # the prefix ended a sentence: all are whole
        return " ".join(sentences[1:])

    return rest(h), rest(m)


def _json(path: Path) -> Any:
    text = read_text(path)
    if not text.strip():
        raise ValueError(f"{path}: empty file; expected JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} line {err.lineno}: invalid JSON ({err.msg}); the file "
                         "may be truncated: fetch it again") from None


def read_fastdetect(path: Path) -> tuple[list[str], list[str]]:
    """``(original, sampled)`` of one Fast-DetectGPT raw-data file."""
    data = _json(path)
    if not isinstance(data, dict) or not {"original", "sampled"} <= set(data):
        raise ValueError(f"{path}: expected an object with 'original' and 'sampled' lists")
    if len(data["original"]) != len(data["sampled"]):
        raise ValueError(f"{path}: 'original' and 'sampled' differ in length")
    return [str(t) for t in data["original"]], [str(t) for t in data["sampled"]]


def read_jsonl(path: Path, needed: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows of a JSON-lines file; errors name the file and line."""
    rows = []
    for i, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path} line {i}: invalid JSON ({err.msg})") from None
        missing = [k for k in needed if k not in row]
        if missing:
            raise ValueError(f"{path} line {i}: missing field(s) {missing}")
        rows.append(row)
    if not rows:
        raise ValueError(f"{path}: empty file; expected JSON lines")
    return rows


def _fastdetect_frame(spec: Any) -> pd.DataFrame:
    min_words = spec.reader_options.get("min_words", 30)
    rows = []
    total = dropped = 0
    for url, path in spec_files(spec).items():
        m = re.search(r"/([a-z]+)_([^/]+)\.raw_data\.json$", url)
        if not m:
            continue
        originals, sampled = read_fastdetect(path)
        for i, (human, machine) in enumerate(zip(originals, sampled, strict=True)):
            total += 1
            h, mm = strip_shared_prefix(human, machine)
            h, mm = leading_passage(h), leading_passage(mm)
            if n_words(h) < min_words or n_words(mm) < min_words:
                dropped += 1
                continue
            rows.append({"text": h, "label": "human", "work": f"{m[2]}:{i}"})
            rows.append({"text": mm, "label": m[2], "work": f"{m[2]}:{i}"})
    report_dropped(spec.name, dropped, total,
                   f"fewer than {min_words} words left after removing the shared prefix")
    frame = pd.DataFrame(rows)
    return frame.drop_duplicates("text", keep="first").reset_index(drop=True)


def _m4_frame(spec: Any) -> pd.DataFrame:
    language = spec.reader_options["language"]
    rows = []
    counts = {"human": [0, 0], "machine": [0, 0]}
    for url, path in spec_files(spec).items():
        if not url.endswith(".jsonl"):
            continue
        source = Path(url).name.removeprefix("test_").removesuffix("_llama2.jsonl")
        for row in read_jsonl(path, ("human_text", "machine_text", "model")):
            for side, label in (("human_text", "human"), ("machine_text", str(row["model"]))):
                text = " ".join(str(row[side] or "").split()[:400])
                kind = "human" if side == "human_text" else "machine"
                counts[kind][0] += 1
                if detect_language(text) != language:
                    counts[kind][1] += 1
                    continue
                rows.append({"text": leading_passage(text), "label": label, "work": source})
    for kind, (total, dropped) in counts.items():
        report_dropped(spec.name, dropped, total, f"{kind} texts not detected as {language!r}")
    return pd.DataFrame(rows, columns=["text", "label", "work"]).drop_duplicates("text")


def _argugpt_frame(spec: Any) -> pd.DataFrame:
    parts = []
    for url, path in spec_files(spec).items():
        if not url.endswith(".csv"):
            continue
        text = read_text(path)
        if not text.strip():
            raise ValueError(f"{path}: empty file; expected an ArguGPT CSV")
        try:
            raw = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
        except pd.errors.ParserError as err:
            raise ValueError(f"{path}: not a readable CSV ({err})") from None
        require_columns(raw.columns, ("id", "text", "model"), str(path))
        # gpt2-xl essays open with the human-written first sentence of the prompt essay
        texts = [" ".join(split_sentences_by_regex(t)[1:]) if m == "gpt2-xl" else t
                 for t, m in zip(raw["text"], raw["model"], strict=True)]
        parts.append(pd.DataFrame({"text": [leading_passage(t) for t in texts],
                                   "label": raw["model"], "work": raw["id"]}))
    return pd.concat(parts, ignore_index=True).drop_duplicates("text")


_SOURCES = {"fastdetect": _fastdetect_frame, "m4": _m4_frame, "argugpt": _argugpt_frame}


def read_detection(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Generator records: ``per_label`` texts per writer (``human`` or a model)."""
    opts = spec.reader_options
    frame = _SOURCES[opts["kind"]](spec)
    if smoke:
        labels = sorted(frame["label"].unique(), key=lambda x: (x != "human", x))
        frame = frame[frame["label"].isin(labels[: opts.get("smoke_labels", 3)])]
    k = opts["smoke_per_label" if smoke else "per_label"]
    return labelled(frame.reset_index(drop=True), k, rng_for(seed))
