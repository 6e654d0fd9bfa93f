"""The GPU check's helpers (scripts/gpu_bundle.py) and its command line: what the bundle
carries, the record-by-record comparison and the held-out summary."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess

import pytest
import repo_scripts

from stebkit.runs import evaluate

bundle = repo_scripts.load("scripts/gpu_bundle.py")


def _run(folder, models=("random",), datasets=("synthetic-authors-en",), **kw):
    return evaluate(list(models), list(datasets), smoke=True, output_dir=folder,
                    show_progress=False, **kw)


def test_the_check_without_a_bundle_says_how_to_call_it():
    done = subprocess.run(["bash", str(repo_scripts.ROOT / "scripts" / "gpu_check.sh")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "usage: " in done.stderr and "--prepare BUNDLE" in done.stderr


def test_the_wheels_are_stebkits_pure_python_dependencies_outside_the_gpu_stack():
    wanted = bundle._pure_dependencies()
    names = {w.split("==")[0] for w in wanted}
    assert "threadpoolctl" in names and "platformdirs" in names
    assert not names & {"torch", "transformers", "numpy", "pandas", "stebkit"}
    for item in wanted:
        name, version = item.split("==")
        assert importlib.metadata.version(name) == version
        assert "Root-Is-Purelib: true" in importlib.metadata.distribution(name).read_text(
            "WHEEL")


def test_compare_finds_identical_records_and_names_a_difference(tmp_path, capsys):
    first, second = tmp_path / "cpu", tmp_path / "cuda"
    _run(first, tasks=["retrieval", "clustering"])
    _run(second, tasks=["retrieval", "clustering"])
    bundle.compare(first, second)
    same = capsys.readouterr().out
    assert same.startswith("records cuda against cpu: ") and ", 0 on one side only" in same
    n_values = int(same.split(": ")[1].split(" metric values")[0])
    assert f"{n_values} identical, largest difference 0.00e+00" in same
    (path,) = second.glob("random/*/retrieval*.json")
    record = json.loads(path.read_text())
    record["metrics"]["mrr"] -= 0.125
    path.write_text(json.dumps(record))
    bundle.compare(first, second)
    assert "largest difference 1.25e-01" in capsys.readouterr().out
    path.unlink()
    with pytest.raises(SystemExit):
        bundle.compare(first, second)


def test_heldout_sums_up_each_models_stel_and_retrieval(tmp_path, capsys):
    results = _run(tmp_path, models=("random", "function-words"),
                   datasets=("stel-contraction", "stel-emotives", "sotu-retrieval"))
    frame = results.main_frame()
    bundle.heldout(tmp_path)
    line = capsys.readouterr().out.strip()
    for model in ("random", "function-words"):
        rows = frame[frame["model"] == model].set_index("dataset")
        stel = rows.loc[["stel-contraction", "stel-emotives"]]
        (metric,) = set(stel["metric"])
        assert (f"{model}: STEL sets mean {metric} {stel['value'].mean():.3f} (2 sets), "
                f"sotu-retrieval MRR {rows.loc['sotu-retrieval', 'value']:.3f}") in line
