"""The plan of a run: its models, datasets and units, resolved once (:func:`plan`), and
which units are pending (:func:`existing_record`, :func:`needs_run`, :func:`check_resume`)."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stebkit.datasets.spec import Dataset, DatasetSpec
from stebkit.errors import NothingRan, StebkitError
from stebkit.records.results import find_record, read_record
from stebkit.runs.context import OPTIONS, RunContext
from stebkit.tasks import FAMILIES, TaskFamily

SMOKE_EPISODES_PER_LABEL = 10
"""Smoke runs sample at most this many episodes per label (the smoke datasets are tiny)."""
# parameters an existing record must share to count as done
_PROTOCOL_KEYS = ("seed", "episodes_per_label", "smoke", "served", "sampling", "scoring")
_PROTOCOL_DEFAULTS = {"scoring": "cosine"}  # what records written before a key existed used


@dataclass
class Unit:
    """One model x dataset x task x episode size: one record.

    ``family`` is the task family (pickled by its registered name); ``episodes_per_label``
    is an int or ``"auto"`` (resolved on the dataset's records).
    """

    model: str
    spec: DatasetSpec
    family: TaskFamily
    episode_size: int
    episodes_per_label: int | str
    served: bool
    fingerprint: str
    path: Path

    @property
    def task(self) -> str:
        """The family's name: the record's ``task``."""
        return self.family.name

    @property
    def key(self) -> tuple[str, int]:
        return self.task, self.episode_size

    def to_row(self, root: Path) -> dict[str, Any]:
        """The unit as JSON, its record file relative to the results folder ``root``:
        what travels to a job (:func:`plan_rows`)."""
        return {"model": self.model, "dataset": self.spec.name, "task": self.task,
                "episode_size": self.episode_size,
                "episodes_per_label": self.episodes_per_label, "served": self.served,
                "fingerprint": self.fingerprint,
                "record": self.path.relative_to(root).as_posix()}


@dataclass(frozen=True)
class PlannedModel:
    """One model of a run, resolved once: its name, the encoder object given (None: built
    by name when one of its records is pending), its zoo entry
    (:class:`stebkit.encoders.zoo.ModelInfo`, None outside the zoo) and the scoring it
    asks for (:func:`planned_model`)."""

    name: str
    given: Any
    info: Any
    scoring: str


@dataclass(frozen=True)
class Plan:
    """Everything a run computes, resolved once and consumed by every executor: its
    models, its datasets (each spec, with the loaded Dataset when one was given), its
    units in order (models outer, datasets inner), the protocol an existing record of each
    unit must share to count as done (:func:`resume_protocol`), which units are pending
    (:func:`needs_run`) and the results folder. A plan reads as the sequence of its units.

    >>> p = plan("random", "synthetic-authors-en", tasks=["retrieval"], smoke=True,
    ...          output_dir="unused")
    >>> [m.name for m in p.models], [s.name for s, _ in p.datasets], len(p), p.pending
    (['random'], ['synthetic-authors-en'], 1, (True,))
    """

    models: tuple[PlannedModel, ...]
    datasets: tuple[tuple[DatasetSpec, Dataset | None], ...]
    units: tuple[Unit, ...]
    protocols: tuple[dict[str, Any], ...]
    pending: tuple[bool, ...]
    root: Path

    def __iter__(self) -> Iterator[Unit]:
        return iter(self.units)

    def __len__(self) -> int:
        return len(self.units)

    def __getitem__(self, index: int) -> Unit:
        return self.units[index]


def plan_rows(the_plan: Plan | PresetPlan) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """What jobs run of each model on each dataset of ``the_plan`` (every entry of a
    preset's): its units as JSON rows (:meth:`Unit.to_row`), each with the protocol an
    existing record must share and whether it is pending. A job makes its plan of them
    (:func:`plan_of_rows`) instead of planning the run again.

    >>> p = plan("random", "synthetic-authors-en", tasks=["clustering"], smoke=True,
    ...          output_dir="unused")
    >>> [(key, [(r["task"], r["episode_size"], r["record"], r["pending"]) for r in rows])
    ...  for key, rows in plan_rows(p).items()]  # doctest: +NORMALIZE_WHITESPACE
    [(('random', 'synthetic-authors-en'),
      [('clustering', 1, 'random/synthetic-authors-en/clustering__e1.json', True),
       ('clustering', 2, 'random/synthetic-authors-en/clustering__e2.json', True)])]
    """
    plans = the_plan.plans if isinstance(the_plan, PresetPlan) else (the_plan,)
    rows: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for p in plans:
        for u, protocol, due in zip(p.units, p.protocols, p.pending, strict=True):
            rows.setdefault((u.model, u.spec.name), []).append(
                {**u.to_row(p.root), "protocol": protocol, "pending": due})
    return rows


def plan_of_rows(rows: Sequence[Mapping[str, Any]], root: Path) -> Plan:
    """The :class:`Plan` of ``rows`` (:func:`plan_rows`) with its record files in ``root``:
    what a job runs. Only the names are looked up (the zoo entry of each model, the spec
    of each dataset); nothing is planned again: no fingerprint computed, no record read.

    >>> p = plan("random", "synthetic-authors-en", tasks=["retrieval"], smoke=True,
    ...          output_dir="unused")
    >>> again = plan_of_rows(plan_rows(p)["random", "synthetic-authors-en"], Path("unused"))
    >>> again == p
    True
    """
    from stebkit.datasets import get_spec

    specs = {name: get_spec(name) for name in dict.fromkeys(r["dataset"] for r in rows)}
    models = tuple(planned_model(name) for name in dict.fromkeys(r["model"] for r in rows))
    units = tuple(Unit(r["model"], specs[r["dataset"]], FAMILIES[r["task"]],
                       int(r["episode_size"]), r["episodes_per_label"], bool(r["served"]),
                       r["fingerprint"], root / r["record"]) for r in rows)
    return Plan(models, tuple((spec, None) for spec in specs.values()), units,
                tuple(dict(r["protocol"]) for r in rows),
                tuple(bool(r["pending"]) for r in rows), root)


# --------------------------------------------------------------------------- inputs


def _as_list(x: Any) -> list[Any]:
    if isinstance(x, (str, Dataset)) or not isinstance(x, Sequence):
        return [x]
    return list(x)


def _resolve_models(models: Any) -> list[PlannedModel]:
    """Each model of a run, resolved once (:class:`PlannedModel`): names are built
    later, objects adapted now."""
    from stebkit._io import check_name

    out = []
    for m in _as_list(models):
        if isinstance(m, str):
            if not Path(m).expanduser().is_dir():  # a local model folder is a path by design
                check_name(m, "model")
            out.append((m, None))
        else:
            from stebkit.encoders import as_encoder

            enc = as_encoder(m)
            out.append((check_name(str(enc.name), "model"), enc))
    names = [n for n, _ in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"models: the name(s) {dupes} appear more than once; records are "
                         "stored per model name, so give each model a distinct name")
    if not out:
        raise ValueError("models is empty: pass at least one model name or encoder")
    return [planned_model(name, given) for name, given in out]


def planned_model(name: str, given: Any = None) -> PlannedModel:
    """The :class:`PlannedModel` of ``name``: its zoo entry, looked up once (the entry of
    the name or of the Hub id it names, None outside the zoo) and kept for building it
    (:func:`stebkit.encoders.zoo.build_encoder`), and the scoring it asks for, known
    without building it: the ``scoring`` attribute of an encoder object ``given``
    (cosine by default), else what the zoo declares
    (:attr:`stebkit.encoders.zoo.ModelInfo.scoring`; cosine outside the zoo).

    >>> m = planned_model("lftk")
    >>> m.info.name, m.given, m.scoring
    ('lftk', None, 'l1')
    >>> from stebkit.encoders import get_encoder
    >>> planned_model("x", get_encoder("lftk-zscore")).scoring
    'cosine'
    >>> m = planned_model("some-org/not-in-the-zoo")
    >>> m.info is None, m.scoring
    (True, 'cosine')
    """
    from stebkit.encoders import zoo

    info = zoo.find_model(name)
    if given is not None:
        return PlannedModel(name, given, info, str(getattr(given, "scoring", "cosine")))
    return PlannedModel(name, given, info, "cosine" if info is None else info.scoring)


def _resolve_datasets(datasets: Any) -> list[tuple[DatasetSpec, Dataset | None]]:
    """``(spec, loaded dataset or None)``; unknown names raise the registry's error now."""
    out = []
    for d in _as_list(datasets):
        if isinstance(d, Dataset):
            out.append((d.spec, d))
        elif isinstance(d, str):
            from stebkit.datasets import get_spec

            out.append((get_spec(d), None))
        else:
            raise TypeError(f"datasets: expected dataset names or Dataset objects, got "
                            f"{type(d).__name__}")
    if not out:
        raise ValueError("datasets is empty: pass at least one dataset name or Dataset")
    for spec, _ in out:
        FAMILIES.check_tasks(spec)
    names = [spec.name for spec, _ in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"datasets: {dupes} appear more than once; pass each dataset once")
    return out


def _per_label(task: str, default: int | str, episodes_per_label: Any) -> int | str:
    """The episodes per label of ``task``: ``episodes_per_label`` (an int, or a mapping
    task -> int) when given, else ``default`` (the dataset's or the family's)."""
    value = episodes_per_label.get(task) if isinstance(episodes_per_label, Mapping) \
        else episodes_per_label
    if value is None:
        return default
    return OPTIONS["episodes_per_label"].check(value)


def episode_settings(task: str, spec: DatasetSpec, episode_sizes: Any, *,
                     smoke: bool = False, episodes_per_label: Any = None
                     ) -> tuple[tuple[int, ...], int | str]:
    """Episode sizes and episodes per label of ``task`` on ``spec`` (capped when smoke):
    the dataset's configuration, else the family's reference preset."""
    family = FAMILIES.get_family(task, where="tasks")
    config = family.config(spec.tasks.get(task))
    sizes = config.episode_sizes
    if isinstance(episode_sizes, Mapping):
        sizes = tuple(episode_sizes.get(task, sizes))
    elif episode_sizes is not None and not family.single_text:
        sizes = tuple(episode_sizes)
    sizes = tuple(OPTIONS["episode_sizes"].check(s) for s in sizes)
    per_label = _per_label(task, config.episodes_per_label, episodes_per_label)
    if smoke:
        per_label = SMOKE_EPISODES_PER_LABEL if per_label == "auto" else \
            min(per_label, SMOKE_EPISODES_PER_LABEL)
    return sizes, per_label


def smoke_cap_note(episodes_per_label: Any) -> str | None:
    """The line that says a smoke run caps ``episodes_per_label`` (an int or a mapping
    task -> int) at :data:`SMOKE_EPISODES_PER_LABEL`; ``None`` when nothing given is
    above it.

    >>> smoke_cap_note(50)
    'a smoke run samples at most 10 episodes per label: episodes_per_label 50 is capped at 10'
    >>> smoke_cap_note({"clustering": 5}) is None
    True
    """
    given = episodes_per_label.values() if isinstance(episodes_per_label, Mapping) \
        else [episodes_per_label]
    above = [v for v in given if isinstance(v, int) and v > SMOKE_EPISODES_PER_LABEL]
    if not above:
        return None
    return (f"a smoke run samples at most {SMOKE_EPISODES_PER_LABEL} episodes per label: "
            f"episodes_per_label {max(above)} is capped at {SMOKE_EPISODES_PER_LABEL}")


def plan(models: Any, datasets: Any, *, tasks: Sequence[str] | None = None,
         episode_sizes: Any = None, output_dir: str | os.PathLike = "results",
         episodes_per_label: Any = None, context: RunContext | None = None,
         **settings: Any) -> Plan:
    """Every model x dataset x task x episode size of a run, resolved once: a :class:`Plan`.

    Nothing heavy happens: models are not built and datasets not loaded (their
    fingerprints come from the specs); existing records are read to tell which units are
    pending, and a successful record made with other settings is refused
    (:func:`check_resume`). Arguments as :func:`stebkit.evaluate`; the settings come from
    ``context``, or from ``settings`` (``seed=``, ``smoke=``, ...: :class:`RunContext`).

    >>> units = plan("random", "synthetic-authors-en", tasks=["clustering"])
    >>> [(u.task, u.episode_size, u.episodes_per_label) for u in units]
    [('clustering', 1, 5), ('clustering', 2, 5)]
    """
    if context is None:
        context = RunContext(**settings)
    elif settings:
        raise TypeError(f"plan() takes a context or settings, not both: {sorted(settings)}")
    if tasks is not None:
        tasks = _as_list(tasks)
        for t in tasks:
            FAMILIES.get_family(t, where="tasks")
    return _plan(_resolve_models(models), _resolve_datasets(datasets), tasks, episode_sizes,
                 Path(output_dir), context, episodes_per_label=episodes_per_label)


def _plan(models: list[PlannedModel], specs: list[tuple[DatasetSpec, Any]],
          tasks: Sequence[str] | None, episode_sizes: Any, root: Path, ctx: RunContext, *,
          episodes_per_label: Any = None) -> Plan:
    from stebkit.datasets import fingerprint

    seed, smoke = ctx.seed, ctx.smoke
    prints = {spec.name: dataset.fingerprint if dataset is not None else
              fingerprint(spec, seed=seed, smoke=smoke) for spec, dataset in specs}
    units, protocols = [], []
    base = ctx.protocol
    for model in models:
        for spec, _ in specs:
            wanted = list(spec.tasks) if tasks is None else list(tasks)
            for task in wanted:
                sizes, per_label = episode_settings(task, spec, episode_sizes, smoke=smoke,
                                                    episodes_per_label=episodes_per_label)
                for size in sizes:
                    units.append(Unit(model.name, spec, FAMILIES[task], size, per_label,
                                      spec.serves(task), prints[spec.name],
                                      find_record(root, model.name, spec.name, task, size)))
                    protocols.append(resume_protocol(units[-1], base, model.scoring))
    check_imported(units)
    # each record already there read once, and only where it decides something
    found = [existing_record(u) if ctx.overwrite == "only-missing" else None for u in units]
    check_resume(list(zip(units, protocols, found, strict=True)), ctx.overwrite)
    pending = tuple(needs_run(u, ctx.overwrite, p, r)
                    for u, p, r in zip(units, protocols, found, strict=True))
    return Plan(tuple(models), tuple(specs), tuple(units), tuple(protocols), pending, root)


@dataclass(frozen=True)
class PresetPlan:
    """A preset run resolved once (:func:`plan_preset`): the :class:`Plan` of each entry it
    runs (the entry's task on its datasets, with its episode configuration), in the
    preset's order, the entries it cannot run (why, one line each), the datasets it was
    restricted to (None: the preset's own) and the results folder."""

    preset: str
    plans: tuple[Plan, ...]
    unavailable: tuple[str, ...]
    datasets: tuple[str, ...] | None
    root: Path

    def announce(self, *, stacklevel: int) -> None:
        """Warn of each entry the run leaves out and of each given dataset the preset does
        not run, and refuse (:class:`~stebkit.errors.NothingRan`) a preset with nothing
        to run on its datasets; every executor says it so."""
        for problem in self.unavailable:
            warnings.warn(f"preset {self.preset!r}: {problem}; that entry is not run",
                          UserWarning, stacklevel=stacklevel + 1)
        planned = {spec.name for p in self.plans for spec, _ in p.datasets}
        left = [n for n in self.datasets or () if n not in planned]
        if left and self.plans:
            warnings.warn(f"preset {self.preset!r} runs no entry on {left}; they are not run",
                          UserWarning, stacklevel=stacklevel + 1)
        if not self.plans:
            what = f"the datasets {left}" if left else "its datasets"
            raise NothingRan(f"preset {self.preset!r} runs no entry on {what} (with the tasks "
                             "given); choose datasets the preset holds, or run them without "
                             "--preset")


def plan_preset(preset: str, models: Any, datasets: Any = None, *, context: RunContext,
                tasks: Sequence[str] | None = None, episode_sizes: Any = None,
                episodes_per_label: Any = None,
                output_dir: str | os.PathLike = "results") -> PresetPlan:
    """Every entry of a preset (:func:`stebkit.tasks.presets.preset_entries`) planned once, as
    :func:`plan` plans a run: each entry's task on the entry's datasets (restricted to
    ``datasets`` when given, to ``tasks`` when given), the models resolved once for all
    the entries. A successful record made with other settings is refused
    (:class:`ProtocolMismatch`) before any entry runs; ``episode_sizes`` and
    ``episodes_per_label`` are refused (the preset sets them).

    >>> p = plan_preset("benchmark", "random", ["synthetic-authors-en"],
    ...                 tasks=["clustering", "retrieval"], context=RunContext(smoke=True),
    ...                 output_dir="unused")
    >>> [(u.task, u.episode_size, u.episodes_per_label) for e in p.plans for u in e]
    [('clustering', 1, 10), ('clustering', 2, 10), ('clustering', 5, 10), ('retrieval', -1, 1)]
    >>> p.unavailable
    ()
    """
    from stebkit.datasets import get_spec
    from stebkit.tasks.presets import preset_entries, resolve_datasets

    entries = preset_entries(preset)
    if episode_sizes is not None or episodes_per_label is not None:
        raise ValueError(f"preset {preset!r} sets the episode sizes and episodes per label; "
                         "give either a preset or episode_sizes/episodes_per_label")
    names = None if datasets is None else [d.name if isinstance(d, Dataset) else
                                           get_spec(d).name for d in _as_list(datasets)]
    wanted = None if tasks is None else _as_list(tasks)
    root = Path(output_dir)
    unavailable: list[str] = []
    plans = []
    resolved: list[PlannedModel] | None = None
    for entry in entries:
        if wanted is not None and entry.task not in wanted:
            continue
        chosen = resolve_datasets(entry, names, unavailable)
        if not chosen:
            continue
        if resolved is None:  # once, for every entry
            resolved = _resolve_models(models)
        plans.append(_plan(resolved, _resolve_datasets(chosen), [entry.task],
                           {entry.task: list(entry.episode_sizes)}, root, context,
                           episodes_per_label=entry.episodes_per_label))
    return PresetPlan(preset, tuple(plans), tuple(unavailable),
                      None if names is None else tuple(names), root)


def existing_record(unit: Unit) -> Mapping[str, Any] | None:
    """The record of ``unit`` already in its results folder, or None when there is none
    or it cannot be read as one (a resumed run then computes it again)."""
    if not unit.path.exists():
        return None
    try:
        return read_record(unit.path)
    except (ValueError, OSError):
        return None


def check_imported(units: Sequence[Unit]) -> None:
    """Refuse (:class:`ProtocolMismatch`) a unit whose slot (model, dataset, task,
    episode size) an imported record fills under its own file name
    (``<task>__e<size>_n<per label>.json``, :func:`stebkit.steb_format.import_steb`): the
    leaderboard reads one result per slot, so a run never adds a second beside it."""
    for unit in units:
        folder = unit.path.parent
        if unit.path.exists() or not folder.is_dir():
            continue
        sibling = re.compile(rf"{re.escape(unit.path.stem)}_n[0-9]+\.json")
        found = sorted(p for p in os.listdir(folder) if sibling.fullmatch(p))
        if found:
            raise ProtocolMismatch(
                f"{folder / found[0]} holds an imported result of {unit.model} / "
                f"{unit.spec.name} / {unit.task} (episode size {unit.episode_size}), the "
                "slot this run would fill (the leaderboard reads one result per slot): "
                "remove that file to compute it here, or choose another output folder")


def needs_run(unit: Unit, overwrite: str, protocol: Mapping[str, Any],
              record: Mapping[str, Any] | None) -> bool:
    """Whether ``unit`` must be (re)computed under ``overwrite``
    (:class:`stebkit.runs.context.Overwrite`): its record (``record``:
    :func:`existing_record`) is missing, unreadable, failed, or made with another dataset
    fingerprint or protocol (``protocol``: :func:`resume_protocol`, compared on seed,
    episodes per label, smoke, served, sampling and the scoring of the model's
    embeddings)."""
    if overwrite == "always" or not unit.path.exists():
        return True
    if overwrite == "never":
        return False
    if record is None or record.get("status") == "failed":
        return True
    if record.get("dataset", {}).get("fingerprint") != unit.fingerprint:
        return True  # the dataset's records changed (reader, sources, seed or size)
    old = record.get("protocol", {})
    return any(old.get(k, _PROTOCOL_DEFAULTS.get(k)) != protocol[k]
               for k in _PROTOCOL_KEYS if k in protocol)


_SETTINGS = ("seed", "smoke", "sampling", "episodes_per_label")
"""The protocol keys a user chooses for a run: records made with others are never
replaced silently (:func:`check_resume`)."""


class ProtocolMismatch(StebkitError, ValueError):
    """A run would replace results made with other settings (seed, smoke, ...)."""


def other_settings(record: Mapping[str, Any] | None, protocol: Mapping[str, Any]) -> str | None:
    """How a successful ``record`` already on disk (:func:`existing_record`) differs from
    ``protocol`` (:func:`resume_protocol`) in the settings a user chooses (seed, smoke,
    sampling, episodes per label), or None (no such record, or the same settings)."""
    old = None if record is None else record.get("protocol")
    if record is None or record.get("status") != "ok" or not isinstance(old, Mapping):
        return None
    diffs = [f"{k} {old.get(k)!r} there, {protocol[k]!r} in this run" for k in _SETTINGS
             if k in protocol and old.get(k) != protocol[k]]
    return ", ".join(diffs) or None


def check_resume(pending: Sequence[tuple[Unit, Mapping[str, Any], Mapping[str, Any] | None]],
                 overwrite: str) -> None:
    """Refuse (:class:`ProtocolMismatch`) to replace, under ``overwrite="only-missing"``,
    a successful record made with other settings than this run's: its numbers change only
    when the user asks (``overwrite="always"``, ``--overwrite always``). ``pending``:
    each unit with its :func:`resume_protocol` and its :func:`existing_record`."""
    if overwrite != "only-missing":
        return
    found = [(u, d) for u, p, r in pending if (d := other_settings(r, p))]
    if not found:
        return
    unit, diff = found[0]
    raise ProtocolMismatch(
        f"{unit.path.parents[2]}: {len(found)} record(s) were made with other settings than "
        f"this run ({diff}; e.g. {unit.path}); run with the same settings to resume, pass "
        "--overwrite always (overwrite='always') to replace them, or choose another output "
        "folder")


def resume_protocol(unit: Unit, base: Mapping[str, Any], scoring: str) -> dict[str, Any]:
    """What an existing record of ``unit`` must share to count as done (:func:`needs_run`):
    the run's settings ``base``, the unit's episodes and, for a task the dataset serves,
    the scoring its family uses for a model asking for ``scoring``
    (:meth:`stebkit.tasks.TaskFamily.scoring_for`), so that records scored another way
    are recomputed.

    >>> unit = plan(["random"], ["synthetic-authors-en"], tasks=["clustering"], smoke=True,
    ...             output_dir="unused")[0]
    >>> resume_protocol(unit, RunContext().protocol, "l1")["scoring"]
    'l1'
    """
    out = {**base, "episodes_per_label": unit.episodes_per_label, "served": unit.served}
    if unit.served:
        out["scoring"] = unit.family.scoring_for(scoring)
    return out
