"""The read side is built once: one catalogue per leaderboard, each record read as the
score reads it once, each frame of a set of results built once."""

from __future__ import annotations

import re

import pytest
from result_records import result_record

from stebkit import cli
from stebkit.records import catalogue
from stebkit.records.results import Results, record_path, write_record

DATASETS = {"gum-summaries": "clustering", "masc-register": "clustering",
            "nps-chat-age": "clustering", "sotu-retrieval": "retrieval"}
"""Lite datasets (registered: the catalogue gives their metadata) and a task of each."""


@pytest.fixture()
def folder(tmp_path):
    """Four models' records on the lite datasets of :data:`DATASETS`."""
    for k, model in enumerate(("random", "a", "b", "c")):
        for j, (dataset, task) in enumerate(DATASETS.items()):
            value = round(0.1 + 0.2 * k + 0.01 * j, 3)
            rec = result_record(model, dataset, task, size=1 if task == "clustering" else -1,
                                main="mrr" if task == "retrieval" else "v_measure",
                                **({"mrr": value} if task == "retrieval"
                                   else {"v_measure": value}))
            write_record(record_path(tmp_path, model, dataset, task, rec["episode_size"]),
                         rec)
    return tmp_path


class Counted(catalogue.Catalogue):
    """A catalogue that counts how often one is made and how many records it reads."""

    made = viewed = 0

    def __init__(self) -> None:
        Counted.made += 1
        super().__init__()

    def view(self, record):
        Counted.viewed += 1
        return super().view(record)


@pytest.mark.parametrize("fmt", ["latex", "csv"])
@pytest.mark.filterwarnings("ignore:LaTeX table .* is scaled to")  # 4 models, 6 axes
def test_one_catalogue_per_leaderboard_and_one_view_per_record(folder, monkeypatch, capsys,
                                                               fmt):
    monkeypatch.setattr(catalogue, "Catalogue", Counted)
    Counted.made = Counted.viewed = 0
    assert cli.main(["leaderboard", str(folder), "--format", fmt,
                     "--models", "random", "a", "b"]) == 0
    rows = [re.split(r" & |,", line)[1] for line in capsys.readouterr().out.splitlines()
            if re.match(r"(\d+)?( & |,)", line)]
    assert {"a", "b"} <= set(rows) and "c" not in rows  # the models asked for
    assert (Counted.made, Counted.viewed) == (1, 16)  # 4 models x 4 datasets, read once


def test_frames_are_built_once_and_handed_out_as_copies(folder):
    results = Results.load(folder)
    assert len(results.views) == len(results.records) == 16
    assert [v.dataset_category for v in results.views[:4]] == \
        [catalogue.Catalogue().dataset(d).category for d in sorted(DATASETS)]
    first = results.main_frame()
    first.loc[0, "value"] = -1.0  # a caller's change stays in its own copy
    again = results.main_frame()
    assert again.loc[0, "value"] == results.records[0].main_value != -1.0
    assert list(again["model"]) == [r.model_name for r in results.records]
    tidy = results.to_frame()
    assert results.to_frame().equals(tidy) and tidy is not results.to_frame()


def test_select_keeps_the_views_and_makes_no_catalogue(folder, monkeypatch):
    results = Results.load(folder)
    monkeypatch.setattr(catalogue, "Catalogue", Counted)
    Counted.made = 0
    some = results.select(lambda r: r.model_name in ("a", "b"))
    assert Counted.made == 0 and len(some) == 8 and some.root == results.root
    assert some.views == tuple(v for v in results.views if v.model in ("a", "b"))


def test_an_import_of_the_references_files_makes_one_catalogue(tmp_path, monkeypatch):
    from stebkit.records.steb_format import import_steb

    for model in ("m1", "m2", "m3"):
        f = tmp_path / "steb" / "STEL_register" / model / "1_100" / "order_alignment" / \
            "metrics.json"
        f.parent.mkdir(parents=True)
        f.write_text('{"acc_mean": 0.5, "distractor_acc_mean": 0.25}')
    monkeypatch.setattr(catalogue, "Catalogue", Counted)
    Counted.made = 0
    assert len(import_steb(tmp_path / "steb", tmp_path / "results")) == 3
    assert Counted.made == 1
