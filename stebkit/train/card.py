"""The model card (README.md) of a trained style encoder.

The card is generated from a JSON summary saved next to the weights
(``training_summary.json``): data, split, hyper-parameters, training time and — once
:func:`update_model_card` has been called with evaluation results — scores.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._io import read_json, write_text
from ..escape import markdown_cell
from .data import EXCLUDED_AUTHORS, TRAINING_SOURCES
from .model import MODEL_MARKER, STYLE_MODEL_NAME

SUMMARY_FILE = MODEL_MARKER


def training_summary(frame: Any, result: Any, base_model: str,
                     units: Any = None) -> dict[str, Any]:
    """A JSON-able record of what a finished training run used and did (``units``: the
    content-controlled units, if the run used any)."""
    import torch
    import transformers

    import stebkit

    per_source = []
    topics = frame["topic"].astype(str)
    for source in TRAINING_SOURCES:
        rows = frame[topics == source.topic]
        if len(rows):
            per_source.append({
                "name": source.name, "url": source.url, "sha256": source.sha256,
                "authors": sorted(rows["author"].unique().tolist()),
                "works": int(rows["work"].nunique()), "passages": int(len(rows))})
    losses = result.losses
    tail = max(1, len(losses) // 10)
    return {
        "name": STYLE_MODEL_NAME,
        "base_model": str(base_model),
        "config": result.config.to_dict(),
        "data": {"passages": int(len(frame)), "authors": int(frame["author"].nunique()),
                 "works": int(frame["work"].nunique()), "sources": per_source,
                 "excluded_authors": dict(sorted(EXCLUDED_AUTHORS.items())),
                 "content_units": ({} if units is None else
                                   {str(k): int(v) for k, v in
                                    units["source"].value_counts().sort_index().items()})},
        "training": {"steps": result.step, "seconds": round(result.seconds, 1),
                     "loss_first": round(float(sum(losses[:tail]) / tail), 4),
                     "loss_last": round(float(sum(losses[-tail:]) / tail), 4),
                     "torch_threads": torch.get_num_threads(),
                     "device": getattr(result, "device", "cpu"),
                     "losses": [round(float(x), 5) for x in losses]},
        "versions": {"stebkit": stebkit.__version__, "torch": torch.__version__,
                     "transformers": transformers.__version__},
        "scores": [],
    }


def _table(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        return ""
    cols = list(rows[0])
    lines = ["| " + " | ".join(map(markdown_cell, cols)) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        cells = [f"{v:.3f}" if isinstance(v, float) else markdown_cell(v) for v in r.values()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def model_card(summary: Mapping[str, Any]) -> str:
    """Markdown model card of a training summary.

    >>> card = model_card({"name": "m", "base_model": "b", "config": {"steps": 1},
    ...     "data": {"passages": 2, "authors": 2, "works": 2, "sources": [],
    ...              "excluded_authors": {}}, "training": {"steps": 1, "seconds": 1.0,
    ...     "loss_first": 1.0, "loss_last": 0.5, "torch_threads": 2},
    ...     "versions": {}, "scores": []})
    >>> card.splitlines()[0], "# m" in card
    ('---', True)
    """
    return (_card_head(summary) + _card_data(summary["data"]) + _card_training(summary)
            + _card_goals(summary.get("goals") or []))


def _card_head(summary: Mapping[str, Any]) -> str:
    """The card's metadata block, title and how to use the model."""
    return f"""---
library_name: transformers
pipeline_tag: feature-extraction
license: apache-2.0
tags: [style-embedding, authorship, stebkit, sentence-transformers]
---

# {summary["name"]}

A style (authorship) embedding trained offline by `stebkit.train` from
{summary["base_model"]} with contrastive authorship pairs and content-controlled
triplets{_lora_words(summary["config"])}. Embed a text as the
attention-mask **mean of the last hidden states** (no normalisation is stored; compare with
cosine similarity). Load it with `stebkit.get_encoder("{summary["name"]}")`,
`transformers.AutoModel` + mean pooling, or `sentence_transformers.SentenceTransformer`.

"""


def _card_data(data: Mapping[str, Any]) -> str:
    """The card's section on the training passages, their sources and the authors left out."""
    src_rows = [{"source": s["name"], "works": s["works"], "passages": s["passages"],
                 "authors": ", ".join(s["authors"])} for s in data["sources"]]
    excl = "\n".join(f"- `{w}`: {why}" for w, why in data["excluded_authors"].items())
    return f"""## Training data

{data["passages"]} passages of 60-120 words (cut on sentence boundaries) from
{data["works"]} works by {data["authors"]} authors, all public domain:

{_table(src_rows)}

Positives: two passages by the same author from different works (authors with one work:
different quarters of it). Negatives: the other pairs of the batch, plus mined hard
negatives (most similar passages by other authors, same occasion/genre first).

**Held-out by construction.** No training author or work occurs in an evaluation
dataset of stebkit's lite suite (ELTeC, Federalist papers, State of the Union
retrieval, Bible versions, Shakespeare, UD GUM speeches, ...). Authors left out:

{excl}

"""


def _card_training(summary: Mapping[str, Any]) -> str:
    """The card's sections on hyper-parameters, training, scores and limitations."""
    cfg_rows = "\n".join(f"- `{k}` = `{v}`" for k, v in summary["config"].items())
    train = summary["training"]
    scores = summary.get("scores") or []
    score_text = (_table(scores) if scores else
                  "Not evaluated yet: run the evaluation (e.g. notebook "
                  "`11_train_style_encoder.ipynb`) and call "
                  "`stebkit.train.update_model_card`.")
    return f"""## Hyper-parameters

{cfg_rows}

Dropout-1D (channel dropout over token states, i.e. whole hidden dimensions per text)
before mean pooling during training only.

## Training

{train["steps"]} steps in {train["seconds"]:.0f} s on {train.get("device", "cpu")}
({train["torch_threads"]} CPU thread(s)); loss (mean of the first and last 10 % of
steps) {train["loss_first"]:.3f} -> {train["loss_last"]:.3f}.

## Scores

{score_text}

## Limitations

Trained on 18th-21st century American inaugural addresses and a handful of 17th-19th
century English books: English only, formal registers, few authors. Treat it as a
teaching and baseline style model, not as a replacement for LUAR or StyleDistance.
"""


def _lora_words(config: Mapping[str, Any]) -> str:
    rank = config.get("lora_rank", 0)
    return (f" (a LoRA adapter of rank {rank} on every linear layer of the transformer "
            "blocks, merged into the weights)" if rank else "")


def _card_goals(goals: Sequence[Mapping[str, Any]]) -> str:
    """The card's section on the goals the model was trained for, met or missed."""
    if not goals:
        return ""
    return f"""
## Goals

{_table(goals)}
"""


def update_model_card(output_dir: str | os.PathLike[str],
                      scores: Sequence[Mapping[str, Any]]) -> Path:
    """Add evaluation scores to a saved model's summary and regenerate its README.md.

    ``scores`` is a list of flat records (e.g. ``DataFrame.to_dict("records")``) with
    the same keys, shown as a table.
    """
    out = Path(output_dir)
    summary_path = out / SUMMARY_FILE
    if not summary_path.is_file():
        raise ValueError(f"{out} has no {SUMMARY_FILE}: it was not written by "
                         "stebkit.train.train_style_encoder")
    summary = read_json(summary_path, fix="train the model again (stebkit train)")
    summary["scores"] = [dict(r) for r in scores]
    for path, text in ((summary_path, json.dumps(summary, indent=2, default=float)),
                       (out / "README.md", model_card(summary))):
        write_text(path, text)
    return out / "README.md"
