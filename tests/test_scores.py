"""Tests of the STEB score aggregation against hand-computed cases and scipy."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from scipy.stats import spearmanr

from stebkit import scores
from stebkit.records.results import Results

MODELS = ["m1", "m2", "m3", "m4"]
# One task, four datasets: A, B, E rank the models identically; C reverses them.
HAND = {
    "A": [0.1, 0.2, 0.3, 0.4],
    "B": [0.3, 0.4, 0.5, 0.6],
    "E": [0.2, 0.4, 0.6, 0.8],
    "C": [0.9, 0.7, 0.5, 0.3],
}
# Groups {A, B, E} and {C}: task score = (mean(A, B, E) + C) / 2.
HAND_TASK = {"m1": 0.55, "m2": (1 / 3 + 0.7) / 2, "m3": (1.4 / 3 + 0.5) / 2, "m4": 0.45}


def _rows(table: dict[str, list[float]], task: str, **extra) -> list[dict]:
    return [{"model": m, "dataset": d, "task": task, "value": v, "episode_size": 1,
             "language": "en", "dataset_category": "idiolect", "model_category": "style",
             **extra}
            for d, vals in table.items() for m, v in zip(MODELS, vals, strict=True)]


def _frame(*parts: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([r for p in parts for r in p])


def test_correlation_grouping_hand_computed():
    df = _frame(_rows(HAND, "clustering"))
    with pytest.warns(UserWarning, match="fewer than 10"):
        op = scores.operational(df, n_resamples=0)
    groups = sorted(sorted(g) for g in op.tasks["clustering"].groups.values())
    assert groups == [["A", "B", "E"], ["C"]]
    got = op.task_scores["clustering"].to_dict()
    for m, expected in HAND_TASK.items():
        assert got[m] == pytest.approx(expected)
    # plain mean over datasets would differ: the grouping matters
    assert got["m1"] != pytest.approx(np.mean([v[0] for v in HAND.values()]))


def test_threshold_controls_cut():
    # rho(a, b) = 0.8 -> distance 0.2: merged at 0.5, separate at 0.1
    m = pd.DataFrame({"a": [1, 2, 3, 4, 5], "b": [1, 2, 3, 5, 4], "c": [5, 4, 3, 2, 1]},
                     index=list("vwxyz"), dtype=float)
    assert sorted(map(sorted, scores.correlation_groups(m, threshold=0.5).values())) == [
        ["a", "b"], ["c"]]
    assert len(scores.correlation_groups(m, threshold=0.1)) == 3


def test_correlation_and_linkage_match_scipy():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(12, 3))
    cols = {f"d{i}": base[:, i % 3] + 0.6 * rng.normal(size=12) for i in range(8)}
    cols["tied"] = np.round(base[:, 0], 0)  # ties
    cols["const"] = np.full(12, 0.5)  # undefined correlation -> 0
    m = pd.DataFrame(cols, index=[f"m{i}" for i in range(12)])
    corr = scores.dataset_correlation(m)
    names = list(m.columns)
    expected = np.ones((len(names), len(names)))
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # scipy warns on the constant column
                rho = spearmanr(m[names[i]], m[names[j]]).statistic
            expected[i, j] = expected[j, i] = 0.0 if np.isnan(rho) else rho
    np.testing.assert_allclose(corr.to_numpy(), expected, atol=1e-12)
    dist = np.clip(1 - expected, 0, 2)
    np.fill_diagonal(dist, 0)
    z = linkage(squareform((dist + dist.T) / 2), method="ward")
    np.testing.assert_allclose(scores.dataset_linkage(corr), z, atol=1e-12)
    for t in (0.5, 1.0):
        labels = fcluster(z, t=t, criterion="distance")
        want = sorted(sorted(n for n, lab in zip(names, labels, strict=True) if lab == k)
                      for k in set(labels))
        got = sorted(map(sorted, scores.correlation_groups(m, threshold=t).values()))
        assert got == want


def test_steb_score_is_mean_of_task_scores_and_filters():
    hand = _rows(HAND, "clustering")
    other = _rows({"R1": [0.5, 0.4, 0.3, 0.2]}, "retrieval")
    # noise the reference ignores: other episode sizes, excluded sets, incomplete sets
    noise = (_rows({"A": [9, 9, 9, 9]}, "clustering", episode_size=2)
             + _rows({"X": [9, 0, 9, 0]}, "clustering", language="de")
             + _rows({"S": [0, 9, 0, 9]}, "clustering", dataset_category="semantic_control")
             + _rows({"Inc": [0, 9, 0, 9]}, "clustering")[:3])
    df = _frame(hand, other, noise)
    with pytest.warns(UserWarning, match="from 4 model"):  # drops Inc, keeps m4
        lb = scores.leaderboard(df, with_ci=False)
    lb = lb.set_index("model")
    for m, t in HAND_TASK.items():
        r = {"m1": 0.5, "m2": 0.4, "m3": 0.3, "m4": 0.2}[m]
        assert lb.loc[m, "clustering"] == pytest.approx(t)
        assert lb.loc[m, "retrieval"] == pytest.approx(r)
        assert lb.loc[m, "steb_score"] == pytest.approx((t + r) / 2)
    assert list(lb.sort_values("rank").index) == ["m1", "m2", "m3", "m4"]
    assert lb.attrs["excluded"] == {"non_english": ["X"], "semantic_control": ["S"]}
    assert lb.attrs["dropped_datasets"] == {"clustering": ["Inc"]}
    assert lb.attrs["n_datasets"] == {"clustering": 4, "retrieval": 1}


def test_fixed_grouping_uses_reference_clusters_and_is_stable():
    table = {"pan20_authorship_verification_test": [0.2, 0.4, 0.6, 0.8],
             "enron_authorship_corpus": [0.4, 0.4, 0.4, 0.6],
             "lite_offline_set": [0.9, 0.1, 0.5, 0.5]}
    df = _frame(_rows(table, "all_to_all_pairs"))
    # the offline set is not in the reference's cluster file: scored only when asked
    op = scores.operational(df, grouping="fixed", n_resamples=0, unlisted="all", min_tasks=1)
    assert op.tasks["all_to_all_pairs"].groups == {
        "authorship_verification": ["enron_authorship_corpus",
                                    "pan20_authorship_verification_test"],
        "lite_offline_set": ["lite_offline_set"]}
    assert op.steb["m1"] == pytest.approx(((0.2 + 0.4) / 2 + 0.9) / 2)
    # adding a model does not move the others' fixed-grouping scores
    extra = pd.DataFrame([{"model": "m5", "dataset": d, "task": "all_to_all_pairs",
                           "value": v} for d, v in zip(table, [0.1, 0.9, 0.3], strict=True)])
    op2 = scores.operational(pd.concat([df, extra]), grouping="fixed", n_resamples=0,
                             unlisted="all", min_tasks=1)
    pd.testing.assert_series_equal(op2.steb.drop("m5"), op.steb)
    # a declared mapping
    op3 = scores.operational(df, grouping={"g": list(table)}, n_resamples=0,
                             unlisted="all", min_tasks=1)
    assert op3.steb["m1"] == pytest.approx((0.2 + 0.4 + 0.9) / 3)


def _tidy(rows: list[tuple]) -> pd.DataFrame:
    out = []
    for model, dataset, cat, task, metrics, main in rows:
        for name, v in metrics.items():
            out.append({"model": model, "dataset": dataset, "dataset_category": cat,
                        "task": task, "metric": name, "value": v, "is_main": name == main,
                        "language": "en", "episode_size": 1, "model_category": "x"})
    return pd.DataFrame(out)


def test_definitional_hand_computed():
    rows = []
    for m, k in (("m1", 0.0), ("m2", 0.1)):
        rows += [
            (m, "G1", "genre", "clustering", {"v_measure": 0.2 + k, "ari": 0.9}, "v_measure"),
            (m, "G2", "genre", "clustering", {"v_measure": 0.4 + k}, "v_measure"),
            (m, "G2", "genre", "all_to_all_pairs", {"auc": 0.7 + k}, "auc"),
            (m, "R", "register", "order_alignment",
             {"acc_mean": 0.6 + k, "distractor_acc_mean": 0.3 + k}, "distractor_acc_mean"),
            (m, "STEL_register", None, "order_alignment",
             {"acc_mean": 0.8 + k, "distractor_acc_mean": 0.5 + k}, "distractor_acc_mean"),
            (m, "D", "dialect", "retrieval", {"mrr": 0.5 + k}, "mrr"),
            (m, "LF", "linguistic_features", "probing", {"accuracy": 0.9 - k}, "accuracy"),
            (m, "SEM", "semantic_control", "clustering", {"v_measure": 0.99}, "v_measure"),
        ]
    de = scores.definitional(_tidy(rows), n_resamples=0,
                             unlisted="all").scores.loc["m1"]
    genre = ((0.2 + 0.4) / 2 + 0.7) / 2
    register = (0.6 + 0.8) / 2            # acc_mean of R and of the reference's STEL_register
    content = (0.3 + 0.5) / 2             # distractor accuracy of both
    oos = (genre + register + 0.5) / 3    # time, demographics, idiolect absent
    assert de["genre"] == pytest.approx(genre)
    assert de["register"] == pytest.approx(register)
    assert de["content_independence"] == pytest.approx(content)
    assert np.isnan(de["time"])
    assert de["object_of_study"] == pytest.approx(oos)
    assert de["linguistic_features"] == pytest.approx(0.9)
    assert de["definitional_score"] == pytest.approx((oos + 0.9 + content) / 3)


def test_leaderboard_from_results_bootstrap_and_exports(tmp_path):
    rng = np.random.default_rng(1)
    records = []
    skill = np.linspace(0.3, 0.7, 10)
    for i, s in enumerate(skill):
        for d in range(6):
            for task in ("clustering", "retrieval"):
                v = float(np.clip(s + 0.1 * rng.normal(), 0, 1))
                records.append({
                    "model": {"name": f"model{i}", "category": "style" if i % 2 else "semantic"},
                    "dataset": {"name": f"set{d}", "category": "genre", "languages": ["en"]},
                    "task": task, "episode_size": 1 if task == "clustering" else -1,
                    "main_metric": "v_measure" if task == "clustering" else "mrr",
                    "metrics": {"v_measure" if task == "clustering" else "mrr": v},
                    "status": "ok"})
    res = Results(records)
    lb = scores.leaderboard(res, n_resamples=200)
    again = scores.leaderboard(res, n_resamples=200)
    pd.testing.assert_frame_equal(lb, again)
    assert len(lb) == 10 and lb["rank"].tolist() == list(range(1, 11))
    assert (lb["steb_ci_low"] <= lb["steb_score"]).all()
    assert (lb["steb_score"] <= lb["steb_ci_high"]).all()
    assert (lb["steb_ci_high"] > lb["steb_ci_low"]).all()
    assert set(lb["model_category"]) == {"style", "semantic"}
    assert lb["genre"].notna().all() and lb["definitional_score"].notna().all()
    md = scores.to_markdown(lb)
    assert md.count("\n") == 11 and md.count("**") >= 2
    tex = scores.to_latex(lb, tmp_path / "t.tex", caption="STEB")
    assert "\\toprule" in tex and "\\textbf{" in tex and (tmp_path / "t.tex").read_text()
    back = pd.read_csv(scores.to_csv(lb, tmp_path / "lb.csv"))
    np.testing.assert_allclose(back["steb_score"], lb["steb_score"])


# Published rows of the reference's docs/leaderboard.md (x100): per-task scores with the
# STEB score, and the definitional clusters with their axes and final score.
PUBLISHED_OPERATIONAL = {
    "LUAR-CRUD": ([19.65, 61.00, 73.12, 19.80, 77.64, 53.75], 50.82),
    "star": ([25.92, 64.56, 73.28, 23.93, 66.96, 49.86], 50.75),
    "styledistance": ([18.46, 59.82, 66.21, 44.02, 49.61, 57.87], 49.33),
    "e5-base-v2": ([9.28, 60.40, 63.42, 15.26, 49.62, 52.13], 41.69),
    "neurobiber": ([8.24, 55.10, 57.27, 14.13, 9.06, 51.64], 32.57),
}
PUBLISHED_DEFINITIONAL = {  # 6 object clusters, LF, CI -> OoS, definitional
    "styledistance": ([62.84, 40.01, 46.21, 33.67, 56.91, 60.03, 74.02, 44.23], 49.94, 56.06),
    "star": ([68.68, 39.79, 47.25, 40.99, 49.39, 72.24, 67.66, 14.08], 53.06, 44.93),
    "roberta-base": ([63.79, 42.52, 45.94, 32.84, 40.16, 59.83, 77.95, 10.27], 47.51, 45.25),
    "neurobiber": ([47.31, 32.38, 34.49, 31.46, 28.07, 34.04, 64.11, 7.99], 34.62, 35.57),
}


def test_aggregation_reproduces_published_leaderboard_rows():
    tasks = ["clustering", "all_to_all_pairs", "predefined_pairs", "order_alignment",
             "retrieval", "probing"]
    rows = [{"model": m, "dataset": f"only_{t}", "task": t, "value": v / 100}
            for m, (vals, _) in PUBLISHED_OPERATIONAL.items()
            for t, v in zip(tasks, vals, strict=True)]
    steb = scores.operational(pd.DataFrame(rows), n_resamples=0).steb
    for m, (_, published) in PUBLISHED_OPERATIONAL.items():
        assert steb[m] * 100 == pytest.approx(published, abs=0.01)
    clusters = ["genre", "register", "time", "demographics", "dialect", "idiolect",
                "predefined_features", "style_vs_content"]
    rows = [{"model": m, "dataset": f"ds_{c}", "task": "retrieval", "value": v / 100}
            for m, (vals, _, _) in PUBLISHED_DEFINITIONAL.items()
            for c, v in zip(clusters, vals, strict=True)]
    de = scores.definitional(pd.DataFrame(rows), clusters={c: [f"ds_{c}"] for c in clusters},
                             n_resamples=0).scores
    for m, (_, oos, final) in PUBLISHED_DEFINITIONAL.items():
        assert de.loc[m, "object_of_study"] * 100 == pytest.approx(oos, abs=0.01)
        assert de.loc[m, "definitional_score"] * 100 == pytest.approx(final, abs=0.01)


def test_few_models_and_main_only_frames_warn():
    two = _frame(_rows(HAND, "clustering"))
    two = two[two["model"].isin(["m1", "m2"])]
    with pytest.warns(UserWarning, match="only 2 model") as caught:
        op = scores.operational(two, n_resamples=0)
    assert caught[0].filename == __file__  # names the caller, never a library file
    # the reference skips a task with fewer than 3 models: no operational score
    assert op.tasks == {} and op.skipped_tasks == {
        "clustering": "only 2 model(s) with results (the correlation grouping needs 3)"}
    assert op.steb.isna().all()
    main_only = pd.DataFrame({"model": ["m1", "m2"], "dataset": "r", "task": "order_alignment",
                              "value": [0.3, 0.4], "dataset_category": "register"})
    with pytest.warns(UserWarning, match="main metric"):
        de = scores.definitional(main_only, n_resamples=0).scores
    assert de.loc["m2", "register"] == pytest.approx(0.4)


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="results"):
        scores.leaderboard([1, 2])
    with pytest.raises(ValueError, match="grouping"):
        scores.operational(_frame(_rows(HAND, "clustering")), grouping="spectral")


def test_tables_show_the_categories_as_readers_see_them():
    from stebkit.scores import to_latex, to_markdown
    from stebkit.scores.published import CATEGORY_LABELS

    lb = pd.DataFrame({"rank": [1, 2, 3], "model": ["a", "b", "c"],
                       "model_category": ["non_neural", "masked_lm", "causal_lm"],
                       "steb_score": [.5, .4, .3]})
    md = to_markdown(lb)
    assert "| 1 | a | non-neural |" in md and "| 2 | b | MLM |" in md and "| 3 | c | CLM |" in md
    assert "non_neural" not in md and "masked_lm" not in to_latex(lb)
    assert set(CATEGORY_LABELS.values()) >= {"style", "semantic", "MLM", "CLM", "non-neural"}
