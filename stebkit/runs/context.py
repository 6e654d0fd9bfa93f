"""The settings one run shares: :class:`RunContext`."""

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
    """The settings every unit of one run shares, checked once (arguments as
    :func:`stebkit.evaluate`); :func:`stebkit.evaluate` makes one from its arguments.

    ``encoders`` keeps the models built by name, keyed by ``(name, options, device)``,
    for every evaluation with this context that names them: a worker that evaluates one
    model on several chunks of datasets, or a preset's entries, build (and load) it once.
    None (the default): each evaluation builds its own models.

    >>> ctx = RunContext(smoke=True)
    >>> ctx.encoders is None, ctx.keeping_encoders().encoders, ctx.protocol["smoke"]
    (True, {}, True)
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
    encoders: dict[tuple[Any, ...], Any] | None = field(default=None, compare=False,
                                                         repr=False)

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
        names = {f.name for f in fields(cls)} - {"encoders"}
        return (cls(**{k: v for k, v in options.items() if k in names}),
                {k: v for k, v in options.items() if k not in names})

    @property
    def protocol(self) -> dict[str, Any]:
        """The run-wide protocol settings stored in every record
        (:func:`run_protocol`)."""
        return run_protocol(seed=self.seed, smoke=self.smoke, batch_size=self.batch_size,
                            sampling=self.sampling)

    def keeping_encoders(self) -> RunContext:
        """This context keeping the models it builds (itself when it keeps them already)."""
        return self if self.encoders is not None else replace(self, encoders={})



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


