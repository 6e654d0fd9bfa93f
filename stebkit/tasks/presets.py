"""The reference's run presets: ``benchmark`` and ``fast``.

A preset is a list of :class:`PresetEntry` — a task, the datasets it runs on, and its
episode sizes and episodes per label — as the reference's ``steb/presets.py`` declares
them:

``benchmark``
    Every task on every dataset that serves it (the Fisher sets left out, as the
    reference does), with the reference's episode configuration per task: clustering
    and all-to-all pairs sizes 1, 2, 5 with 50 episodes per label, order alignment size
    1 with 100, predefined pairs size 1 with 2, retrieval one episode of all texts per
    label (size -1), probing size 1.
``fast``
    One dataset per task: order alignment and all-to-all pairs on the Corpus of Diverse
    Styles, retrieval on Amazon, clustering on SMS spam, predefined pairs on PAN 2015
    (English), with the reference's sizes. The reference's SMS spam set is not in the
    stebkit catalogue, so that entry is reported as unavailable.

``stebkit run --preset NAME`` (or ``evaluate(..., preset=NAME)``, or ``preset:`` under
``run:`` in a suite file) runs a preset; given datasets restrict it to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stebkit.settings import Choice


class Preset(Choice):
    """The reference's presets: ``benchmark`` (every task on every STEB dataset) and
    ``fast`` (one dataset per task)."""

    BENCHMARK = "benchmark"
    FAST = "fast"


PRESETS = Preset.values()
"""The presets' names (:class:`Preset`), as plain texts."""


@dataclass(frozen=True)
class PresetEntry:
    """One task of a preset: its datasets (None: every dataset serving the task), episode
    sizes and episodes per label (from the task family's ``preset``)."""

    task: str
    datasets: tuple[str, ...] | None
    episode_sizes: tuple[int, ...]
    episodes_per_label: int


FAST_DATASETS = {
    "order_alignment": "corpus-of-diverse-styles",
    "retrieval": "amazon",
    "clustering": "sms_spam",
    "all_to_all_pairs": "corpus-of-diverse-styles",
    "predefined_pairs": "pan15_authorship_verification_english_test",
}
"""The one dataset per task of the reference's ``fast`` preset (its names), in its order;
the episode configuration comes from each family's ``preset("fast")``."""


def _entries(name: str) -> tuple[PresetEntry, ...]:
    from stebkit.tasks import FAMILIES

    tasks = list(FAST_DATASETS) if name == "fast" else list(FAMILIES.steb())
    out = []
    for task in tasks:
        sizes, per_label = FAMILIES[task].preset(name)
        datasets = (FAST_DATASETS[task],) if name == "fast" else None
        out.append(PresetEntry(task, datasets, tuple(sizes), per_label))
    return tuple(out)


def preset_entries(name: str) -> tuple[PresetEntry, ...]:
    """The entries of a preset.

    >>> [(e.task, e.episode_sizes, e.episodes_per_label) for e in preset_entries("fast")][:2]
    [('order_alignment', (1,), 50), ('retrieval', (-1,), 1)]
    >>> preset_entries("nope")
    Traceback (most recent call last):
    ...
    ValueError: unknown preset 'nope'; the reference's presets are ('benchmark', 'fast')
    """
    if name in PRESETS:
        return _entries(name)
    raise ValueError(f"unknown preset {name!r}; the reference's presets are {PRESETS}")


def resolve_datasets(entry: PresetEntry, datasets: Sequence[str] | None,
                     unavailable: list[str]) -> list[str]:
    """The stebkit datasets one entry runs on.

    A reference name is looked up in the catalogue (``steb_name`` or name); one that is
    not there is added to ``unavailable``. ``datasets`` (when given) restricts the
    entry to those; ``None`` with ``entry.datasets`` None means every dataset of the
    STEB catalogue serving the task, the Fisher sets left out.
    """
    from stebkit.datasets import get_spec, list_datasets

    if entry.datasets is None:
        pool = list(datasets) if datasets is not None else [
            n for n in list_datasets(suite="steb", task=entry.task) if "fisher" not in n]
        return [n for n in pool if get_spec(n).serves(entry.task)]
    names = {}
    for name in list_datasets():
        spec = get_spec(name)
        for alias in {spec.name, spec.steb_name or spec.name}:
            names.setdefault(alias.lower(), spec.name)
    out = []
    for ref in entry.datasets:
        found = names.get(ref.lower()) or names.get(ref.lower().replace("-", "_"))
        if found is None:
            unavailable.append(f"{entry.task} on {ref!r}: not in the stebkit catalogue")
        elif datasets is None or found in datasets:
            out.append(found)
    return out
