"""The STEB probing sets: one row per text and feature it is probed on."""

from __future__ import annotations

import pytest
from steb_files import jsonl, read


def _line(text, values, labels, splits):
    feats = ["t_word", "n_adj"]
    row = {"text": text, **dict(zip(feats, values, strict=True))}
    row.update({f"label_{f}": v for f, v in zip(feats, labels, strict=True)})
    row.update({f"split_{f}": v for f, v in zip(feats, splits, strict=True)})
    return {**row, "label": labels, "split": splits}


@pytest.mark.parametrize("name", ["probing_amazon", "probing_blog", "probing_reddit",
                                  "probing_stackexchange"])
def test_probing_sets_long_format_per_feature(built, name):
    lines = [_line("first text", [40, 2.0], [1, None], ["train", None]),
             _line("second text", [33, 5.0], [0, 4], ["val", "test"]),
             _line("first text", [40, 2.0], [1, None], ["train", None])]
    built.put_spec(name, jsonl(lines))
    records, dropped = read(name)
    assert records[["text", "label", "split", "feature", "value"]].values.tolist() == [
        ["first text", "1", "train", "t_word", 40.0],
        ["second text", "0", "validation", "t_word", 33.0],
        ["second text", "4", "test", "n_adj", 5.0]]
    assert dropped == [f"{name}: dropped 1 of 3 items (lines repeated verbatim)"]


def test_probing_file_with_lists_only_names_tasks_by_index(built):
    built.put_spec("probing_blog", jsonl([{"text": "a", "label": [2, 1],
                                            "split": ["test", "train"]}]))
    records, _ = read("probing_blog")
    assert records[["feature", "label", "split"]].values.tolist() == [
        ["task_0", "2", "test"], ["task_1", "1", "train"]]


def test_probing_line_without_split_lists_is_an_error(built):
    built.put_spec("probing_reddit", jsonl([{"text": "a", "label": [1]}]))
    with pytest.raises(ValueError, match=r"record 1 lacks the field\(s\) \['split'\]"):
        read("probing_reddit")
