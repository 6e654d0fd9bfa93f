"""Conversational input: turn a dialogue into one text an encoder can take.

Each turn is written as ``"{speaker}: {utterance}"`` and the turns are joined by the
encoder's separator token (``[SEP]`` for BERT-style tokenizers, ``</s>`` for RoBERTa-style
ones, a newline when the encoder has no tokenizer). When the dialogue is longer than the
encoder's limit, the earliest turns are dropped first, so the most recent context is
kept. The result is a plain string: use it wherever texts are encoded (speaker
attribution, dialogue style, chat registers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

Turn = tuple[str, str]


def separator_for(encoder: Any) -> str:
    """The separator token of ``encoder``'s tokenizer, or a newline when it has none.

    >>> class NoTokenizer: pass
    >>> separator_for(NoTokenizer())
    '\\n'
    """
    tokenizer = getattr(encoder, "tokenizer", None)
    sep = getattr(tokenizer, "sep_token", None) or getattr(tokenizer, "eos_token", None)
    return f" {sep} " if sep else "\n"


def _token_counter(encoder: Any) -> Callable[[str], int]:
    tokenizer = getattr(encoder, "tokenizer", None)
    if tokenizer is not None and callable(getattr(tokenizer, "encode", None)):
        return lambda text: len(tokenizer.encode(text, add_special_tokens=False))
    return lambda text: len(text.split())


def format_dialogue(
    turns: Iterable[Turn],
    *,
    encoder: Any = None,
    separator: str | None = None,
    max_tokens: int | None = None,
    template: str = "{speaker}: {utterance}",
) -> str:
    """Format a dialogue as one text, keeping the most recent turns that fit.

    Parameters
    ----------
    turns : iterable of (speaker, utterance)
        The dialogue in order, oldest first.
    encoder : object, optional
        Gives the separator token and the token counter (its ``tokenizer``) and, when
        ``max_tokens`` is None, the limit (its ``max_length`` minus two special tokens).
    separator : str, optional
        Overrides the encoder's separator.
    max_tokens : int, optional
        Longest result in tokens (whitespace words without a tokenizer). The earliest
        turns are dropped first; the latest turn is always kept, even when it alone is
        longer (the encoder's long-document handling then applies).
    template : str
        How one turn is written.

    Examples
    --------
    >>> dialogue = [("A", "Hi there."), ("B", "Hello!"), ("A", "How are you?")]
    >>> format_dialogue(dialogue, separator=" | ")
    'A: Hi there. | B: Hello! | A: How are you?'
    >>> format_dialogue(dialogue, separator=" | ", max_tokens=7)
    'B: Hello! | A: How are you?'
    """
    lines = []
    for i, turn in enumerate(turns):
        if not (isinstance(turn, (tuple, list)) and len(turn) == 2
                and all(isinstance(x, str) for x in turn)):
            raise TypeError(f"turns[{i}] must be a (speaker, utterance) pair of str, "
                            f"got {turn!r}")
        lines.append(template.format(speaker=turn[0], utterance=turn[1]))
    if not lines:
        raise ValueError("turns is empty: a dialogue needs at least one turn")
    sep = separator if separator is not None else separator_for(encoder)
    if max_tokens is None and encoder is not None and getattr(encoder, "max_length", None):
        max_tokens = int(encoder.max_length) - 2
    if max_tokens is None:
        return sep.join(lines)
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    count = _token_counter(encoder)
    sep_cost = count(sep.strip()) if sep.strip() else 0
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        cost = count(line) + (sep_cost if kept else 0)
        if kept and used + cost > max_tokens:
            break
        kept.append(line)
        used += cost
    return sep.join(reversed(kept))


def format_dialogues(dialogues: Sequence[Iterable[Turn]], **options: Any) -> list[str]:
    """:func:`format_dialogue` over many dialogues (same options for all).

    >>> format_dialogues([[("A", "x")], [("B", "y"), ("C", "z")]], separator=" / ")
    ['A: x', 'B: y / C: z']
    """
    return [format_dialogue(d, **options) for d in dialogues]
