"""The synthetic suite: rule-based style transformations of plain sentences.

Every transformation is a small pure function ``f(text, *, rng) -> str`` (``rng`` is a
:class:`random.Random`; only typos, emoji and emoticons draw from it). The registry
:data:`TRANSFORMS` says which languages each one applies to. The sentences come from
small pools the project wrote itself (``_pools/<language>.txt``: plain, neutral
sentences in English, German, French, Spanish and Italian). In the German, French,
Spanish and Italian pools, ``{informal|formal}`` slots give both forms of address of
a sentence; the plain text uses the informal form, and the tests check that
``formal_address`` turns every informal rendering into the hand-written formal one.

Two kinds of datasets are built, all without any download:

``synthetic-order-<lang>`` (order alignment)
    For each transformation, parallel sets of two texts: position 0 is the transformed
    sentence (most of the property), position 1 the plain one; the label is the
    transformation. Each set also carries a STEL-or-Content style distractor: another
    pool sentence with the same transformation (same style, different content), marked
    ``distractor=True``.
``synthetic-authors-<lang>`` and ``synthetic-author-pairs-<lang>``
    "Synthetic authors": each author is a fixed bundle of two to four compatible
    transformations applied to its own pool sentences (no sentence is shared between
    authors), for clustering, all-to-all pairs and retrieval (half of each author's
    texts are queries, half targets), and as predefined same/different-author pairs.

>>> apply("I do not think it is far.", ["contractions", "uppercase"], language="en")
"I DON'T THINK IT'S FAR."
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from stebkit.datasets.spec import DatasetSpec, License, Source, TaskConfig

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["LANGUAGES", "SPECS", "TRANSFORMS", "Transform", "apply", "author_bundles",
           "author_pairs", "make_authors", "order_records", "pool_sentences"]

LANGUAGES = ("en", "de", "fr", "es", "it")
_ALL = LANGUAGES
_ROMANCE_GERMAN = ("de", "fr", "es", "it")

# --------------------------------------------------------------------------- helpers


def _match_case(source: str, target: str) -> str:
    """``target`` with the capitalisation pattern of ``source`` (lower, Title or UPPER)."""
    if len(source) > 1 and source.isupper():
        return target.upper()
    if source[:1].isupper():
        i = next((k for k, ch in enumerate(target) if ch.isalpha()), 0)
        return target[:i] + target[i:i + 1].upper() + target[i + 1:]
    return target


def _phrase_pattern(phrases: Sequence[str], flags: int = 0) -> re.Pattern[str]:
    """One regex matching any phrase as whole words, longest first."""
    alternatives = sorted(set(phrases), key=len, reverse=True)
    return re.compile(r"(?<![\w'’])(" + "|".join(re.escape(p) for p in alternatives)
                      + r")(?![\w'’])", flags)


def _replace_phrases(text: str, table: Mapping[str, str], *, keep_case: bool = True,
                     ignore_case: bool = True) -> str:
    """Replace whole-word phrases of ``table`` (keys lower-case unless case matters)."""
    pattern = _phrase_pattern(list(table), re.IGNORECASE if ignore_case else 0)

    def swap(m: re.Match[str]) -> str:
        found = m.group(0)
        new = table[found.lower()] if ignore_case else table[found]
        return _match_case(found, new) if keep_case else new

    return pattern.sub(swap, text)


# --------------------------------------------------------------------------- transformations


def uppercase(text: str, *, rng: random.Random) -> str:
    """Every letter upper-case: ``"Hi there."`` -> ``"HI THERE."``."""
    return text.upper()


def lowercase(text: str, *, rng: random.Random) -> str:
    """Every letter lower-case: ``"Hi Anna."`` -> ``"hi anna."``."""
    return text.lower()


def exclamation(text: str, *, rng: random.Random) -> str:
    """Emphatic ending: a final ``.`` becomes ``!!!``, ``?`` becomes ``?!!``."""
    body = text.rstrip()
    if body.endswith("."):
        return body[:-1] + "!!!"
    if body.endswith("?"):
        return body + "!!"
    if body.endswith("!"):
        return body + "!!"
    return body + "!!!"


def no_punctuation(text: str, *, rng: random.Random) -> str:
    """Punctuation removed, except apostrophes and hyphens inside words."""
    out = []
    for i, ch in enumerate(text):
        if unicodedata.category(ch).startswith("P"):
            inside = (0 < i < len(text) - 1 and text[i - 1].isalpha() and text[i + 1].isalpha()
                      and ch in "'’-")
            if not inside:
                continue
        out.append(ch)
    return re.sub(r"\s+", " ", "".join(out)).strip()


_LEET = str.maketrans({"a": "4", "A": "4", "e": "3", "E": "3", "i": "1", "I": "1",
                       "o": "0", "O": "0"})


def leetspeak(text: str, *, rng: random.Random) -> str:
    """Number substitution: a -> 4, e -> 3, i -> 1, o -> 0 (STEL's nbr_substitution)."""
    return text.translate(_LEET)


_EMOJI = ("😊", "😂", "👍", "🙂", "😉", "🎉", "🙌", "😅", "🤔", "😎")
_EMOTICONS = (":)", ":-)", ";)", ":D", ":P", "^^", ":-D", "xD")


def emoji(text: str, *, rng: random.Random) -> str:
    """One or two emoji appended: ``"See you."`` -> ``"See you. 👍😊"``."""
    return text.rstrip() + " " + "".join(rng.choice(_EMOJI) for _ in range(rng.randint(1, 2)))


def emoticons(text: str, *, rng: random.Random) -> str:
    """A text emoticon appended: ``"See you."`` -> ``"See you. :)"``."""
    return text.rstrip() + " " + rng.choice(_EMOTICONS)


_WORD = re.compile(r"[^\W\d_]{4,}")


def typos(text: str, *, rng: random.Random) -> str:
    """Typing errors in about one in five words of four letters or more (at least one).

    Each chosen word gets one edit: two neighbouring letters swapped, a letter dropped,
    or a letter doubled.
    """
    words = list(_WORD.finditer(text))
    if not words:
        return text
    chosen = sorted(rng.sample(range(len(words)), max(1, round(0.2 * len(words)))))
    pieces, last = [], 0
    for k in chosen:
        m = words[k]
        w = m.group(0)
        op = rng.choice(("swap", "drop", "double"))
        swaps = [i for i in range(1, len(w) - 2) if w[i] != w[i + 1]]
        if op == "swap" and swaps:
            i = rng.choice(swaps)
            new = w[:i] + w[i + 1] + w[i] + w[i + 2:]
        elif op == "double":
            i = rng.randrange(1, len(w))
            new = w[:i] + w[i] + w[i:]
        else:
            i = rng.randrange(1, len(w))
            new = w[:i] + w[i + 1:]
        pieces += [text[last:m.start()], new]
        last = m.end()
    pieces.append(text[last:])
    return "".join(pieces)


_CONTRACTIONS = {
    "do not": "don't", "does not": "doesn't", "did not": "didn't", "is not": "isn't",
    "are not": "aren't", "was not": "wasn't", "were not": "weren't", "have not": "haven't",
    "has not": "hasn't", "had not": "hadn't", "cannot": "can't", "could not": "couldn't",
    "would not": "wouldn't", "should not": "shouldn't", "will not": "won't", "i am": "I'm",
    "you are": "you're", "we are": "we're", "they are": "they're", "it is": "it's",
    "that is": "that's", "there is": "there's", "what is": "what's", "i have": "I've",
    "we have": "we've", "they have": "they've", "you have": "you've", "i will": "I'll",
    "we will": "we'll", "you will": "you'll", "it will": "it'll", "i would": "I'd",
    "let us": "let's",
}


def contractions(text: str, *, rng: random.Random) -> str:
    """English contractions: ``"I do not know"`` -> ``"I don't know"``."""
    return _replace_phrases(text, _CONTRACTIONS)


_ABBREVIATIONS: dict[str, dict[str, str]] = {
    "en": {"you": "u", "your": "ur", "are": "r", "because": "bc", "please": "pls",
           "people": "ppl", "tonight": "tonite", "tomorrow": "tmrw", "before": "b4",
           "great": "gr8", "thanks": "thx", "message": "msg", "really": "rly",
           "with": "w/", "probably": "prob", "see you": "cu", "as soon as possible": "asap",
           "by the way": "btw", "i don't know": "idk", "for your information": "fyi"},
    "de": {"vielleicht": "vllt", "zum beispiel": "z.B.", "eigentlich": "eigtl",
           "nicht": "nich", "habe": "hab", "ist": "is", "wochenende": "WE",
           "ungefähr": "ca.", "und so weiter": "usw.", "beziehungsweise": "bzw.",
           "mit freundlichen grüßen": "MfG", "heute": "heut", "danke": "thx",
           "wirklich": "echt", "einen": "'nen", "eine": "'ne"},
    "fr": {"je ne sais pas": "jsp", "beaucoup": "bcp", "toujours": "tjrs",
           "aujourd'hui": "auj", "rendez-vous": "rdv", "pourquoi": "pq",
           "quelque chose": "qqch", "quelqu'un": "qqn", "pour": "pr", "quand": "qd",
           "dans": "ds", "avec": "avc", "vous": "vs", "tout": "tt", "c'est": "c",
           "s'il te plaît": "stp", "s'il vous plaît": "svp", "merci": "mci",
           "d'accord": "dac", "week-end": "we", "demain": "dem1"},
    "es": {"que": "q", "qué": "q", "porque": "xq", "por qué": "xq", "por": "x",
           "también": "tb", "para": "pa", "mensaje": "msj", "todo": "tdo",
           "fin de semana": "finde", "gracias": "grax", "por favor": "xfa",
           "mañana": "mñn", "de": "d", "besos": "bss", "muy": "mui"},
    "it": {"che": "ke", "per": "x", "non": "nn", "comunque": "cmq", "perché": "xké",
           "tutto": "tt", "anche": "anke", "messaggio": "msg", "domani": "dmn",
           "grazie": "grz", "qualcosa": "qlcs", "niente": "nnt", "questo": "qst",
           "quando": "qnd", "sempre": "smpr", "ti voglio bene": "tvb"},
}


def _abbreviate(text: str, *, rng: random.Random, table: Mapping[str, str]) -> str:
    return _replace_phrases(text, table, keep_case=False)


_BRITISH: tuple[tuple[str, str, str], ...] = (
    # (US stem, UK stem, allowed endings)
    ("color", "colour", "|s|ed|ful|ing"), ("favor", "favour", "|s|ed|ite|ites|able"),
    ("neighbor", "neighbour", "|s|hood|hoods|ing"), ("honor", "honour", "|s|ed|able"),
    ("flavor", "flavour", "|s|ed"), ("labor", "labour", "|s|ed|er|ers"),
    ("harbor", "harbour", "|s"), ("humor", "humour", "|s|ed"),
    ("behavior", "behaviour", "|s|al"), ("rumor", "rumour", "|s|ed"),
    ("organiz", "organis", "e|ed|es|ing|ation|ations|er|ers"),
    ("realiz", "realis", "e|ed|es|ing|ation"), ("analyz", "analys", "e|ed|es|ing"),
    ("apologiz", "apologis", "e|ed|es|ing"), ("recogniz", "recognis", "e|ed|es|ing"),
    ("theater", "theatre", "|s"), ("center", "centre", "|s"), ("fiber", "fibre", "|s"),
    ("traveled", "travelled", ""), ("traveling", "travelling", ""),
    ("traveler", "traveller", "|s"), ("canceled", "cancelled", ""),
    ("canceling", "cancelling", ""), ("gray", "grey", "|er|ish"),
    ("jewelry", "jewellery", ""), ("catalog", "catalogue", "|s"), ("defense", "defence", "|s"),
    ("program", "programme", "|s"), ("mom", "mum", "|s"),
)
_BRITISH_RE = re.compile(r"\b(" + "|".join(
    f"(?:{us})(?:{ends})" for us, _, ends in _BRITISH) + r")\b", re.IGNORECASE)


def british_spelling(text: str, *, rng: random.Random) -> str:
    """US to UK spelling: ``"my favorite color"`` -> ``"my favourite colour"``."""

    def swap(m: re.Match[str]) -> str:
        word = m.group(0)
        for us, uk, ends in _BRITISH:
            if word.lower().startswith(us) and word.lower()[len(us):] in ends.split("|"):
                return _match_case(word, uk + word[len(us):].lower())
        return word  # pragma: no cover - the pattern only matches listed forms

    return _BRITISH_RE.sub(swap, text)


_ARCHAIC = {
    "you are": "thou art", "are you": "art thou", "you have": "thou hast",
    "have you": "hast thou", "do you": "dost thou", "you do": "thou dost",
    "can you": "canst thou", "you can": "thou canst", "will you": "wilt thou",
    "you will": "thou wilt", "you know": "thou knowest", "you need": "thou needest",
    "you want": "thou wantest", "does": "doth", "has": "hath", "it is": "'tis",
    "before": "ere", "often": "oft", "perhaps": "perchance", "yes": "aye",
    "over there": "yonder", "your": "thy",
}
_OBJECT_CONTEXT = re.compile(
    r"(?i)\b(call|tell|thank|see|help|for|with|to|ask|give|show|send|meet|join|let|"
    r"love|at|from|about)\s+you\b")


def archaic(text: str, *, rng: random.Random) -> str:
    """Early Modern English forms: ``"Do you know"`` -> ``"Dost thou know"``."""
    text = _replace_phrases(text, _ARCHAIC)
    text = re.sub(r"(?i)\b(thy)(\s+)(?=[aeiou])", lambda m: _match_case(m.group(1), "thine")
                  + m.group(2), text)
    text = _OBJECT_CONTEXT.sub(lambda m: m.group(0)[:-3] + "thee", text)
    return re.sub(r"\b([Yy])ou\b", lambda m: "Thou" if m.group(1) == "Y" else "thou", text)


_ADDRESS: dict[str, dict[str, str]] = {
    # informal -> formal, matched case-sensitively (capitalised variants are derived)
    "de": {"du": "Sie", "dir": "Ihnen", "dich": "Sie", "dein": "Ihr", "deine": "Ihre",
           "deinen": "Ihren", "deinem": "Ihrem", "deiner": "Ihrer", "deines": "Ihres",
           "kannst": "können", "hast": "haben", "bist": "sind", "weißt": "wissen",
           "möchtest": "möchten", "willst": "wollen", "musst": "müssen",
           "brauchst": "brauchen", "sollst": "sollen", "darfst": "dürfen", "wirst": "werden",
           "Sag": "Sagen Sie", "Komm": "Kommen Sie", "Ruf": "Rufen Sie"},
    "fr": {"tu as": "vous avez", "as-tu": "avez-vous", "tu es": "vous êtes",
           "es-tu": "êtes-vous", "tu peux": "vous pouvez", "peux-tu": "pouvez-vous",
           "tu veux": "vous voulez", "veux-tu": "voulez-vous", "tu sais": "vous savez",
           "sais-tu": "savez-vous", "tu dois": "vous devez", "dois-tu": "devez-vous",
           "tu viens": "vous venez", "viens-tu": "venez-vous", "tu vas": "vous allez",
           "vas-tu": "allez-vous", "tu fais": "vous faites", "fais-tu": "faites-vous",
           "Dis-moi": "Dites-moi", "dis-moi": "dites-moi", "tu": "vous", "te": "vous",
           "toi": "vous", "ton": "votre", "ta": "votre", "tes": "vos"},
    "es": {"tú": "usted", "ti": "usted", "contigo": "con usted", "te": "le", "tu": "su",
           "tus": "sus", "puedes": "puede", "has": "ha", "sabes": "sabe", "estás": "está",
           "quieres": "quiere", "tienes": "tiene", "necesitas": "necesita", "eres": "es",
           "vienes": "viene", "vas": "va", "debes": "debe", "Avísame": "Avíseme",
           "avísame": "avíseme", "Dime": "Dígame", "dime": "dígame"},
    "it": {"tu": "Lei", "te": "Lei", "ti": "Le", "tuo": "Suo", "tua": "Sua", "tuoi": "Suoi",
           "tue": "Sue", "puoi": "può", "hai": "ha", "sei": "è", "vuoi": "vuole", "sai": "sa",
           "vieni": "viene", "devi": "deve", "Scusa": "Scusi", "Fammi": "Mi faccia",
           "Dimmi": "Mi dica"},
}


def _formal_address(text: str, *, rng: random.Random, table: Mapping[str, str]) -> str:
    full = dict(table)
    for informal, formal in table.items():
        full.setdefault(informal[:1].upper() + informal[1:], formal[:1].upper() + formal[1:])
    text = _replace_phrases(text, full, keep_case=False, ignore_case=False)
    # French elided object pronoun: "je t'envoie" -> "je vous envoie"
    return re.sub(r"\b([Tt])['’](?=\w)", lambda m: "Vous " if m.group(1) == "T" else "vous ",
                  text)


@dataclass(frozen=True)
class Transform:
    """A named style transformation and its function per language.

    ``functions[language](text, rng=rng)`` returns the transformed text.
    """

    name: str
    description: str
    functions: Mapping[str, Callable[..., str]]

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(self.functions)

    def __call__(self, text: str, *, rng: random.Random, language: str) -> str:
        if language not in self.functions:
            raise ValueError(f"transformation {self.name!r} does not apply to language "
                             f"{language!r}; it applies to {list(self.functions)}")
        return self.functions[language](text, rng=rng)


def _same(fn: Callable[..., str], languages: Sequence[str]) -> dict[str, Callable[..., str]]:
    return {lang: fn for lang in languages}


# Canonical order: a bundle is applied in this order (word-level rewrites first,
# then letters, casing, punctuation, and decorations last).
TRANSFORMS: Mapping[str, Transform] = MappingProxyType({t.name: t for t in (
    Transform("formal_address", "informal to formal address (Sie, vous, usted, Lei)",
              {lang: partial(_formal_address, table=_ADDRESS[lang])
               for lang in _ROMANCE_GERMAN}),
    Transform("archaic", "Early Modern English forms (thou art, hath, ere)",
              {"en": archaic}),
    Transform("british_spelling", "US to UK spelling", {"en": british_spelling}),
    Transform("contractions", "contracted forms (don't, it's)", {"en": contractions}),
    Transform("abbreviations", "chat abbreviations (u, pls, vllt, bcp, xq, cmq)",
              {lang: partial(_abbreviate, table=_ABBREVIATIONS[lang]) for lang in _ALL}),
    Transform("typos", "typing errors in about one word in five", _same(typos, _ALL)),
    Transform("leetspeak", "number substitution (a->4, e->3, i->1, o->0)",
              _same(leetspeak, _ALL)),
    Transform("lowercase", "all lower-case", _same(lowercase, _ALL)),
    Transform("uppercase", "all upper-case", _same(uppercase, _ALL)),
    Transform("no_punctuation", "punctuation removed", _same(no_punctuation, _ALL)),
    Transform("exclamation", "emphatic ending (!!!)", _same(exclamation, _ALL)),
    Transform("emoticons", "a text emoticon appended", _same(emoticons, _ALL)),
    Transform("emoji", "one or two emoji appended", _same(emoji, _ALL)),
)})
"""Every transformation, in the canonical order bundles are applied in."""

_CONFLICTS = (frozenset({"uppercase", "lowercase"}), frozenset({"no_punctuation", "exclamation"}),
              frozenset({"archaic", "contractions"}), frozenset({"archaic", "abbreviations"}))


# --------------------------------------------------------------------------- pools


@cache
def _templates(language: str) -> tuple[str, ...]:
    if language not in LANGUAGES:
        raise ValueError(f"language={language!r} has no sentence pool; use one of {LANGUAGES}")
    path = Path(__file__).parent / "_pools" / f"{language}.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


_SLOT = re.compile(r"\{([^{}|]*)\|([^{}|]*)\}")


def _render(template: str, *, formal: bool = False) -> str:
    return _SLOT.sub(lambda m: m.group(2 if formal else 1), template)


def pool_sentences(language: str) -> list[str]:
    """The plain pool sentences of ``language`` (informal address where it varies).

    >>> pool_sentences("en")[0]
    'The bus to the city center leaves every twenty minutes in the morning.'
    >>> len(pool_sentences("de")) >= 60
    True
    """
    return [_render(t) for t in _templates(language)]


# --------------------------------------------------------------------------- public helpers


def _check_language(language: str) -> None:
    if language not in LANGUAGES:
        raise ValueError(f"language={language!r} is not supported; use one of {LANGUAGES}")


def _check_transforms(transforms: Sequence[str], language: str) -> list[str]:
    if isinstance(transforms, str):
        raise TypeError(f"transforms must be a list of names, not the string {transforms!r}")
    names = list(transforms)
    for name in names:
        if name not in TRANSFORMS:
            raise ValueError(f"unknown transformation {name!r}; known: {list(TRANSFORMS)}")
        if language not in TRANSFORMS[name].functions:
            raise ValueError(f"transformation {name!r} does not apply to language "
                             f"{language!r}; it applies to {list(TRANSFORMS[name].languages)}")
    return names


def apply(text: str, transforms: Sequence[str], *, language: str = "en", seed: int = 42) -> str:
    """Apply transformations to a text, in the order given.

    Parameters
    ----------
    text : str
        The text.
    transforms : sequence of str
        Names from :data:`TRANSFORMS`.
    language : str, default "en"
        Language of the text; each transformation must apply to it.
    seed : int, default 42
        Seeds the random choices (typos, emoji, emoticons).

    Examples
    --------
    >>> apply("Can you send me your address?", ["archaic"], language="en")
    'Canst thou send me thine address?'
    >>> apply("Kannst du mir helfen?", ["formal_address"], language="de")
    'Können Sie mir helfen?'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    _check_language(language)
    rng = random.Random(seed)
    for name in _check_transforms(transforms, language):
        text = TRANSFORMS[name](text, rng=rng, language=language)
    return text


def author_bundles(n_authors: int, *, language: str = "en",
                   seed: int = 42) -> list[tuple[str, ...]]:
    """Distinct bundles of 2-4 compatible transformations, one per synthetic author.

    Examples
    --------
    >>> bundles = author_bundles(6, language="fr", seed=0)
    >>> len(bundles), len(set(bundles)), all(2 <= len(b) <= 4 for b in bundles)
    (6, 6, True)
    """
    _check_language(language)
    if not isinstance(n_authors, int) or n_authors < 2:
        raise ValueError(f"n_authors must be an int >= 2, got {n_authors!r}")
    names = [n for n, t in TRANSFORMS.items() if language in t.functions]
    rng = random.Random(f"bundles-{language}-{seed}")
    bundles: list[tuple[str, ...]] = []
    for _ in range(10_000):
        if len(bundles) == n_authors:
            return bundles
        chosen = set(rng.sample(names, rng.randint(2, 4)))
        if any(pair <= chosen for pair in _CONFLICTS):
            continue
        bundle = tuple(n for n in names if n in chosen)  # canonical order
        if bundle not in bundles:
            bundles.append(bundle)
    raise ValueError(f"could not find {n_authors} distinct bundles for {language!r}")


def make_authors(n_authors: int = 6, *, language: str = "en", seed: int = 42,
                 texts_per_author: int | None = None) -> pd.DataFrame:
    """Synthetic authors: each writes its own pool sentences in its fixed style bundle.

    Parameters
    ----------
    n_authors : int, default 6
        Number of authors (at least 2).
    language : str, default "en"
        Pool language (one of :data:`LANGUAGES`).
    seed : int, default 42
        Seeds the bundles, the sentence assignment and the random edits.
    texts_per_author : int, optional
        Sentences per author; default: as many as the pool allows
        (``len(pool) // n_authors``). No sentence is given to two authors.

    Returns
    -------
    pandas.DataFrame
        Columns ``text``, ``label`` (``"author-01"``, ...), ``style`` (the bundle,
        joined by ``+``), ``source`` (the plain sentence) and ``side`` (the first half
        of each author's texts are retrieval queries, the rest targets).

    Examples
    --------
    >>> df = make_authors(4, language="es", seed=1)
    >>> df.groupby("label").size().tolist()
    [16, 16, 16, 16]
    >>> df["source"].is_unique
    True
    """
    import pandas as pd

    bundles = author_bundles(n_authors, language=language, seed=seed)
    pool = pool_sentences(language)
    per_author = len(pool) // n_authors if texts_per_author is None else texts_per_author
    if not isinstance(per_author, int) or per_author < 2 or per_author * n_authors > len(pool):
        raise ValueError(f"texts_per_author={texts_per_author!r}: {n_authors} authors need "
                         f"2 to {len(pool) // n_authors} sentences each from the "
                         f"{len(pool)}-sentence {language!r} pool")
    rng = random.Random(f"authors-{language}-{seed}")
    order = rng.sample(range(len(pool)), len(pool))
    rows = []
    for a, bundle in enumerate(bundles):
        sources = [pool[i] for i in order[a * per_author:(a + 1) * per_author]]
        rows += _author_rows(a, bundle, sources, rng=rng, language=language)
    return pd.DataFrame(rows, columns=["text", "label", "style", "source", "side"])


def _author_rows(a: int, bundle: Sequence[str], sources: list[str], *, rng: random.Random,
                 language: str) -> list[tuple[str, str, str, str, str]]:
    """The rows of author ``a``: each of its plain sentences in its style bundle, the first
    half retrieval queries, the rest targets."""
    label = f"author-{a + 1:02d}"
    rows = []
    for k, source in enumerate(sources):
        text = source
        for name in bundle:
            text = TRANSFORMS[name](text, rng=rng, language=language)
        side = "query" if k < len(sources) // 2 else "target"
        rows.append((text, label, "+".join(bundle), source, side))
    return rows


def order_records(language: str = "en", *, seed: int = 42, groups_per_transform: int = 16,
                  transforms: Sequence[str] | None = None) -> pd.DataFrame:
    """Order-alignment sets: (transformed, plain) per pool sentence, with distractors.

    For each transformation, pool sentences (shuffled with ``seed``) that the
    transformation changes are taken until ``groups_per_transform`` sets are made.
    Position 0 is the transformed sentence, position 1 the plain one. A third row per
    set, ``distractor=True`` at position 0, is the next such sentence transformed: same
    style as position 0, different content (a STEL-or-Content check).

    Returns
    -------
    pandas.DataFrame
        Columns ``text``, ``label`` (transformation), ``group``, ``position``,
        ``distractor``, ``source`` (the plain sentence). A transformation that changes
        fewer pool sentences gets fewer sets.

    Examples
    --------
    >>> df = order_records("en", groups_per_transform=3, transforms=["contractions"])
    >>> df[~df["distractor"]].groupby("position").size().tolist()
    [3, 3]
    """
    import pandas as pd

    _check_language(language)
    names = (_check_transforms(transforms, language) if transforms is not None else
             [n for n, t in TRANSFORMS.items() if language in t.functions])
    pool = pool_sentences(language)
    rows = []
    for name in names:
        rng = random.Random(f"order-{language}-{name}-{seed}")
        made = []
        for source in rng.sample(pool, len(pool)):
            styled = TRANSFORMS[name](source, rng=rng, language=language)
            if styled != source:
                made.append((source, styled))
            if len(made) == groups_per_transform + 1:
                break
        for i in range(min(groups_per_transform, len(made) - 1)):
            (source, styled), (other, other_styled) = made[i], made[i + 1]
            group = f"{name}-{i:03d}"
            rows += [(styled, name, group, 0, False, source),
                     (source, name, group, 1, False, source),
                     (other_styled, name, group, 0, True, other)]
    return pd.DataFrame(rows, columns=["text", "label", "group", "position", "distractor",
                                       "source"])


def author_pairs(authors: pd.DataFrame, *, seed: int = 42) -> pd.DataFrame:
    """Predefined same/different-author pairs from :func:`make_authors` records.

    Each author's texts are paired in order into same-author pairs; each author also
    gives as many different-author pairs, its ``2i``-th text against the ``2i+1``-th
    text of another author. Returns ``text``, ``label``, ``pair``, ``same``, ``style``.
    """
    import pandas as pd

    rng = random.Random(f"pairs-{seed}")
    by_author = {a: g.reset_index(drop=True) for a, g in authors.groupby("label", sort=True)}
    labels = list(by_author)
    rows = []
    for a_i, a in enumerate(labels):
        texts = by_author[a]
        for i in range(len(texts) // 2):
            pid = f"{a}-same-{i:02d}"
            for j in (2 * i, 2 * i + 1):
                rows.append((texts.at[j, "text"], a, pid, True, texts.at[j, "style"]))
            other = labels[(a_i + 1 + rng.randrange(len(labels) - 1)) % len(labels)]
            o = by_author[other]
            pid = f"{a}-diff-{i:02d}"
            rows.append((texts.at[2 * i, "text"], a, pid, False, texts.at[2 * i, "style"]))
            k = min(2 * i + 1, len(o) - 1)
            rows.append((o.at[k, "text"], other, pid, False, o.at[k, "style"]))
    return pd.DataFrame(rows, columns=["text", "label", "pair", "same", "style"])


# --------------------------------------------------------------------------- specs

_N_AUTHORS = {False: 6, True: 3}
_ORDER_GROUPS = 16
_SMOKE_ORDER = ("uppercase", "leetspeak", "emoji")
_AUTHOR_TASKS = {"clustering": TaskConfig(episode_sizes=(1, 2), episodes_per_label=5),
                 "all_to_all_pairs": TaskConfig(episode_sizes=(1, 2), episodes_per_label=5),
                 "retrieval": TaskConfig(episode_sizes=(-1,), episodes_per_label=1)}


def read_order(spec: DatasetSpec, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Reader of ``synthetic-order-<lang>`` (smoke: three transformations)."""
    language = spec.language
    names = list(_SMOKE_ORDER) if smoke else None
    frame = order_records(language, seed=seed, groups_per_transform=_ORDER_GROUPS,
                          transforms=names)
    return frame.drop(columns="source")


def read_authors(spec: DatasetSpec, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Reader of ``synthetic-authors-<lang>`` (smoke: three authors)."""
    frame = make_authors(_N_AUTHORS[False], language=spec.language, seed=seed)
    if smoke:
        frame = frame[frame["label"].isin(sorted(set(frame["label"]))[:_N_AUTHORS[True]])]
    return frame.drop(columns="source").reset_index(drop=True)


def read_author_pairs(spec: DatasetSpec, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Reader of ``synthetic-author-pairs-<lang>`` (smoke: three authors)."""
    return author_pairs(read_authors(spec, seed=seed, smoke=smoke), seed=seed)


_GENERATED = Source(note="generated: rule-based transformations of the project's sentence pools")
_LICENSE = License("Apache-2.0")


def _specs(language: str) -> list[DatasetSpec]:
    suites = ("synthetic", "smoke") if language == "en" else ("synthetic",)
    synthetic = partial(DatasetSpec, languages=(language,), source=_GENERATED,
                        license=_LICENSE, offline=True, suites=suites, tested_on="generated")
    return [
        synthetic(
            name=f"synthetic-order-{language}",
            description=(f"Pool sentences ({language}) and their transformed twins: one label "
                         f"per transformation, {_ORDER_GROUPS} sets of (transformed, plain) "
                         "each, plus a same-style, different-content distractor per set."),
            label="style transformation",
            tasks={"order_alignment": TaskConfig(episode_sizes=(1,),
                                                 episodes_per_label=_ORDER_GROUPS)},
            category="linguistic_features", application="style_transfer_evaluation",
            reader=read_order),
        synthetic(
            name=f"synthetic-authors-{language}",
            description=(f"{_N_AUTHORS[False]} synthetic authors ({language}): fixed bundles "
                         "of 2-4 transformations applied to disjoint pool sentences; half of "
                         "each author's texts are retrieval queries, half targets."),
            label="synthetic author", tasks=_AUTHOR_TASKS,
            category="idiolect", application="authorship_attribution",
            reader=read_authors),
        synthetic(
            name=f"synthetic-author-pairs-{language}",
            description=(f"Same/different-author pairs of the {_N_AUTHORS[False]} synthetic "
                         f"authors ({language})."),
            label="synthetic author",
            tasks={"predefined_pairs": TaskConfig(episode_sizes=(1,), episodes_per_label=2)},
            category="idiolect", application="authorship_verification",
            reader=read_author_pairs),
    ]


SPECS: list[DatasetSpec] = [spec for language in LANGUAGES for spec in _specs(language)]
"""Three synthetic datasets per language of :data:`LANGUAGES`."""
