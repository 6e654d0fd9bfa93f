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


def reference_steb(frame: pd.DataFrame, *, threshold: float = 0.5,
                   min_models: int = 3) -> tuple[pd.DataFrame, pd.Series]:
    """Task scores and STEB score as the newest reference computes them."""
    task_scores = {}
    for task, rows in frame.groupby("task"):
        rows = rows[~rows["model"].isin(EXCLUDED) & rows["value"].notna()]
        matrix = rows.pivot(index="model", columns="dataset", values="value")
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
    return table, table.mean(axis=1)


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
        former = scores.leaderboard(df, with_ci=False, threshold=1.0, complete_datasets=False,
                                    grouping_models="stebkit").set_index("model")
    shared = former.index.intersection(steb.index)
    assert np.abs(former.loc[shared, "steb_score"] - steb[shared]).max() > 1e-3
    assert scores.leaderboard_summary(board)[-1].startswith(
        "Recipe: the reference's newest aggregation")


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
            "Recipe: not the reference's newest; differs in " + (f"threshold={t!r}"))


def test_a_task_with_fewer_than_three_models_has_no_operational_score():
    # retrieval: m1, m2 and lftk (not scored) -> 2 models: skipped, by hand the STEB score
    # is the clustering score alone: m1 (0.2 + 0.4) / 2 = 0.3 (one group: d1 and d2 rank
    # the models alike), m2 0.5, m3 0.7 (no retrieval result, so not part of that task).
    rows = [(m, d, "clustering", v) for m, vals in
            {"m1": (0.2, 0.4), "m2": (0.4, 0.6), "m3": (0.6, 0.8)}.items()
            for d, v in zip(("d1", "d2"), vals, strict=True)]
    rows += [(m, "r1", "retrieval", v) for m, v in {"m1": 0.9, "m2": 0.1, "lftk": 0.5}.items()]
    df = pd.DataFrame(rows, columns=["model", "dataset", "task", "value"])
    board = scores.leaderboard(df, with_ci=False).set_index("model")
    assert "retrieval" not in board.columns
    assert board["steb_score"].to_dict() == pytest.approx({"m1": 0.3, "m2": 0.5, "m3": 0.7})
    notes = scores.leaderboard_notes(board)
    assert ("retrieval: no operational score, only 2 model(s) with results (the correlation "
            "grouping needs 3), as the reference skips it") in notes
    assert "not scored (the reference's excluded models): lftk" in notes
    _, steb = reference_steb(df)
    assert steb.to_dict() == pytest.approx(board["steb_score"].to_dict())


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
        scores.operational(df, n_resamples=0, grouping_models="stebkit")
    assert len(caught) == 1 and caught[0].filename == __file__
    assert str(caught[0].message).startswith("correlation grouping from 3 model(s)")
    assert str(caught[0].message).endswith(
        "left out of the grouping, still scored: random, tfidf-char (grouping_models='stebkit')")
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
    for option in ("--threshold", "--drop-models", "--grouping-models"):
        assert option in proc.stdout
