"""Training speed of the style encoder: steps per second for a few configurations, per
device (the CPU, and cuda when present).

Each configuration is timed as the difference between a run of ``1 + k`` steps and a run
of 1 step (so model loading and hard-negative mining cancel out), on a 120-passage
slice of the training data. The baseline is the default :class:`TrainConfig`; ratios
> 1 mean faster than the default. The mining pass is timed on 200 passages and scaled to
the full training pool, and the wall time of a full default run is projected.

    python benchmarks/bench_train.py [--steps K] [--threads N] [--devices cpu,cuda]

On a busy machine one torch thread can be several times faster than two; compare
``--threads 1`` with ``--threads 2``.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time

from stebkit.train import TrainConfig, load_training_passages, train_style_encoder
from stebkit.train.content import load_content_units
from stebkit.train.model import base_model_path, encode_texts, load_base


def _seconds(config: TrainConfig, passages, units, steps: int, folder: str) -> float:
    cfg = dataclasses.replace(config, steps=steps, checkpoint_every=10_000)
    t0 = time.perf_counter()
    train_style_encoder(cfg, passages=passages, content_units=units,
                        output_dir=f"{folder}/m{steps}", resume=False, save=False,
                        show_progress=False)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2, help="timed steps per configuration")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--devices", default=None,
                        help="comma-separated devices (default: cpu, and cuda when present)")
    args = parser.parse_args()
    import torch

    devices = (args.devices.split(",") if args.devices
               else ["cpu"] + (["cuda"] if torch.cuda.is_available() else []))
    if args.threads:
        torch.set_num_threads(args.threads)
    full = load_training_passages()
    sample = full.sample(120, random_state=0).sort_index()
    units, _ = load_content_units()
    default = TrainConfig()
    variants = {
        f"default (batch {default.batch_size}, {default.max_seq_length} tokens, "
        f"{default.hard_negatives} hard negative, {default.content_pairs} content "
        "triplets)": default,
        "no content-controlled triplets": dataclasses.replace(default, content_pairs=0),
        "no hard negatives": dataclasses.replace(default, hard_negatives=0),
        "full fine-tuning (no LoRA)": dataclasses.replace(default, lora_rank=0),
        "batch 64, 64 triplets": dataclasses.replace(default, batch_size=64, content_pairs=64),
        "96 tokens": dataclasses.replace(default, max_seq_length=96),
    }
    print(f"torch threads: {torch.get_num_threads()}; {args.steps} timed steps each")
    per_step = {}
    with tempfile.TemporaryDirectory() as folder:
        for device in devices:
            first = None
            for name, cfg in variants.items():
                cfg = dataclasses.replace(cfg, device=device)
                one = _seconds(cfg, sample, units, 1, folder)
                more = _seconds(cfg, sample, units, 1 + args.steps, folder)
                seconds = max(more - one, 1e-9) / args.steps
                first = first or seconds
                if device == devices[0]:
                    per_step[name] = seconds
                print(f"{device:6s} {name:50s} {seconds:6.2f} s/step  {1 / seconds:7.3f} "
                      f"steps/s  x{first / seconds:4.2f} vs default")
    model, tok = load_base(base_model_path())
    texts = full["text"].tolist()
    encode_texts(model, tok, texts[:16], max_seq_length=default.max_seq_length)  # warm-up
    t0 = time.perf_counter()
    encode_texts(model, tok, texts[::max(1, len(texts) // 200)][:200],
                 max_seq_length=default.max_seq_length)
    mining = (time.perf_counter() - t0) * len(texts) / 200
    base = next(iter(per_step.values()))
    total = mining + default.steps * base
    print(f"hard-negative mining over {len(full)} passages (projected): {mining:.0f} s")
    print(f"projected default run ({default.steps} steps): {total / 60:.1f} min "
          f"(budget 30 min: x{1800 / total:.2f})")


if __name__ == "__main__":
    main()
