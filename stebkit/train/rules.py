"""Rule-made style variants: one style feature changed at a time, the content kept.

Each :class:`StyleRule` rewrites a text so that exactly one surface feature of style
changes (contractions, number spelling, emotive punctuation, capitals, emoticons or
emoji, British spelling, archaic pronouns, sentence joining or splitting, informal
function words) and nothing else: the words, their order and the punctuation elsewhere
stay as they were. Applied to plain training sentences, a rule gives a *content-
controlled* pair: the same content in two styles, which is what a style encoder must
learn to tell apart (StyleDistance, Patel et al. 2025, trains on such pairs).

Several rules reuse the transformations of the synthetic suite
(:mod:`stebkit.datasets.synthetic`); the rules added here are used for training only.
The features of the four lite STEL sets used for evaluation are covered by
``contractions``, ``number_substitution`` and ``emoticons``/``emoji``; the pronoun
``em`` as subject (``stel-em-subj-pronoun``) has no rule, so that set measures whether
content independence carries over to a feature never seen in training.

A rule that finds nothing to change returns the text unchanged; :func:`rule_variants`
counts those texts per rule and never emits an identical pair.

>>> RULES["contractions"]("I do not think it is far.")
"I don't think it's far."
>>> RULES["number_spelling"]("He waited twenty-one days for three letters.")
'He waited 21 days for 3 letters.'
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from stebkit.datasets import synthetic as syn
from stebkit.datasets.readers.text import split_sentences_by_regex
from stebkit.errors import InvalidSetting
from stebkit.settings import Setting

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DEFAULT_RULE_WEIGHTS", "RULES", "StyleRule", "checked_rule_weights",
           "rule_variants"]


# ------------------------------------------------------------------------ new rules

_UNITS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
          "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_DIGITS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9}
_NUMBER = re.compile(
    r"(?<![\w'’-])(?:(?P<tens>" + "|".join(_TENS) + r")(?:-(?P<digit>" + "|".join(_DIGITS)
    + r"))?|(?P<unit>" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r"))"
    r"(?P<hundred>\s+hundred)?(?![\w'’-])", re.IGNORECASE)


def number_spelling(text: str, *, rng: random.Random) -> str:
    """Number words as digits: ``"twenty-one days"`` -> ``"21 days"``.

    ``one`` is left alone (it is also a pronoun).
    """

    def digits(m: re.Match[str]) -> str:
        if m["unit"]:
            value = _UNITS[m["unit"].lower()]
        else:
            value = _TENS[m["tens"].lower()] + (_DIGITS[m["digit"].lower()] if m["digit"] else 0)
        return str(value * 100 if m["hundred"] else value)

    return _NUMBER.sub(digits, text)


_NUMBER_SUBSTITUTION = {
    "for": "4", "to": "2", "too": "2", "before": "b4", "great": "gr8", "late": "l8",
    "later": "l8r", "hate": "h8", "wait": "w8", "mate": "m8", "forever": "4ever",
    "someone": "some1", "anyone": "any1", "everyone": "every1", "no one": "no1",
    "tonight": "2nite", "today": "2day", "tomorrow": "2morrow", "ate": "8",
}


def number_substitution(text: str, *, rng: random.Random) -> str:
    """Words or syllables written as digits: ``"wait for me"`` -> ``"w8 4 me"``."""
    return syn._replace_phrases(text, _NUMBER_SUBSTITUTION)


_INFORMAL = {
    "going to": "gonna", "want to": "wanna", "got to": "gotta", "have got to": "gotta",
    "because": "'cause", "kind of": "kinda", "sort of": "sorta", "give me": "gimme",
    "let me": "lemme", "yes": "yeah", "do not know": "dunno", "though": "tho",
    "through": "thru", "out of": "outta", "a lot of": "lotsa",
}


def informal_function_words(text: str, *, rng: random.Random) -> str:
    """Informal spellings of function-word sequences: ``"going to"`` -> ``"gonna"``."""
    return syn._replace_phrases(text, _INFORMAL)


_STARTERS = frozenset(
    "the a an he she it they we you this that these those there but and so then his her "
    "their our my its in on at as when if all some no not now here what which who".split())


def _lower_first(sentence: str) -> str:
    word = re.match(r"\W*(\w+)", sentence)
    if word and word.group(1).lower() in _STARTERS:
        i = word.start(1)
        return sentence[:i] + sentence[i].lower() + sentence[i + 1:]
    return sentence


def sentence_join(text: str, *, rng: random.Random) -> str:
    """The first two sentences joined by a semicolon: ``"A b. The c."`` -> ``"A b; the c."``.

    The second sentence's first word is lower-cased only when it is a common
    sentence opener (never a name).
    """
    sentences = split_sentences_by_regex(text)
    if len(sentences) < 2 or not sentences[0].endswith("."):
        return text
    joined = sentences[0][:-1] + "; " + _lower_first(sentences[1])
    return " ".join([joined, *sentences[2:]])


_SPLIT_AT = re.compile(r"(?:;\s+|,\s+(?=and\s|but\s))")


def sentence_split(text: str, *, rng: random.Random) -> str:
    """A sentence split at its first ``;`` or ``, and``/``, but`` when both halves have
    four or more words: ``"A b c d; e f g h."`` -> ``"A b c d. E f g h."``."""
    for m in _SPLIT_AT.finditer(text):
        head, tail = text[:m.start()], text[m.end():]
        last_stop = max(head.rfind(". "), head.rfind("? "), head.rfind("! "))
        if len(head[last_stop + 1:].split()) >= 4 and len(re.split(r"[.!?]", tail)[0].split()) >= 4:
            return head + ". " + tail[:1].upper() + tail[1:]
    return text


# ------------------------------------------------------------------------ registry


@dataclass(frozen=True)
class StyleRule:
    """A named rewrite that changes one style feature of a text.

    >>> RULES["exclamation"]("It rains.")
    'It rains!!!'
    """

    name: str
    feature: str
    function: Callable[..., str]

    def __call__(self, text: str, *, seed: int = 42) -> str:
        if not isinstance(text, str):
            raise TypeError(f"rule {self.name!r}: text must be str, got {type(text).__name__}")
        return self.function(text, rng=random.Random(seed))


RULES: Mapping[str, StyleRule] = MappingProxyType({r.name: r for r in (
    StyleRule("contractions", "contracted forms (it is -> it's)", syn.contractions),
    StyleRule("number_spelling", "number words as digits (three -> 3)", number_spelling),
    StyleRule("number_substitution", "number substitution (for -> 4, great -> gr8)",
              number_substitution),
    StyleRule("exclamation", "emotive punctuation (. -> !!!)", syn.exclamation),
    StyleRule("capitals", "emotive capitals (all upper-case)", syn.uppercase),
    StyleRule("emoticons", "a text emoticon appended (:-))", syn.emoticons),
    StyleRule("emoji", "an emoji appended", syn.emoji),
    StyleRule("british_spelling", "British spelling (color -> colour)", syn.british_spelling),
    StyleRule("archaic_pronouns", "archaic pronouns and verb forms (you are -> thou art)",
              syn.archaic),
    StyleRule("sentence_join", "two sentences joined by a semicolon", sentence_join),
    StyleRule("sentence_split", "a sentence split at ';' or ', and'", sentence_split),
    StyleRule("informal_function_words", "informal function words (going to -> gonna)",
              informal_function_words),
)})
"""Every training rule, by name."""


def rule_variants(texts: Sequence[str], *, rules: Sequence[str] | None = None,
                  seed: int = 42, prefix: str = "rule") -> tuple[pd.DataFrame, dict[str, int]]:
    """Content-controlled variants of ``texts``: the plain text and one text per rule.

    Parameters
    ----------
    texts : sequence of str
        Plain texts (one content each).
    rules : sequence of str, optional
        Names from :data:`RULES` (default: all).
    seed : int
        Seeds the rules that draw (emoticons, emoji); text ``i`` uses ``seed + i``.
    prefix : str
        Prefix of the content ids (``<prefix>:<i>``).

    Returns
    -------
    (pandas.DataFrame, dict)
        Rows ``text, content, style`` with style ``"plain"`` or the rule name, only for
        texts a rule changed, and per rule the number of texts it left unchanged.

    Examples
    --------
    >>> frame, unchanged = rule_variants(["It is late.", "We go."], rules=["contractions"])
    >>> frame["style"].tolist(), unchanged
    (['plain', 'contractions'], {'contractions': 1})
    """
    import pandas as pd

    names = list(RULES) if rules is None else list(rules)
    unknown = [n for n in names if n not in RULES]
    if unknown:
        raise ValueError(f"unknown rule(s) {unknown}; known: {list(RULES)}")
    rows, unchanged = [], dict.fromkeys(names, 0)
    for i, text in enumerate(texts):
        variants = []
        for name in names:
            new = RULES[name](text, seed=seed + i)
            if new == text:
                unchanged[name] += 1
            else:
                variants.append((new, name))
        if variants:
            content = f"{prefix}:{i}"
            rows.append((text, content, "plain"))
            rows.extend((new, content, name) for new, name in variants)
    return pd.DataFrame(rows, columns=["text", "content", "style"]), unchanged


RULE_WEIGHT = Setting("rule_weights", "number", low=0, high=100, low_open=True)
"""One weight of ``TrainConfig.rule_weights``."""
DEFAULT_RULE_WEIGHTS = (("contractions", 6.0), ("number_substitution", 6.0),
                        ("number_spelling", 3.0), ("british_spelling", 2.0),
                        ("informal_function_words", 2.0))
"""The rules drawn more often by default: the small edits, hardest to tell from their
content."""


def checked_rule_weights(pairs: Any, name: str = "rule_weights"
                         ) -> tuple[tuple[str, float], ...]:
    """``pairs`` (or a mapping) as ``((rule, weight), ...)``, each rule one of
    :data:`RULES` (once) and each weight a number in (0, 100]; ``name``: the setting as
    messages name it (``--rule-weights`` on a command line).

    >>> checked_rule_weights({"contractions": 4})
    (('contractions', 4.0),)
    >>> checked_rule_weights([("contraction", 4)])
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: rule_weights: unknown rule 'contraction'; choose among \
contractions, number_spelling, number_substitution, exclamation, capitals, emoticons, \
emoji, british_spelling, archaic_pronouns, sentence_join, sentence_split, \
informal_function_words
    """
    items = list(pairs.items()) if isinstance(pairs, Mapping) else list(pairs)
    out = []
    for item in items:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise InvalidSetting(f"{name} must be (rule, weight) pairs, got {item!r}")
        rule, weight = item
        if rule not in RULES:
            raise InvalidSetting(f"{name}: unknown rule {rule!r}; choose among "
                                 f"{', '.join(RULES)}")
        out.append((rule, RULE_WEIGHT.check(weight)))
    rules = [r for r, _ in out]
    if len(set(rules)) != len(rules):
        raise InvalidSetting(f"{name} names a rule twice: {rules}")
    return tuple(out)
