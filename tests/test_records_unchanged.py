"""The smoke suite's records are those of 2934b97, the code before the redesign of the
task families, the plan and the readers: every metric, interval, count, per-item value,
status and warning, bit for bit.

``tests/data/smoke_records_2934b97.json`` was written from a run of commit 2934b97::

    git worktree add --detach /tmp/old 2934b97
    PYTHONPATH=/tmp/old python -m stebkit.cli run --suite smoke --smoke \\
        --models random function-words tfidf-char all-MiniLM-L6-v2 \\
        --output /tmp/smoke-old --executor sequential --no-progress
    python tests/test_records_unchanged.py /tmp/smoke-old

A redesign that changes any number fails here, naming the record and the field. Numbers
are compared to a relative 1e-9, which a changed computation exceeds by far, so that a
machine whose vector instructions round the last bit of a sum otherwise still compares
the code, not the processor.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

FIXTURE = Path(__file__).parent / "data" / "smoke_records_2934b97.json"
MODELS = ("random", "function-words", "tfidf-char", "all-MiniLM-L6-v2")
"""One model of each kind: the chance level, a counting baseline, a baseline fitted on the
texts, a neural encoder."""

FIELDS = ("task", "episode_size", "episodes_per_label", "seed", "main_metric", "metrics",
          "ci", "n_items", "per_item", "counts", "chosen", "n_texts", "dropped", "status",
          "higher_is_better", "warnings")
"""The fields of a record that a behaviour-preserving change must keep."""


def record_summary(record: dict[str, Any]) -> dict[str, Any]:
    """The :data:`FIELDS` of a record."""
    return {key: record.get(key) for key in FIELDS}


def same(a: Any, b: Any) -> bool:
    """Equal, numbers to a relative 1e-9 (NaN equals NaN), everything else exactly.

    >>> same({"auc": 0.5, "ids": ["a"]}, {"auc": 0.5 + 1e-12, "ids": ["a"]})
    True
    >>> same([0.5], [0.5001]), same(["a"], ["b"]), same(1, True)
    (False, False, False)
    """
    if isinstance(a, float) or isinstance(b, float):
        if type(a) not in (int, float) or type(b) not in (int, float):
            return False
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9,
                                                                 abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def summarise(results_dir: Path) -> dict[str, dict[str, Any]]:
    """``model/dataset/file`` -> :func:`record_summary` for every record of a run."""
    out = {}
    for path in sorted(results_dir.glob("*/*/*.json")):
        model, dataset, name = path.parts[-3:]
        if model in MODELS:
            out[f"{model}/{dataset}/{name}"] = record_summary(
                json.loads(path.read_text(encoding="utf-8")))
    return out


@pytest.mark.slow
def test_the_smoke_suites_records_are_those_of_2934b97(tmp_path, mirror):
    from stebkit import evaluate
    from stebkit.datasets import list_datasets

    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    evaluate(list(MODELS), list_datasets(suite="smoke"), output_dir=tmp_path, smoke=True,
             show_progress=False)
    got = summarise(tmp_path)
    assert sorted(got) == sorted(expected), (
        f"records only now: {sorted(set(got) - set(expected))[:5]}; "
        f"records only in 2934b97: {sorted(set(expected) - set(got))[:5]}")
    changed = [f"{key}: {field} {str(expected[key][field])[:200]} -> "
               f"{str(got[key][field])[:200]}"
               for key in expected for field in expected[key]
               if not same(got[key][field], expected[key][field])]
    assert not changed, f"{len(changed)} fields changed, e.g.\n" + "\n".join(changed[:10])


if __name__ == "__main__":
    summary = summarise(Path(sys.argv[1]))
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}"
                                          for k, v in sorted(summary.items())) + "\n}\n",
                       encoding="utf-8")
    print(f"{len(summary)} records written to {FIXTURE}")
