"""``stebkit train``: train the offline style encoder from the command line.

>>> from stebkit.cli import build_parser
>>> args = build_parser().parse_args(["train", "--steps", "10", "--matryoshka", "64,384"])
>>> args.steps, args.matryoshka
(10, '64,384')
"""

from __future__ import annotations

import argparse
import inspect
from typing import Any

from stebkit.cli.subcommand import Subcommand
from stebkit.escape import echo
from stebkit.settings import add_flags, flag_values
from stebkit.train.device import check_device_name
from stebkit.train.loop import TRAIN_OPTIONS, TrainConfig, check_widths, matryoshka_widths
from stebkit.train.rules import checked_rule_weights


def _add_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of :class:`TrainConfig` and :data:`TRAIN_OPTIONS` (:mod:`stebkit.settings`),
    and those of the output folder and of the two lists given as comma-separated text."""
    d = TrainConfig()
    p.add_argument("--output", default=None, help="model folder (default: "
                   "$STEBKIT_STYLE_MODEL or $STEBKIT_CACHE/models/stebkit-style-minilm)")
    TrainConfig.add_flags(p)
    p.add_argument("--content-sources", default=",".join(d.content_sources),
                   help="content-controlled sources, comma-separated (default: "
                        f"{','.join(d.content_sources)})")
    p.add_argument("--matryoshka", default="", metavar="DIMS",
                   help="nested dimensions for a Matryoshka loss, e.g. 64,128,256,384")
    p.add_argument("--rule-weights", default=_shown_weights(d.rule_weights), metavar="RULE=W",
                   help="how often each rule-made style is drawn as content-controlled "
                        f"anchor and negative (default {_shown_weights(d.rule_weights)}; "
                        "others 1; '' : all 1)")
    add_flags(p, TRAIN_OPTIONS, _option_defaults())


def _option_defaults() -> dict[str, Any]:
    """The defaults of :func:`train_style_encoder`'s options (``resume=True``, ...)."""
    from stebkit.train.loop import train_style_encoder

    parameters = inspect.signature(train_style_encoder).parameters
    return {name: parameters[name].default for name in TRAIN_OPTIONS}


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
    flag_values(args, TRAIN_OPTIONS)
    if args.base_model is not None:
        from stebkit.encoders.folders import check_model_folder

        folder = Path(args.base_model).expanduser()
        if not folder.is_dir():
            raise ValueError(f"--base-model {args.base_model}: no such folder; give a local "
                             "Hugging Face model folder (config.json, weights, tokenizer)")
        check_model_folder(folder)
    check_device_name(args.device, name="--device")  # the pattern TrainConfig checks
    config = TrainConfig.from_flags(
        args, matryoshka_dims=matryoshka_widths(dims, name="--matryoshka"),
        content_sources=sources, rule_weights=_parsed_weights(args.rule_weights))
    check_widths(config, name="--matryoshka")
    return config


def _shown_weights(pairs: tuple[tuple[str, float], ...]) -> str:
    return ",".join(f"{name}={weight:g}" for name, weight in pairs)


def _parsed_weights(text: str) -> tuple[tuple[str, float], ...]:
    """``rule=weight,...`` as pairs, checked as :class:`TrainConfig` checks them.

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
    return checked_rule_weights(pairs, name="--rule-weights")


def _run(args: argparse.Namespace) -> int:
    config = checked_config(args)
    if args.output is not None:
        from stebkit.train.model import check_output_dir

        check_output_dir(args.output, overwrite=args.overwrite)
    from stebkit.train.loop import train_style_encoder

    result = train_style_encoder(config, output_dir=args.output,
                                 **flag_values(args, TRAIN_OPTIONS))
    echo(f"trained {result.step} steps in {result.seconds:.0f} s "
         f"({result.n_passages} passages, {result.n_authors} authors); "
         f"model saved to {result.output_dir}")
    return 0


TRAIN = Subcommand("train", help="train the offline style encoder (contrastive: authorship "
                   "and content-controlled pairs)", add_arguments=_add_arguments, run=_run)
