"""Episode building against hand-built records: sampling, drops, pooling, task wiring."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stebkit.tasks import FAMILIES
from stebkit.tasks.inputs import FilterWarning


def labelled_records() -> pd.DataFrame:
    texts = [f"a{i}" for i in range(7)] + [f"b{i}" for i in range(4)] + \
        [f"c{i}" for i in range(3)] + ["   "]
    labels = ["a"] * 7 + ["b"] * 4 + ["c"] * 3 + ["a"]
    return pd.DataFrame({"text": texts, "label": labels})


def first_n_after_shuffle(records: pd.DataFrame, label: str, n: int, seed: int) -> list[str]:
    """Oracle: valid rows, permuted with the seed, first n of the label in that order."""
    valid = records[records["text"].str.strip() != ""].reset_index(drop=True)
    order = np.random.default_rng(seed).permutation(len(valid))
    picked = [valid["text"][i] for i in order if valid["label"][i] == label]
    return picked[:n]


def test_every_task_is_wired():
    from stebkit.tasks import TaskFamily

    for family in FAMILIES.values():  # each family fills in every hook of the base class
        assert callable(family.builder), family.name
        for hook in ("_run", "statistic"):
            assert getattr(type(family), hook) is not getattr(TaskFamily, hook), \
                (family.name, hook)


def test_reference_sampling_takes_the_first_n_in_record_order_labels_in_file_order():
    """The reference loader: file order, first N valid texts per label, labels kept in
    the order they first appear, labels with fewer than N texts dropped."""
    records = labelled_records()  # a0..a6, b0..b3, c0..c2, one blank 'a' text
    with pytest.warns(FilterWarning, match="1 labels"):
        ti = FAMILIES["clustering"].build(records, episode_size=2, episodes_per_label=2)
    members = [[ti.texts[i] for i in ep] for ep in ti.episodes]
    assert members == [["a0", "a1"], ["a2", "a3"], ["b0", "b1"], ["b2", "b3"]]
    assert ti.ids == ("a#0", "a#1", "b#0", "b#1") and ti.sampling == "reference"
    flipped = records.iloc[::-1].reset_index(drop=True)  # 'c' first, then 'b', then 'a'
    with pytest.warns(FilterWarning):
        ti = FAMILIES["clustering"].build(flipped, episode_size=1, episodes_per_label=3)
    assert ti.labels.tolist() == ["c"] * 3 + ["b"] * 3 + ["a"] * 3
    assert [ti.texts[ep[0]] for ep in ti.episodes][:4] == ["c2", "c1", "c0", "b3"]
    with pytest.raises(ValueError, match="sampling must be one of"):
        FAMILIES["clustering"].build(records, episode_size=1, episodes_per_label=1,
                       sampling="random")


def test_labelled_episodes_sample_first_n_after_seeded_shuffle_and_report_drops():
    records = labelled_records()
    with pytest.warns(FilterWarning, match=r"1 blank texts, 1 labels, 3 texts of dropped"):
        ti = FAMILIES["clustering"].build(records, episode_size=2, episodes_per_label=2, seed=7,
                            sampling="shuffle")
    assert dict(ti.dropped) == {"blank_texts": 1, "labels": 1, "texts_of_dropped_labels": 3}
    assert ti.ids == ("a#0", "a#1", "b#0", "b#1")
    assert ti.labels.tolist() == ["a", "a", "b", "b"]
    assert ti.n_positions == 1 and ti.n_items == 4
    members = [[ti.texts[i] for i in ep] for ep in ti.episodes]
    assert all(len(m) == 2 for m in members)
    # consecutive slices of the first N texts of the shuffled order
    for k, label in enumerate(["a", "b"]):
        expected = first_n_after_shuffle(records, label, 4, seed=7)
        assert members[2 * k] + members[2 * k + 1] == expected
    assert len(ti.texts) == 8 and len(set(ti.texts)) == 8


def test_smaller_episodes_reuse_the_texts_of_larger_ones_and_seed_matters():
    records = labelled_records()
    with pytest.warns(FilterWarning):
        big = FAMILIES["all_to_all_pairs"].build(records, episode_size=2, episodes_per_label=2,
                             sampling="shuffle")
    with pytest.warns(FilterWarning, match="1 blank texts"):
        ti = FAMILIES["all_to_all_pairs"].build(records, episode_size=1, episodes_per_label=2,
                            sampling="shuffle")
    assert dict(ti.dropped) == {"blank_texts": 1}
    for label in ("a", "b", "c"):
        small = [ti.texts[ep[0]] for ep, y in zip(ti.episodes, ti.labels, strict=True)
                 if y == label]
        assert small == first_n_after_shuffle(records, label, 2, seed=42)
        if label != "c":
            pooled = [big.texts[i] for ep, y in zip(big.episodes, big.labels, strict=True)
                      if y == label for i in ep]
            assert pooled[:2] == small
    clean = records[records["text"].str.strip() != ""]
    seeds = {FAMILIES["clustering"].build(clean, episode_size=1, episodes_per_label=3,
                            seed=s, sampling="shuffle").texts for s in range(6)}
    assert len(seeds) > 1  # the sample depends on the seed ...
    again = FAMILIES["clustering"].build(clean, episode_size=1, episodes_per_label=3, seed=3,
                           sampling="shuffle")
    assert again.texts == FAMILIES["clustering"].build(clean, episode_size=1,
                                         episodes_per_label=3, seed=3,
                                         sampling="shuffle").texts  # ... only


def test_pool_episodes_is_the_mean_of_member_embeddings():
    records = labelled_records()
    with pytest.warns(FilterWarning):
        ti = FAMILIES["clustering"].build(records, episode_size=2, episodes_per_label=2)
    rng = np.random.default_rng(0)
    emb = rng.normal(size=(len(ti.texts), 5)).astype(np.float32)
    pooled = ti.pool(emb)
    expected = np.stack([emb[list(ep)].mean(axis=0) for ep in ti.episodes])
    assert pooled.dtype == np.float32 and pooled.shape == (4, 5)
    np.testing.assert_allclose(pooled, expected, rtol=1e-6)
    with pytest.raises(ValueError, match="one row per task_input.texts"):
        ti.pool(emb[:-1])


def test_retrieval_pools_all_texts_of_a_label_side_and_needs_both_sides():
    records = pd.DataFrame({
        "text": ["xq1", "xq2", "xt1", "xt2", "xt3", "yq1", "zt1"],
        "label": ["x", "x", "x", "x", "x", "y", "z"],
        "side": ["query", "query", "target", "target", "target", "query", "target"]})
    with pytest.warns(FilterWarning, match="1 queries without target, 1 targets without"):
        ti = FAMILIES["retrieval"].build(records, episode_size=-1, episodes_per_label=1)
    assert ti.ids == ("query:x", "target:x")
    assert ti.sides.tolist() == ["query", "target"]
    assert sorted(ti.texts[i] for i in ti.episodes[0]) == ["xq1", "xq2"]
    assert sorted(ti.texts[i] for i in ti.episodes[1]) == ["xt1", "xt2", "xt3"]
    emb = np.eye(len(ti.texts), dtype=np.float32)
    pooled = ti.pool(emb)
    np.testing.assert_allclose(pooled.sum(axis=1), [1.0, 1.0], rtol=1e-6)
    bad = records.assign(side=["query", "q", "target", "target", "target", "query", "target"])
    with pytest.raises(ValueError, match="'query' or 'target'"):
        FAMILIES["retrieval"].build(bad, episode_size=-1, episodes_per_label=1)


def test_predefined_pairs_keep_complete_consistent_pairs_in_record_order():
    records = pd.DataFrame({
        "text": ["p2a", "p1a", "p2b", "p1b", "p3a", "p4a", "p4b"],
        "label": ["u", "v", "w", "v", "u", "u", "u"],
        "pair": ["p2", "p1", "p2", "p1", "p3", "p4", "p4"],
        "same": [False, True, False, True, True, True, False]})
    with pytest.warns(FilterWarning, match="1 pairs without two texts, 1 pairs with conflicting"):
        ti = FAMILIES["predefined_pairs"].build(records, episode_size=1, episodes_per_label=2)
    assert ti.ids == ("p2:0", "p2:1", "p1:0", "p1:1")
    assert ti.same.tolist() == [False, True]
    assert [ti.texts[ep[0]] for ep in ti.episodes] == ["p2a", "p2b", "p1a", "p1b"]
    with pytest.raises(ValueError, match="episode_size must be 1"):
        FAMILIES["predefined_pairs"].build(records, episode_size=2, episodes_per_label=2)


def ordered_records() -> pd.DataFrame:
    rows = []
    for g in range(3):  # three complete formality sets of 3 positions
        for p in range(3):
            rows.append({"text": f"f{g}p{p}", "label": "formality", "group": f"f{g}",
                         "position": p})
    for p in range(3):  # one simplicity set: too few sets for 2 per label
        rows.append({"text": f"s0p{p}", "label": "simplicity", "group": "s0", "position": p})
    rows += [{"text": "m0", "label": "formality", "group": "bad", "position": 0},
             {"text": "m2", "label": "formality", "group": "bad", "position": 2}]
    return pd.DataFrame(rows)


def test_order_alignment_sets_are_ordered_by_position_and_pooled_per_position():
    records = ordered_records().sample(frac=1.0, random_state=1)  # file order irrelevant
    with pytest.warns(FilterWarning, match="1 malformed sets.*1 labels, 1 sets of dropped"):
        ti = FAMILIES["order_alignment"].build(records, episode_size=1, episodes_per_label=2)
    assert ti.n_positions == 3 and ti.n_items == 2 and set(ti.labels) == {"formality"}
    for item, set_id in enumerate(ti.ids):
        texts = [ti.texts[ep[0]] for ep in ti.episodes[3 * item: 3 * item + 3]]
        assert texts == [f"{set_id}p{p}" for p in range(3)]
    with pytest.warns(FilterWarning):
        two = FAMILIES["order_alignment"].build(records, episode_size=2, episodes_per_label=1)
    assert two.n_items == 1 and len(two.ids[0].split("+")) == 2
    emb = np.random.default_rng(1).normal(size=(len(two.texts), 4)).astype(np.float32)
    pooled = two.pool(emb)
    assert pooled.shape == (1, 3, 4)
    a, b = two.ids[0].split("+")
    for p in range(3):
        idx = [two.texts.index(f"{a}p{p}"), two.texts.index(f"{b}p{p}")]
        np.testing.assert_allclose(pooled[0, p], emb[idx].mean(axis=0), rtol=1e-6)


def test_probing_uses_every_text_and_checks_splits():
    records = pd.DataFrame({"text": [f"t{i}" for i in range(7)],
                            "label": list("xyxyxyx"),
                            "split": ["train"] * 4 + ["validation", "test", None]})
    with pytest.warns(FilterWarning, match="1 rows without split"):
        ti = FAMILIES["probing"].build(records, episode_size=1, episodes_per_label=1)
    assert ti.n_items == 6 and ti.splits.tolist() == ["train"] * 4 + ["validation", "test"]
    with pytest.raises(ValueError, match=r"split\(s\) \['test'\] are empty"):
        FAMILIES["probing"].build(records.iloc[:5], episode_size=1, episodes_per_label=1)
    with pytest.raises(ValueError, match="must be one of"):
        FAMILIES["probing"].build(records.assign(split="dev"), episode_size=1,
                       episodes_per_label=1)


@pytest.mark.parametrize("kwargs, match", [
    ({"task": "clustering", "episode_size": 0, "episodes_per_label": 1}, "episode_size"),
    ({"task": "clustering", "episode_size": 1, "episodes_per_label": 0}, "episodes_per_label"),
    ({"task": "retrieval", "episode_size": -1, "episodes_per_label": 1}, r"\['side'\]"),
])
def test_bad_arguments_name_the_problem(kwargs, match):
    records = pd.DataFrame({"text": ["a", "b"], "label": ["x", "y"]})
    task = kwargs.pop("task")
    with pytest.raises(ValueError, match=match):
        FAMILIES[task].build(records, **kwargs)


def test_an_unknown_family_names_the_known_ones():
    with pytest.raises(KeyError, match="unknown task family 'nope'; known families are"):
        FAMILIES["nope"]


def test_evaluate_calls_the_task_functions_with_aligned_item_ids():
    from stebkit.tasks import all_to_all_pairs, clustering, retrieval

    records = pd.DataFrame({"text": [f"{y}{i}" for y in "ab" for i in range(4)],
                            "label": [y for y in "ab" for _ in range(4)]})
    ti = FAMILIES["clustering"].build(records, episode_size=1, episodes_per_label=4)
    emb = np.array([[1.0, 0.1 * i] if t.startswith("a") else [0.1 * i, 1.0]
                    for i, t in enumerate(ti.texts)], dtype=np.float32)
    items = ti.pool(emb)
    result = FAMILIES["clustering"].evaluate(ti, items, seed=3)
    assert result["v_measure"] == clustering(items, ti.labels, seed=3)["v_measure"] == 1.0
    assert FAMILIES["clustering"].item_ids(ti, result) == list(ti.ids)
    pairs = FAMILIES["all_to_all_pairs"].build(records, episode_size=1, episodes_per_label=4)
    pair_items = pairs.pool(emb[[ti.texts.index(t) for t in pairs.texts]])
    r = FAMILIES["all_to_all_pairs"].evaluate(pairs, pair_items)
    assert r["auc"] == all_to_all_pairs(pair_items, pairs.labels)["auc"]
    side = ["query", "target"] * 4
    ret = FAMILIES["retrieval"].build(records.assign(side=side), episode_size=1,
                                      episodes_per_label=2)
    ret_emb = ret.pool(np.random.default_rng(0).normal(
        size=(len(ret.texts), 3)).astype(np.float32))
    r = FAMILIES["retrieval"].evaluate(ret, ret_emb)
    q = ret.sides == "query"
    assert r["mrr"] == retrieval(ret_emb[q], ret.labels[q], ret_emb[~q], ret.labels[~q])["mrr"]
    assert FAMILIES["retrieval"].item_ids(ret, r) == [
        i for i, s in zip(ret.ids, ret.sides, strict=True) if s == "query"]
    assert ret.shape_items(ret_emb).shape == ret_emb.shape


def test_distractor_rows_are_set_aside_and_counted_without_a_warning():
    records = ordered_records().iloc[:9]
    extra = pd.DataFrame([{"text": "other content", "label": "formality", "group": "f0",
                           "position": 0, "distractor": True}])
    records = pd.concat([records.assign(distractor=False), extra], ignore_index=True)
    ti = FAMILIES["order_alignment"].build(records, episode_size=1, episodes_per_label=3)
    assert dict(ti.dropped) == {"distractor_texts": 1}
    assert "other content" not in ti.texts and ti.n_items == 3
