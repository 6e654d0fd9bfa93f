"""The records the definitional score takes: one episode configuration (size *and*
episodes per label) per dataset and task, the benchmark preset's as the reference's
``manual_cluster.py`` keeps it, else the run's own (the lite suite, the fast preset)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from result_records import result_record

from stebkit import scores
from stebkit.records.results import Results, record_path, write_record
from stebkit.runs.planning import plan

MAIN = {"clustering": "v_measure", "all_to_all_pairs": "auc",
        "order_alignment": "distractor_acc_mean"}


def _record(model: str, dataset: str, task: str, size: int, per_label: int,
            metrics: dict[str, float], category: str = "genre") -> dict:
    return result_record(model, dataset, task, size, per_label, main=MAIN[task],
                         category=category, protocol=None, **metrics)


def _write(root, rec: dict) -> None:
    # the layout of imported reference files: one file per episode configuration
    write_record(record_path(root, rec["model"]["name"], rec["dataset"]["name"], rec["task"],
                             rec["episode_size"], rec["episodes_per_label"]), rec)


def _board(results) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return scores.leaderboard(results, with_ci=False).set_index("model")


def test_only_the_benchmark_preset_configuration_enters_when_records_of_two_exist(tmp_path):
    # clustering on g1 and g2 at size 1 with 100 episodes per label (the fast preset's)
    # and with 50 (the benchmark preset's), and at size 2 with 50. By hand, only the
    # 1 x 50 records enter: genre = mean(g1, g2) = m1 0.3, m2 0.5, m3 0.7.
    values = {"g1": (0.2, 0.4, 0.6), "g2": (0.4, 0.6, 0.8)}
    for dataset, vals in values.items():
        for model, value in zip(("m1", "m2", "m3"), vals, strict=True):
            _write(tmp_path, _record(model, dataset, "clustering", 1, 100, {"v_measure": 0.95}))
            _write(tmp_path, _record(model, dataset, "clustering", 1, 50, {"v_measure": value}))
            _write(tmp_path, _record(model, dataset, "clustering", 2, 50, {"v_measure": 0.05}))
    results = Results.load(tmp_path)
    assert sorted(results.main_frame()["episodes_per_label"].unique()) == [50, 100]
    board = _board(results)
    expected = {"m1": 0.3, "m2": 0.5, "m3": 0.7}
    assert board["genre"].to_dict() == pytest.approx(expected)
    assert board["definitional_score"].to_dict() == pytest.approx(expected)
    assert board.attrs["definitional_configs"] == {
        "clustering": {"size 1 x 50 per label": ["g1", "g2"]}}
    notes = scores.leaderboard_notes(board)
    for dataset in values:
        assert (f"definitional score, clustering on {dataset}: records at size 1 x 100 per "
                "label left out (one configuration per dataset and task)") in notes
    assert not any("the run's own configuration" in line for line in notes)


def test_a_model_without_a_record_at_the_chosen_configuration_has_a_missing_cell():
    # g1: m1 and m2 at the benchmark's 1 x 50, m3 only at 1 x 100 (0.9). m3's 0.9 never
    # stands in: the newest reference's rule drops g1 (m3 lacks it), genre = g2 alone;
    # averaging what each model has (missing="drop_models"), m1 = (0.2 + 0.4) / 2.
    rows = [("m1", "g1", 50, 0.2), ("m2", "g1", 50, 0.4), ("m3", "g1", 100, 0.9),
            ("m1", "g2", 50, 0.4), ("m2", "g2", 50, 0.6), ("m3", "g2", 50, 0.8)]
    df = pd.DataFrame([{"model": m, "dataset": d, "task": "clustering", "episode_size": 1,
                        "episodes_per_label": n, "value": v, "language": "en",
                        "dataset_category": "genre"} for m, d, n, v in rows])
    de = scores.definitional(df, n_resamples=0)
    assert de.scores["genre"].to_dict() == pytest.approx({"m1": 0.4, "m2": 0.6, "m3": 0.8})
    loose = scores.definitional(df, n_resamples=0, missing="drop_models")
    assert loose.scores["genre"].to_dict() == pytest.approx({"m1": 0.3, "m2": 0.5, "m3": 0.8})
    assert de.configs[["dataset", "episodes_per_label", "benchmark"]].values.tolist() == [
        ["g1", "50", True], ["g2", "50", True]]


@pytest.mark.parametrize("smoke", [False, True])
def test_lite_suite_records_keep_their_definitional_score(tmp_path, smoke):
    # The lite suite's own episode configurations, as the planner makes them: clustering
    # and all-to-all pairs at sizes 1 and 2 with 10 per label, order alignment at 1 x 100
    # (asset-simplification: the benchmark's), 1 x 60 (bible-eras) and 1 x 80
    # (stel-emotives); a smoke run caps every count at 10. Every record enters at its
    # own configuration (size 1), none is lost.
    models = ["random", "function-words", "tfidf-char"]
    datasets = {"brown-genre": 0.0, "asset-simplification": 0.1, "bible-eras": 0.2,
                "stel-emotives": 0.3}
    units = plan(models, list(datasets), output_dir=tmp_path, smoke=smoke)
    configs = {(u.spec.name, u.task, u.episode_size, u.episodes_per_label) for u in units}
    oa = {d: n for d, t, _, n in configs if t == "order_alignment"}
    assert oa == ({"asset-simplification": 10, "bible-eras": 10, "stel-emotives": 10}
                  if smoke else {"asset-simplification": 100, "bible-eras": 60,
                                 "stel-emotives": 80})
    base = dict(zip(models, (0.1, 0.3, 0.5), strict=True))
    for u in units:
        b, k = base[u.model], datasets[u.spec.name]
        metrics = {"clustering": {"v_measure": b + 0.2 * (u.episode_size - 1)},
                   "all_to_all_pairs": {"auc": 0.5 + b / 2 + 0.2 * (u.episode_size - 1)},
                   "order_alignment": {"acc_mean": b + k, "distractor_acc_mean": (b + k) / 2},
                   }[u.task]
        rec = _record(u.model, u.spec.name, u.task, u.episode_size, u.episodes_per_label,
                      metrics, category=u.spec.category)
        write_record(record_path(tmp_path, u.model, u.spec.name, u.task, u.episode_size), rec)
    board = _board(Results.load(tmp_path))
    for model, b in base.items():
        genre = (b + 0.5 + b / 2) / 2  # size-1 clustering and all-to-all pairs
        register, time, features = b + 0.1, b + 0.2, b + 0.3  # acc_mean
        content = ((b + 0.1) + (b + 0.2) + (b + 0.3)) / 6  # distractor accuracy
        objects = (genre + register + time) / 3
        row = board.loc[model]
        assert row[["genre", "register", "time", "linguistic_features",
                    "content_independence"]].tolist() == pytest.approx(
            [genre, register, time, features, content])
        assert row["definitional_score"] == pytest.approx((objects + features + content) / 3)
    notes = scores.leaderboard_notes(board)
    own = "the run's own configuration (no record at the benchmark preset's"
    assert (f"definitional score, clustering: all 1 dataset(s) at size 1 x 10 per label, "
            f"{own} size 1 x 50 per label)") in notes
    if smoke:
        assert (f"definitional score, order_alignment: all 3 dataset(s) at size 1 x 10 per "
                f"label, {own} size 1 x 100 per label)") in notes
    else:  # asset-simplification is at the benchmark's 1 x 100: no line for it
        assert [n for n in notes if "order_alignment" in n] == [
            f"definitional score, order_alignment: bible-eras at size 1 x 60 per label, {own} "
            "size 1 x 100 per label)",
            f"definitional score, order_alignment: stel-emotives at size 1 x 80 per label, "
            f"{own} size 1 x 100 per label)"]


def test_the_run_configuration_is_the_one_most_models_have():
    # no benchmark record: size 1 (the preset's first size) and, at it, 10 per label
    # (two models) over 20 (one model); a tie would take the larger count.
    df = pd.DataFrame({"model": ["a", "b", "c", "a"], "dataset": "d", "task": "clustering",
                       "episode_size": [1, 1, 1, 2], "episodes_per_label": [10, 10, 20, 10],
                       "value": [0.1, 0.2, 0.3, 0.4]})
    configs = scores.episode_configs(df)
    assert configs[["episode_size", "episodes_per_label", "benchmark"]].values.tolist() == [
        [1, "10", False]]
    assert configs["left_out"].tolist() == [["size 1 x 20 per label"]]
    tie = df[df["model"] != "b"]
    assert scores.episode_configs(tie)["episodes_per_label"].tolist() == ["20"]
    # without the column (a hand-made frame) the size alone decides, as before
    plain = df.drop(columns="episodes_per_label")
    kept = scores.select_episode_config(plain, scores.episode_configs(plain))
    assert kept["value"].tolist() == [0.1, 0.2, 0.3]
