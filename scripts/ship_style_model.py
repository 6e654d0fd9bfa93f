"""Ship a trained style model: its adapter into the package, with its held-out scores.

    python scripts/ship_style_model.py MODEL_DIR RESULTS_DIR

``MODEL_DIR`` is a folder ``stebkit train`` wrote (with ``adapter.safetensors``). The
adapter goes to ``stebkit/encoders/weights/`` with its sha256 and training summary
(``stebkit-style-minilm.json``) and its model card (``stebkit-style-minilm.md``). Then
the shipped model, as ``get_encoder("stebkit-style-minilm")`` loads it, and its base
all-MiniLM-L6-v2 are evaluated on the held-out sets (records in ``RESULTS_DIR``; records
already there are reused), and the scores with their 95 % bootstrap intervals, the
paired differences to the base and the goals are written into the summary and the card.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

import stebkit
from stebkit._io import write_text
from stebkit.encoders.style_model import (
    ADAPTER_FILE,
    MAX_ADAPTER_BYTES,
    SHIPPED_ADAPTER,
    SHIPPED_CARD,
    SHIPPED_MANIFEST,
    STYLE_MODEL_NAME,
)
from stebkit.records.items import item_details
from stebkit.tasks import paired_bootstrap, paired_bootstrap_mean
from stebkit.train.card import SUMMARY_FILE, model_card

BASE = "all-MiniLM-L6-v2"
STEL = ["stel-emotives", "stel-nbr-substitution", "stel-contraction", "stel-em-subj-pronoun"]
RETRIEVAL = ["sotu-retrieval", "eltec-eng-retrieval"]
DATASETS = [*STEL, "eltec-eng-verification", *RETRIEVAL, "eltec-eng-authorship",
            "federalist-authorship"]
TASKS = ["all_to_all_pairs", "predefined_pairs", "retrieval", "order_alignment"]


def install(model_dir: Path) -> dict:
    """Copy the adapter into the package; write its manifest and card (no scores yet)."""
    adapter = model_dir / ADAPTER_FILE
    size = adapter.stat().st_size
    if size > MAX_ADAPTER_BYTES:
        raise SystemExit(f"{adapter} is {size} bytes, over the {MAX_ADAPTER_BYTES} allowed")
    summary = json.loads((model_dir / SUMMARY_FILE).read_text(encoding="utf-8"))
    SHIPPED_ADAPTER.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(adapter, SHIPPED_ADAPTER)
    _write(summary)
    return summary


def _write(summary: dict) -> None:
    data = SHIPPED_ADAPTER.read_bytes()
    manifest = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                "summary": summary}
    write_text(SHIPPED_MANIFEST, json.dumps(manifest, indent=1, default=float) + "\n")
    write_text(SHIPPED_CARD, model_card(summary))


def evaluate(results_dir: Path):
    """The shipped model (no model trained here in the way) and its base, held-out sets."""
    os.environ["STEBKIT_STYLE_MODEL"] = tempfile.mkdtemp(prefix="no-style-model-")
    return stebkit.evaluate([STYLE_MODEL_NAME, BASE], DATASETS, tasks=TASKS,
                            output_dir=results_dir, episode_sizes=[1], show_progress=False)


def _records(results) -> dict:
    return {(r["model"]["name"], r["dataset"]["name"]): r for r in results
            if r.get("status") == "ok"}


def score_rows(results) -> list[dict]:
    """Per dataset: both models' main scores with intervals and their paired difference."""
    recs = _records(results)
    frame = results.main_frame()
    frame = frame[frame["status"] == "ok"].set_index(["model", "dataset"])
    rows = []
    for dataset in DATASETS:
        if (STYLE_MODEL_NAME, dataset) not in frame.index or (BASE, dataset) not in frame.index:
            continue
        mine, base = frame.loc[(STYLE_MODEL_NAME, dataset)], frame.loc[(BASE, dataset)]
        rows.append({"dataset": dataset, "metric": mine["metric"],
                     "style model": _interval(mine["value"], mine["ci_low"], mine["ci_high"]),
                     "base": _interval(base["value"], base["ci_low"], base["ci_high"]),
                     "difference": _difference(recs[STYLE_MODEL_NAME, dataset],
                                               recs[BASE, dataset])})
    return rows


def _difference(a: dict, b: dict) -> str:
    """The paired bootstrap difference of two records of the same items, or why none."""
    try:
        d = paired_bootstrap(item_details(a), item_details(b), task=a["task"])
    except ValueError:  # a task that keeps no per-item values (all-vs-all pairs)
        return "no per-item values"
    return _interval(d["diff"], d["low"], d["high"], sign=True)


def _interval(value: float, low: float, high: float, sign: bool = False) -> str:
    f = "{:+.3f}" if sign else "{:.3f}"
    return f"{f.format(value)} [{f.format(low)}, {f.format(high)}]"


def goal_rows(results) -> list[dict]:
    """The goals of the shipped model, measured, and whether each is met."""
    recs = _records(results)
    stel = [recs[STYLE_MODEL_NAME, s]["metrics"]["distractor_acc_mean"] for s in STEL]
    d = paired_bootstrap_mean([(item_details(recs[STYLE_MODEL_NAME, s]),
                                item_details(recs[BASE, s])) for s in STEL],
                              task="order_alignment")
    rows = [{"goal": "STEL-or-Content mean over the four STEL sets >= 0.5",
             "measured": f"{np.mean(stel):.3f} (base {np.mean(stel) - d['diff']:.3f}; "
                         f"difference {_interval(d['diff'], d['low'], d['high'], True)})",
             "met": "yes" if np.mean(stel) >= 0.5 else "no"},
            {"goal": "no STEL set at 0",
             "measured": ", ".join(f"{s} {v:.3f}" for s, v in zip(STEL, stel, strict=True)),
             "met": "yes" if min(stel) > 0 else "no"}]
    for dataset in RETRIEVAL:
        a, b = recs[STYLE_MODEL_NAME, dataset], recs[BASE, dataset]
        d = paired_bootstrap(item_details(a), item_details(b), task="retrieval")
        rows.append({"goal": f"MRR on {dataset} at or above the base",
                     "measured": f"{_interval(d['diff'], d['low'], d['high'], True)} "
                                 "(paired difference)",
                     "met": "yes" if d["diff"] >= 0 else "no"})
    rows.append({"goal": "lite STEB >= base + 10 points", "measured": "not measured here",
                 "met": "not measured"})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_dir", type=Path)
    parser.add_argument("results_dir", type=Path)
    args = parser.parse_args()
    summary = install(args.model_dir)
    results = evaluate(args.results_dir)
    summary["scores"], summary["goals"] = score_rows(results), goal_rows(results)
    _write(summary)
    for row in summary["scores"] + summary["goals"]:
        print(" | ".join(map(str, row.values())))


if __name__ == "__main__":
    main()
