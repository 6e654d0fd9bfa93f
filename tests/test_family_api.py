"""The family object is the one way in: ``fam.build`` -> ``ti.pool`` -> ``fam.evaluate`` ->
``fam.bootstrap`` / ``fam.item_ids`` give what the pure task functions, scikit-learn and
hand-made episodes give."""

from __future__ import annotations

import json
import zlib

import numpy as np
import pandas as pd
import pytest
from sklearn.cluster import MiniBatchKMeans
from sklearn.metrics import f1_score, roc_auc_score, v_measure_score

from stebkit.datasets.spec import TaskConfig
from stebkit.tasks import (
    FAMILIES,
    bootstrap_ci,
    classification,
    order_alignment,
    probing,
    retrieval_ndcg,
    stel,
)
from stebkit.tasks.inputs import FilterWarning, by_split


def vectors(texts, d=6):
    """A fixed vector per text (seeded by the text itself)."""
    return np.stack([np.random.default_rng(zlib.crc32(t.encode())).standard_normal(d)
                     for t in texts]).astype(np.float32)


def unit(x):
    x = np.asarray(x, dtype=np.float64)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def labelled():
    return pd.DataFrame({"text": [f"{lab} text {k}" for k in range(12) for lab in "abc"],
                         "label": [lab for _ in range(12) for lab in "abc"]})


def hand_episodes(records, size, per_label):
    """The reference's sampling by hand: labels in first-appearance order, the first
    size * per_label texts of each, cut into consecutive episodes; their mean vectors."""
    items, labels, ids = [], [], []
    for label in dict.fromkeys(records["label"]):
        texts = records.loc[records["label"] == label, "text"].tolist()[:size * per_label]
        for k in range(per_label):
            items.append(vectors(texts[k * size:(k + 1) * size]).astype(np.float64).mean(0))
            labels.append(label)
            ids.append(f"{label}#{k}")
    return np.asarray(items, dtype=np.float32), np.asarray(labels), ids


def test_clustering_equals_scikit_learn_on_hand_made_episodes_and_its_bootstrap():
    fam = FAMILIES["clustering"]
    ti = fam.build(labelled(), episode_size=2, episodes_per_label=4)
    x, y, ids = hand_episodes(labelled(), 2, 4)
    np.testing.assert_allclose(ti.pool(vectors(ti.texts)), x, rtol=1e-6)
    result = fam.evaluate(ti, ti.pool(vectors(ti.texts)), seed=3)
    pred = MiniBatchKMeans(n_clusters=3, random_state=3, batch_size=32,
                           n_init="auto").fit(ti.pool(vectors(ti.texts))).labels_
    assert result["v_measure"] == pytest.approx(v_measure_score(y, pred), abs=1e-12)
    assert fam.item_ids(ti, result) == ids and fam.skip_reason(ti) is None
    # the interval: V-measure of the fixed clustering on resampled episodes
    ci = fam.bootstrap(result, seed=5, n_resamples=200)
    rng = np.random.default_rng(5)
    draws = [v_measure_score(y[idx], pred[idx])
             for idx in (rng.integers(0, len(y), len(y)) for _ in range(200))]
    low, high = np.nanquantile(draws, [0.025, 0.975])
    assert ci == pytest.approx({"low": low, "high": high, "level": 0.95, "resamples": 200,
                                "unit": "episode"}, abs=1e-12)


def test_clustering_skips_singleton_labels_as_the_runner_did():
    fam = FAMILIES["clustering"]
    records = pd.DataFrame({"text": list("abcd"), "label": list("wxyz")})
    ti = fam.build(records, episode_size=1, episodes_per_label=1)
    assert fam.skip_reason(ti).startswith("clustering: 4 items in 4 labels")
    assert all(FAMILIES[n].skip_reason(ti) is None for n in FAMILIES if n != "clustering")


def test_all_to_all_pairs_equals_the_roc_auc_of_every_pair():
    fam = FAMILIES["all_to_all_pairs"]
    ti = fam.build(labelled(), episode_size=1, episodes_per_label=6)
    x, y, _ = hand_episodes(labelled(), 1, 6)
    result = fam.evaluate(ti, ti.pool(vectors(ti.texts)))
    i, j = np.triu_indices(len(y), k=1)
    cos = (unit(x)[i] * unit(x)[j]).sum(1)
    assert result["auc"] == pytest.approx(roc_auc_score(y[i] == y[j], cos), abs=1e-9)
    assert fam.item_ids(ti, result) == []  # the n(n-1)/2 pairs are not kept
    assert fam.bootstrap(result, n_resamples=50)["unit"] == "pair"


def test_predefined_pairs_equals_the_roc_auc_of_the_trials():
    fam = FAMILIES["predefined_pairs"]
    rows = [{"text": f"p{p} {side}", "label": f"u{p}", "pair": f"P{p}", "same": p % 3 == 0}
            for p in range(12) for side in "xy"]
    ti = fam.build(pd.DataFrame(rows), episode_size=1, episodes_per_label=2)
    result = fam.evaluate(ti, ti.pool(vectors(ti.texts)))
    cos = [(unit(vectors([f"p{p} x"]))[0] * unit(vectors([f"p{p} y"]))[0]).sum()
           for p in range(12)]
    assert result["auc"] == pytest.approx(roc_auc_score([p % 3 == 0 for p in range(12)], cos))
    assert fam.item_ids(ti, result) == [f"P{p}" for p in range(12)]


def test_retrieval_equals_the_hand_computed_reciprocal_rank_and_its_interval():
    fam = FAMILIES["retrieval"]
    rows = [{"text": f"{side[0]} {lab} {k}", "label": lab, "side": side}
            for lab in "abcdef" for k in range(2) for side in ("query", "target")]
    ti = fam.build(pd.DataFrame(rows), episode_size=-1, episodes_per_label=1)
    result = fam.evaluate(ti, ti.pool(vectors(ti.texts)))
    # one episode per label and side: the mean of its two texts
    q = np.stack([vectors([f"q {lab} 0", f"q {lab} 1"]).mean(0) for lab in "abcdef"])
    t = np.stack([vectors([f"t {lab} 0", f"t {lab} 1"]).mean(0) for lab in "abcdef"])
    sims = unit(q) @ unit(t).T
    rank = 1 + (sims > np.diag(sims)[:, None]).sum(1)
    assert result["mrr"] == pytest.approx(np.mean(1 / rank), abs=1e-12)
    assert fam.item_ids(ti, result) == [f"query:{lab}" for lab in "abcdef"]
    ci = fam.bootstrap(result, seed=1, n_resamples=300)
    plain = bootstrap_ci(1 / rank, n_resamples=300, seed=1)  # the mean of per-query values
    assert (ci["low"], ci["high"]) == pytest.approx((plain["low"], plain["high"]), abs=1e-12)


def test_order_alignment_probing_ndcg_and_stel_equal_their_pure_functions():
    groups = [{"text": f"g{g} p{p}", "label": "dimA" if g % 2 else "dimB", "group": f"G{g}",
               "position": p} for g in range(8) for p in range(3)]
    fam = FAMILIES["order_alignment"]
    ti = fam.build(pd.DataFrame(groups), episode_size=1, episodes_per_label=4)
    items = ti.pool(vectors(ti.texts))
    assert items.shape == (8, 3, 6)
    got = fam.evaluate(ti, items)
    want = order_alignment(items, ti.labels)
    assert got.metrics == want.metrics
    pairs = [f"{ti.ids[i]}|{ti.ids[j]}" for i, j in want.details["pair_index"]]
    assert fam.item_ids(ti, got) == pairs

    splits = ["train"] * 6 + ["validation"] * 2 + ["test"] * 2
    probe = pd.DataFrame({"text": [f"t{k}" for k in range(40)],
                          "label": ["hi" if k % 2 else "lo" for k in range(40)],
                          "split": [splits[k % 10] for k in range(40)]})
    fam = FAMILIES["probing"]
    ti = fam.build(probe, episode_size=1, episodes_per_label=1)
    emb = ti.pool(vectors(ti.texts))
    assert fam.evaluate(ti, emb, seed=4)["accuracy"] == probing(*by_split(ti, emb), seed=4)[
        "accuracy"]
    cls = FAMILIES["classification"]
    cti = cls.build(probe, episode_size=1, episodes_per_label=1)
    classified = cls.evaluate(cti, cti.pool(vectors(cti.texts)), seed=4)
    want = classification(*by_split(cti, cti.pool(vectors(cti.texts))), seed=4)
    assert classified.metrics == want.metrics
    test = cti.splits == "test"
    assert cls.item_ids(cti, classified) == [cti.ids[i] for i in np.flatnonzero(test)]
    n, stat = cls.statistic(classified.details)  # macro-F1 of the test texts, as sklearn's
    assert stat(np.arange(n)) == pytest.approx(f1_score(
        classified.details["test_true"], classified.details["test_pred"], average="macro"))

    ranked = pd.DataFrame(
        [{"text": f"query {q}", "side": "query", "group": f"Q{q}", "label": f"Q{q}",
          "relevance": json.dumps({f"D{q}": 2, f"D{(q + 1) % 5}": 1})} for q in range(4)]
        + [{"text": f"doc {d}", "side": "target", "group": f"D{d}", "label": f"D{d}",
            "relevance": None} for d in range(5)])
    fam = FAMILIES["retrieval_ndcg"]
    ti = fam.build(ranked, episode_size=1, episodes_per_label=1)
    emb = ti.pool(vectors(ti.texts))
    q = ti.sides == "query"
    assert fam.evaluate(ti, emb).metrics == retrieval_ndcg(emb[q], emb[~q],
                                                           ti.relevance).metrics

    quads = pd.DataFrame([{"text": f"s{g} {p}", "label": "formality", "group": f"S{g}",
                           "position": p} for g in range(5) for p in range(4)])
    fam = FAMILIES["stel"]
    ti = fam.build(quads, episode_size=1, episodes_per_label=1)
    items = ti.pool(vectors(ti.texts))
    assert fam.evaluate(ti, items).metrics == stel(
        items[:, 0], items[:, 1], items[:, 2], items[:, 3], np.ones(5, np.int64)).metrics


def test_the_family_statistic_reproduces_the_main_metric_on_all_items():
    # through the family object; every task's statistic: test_tasks_bootstrap.py
    cases = {"clustering": (labelled(), 2, 4), "all_to_all_pairs": (labelled(), 1, 5)}
    for name, (records, size, per_label) in cases.items():
        fam = FAMILIES[name]
        ti = fam.build(records, episode_size=size, episodes_per_label=per_label)
        result = fam.evaluate(ti, ti.pool(vectors(ti.texts)))
        n, stat = fam.statistic(result["details"])
        assert stat(np.arange(n)) == pytest.approx(result[fam.main_metric], abs=1e-12), name


def test_auto_episodes_and_the_preset_are_resolved_by_the_family():
    fam = FAMILIES["clustering"]
    records = pd.DataFrame({"text": [f"t{i}" for i in range(130)],
                            "label": ["a"] * 90 + ["b"] * 40})
    ti = fam.build(records, episode_size=1, episodes_per_label="auto")
    assert ti.episodes_per_label == 40  # the smallest label's 40 texts, within 25..200
    assert fam.config(TaskConfig(None, None)) == TaskConfig((1, 2, 5), 50)
    assert fam.config(TaskConfig(None, 100)).episode_sizes == (1, 2, 5)
    assert fam.config(TaskConfig((2,), None)).episodes_per_label == 50
    assert fam.config() == TaskConfig(*fam.preset())


def test_bad_calls_name_the_problem():
    fam = FAMILIES["clustering"]
    ti = fam.build(labelled(), episode_size=1, episodes_per_label=2)
    emb = ti.pool(vectors(ti.texts))
    with pytest.raises(ValueError, match="got the input of task 'clustering'"):
        FAMILIES["retrieval"].evaluate(ti, emb)
    with pytest.raises(ValueError, match=r"scores with \['cosine'\], not 'l1'"):
        FAMILIES["retrieval"].evaluate(
            FAMILIES["retrieval"].build(labelled().assign(side=["query", "target"] * 18),
                                        episode_size=-1, episodes_per_label=1), emb[:6],
            scoring="l1")
    with pytest.raises(ValueError, match="scoring must be one of"):
        fam.evaluate(ti, emb, scoring="dot")
    with pytest.raises(TypeError, match="records must be a pandas DataFrame"):
        fam.build([{"text": "a"}], episode_size=1, episodes_per_label=1)
    with pytest.raises(ValueError, match="sampling must be one of"):
        fam.build(labelled(), episode_size=1, episodes_per_label=1, sampling="random")
    with pytest.raises(ValueError, match=r"text_embeddings must have shape \(6, d\)"):
        ti.pool(emb[:2])
    with pytest.warns(FilterWarning, match="dropped 3 labels"):
        empty = fam.build(labelled(), episode_size=1, episodes_per_label=50)
    assert empty.n_items == 0
    with pytest.raises(ValueError, match="clustering: no items left after filtering"):
        fam.evaluate(empty, np.zeros((0, 6), np.float32))
