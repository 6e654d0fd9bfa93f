"""What a run will do with each dataset, before any model is loaded.

:func:`preflight` loads each dataset (from the processed cache when it is there), builds
the episodes of every task and episode size the run would evaluate — exactly as the
runner does, with the same seed — and reports per dataset, task and episode size: the
labels and texts per label in the data, the items (episodes, pairs, sets, queries)
achievable, and the labels the documented filters will drop (too few texts for the
episode configuration). ``stebkit run ... --preflight`` prints it and stops.
:func:`check_reachable` stops a run none of whose datasets can be loaded, before any
model is built.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

COLUMNS = ("dataset", "task", "episode_size", "episodes_per_label", "labels",
           "texts_per_label", "items", "labels_dropped", "dropped")


def _spread(counts: Any) -> str:
    if not len(counts):
        return "-"
    lo, hi, med = int(counts.min()), int(counts.max()), float(counts.median())
    return f"{lo}" if lo == hi else f"{lo}-{hi} (median {med:g})"


def _names(labels: Sequence[str], limit: int = 5) -> str:
    if not labels:
        return "none"
    shown = ", ".join(map(str, labels[:limit]))
    more = f", ... ({len(labels) - limit} more)" if len(labels) > limit else ""
    return f"{len(labels)}: {shown}{more}"


def preflight(datasets: Any, *, tasks: Sequence[str] | None = None, seed: int = 42,
              smoke: bool = False, episode_sizes: Any = None,
              episodes_per_label: int | Mapping[str, int] | None = None,
              trust_remote_code: bool = False) -> Any:
    """One row per dataset, task and episode size that a run would evaluate.

    Parameters
    ----------
    datasets : str or list of str
        Dataset names.
    tasks, seed, smoke, episode_sizes, episodes_per_label, trust_remote_code
        As in :func:`stebkit.evaluate`.

    Returns
    -------
    DataFrame
        Columns :data:`COLUMNS`: ``labels`` (labels in the data), ``texts_per_label``
        (min-max and median), ``items`` (what the task will evaluate), ``labels_dropped``
        (how many and which) and ``dropped`` (the filter counts).

    Examples
    --------
    >>> report = preflight("synthetic-authors-en", tasks=["retrieval"], smoke=True)
    >>> report[["dataset", "task", "episode_size", "items", "labels_dropped"]].values.tolist()
    [['synthetic-authors-en', 'retrieval', -1, 6, 'none']]
    """
    import pandas as pd

    from stebkit.datasets import get_spec, load_dataset
    from stebkit.runs.planning import episode_settings

    names = [datasets] if isinstance(datasets, str) else list(datasets)
    rows = []
    for name in names:
        spec = get_spec(name)
        frame = load_dataset(name, seed=seed, smoke=smoke,
                             trust_remote_code=trust_remote_code).frame
        for task in (tasks if tasks is not None else list(spec.tasks)):
            if not spec.serves(task):
                continue
            sizes, per_label = episode_settings(task, spec, episode_sizes, smoke=smoke,
                                                episodes_per_label=episodes_per_label)
            rows += [_row(spec.name, frame, task, size, per_label, seed=seed)
                     for size in sizes]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _row(dataset: str, frame: Any, task: str, size: int, per_label: int, *,
         seed: int) -> dict[str, Any]:
    """The :func:`preflight` row of one dataset, task and episode size: the task input is
    built (its warnings silenced: the counts are in the row) and compared with the data."""
    from stebkit.tasks import FAMILIES

    counts = frame["label"].value_counts()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the counts are in the report
        ti = FAMILIES[task].build(frame, episode_size=size,
                                episodes_per_label=per_label, seed=seed)
    kept = set(map(str, ti.labels.tolist()))
    gone = sorted(str(label) for label in counts.index if str(label) not in kept)
    return {"dataset": dataset, "task": task, "episode_size": size,
            "episodes_per_label": per_label, "labels": len(counts),
            "texts_per_label": _spread(counts), "items": ti.n_items,
            "labels_dropped": _names(gone),
            "dropped": ", ".join(f"{k}: {v}" for k, v in ti.dropped.items()) or "-"}


def preflight_preset(preset: str, datasets: Sequence[str] | None = None, *,
                     tasks: Sequence[str] | None = None, **options: Any) -> Any:
    """:func:`preflight` of every entry of one of the reference's presets."""
    import pandas as pd

    from stebkit.tasks.presets import preset_entries, resolve_datasets

    frames, unavailable = [], []
    for entry in preset_entries(preset):
        if tasks is not None and entry.task not in tasks:
            continue
        chosen = resolve_datasets(entry, datasets, unavailable)
        if chosen:
            frames.append(preflight(chosen, tasks=[entry.task],
                                    episode_sizes={entry.task: list(entry.episode_sizes)},
                                    episodes_per_label=entry.episodes_per_label, **options))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    out.attrs["unavailable"] = unavailable
    return out


def check_reachable(datasets: Sequence[str], *, seed: int = 42, smoke: bool = False,
                    trust_remote_code: bool = False) -> Any:
    """Raise :class:`~stebkit.errors.DataUnavailable` with one short line naming the fix
    when no dataset of a run can be loaded (offline without a mirror, a mirror without
    the files); return the first dataset that loads (a
    :class:`~stebkit.datasets.spec.Dataset`: the run takes it in place of its name, so
    that it is loaded once), or None (no dataset given, or one that failed for another
    reason).

    A dataset that fails for another reason ends the check too: the run records that
    failure with the dataset's results, or stops at it when the machine is at fault (a
    full disk, a read-only cache: :func:`~stebkit.runs.engine.stops_the_run`), which is
    raised here at once.

    Examples
    --------
    >>> check_reachable(["synthetic-authors-en"], smoke=True).name  # generated here: loads
    'synthetic-authors-en'
    >>> import os
    >>> from unittest import mock
    >>> from stebkit.datasets import list_datasets
    >>> with mock.patch.dict(os.environ, {"STEBKIT_OFFLINE": "1", "STEBKIT_MIRROR": "",
    ...                                   "STEBKIT_CACHE": __import__("tempfile").mkdtemp()}):
    ...     check_reachable(list_datasets(suite="lite")[:2])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stebkit.errors.DataUnavailable: none of the 2 datasets of this run can be loaded: offline ...
    """
    from stebkit.datasets import load_dataset
    from stebkit.errors import DataUnavailable
    from stebkit.runs.engine import stops_the_run

    if not datasets:
        return None
    for name in datasets:
        try:
            return load_dataset(name, seed=seed, smoke=smoke,
                                trust_remote_code=trust_remote_code)
        except DataUnavailable:
            continue
        except Exception as err:  # not a matter of reaching the data: the run records it
            if stops_the_run(err):
                raise
            return None
    raise _unreachable(len(datasets))


def _unreachable(n: int) -> Exception:
    """The one-line ``DataUnavailable`` of a run none of whose ``n`` datasets loads: why
    (offline, no mirror, an incomplete mirror) and the fix."""
    from stebkit.errors import DataUnavailable
    from stebkit.sources import is_offline, mirror_dirs

    mirrors = ":".join(map(str, mirror_dirs()))
    if not mirrors:
        why = ("offline and STEBKIT_MIRROR is not set" if is_offline() else
               "the downloads failed and STEBKIT_MIRROR is not set")
        fix = "export STEBKIT_MIRROR=/path/to/a/copy/of/the/data (README: Working offline)"
    else:
        why = f"the mirror {mirrors} lacks their files"
        fix = "point STEBKIT_MIRROR at a complete copy (README: Working offline)"
    if not is_offline():
        fix += " or check the network"
    return DataUnavailable(f"none of the {n} datasets of this run can be loaded: "
                           f"{why}; {fix}")
