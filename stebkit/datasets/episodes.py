"""Episodes: from a dataset's records to the inputs of one task family.

The builders themselves belong to the task families (:mod:`stebkit.tasks.inputs`,
named by each :class:`stebkit.tasks.TaskFamily`); this module is the public entry point
that builds, pools and runs them for one family:

* :func:`build_episodes` — records -> :class:`TaskInput` of a family (the reference's
  sampling by default: the first N texts of each label in record order);
* :func:`pool_episodes` / :func:`shape_items` — text or episode embeddings -> items;
* :func:`run_task` — the family's task function on the items;
* :func:`unit_ids` — ids of the units the family's bootstrap resamples.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from stebkit.tasks import AUTO, FAMILIES, auto_episodes
from stebkit.tasks.inputs import (
    SAMPLING,
    SIDES,
    SPLITS,
    FilterWarning,
    TaskInput,
    _check_size,
    _valid_rows,
    pool_episodes,
    shape_items,
)

__all__ = ["SAMPLING", "SIDES", "SPLITS", "FilterWarning", "TaskInput", "build_episodes",
           "pool_episodes", "resolve_episodes_per_label", "run_task", "shape_items",
           "unit_ids"]


def resolve_episodes_per_label(records: Any, task: str, episode_size: int,
                               episodes_per_label: int | str, *, dataset: str = "") -> int:
    """Episodes per label, resolving ``"auto"`` as the reference does.

    ``"auto"``: the number of valid texts of the smallest label divided by the episode
    size, clamped to 25..200 (:func:`stebkit.tasks.auto_episodes`). An int is returned
    as given (after checking it).

    >>> import pandas as pd
    >>> records = pd.DataFrame({"text": [f"t{i}" for i in range(130)],
    ...                         "label": ["a"] * 90 + ["b"] * 40})
    >>> resolve_episodes_per_label(records, "clustering", 1, "auto")
    40
    """
    if episodes_per_label != AUTO:
        return episodes_per_label  # type: ignore[return-value]
    if episode_size == -1:
        return 1
    rows, _ = _valid_rows(records, ["label"])
    counts = rows["label"].astype(str).value_counts()
    if counts.empty:
        where = f"dataset {dataset!r}, " if dataset else ""
        raise ValueError(f"{where}task {task!r}, field 'episodes_per_label': 'auto' needs "
                         "labelled texts, and the records have none")
    return auto_episodes(int(counts.min()), int(episode_size))


def build_episodes(
    records: Any, task: str, *, episode_size: int, episodes_per_label: int | str,
    seed: int = 42, sampling: str = "reference",
) -> TaskInput:
    """Build the episodes of one task configuration from a dataset's records.

    Parameters
    ----------
    records : pandas.DataFrame
        Records with the columns of :mod:`stebkit.datasets.spec` that ``task`` needs.
    task : str
        A task family (a key of :data:`stebkit.tasks.FAMILIES`).
    episode_size : int
        Texts pooled per episode; ``-1`` pools all texts of a label (retrieval).
    episodes_per_label : int or "auto"
        Episodes sampled per label (the reference's ``n_episodes_per_class``); unused by
        predefined pairs, probing and ``episode_size=-1``, which use every text.
        ``"auto"``: see :func:`resolve_episodes_per_label`.
    seed : int, default 42
        Seed of the shuffle when ``sampling="shuffle"``.
    sampling : {"reference", "shuffle"}
        ``"reference"``: the first N texts of each label in record order, labels in the
        order they first appear (the reference's loader); ``"shuffle"``: the first N after
        a seeded shuffle of the records.

    Returns
    -------
    TaskInput

    Warns
    -----
    FilterWarning
        When a documented filter drops texts, labels, pairs or sets; the counts are also
        in ``TaskInput.dropped``.

    Examples
    --------
    >>> import pandas as pd
    >>> records = pd.DataFrame({"text": ["b1", "a1", "b2", "a2", "b3", "a3"],
    ...                         "label": ["b", "a"] * 3})
    >>> ti = build_episodes(records, "clustering", episode_size=1, episodes_per_label=2)
    >>> ti.ids, ti.texts
    (('b#0', 'b#1', 'a#0', 'a#1'), ('b1', 'b2', 'a1', 'a2'))
    """
    family = FAMILIES.get_family(task) if isinstance(task, str) else None
    if family is None:
        raise ValueError(f"unknown task {task!r}; known tasks are {list(FAMILIES)}")
    if not hasattr(records, "columns"):
        raise TypeError(f"records must be a pandas DataFrame, got {type(records).__name__}")
    if sampling not in SAMPLING:
        raise ValueError(f"sampling must be one of {SAMPLING}, got {sampling!r}")
    episodes_per_label = resolve_episodes_per_label(records, task, episode_size,
                                                    episodes_per_label)
    _check_size(episode_size, episodes_per_label)
    return family.build(records, task, int(episode_size), int(episodes_per_label), int(seed),
                        sampling)


def run_task(task_input: TaskInput, item_embeddings: np.ndarray, *, seed: int = 42,
             batch_size: int = 32) -> dict:
    """Call the task function of ``task_input.task``'s family on pooled embeddings.

    ``item_embeddings`` is what :func:`pool_episodes` returns. The result is the task
    function's dict: float metrics plus ``"details"`` (per-item arrays).
    """
    if task_input.n_items == 0:
        raise ValueError(f"{task_input.task}: no items left after filtering "
                         f"(dropped: {dict(task_input.dropped)})")
    family = FAMILIES.get_family(task_input.task)
    return family.call(task_input, item_embeddings, seed=seed, batch_size=batch_size)


def unit_ids(task_input: TaskInput, result: Mapping[str, Any]) -> list[str]:
    """Ids of the resampling units of ``result`` (the family's bootstrap unit), in the
    order of its per-item ``details`` arrays: episodes (clustering), pairs (predefined
    pairs), kept queries (retrieval), pairs of sets (order alignment), test texts
    (probing). All-to-all pairs have no stored per-pair ids (there are n(n-1)/2): ``[]``.
    """
    return FAMILIES.get_family(task_input.task).item_ids(task_input, result)
