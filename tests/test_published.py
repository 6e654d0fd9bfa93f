"""The published STEB leaderboard shipped as package data, and comparisons with it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stebkit.scores import published
from stebkit.scores.published import (
    OBJECT_OF_STUDY,
    PUBLISHED_FILE,
    TASK_COLUMNS,
    comparability,
    published_leaderboard,
    read_published,
    with_published,
)


def test_forty_rows_with_source_and_categories() -> None:
    board = published_leaderboard(percent=True)
    assert len(board) == 40 and board["model"].is_unique
    src = board.attrs["source"]
    assert src["repository"] == "rrivera1849/STEB" and src["path"] == "docs/leaderboard.md"
    assert len(src["commit"]) == 40 and src["retrieved"]
    assert set(board["paper_category"]) == {"style", "semantic", "MLM", "CLM", "non-neural"}
    # two cells read off the published page by hand
    top = board.iloc[0]
    assert (top["model"], top["steb_score"], top["retrieval"]) == ("LUAR-CRUD", 50.82, 77.64)
    mpnet = board.set_index("model").loc["all-mpnet-base-v2"]
    assert (mpnet["steb_score"], mpnet["definitional_score"]) == (40.34, 36.02)


def test_categories_agree_with_the_zoo() -> None:
    from stebkit.encoders.zoo import MODELS

    board = published_leaderboard()
    for model, category in zip(board["model"], board["model_category"], strict=True):
        assert MODELS[model].category == category, model


def test_every_aggregate_is_the_mean_of_its_parts() -> None:
    board = published_leaderboard(percent=True)
    assert len(board) == 40
    steb = board[list(TASK_COLUMNS)].to_numpy().mean(axis=1)
    oos = board[list(OBJECT_OF_STUDY)].to_numpy().mean(axis=1)
    axes = board[["object_of_study", "linguistic_features",
                  "content_independence"]].to_numpy().mean(axis=1)
    np.testing.assert_allclose(steb, board["steb_score"], atol=0.01)
    np.testing.assert_allclose(oos, board["object_of_study"], atol=0.01)
    np.testing.assert_allclose(axes, board["definitional_score"], atol=0.01)
    # fractions are the same numbers / 100
    frac = published_leaderboard()
    np.testing.assert_allclose(frac["steb_score"] * 100, board["steb_score"])


def _broken(tmp_path, old: str, new: str):
    text = PUBLISHED_FILE.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "board.csv"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize("old, new, message", [
    ("LUAR-CRUD,style,19.65", "LUAR-CRUD,style,n/a", "'clustering': 'n/a' is not a number"),
    ("# commit:", "# kommit:", "'# commit: ...' missing"),
    (",probing,", ",probe,", "unknown ['probe']"),
    ("star,style", "star,stylish", "category 'stylish'"),
    ("star,style", "LUAR-CRUD,style", "'LUAR-CRUD' is empty or repeated"),
])
def test_malformed_table_names_file_and_problem(tmp_path, old, new, message) -> None:
    path = _broken(tmp_path, old, new)
    with pytest.raises(ValueError, match="published leaderboard") as err:
        read_published(path)
    assert str(path) in str(err.value) and message in str(err.value)


def _record(model: str, dataset: str, task: str, *, smoke: bool = False,
            per_label: int = 50) -> dict:
    return {"model": {"name": model}, "dataset": {"name": dataset}, "task": task,
            "status": "ok", "episodes_per_label": per_label, "protocol": {"smoke": smoke}}


def test_comparability_names_missing_extra_and_protocol() -> None:
    comp = comparability([_record("m", "stel-contraction", "order_alignment"),
                          _record("m", "blog_age", "clustering", smoke=True)])
    assert not comp.comparable
    assert comp.extra == ["stel-contraction"]
    assert any(p.startswith("m/blog_age/clustering: smoke=True") for p in comp.protocol)
    assert "blog_age/all_to_all_pairs" in comp.missing
    assert "blog_age/clustering" not in comp.missing
    # semantic-control and non-English datasets are not required (default exclusions)
    assert not any(m.startswith(("ag_news/", "emotion/", "authbench_attribution_de/"))
                   for m in comp.missing)
    # nor the Fisher sets, which the reference's benchmark preset leaves out
    assert not any(m.startswith("fisher_") for m in comp.missing)
    reasons = comp.reasons(limit=2)
    assert "are missing" in reasons and "more)" in reasons


def test_full_coverage_is_comparable() -> None:
    from stebkit.datasets import get_spec
    from stebkit.tasks import FAMILIES

    records = []
    for key in sorted(published._required()):
        dataset, task = key
        per_label = FAMILIES[task].config(get_spec(dataset).tasks[task]).episodes_per_label
        records.append(_record("m", dataset, task, per_label=per_label))
    assert comparability(records).comparable
    mine = pd.DataFrame({"rank": [1], "model": ["m"], "model_category": ["style"],
                         "steb_score": [0.5072]})
    both = with_published(mine, records)
    assert len(both) == 41 and both["comparable"].all()
    # ranked together: 0.5072 sits between star (50.75) and LUAR-MUD (50.70)
    assert both.set_index("model").loc["m", "rank"] == 3


def test_lite_results_are_never_silently_ranked() -> None:
    records = [_record("m", "stel-contraction", "order_alignment")]
    mine = pd.DataFrame({"rank": [1], "model": ["m"], "model_category": ["style"],
                         "steb_score": [0.99]})
    with pytest.raises(ValueError, match="not comparable.*--allow-partial"):
        with_published(mine, records)
    both = with_published(mine, records, allow_partial=True)
    row = both[both["suite"] == "this run"].iloc[0]
    assert row["model"] == "m [not comparable]" and pd.isna(row["rank"])
    assert not row["comparable"]
    assert both["rank"].dropna().tolist() == sorted(both["rank"].dropna().tolist())
    assert both["rank"].max() == 40


def _write_results(root) -> None:
    from stebkit.records.results import record_path, write_record

    for m, (a, b) in {"m1": (0.2, 0.6), "m2": (0.4, 0.5), "m3": (0.3, 0.7)}.items():
        for dataset, task, value in (("stel-contraction", "order_alignment", a),
                                     ("sotu-retrieval", "retrieval", b)):
            metric = "distractor_acc_mean" if task == "order_alignment" else "mrr"
            write_record(record_path(root, m, dataset, task, 1), {
                "schema": 1, "model": {"name": m, "category": "style"},
                "dataset": {"name": dataset, "category": "idiolect", "languages": ["en"]},
                "task": task, "episode_size": 1, "episodes_per_label": 10,
                "protocol": {"smoke": False}, "main_metric": metric,
                "metrics": {metric: value, "acc_mean": value}, "status": "ok"})


def test_cli_leaderboard_published(tmp_path, capsys) -> None:
    from stebkit import cli

    _write_results(tmp_path)
    assert cli.main(["leaderboard", str(tmp_path), "--published"]) == 2
    err = capsys.readouterr().err
    assert "not comparable with the published STEB leaderboard" in err
    assert "sotu-retrieval" in err and "--allow-partial" in err
    assert cli.main(["leaderboard", str(tmp_path), "--published", "--allow-partial",
                     "--format", "md"]) == 0
    captured = capsys.readouterr()
    assert "| 1 | LUAR-CRUD | style |" in captured.out
    assert "| – | m3 \\[not comparable\\] | style |" in captured.out  # unranked, escaped
    assert "comparable |" not in captured.out  # a label column, not a score column
    assert "4c7897da14fd" in captured.err and "left unranked" in captured.err
    assert cli.main(["leaderboard", str(tmp_path), "--allow-partial"]) == 2


def test_figure1_of_the_published_numbers_marks_the_best_per_category(tmp_path) -> None:
    from stebkit import plots

    board = published_leaderboard()
    res = plots.figure1(board, directory=tmp_path, stem="published", mark_best=True)
    ax = res.figure.axes[0]
    stars = [c for c in ax.collections if c.get_offsets().shape[0] == 1]
    assert len(stars) == 5
    best = board.groupby("model_category")["steb_score"].max().mul(100).sort_values()
    np.testing.assert_allclose(sorted(s.get_offsets()[0, 0] for s in stars), best.to_numpy())
    assert "best in its category" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(ax.get_yticklabels()) == 40
