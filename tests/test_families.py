"""Task families as objects: the registry drives episodes, runner, records, bootstrap and
leaderboard; a new family is one declaration and runs end to end."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_runner import MarkerEncoder, authors_dataset, spec

import stebkit
import stebkit.suites  # noqa: F401  (before any family is registered)
from stebkit.datasets.spec import Dataset, TaskConfig
from stebkit.records.items import item_details
from stebkit.records.results import Results
from stebkit.scores import leaderboard
from stebkit.tasks import FAMILIES, TaskFamily, bootstrap_ci, mean_of
from stebkit.tasks.clustering import build_labelled


def nearest_neighbour(embeddings: np.ndarray, labels: np.ndarray) -> dict:
    """Toy task: share of items whose most cosine-similar other item has their label."""
    x = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)
    sims = x @ x.T
    np.fill_diagonal(sims, -np.inf)
    correct = (labels[sims.argmax(axis=1)] == labels).astype(np.float64)
    return {"nn_accuracy": float(correct.mean()), "details": {"correct": correct}}


class NearestNeighbour(TaskFamily):
    """A toy family: episodes as clustering's, its own task function and statistic."""

    builder = staticmethod(build_labelled)

    def _run(self, ti, emb, *, seed, batch_size, scoring):
        return nearest_neighbour(emb, ti.labels)

    def statistic(self, details):
        return mean_of("correct")(details)


TOY = NearestNeighbour(
    name="nearest_neighbour", function=nearest_neighbour, metrics={"nn_accuracy": True},
    unit="episode", per_item=("correct", None), episode_sizes=(1, 2),
    episodes_per_label=3, steb=False)


@pytest.fixture
def toy_family():
    FAMILIES.register(TOY)
    yield TOY
    FAMILIES.unregister(TOY.name)


@pytest.fixture(autouse=True)
def fewer_resamples(monkeypatch):
    monkeypatch.setattr("stebkit.runs.context.N_RESAMPLES", 200)


def test_the_registry_is_the_one_source_of_task_names_presets_and_main_metrics():
    assert FAMILIES.steb() == ("clustering", "all_to_all_pairs", "predefined_pairs",
                               "retrieval", "order_alignment", "probing")
    assert list(FAMILIES)[6:] == ["classification", "retrieval_ndcg", "stel"]
    for name, family in FAMILIES.items():
        assert family.name == name
        assert family.config().episode_sizes == family.episode_sizes
        assert family.config(TaskConfig(None, None)).episodes_per_label \
            == family.episodes_per_label
        assert family.main_metric in family.metrics
    # the reference's benchmark preset (its steb/presets.py)
    assert FAMILIES["clustering"].preset() == ((1, 2, 5), 50)
    assert FAMILIES["order_alignment"].preset() == ((1,), 100)
    assert FAMILIES["predefined_pairs"].preset() == ((1,), 2)
    assert FAMILIES["retrieval"].preset() == ((-1,), 1)
    assert FAMILIES["probing"].preset("fast") is None
    assert FAMILIES["retrieval"].direction("mean_rank") == "lower"
    assert FAMILIES["predefined_pairs"].direction("eer") == "lower"


def test_bad_family_declarations_and_unknown_metrics_name_the_problem():
    with pytest.raises(ValueError, match="main_metric 'f1' is not among"):
        TaskFamily(name="x", function=len, metrics={"acc": True}, unit="item",
                   main_metric="f1")
    with pytest.raises(ValueError, match="episodes_per_label"):
        TaskFamily(name="x", function=len, metrics={"acc": True}, unit="item",
                   episodes_per_label=0)
    with pytest.raises(ValueError, match="'clustering' does not produce metric 'auc'"):
        FAMILIES["clustering"].direction("auc")
    with pytest.raises(ValueError, match="already registered"):
        FAMILIES.register(TaskFamily(name="clustering", function=len, metrics={"a": True},
                                     unit="i"))


def test_a_toy_family_declared_once_runs_through_evaluate_records_bootstrap_leaderboard(
        tmp_path, toy_family):
    base = authors_dataset()
    data = Dataset(spec("toy_nn", {"nearest_neighbour": TaskConfig((1, 2), 3)}),
                   base.frame, "fp-toy-nn")

    class Shifted(MarkerEncoder):
        name = "shifted"

        def encode(self, texts, *, batch_size=32, show_progress=False):
            out = super().encode(texts)
            return out[:, ::-1].copy() + np.arange(out.shape[1], dtype=np.float32)

    res = stebkit.evaluate([MarkerEncoder(), Shifted()], data, output_dir=tmp_path,
                          show_progress=False, cache_embeddings=False)
    assert res.ok and len(res) == 4
    records = {(r["model"]["name"], r["episode_size"]): r for r in res}
    for (model, size), rec in records.items():
        assert rec["task"] == "nearest_neighbour" and rec["main_metric"] == "nn_accuracy"
        assert rec["ci"]["unit"] == "episode"
        # independent oracle: the first 3*size texts of each label in record order,
        # pooled by consecutive runs of `size`, nearest other episode by cosine
        enc = MarkerEncoder() if model == "marker" else Shifted()
        pooled, labels = [], []
        for label, rows in base.frame.groupby("label", sort=False):
            texts = rows["text"].tolist()[: 3 * size]
            emb = enc.encode(texts).astype(np.float64)
            for k in range(3):
                pooled.append(emb[k * size:(k + 1) * size].mean(axis=0))
                labels.append(label)
        from sklearn.neighbors import NearestNeighbors

        x = np.asarray(pooled)
        nn = NearestNeighbors(n_neighbors=2, metric="cosine").fit(x)
        neighbour = nn.kneighbors(x, return_distance=False)[:, 1]
        expected = float(np.mean(np.asarray(labels)[neighbour] == np.asarray(labels)))
        assert rec["metrics"]["nn_accuracy"] == pytest.approx(expected)
        assert rec["per_item"]["ids"] == [f"{y}#{k}" for y in "abcd" for k in range(3)]
        ci = bootstrap_ci(item_details(rec), task="nearest_neighbour", n_resamples=200,
                          seed=42)
        assert ci["estimate"] == pytest.approx(expected)
        assert (rec["ci"]["low"], rec["ci"]["high"]) == pytest.approx((ci["low"], ci["high"]))
    board = leaderboard(Results.load(tmp_path), grouping="fixed", with_ci=False)
    assert "nearest_neighbour" in board.columns
    by_model = board.set_index("model")["nearest_neighbour"]
    for model in ("marker", "shifted"):  # the reference rule: first episode size (1)
        assert by_model[model] == pytest.approx(
            records[(model, 1)]["metrics"]["nn_accuracy"])


def test_stel_is_a_complete_family_from_records_to_record():
    from stebkit.tasks import stel
    from stebkit.tasks.inputs import FilterWarning

    rows = []
    for item in range(4):
        for pos, text in enumerate(["formal a", "casual a", "formal b", "casual b"]):
            rows.append({"text": f"{text} {item}", "label": "formality",
                         "group": f"i{item}", "position": pos})
    rows.append({"text": "lonely", "label": "formality", "group": "bad", "position": 0})
    with pytest.warns(FilterWarning, match="1 malformed items"):
        ti = FAMILIES["stel"].build(pd.DataFrame(rows), episode_size=1, episodes_per_label=1)
    assert ti.n_items == 4 and ti.dropped == {"malformed_items": 1}
    emb = np.array([[1.0, 0.01 * i] if t.startswith("formal") else [0.01 * i, 1.0]
                    for i, t in enumerate(ti.texts)], dtype=np.float32)
    items = ti.pool(emb)
    result = FAMILIES["stel"].evaluate(ti, items)
    direct = stel(items[:, 0], items[:, 1], items[:, 2], items[:, 3], [1] * 4)
    assert result["accuracy"] == direct["accuracy"] == 1.0
    n, stat = FAMILIES["stel"].statistic(result["details"])
    assert n == 4 and stat(np.arange(n)) == 1.0


def test_a_suite_file_may_declare_a_family_registered_after_import(toy_family, tmp_path,
                                                                   monkeypatch):
    from stebkit.datasets import load_dataset, registry
    from stebkit.suites import (
        load_suite,  # imported at the top of this file, before the toy
        loading,
    )

    # the toy dataset leaves the registries with the toy family (the catalogue stays valid)
    registry.list_datasets()  # the built-in suites loaded into the registry kept
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(loading, "_REGISTERED_FROM", dict(loading._REGISTERED_FROM))
    (tmp_path / "d.csv").write_text("text,label\n" + "".join(
        f"text {i},{'ab'[i % 2]}\n" for i in range(12)))
    (tmp_path / "suite.yaml").write_text(
        "name: toy-suite\ndatasets:\n"
        "  - {name: toy-nn, task: nearest_neighbour, source: {path: d.csv}}\n")
    suite = load_suite(tmp_path / "suite.yaml")
    assert list(suite.specs[0].tasks) == ["nearest_neighbour"]
    assert len(load_dataset("toy-nn", cache=False).frame) == 12
