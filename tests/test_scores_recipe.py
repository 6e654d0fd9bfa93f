"""The leaderboard's defaults are the reference's newest aggregation.

The oracle is a transcription, written for this test from reading the reference's
``scripts/benchmark_clustering`` (``__main__.py`` with ``_DEFAULT_THRESHOLD = 0.5`` and
complete datasets forced on, ``auto_cluster.analyze_task``, ``discovery.discover_scores``,
``config.EXCLUDED_MODELS``; for the definitional score ``manual_cluster.py``, which reads
only the benchmark preset's episode configuration of each task, and the cluster averages
of ``excel_export.py``): it shares no code with ``stebkit.scores`` and takes its
correlations from ``scipy.stats.spearmanr`` one pair at a time.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from scipy.stats import spearmanr

from stebkit import scores

EXCLUDED = {"avgs_typetoken_read.yaml", "lftk", "tfidf", "tfidfngrams"}


def reference_matrix(rows: pd.DataFrame) -> pd.DataFrame:
    """One task's models x datasets matrix as ``discovery.discover_scores`` reads it: per
    dataset and model, the first configuration folder (``{size}_{per label}``) in string
    order whose metrics hold a value (a failed run writes none)."""
    scores_: dict[str, dict[str, float]] = {}
    if "episode_size" not in rows.columns:
        rows = rows.assign(episode_size=1)
    per = rows["episodes_per_label"] if "episodes_per_label" in rows.columns else 0
    rows = rows.assign(folder=rows["episode_size"].astype(int).astype(str) + "_"
                       + pd.Series(per, index=rows.index).astype(int).astype(str))
    for dataset in sorted(set(rows["dataset"])):
        for model in sorted(set(rows.loc[rows["dataset"] == dataset, "model"])):
            mine = rows[(rows["dataset"] == dataset) & (rows["model"] == model)]
            for folder in sorted(set(mine["folder"])):
                value = mine.loc[mine["folder"] == folder, "value"].iloc[0]
                if not np.isnan(value):
                    scores_.setdefault(model, {})[dataset] = value
                    break
    return pd.DataFrame(scores_).T


def reference_steb(frame: pd.DataFrame, *, threshold: float = 0.5, min_models: int = 3,
                   allowed: set[str] | None = None) -> tuple[pd.DataFrame, pd.Series]:
    """Task scores and STEB score as the newest reference computes them (no STEB score
    with fewer than two tasks scored)."""
    task_scores = {}
    for task, rows in frame.groupby("task"):
        rows = rows[~rows["model"].isin(EXCLUDED)]
        if allowed is not None:
            rows = rows[rows["model"].isin(allowed)]
        matrix = reference_matrix(rows)
        matrix = matrix.dropna(axis=1, how="any")  # complete datasets, always
        if len(matrix) < min_models or matrix.shape[1] == 0:
            continue  # the task is skipped
        if matrix.shape[1] == 1:
            task_scores[task] = matrix.iloc[:, 0]
            continue
        n = matrix.shape[1]
        corr = np.ones((n, n))
        for i in range(n):
            for j in range(i + 1, n):
                rho = spearmanr(matrix.iloc[:, i], matrix.iloc[:, j])[0]
                corr[i, j] = corr[j, i] = 0.0 if np.isnan(rho) else rho
        dist = np.clip(1 - corr, 0, 2)
        np.fill_diagonal(dist, 0)
        labels = fcluster(linkage(squareform((dist + dist.T) / 2), method="ward"),
                          t=threshold, criterion="distance")
        clusters: dict[int, list[str]] = {}
        for dataset, label in zip(matrix.columns, labels, strict=True):
            clusters.setdefault(label, []).append(dataset)
        means = pd.DataFrame({k: matrix[v].mean(axis=1) for k, v in sorted(clusters.items())})
        task_scores[task] = means.mean(axis=1)
    table = pd.DataFrame(task_scores)
    steb = table.mean(axis=1) if len(task_scores) > 1 else pd.Series(np.nan, table.index)
    return table, steb


# "{first episode size}_{episodes per class}" of each task in the reference's benchmark
# preset (steb/presets.py, get_benchmark_config), the one folder manual_cluster.py reads
BENCHMARK_EP_CONFIG = {"clustering": "1_50", "all_to_all_pairs": "1_50",
                       "order_alignment": "1_100", "predefined_pairs": "1_2",
                       "retrieval": "-1_1", "probing": "1_1"}


def reference_records(frame: pd.DataFrame) -> pd.DataFrame:
    """The records the reference's manual clusters read: size and episodes per label
    both equal to the benchmark preset's configuration of the task."""
    config = (frame["episode_size"].astype(int).astype(str) + "_"
              + frame["episodes_per_label"].astype(int).astype(str))
    return frame[config == frame["task"].map(BENCHMARK_EP_CONFIG)]


def reference_cluster(frame: pd.DataFrame) -> pd.Series:
    """One manual cluster holding every dataset of ``frame``, as the newest reference
    scores it: per task column, the datasets every model of that column has, averaged per
    model; the cluster's score is the mean of its columns."""
    rows = reference_records(frame)
    rows = rows[~rows["model"].isin(EXCLUDED) & rows["value"].notna()]
    columns = {}
    for task, part in rows.groupby("task"):
        matrix = part.pivot(index="model", columns="dataset", values="value")
        columns[task] = matrix.dropna(axis=1, how="any").mean(axis=1)
    return pd.DataFrame(columns).mean(axis=1)


MODELS = ["style-a", "style-b", "semantic-a", "semantic-b", "function-words", "tfidf-char",
          "random", "lftk"]


def _records(seed: int = 7) -> pd.DataFrame:
    """Eight models (lftk among them), three tasks, seven English datasets each, a few
    results missing; values with structure so that the grouping has something to find."""
    rng = np.random.default_rng(seed)
    skill = rng.uniform(0.3, 0.8, size=(len(MODELS), 2))
    rows = []
    for task in ("clustering", "retrieval", "all_to_all_pairs"):
        for d in range(7):
            weight = rng.uniform(0, 1)
            for i, model in enumerate(MODELS):
                value = (weight * skill[i, 0] + (1 - weight) * skill[i, 1]
                         + rng.normal(0, 0.05))
                if model == "random":
                    value = 0.5 + rng.normal(0, 0.02)
                rows.append({"model": model, "dataset": f"{task[:4]}_{d}", "task": task,
                             "value": value, "episode_size": 1, "language": "en",
                             "dataset_category": "genre"})
    df = pd.DataFrame(rows)
    missing = [("style-b", "clus_3"), ("random", "retr_5"), ("semantic-a", "all__0")]
    for model, dataset in missing:
        df.loc[(df["model"] == model) & (df["dataset"] == dataset), "value"] = np.nan
    return df


def test_the_default_leaderboard_is_the_reference_aggregation():
    df = _records()
    tasks, steb = reference_steb(df)
    board = scores.leaderboard(df, with_ci=False).set_index("model")
    assert "lftk" not in board.index and board.attrs["not_scored"] == ["lftk"]
    assert sorted(board.index) == sorted(steb.index)
    for task in tasks.columns:
        assert board[task].to_numpy() == pytest.approx(tasks[task].reindex(board.index),
                                                       abs=1e-12)
    assert board["steb_score"].to_numpy() == pytest.approx(steb.reindex(board.index),
                                                           abs=1e-12)
    # the former rules give other scores: a test of the defaults, not of the arithmetic
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        former = scores.leaderboard(df, with_ci=False, threshold=1.0, missing="drop_models",
                                    grouping_models="without_baselines").set_index("model")
    shared = former.index.intersection(steb.index)
    assert np.abs(former.loc[shared, "steb_score"] - steb[shared]).max() > 1e-3
    assert scores.leaderboard_summary(board)[-1].startswith(
        "Recipe: ScoreRecipe(), the reference's newest aggregation")


def test_the_definitional_score_reads_the_records_the_reference_reads():
    # the records of _records at the benchmark preset's configuration, plus records the
    # reference never reads: the same sizes with other episodes per label (written first,
    # so that taking the first value of a cell would take them), and other sizes.
    # style-a's benchmark result on clus_2 failed: its 1 x 100 value must not stand in.
    df = _records(seed=5)
    df.loc[df["task"] == "retrieval", "episode_size"] = -1
    df["episodes_per_label"] = df["task"].map(
        {t: int(c.split("_")[1]) for t, c in BENCHMARK_EP_CONFIG.items()})
    other = df.assign(episodes_per_label=df["episodes_per_label"] * 2, value=0.99)
    bigger = df[df["task"] != "retrieval"].assign(episode_size=2, value=0.01)
    failed = (df["model"] == "style-a") & (df["dataset"] == "clus_2")
    df.loc[failed, "value"] = np.nan
    frame = pd.concat([other, df, bigger], ignore_index=True)
    expected = reference_cluster(frame)
    assert len(expected) >= 5 and "lftk" not in expected.index
    de = scores.definitional(frame, n_resamples=0)
    assert sorted(de.scores.index) == sorted(expected.index)
    assert de.scores["genre"].to_numpy() == pytest.approx(expected.reindex(de.scores.index),
                                                          abs=1e-12)
    assert de.scores["definitional_score"].to_numpy() == pytest.approx(
        expected.reindex(de.scores.index), abs=1e-12)
    assert de.configs["benchmark"].all()


def test_the_reference_transcription_agrees_at_other_thresholds():
    df = _records(seed=11)
    for t in (0.3, 1.0, 1.5):
        _, steb = reference_steb(df, threshold=t)
        board = scores.leaderboard(df, with_ci=False, threshold=t).set_index("model")
        assert board["steb_score"].to_numpy() == pytest.approx(steb.reindex(board.index),
                                                               abs=1e-12)
        assert scores.leaderboard_summary(board)[-1] == (
            f"Recipe: ScoreRecipe(threshold={t!r}), not the reference's newest aggregation")


def test_a_task_with_fewer_than_three_models_has_no_operational_score():
    # retrieval: m1, m2 and lftk (not scored) -> 2 models: skipped, by hand the STEB score
    # is the clustering score alone: m1 (0.2 + 0.4) / 2 = 0.3 (one group: d1 and d2 rank
    # the models alike), m2 0.5, m3 0.7 (no retrieval result, so not part of that task).
    rows = [(m, d, "clustering", v) for m, vals in
            {"m1": (0.2, 0.4), "m2": (0.4, 0.6), "m3": (0.6, 0.8)}.items()
            for d, v in zip(("d1", "d2"), vals, strict=True)]
    rows += [(m, "r1", "retrieval", v) for m, v in {"m1": 0.9, "m2": 0.1, "lftk": 0.5}.items()]
    df = pd.DataFrame(rows, columns=["model", "dataset", "task", "value"])
    board = scores.leaderboard(df, with_ci=False, min_tasks=1).set_index("model")
    assert "retrieval" not in board.columns
    assert board["steb_score"].to_dict() == pytest.approx({"m1": 0.3, "m2": 0.5, "m3": 0.7})
    # the reference writes no STEB score for one task (the default)
    board = scores.leaderboard(df, with_ci=False).set_index("model")
    assert board["steb_score"].isna().all()
    assert board["clustering"]["m1"] == pytest.approx(0.3)
    notes = scores.leaderboard_notes(board)
    assert ("no STEB score: only 1 task(s) scored (clustering); the STEB score needs 2, as "
            "the reference writes it only for more than one task (min_tasks=1 scores one)"
            ) in notes
    assert ("retrieval: no operational score, only 2 model(s) with results (the correlation "
            "grouping needs 3), as the reference skips it") in notes
    assert "not scored (the reference's excluded models): lftk" in notes
    _, steb = reference_steb(df)
    assert steb.isna().all() and len(steb) == 3


def test_the_grouping_warning_counts_the_models_in_the_grouping_once():
    # five models: 3 style-like, random, tfidf-char. The reference's rule groups from all
    # five; stebkit's former rule from the three others, naming the two it left out.
    df = _records()
    df = df[df["model"].isin(["style-a", "style-b", "semantic-a", "random", "tfidf-char"])]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores.operational(df, n_resamples=0)
    assert len(caught) == 1 and caught[0].filename == __file__
    message = str(caught[0].message)
    assert message.startswith("correlation grouping from 5 model(s) (fewer than 10)")
    assert "/" not in message.split("(fewer")[0] and "stebkit/" not in message
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores.operational(df, n_resamples=0, grouping_models="without_baselines")
    assert len(caught) == 1 and caught[0].filename == __file__
    assert str(caught[0].message).startswith("correlation grouping from 3 model(s)")
    assert str(caught[0].message).endswith(
        "left out of the grouping, still scored: random, tfidf-char "
        "(grouping_models='without_baselines')")
    with warnings.catch_warnings(record=True) as caught:  # the leaderboard: the same once
        warnings.simplefilter("always")
        board = scores.leaderboard(df, n_resamples=0)
    assert len(caught) == 1 and caught[0].filename == __file__
    assert "(grouping='correlation', 5 models, fewer than 10: unreliable)" in " ".join(
        scores.leaderboard_summary(board))


def test_identical_models_are_named():
    df = _records()
    twin = df[df["model"] == "function-words"].assign(model="functionwordfreq")
    board = scores.leaderboard(pd.concat([df, twin]), with_ci=False)
    assert ("identical results: function-words, functionwordfreq; each enters the "
            "correlation grouping as a model of its own") in scores.leaderboard_notes(board)


def test_bad_grouping_models_is_named():
    with pytest.raises(ValueError, match="grouping_models must be one of"):
        scores.operational(_records(), grouping_models="mine")


def test_cli_leaderboard_options(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "stebkit", "leaderboard", "--help"],
                          capture_output=True, text=True, check=True)
    for option in ("--threshold", "--missing", "--grouping-models", "--configuration",
                   "--min-tasks", "--models-file", "--unlisted"):
        assert option in proc.stdout


# ---------------------------------------------------------------- the reference's edges
# Two datasets whose model rankings correlate exactly at the cut by scipy's Spearman
# (0.5 with 3 models; 0.49999999999999994 with tied values at 5 and 6 models, whose
# distance 1 - rho rounds to 0.5), and a third ranking the models the other way. The
# reference merges the first two at the 0.5 cut; a product of centred ranks
# (0.4999999999999999, distance 0.5000000000000001) splits them.
RANK_TIES = {3: ((1, 3, 2), (2, 3, 1)),
             5: ((3, 5, 1, 3, 3), (3, 2, 1, 1, 1)),
             6: ((6, 6, 2, 1, 3, 2), (6, 4, 2, 2, 1, 4))}


def _tied_records(n: int) -> pd.DataFrame:
    a, b = RANK_TIES[n]
    rows = []
    for i in range(n):
        values = {"d1": a[i] / 10, "d2": b[i] / 10, "d3": 1 - a[i] / 10}
        rows += [{"model": f"m{i}", "dataset": d, "task": "clustering", "value": v,
                  "episode_size": 1, "episodes_per_label": 50} for d, v in values.items()]
        rows.append({"model": f"m{i}", "dataset": "r1", "task": "retrieval",
                     "value": (i + 1) / 10, "episode_size": -1, "episodes_per_label": 1})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("n", sorted(RANK_TIES))
def test_a_correlation_exactly_at_the_cut_decides_as_scipys(n):
    df = _tied_records(n)
    matrix = df[df["task"] == "clustering"].pivot(index="model", columns="dataset",
                                                  values="value")
    rho = spearmanr(matrix["d1"], matrix["d2"])[0]
    assert scores.dataset_correlation(matrix).loc["d1", "d2"] == rho  # bit-equal
    assert 1 - rho == 0.5
    tasks, steb = reference_steb(df, min_models=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = scores.operational(df, n_resamples=0, min_models=1)
    assert sorted(map(sorted, op.tasks["clustering"].groups.values())) == [["d1", "d2"],
                                                                          ["d3"]]
    for task in tasks.columns:
        assert op.task_scores[task].to_numpy() == pytest.approx(
            tasks[task].reindex(op.models).to_numpy(), abs=1e-12)
    assert op.steb.to_numpy() == pytest.approx(steb.reindex(op.models).to_numpy(), abs=1e-12)


def _configured_records(seed: int = 3) -> pd.DataFrame:
    """Five models, two tasks, four datasets each, every dataset at several
    configurations with other values: 10_10, 1_10, 1_100 and 1_50 (string order); m1
    lacks 10_10 on clus_0 (failed) and on clus_1 (absent), m2 has only 1_50 on clus_2."""
    rng = np.random.default_rng(seed)
    rows = []
    for task, size in (("clustering", 1), ("retrieval", -1)):
        for d in range(4):
            for folder in ("1_50", "1_100", "10_10", "1_10"):
                s, per = (int(x) for x in folder.split("_"))
                s = s if size == 1 else -s
                rows += [{"model": f"m{i}", "dataset": f"{task[:4]}_{d}", "task": task,
                          "episode_size": s, "episodes_per_label": per,
                          "value": rng.uniform(0.2, 0.9)} for i in range(5)]
    df = pd.DataFrame(rows)
    folder = df["episode_size"].abs().astype(str) + "_" + df["episodes_per_label"].astype(str)
    m1, m2 = df["model"].eq("m1"), df["model"].eq("m2")
    df.loc[m1 & df["dataset"].eq("clus_0") & folder.eq("10_10"), "value"] = np.nan
    absent = ((m1 & df["dataset"].eq("clus_1") & folder.eq("10_10"))
              | (m2 & df["dataset"].eq("clus_2") & ~folder.eq("1_50")))
    return df[~absent].reset_index(drop=True)


def test_each_model_enters_with_its_first_configuration_in_string_order():
    df = _configured_records()
    tasks, steb = reference_steb(df, threshold=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = scores.operational(df, n_resamples=0)
        board = scores.leaderboard(df, with_ci=False)
    for task in tasks.columns:
        assert op.task_scores[task].to_numpy() == pytest.approx(
            tasks[task].reindex(op.models).to_numpy(), abs=1e-12)
    assert op.steb.to_numpy() == pytest.approx(steb.reindex(op.models).to_numpy(), abs=1e-12)
    used = op.configs.set_index(["task", "dataset", "model"])["configuration"]
    assert used["clustering", "clus_3", "m0"] == "10_10"  # 10_10 < 1_10 < 1_100 < 1_50
    assert used["retrieval", "retr_0", "m4"] == "-10_10"
    assert used["clustering", "clus_0", "m1"] == "1_10"  # its 10_10 failed
    assert used["clustering", "clus_1", "m1"] == "1_10"  # no 10_10 record
    assert used["clustering", "clus_2", "m2"] == "1_50"
    notes = scores.leaderboard_notes(board)
    assert any(line.startswith("operational score, clustering on clus_0: the models' numbers "
                               "come from different configurations") and "m1 1_10" in line
               and "m0 10_10" in line for line in notes)
    assert any(line.startswith("operational score, clustering: clus_3 at 10_10 (of 10_10, "
                               "1_10, 1_100, 1_50)") for line in notes)


def test_the_preset_size_first_rule_is_a_recipe_option():
    # every model at the preset's first size (1; retrieval -1), then its first folder
    # holding a value: 1_10 here; m2's clus_2 only at 1_50
    df = _configured_records()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = scores.operational(df, n_resamples=0, configuration="preset_size_first")
    used = op.configs.set_index(["task", "dataset", "model"])["configuration"]
    assert used["clustering", "clus_3", "m0"] == "1_10"
    assert used["clustering", "clus_2", "m2"] == "1_50"
    assert op.recipe == scores.ScoreRecipe(configuration="preset_size_first")


def test_the_models_file_scores_only_the_models_it_lists(tmp_path):
    df = _records()
    listed = tmp_path / "models_all.txt"
    listed.write_text("# the models of a leaderboard\norg/style-a\nstyle-b\n\nx/semantic-a\n"
                      "y/semantic-b\nz/random\n", encoding="utf-8")
    allowed = {"style-a", "style-b", "semantic-a", "semantic-b", "random"}
    tasks, steb = reference_steb(df, allowed=allowed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = scores.operational(df, n_resamples=0, models_file=listed)
    assert set(op.models) == allowed
    assert op.steb.to_numpy() == pytest.approx(steb.reindex(op.models).to_numpy(), abs=1e-12)


def test_the_recipe_prints_what_differs_and_refuses_bad_values():
    assert repr(scores.ScoreRecipe()) == "ScoreRecipe()"
    assert repr(scores.ScoreRecipe(threshold=1.0, grouping={"a": "g"}, min_tasks=1)) == (
        "ScoreRecipe(grouping={'a': 'g'}, threshold=1.0, min_tasks=1)")
    assert scores.ScoreRecipe(exclude=["non_english", "semantic_control"]).changed() == []
    import stebkit
    assert stebkit.ScoreRecipe is scores.ScoreRecipe
    for bad, match in ((dict(threshold=float("nan")), "threshold must be a finite number"),
                       (dict(threshold=-0.5), "threshold must be a finite number"),
                       (dict(threshold=float("inf")), "threshold must be a finite number"),
                       (dict(missing="stebkit"), "missing must be one of 'drop_datasets'"),
                       (dict(grouping="ward"), "grouping must be one of 'correlation'"),
                       (dict(configuration="x"), "configuration must be one of 'first_folder'"),
                       (dict(min_models=0), r"min_models must be an int in \[1, "),
                       (dict(min_tasks=True), "min_tasks must be an int")):
        with pytest.raises(ValueError, match=match):
            scores.ScoreRecipe(**bad)
    with pytest.raises(TypeError, match="unknown score recipe setting 'complete'"):
        scores.operational(_records(), complete=True)


@pytest.mark.parametrize("flags", [["--threshold", "nan"], ["--threshold", "-1"],
                                   ["--min-tasks", "0"], ["--missing", "former"]])
def test_a_bad_recipe_option_exits_with_status_2(tmp_path, flags):
    proc = subprocess.run([sys.executable, "-m", "stebkit", "leaderboard",
                           str(tmp_path), *flags], capture_output=True, text=True)
    assert proc.returncode == 2
    assert f"{flags[0]} must be" in proc.stderr or "invalid choice" in proc.stderr


def test_a_leaderboard_with_a_recipe_copies_and_pickles():
    import copy
    import pickle

    recipe = scores.ScoreRecipe(grouping={"clus_0": "g", "clus_1": "g"}, min_tasks=1)
    assert pickle.loads(pickle.dumps(recipe)) == recipe == copy.deepcopy(recipe)
    board = scores.leaderboard(_configured_records(), recipe=recipe, with_ci=False)
    assert board.copy().attrs["recipe"] == recipe
    assert scores.leaderboard_summary(board)[-1] == (
        "Recipe: ScoreRecipe(grouping={'clus_0': 'g', 'clus_1': 'g'}, min_tasks=1), not the "
        "reference's newest aggregation")


def test_a_model_without_whole_task_families_is_shown_unranked_with_a_note():
    # "part" has results in one family of two: its STEB score (its retrieval score alone)
    # would top the board; it is shown, unranked, after the ranked models
    df = _records()
    df = df[df["task"].isin(["clustering", "retrieval"])]
    part = df[(df["model"] == "style-a") & (df["task"] == "retrieval")].assign(
        model="part", value=0.99)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board = scores.leaderboard(pd.concat([df, part]), with_ci=False)
    row = board.set_index("model").loc["part"]
    assert pd.isna(row["rank"]) and row["steb_score"] == pytest.approx(row["retrieval"])
    ranked = board[board["rank"].notna()]
    assert ranked["rank"].tolist() == list(range(1, len(ranked) + 1))
    assert board["model"].tolist().index("part") == len(ranked)  # after the ranked ones
    assert board.attrs["missing_families"] == {"part": ["clustering"]}
    assert ("part: unranked, no score in clustering (its STEB score is the mean of the "
            "other task families, not comparable)") in scores.leaderboard_notes(board)
    assert "part" not in {r["model"] for r in board.attrs["significance"]
                          if r["kind"] == "adjacent"}


def test_a_threshold_beyond_the_float_range_is_the_documented_value_error():
    with pytest.raises(ValueError, match="threshold must be a finite number.*got 1000"):
        scores.ScoreRecipe(threshold=10**400)
    assert scores.ScoreRecipe(threshold=2).threshold == 2  # an int in range stays valid


def test_an_unknown_exclusion_is_refused_with_the_valid_names():
    df = _records()
    with pytest.raises(ValueError, match=r"exclude names \['nope'\], neither 'non_english', "
                                         r"'semantic_control' nor .*'all__0', 'all__1'"):
        scores.operational(df, exclude=("semantic_control", "nope"), n_resamples=0)
    # a dataset of the results, or one of stebkit's catalogue absent here, is a valid name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = scores.operational(df, exclude=("clus_0", "ag_news"), n_resamples=0)
    assert op.excluded == {"clus_0": ["clus_0"]}


def test_a_declared_grouping_is_frozen_and_the_recipe_hashable():
    given = {"g": ["clus_0", "clus_1"], "clus_2": "h"}
    recipe = scores.ScoreRecipe(grouping=given, min_tasks=1)
    given["g"].append("clus_3")  # the caller's dict changes, the recipe does not
    assert recipe.grouping["g"] == ("clus_0", "clus_1")
    with pytest.raises(TypeError):
        recipe.grouping["g"] = "x"
    same = scores.ScoreRecipe(grouping={"clus_2": "h", "g": ("clus_0", "clus_1")},
                              min_tasks=1)
    assert same == recipe and hash(same) == hash(recipe) and len({same, recipe}) == 1
    with pytest.raises(ValueError, match=r"grouping\['g'\] must be a group name or a list"):
        scores.ScoreRecipe(grouping={"g": 3})


def test_an_episode_size_no_record_has_names_the_sizes_there(tmp_path):
    df = _records().assign(episode_size=[1, 2] * (len(_records()) // 2))
    with pytest.raises(ValueError, match=r"no record has episode size 3 .*episode size\(s\) "
                                         r"1, 2$"):
        scores.operational(df, episode_size=3, n_resamples=0)
    from result_records import result_record

    from stebkit.records.results import record_path, write_record
    for model in ("a", "b", "c"):
        write_record(record_path(tmp_path, model, "d", "retrieval", -1),
                     result_record(model, "d", "retrieval", -1, 1, main="mrr", mrr=0.4))
    for size, said in (("3", "no record has episode size 3"), ("3", "episode size(s) -1"),
                       ("0", "--episode-size must be an int in [1, 1000000) or -1, got 0")):
        proc = subprocess.run([sys.executable, "-m", "stebkit", "leaderboard", str(tmp_path),
                               "--episode-size", size], capture_output=True, text=True)
        assert proc.returncode == 2
        assert said in proc.stderr
        assert "after exclusions" not in proc.stderr


def test_only_models_the_reference_does_not_score_is_said_so():
    from stebkit.errors import NothingToScore

    lftk = _records().query("model == 'lftk'")
    with pytest.raises(NothingToScore, match="no model to score: the results hold only lftk, "
                                             "which the reference does not score"):
        scores.operational(lftk, n_resamples=0)
