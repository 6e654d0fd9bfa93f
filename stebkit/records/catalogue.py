"""What a record's dataset and model are, for the score: the catalogue's and the zoo's
declarations, never the record's claims.

A record owns only its measurements. For a dataset registered in this process (the
catalogue, the built-in suites, a loaded suite file) its category, languages, application
and main metric come from its :class:`~stebkit.datasets.DatasetSpec`; for a zoo model
(:data:`stebkit.encoders.zoo.MODELS`) its category comes from the zoo. A record that says
otherwise is named (file and field) in a note and changes no score. Names are compared by
their look-alike skeleton (:func:`stebkit._io.name_skeleton`): a record naming
``fеderalist-authorship`` (a Cyrillic ``е``) is read as the registered
``federalist-authorship``, with a note, so that a look-alike name can neither escape the
catalogue nor stand beside the registered name as a second dataset. A dataset or model
that is not registered keeps what its records say.

>>> from stebkit.records.record import Record
>>> rec = Record.from_json({"schema": 2, "model": {"name": "random", "category": "style"},
...     "dataset": {"name": "federalist-authorship", "category": "genre"},
...     "task": "clustering", "episode_size": 1, "main_metric": "v_measure",
...     "metrics": {"v_measure": 0.5}, "status": "ok"}, where="r.json")
>>> view = Catalogue().view(rec)
>>> view.model_category, view.dataset_category, view.languages
('non_neural', 'idiolect', ('en',))
>>> print(notes([view])[0])  # doctest: +NORMALIZE_WHITESPACE
r.json: field 'model.category' is 'style', but the zoo declares 'non_neural' for
'random': the zoo's is used (a record owns only its measurements)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from stebkit._io import name_skeleton, shown


@dataclass(frozen=True)
class View:
    """A record as the score reads it: registered names, the catalogue's and the zoo's
    metadata, the main metric the score takes, and the notes naming what the record
    claims otherwise."""

    model: str
    model_category: str | None
    dataset: str
    dataset_category: str | None
    languages: tuple[str, ...]
    application: str | None
    main_metric: str | None
    notes: tuple[tuple[str, str], ...]
    """(where, what): the record's file and what it says otherwise (:func:`notes`)."""

    @property
    def language(self) -> str | None:
        """The first language (the one the score's language rule reads)."""
        return self.languages[0] if self.languages else None


class Catalogue:
    """The datasets registered in this process and the zoo's models, looked up by name
    or by look-alike skeleton (taken when made: make a new one after loading a suite)."""

    def __init__(self) -> None:
        from stebkit.datasets import list_datasets
        from stebkit.encoders.zoo import MODELS

        self._datasets = {name_skeleton(n): n for n in list_datasets()}
        self._models = {name_skeleton(n): n for n in MODELS}

    def dataset(self, name: str) -> Any:
        """The spec registered under ``name`` or a look-alike of it, or None.

        >>> Catalogue().dataset("\\u0430g_news").name  # a Cyrillic a
        'ag_news'
        """
        from stebkit.datasets.registry import registered

        found = self._datasets.get(name_skeleton(name))
        return registered(name) or (registered(found) if found else None)

    def model(self, name: str) -> Any:
        """The zoo's entry named ``name`` or a look-alike of it, or None."""
        from stebkit.encoders.zoo import MODELS

        found = self._models.get(name_skeleton(name))
        return MODELS.get(name) or (MODELS.get(found) if found else None)

    def view(self, record: Any) -> View:
        """``record`` (a :class:`stebkit.records.record.Record`) as the score reads it."""
        where = getattr(record, "where", "record")
        model, dataset = dict(record.model), dict(record.dataset)
        spec, info = self.dataset(dataset["name"]), self.model(model["name"])
        notes = [*_renamed(where, "dataset", dataset["name"], spec, "registered dataset"),
                 *_renamed(where, "model", model["name"], info, "zoo model")]
        if info is not None:
            notes += _differs(where, model, "category", info.category, "zoo", info.name)
        main = record.main_metric
        if spec is not None:
            declared = {"category": spec.category, "languages": list(spec.languages),
                        "application": spec.application}
            for key, value in declared.items():
                notes += _differs(where, dataset, key, value, "catalogue", spec.name)
            main, more = _main_metric(record, spec, where)
            notes += more
        return View(
            model=info.name if info else model["name"],
            model_category=info.category if info else model.get("category"),
            dataset=spec.name if spec else dataset["name"],
            dataset_category=spec.category if spec else dataset.get("category"),
            languages=tuple(spec.languages if spec else dataset.get("languages") or ()),
            application=spec.application if spec else dataset.get("application"),
            main_metric=main, notes=tuple(notes))


def notes(views: Iterable[View]) -> list[str]:
    """One line per thing records say otherwise than the catalogue or the zoo: the first
    record's file, how many others say it too, the field and what the score reads.

    >>> v = View("m", None, "d", None, (), None, None, (("a.json", "field 'x' ..."),))
    >>> notes([v, v])
    ["a.json (and 1 other record): field 'x' ..."]
    """
    places: dict[str, list[str]] = {}
    for view in views:
        for where, what in view.notes:
            places.setdefault(what, []).append(where)
    return [f"{found[0]}{_others(len(found) - 1)}: {what}" for what, found in places.items()]


def check_main_metrics(records: Iterable[Any], views: Iterable[View]) -> None:
    """Refuse records (:class:`stebkit.records.record.Record`) of one dataset and task whose main
    metrics (as the score reads them, ``views``) differ: their values are not comparable.

    >>> from stebkit.records.results import Results
    >>> rec = {"model": {"name": "m"}, "dataset": {"name": "d"}, "task": "clustering",
    ...        "episode_size": 1, "status": "ok", "main_metric": "ari",
    ...        "metrics": {"ari": 0.1, "v_measure": 0.2}}
    >>> Results([rec, {**rec, "model": {"name": "n"}, "main_metric": "v_measure"}])
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: record 1: field 'main_metric' is 'v_measure', but record 0 holds 'ari' ...
    """
    first: dict[tuple[str, str], tuple[str, Any]] = {}
    for rec, view in zip(records, views, strict=True):
        if view.main_metric is None:
            continue
        main, other = first.setdefault((view.dataset, rec.task), (view.main_metric, rec))
        if main != view.main_metric:
            raise ValueError(f"{rec.where}: field 'main_metric' is {view.main_metric!r}, but "
                             f"{other.where} holds {main!r} for the same dataset and task "
                             f"({view.dataset} / {rec.task}); the results of one dataset "
                             "and task share one main metric: correct or remove one of them")


def _others(n: int) -> str:
    return "" if n == 0 else f" (and {n} other record{'s' if n > 1 else ''})"


def _renamed(where: str, part: str, name: str, found: Any, what: str
             ) -> list[tuple[str, str]]:
    if found is None or found.name == name:
        return []
    return [(where, f"field '{part}.name' is {shown(name)} ({ascii(name)}), which looks "
             f"like the {what} {found.name!r} (it differs only in case, look-alike or "
             "invisible characters): read as it")]


def _differs(where: str, part: Mapping[str, Any], key: str, declared: Any, source: str,
             name: str) -> list[tuple[str, str]]:
    """A note when the record's ``part[key]`` is given and is not ``declared``."""
    if key not in part or part[key] == declared:
        return []
    kind = "model" if source == "zoo" else "dataset"
    return [(where, f"field '{kind}.{key}' is {shown(part[key])}, but the {source} "
             f"declares {declared!r} for {name!r}: the {source}'s is used (a record owns "
             "only its measurements)")]


def _main_metric(record: Any, spec: Any, where: str
                 ) -> tuple[str | None, list[tuple[str, str]]]:
    """The main metric of ``record``'s task on the registered ``spec``, and a note when
    the record names another one or, computed, lacks this one."""
    from stebkit.records.schema import main_metric_of

    main = main_metric_of(record.task, spec) or record.main_metric
    if record.main_metric == main:
        return main, []
    note = (f"field 'main_metric' is {shown(record.main_metric)}, but the main metric of "
            f"{spec.name!r} ({record.task}) is {main!r}: the score takes {main!r}")
    if record.status == "ok" and main not in record.metrics:
        note += ", which the record does not hold (a missing result)"
    return main, [(where, note)]
