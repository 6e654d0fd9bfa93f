"""Authorship retrieval releases and speaker trials of the STEB catalogue.

Retrieval JSON lines (``read_retrieval_jsonl``: amazon, fanfiction, stackexchange)
    Every file of the release archive (sorted by name; hidden files, and files whose
    first line is not a JSON object, e.g. a README, are left out and counted) holds JSON
    lines with ``text``, ``label`` (the author) and ``is_query``; a true ``is_query``
    makes a query, anything else a target (the reference's
    ``_query``/``_target`` label suffix becomes the ``side`` column).
Speaker trials (``read_speaker_trials``)
    A list of trials, each two utterance lists and a 0/1 ``label`` (1: same speaker):
    RadioTalk's ``radiotalk_pairs.json`` (keys ``speaker 1``/``speaker 2``) or a Fisher
    ``<system>_test_<level>_trials.npy`` (keys ``call 1``/``call 2``, a pickled NumPy
    array, from a local folder: the data is under an LDC licence). Utterances that are
    not text (str, int or float) or are blank are left out; trials with an empty side
    or another label are skipped (counted). As the reference, each side stays a list of
    utterances and the pair task encodes its first element: a side's text is its first
    kept utterance, and the later utterances are not encoded (counted). Labels are the
    reference's ``trial_<index>_<true|false>``, Fisher's too: its later loader
    (``steb/loaders/fisher.py`` at commit 7e89bb3) writes ``_true``/``_false`` where the
    first wrote ``_1``/``_0``, and the reference's pair task tests
    ``endswith("_true")``.
"""

from __future__ import annotations

import io
import json
import posixpath
from typing import Any

import pandas as pd

from ._files import json_lines, load_json, require_keys, source_tree
from ._steb import frame, pair_rows, smoke_cut, trial_label
from .text import report_dropped

__all__ = ["read_retrieval_jsonl", "read_speaker_trials", "trial_records"]


def read_retrieval_jsonl(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Queries and targets of an authorship-retrieval release."""
    tree = source_tree(spec)
    names = sorted(n for n in tree.names() if not posixpath.basename(n).startswith("."))
    rows, other = [], 0
    for name in names:
        text = tree.text(name)
        if not _starts_as_json(text):
            other += 1
            continue
        for n, row in enumerate(json_lines(text, f"{tree.label}: {name}"), 1):
            require_keys(row, ("text", "label"), f"{tree.label}: {name} record {n}")
            rows.append({"text": row["text"], "label": str(row["label"]),
                         "side": "query" if row.get("is_query") else "target"})
    report_dropped(spec.name, other, len(names), "files of the release that are not JSON "
                   "lines (e.g. a README)")
    if not rows:
        raise ValueError(f"dataset {spec.name!r}: {tree.label} holds no records")
    return smoke_cut(frame(rows, ("text", "label", "side")), smoke)


def _starts_as_json(text: str) -> bool:
    """Whether the first non-blank line of ``text`` is a JSON object."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        return isinstance(json.loads(first), dict)
    except ValueError:
        return False


def _utterances(value: Any) -> list[str]:
    """The kept utterances of one side, in order (text, int or float, not blank)."""
    items = value.tolist() if hasattr(value, "tolist") else value
    if not isinstance(items, (list, tuple)):
        return []
    return [str(u) for u in items if isinstance(u, (str, int, float)) and str(u).strip()]


def trial_records(trials: list[Any], sides: tuple[str, str], dataset: str) -> pd.DataFrame:
    """Pair records from speaker trials (see the module docstring).

    >>> trial_records([{"label": 1, "a": [" ", "hi", "there"], "b": ["yo"]},
    ...                {"label": 0, "a": [], "b": ["x"]}], ("a", "b"), "toy")[
    ...     ["text", "label", "same"]].values.tolist()
    [['hi', 'trial_0_true', True], ['yo', 'trial_0_true', True]]
    """
    rows, skipped, kept, later = [], 0, 0, 0
    for index, trial in enumerate(trials):
        label = trial.get("label") if isinstance(trial, dict) else None
        first = _utterances(trial.get(sides[0])) if isinstance(trial, dict) else []
        second = _utterances(trial.get(sides[1])) if isinstance(trial, dict) else []
        if label not in (0, 1) or not first or not second:
            skipped += 1
            continue
        same = label == 1
        kept += len(first) + len(second)
        later += len(first) + len(second) - 2
        rows += pair_rows(str(index), same, trial_label(index, same), first[0], second[0])
    report_dropped(dataset, skipped, len(trials), "trials without a 0/1 label or with an "
                   "empty side")
    report_dropped(dataset, later, kept, "utterances after the first of a side: the "
                   "reference's pair task encodes only the first")
    return frame(rows, ("text", "label", "pair", "same"))


def read_speaker_trials(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """RadioTalk pairs (JSON, in the release archive) or Fisher trials (.npy, local)."""
    opts = dict(spec.reader_options)
    if opts.get("format") == "npy":
        import numpy as np

        path = _local_file(spec, opts["file"])
        try:
            trials = np.load(io.BytesIO(path.read_bytes()), allow_pickle=True).tolist()
        except (ValueError, OSError, EOFError) as err:
            raise ValueError(f"dataset {spec.name!r}: {path} is not a NumPy trial array "
                             f"({err})") from err
        sides = ("call 1", "call 2")
    else:
        tree = source_tree(spec)
        name = tree.find(f"*{opts['file']}", what=opts["file"])
        trials = load_json(tree.text(name), f"{tree.label}: {name}")
        sides = ("speaker 1", "speaker 2")
    if not isinstance(trials, list):
        raise ValueError(f"dataset {spec.name!r}: the trial file holds a "
                         f"{type(trials).__name__}, expected a list of trials")
    if trials and isinstance(trials[0], dict):
        require_keys(trials[0], ("label", *sides), f"dataset {spec.name!r}: trial 0")
    return smoke_cut(trial_records(trials, sides, spec.name), smoke)


def _local_file(spec: Any, leaf: str) -> Any:
    from stebkit.sources import local_source

    folder = local_source(spec.source.local, request=spec.license.url or spec.license.name,
                          what=f"{leaf}: {spec.source.note}")
    path = folder / leaf
    if not path.is_file():
        from stebkit.errors import DataUnavailable

        raise DataUnavailable(f"dataset {spec.name!r}: {path} does not exist; the local "
                              f"folder {folder} must hold {leaf}")
    return path
