"""Quality checks on constructed results whose answer is known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stebkit.records.results import Results
from stebkit.scores import quality


def _main(rows: list[tuple[str, str, float]], task: str = "retrieval") -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["model", "dataset", "value"]).assign(task=task)


FAMILIES = {"A": ["a-small", "a-base", "a-large"], "B": ["b-small", "b-large"],
            "C": ["c-small", "c-large"]}


def test_planted_scale_inversion_is_flagged():
    rows = []
    for ds in ("clean1", "clean2", "planted", "one_family"):
        for fam, members in FAMILIES.items():
            for i, m in enumerate(members):
                v = 0.3 + 0.1 * i  # larger is better
                if ds == "planted" and fam in ("A", "B"):
                    v = 0.9 - 0.1 * i  # smaller beats larger in two families
                if ds == "one_family" and fam == "C":
                    v = 0.9 - 0.1 * i
                rows.append((m, ds, v))
    out = quality.scale_inversions(_main(rows), FAMILIES).set_index("dataset")
    assert out.loc["planted", "flagged"] and out.loc["planted", "n_inverted"] == 2
    assert out.loc["planted", "inverted_families"] == "A, B"
    assert not out.loc["one_family", "flagged"] and out.loc["one_family", "n_inverted"] == 1
    assert out.loc["clean1", "n_inverted"] == 0
    assert (out["n_families"] == 3).all()
    # a middle model above the largest also counts
    rows2 = [("a-small", "d", 0.1), ("a-base", "d", 0.9), ("a-large", "d", 0.5),
             ("b-small", "d", 0.1), ("b-large", "d", 0.2)]
    out2 = quality.scale_inversions(_main(rows2), {"A": FAMILIES["A"], "B": FAMILIES["B"]},
                                    min_families=1)
    assert out2.loc[0, "inverted_families"] == "A" and out2.loc[0, "flagged"]
    with pytest.raises(ValueError, match="no results"):
        quality.scale_inversions(_main(rows), {"X": ["nobody", "a-small"]})


def test_planted_unstable_dataset_is_flagged():
    models = ["big1", "big2", "small"]
    rows = []
    for split in ("validation", "test"):
        for m in models:
            rows.append((m, "stable", 0.50 if split == "test" else 0.52, split))
            rows.append((m, "unstable", 0.50 if split == "test" else 0.75, split))
            # only the small model is unstable here: judged by the big models, not flagged
            noisy = 0.9 if (m == "small" and split == "validation") else 0.3
            rows.append((m, "small_noise", noisy, split))
    df = pd.DataFrame(rows, columns=["model", "dataset", "value", "split"]).assign(
        task="clustering")
    out = quality.split_stability(df, models=["big1", "big2"]).set_index("dataset")
    assert out.loc["unstable", "flagged"]
    assert out.loc["unstable", "rel_diff"] == pytest.approx(0.25 / 0.75)
    assert not out.loc["stable", "flagged"]
    assert out.loc["stable", "rel_diff"] == pytest.approx(0.02 / 0.52)
    assert not out.loc["small_noise", "flagged"]
    assert quality.split_stability(df).set_index("dataset").loc["small_noise", "flagged"]
    val, test = df[df.split == "validation"], df[df.split == "test"]
    two = quality.split_stability(val, test, models=["big1", "big2"]).set_index("dataset")
    pd.testing.assert_frame_equal(two.sort_index(), out.sort_index())


def _record(model: str, values: list[float], dataset: str = "d") -> dict:
    return {"schema": 1, "model": {"name": model, "category": "style"},
            "dataset": {"name": dataset, "category": "idiolect", "languages": ["en"]},
            "task": "retrieval", "episode_size": -1, "main_metric": "mrr",
            "metrics": {"mrr": float(np.mean(values))}, "status": "ok",
            "per_item": {"ids": [f"q{i}" for i in range(len(values))], "values": values}}


def test_rank_resolution_per_item_recomputes_clustering_metric():
    from sklearn.metrics import v_measure_score

    rng = np.random.default_rng(2)
    labels = np.repeat(["a", "b", "c", "d"], 15)
    good = np.repeat([0, 1, 2, 3], 15)
    noisy = np.where(rng.random(60) < 0.7, rng.integers(0, 4, 60), good)

    def rec(model, pred):
        return {"model": {"name": model}, "dataset": {"name": "d"}, "task": "clustering",
                "episode_size": 1, "main_metric": "v_measure", "status": "ok",
                "metrics": {"v_measure": v_measure_score(labels, pred)},
                "per_item": {"ids": [f"e{i}" for i in range(60)], "values": pred.tolist(),
                             "labels": labels.tolist()}}

    out = quality.rank_resolution(Results([rec("noisy", noisy), rec("good", good)]),
                                  task="clustering", dataset="d", n_resamples=200)
    assert out["model"].tolist() == ["good", "noisy"]
    assert out.loc[0, "diff_to_next"] == pytest.approx(
        1.0 - v_measure_score(labels, noisy))
    assert out.loc[0, "separable"]


def test_rank_resolution_per_item():
    rng = np.random.default_rng(3)
    base = rng.uniform(0.2, 0.6, 200).tolist()
    strong = [min(1.0, v + 0.3) for v in base]
    res = Results([_record("strong", strong), _record("twin_a", base),
                   _record("twin_b", list(base))])
    out = quality.rank_resolution(res, task="retrieval", dataset="d", n_resamples=300)
    assert out["model"].tolist()[0] == "strong"
    assert bool(out.loc[0, "separable"]) and out.loc[0, "p_value"] < 0.05
    assert out.loc[1, "separable"] is False or not out.loc[1, "separable"]
    assert out.loc[1, "p_value"] == 1.0 and out.loc[1, "diff_to_next"] == 0.0
    assert out["tier"].tolist() == [1, 2, 2]
    # item ids align even when a model stores its items in another order
    rev = _record("twin_c", base[::-1])
    rev["per_item"]["ids"] = rev["per_item"]["ids"][::-1]
    out2 = quality.rank_resolution(Results([_record("twin_a", base), rev]), task="retrieval",
                                   dataset="d", n_resamples=100)
    assert out2.loc[0, "diff_to_next"] == 0.0 and out2["tier"].tolist() == [1, 1]


def test_rank_resolution_over_datasets():
    rows = []
    rng = np.random.default_rng(5)
    for d in range(8):
        noise = rng.normal(0, 0.02)
        for m, v in (("top", 0.8), ("tie1", 0.5), ("tie2", 0.5), ("low", 0.1)):
            rows.append((m, f"set{d}", v + noise + (0.001 if m == "tie1" and d % 2 else 0)
                         - (0.001 if m == "tie1" and not d % 2 else 0)))
    out = quality.rank_resolution(_main(rows), grouping="fixed", min_tasks=1, n_resamples=400)
    assert out["model"].tolist()[0] == "top" and out["model"].tolist()[-1] == "low"
    assert out["separable"].tolist()[0] and out["separable"].tolist()[2]
    assert not out["separable"].tolist()[1]
    assert out["tier"].tolist() == [1, 2, 2, 3]
    # the operational score equals the plain mean here (one group per dataset)
    assert out.loc[0, "score"] == pytest.approx(np.mean([r[2] for r in rows if r[0] == "top"]))
    # one dataset: no variability to resample, so nothing is called separable
    one = quality.rank_resolution(_main([r for r in rows if r[1] == "set0"]),
                                  grouping="fixed", min_tasks=1, n_resamples=50)
    assert one["p_value"].isna().sum() == 4 and one["tier"].tolist() == [1, 1, 1, 1]


def test_dimension_curve_reuses_one_encoding():
    rng = np.random.default_rng(0)
    labels = np.repeat(np.arange(4), 10)
    centres = rng.normal(size=(4, 64))
    emb = (centres[labels] * np.r_[np.full(8, 0.05), np.ones(56)]
           + rng.normal(0, 0.3, (40, 64))).astype(np.float32)

    def purity(x: np.ndarray) -> float:
        sims = x @ x.T
        np.fill_diagonal(sims, -np.inf)
        return float(np.mean(labels[sims.argmax(axis=1)] == labels))

    curve = quality.dimension_curve_from_embeddings(emb, purity, dims=(4, 8, 32, None, 128))
    assert curve["dim"].tolist() == [4, 8, 32, 64]  # 128 > width is skipped
    assert curve["score"].iloc[-1] > curve["score"].iloc[0]  # first 8 dims carry no signal
    assert curve["score"].iloc[-1] == pytest.approx(purity(
        emb / np.linalg.norm(emb, axis=1, keepdims=True)))


class _HashEncoder:
    """Character 3-gram hashing features: a cheap, deterministic real-text encoder."""

    name = "hash3"

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts, *, batch_size=32, show_progress=False):
        from sklearn.feature_extraction.text import HashingVectorizer

        self.calls += 1
        vec = HashingVectorizer(analyzer="char", ngram_range=(3, 3), n_features=96,
                                alternate_sign=False, norm="l2")
        return vec.transform(list(texts)).toarray().astype(np.float32) + 1e-3


def test_dimension_curve_on_real_dataset(mirror):
    import stebkit
    from stebkit.tasks import FAMILIES

    ds = stebkit.load_dataset("brown-genre", smoke=True)
    enc = _HashEncoder()
    curve = quality.dimension_curve(enc, ds, task="clustering", dims=(8, 32, None))
    assert enc.calls == 1  # encoded once for every width
    assert curve["dim"].tolist() == [8, 32, 96]
    assert set(curve["metric"]) == {"v_measure"} and set(curve["model"]) == {"hash3"}
    cfg = FAMILIES["clustering"].config(ds.spec.tasks["clustering"])
    ti = FAMILIES["clustering"].build(ds.frame, episode_size=cfg.episode_sizes[0],
                        episodes_per_label=cfg.episodes_per_label, seed=42)
    emb = _HashEncoder().encode(ti.texts)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    full = FAMILIES["clustering"].evaluate(ti, ti.pool(emb), seed=42)["v_measure"]
    assert curve["score"].iloc[-1] == pytest.approx(full)
    with pytest.raises(ValueError, match="does not serve"):
        quality.dimension_curve(enc, ds, task="order_alignment")
