"""The glue around the task functions follows the STEB reference's rules.

Each test pins one rule of the reference (rrivera1849/STEB: its dataset loader, probing
task, clustering scripts and cluster file) on a small fixture whose expected value is
worked out by hand from that rule, not by calling the code under test twice.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from stebkit import scores
from stebkit.tasks import FAMILIES, auto_episodes, clustering, retrieval
from stebkit.tasks.inputs import FilterWarning
from stebkit.tasks.probing import probe_features


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ---------------------------------------------------------------- sampling (dataset loader)
def test_sampling_takes_the_first_n_texts_of_each_label_in_file_order():
    # file order: b0 a0 b1 a1 b2 c0 a2 b3; episode size 2, 1 episode per label -> N = 2.
    # The reference keeps labels in the order they first appear (b, a) and drops c (1 text).
    records = pd.DataFrame({"text": ["b0", "a0", "b1", "a1", "b2", "c0", "a2", "b3"],
                            "label": ["b", "a", "b", "a", "b", "c", "a", "b"]})
    with pytest.warns(FilterWarning, match="1 labels"):
        ti = FAMILIES["clustering"].build(records, episode_size=2, episodes_per_label=1)
    assert [[ti.texts[i] for i in ep] for ep in ti.episodes] == [["b0", "b1"], ["a0", "a1"]]
    assert ti.labels.tolist() == ["b", "a"]
    # the seeded shuffle stays available and picks other texts for some seed
    picks = {tuple(_quiet(FAMILIES["clustering"].build, records, episode_size=2,
                          episodes_per_label=1, seed=s, sampling="shuffle").texts)
             for s in range(8)}
    assert len(picks) > 1


# ---------------------------------------------------------------- episodes per label "auto"
def test_auto_episodes_per_label_clamps_the_smallest_class_by_episode_size():
    # smallest class / episode size, clamped to [25, 200] (reference DatasetLoader)
    assert auto_episodes(90, 2) == 45
    assert auto_episodes(30, 2) == 25      # 15 -> clamped up to 25
    assert auto_episodes(1000, 1) == 200   # clamped down to 200
    assert auto_episodes(7, -1) == 1       # all texts of a label: one episode
    records = pd.DataFrame({"text": [f"t{i}" for i in range(150)],
                            "label": ["x"] * 100 + ["y"] * 50})
    assert FAMILIES["clustering"].resolve_episodes_per_label(records, 2, "auto") == 25
    assert FAMILIES["clustering"].resolve_episodes_per_label(records, 1, "auto") == 50
    ti = FAMILIES["clustering"].build(records, episode_size=1, episodes_per_label="auto")
    assert ti.episodes_per_label == 50 and ti.n_items == 100


# ---------------------------------------------------------------- clustering batch size
def test_clustering_mini_batch_is_32_whatever_the_encoding_batch_size():
    rng = np.random.default_rng(3)
    records = pd.DataFrame({"text": [f"t{i}" for i in range(90)],
                            "label": np.repeat(["a", "b", "c"], 30)})
    ti = FAMILIES["clustering"].build(records, episode_size=1, episodes_per_label=30)
    emb = rng.normal(size=(90, 5)).astype(np.float32)
    family = FAMILIES["clustering"]
    got = family.evaluate(ti, emb, seed=42, batch_size=7)
    assert got["v_measure"] == clustering(emb, ti.labels, batch_size=32, seed=42)["v_measure"]
    assert got["v_measure"] == family.evaluate(ti, emb, seed=42, batch_size=256)["v_measure"]


# ---------------------------------------------------------------- retrieval MRR
def test_mrr_is_the_mean_over_all_relevant_targets_and_first_hit_keeps_its_name():
    # queries a = (1, 0) and b = (0, 1); targets a1 = (1, 0), b1 = (0.9, 0.3),
    # a2 = (0.5, 0.8). By cosine, query a ranks a1 (1.0), b1 (0.95), a2 (0.53): its
    # relevant targets sit at ranks 1 and 3; query b ranks a2 (0.85), b1 (0.32), a1 (0):
    # its relevant target sits at rank 2.
    q = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    t = np.array([[1.0, 0.0], [0.9, 0.3], [0.5, 0.8]], dtype=np.float32)
    r = retrieval(q, ["a", "b"], t, ["a", "b", "a"])
    # the reference: mean over each query's relevant targets of 1/rank, then over queries
    assert r["mrr"] == pytest.approx(((1 / 1 + 1 / 3) / 2 + 1 / 2) / 2)
    assert r["mrr_first_hit"] == pytest.approx((1 / 1 + 1 / 2) / 2)
    assert FAMILIES["retrieval"].main_metric == "mrr"


# ---------------------------------------------------------------- probing: mean over features
def test_probing_domain_is_one_result_averaging_its_features():
    """The reference trains one probe per feature and reports their ``average``."""
    y = np.tile([0, 1], 20)  # 40 texts, classes alternate
    split = ["train"] * 30 + ["validation"] * 4 + ["test"] * 6
    records = pd.DataFrame({
        "text": [f"t{i}" for i in range(40)] * 2,
        "label": np.concatenate([y, y]).astype(str),
        "feature": ["readable"] * 40 + ["hidden"] * 40,
        "split": split * 2})
    ti = FAMILIES["probing"].build(records, episode_size=1, episodes_per_label=1)
    assert len(ti.texts) == 40 and ti.n_items == 80  # each text encoded once
    # dimension 0 carries the class (feature "readable"); for "hidden" the rows are
    # given identical embeddings, so the probe predicts one class for all 6 test texts
    # (3 of each class): accuracy 1/2. Hand-worked main metric: (1 + 1/2) / 2 = 0.75.
    emb = np.zeros((80, 2), dtype=np.float32)
    emb[:40, 0] = 5.0 * y
    emb[:40, 1] = 1.0
    emb[40:] = [1.0, 1.0]
    r = _quiet(probe_features, ti, emb, mode="logreg")
    assert r["accuracy[readable]"] == 1.0 and r["accuracy[hidden]"] == 0.5
    assert r["accuracy"] == pytest.approx(0.75)
    assert r.counts["n_features"] == 2
    n, stat = FAMILIES["probing"].statistic(r.details)
    assert n == 12 and stat(np.arange(n)) == pytest.approx(0.75)
    # the feature ids line up with the per-item values kept in records
    ids = FAMILIES["probing"].item_ids(ti, r)
    assert ids[:6] == [f"readable:{i}" for i in range(34, 40)] and len(ids) == 12
    # a probing set without a feature column is one feature: the mean is its accuracy
    single = FAMILIES["probing"].build(records.iloc[:40].drop(columns="feature"),
                                       episode_size=1, episodes_per_label=1)
    one = _quiet(probe_features, single, emb[:40], mode="logreg")
    assert one["accuracy"] == 1.0 and one.counts["n_features"] == 1


# ---------------------------------------------------------------- missing results
def _rows(values: dict[str, dict[str, float]], task: str = "retrieval", size: int = -1,
          category: str = "idiolect") -> list[dict]:
    return [{"model": m, "dataset": d, "task": task, "value": v, "episode_size": size,
             "language": "en", "dataset_category": category, "model_category": "style"}
            for d, per in values.items() for m, v in per.items()]


def test_operational_drops_a_dataset_not_every_model_has_unless_asked():
    # m3 has no result on d2. The newest reference keeps m3 and drops d2 for everyone
    # (the default); missing="drop_models" (the former rule, the reference's older
    # default) drops m3 from the task instead.
    table = {"d1": {"m1": 0.2, "m2": 0.4, "m3": 0.6},
             "d2": {"m1": 0.4, "m2": 0.8}}
    df = pd.DataFrame(_rows(table))
    op = scores.operational(df, grouping={"d1": "g", "d2": "g"}, n_resamples=0)
    assert op.task_scores["retrieval"].to_dict() == pytest.approx(
        {"m1": 0.2, "m2": 0.4, "m3": 0.6})
    assert op.tasks["retrieval"].dropped_datasets == ["d2"]
    with pytest.warns(scores.MissingResultsWarning, match=r"m3.*d2"):
        op = scores.operational(df, grouping={"d1": "g", "d2": "g"}, n_resamples=0,
                                missing="drop_models")
    got = op.task_scores["retrieval"]
    assert got["m1"] == pytest.approx(0.3) and got["m2"] == pytest.approx(0.6)
    assert np.isnan(got["m3"])
    assert op.tasks["retrieval"].dropped_models == {"m3": ["d2"]}


def test_a_failed_result_enters_with_the_models_next_configuration():
    # The reference (discovery.discover_scores) takes, per model, the first configuration
    # folder in string order whose metrics.json holds the metric. m2's size-1 run failed
    # (no metrics), so its 2_50 value stands in for it, and a note names the folders.
    rows = (_rows({"d1": {"m1": 0.1, "m2": float("nan"), "m3": 0.3}}, "clustering", 1)
            + _rows({"d1": {"m1": 0.5, "m2": 0.99, "m3": 0.7}}, "clustering", 2))
    df = pd.DataFrame(rows).assign(episodes_per_label=50)
    board = scores.leaderboard(df, grouping="fixed", min_tasks=1, with_ci=False)
    assert board.set_index("model")["clustering"].to_dict() == {"m1": 0.1, "m2": 0.99,
                                                                "m3": 0.3}
    assert ("operational score, clustering on d1: the models' numbers come from different "
            "configurations (size_episodes-per-label, each model's first in string order "
            "holding a result, as the reference): m1 1_50, m2 2_50, m3 1_50"
            ) in scores.leaderboard_notes(board)
    # preset_size_first: one size for every model, a failed record a missing cell; m2 is
    # not part of the task (drop_datasets) or left out for its missing d1 (drop_models)
    for missing in ("drop_datasets", "drop_models"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            board = scores.leaderboard(df, grouping="fixed", with_ci=False, min_tasks=1,
                                       configuration="preset_size_first", missing=missing)
        assert [w.category for w in caught] == ([] if missing == "drop_datasets"
                                                else [scores.MissingResultsWarning])
        by_model = board.set_index("model")["clustering"]
        assert by_model["m1"] == 0.1 and by_model["m3"] == 0.3
        assert np.isnan(by_model["m2"])
        assert board.attrs["dropped_models"] == {"clustering": {"m2": ["d1"]}}


def test_definitional_keeps_the_datasets_every_model_of_a_column_has():
    # genre cluster: m2 lacks g2. The newest reference's manual clusters drop g2 (the
    # default): m1 = 0.2, m2 = 0.6. missing="drop_models" (the former rule) averages
    # what each model has: m1 = (0.2 + 0.4) / 2.
    table = {"g1": {"m1": 0.2, "m2": 0.6}, "g2": {"m1": 0.4}}
    de = scores.definitional(pd.DataFrame(_rows(table, category="genre")), n_resamples=0)
    assert de.scores["genre"].to_dict() == pytest.approx({"m1": 0.2, "m2": 0.6})
    loose = scores.definitional(pd.DataFrame(_rows(table, category="genre")),
                                n_resamples=0, missing="drop_models")
    assert loose.scores["genre"].to_dict() == pytest.approx({"m1": 0.3, "m2": 0.6})
    # a model without any result in a column does not empty it: m3 has only register
    both = table | {"r1": {"m1": 0.1, "m2": 0.3, "m3": 0.5}}
    rows = _rows({d: v for d, v in both.items() if d != "r1"}, category="genre") + _rows(
        {"r1": both["r1"]}, category="register")
    de = scores.definitional(pd.DataFrame(rows), n_resamples=0).scores
    assert de["genre"].to_dict() == pytest.approx({"m1": 0.2, "m2": 0.6, "m3": np.nan},
                                                  nan_ok=True)
    assert de.loc["m3", "object_of_study"] == pytest.approx(0.5)


# ---------------------------------------------------------------- grouping exclusions
def test_correlation_grouping_models_follow_the_reference_unless_asked():
    # Three models rank d1 and d2 alike and d3 the other way; tfidf-char and random
    # change the correlations. The reference's rule (the default) lets them shape the
    # grouping and never scores its EXCLUDED_MODELS (lftk here); the alternative
    # (grouping_models="without_baselines") scores every model but groups from m1..m3 alone.
    base = {"d1": [0.1, 0.2, 0.3], "d2": [0.2, 0.3, 0.4], "d3": [0.3, 0.2, 0.1]}
    odd = {"d1": [0.9, 0.0], "d2": [0.0, 0.9], "d3": [0.9, 0.0]}
    names = ["m1", "m2", "m3"]
    table = {d: {**dict(zip(names, v, strict=True)),
                 **dict(zip(["tfidf-char", "random"], odd[d], strict=True))}
             for d, v in base.items()}
    df = pd.DataFrame(_rows(table) + _rows({d: {"lftk": 0.5} for d in table}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = scores.operational(df, n_resamples=0, threshold=1.0)
        op = scores.operational(df, n_resamples=0, threshold=1.0,
                                grouping_models="without_baselines")
    assert ref.not_scored == ["lftk"] and "lftk" not in ref.models
    assert ref.tasks["retrieval"].grouping_excluded == []
    ref_groups = sorted(sorted(g) for g in ref.tasks["retrieval"].groups.values())
    assert ref_groups == [["d1", "d3"], ["d2"]]  # tfidf-char and random move d3
    groups = sorted(sorted(g) for g in op.tasks["retrieval"].groups.values())
    assert groups == [["d1", "d2"], ["d3"]]  # from m1..m3 alone
    assert op.tasks["retrieval"].grouping_excluded == ["lftk", "random", "tfidf-char"]
    # tfidf-char is scored with those groups: ((0.9 + 0.0) / 2 + 0.9) / 2
    assert op.task_scores["retrieval"]["tfidf-char"] == pytest.approx(0.675)


# ---------------------------------------------------------------- the cluster file
def test_datasets_the_reference_does_not_score_stay_out_unless_asked():
    # The reference's operational score reads every dataset it supports
    # (discovery.discover_scores), its definitional score those of its cluster file
    # (manual_cluster.py). AuthBench is supported, not in the cluster file.
    listed = "pan20_authorship_verification_test"
    assert listed in scores.listed_datasets()
    table = {listed: {"m1": 0.2, "m2": 0.4}, "my_own_set": {"m1": 0.9, "m2": 0.1},
             "authbench_attribution_en": {"m1": 1.0, "m2": 0.0}}
    df = pd.DataFrame(_rows(table))
    op = scores.operational(df, grouping="fixed", n_resamples=0, min_tasks=1)
    # fixed groups: pan20 (authorship_verification) and authbench (alone)
    assert op.task_scores["retrieval"].to_dict() == pytest.approx({"m1": 0.6, "m2": 0.2})
    assert op.excluded["not_scored_by_the_reference"] == ["my_own_set"]
    op = scores.operational(df, grouping="fixed", n_resamples=0, unlisted="cluster_file")
    assert op.task_scores["retrieval"].to_dict() == pytest.approx({"m1": 0.2, "m2": 0.4})
    assert op.excluded["not_scored_by_the_reference"] == ["authbench_attribution_en",
                                                          "my_own_set"]
    # AuthBench is not in the cluster file: it does not join idiolect by its category
    de = scores.definitional(df, n_resamples=0)
    assert de.scores["idiolect"].to_dict() == pytest.approx({"m1": 0.2, "m2": 0.4})
    # asked for: every dataset counts
    op = scores.operational(df, grouping="fixed", n_resamples=0, unlisted="all")
    assert op.task_scores["retrieval"]["m1"] == pytest.approx((0.2 + 0.9 + 1.0) / 3)
    # a suite with no listed dataset at all (offline, custom) is scored as it is
    own = pd.DataFrame(_rows({"my_own_set": {"m1": 0.9, "m2": 0.1}}))
    assert scores.operational(own, grouping="fixed", n_resamples=0).task_scores[
        "retrieval"].to_dict() == pytest.approx({"m1": 0.9, "m2": 0.1})


# ---------------------------------------------------------------- chance is a line
def test_the_random_baseline_is_the_chance_level_never_ranked():
    table = {"d1": {"m1": 0.3, "m2": 0.5, "random": 0.9}}
    board = scores.leaderboard(pd.DataFrame(_rows(table)), grouping="fixed", min_tasks=1,
                               with_ci=False)
    assert board["model"].tolist() == ["m2", "m1", "random"]
    assert board["rank"].tolist()[:2] == [1, 2] and pd.isna(board["rank"].iloc[2])
    assert board["chance"].tolist() == [False, False, True]
    text = scores.to_markdown(board[["rank", "model", "chance", "steb_score"]])
    assert text.endswith("|  | random (chance) | 90.00 |")
    assert "**" not in text  # the best model is below the chance level: no best to mark


# ---------------------------------------------------------------- the grouping figures
def test_grouping_figures_follow_the_ward_tree_of_spearman_distances(tmp_path):
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform
    from scipy.stats import spearmanr

    from stebkit import plots

    m = pd.DataFrame({"a": [1, 2, 3, 4, 5], "b": [2, 1, 3, 5, 4], "c": [5, 4, 3, 2, 1],
                      "d": [4, 5, 3, 1, 2]}, dtype=float)
    rho = spearmanr(m.to_numpy()).statistic
    dist = np.clip(1 - rho, 0, 2)
    np.fill_diagonal(dist, 0)
    order = [m.columns[i] for i in leaves_list(linkage(squareform(dist), "ward"))]
    tree, heat = plots.grouping_figures(m, task="toy", directory=tmp_path)
    assert [t.get_text() for t in heat.figure.axes[0].get_xticklabels()] == order
    assert sorted(p.name for p in tree.paths + heat.paths) == [
        "grouping_toy_correlation.pdf", "grouping_toy_correlation.png",
        "grouping_toy_dendrogram.pdf", "grouping_toy_dendrogram.png"]


def test_figure1_draws_the_chance_level_as_a_dashed_line():
    from stebkit import plots

    board = pd.DataFrame({"model": ["m1", "m2", "random"], "model_category": "style",
                          "steb_score": [0.4, 0.6, 0.5], "chance": [False, False, True]})
    fig = plots.figure1(board, directory=None).figure
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["m1", "m2"]
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and dashed[0].get_xdata()[0] == pytest.approx(50.0)


# ---------------------------------------------------------------- per-label results
def test_all_to_all_pairs_per_label_scores_each_label_against_the_others():
    """The reference's per-label result for label L: the pairs with a text of L; positive
    when both texts are L, negative when only one is."""
    from sklearn.metrics import roc_auc_score

    from stebkit.tasks import all_to_all_pairs

    emb = np.array([[1.0, 0.0], [0.9, 0.2], [0.1, 1.0], [0.3, 0.9], [0.8, 0.5]])
    labels = ["a", "a", "b", "b", "c"]
    r = all_to_all_pairs(emb, labels, per_label=True)
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    for name in ("a", "b"):
        y, s = [], []
        for i in range(5):
            for j in range(i + 1, 5):
                if name in (labels[i], labels[j]):
                    y.append(labels[i] == labels[j] == name)
                    s.append(unit[i] @ unit[j])
        assert r.details["per_label"][name]["auc"] == pytest.approx(roc_auc_score(y, s))
    assert "c" not in r.details["per_label"]  # one text: no positive pair
    assert "per_label" not in all_to_all_pairs(emb, labels).details


def test_the_reference_task_defaults_use_auto_episodes_per_label():
    # the reference's TASK_DEFAULTS: one episode size, "auto" for these three families
    for name in ("clustering", "all_to_all_pairs", "order_alignment"):
        assert FAMILIES[name].preset("default") == ((1,), "auto")
    assert FAMILIES["predefined_pairs"].preset("default") == ((1,), 2)
    assert FAMILIES["probing"].preset("default") == ((1,), 1)
    with pytest.raises(ValueError, match="unknown preset 'tiny'"):
        FAMILIES["clustering"].preset("tiny")


# ---------------------------------------------------------------- LFTK scoring (core.evaluate)
def test_lftk_pairs_are_scored_by_negative_l1_distance_and_clustered_on_absolute_values():
    """The reference scores its LFTK model's pairs by -sum|a - b| and clusters |x|."""
    from scipy.spatial.distance import cityblock
    from sklearn.cluster import MiniBatchKMeans
    from sklearn.metrics import roc_auc_score, v_measure_score

    from stebkit.tasks import all_to_all_pairs, predefined_pairs

    emb = np.array([[0.6, -0.8, 0.0], [0.5, -0.7, 0.1], [0.0, 0.6, 0.8], [0.1, 0.5, 0.9],
                    [0.0, 0.0, 0.0]])  # a zero vector is fine without cosine
    labels = ["a", "a", "b", "b", "a"]
    # by hand: pair (0, 1) -> -(0.1 + 0.1 + 0.1) = -0.3
    r = all_to_all_pairs(emb, labels, scoring="l1")
    y, s = [], []
    for i in range(5):
        for j in range(i + 1, 5):
            y.append(labels[i] == labels[j])
            s.append(-cityblock(emb[i], emb[j]))
    assert r["auc"] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert max(r.details["pos_scores"]) == pytest.approx(-0.3)
    # by cosine the zero vector scores 0 with every text (scikit-learn's, as the reference)
    from sklearn.metrics.pairwise import cosine_similarity

    upper = np.triu_indices(5, 1)
    assert all_to_all_pairs(emb, labels)["auc"] == pytest.approx(
        roc_auc_score(y, cosine_similarity(emb)[upper]), abs=1e-12)
    p = predefined_pairs(emb[[0, 2, 1]], emb[[1, 3, 3]], [True, True, False], scoring="l1")
    assert p.details["scores"].tolist() == pytest.approx([-0.3, -0.3, -2.4])
    signs = np.array([[1.0, -2.0], [-1.0, 2.0], [5.0, 5.0], [-5.0, -5.2], [1.1, 2.0],
                      [5.1, -5.0]])
    want = MiniBatchKMeans(n_clusters=2, random_state=42, batch_size=32,
                           n_init="auto").fit(np.abs(signs)).labels_
    got = clustering(signs, [0, 0, 1, 1, 0, 1], scoring="l1")
    assert got["v_measure"] == pytest.approx(v_measure_score([0, 0, 1, 1, 0, 1], want))
    assert got["v_measure"] == 1.0  # |x| puts each sign pattern with its twin


def test_the_runner_scores_an_l1_model_by_l1_in_pair_tasks_and_clustering_only(tmp_path):
    from scipy.spatial.distance import pdist
    from sklearn.metrics import roc_auc_score
    from test_runner import MarkerEncoder, authors_dataset

    import stebkit
    from stebkit.records.results import Results

    class L1Marker(MarkerEncoder):
        name = "marker-l1"
        scoring = "l1"

    data = authors_dataset()
    res = stebkit.evaluate([L1Marker()], [data], output_dir=tmp_path,
                          tasks=["all_to_all_pairs", "clustering", "retrieval"],
                          cache_embeddings=False)
    by_task = {r["task"]: r for r in Results(res).records}
    assert by_task["all_to_all_pairs"]["protocol"]["scoring"] == "l1"
    assert by_task["clustering"]["protocol"]["scoring"] == "l1"
    assert by_task["retrieval"]["protocol"]["scoring"] == "cosine"  # as the reference
    ti = FAMILIES["all_to_all_pairs"].build(data.frame, episode_size=1,
                        episodes_per_label=4)
    x = L1Marker().encode(list(ti.texts)).astype(np.float64)[[ep[0] for ep in ti.episodes]]
    same = pdist(np.array([[hash(v)] for v in ti.labels]), lambda u, v: u[0] == v[0])
    expected = roc_auc_score(same.astype(bool), -pdist(x, "cityblock"))
    assert by_task["all_to_all_pairs"]["metrics"]["auc"] == pytest.approx(expected, abs=1e-9)


# ---------------------------------------------------------------- position 0 (tasks' pos0_emb)
def test_clustering_and_all_to_all_pairs_take_the_position_0_text_of_parallel_sets():
    # two styles, each set = (styled original, neutral paraphrase); the reference's
    # clustering and all-to-all pairs read entry 0 of each record only.
    records = pd.DataFrame({
        "text": ["tw0", "p0", "tw1", "p1", "sb0", "p2", "sb1", "p3"],
        "label": ["tweets"] * 4 + ["switchboard"] * 4,
        "group": ["g0", "g0", "g1", "g1", "g2", "g2", "g3", "g3"],
        "position": [0, 1] * 4})
    with pytest.warns(FilterWarning, match="4 texts not at position 0"):
        ti = FAMILIES["clustering"].build(records, episode_size=1, episodes_per_label=2)
    assert [ti.texts[ep[0]] for ep in ti.episodes] == ["tw0", "tw1", "sb0", "sb1"]
    assert ti.dropped["texts_not_at_position_0"] == 4


# ---------------------------------------------------------------- dataset sub-metrics
def test_label_submetrics_rescore_the_items_of_their_labels(tmp_path):
    """corpus-of-diverse-styles declares clustering on tweets and switchboard only."""
    from test_runner import MarkerEncoder, authors_dataset, spec

    import stebkit
    from stebkit.datasets.spec import Dataset, Submetric, TaskConfig
    from stebkit.records.results import Results

    base = authors_dataset()
    cfg = TaskConfig((1,), 3, {"a_vs_b": Submetric(labels=("a", "b")),
                               "missing": Submetric(labels=("zz",))})
    data = Dataset(spec("toy_sub", {"clustering": cfg}), base.frame, "fp-sub")
    res = stebkit.evaluate([MarkerEncoder()], [data], output_dir=tmp_path,
                          cache_embeddings=False)
    rec = Results(res).records[0]
    ti = FAMILIES["clustering"].build(base.frame, episode_size=1, episodes_per_label=3)
    keep = np.isin(ti.labels, ["a", "b"])
    x = MarkerEncoder().encode(list(ti.texts))[[ep[0] for ep in ti.episodes]][keep]
    want = clustering(x, ti.labels[keep], seed=42)["v_measure"]
    assert rec["submetrics"]["a_vs_b"]["v_measure"] == pytest.approx(want, abs=1e-12)
    assert rec["submetrics"]["a_vs_b"]["n_items"] == 6
    assert rec["submetrics"]["missing"]["error"].startswith("ValueError: task 'clustering':"
                                                            " none of the labels ['zz']")


def test_field_submetrics_with_query_sides_keep_every_target(tmp_path):
    """AuthBench length buckets: queries of one bucket against the whole target pool."""
    from test_runner import spec

    import stebkit
    from stebkit.datasets.spec import Dataset, Submetric, TaskConfig
    from stebkit.records.results import Results

    class Fixed:
        name, revision = "fixed", "1"
        vectors = {"qa": [1.0, 0.0], "qb": [0.0, 1.0], "qa2": [0.0, 1.0],
                   "ta": [1.0, 0.1], "tb": [0.1, 1.0]}

        def encode(self, texts, *, batch_size=32, show_progress=False):
            return np.array([self.vectors[t] for t in texts], dtype=np.float32)

    records = pd.DataFrame({"text": ["qa", "qb", "qa2", "ta", "tb"],
                            "label": ["a", "b", "a", "a", "b"],
                            "side": ["query", "query", "query", "target", "target"],
                            "bucket": ["short", "short", "long", "short", "long"]})
    cfg = TaskConfig((-1,), 1, {"length_{value}": Submetric(field="bucket", sides="query")})
    data = Dataset(spec("toy_buckets", {"retrieval": cfg}, category="idiolect"), records,
                   "fp-b")
    res = stebkit.evaluate([Fixed()], [data], output_dir=tmp_path, cache_embeddings=False)
    rec = Results(res).records[0]
    # by hand: 'long' keeps query qa2 (author a, looks like b) and both targets -> rank 2;
    # author b has no long query
    assert rec["submetrics"]["length_long"]["mrr"] == pytest.approx(0.5)
    assert rec["submetrics"]["length_long"]["n_items"] == 3
    # 'short' keeps qa, qb and both targets: each ranks its author first
    assert rec["submetrics"]["length_short"]["mrr"] == pytest.approx(1.0)
