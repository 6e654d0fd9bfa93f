"""Loading a suite: :func:`load_suite` checks a suite file, turns each dataset into a
spec and registers it; :class:`Suite` is what it returns, :func:`suite_file` where a
registered dataset came from."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stebkit.datasets.spec import DatasetSpec, License, Source, TaskConfig
from stebkit.suites.checks import (
    TOP_KEYS,
    Request,
    _check_entry,
    _check_name,
    _check_run,
    _Doc,
)
from stebkit.suites.rows import _labelled_rows, _ndcg_rows
from stebkit.suites.suitefile import SuiteError, read_suite_file, unknown_keys
from stebkit.tasks import FAMILIES


@dataclass(frozen=True)
class Suite:
    """A loaded suite: its name, the file it came from and its registered datasets."""

    name: str
    path: Path
    specs: tuple[DatasetSpec, ...]
    run: Mapping[str, Any] = field(default_factory=dict)
    """The file's checked ``run:`` settings (keys of :data:`RUN_OPTIONS`), as written:
    apply them through :meth:`granted_run`."""
    requests: tuple[Request, ...] = ()
    """The file's lines that ask for a grant (:data:`GRANTS`)."""

    @property
    def datasets(self) -> list[str]:
        """The registered dataset names, in file order."""
        return [s.name for s in self.specs]

    def granted_run(self, *, trust_remote_code: bool = False, allow_setup: bool = False,
                    allow_sbatch_extra: bool = False) -> dict[str, Any]:
        """The ``run:`` settings, once every line that asks for a grant has it.

        ``trust_remote_code`` grants ``run: {trust_remote_code: true}`` and the sources
        with ``remote_code: true``; ``allow_setup`` the executor's ``setup`` lines (shell
        commands run before each SLURM job); ``allow_sbatch_extra`` its ``extra`` sbatch
        options.

        Raises
        ------
        SuiteError
            One line per ungranted request: the file, line and setting, and the grant.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> _ = (folder / "d.csv").write_text("text,label\\nHello.,a\\nHi!,b\\n")
        >>> _ = (folder / "s.yaml").write_text(
        ...     "name: slurm-suite\\nrun:\\n  executor: {kind: slurm, setup: [module load cuda]}"
        ...     "\\ndatasets:\\n  - {name: slurm-greetings, task: clustering,"
        ...     " source: {path: d.csv}}\\n")
        >>> suite = load_suite(folder / "s.yaml", register=False)
        >>> suite.granted_run()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        stebkit.suites.suitefile.SuiteError: ...s.yaml: line 3: run: executor: setup: ...
        >>> suite.granted_run(allow_setup=True)["executor"]["setup"]
        ['module load cuda']
        """
        granted = {"trust_remote_code": trust_remote_code, "allow_setup": allow_setup,
                   "allow_sbatch_extra": allow_sbatch_extra}
        refused = [r.message for r in self.requests if not granted[r.grant]]
        if refused:
            raise SuiteError("\n".join(refused))
        return dict(self.run)



def _check_clashes(specs: list[DatasetSpec], suite: str, doc: _Doc) -> None:
    """A suite dataset may replace only a dataset that a suite file of the same name
    registered (a re-read of that suite), never a built-in or registered one."""
    from stebkit._io import name_skeleton
    from stebkit.datasets import get_spec, list_datasets

    known = {name_skeleton(n): n for n in list_datasets()}
    for index, spec in enumerate(specs):
        other = known.get(name_skeleton(spec.name))
        if other is None:
            continue
        old = get_spec(other)
        if other in _REGISTERED_FROM and old.suites == (suite,):
            continue
        owner = f"suite(s) {', '.join(old.suites)}" if old.suites else "register()"
        how = "clashes with" if other == spec.name else (
            f"({ascii(spec.name)}) differs only in case, look-alike or invisible characters "
            "from")
        raise doc.fail(f"dataset {spec.name!r}", f"the name {how} the dataset "
                       f"{other!r} of {owner}; its records and results would replace that "
                       "dataset's, or be shown like it. Give the suite's dataset another name",
                       ("datasets", index, "name"))


def load_suite(path: str | Path, *, register: bool = True,
               progress: Callable[[int, int], None] | None = None) -> Suite:
    """Read, check and (by default) register the datasets of a suite file.

    ``progress(done, total)``, when given, is called after each dataset is checked. The
    time taken grows linearly with the file: each table is read once, whatever the
    number of datasets sharing it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "d.csv").write_text("text,label\\nHello.,a\\nHi!,b\\nHey.,a\\n")
    >>> _ = (folder / "s.yaml").write_text(
    ...     "name: tiny\\ndatasets:\\n  - {name: tiny-greetings, task: clustering,"
    ...     " source: {path: d.csv}}\\n")
    >>> load_suite(folder / "s.yaml").datasets
    ['tiny-greetings']
    """
    from stebkit.datasets.registry import SUITES

    path = Path(path).resolve()
    data, lines = read_suite_file(path)
    doc = _Doc(path, lines)
    refusal = unknown_keys(data, TOP_KEYS)
    if refusal:
        raise doc.fail("top level", refusal)
    name = _check_name(data.get("name"), doc, "top level", (), "suite")
    if name in SUITES:
        raise doc.fail("name", f"{name!r} is the name of a built-in suite ({', '.join(SUITES)})"
                       "; give the suite another name", ("name",))
    entries = data.get("datasets")
    if not isinstance(entries, list) or not entries:
        raise doc.fail("datasets", "must be a non-empty list of datasets", ("datasets",))
    run = _check_run(data.get("run"), doc)
    seen: set[str] = set()
    specs = []
    for i, raw in enumerate(entries):
        entry = _check_entry(raw, doc, i, seen)
        specs.append(_spec(entry, name, path))
        if progress is not None:
            progress(i + 1, len(entries))
    _check_clashes(specs, name, doc)
    if register:
        from stebkit.datasets import register as register_spec

        for spec in specs:
            register_spec(FAMILIES.check_tasks(spec), replace=True)
            _REGISTERED_FROM[spec.name] = path
    return Suite(name, path, tuple(specs), run, tuple(doc.requests))


_REGISTERED_FROM: dict[str, Path] = {}


def suite_file(dataset: str) -> Path | None:
    """The suite file that registered ``dataset`` in this process, or None.

    Processes that run part of an evaluation (local workers, SLURM jobs) load these
    files again so that they know the same datasets.
    """
    return _REGISTERED_FROM.get(dataset)


def _spec(entry: Mapping[str, Any], suite: str, path: Path) -> DatasetSpec:
    task = entry["task"]
    where = f"dataset {entry['name']!r}"
    graded = FAMILIES[task].graded_relevance
    build = _ndcg_rows if graded else _labelled_rows

    def reader(spec: DatasetSpec, *, seed: int = 42, smoke: bool = False) -> Any:
        from stebkit.datasets.hub import check_remote_code, remote_code_trusted

        check_remote_code(spec, remote_code_trusted())  # also when called on its own
        return build(entry, path, where, seed=seed, smoke=smoke)

    languages = entry.get("languages") or [entry.get("language", "en")]
    size = int(entry.get("episode_size", 1))  # types checked by _check_types
    per_label = int(entry.get("episodes_per_label", 1 if size == -1 else 10))
    sources = entry["source"].values() if graded else [entry["source"]]
    urls = tuple((s["url"], s.get("sha256")) for s in sources if "url" in s)
    hub = next((s for s in sources if "hf" in s), None)
    return DatasetSpec(
        name=entry["name"],
        description=entry.get("description", f"{task} dataset of the suite {suite!r}"),
        languages=tuple(languages),
        source=Source(urls=urls, hf_path=hub["hf"] if hub else None,
                      hf_revision=hub.get("revision") if hub else None,
                      note=f"declared in {path.name}"),
        license=License(str(entry.get("license", "unknown"))),
        label=entry.get("label_meaning", "label"),
        tasks={task: TaskConfig(episode_sizes=(size,), episodes_per_label=per_label)},
        category="other",
        application="custom",
        citation=entry.get("citation", ""),
        reader=reader,
        reader_options={"entry": json.dumps(entry, sort_keys=True, default=str),
                        **({"remote_code": True} if any(s.get("remote_code") for s in sources)
                           else {})},
        offline=hub is None,
        suites=(suite,),
        main_metric=entry["main_metric"],
    )
