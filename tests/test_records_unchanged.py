"""The smoke suite's records are the stored ones: every metric, interval, count, per-item
value, status and warning, equal to float32 rounding on any processor.

``tests/data/smoke_records.json`` was written from a run of the code that introduced the
similarity rule (:mod:`stebkit.tasks.similarity`: similarities rounded to float32 before
ranking)::

    python -m stebkit run --suite smoke --smoke \\
        --models random function-words tfidf-char all-MiniLM-L6-v2 \\
        --output /tmp/smoke --executor sequential --no-progress
    python tests/test_records_unchanged.py /tmp/smoke

Against the records of 2934b97 (the code before the redesign of the task families, the
plan and the readers, which this file held until then), that rule moved 35 fields of 21
pair and order-alignment records of the function-word and TF-IDF baselines, whose
similarities hold exact ties and near-ties: the AUC, EER and partial AUCs where similarities
that float64 told apart round to one float32 (as the reference's float32 cosine gives
them), and the bootstrap intervals with them. It also moved the stored similarities of the
predefined pairs (per-item values) and 5 intervals by less than float32's spacing; no other
field moved by more than 1e-9.

It was written again when the TF-IDF vocabulary got one tie rule (n-grams of equal
frequency at the 2000-n-gram cut taken in string order, :data:`stebkit.encoders.baselines.TIES`,
instead of the order of the processor's sort): 118 fields of 58 ``tfidf-char`` records
moved; no other field moved by more than float32 rounding (6 MiniLM records were written
with this processor's last bits).

A change of the code that moves a number fails here, naming the record and the field
(:func:`test_a_changed_metric_fails_the_comparison` shows it). Another processor does not:
numbers are compared to :data:`FLOAT32_TOLERANCE`, and
:func:`test_on_another_processor_the_smoke_suites_records_are_the_stored_ones` runs the
suite with every embedding one unit in the last place away and one thread.
"""

from __future__ import annotations

import json
import math
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

FIXTURE = Path(__file__).parent / "data" / "smoke_records.json"
MODELS = ("random", "function-words", "tfidf-char", "all-MiniLM-L6-v2")
"""One model of each kind: the chance level, a counting baseline, a baseline fitted on the
texts, a neural encoder."""

FIELDS = ("task", "episode_size", "episodes_per_label", "seed", "main_metric", "metrics",
          "ci", "n_items", "per_item", "counts", "chosen", "n_texts", "dropped", "status",
          "higher_is_better", "warnings")
"""The fields of a record that a behaviour-preserving change must keep."""

FLOAT32_TOLERANCE = 1e-5
"""How far a number may move between processors: a few thousand float32 spacings (2^-24)
at the scale of a similarity or a metric in [0, 1]. A neural encoder's float32 output
differs in its last bits between instruction sets and thread counts, and that difference
grows through its layers and through the means of a metric, but stays far below this; a
changed computation moves a number by far more."""


def record_summary(record: dict[str, Any]) -> dict[str, Any]:
    """The :data:`FIELDS` of a record."""
    return {key: record.get(key) for key in FIELDS}


def same(a: Any, b: Any) -> bool:
    """Equal: numbers to :data:`FLOAT32_TOLERANCE` (NaN equals NaN), everything else
    exactly (types, keys, counts, strings, statuses).

    >>> same({"auc": 0.5, "ids": ["a"]}, {"auc": 0.5 + 1e-7, "ids": ["a"]})
    True
    >>> same([0.5], [0.5001]), same(["a"], ["b"]), same(1, True), same(2, 3)
    (False, False, False, False)
    """
    if isinstance(a, float) or isinstance(b, float):
        if type(a) not in (int, float) or type(b) not in (int, float):
            return False
        return (math.isnan(a) and math.isnan(b)) or math.isclose(
            a, b, rel_tol=FLOAT32_TOLERANCE, abs_tol=FLOAT32_TOLERANCE)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def changed_fields(got: dict[str, dict[str, Any]], expected: dict[str, dict[str, Any]]
                   ) -> list[str]:
    """``record: field old -> new`` for every field of ``expected`` that ``got`` changed."""
    return [f"{key}: {field} {str(expected[key][field])[:200]} -> "
            f"{str(got[key][field])[:200]}"
            for key in expected for field in expected[key]
            if not same(got[key][field], expected[key][field])]


def summarise(results_dir: Path) -> dict[str, dict[str, Any]]:
    """``model/dataset/file`` -> :func:`record_summary` for every record of a run."""
    out = {}
    for path in sorted(results_dir.glob("*/*/*.json")):
        model, dataset, name = path.parts[-3:]
        if model in MODELS:
            out[f"{model}/{dataset}/{name}"] = record_summary(
                json.loads(path.read_text(encoding="utf-8")))
    return out


def run_smoke(output_dir: Path, models: tuple[str, ...] = MODELS,
              datasets: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """The smoke suite (or ``datasets`` of it) run into ``output_dir``, summarised."""
    from stebkit import evaluate
    from stebkit.datasets import list_datasets

    evaluate(list(models), datasets or list_datasets(suite="smoke"), output_dir=output_dir,
             smoke=True, show_progress=False)
    return summarise(output_dir)


def nudged(x: np.ndarray) -> np.ndarray:
    """``x`` with each non-zero entry moved by -1, 0 or +1 unit in the last place.

    The steps of a row are drawn from a hash of the row itself, so equal vectors stay
    equal, as a deterministic encoder's are on any machine; zeros stay zero (a count is
    exact everywhere).

    >>> x = np.array([[1.0, 0.0, -2.0], [1.0, 0.0, -2.0]], dtype=np.float32)
    >>> y = nudged(x)
    >>> bool((y[0] == y[1]).all()), float(y[0, 1]), float(np.abs(y - x).max()) <= 2.4e-7
    (True, 0.0, True)
    """
    out = np.array(x, copy=True)
    for i, row in enumerate(out):
        step = np.random.default_rng(zlib.crc32(row.tobytes())).integers(-1, 2, row.shape)
        towards = np.where(step > 0, np.inf, -np.inf).astype(row.dtype)
        out[i] = np.where((step != 0) & (row != 0), np.nextafter(row, towards), row)
    return out


EXACT_ENCODERS = ("FunctionWordEncoder", "TfidfEncoder", "RandomEncoder")
"""Baselines whose vectors are the same on every processor: word counts divided by a
total, TF-IDF rows scaled in float64 and then rounded to float32, numbers drawn from a
seeded generator. A neural encoder's vectors come out of float32 matrix products and
differ in their last bits between processors."""


def _wrapped(encoder: Any) -> Any:
    """The encoder inside the cache's wrappers."""
    while hasattr(encoder, "encoder"):
        encoder = encoder.encoder
    return encoder


@pytest.fixture()
def another_processor(monkeypatch):
    """Embeddings and sums as another processor gives them: every vector a neural encoder
    returns nudged by one unit in the last place (:func:`nudged`; the baselines of
    :data:`EXACT_ENCODERS` give the same vectors everywhere), and BLAS and torch on one
    thread instead of all the cores (another summation order in every task)."""
    import torch
    from threadpoolctl import threadpool_limits

    from stebkit.encoders.cache import CachedEncoder

    encode = CachedEncoder.encode
    nudged_by = set()

    def encode_elsewhere(self: CachedEncoder, *args: Any, **kwargs: Any) -> np.ndarray:
        vectors = encode(self, *args, **kwargs)
        if type(_wrapped(self)).__name__ in EXACT_ENCODERS:
            return vectors
        nudged_by.add(self.name)
        return nudged(vectors)

    monkeypatch.setattr(CachedEncoder, "encode", encode_elsewhere)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with threadpool_limits(limits=1):
        yield nudged_by
    torch.set_num_threads(threads)


def expect_stored(got: dict[str, dict[str, Any]], keys: list[str] | None = None) -> None:
    """Assert that ``got`` holds the stored records (or those of ``keys``) unchanged."""
    stored = json.loads(FIXTURE.read_text(encoding="utf-8"))
    expected = {k: stored[k] for k in keys} if keys is not None else stored
    assert sorted(got) == sorted(expected), (
        f"records only now: {sorted(set(got) - set(expected))[:5]}; "
        f"records only stored: {sorted(set(expected) - set(got))[:5]}")
    changed = changed_fields(got, expected)
    assert not changed, f"{len(changed)} fields changed, e.g.\n" + "\n".join(changed[:10])


@pytest.mark.slow
def test_the_smoke_suites_records_are_the_stored_ones(tmp_path, mirror):
    expect_stored(run_smoke(tmp_path))


@pytest.mark.slow
def test_on_another_processor_the_smoke_suites_records_are_the_stored_ones(
        tmp_path, mirror, another_processor):
    """Embeddings one unit in the last place away and one thread: every record still
    compares equal, its tie-sensitive metrics (EER, partial AUCs, ranks, intervals)
    included."""
    got = run_smoke(tmp_path)
    expect_stored(got)
    assert another_processor == {"all-MiniLM-L6-v2"}  # the vectors were nudged
    stored = json.loads(FIXTURE.read_text(encoding="utf-8"))
    moved = [f"{key}: {name} {value!r} -> {got[key]['metrics'][name]!r}"
             for key, record in stored.items()
             for name, value in (record["metrics"] or {}).items()
             if name.startswith(TIE_SENSITIVE) and got[key]["metrics"][name] != value
             and value == value]  # NaN stays NaN: compared above
    assert not moved, "tie-sensitive metrics moved:\n" + "\n".join(moved[:10])


TIE_SENSITIVE = ("eer", "auc@", "mrr", "mean_rank", "recall@", "accuracy", "acc_mean",
                 "distractor")
"""The metrics that ties decide (ROC points, ranks, STEL's half credit): equal bit for bit
on another processor, not only to :data:`FLOAT32_TOLERANCE`."""


TIED = "tfidf-char/argugpt-generator/all_to_all_pairs__e1.json"
"""A record whose similarities hold exact ties (equal TF-IDF vectors): its EER and
partial AUCs moved between processors before similarities were rounded to float32."""


def test_a_changed_metric_fails_the_comparison(tmp_path, mirror, monkeypatch):
    """The comparison sees a change of the code: an EER moved by 1e-4 is named."""
    from stebkit.tasks import pairs

    eer = pairs._eer
    monkeypatch.setattr(pairs, "_eer", lambda fpr, tpr: eer(fpr, tpr) + 1e-4)
    got = run_smoke(tmp_path, ("tfidf-char",), ["argugpt-generator"])
    with pytest.raises(AssertionError, match="fields changed") as err:
        expect_stored(got, [k for k in got])
    assert f"{TIED}: metrics" in str(err.value)


def test_the_tied_record_is_the_stored_one(tmp_path, mirror):
    got = run_smoke(tmp_path, ("tfidf-char",), ["argugpt-generator"])
    assert TIED in got
    expect_stored(got, sorted(got))


if __name__ == "__main__":
    summary = summarise(Path(sys.argv[1]))
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}"
                                          for k, v in sorted(summary.items())) + "\n}\n",
                       encoding="utf-8")
    print(f"{len(summary)} records written to {FIXTURE}")
