"""STEB's non-neural baselines: TF-IDF n-grams, function words, LFTK features, random.

Reference corpus
----------------
The TF-IDF vocabularies and IDF weights, and the scaling of the LFTK features, are fitted
once on a fixed reference corpus that is not evaluation text: the NLTK ``inaugural``
corpus (all 59 US presidential inaugural addresses, 1789-2021, public domain;
``nltk_data`` @ ``5db857e6f7``), one document per paragraph (line) of at least five
words: 1,547 paragraphs. Evaluation
sets must not draw on it. The fit is kept in the store (:func:`stored_fit`,
``STEBKIT_CACHE/baselines``) as NumPy ``.npz`` files (no pickle) and reused. (The STEB
reference fits its TF-IDF vectorizers on a FineWeb or MUD sample; those pickles are not
available offline.) As in the reference, these baselines embed an episode as one document
(its texts joined by a space), not as a mean of text vectors.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.resources
import zipfile
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from stebkit.encoders.base import BaseEncoder, check_texts

REFERENCE_URL = ("https://raw.githubusercontent.com/nltk/nltk_data/"
                 "5db857e6f7df11eabb5e5665836db9ec8df07e28/packages/corpora/inaugural.zip")
REFERENCE_SHA256 = "7c5fb5793e31fbeae12bf1aa0ffda5336468f07cedb50654c6d31ca384e2046b"
REFERENCE_NAME = "nltk-inaugural@5db857e6f7"
TIES = "ties-by-ngram"
"""How the TF-IDF vocabulary breaks ties at its cut (part of the encoders' revision, so
that vocabularies and embeddings cached under another rule are not reused)."""
TOKEN_PATTERN = r"(?u)\b\w+\b"  # keeps one-letter words ("a", "I")
FUNCTION_WORD_LANGUAGES = ("en", "de", "fr", "es", "it")


OTHER = "<other>"
"""Column of the out-of-vocabulary share in the TF-IDF and function-word baselines."""


class _ConcatenatedEpisodes(BaseEncoder):
    """Episodes are embedded as one document: their texts joined by a space (reference)."""

    def encode_episodes(self, episodes: Sequence[Sequence[str]], *, batch_size: int = 32,
                        show_progress: bool = False) -> np.ndarray:
        docs = []
        for i, ep in enumerate(episodes):
            if len(ep) == 0:
                raise ValueError(f"episodes[{i}] is empty: every episode needs a text")
            docs.append(" ".join(check_texts(ep, warn_empty=False)))
        return self.encode(docs, batch_size=batch_size, show_progress=show_progress)


def stored_fit(producer: str, settings: Mapping[str, Any],
               fit: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The arrays ``fit`` makes on the reference corpus, kept in the store
    (:mod:`stebkit.store`, ``$STEBKIT_CACHE/baselines``) keyed by ``producer``, the corpus
    and ``settings``: read when a stored fit checks out (arrays of one length, finite
    numbers), else fitted now and stored."""
    from stebkit.store import store_of

    store = store_of("baselines")
    folder = store.folder(producer, REFERENCE_NAME, inputs={"corpus": REFERENCE_SHA256},
                          settings=settings)
    for path in store.entries(folder, ".npz"):
        arrays = store.get_arrays(path, _fit_fault)
        if arrays is not None:
            return arrays
    arrays = fit()
    store.put_arrays(folder, **arrays)
    return arrays


def _fit_fault(arrays: Mapping[str, np.ndarray]) -> str | None:
    """What is wrong with a stored fit (None: nothing): its arrays are one value per
    column, numbers finite.

    >>> _fit_fault({"idf": np.ones(2), "vocabulary": np.array(["a"])})
    "its arrays are not one value per column: {'idf': (2,), 'vocabulary': (1,)}"
    """
    shapes = {k: a.shape for k, a in sorted(arrays.items())}
    if not arrays or len(set(shapes.values())) != 1 or len(next(iter(shapes.values()))) != 1:
        return f"its arrays are not one value per column: {shapes}"
    if any(a.dtype.kind == "f" and not np.isfinite(a).all() for a in arrays.values()):
        return "its numbers hold NaN or infinite values"
    return None


def reference_corpus() -> list[str]:
    """The reference corpus: paragraphs (>= 5 words) of NLTK ``inaugural``, in file order.

    Fetched through :func:`stebkit.sources.fetch` (mirror, cache or download, checked
    against its sha256).
    """
    from stebkit.sources import fetch

    docs: list[str] = []
    with zipfile.ZipFile(fetch(REFERENCE_URL, REFERENCE_SHA256)) as zf:
        for member in sorted(n for n in zf.namelist() if n.endswith(".txt")):
            raw = zf.read(member)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:  # one address is Windows-1252
                text = raw.decode("cp1252", errors="replace")
            docs.extend(line.strip() for line in text.splitlines() if len(line.split()) >= 5)
    return docs


class TfidfEncoder(_ConcatenatedEpisodes):
    """TF-IDF over word or character n-grams, fitted on a reference corpus.

    Vocabulary: the ``max_features`` most frequent n-grams of the corpus (lowercased;
    of n-grams of equal frequency at the cut, the first in string order, :data:`TIES`);
    weights: smoothed IDF, rows L2-normalised (scikit-learn's ``TfidfVectorizer``
    defaults, as the reference). One more column, :data:`OTHER`, counts the text's n-grams
    outside the vocabulary (weight 1), so that no text gets the zero vector (which has
    cosine similarity 0 with every text) and texts in another language or script still
    compare; an empty text is all ``OTHER``. Without out-of-vocabulary n-grams the
    vocabulary columns equal ``TfidfVectorizer``'s output.

    Parameters
    ----------
    analyzer : {"word", "char"}
        Word n-grams (tokens ``\\b\\w+\\b``) or character n-grams.
    ngram_range : (int, int), optional
        Default (1, 2) for words, (3, 5) for characters (the reference's settings).
    max_features : int
        Vocabulary size (2000, as the reference).
    corpus : sequence of str, optional
        Fit on these texts instead of the reference corpus (nothing is cached then).

    Examples
    --------
    >>> enc = TfidfEncoder("word", corpus=["the cat sat", "the dog ran"], max_features=4)
    >>> enc.vocabulary
    ['cat', 'cat sat', 'dog', 'the', '<other>']
    >>> enc.encode(["the cat sat"]).round(3)  # "sat" and "the cat" are outside: <other> = 2
    array([[0.47 , 0.47 , 0.   , 0.334, 0.669]], dtype=float32)
    >>> enc.encode(["le chat"]).round(3)
    array([[0., 0., 0., 0., 1.]], dtype=float32)
    """

    max_length = None

    def __init__(self, analyzer: str = "word", *, ngram_range: tuple[int, int] | None = None,
                 max_features: int = 2000, corpus: Sequence[str] | None = None) -> None:
        if analyzer not in {"word", "char"}:
            raise ValueError(f"analyzer must be 'word' or 'char', got {analyzer!r}")
        self.analyzer = analyzer
        self.ngram_range = tuple(ngram_range or ((1, 2) if analyzer == "word" else (3, 5)))
        self.max_features = int(max_features)
        self._corpus = None if corpus is None else check_texts(corpus, warn_empty=False)
        lo, hi = self.ngram_range
        self.name = f"tfidf-{analyzer}-{lo}-{hi}grams"
        if self._corpus is None:
            self.revision = f"{REFERENCE_NAME}+other+{TIES}"
        else:
            digest = hashlib.sha256("\x00".join(self._corpus).encode()).hexdigest()[:16]
            self.revision = f"corpus:{digest}+other+{TIES}"
        self.cache_config = {"max_features": self.max_features}
        self._vocab: list[str] | None = None
        self._idf: np.ndarray | None = None
        self._counter: Any = None

    def _counter_for(self, vocabulary: Mapping[str, int] | None = None) -> Any:
        """The n-gram counter (every n-gram of the corpus, or those of ``vocabulary``)."""
        from sklearn.feature_extraction.text import CountVectorizer

        pattern = {"token_pattern": TOKEN_PATTERN} if self.analyzer == "word" else {}
        return CountVectorizer(analyzer=self.analyzer, ngram_range=self.ngram_range,
                               lowercase=True, dtype=np.float64, vocabulary=vocabulary,
                               **pattern)

    def _fitted(self, corpus: Sequence[str]) -> dict[str, np.ndarray]:
        """The vocabulary and smoothed IDF weights fitted on ``corpus``: the
        ``max_features`` n-grams of highest corpus frequency, n-grams of equal frequency
        at the cut taken in string order (scikit-learn's column order).
        (``TfidfVectorizer(max_features=...)``
        keeps the same n-grams except at such ties, where its choice follows the
        processor's sort; here it is one choice everywhere.)"""
        from sklearn.feature_extraction.text import TfidfTransformer

        counter = self._counter_for()
        counts = counter.fit_transform(corpus).tocsc()  # columns in string order
        frequency = np.asarray(counts.sum(axis=0)).ravel()
        kept = np.sort(np.argsort(-frequency, kind="stable")[:self.max_features])
        idf = TfidfTransformer(smooth_idf=True).fit(counts[:, kept]).idf_
        return {"vocabulary": np.asarray(counter.get_feature_names_out()[kept], dtype=str),
                "idf": idf.astype(np.float64)}

    def _fit(self) -> None:
        if self._vocab is not None:
            return
        if self._corpus is not None:
            stored = self._fitted(self._corpus)
        else:
            settings = {"analyzer": self.analyzer, "ngram_range": list(self.ngram_range),
                        "max_features": self.max_features, "ties": TIES}
            stored = stored_fit("tfidf", settings, lambda: self._fitted(reference_corpus()))
        self._vocab = [str(v) for v in stored["vocabulary"]]
        self._idf = stored["idf"]
        self._counter = self._counter_for({v: i for i, v in enumerate(self._vocab)})

    @property
    def vocabulary(self) -> list[str]:
        """The column names: the n-grams, then :data:`OTHER`."""
        self._fit()
        assert self._vocab is not None
        return [*self._vocab, OTHER]

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        return len(self.vocabulary)

    def encode(self, texts: Sequence[str], *, batch_size: int = 1024,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts)
        self._fit()
        raw = self._counter.transform(texts)
        analyze = self._counter.build_analyzer()
        total = np.array([len(analyze(t)) for t in texts], dtype=np.float64)
        other = total - np.asarray(raw.sum(axis=1), dtype=np.float64).ravel()
        other[total == 0] = 1.0
        weighted = raw.multiply(self._idf[None, :]).toarray().astype(np.float64)
        dense = np.hstack([weighted, other[:, None]])
        return (dense / np.linalg.norm(dense, axis=1, keepdims=True)).astype(np.float32)


def lftk_surface_pos_keys() -> list[str]:
    """LFTK keys of the reference's ``surface_pos.yaml``: surface domain + part of speech."""
    import lftk

    keys = [*lftk.search_features(domain="surface", return_format="list_key"),
            *lftk.search_features(family="partofspeech", return_format="list_key")]
    return list(dict.fromkeys(keys))


def function_words(language: str = "en") -> list[str]:
    """The project's function-word list for ``language`` (words and multi-word phrases).

    >>> function_words("en")[:3]
    ['a', 'an', 'the']
    """
    if language not in FUNCTION_WORD_LANGUAGES:
        raise ValueError(f"no function-word list for language {language!r}; "
                         f"available: {', '.join(FUNCTION_WORD_LANGUAGES)}")
    text = (importlib.resources.files("stebkit.encoders") / "function_words" /
            f"{language}.txt").read_text(encoding="utf-8")
    seen: dict[str, None] = {}
    for line in text.splitlines():
        item = " ".join(line.strip().lower().split())
        if item and not item.startswith("#"):
            seen.setdefault(item, None)
    return list(seen)


@functools.lru_cache(maxsize=8)
def _phrase_counter(items: tuple[str, ...]) -> Any:
    """Counts of ``items`` (words, and phrases as word n-grams; lowercased, tokens
    :data:`TOKEN_PATTERN`) in a text: scikit-learn's ``CountVectorizer`` on them."""
    from sklearn.feature_extraction.text import CountVectorizer

    longest = max(len(v.split()) for v in items)
    return CountVectorizer(token_pattern=TOKEN_PATTERN, lowercase=True,
                           ngram_range=(1, longest), vocabulary={v: i for i, v in
                                                                 enumerate(items)})


def _token_counts(texts: Sequence[str]) -> np.ndarray:
    """The number of tokens (:data:`TOKEN_PATTERN`, lowercased) of each text."""
    import re

    pattern = re.compile(TOKEN_PATTERN)
    return np.array([len(pattern.findall(t.lower())) for t in texts], dtype=np.int64)


class FunctionWordEncoder(_ConcatenatedEpisodes):
    """Relative frequencies of function words and phrases (the reference's baseline).

    Each column counts one word or phrase (lowercased, tokens ``\\b\\w+\\b``), divided by
    the text's number of tokens. A last column, :data:`OTHER`, holds the share of tokens
    that are not single function words, so no text gets the zero vector (an empty text,
    or one in another language, is all ``OTHER``).

    Without ``language`` the English list is used and :func:`stebkit.evaluate` switches to
    the list of each dataset's language (:meth:`for_language`), saying so in the record;
    a language without a list keeps the English one and the record says that too.

    Examples
    --------
    >>> enc = FunctionWordEncoder("en")
    >>> v = enc.encode(["The cat and the dog."])[0].astype(float).round(6)
    >>> float(v[enc.vocabulary.index("the")]), float(v[enc.vocabulary.index("and")])
    (0.4, 0.2)
    >>> float(v[enc.vocabulary.index("<other>")])  # "cat" and "dog"
    0.4
    """

    max_length = None
    cache_config: dict[str, Any] = {}

    def __init__(self, language: str | None = None) -> None:
        self.adapts = language is None
        language = language or "en"
        self.language = language
        self.words = function_words(language)
        self.vocabulary = [*self.words, OTHER]
        self.name = f"function-words-{language}"
        digest = hashlib.sha256("\n".join(self.words).encode()).hexdigest()[:12]
        self.revision = f"list:{digest}+other"
        self.embedding_dim = len(self.vocabulary)

    def for_language(self, language: str | None) -> tuple[FunctionWordEncoder, str | None]:
        """The encoder for texts in ``language`` and a note saying which list it uses.

        Only an encoder built without ``language`` adapts; ``None`` (several or unknown
        languages) keeps the English list.

        >>> enc, note = FunctionWordEncoder().for_language("de")
        >>> enc.name, note
        ('function-words-de', "function words: the 'de' list (the texts' language)")
        >>> FunctionWordEncoder().for_language("ru")[1][:48]
        "function words: no list for language 'ru' (lists"
        """
        if not self.adapts or language == self.language:
            return self, None
        if language in FUNCTION_WORD_LANGUAGES:
            return FunctionWordEncoder(language), (f"function words: the {language!r} list "
                                                   "(the texts' language)")
        what = "language unknown or mixed" if language is None else \
            f"no list for language {language!r} (lists: {', '.join(FUNCTION_WORD_LANGUAGES)})"
        return self, (f"function words: {what}; the {self.language!r} list is used, so "
                      "most tokens count as <other> and many texts may share one vector")

    def encode(self, texts: Sequence[str], *, batch_size: int = 1024,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts)
        counts = _phrase_counter(tuple(self.words)).transform(texts).toarray()
        counts = counts.astype(np.float64)
        n_tokens = _token_counts(texts).astype(np.float64)
        single = np.array([" " not in w for w in self.words])
        other = n_tokens - counts[:, single].sum(axis=1)
        other[n_tokens == 0] = 1.0
        denominator = np.maximum(n_tokens, 1.0)[:, None]
        return (np.hstack([counts, other[:, None]]) / denominator).astype(np.float32)


def reference_function_words() -> list[str]:
    """The vocabulary of the reference's ``functionwordfreq``: its 389 words and 69
    phrases (``steb/resources/function_words_phrases.json``, commit e600cb4f14e5),
    lowercased, duplicates dropped, words first.

    >>> items = reference_function_words()
    >>> len(items), items[:3], items[-1]
    (458, ['can', 'could', 'dare'], 'tons of')
    """
    text = (importlib.resources.files("stebkit.encoders") / "function_words" /
            "functionwordfreq.txt").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line and not line.startswith("#")]


class FunctionWordFreqEncoder(_ConcatenatedEpisodes):
    """The reference's ``functionwordfreq`` baseline: counts of its 458 function words and
    phrases (:func:`reference_function_words`; lowercased, tokens ``\\b\\w+\\b``, a
    phrase counted as a word n-gram) divided by the text's number of tokens (at least 1),
    in float32, as the reference's ``FunctionWordFreqModel`` computes them. No other
    column: a text with no function word (an empty one, or one in another language) is
    the zero vector, as in the reference. stebkit's multilingual baseline with an
    out-of-vocabulary column is ``function-words`` (:class:`FunctionWordEncoder`).

    >>> enc = FunctionWordFreqEncoder()
    >>> v = enc.encode(["The cat and the dog, according to me."])[0]
    >>> [round(float(v[enc.vocabulary.index(w)]), 3) for w in ("the", "according to", "to")]
    [0.25, 0.125, 0.125]
    >>> enc.embedding_dim, float(enc.encode(["Le chat"]).sum())
    (458, 0.0)
    """

    max_length = None
    cache_config: dict[str, Any] = {}
    name = "functionwordfreq"

    def __init__(self) -> None:
        self.vocabulary = reference_function_words()
        digest = hashlib.sha256("\n".join(self.vocabulary).encode()).hexdigest()[:12]
        self.revision = f"steb-list:{digest}"
        self.embedding_dim = len(self.vocabulary)

    def encode(self, texts: Sequence[str], *, batch_size: int = 1024,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts)
        counts = _phrase_counter(tuple(self.vocabulary)).transform(texts).toarray()
        n_tokens = np.maximum(_token_counts(texts), 1).astype(np.float32)
        return counts.astype(np.float32) / n_tokens[:, None]


class LFTKEncoder(_ConcatenatedEpisodes):
    """LFTK handcrafted linguistic features (spaCy pipeline).

    Features come from :func:`stebkit.datasets.features.lftk_features` (a feature-set name or a
    list of LFTK keys; the leaderboard's ``surface_pos.yaml`` is the surface domain plus
    the part-of-speech family). ``scaling="l2"`` scales each text's raw feature vector to
    unit length, as the STEB reference's LFTK model does (missing values become 0; an
    all-zero vector stays zero). ``scaling="zscore"`` standardises each feature with the
    mean and standard deviation it has on a fixed sample of the reference corpus (the
    first 200 paragraphs), so a text's vector does not depend on the other texts encoded
    with it; missing values become 0 (the reference mean).

    ``scoring`` follows the reference: the unit-length raw features (``"l2"``) are compared
    by negative L1 distance in pair tasks and clustered on their absolute values
    (``scoring = "l1"``); the standardised variant is compared by cosine like any
    embedding.

    Examples
    --------
    >>> LFTKEncoder().encode(["A short sentence. And another one."]).shape[0]
    1
    """

    max_length = None
    n_reference = 200

    def __init__(self, features: str | Sequence[str] = "foundation", *, language: str = "en",
                 name: str | None = None, scaling: str = "zscore", sentences: str = "parser",
                 decimals: int = 3, min_tokens: int = 0) -> None:
        if scaling not in ("zscore", "l2"):
            raise ValueError(f"scaling must be 'zscore' or 'l2', got {scaling!r}")
        self.scaling = scaling
        self.scoring = "l1" if scaling == "l2" else "cosine"
        if isinstance(features, str):
            label = features
        else:
            features = list(features)
            label = "keys-" + hashlib.sha256(",".join(features).encode()).hexdigest()[:10]
        self.features = features
        self.language = language
        self.analysis = {"sentences": sentences, "decimals": decimals, "min_tokens": min_tokens}
        self._label = label
        self.name = name or f"lftk-{label}" + ("" if language == "en" else f"-{language}")
        self.revision = self._revision()
        self.cache_config = {"standardised_on": REFERENCE_NAME, "n": self.n_reference,
                             "scaling": scaling, **self.analysis}
        self._stats: dict[str, np.ndarray] | None = None

    @classmethod
    def surface_pos(cls, **options: Any) -> LFTKEncoder:
        """The reference's ``surface_pos.yaml``: the keys of :func:`lftk_surface_pos_keys`,
        counted as the reference's LFTK model counts them (sentences from spaCy's rule-based
        sentencizer, the parser left out; 7 decimals; a text under two tokens is the zero
        vector), raw and L2-normalised (``scaling="l2"``), named ``lftk-surface-pos``;
        ``options`` (e.g. ``language``) go to the constructor.

        One difference remains: the reference counts a batch of 200 texts with LFTK's
        shared options, so after the batch's first text its surface counts (``t_word``,
        ``a_word_ps``, ...) leave punctuation out. Here every text is counted on its own,
        punctuation included, as the reference counts the first text of each batch; the
        readability formulas leave it out, as LFTK defines them.

        >>> enc = LFTKEncoder.surface_pos()
        >>> enc.name, enc.scaling, enc.scoring, enc.analysis["sentences"]
        ('lftk-surface-pos', 'l2', 'l1', 'sentencizer')
        """
        options = {"sentences": "sentencizer", "decimals": 7, "min_tokens": 2, **options}
        return cls(lftk_surface_pos_keys(), name="lftk-surface-pos", scaling="l2", **options)

    @staticmethod
    def _revision() -> str:
        from importlib.metadata import PackageNotFoundError, version

        from stebkit.datasets.features import STORE_VERSION

        try:
            return f"lftk=={version('lftk')}+features{STORE_VERSION}"
        except PackageNotFoundError:
            return f"lftk+features{STORE_VERSION}"

    def _features(self, texts: list[str], batch_size: int, show_progress: bool) -> Any:
        from stebkit.datasets.features import lftk_features

        return lftk_features(texts, features=self.features, language=self.language,
                             batch_size=batch_size, show_progress=show_progress,
                             **self.analysis)

    def _standardiser(self) -> dict[str, np.ndarray]:
        if self._stats is None:
            def fit() -> dict[str, np.ndarray]:
                frame = self._features(reference_corpus()[:self.n_reference], 64, False)
                values = frame.to_numpy(dtype=np.float64)
                std = np.nanstd(values, axis=0)
                return {"columns": np.asarray(frame.columns, dtype=str),
                        "mean": np.nan_to_num(np.nanmean(values, axis=0)),
                        "std": np.where(np.isfinite(std) & (std > 0), std, 1.0)}

            settings = {"features": self._label, "language": self.language,
                        "n_reference": self.n_reference, "revision": self.revision,
                        "reference": REFERENCE_NAME, **self.analysis}
            self._stats = stored_fit("lftk-standardiser", settings, fit)
        return self._stats

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        return len(self._standardiser()["columns"])

    @property
    def columns(self) -> list[str]:
        """Feature names, in column order."""
        return [str(c) for c in self._standardiser()["columns"]]

    def encode(self, texts: Sequence[str], *, batch_size: int = 64,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts)
        stats = self._standardiser()
        if not texts:
            return np.zeros((0, len(stats["columns"])), dtype=np.float32)
        frame = self._features(texts, batch_size, show_progress)
        values = frame.reindex(columns=list(stats["columns"])).to_numpy(dtype=np.float64)
        if self.scaling == "l2":
            raw = np.nan_to_num(values, nan=0.0, posinf=0.0, neginf=0.0)
            norm = np.linalg.norm(raw, axis=1, keepdims=True)
            return np.where(norm > 1e-10, raw / np.where(norm > 1e-10, norm, 1.0),
                            raw).astype(np.float32)
        z = (values - stats["mean"]) / stats["std"]
        return np.nan_to_num(z, nan=0.0, posinf=0.0, neginf=0.0).astype(np.float32)


class RandomEncoder(BaseEncoder):
    """Random vectors, deterministic per text: the text's sha256 (and ``seed``) seed them.

    The chance-level reference of the benchmark: the same text always gets the same
    standard-normal vector, whatever else is encoded with it.

    Examples
    --------
    >>> enc = RandomEncoder(dim=4)
    >>> a = enc.encode(["x", "y"])
    >>> bool((enc.encode(["x"])[0] == a[0]).all()), bool((a[0] == a[1]).all())
    (True, False)
    """

    max_length = None

    def __init__(self, dim: int = 384, *, seed: int = 42) -> None:
        if dim < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        self.embedding_dim = int(dim)
        self.seed = int(seed)
        self.name = "random" if dim == 384 else f"random-{dim}"
        self.revision = "sha256-seeded"
        self.cache_config = {"seed": self.seed}

    def encode(self, texts: Sequence[str], *, batch_size: int = 1024,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts, warn_empty=False)
        out = np.empty((len(texts), self.embedding_dim), dtype=np.float32)
        for i, t in enumerate(texts):
            digest = hashlib.sha256(t.encode("utf-8")).digest()
            words = np.frombuffer(digest, dtype=np.uint32)
            rng = np.random.default_rng([self.seed, *words.tolist()])
            out[i] = rng.standard_normal(self.embedding_dim)
        return out
