"""Training data of the style encoder: authorship passages, batches and hard negatives.

The training split is declared here, as data: :data:`TRAINING_SOURCES` names every file
and every author the encoder is trained on, and :data:`EXCLUDED_AUTHORS` every author
left out because they (or their texts) occur in an evaluation dataset.

- US presidents' inaugural addresses (NLTK ``inaugural``): author = president, work =
  address. Presidents who gave a 1945-2006 State of the Union address are left out
  (they are the authors of the ``sotu-retrieval`` evaluation set).
- The NLTK Gutenberg selection: author from the file name, work = book (Shakespeare and
  the King James Bible left out).

Each work is cut into passages of 60-120 words on sentence boundaries (the readers'
:func:`~stebkit.datasets.readers.text.cut_passages`); at most ``max_per_work`` passages
per work are kept, evenly spaced through the work.

Batches
-------
A training example is an (anchor, positive) pair of passages by the same author. The
positive comes from a *different work* when the author has two or more works, otherwise
from a different quarter ("part") of the author's only work, so that the pair shares the
author but not the immediate topic. Each batch draws distinct authors where it can;
in-batch texts by the anchor's author are masked out of the loss in any case (see
:func:`stebkit.train.loop.info_nce`). The batch of step ``s`` depends only on
``(seed, s)``, so a resumed run sees exactly the batches of an uninterrupted one.

Hard negatives
--------------
For each passage, :func:`mine_hard_negatives` keeps the ``k`` most cosine-similar
passages *by other authors*, preferring the same occasion/genre (``topic``:
a book passage from other authors' books, an inaugural passage from other inaugurals)
and falling back to all other authors when that topic has too few candidates.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_NLTK_DATA = ("https://raw.githubusercontent.com/nltk/nltk_data/"
              "5db857e6f7df11eabb5e5665836db9ec8df07e28/packages/corpora")
_NLTK_OLD = ("https://raw.githubusercontent.com/nltk/nltk/"
             "dd1f7eefff8c5fb62bba006af964b078e8ea31a4/nltk_data/corpora")

# Presidents by file-name surname; surnames shared by two presidents are resolved by year.
_PRESIDENTS = {
    "Washington": "George Washington", "Jefferson": "Thomas Jefferson",
    "Madison": "James Madison", "Monroe": "James Monroe", "Jackson": "Andrew Jackson",
    "VanBuren": "Martin Van Buren", "Polk": "James K. Polk", "Taylor": "Zachary Taylor",
    "Pierce": "Franklin Pierce", "Buchanan": "James Buchanan",
    "Lincoln": "Abraham Lincoln", "Grant": "Ulysses S. Grant",
    "Hayes": "Rutherford B. Hayes", "Garfield": "James A. Garfield",
    "Cleveland": "Grover Cleveland", "McKinley": "William McKinley",
    "Taft": "William Howard Taft", "Wilson": "Woodrow Wilson",
    "Harding": "Warren G. Harding", "Coolidge": "Calvin Coolidge",
    "Hoover": "Herbert Hoover", "Truman": "Harry S. Truman",
    "Eisenhower": "Dwight D. Eisenhower", "Kennedy": "John F. Kennedy",
    "Johnson": "Lyndon B. Johnson", "Nixon": "Richard Nixon", "Ford": "Gerald Ford",
    "Carter": "Jimmy Carter", "Reagan": "Ronald Reagan", "Clinton": "Bill Clinton",
    "GWBush": "George W. Bush", "Obama": "Barack Obama", "Trump": "Donald Trump",
    "Biden": "Joe Biden",
}
_BY_YEAR = {  # surname -> ((first year, name), ...) ascending
    "Adams": ((1797, "John Adams"), (1825, "John Quincy Adams")),
    "Harrison": ((1841, "William Henry Harrison"), (1889, "Benjamin Harrison")),
    "Roosevelt": ((1905, "Theodore Roosevelt"), (1933, "Franklin D. Roosevelt")),
    "Bush": ((1989, "George H. W. Bush"), (2001, "George W. Bush")),
}
_GUTENBERG_AUTHORS = {
    "austen": "Jane Austen", "blake": "William Blake", "carroll": "Lewis Carroll",
    "chesterton": "G. K. Chesterton", "melville": "Herman Melville", "milton": "John Milton",
    "whitman": "Walt Whitman", "shakespeare": "William Shakespeare",
    "bible": "King James Bible",
}

_SOTU_SPEAKERS = ("Harry S. Truman", "Dwight D. Eisenhower", "John F. Kennedy",
                  "Lyndon B. Johnson", "Richard Nixon", "Gerald Ford", "Jimmy Carter",
                  "Ronald Reagan", "George H. W. Bush", "Bill Clinton", "George W. Bush")

EXCLUDED_AUTHORS: dict[str, str] = {
    **{name: "State of the Union speaker 1945-2006 (evaluation: sotu-retrieval)"
       for name in _SOTU_SPEAKERS},
    "Ronald Reagan": "State of the Union speaker (sotu-retrieval); his 1981 inaugural is "
                     "also a UD GUM document (ud-gum-genre)",
    "James Madison": "Federalist papers author (federalist-authorship)",
    "Joe Biden": "co-author of a UD GUM speech document (ud-gum-genre)",
    "William Shakespeare": "his plays are the original side of the Shakespeare "
                           "original/modern evaluation set",
    "King James Bible": "the KJV is a label of the Bible-versions evaluation sets",
}
"""Authors whose works are left out of training, with the evaluation set they occur in.

The NLTK ``state_union`` corpus is not used at all: every one of its speakers is a
``sotu-retrieval`` author."""


@dataclass(frozen=True)
class TrainingSource:
    """One source file of the training split and the authors it contributes."""

    name: str
    url: str
    sha256: str
    topic: str
    authors: tuple[str, ...]


TRAINING_SOURCES: tuple[TrainingSource, ...] = (
    TrainingSource(
        "inaugural", f"{_NLTK_DATA}/inaugural.zip",
        "7c5fb5793e31fbeae12bf1aa0ffda5336468f07cedb50654c6d31ca384e2046b", "inaugural",
        ("George Washington", "John Adams", "Thomas Jefferson", "James Monroe",
         "John Quincy Adams", "Andrew Jackson", "Martin Van Buren", "William Henry Harrison",
         "James K. Polk", "Zachary Taylor", "Franklin Pierce", "James Buchanan",
         "Abraham Lincoln", "Ulysses S. Grant", "Rutherford B. Hayes", "James A. Garfield",
         "Grover Cleveland", "Benjamin Harrison", "William McKinley", "Theodore Roosevelt",
         "William Howard Taft", "Woodrow Wilson", "Warren G. Harding", "Calvin Coolidge",
         "Herbert Hoover", "Franklin D. Roosevelt", "Barack Obama", "Donald Trump")),
    TrainingSource(
        "gutenberg", f"{_NLTK_OLD}/gutenberg.zip",
        "5c638910fa1ac7a0294623950c5e932b421f2057eeedfbb7e8a200e6c77f0168", "book",
        ("Jane Austen", "William Blake", "Lewis Carroll", "G. K. Chesterton",
         "Herman Melville", "John Milton", "Walt Whitman")),
)
"""The training split: every source file and the authors it contributes."""


def training_authors() -> list[str]:
    """Every training author (sorted, distinct).

    >>> len(training_authors()), training_authors()[:2]
    (35, ['Abraham Lincoln', 'Andrew Jackson'])
    """
    return sorted({a for s in TRAINING_SOURCES for a in s.authors})


def normalise_author(name: str) -> str:
    """Comparable form of an author name: surname-first or not, case, accents, dates.

    Returns the sorted lower-case name tokens without initials, life dates or
    punctuation, so ``"Dickens, Charles (1812-1870)"`` and ``"Charles Dickens"`` agree.

    >>> normalise_author("Dickens, Charles (1812-1870)") == normalise_author("Charles Dickens")
    True
    >>> normalise_author("G. K. Chesterton")
    'chesterton'
    """
    from stebkit.datasets.readers.text import strip_diacritics

    text = strip_diacritics(str(name)).lower()
    text = re.sub(r"\(.*?\)|\d+", " ", text)
    tokens = re.findall(r"[a-z']+", text)
    return " ".join(sorted(t for t in tokens if len(t) > 1))


def _president(stem: str) -> str:
    year_text, surname = stem.split("-")[:2]
    year = int(year_text)
    if surname in _BY_YEAR:
        return [name for first, name in _BY_YEAR[surname] if year >= first][-1]
    if surname not in _PRESIDENTS:
        raise ValueError(f"unknown president {surname!r} in file {stem!r}: add them to "
                         "stebkit.train.data._PRESIDENTS")
    return _PRESIDENTS[surname]


_UPPER_LINE = re.compile(r"^[^a-z]*$")
_DATE_LINE = re.compile(r"^\s*(?:[A-Z][a-z]+ \d{1,2}, \d{4}|\d{1,2}:\d{2} [AP]\.M\.).*$")
_STAGE = re.compile(r"\((?:Applause|Laughter|Cheers)[^)]*\)\s*", re.I)
_SPEAKER = re.compile(r"\bTHE PRESIDENT:\s*")


def clean_text(raw: str) -> list[str]:
    """Paragraphs of a raw speech or book, without headings and transcription notes.

    Drops lines without any lower-case letter (titles, chapter headings, bracketed
    Gutenberg title lines are caught separately), date/time lines, ``(Applause.)``-style
    notes and ``THE PRESIDENT:`` speaker labels; paragraphs are separated by blank lines.

    >>> clean_text("[Emma by Jane Austen 1816]\\n\\nCHAPTER I\\n\\nEmma was here.\\nShe sat."
    ...            " (Applause.)\\n\\nJanuary 4, 1965\\nTHE PRESIDENT: Thank you.")
    ['Emma was here. She sat.', 'Thank you.']
    """
    text = raw.replace("\r\n", "\n")
    text = re.sub(r"^\[[^\]\n]*\]\s*$", "", text, flags=re.M)  # Gutenberg title line
    paragraphs = []
    for block in re.split(r"\n\s*\n", text):
        lines = [ln for ln in block.split("\n")
                 if ln.strip() and not _UPPER_LINE.match(ln) and not _DATE_LINE.match(ln)]
        para = _SPEAKER.sub("", _STAGE.sub("", " ".join(ln.strip() for ln in lines)))
        para = " ".join(para.split())
        if para:
            paragraphs.append(para)
    return paragraphs


def _works(source: TrainingSource, path: Path) -> list[tuple[str, str, str]]:
    """``(work id, author, raw text)`` of every included work of one source zip."""
    out = []
    with zipfile.ZipFile(path) as zf:
        for member in sorted(zf.namelist()):
            if not member.endswith(".txt"):
                continue
            stem = member.rsplit("/", 1)[-1][:-4]
            work = f"{source.name}/{stem}"
            if source.name == "gutenberg":
                author = _GUTENBERG_AUTHORS[stem.split("-")[0]]
            else:
                author = _president(stem)
            if author in EXCLUDED_AUTHORS:
                continue
            if author not in source.authors:
                raise ValueError(f"{work}: author {author!r} is not declared in "
                                 f"TRAINING_SOURCES[{source.name!r}].authors")
            out.append((work, author, zf.read(member).decode("latin-1")))
    return out


def load_training_passages(*, max_per_work: int = 150, min_words: int = 60,
                           max_words: int = 120, sources: Sequence[str] | None = None):
    """The passages of the training split as a DataFrame.

    Parameters
    ----------
    max_per_work : int
        Passages kept per work, evenly spaced through it (all when fewer).
    min_words, max_words : int
        Passage length in words, cut on sentence boundaries.
    sources : sequence of str, optional
        Names of :data:`TRAINING_SOURCES` to use (default: all).

    Returns
    -------
    pandas.DataFrame
        Columns ``text``, ``author``, ``work``, ``topic`` (the source's occasion/genre)
        and ``part`` (quarter of the work, 0-3), sorted by work and position.

    Examples
    --------
    >>> df = load_training_passages(sources=["inaugural"], max_per_work=2)
    >>> sorted(df.columns), df["work"].iloc[0]
    (['author', 'part', 'text', 'topic', 'work'], 'inaugural/1789-Washington')
    """
    import pandas as pd

    from stebkit.datasets.readers.text import cut_passages
    from stebkit.sources import fetch

    if max_per_work < 1:
        raise ValueError(f"max_per_work must be >= 1, got {max_per_work}")
    known = {s.name: s for s in TRAINING_SOURCES}
    names = list(known) if sources is None else list(sources)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown training source(s) {unknown}; choose from {list(known)}")
    rows = []
    for name in names:
        source = known[name]
        path = Path(fetch(source.url, sha256=source.sha256))
        for work, author, raw in _works(source, path):
            passages = cut_passages(clean_text(raw), min_words=min_words, max_words=max_words)
            n = len(passages)
            keep = (np.unique(np.linspace(0, n - 1, max_per_work).round().astype(int))
                    if n > max_per_work else np.arange(n))
            for i in keep:
                rows.append((passages[i], author, work, source.topic, int(4 * i // max(n, 1))))
    return pd.DataFrame(rows, columns=["text", "author", "work", "topic", "part"])


def positive_groups(authors: np.ndarray, works: np.ndarray,
                    parts: np.ndarray) -> list[np.ndarray]:
    """For each passage, the indices of its admissible positives.

    Same author, different work when the author has two or more works, otherwise same
    work but a different part. Passages without any admissible positive get an empty
    array.

    >>> g = positive_groups(np.array(["a", "a", "a", "b", "b"]),
    ...                     np.array(["w1", "w1", "w2", "w3", "w3"]), np.array([0, 1, 0, 0, 3]))
    >>> [x.tolist() for x in g]
    [[2], [2], [0, 1], [4], [3]]
    """
    out: list[np.ndarray] = []
    for i in range(len(authors)):
        same_author = authors == authors[i]
        multi_work = len(np.unique(works[same_author])) > 1
        if multi_work:
            ok = same_author & (works != works[i])
        else:
            ok = same_author & (parts != parts[i])
        out.append(np.flatnonzero(ok))
    return out


@dataclass
class BatchSampler:
    """Deterministic (anchor, positive) batches: the batch of step ``s`` depends only on
    ``(seed, s)``.

    Authors are drawn without replacement (uniformly, so every author weighs the same
    whatever the amount of text); when the batch is larger than the number of authors,
    the remaining slots draw authors again.

    >>> s = BatchSampler(np.array(list("aabb")), np.array(list("1234")),
    ...                  np.zeros(4, int), batch_size=2, seed=0)
    >>> a, p = s.batch(0)
    >>> sorted(s.authors[a].tolist()), (s.authors[a] == s.authors[p]).all()
    (['a', 'b'], np.True_)
    """

    authors: np.ndarray
    works: np.ndarray
    parts: np.ndarray
    batch_size: int
    seed: int = 42

    def __post_init__(self) -> None:
        self.positives = positive_groups(self.authors, self.works, self.parts)
        ok = np.array([len(p) > 0 for p in self.positives])
        self.anchors_by_author = {
            a: np.flatnonzero(ok & (self.authors == a)) for a in np.unique(self.authors)
        }
        self.anchors_by_author = {a: v for a, v in self.anchors_by_author.items() if len(v)}
        self.author_list = sorted(self.anchors_by_author)
        if len(self.author_list) < 2:
            raise ValueError("training needs at least 2 authors with an admissible positive "
                             f"pair; got {len(self.author_list)}")

    def rng(self, step: int, stream: int = 0) -> np.random.Generator:
        """The random generator of one step (``stream`` separates independent uses)."""
        return np.random.default_rng([self.seed, step, stream])

    def batch(self, step: int) -> tuple[np.ndarray, np.ndarray]:
        """Indices of the anchors and positives of step ``step``."""
        rng = self.rng(step)
        n_auth = len(self.author_list)
        picks: list[int] = []
        while len(picks) < self.batch_size:
            take = min(n_auth, self.batch_size - len(picks))
            picks.extend(rng.choice(n_auth, size=take, replace=False).tolist())
        anchors, positives = [], []
        for k in picks:
            pool = self.anchors_by_author[self.author_list[k]]
            a = int(pool[rng.integers(len(pool))])
            cand = self.positives[a]
            anchors.append(a)
            positives.append(int(cand[rng.integers(len(cand))]))
        return np.array(anchors), np.array(positives)


def mine_hard_negatives(embeddings: np.ndarray, authors: np.ndarray, topics: np.ndarray,
                        k: int = 5, *, block: int = 1024) -> np.ndarray:
    """The ``k`` most cosine-similar passages by other authors, for every passage.

    Candidates with the same ``topic`` come first (ranked by similarity); when fewer
    than ``k`` exist, the most similar passages of other topics fill the rest.

    Parameters
    ----------
    embeddings : ndarray of shape (n, d)
        Passage embeddings (any scale; rows are L2-normalised here).
    authors, topics : ndarray of shape (n,)
        Author and topic of each passage.
    k : int
        Negatives kept per passage.

    Returns
    -------
    ndarray of shape (n, k), int64
        Row ``i`` lists the negatives of passage ``i``, most similar first.

    Examples
    --------
    >>> e = np.array([[1, 0], [0.9, 0.1], [0.8, 0.2], [0, 1]], dtype=np.float32)
    >>> mine_hard_negatives(e, np.array(list("abca")), np.array(list("xxxx")), k=1).ravel()
    array([1, 0, 1, 2])
    """
    emb = np.asarray(embeddings, dtype=np.float32)
    n = emb.shape[0]
    if len(authors) != n or len(topics) != n:
        raise ValueError(f"authors ({len(authors)}) and topics ({len(topics)}) must have one "
                         f"entry per embedding row ({n})")
    _, inverse, counts = np.unique(authors, return_inverse=True, return_counts=True)
    n_other = n - counts[inverse]
    if k < 1 or k > n_other.min():
        raise ValueError(f"k must be between 1 and {int(n_other.min())} (the fewest passages "
                         f"by other authors of any passage), got {k}")
    unit = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
    out = np.empty((n, k), dtype=np.int64)
    for start in range(0, n, block):
        stop = min(start + block, n)
        out[start:stop] = _block_negatives(unit, start, stop, authors, topics, k)
    return out


def _block_negatives(unit: np.ndarray, start: int, stop: int, authors: np.ndarray,
                     topics: np.ndarray, k: int) -> np.ndarray:
    """The hard negatives of passages ``start`` to ``stop - 1`` (of the unit embeddings
    ``unit``), most similar first."""
    sims = unit[start:stop] @ unit.T
    rows = np.arange(start, stop)
    same_author = authors[rows][:, None] == authors[None, :]
    other_topic = topics[rows][:, None] != topics[None, :]
    # Ordering key: other authors only; same topic ranks above any other topic.
    key = np.where(same_author, -np.inf, sims.astype(np.float64) - 4.0 * other_topic)
    top = np.argpartition(-key, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(key, top, axis=1), axis=1, kind="stable")
    return np.take_along_axis(top, order, axis=1)
