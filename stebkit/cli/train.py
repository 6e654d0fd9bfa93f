"""``stebkit train``: train the offline style encoder from the command line.

>>> from stebkit.cli import build_parser
>>> args = build_parser().parse_args(["train", "--steps", "10", "--matryoshka", "64,384"])
>>> args.steps, args.matryoshka
(10, '64,384')
"""

from __future__ import annotations

import argparse
import dataclasses

from stebkit.cli.subcommand import Subcommand
from stebkit.errors import InvalidSetting
from stebkit.train.device import PRECISIONS
from stebkit.train.loop import TRAIN_OPTIONS, TrainConfig, check_widths


def _add_arguments(p: argparse.ArgumentParser) -> None:
    d = TrainConfig()
    p.add_argument("--output", default=None, help="model folder (default: "
                   "$STEBKIT_STYLE_MODEL or $STEBKIT_CACHE/models/stebkit-style-minilm)")
    p.add_argument("--base-model", default=None,
                   help="local Hugging Face encoder folder (default: all-MiniLM-L6-v2)")
    p.add_argument("--steps", type=int, default=d.steps, help=f"default {d.steps}")
    p.add_argument("--batch-size", type=int, default=d.batch_size,
                   help=f"anchor/positive pairs per step (default {d.batch_size})")
    p.add_argument("--max-seq-length", type=int, default=d.max_seq_length,
                   help=f"tokens per text (default {d.max_seq_length})")
    p.add_argument("--learning-rate", type=float, default=d.learning_rate)
    p.add_argument("--temperature", type=float, default=d.temperature)
    p.add_argument("--dropout1d", type=float, default=d.dropout1d,
                   help=f"channel dropout on token states (default {d.dropout1d}; 0: off)")
    p.add_argument("--hard-negatives", type=int, default=d.hard_negatives,
                   help=f"mined hard negatives per anchor (default {d.hard_negatives}; 0: off)")
    p.add_argument("--refresh-hard-negatives-every", type=int,
                   default=d.refresh_hard_negatives_every,
                   help="re-mine with the current model every N steps (default 0: once, "
                        "with the base model)")
    p.add_argument("--content-pairs", type=int, default=d.content_pairs,
                   help="content-controlled triplets per step: same style and other content "
                        "as positive, same content and other style as hard negative "
                        f"(default {d.content_pairs}; 0: authorship pairs only)")
    p.add_argument("--content-weight", type=float, default=d.content_weight,
                   help=f"weight of the content-controlled loss (default {d.content_weight})")
    p.add_argument("--content-sources", default=",".join(d.content_sources),
                   help="content-controlled sources, comma-separated (default: "
                        f"{','.join(d.content_sources)})")
    p.add_argument("--matryoshka", default="", metavar="DIMS",
                   help="nested dimensions for a Matryoshka loss, e.g. 64,128,256,384")
    p.add_argument("--lora-rank", type=int, default=d.lora_rank,
                   help=f"rank of the LoRA adapter (default {d.lora_rank}; 0: fine-tune every "
                        "weight, then lower --learning-rate, e.g. to 5e-5)")
    p.add_argument("--rule-weights", default=_shown_weights(d.rule_weights), metavar="RULE=W",
                   help="how often each rule-made style is drawn as content-controlled "
                        f"anchor and negative (default {_shown_weights(d.rule_weights)}; "
                        "others 1; '' : all 1)")
    p.add_argument("--device", default=d.device,
                   help="auto (cuda when present, else cpu), cpu, cuda, cuda:N or mps "
                        f"(default {d.device})")
    p.add_argument("--precision", default=d.precision, choices=PRECISIONS,
                   help="auto: bfloat16 autocast on cuda, float32 elsewhere; bfloat16 asks "
                        f"for it on the CPU too (default {d.precision})")
    p.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    p.add_argument("--no-resume", action="store_true",
                   help="start over even if checkpoints of this configuration exist")
    p.add_argument("--overwrite", action="store_true",
                   help="accept an --output folder that is not empty and holds no model: "
                        "the model is written beside its files (none is deleted)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def checked_config(args: argparse.Namespace) -> TrainConfig:
    """The :class:`TrainConfig` of the command line, every option checked first through
    its declared setting (:mod:`stebkit.settings`), Matryoshka widths against the base
    model's width (:func:`~stebkit.train.loop.check_widths`), before torch is imported
    or a model loaded; an :class:`~stebkit.errors.InvalidSetting` names the option.

    >>> from stebkit.cli import build_parser
    >>> checked_config(build_parser().parse_args(["train", "--matryoshka", "abc,-5"]))
    Traceback (most recent call last):
    ...
    ValueError: --matryoshka: 'abc' is not a whole number; give increasing positive widths \
such as 64,128,256
    >>> checked_config(build_parser().parse_args(["train", "--matryoshka", "999999"]))
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: --matryoshka: 999999 is wider than the base model's \
embedding (384 dimensions); give widths up to 384, such as 48,96,192,384
    """
    from pathlib import Path

    from stebkit.train.content import CONTENT_SOURCES

    dims = []
    for piece in (x.strip() for x in args.matryoshka.split(",") if x.strip()):
        if not piece.lstrip("-").isdigit():
            raise ValueError(f"--matryoshka: {piece!r} is not a whole number; give "
                             "increasing positive widths such as 64,128,256")
        dims.append(int(piece))
    sources = tuple(x.strip() for x in args.content_sources.split(",") if x.strip())
    unknown = [x for x in sources if x not in CONTENT_SOURCES]
    if unknown:
        raise ValueError(f"--content-sources: unknown source(s) {unknown}; choose among "
                         f"{', '.join(CONTENT_SOURCES)}")
    TRAIN_OPTIONS["num_threads"].named("--threads").check(args.threads)
    if args.base_model is not None:
        from stebkit.encoders.folders import check_model_folder

        folder = Path(args.base_model).expanduser()
        if not folder.is_dir():
            raise ValueError(f"--base-model {args.base_model}: no such folder; give a local "
                             "Hugging Face model folder (config.json, weights, tokenizer)")
        check_model_folder(folder)
    fields = dict(base_model=args.base_model, steps=args.steps, batch_size=args.batch_size,
                  max_seq_length=args.max_seq_length, learning_rate=args.learning_rate,
                  temperature=args.temperature, dropout1d=args.dropout1d,
                  hard_negatives=args.hard_negatives,
                  refresh_hard_negatives_every=args.refresh_hard_negatives_every,
                  matryoshka_dims=tuple(dims), checkpoint_every=args.checkpoint_every,
                  seed=args.seed, content_pairs=args.content_pairs,
                  content_weight=args.content_weight, content_sources=sources,
                  lora_rank=args.lora_rank, rule_weights=_parsed_weights(args.rule_weights),
                  device=args.device, precision=args.precision)
    try:
        config = dataclasses.replace(TrainConfig(), **fields)
        check_widths(config)
    except InvalidSetting as err:  # TrainConfig names its field: say the option instead
        raise InvalidSetting(_as_option(str(err))) from None
    return config


def _shown_weights(pairs: tuple[tuple[str, float], ...]) -> str:
    return ",".join(f"{name}={weight:g}" for name, weight in pairs)


def _parsed_weights(text: str) -> tuple[tuple[str, float], ...]:
    """``rule=weight,...`` as pairs (checked by :class:`TrainConfig`).

    >>> _parsed_weights("contractions=4, emoji=0.5")
    (('contractions', 4.0), ('emoji', 0.5))
    >>> _parsed_weights("contractions")
    Traceback (most recent call last):
    ...
    ValueError: --rule-weights: 'contractions' is not RULE=WEIGHT; give e.g. contractions=4
    """
    pairs = []
    for piece in (x.strip() for x in text.split(",") if x.strip()):
        name, sep, weight = piece.partition("=")
        try:
            pairs.append((name.strip(), float(weight)))
        except ValueError:
            sep = ""
        if not sep:
            raise ValueError(f"--rule-weights: {piece!r} is not RULE=WEIGHT; give e.g. "
                             "contractions=4")
    return tuple(pairs)


def _as_option(message: str) -> str:
    """A message of :class:`TrainConfig` with its field named as the command line's
    option (``matryoshka_dims must ...`` -> ``--matryoshka must ...``)."""
    head, _, rest = message.partition(" ")
    name = head.rstrip(":")
    field = name.removeprefix("TrainConfig.")
    option = {"matryoshka_dims": "matryoshka"}.get(field, field).replace("_", "-")
    return f"--{option}{head[len(name):]} {rest}"


def _run(args: argparse.Namespace) -> int:
    config = checked_config(args)
    if args.output is not None:
        from stebkit.train.model import check_output_dir

        check_output_dir(args.output, overwrite=args.overwrite)
    from stebkit.train.loop import train_style_encoder

    result = train_style_encoder(config, output_dir=args.output, resume=not args.no_resume,
                                 show_progress=not args.no_progress,
                                 num_threads=args.threads, overwrite=args.overwrite)
    print(f"trained {result.step} steps in {result.seconds:.0f} s "
          f"({result.n_passages} passages, {result.n_authors} authors); "
          f"model saved to {result.output_dir}")
    return 0


TRAIN = Subcommand("train", help="train the offline style encoder (contrastive: authorship "
                   "and content-controlled pairs)", add_arguments=_add_arguments, run=_run)
