"""The smoke suite's records are those of 2934b97, the code before the redesign of the
task families, the plan and the readers: every metric, interval, count, per-item value,
status and warning, bit for bit.

``tests/data/smoke_records_2934b97.json`` was written from a run of commit 2934b97::

    git worktree add --detach /tmp/old 2934b97
    PYTHONPATH=/tmp/old python -m stebkit.cli run --suite smoke --smoke \\
        --models random function-words tfidf-char all-MiniLM-L6-v2 \\
        --output /tmp/smoke-old --executor sequential --no-progress
    python tests/test_records_unchanged.py /tmp/smoke-old

A redesign that changes any number fails here, naming the record and the field.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

FIXTURE = Path(__file__).parent / "data" / "smoke_records_2934b97.json"
MODELS = ("random", "function-words", "tfidf-char", "all-MiniLM-L6-v2")
"""One model of each kind: the chance level, a counting baseline, a baseline fitted on the
texts, a neural encoder."""

EXACT = ("task", "episode_size", "episodes_per_label", "seed", "main_metric", "metrics",
         "ci", "n_items", "counts", "chosen", "n_texts", "dropped", "status",
         "higher_is_better", "warnings")
"""Record fields compared value for value; ``per_item`` is compared by its digest."""


def record_summary(record: dict[str, Any]) -> dict[str, Any]:
    """The fields of a record that a behaviour-preserving change must keep, with the
    per-item values as a digest of their canonical JSON."""
    out = {key: record.get(key) for key in EXACT}
    per_item = json.dumps(record.get("per_item"), sort_keys=True).encode()
    out["per_item_sha256"] = hashlib.sha256(per_item).hexdigest()
    return out


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
    changed = [f"{key}: {field} {expected[key][field]!r} -> {got[key][field]!r}"
               for key in expected for field in expected[key]
               if got[key][field] != expected[key][field]]
    assert not changed, f"{len(changed)} fields changed, e.g.\n" + "\n".join(changed[:10])


if __name__ == "__main__":
    summary = summarise(Path(sys.argv[1]))
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps(summary, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(summary)} records written to {FIXTURE}")
