"""The settings one run shares (:class:`RunContext`) and what it keeps between its units
(:class:`RunState`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from stebkit.tasks.inputs import SAMPLING

OVERWRITE = ("only-missing", "never", "always")
"""``only-missing``: compute what has no valid record (missing, failed, or made from
other dataset records or scored another way), and refuse to replace a successful record
made with other settings (seed, smoke, sampling, episodes per label:
:func:`stebkit.runs.planning.check_resume`);
``never``: never replace an existing file; ``always``: recompute everything."""


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


@dataclass(frozen=True)
class RunContext:
    """The settings every unit of one run shares, checked once: the settings of
    :func:`stebkit.evaluate`, spelled here and nowhere else.

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
    >>> RunContext(batch_size=0)
    Traceback (most recent call last):
    ...
    ValueError: batch_size must be a positive int, got 0
    """

    seed: int = 42
    smoke: bool = False
    batch_size: int = 32
    sampling: str = "reference"
    overwrite: str = "only-missing"
    device: str | None = None
    cache_embeddings: bool = True
    trust_remote_code: bool = False
    show_progress: bool = True

    def __post_init__(self) -> None:
        _check_device(self.device)
        if self.overwrite not in OVERWRITE:
            raise ValueError(f"overwrite must be one of {OVERWRITE}, got {self.overwrite!r}")
        if self.sampling not in SAMPLING:
            raise ValueError(f"sampling must be one of {SAMPLING}, got {self.sampling!r}")
        if isinstance(self.batch_size, bool) or not isinstance(
                self.batch_size, (int, np.integer)) or self.batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {self.batch_size!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) \
                or self.seed < 0:
            raise ValueError(f"seed must be a non-negative int, got {self.seed!r}")
        for name, value in (("seed", int(self.seed)), ("batch_size", int(self.batch_size)),
                            ("smoke", bool(self.smoke)),
                            ("trust_remote_code", bool(self.trust_remote_code))):
            object.__setattr__(self, name, value)

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
sampling, overwrite, device, cache_embeddings, trust_remote_code, show_progress
        """
        unknown = [name for name in settings if name not in SETTINGS]
        if unknown:
            raise TypeError(f"unknown run setting {unknown[0]!r}; the settings are "
                            f"{', '.join(SETTINGS)}")
        return replace(self, **settings) if settings else self

    @property
    def protocol(self) -> dict[str, Any]:
        """The run-wide protocol settings stored in every record
        (:func:`run_protocol`)."""
        return run_protocol(seed=self.seed, smoke=self.smoke, batch_size=self.batch_size,
                            sampling=self.sampling)


SETTINGS = tuple(f.name for f in fields(RunContext))
"""The names of the run settings (the fields of :class:`RunContext`), in order."""


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
    if not isinstance(device, str) or not device.strip():
        raise ValueError(f"device must be a name such as 'cpu', 'cuda', 'cuda:1' or 'mps', "
                         f"got {device!r}")
    import torch

    try:
        torch.device(device)
    except (RuntimeError, ValueError):
        raise ValueError(f"device {device!r} is not a torch device name ('cpu', 'cuda', "
                         "'cuda:1', 'mps')") from None


