"""The settings one run shares (:class:`RunContext`) and what it keeps between its units
(:class:`RunState`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from stebkit.encoders.precision import Dtype
from stebkit.errors import InvalidSetting
from stebkit.settings import MAX_COUNT, SEED, Choice, Setting, Settings, setting
from stebkit.suites.checks import RUN_SETTINGS
from stebkit.tasks.inputs import Sampling


class Overwrite(Choice):
    """``only-missing``: compute what has no valid record (missing, failed, or made from
    other dataset records or scored another way), and refuse to replace a successful
    record made with other settings (seed, smoke, sampling, episodes per label:
    :func:`stebkit.runs.planning.check_resume`); ``never``: never replace an existing
    file; ``always``: recompute everything."""

    ONLY_MISSING = "only-missing"
    NEVER = "never"
    ALWAYS = "always"


N_RESAMPLES = 1000
"""Bootstrap resamples behind every record's interval."""
CONFIDENCE = 0.95
"""Coverage of every record's interval."""


def run_protocol(*, seed: int = 42, smoke: bool = False, batch_size: int = 32,
                 sampling: str = "reference") -> dict[str, Any]:
    """The run-wide protocol settings stored in every record (and compared on resume).

    >>> run_protocol()["sampling"], run_protocol()["bootstrap"]
    ('reference', {'resamples': 1000, 'level': 0.95})
    """
    return {"seed": int(seed), "smoke": bool(smoke), "batch_size": int(batch_size),
            "sampling": sampling,
            "bootstrap": {"resamples": N_RESAMPLES, "level": CONFIDENCE}}


@dataclass(frozen=True, repr=False)
class RunContext(Settings):
    """The settings every unit of one run shares, checked once: the settings of
    :func:`stebkit.evaluate`, spelled here and nowhere else. Each is declared once with
    its type and range (:mod:`stebkit.settings`): a switch only as a ``bool`` (the text
    ``"false"`` is refused, never taken as true), a seed an ``int`` in ``[0, 2**32)``, a
    batch size a positive ``int``; a value outside raises
    :class:`~stebkit.errors.InvalidSetting` naming the setting. The repr shows the
    settings that differ from the defaults.

    Parameters
    ----------
    seed : int, default 42
        Seeds dataset sampling, the task functions, the bootstrap and (with
        ``sampling="shuffle"``) episode sampling.
    smoke : bool, default False
        Load the small smoke version of each dataset.
    batch_size : int, default 32
        Encoding batch size (clustering's mini-batch stays 32, as the reference's).
    sampling : {"reference", "shuffle"}, default "reference"
        How episodes pick their texts: the reference's first N texts of each label in
        record order, or the first N after a seeded shuffle
        (:meth:`stebkit.tasks.TaskFamily.build`).
    overwrite : {"only-missing", "never", "always"}, default "only-missing"
        ``only-missing`` computes combinations without a valid record (missing, failed,
        or made from another dataset fingerprint) and raises
        :class:`stebkit.runs.planning.ProtocolMismatch`, before any work, when successful
        records were made with another seed, smoke setting, sampling or episodes per
        label; ``never`` leaves every existing file alone; ``always`` recomputes
        everything. (A new model revision is not detected: use ``always``.)
    device : str, optional
        Torch device of the neural encoders (``"cpu"``, ``"cuda"``, ``"cuda:1"``,
        ``"mps"``); default: a GPU when there is one. Non-neural baselines ignore it.
    dtype : {"auto", "float32", "bfloat16", "float16"}, default "auto"
        The dtype the torch encoders compute in (:mod:`stebkit.encoders.precision`):
        ``auto`` is each model's declared dtype (bfloat16 for the LLM embedders, float32
        for the small encoders, which stay float32 on the CPU unless asked); the others
        override it. Each record's ``model.encoder_config`` says which made it, and the
        embedding cache keeps each dtype's vectors apart. Other encoders ignore it.
    cache_embeddings : bool, default True
        Encode through the on-disk embedding cache (:func:`stebkit.encoders.cached`).
    trust_remote_code : bool, default False
        Allow models and datasets that run code from their repository (LUAR, gte,
        jina; the Hub loading scripts of ``blog_age``, ``blog_gender``,
        ``reuters21578``). Without it such a dataset stops the run before any work,
        with a message naming it, and such a model's results are recorded as failed.
    show_progress : bool, default True
        Show a progress bar over the records (over the units with other executors).

    Examples
    --------
    >>> ctx = RunContext(smoke=True)
    >>> ctx.protocol["smoke"], ctx.with_settings(seed=7).seed
    (True, 7)
    >>> RunContext(smoke=True, seed=7)
    RunContext(seed=7, smoke=True)
    >>> RunContext(batch_size=0)
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: batch_size must be an int in [1, 1000000), got 0
    >>> RunContext(trust_remote_code="false")
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: trust_remote_code must be true or false (a bool), got 'false'
    """

    WHAT = "run"

    seed: int = setting(42, replace(SEED, help="random seed in [0, 2^32)"))
    smoke: bool = setting(False, Setting(
        "smoke", "bool", help="load the small smoke version of each dataset (quick checks)"))
    batch_size: int = setting(32, Setting("batch_size", "int", low=1, high=MAX_COUNT,
                                          help="encoding batch size"))
    sampling: str = setting("reference", Setting(
        "sampling", "choice", choices=Sampling,
        help="episode texts: the first N of each label in record order, as the reference, "
             "or the first N after a seeded shuffle"))
    overwrite: str = setting("only-missing", Setting(
        "overwrite", "choice", choices=Overwrite,
        help="which existing records to recompute (only-missing refuses to replace results "
             "made with another --seed, --smoke, --sampling or episodes per label; always "
             "replaces them)"))
    device: str | None = setting(None, RUN_SETTINGS["device"])
    dtype: str = setting("auto", Setting(
        "dtype", "choice", choices=Dtype,
        help="dtype the neural models compute in: auto is each model's own (bfloat16 for "
             "the LLM embedders, float32 for the small encoders, which stay float32 on a CPU "
             "unless asked)"))
    cache_embeddings: bool = setting(True, Setting("cache_embeddings", "bool"))
    trust_remote_code: bool = setting(False, RUN_SETTINGS["trust_remote_code"])
    show_progress: bool = setting(True, Setting("show_progress", "bool", flag="--no-progress",
                                                help="hide the progress bar"))

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_device(self.device)

    @classmethod
    def split(cls, options: Mapping[str, Any]) -> tuple[RunContext, dict[str, Any]]:
        """A context from the settings among ``options`` (keyword arguments of
        :func:`stebkit.evaluate`), and the other options (what to plan: tasks, episode sizes,
        episodes per label, output folder, preset).

        >>> ctx, rest = RunContext.split({"seed": 7, "tasks": ["retrieval"]})
        >>> ctx.seed, rest
        (7, {'tasks': ['retrieval']})
        """
        names = set(SETTINGS)
        return (cls(**{k: v for k, v in options.items() if k in names}),
                {k: v for k, v in options.items() if k not in names})

    def with_settings(self, **settings: Any) -> RunContext:
        """This context with ``settings`` changed (checked again); an unknown name is a
        ``TypeError`` that lists the settings.

        >>> RunContext().with_settings(sed=1)
        Traceback (most recent call last):
        ...
        TypeError: unknown run setting 'sed'; the settings are seed, smoke, batch_size, \
sampling, overwrite, device, dtype, cache_embeddings, trust_remote_code, show_progress
        """
        return self.replace(**settings)

    @property
    def protocol(self) -> dict[str, Any]:
        """The run-wide protocol settings stored in every record
        (:func:`run_protocol`)."""
        return run_protocol(seed=self.seed, smoke=self.smoke, batch_size=self.batch_size,
                            sampling=self.sampling)


SETTINGS = tuple(f.name for f in fields(RunContext))
"""The names of the run settings (the fields of :class:`RunContext`), in order."""


OPTIONS: Mapping[str, Setting] = {
    "tasks": Setting("tasks", "text", optional=True, many=True),
    "episode_sizes": RUN_SETTINGS["episode_sizes"],
    "episodes_per_label": RUN_SETTINGS["episodes_per_label"],
    "preset": RUN_SETTINGS["preset"],
    "output_dir": Setting("output_dir", "text", flag="--output", help="results folder"),
}
"""The other options of :func:`stebkit.evaluate` (what to plan), declared as its settings
are (those a suite file may give with it, :data:`~stebkit.suites.checks.RUN_SETTINGS`):
each task name, episode size (-1: every text) and episodes per label is checked alone,
also as the values of a mapping task -> value (:func:`check_options`)."""


def check_options(**options: Any) -> dict[str, Any]:
    """``options`` (of :data:`OPTIONS`) checked through their declared settings, before
    anything is planned or written; a name, list or mapping task -> value each as
    :func:`stebkit.evaluate` takes it.

    >>> check_options(episodes_per_label={"clustering": 3}, output_dir="res")["output_dir"]
    'res'
    >>> check_options(output_dir="")
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: output_dir must be a non-empty text, got ''
    >>> check_options(episode_sizes=[2, float("nan")])
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: episode_sizes must be an int in [1, 1000000) or -1, got nan
    """
    out = dict(options)
    for name, value in options.items():
        checked = [OPTIONS[name].check(item) for item in _items(name, value)]
        if name == "output_dir":
            out[name] = checked[0]
    return out


def _items(name: str, value: Any) -> list[Any]:
    """Each single value of option ``name``: ``value`` itself, the values of a mapping
    task -> value, and (tasks, episode sizes) the items of a list, tuple or range."""
    values = list(value.values()) if isinstance(value, Mapping) else [value]
    if OPTIONS[name].many:
        values = [one for item in values
                  for one in (item if isinstance(item, (list, tuple, range)) else [item])]
    return values


@dataclass(eq=False)
class RunState:
    """What one run keeps between its units so that each thing is made once: the models
    built by name (``models``, keyed by name, options and device, and shared with the
    caller: a worker's later chunks, a preset's later entries), the datasets loaded
    (``datasets``, by name), the task inputs built (``inputs``, by dataset, task, episode
    size and episodes per label, with the warnings building them issued) and the current
    model adapted to each language with its cached version (``adapted``, by the adapted
    encoder's name; emptied for each model by :meth:`next_model`).

    The state is mutable: its caches fill as the run goes, and one state belongs to one
    run (or one worker); two states are equal only when they are the same object.

    >>> state = RunState()
    >>> state.adapted["m"] = ("encoder", "cached encoder")
    >>> state.next_model() is state, state.adapted
    (True, {})
    >>> state == RunState()
    False
    """

    models: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    datasets: dict[str, Any] = field(default_factory=dict)
    inputs: dict[tuple[Any, ...], tuple[Any, list[str]]] = field(default_factory=dict)
    adapted: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    def next_model(self) -> RunState:
        """This state ready for the next model (its adapted encoders let go)."""
        self.adapted.clear()
        return self


def _check_device(device: str | None) -> None:
    if device is None:
        return
    import torch

    try:
        torch.device(device)
    except (RuntimeError, ValueError):
        raise InvalidSetting(f"device {device!r} is not a torch device name ('cpu', 'cuda', "
                             "'cuda:1', 'mps')") from None


