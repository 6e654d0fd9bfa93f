"""What a ``stebkit run`` asks for, resolved into names and settings before anything runs.

A :class:`RunRequest` turns the choices of a command line (a built-in suite, a suite file, a
preset, named datasets, models, run settings and the grants a suite file needs) into what
:func:`stebkit.evaluate` takes: the dataset names (``None``: those of the preset), the run
settings (the command line's value, else the suite file's), the models (the default ones
when none are named) and the label that names the run's figures. The datasets of a
built-in suite that run code from their repository are left out unless remote code is
trusted; they are listed in :attr:`RunRequest.left_out` (a dataset named on purpose is
refused later instead).

Examples
--------
>>> request = RunRequest.resolve(suite="smoke", models=["random"])
>>> request.label.startswith("smoke-models-"), request.smoke, request.settings["preset"]
(True, True, None)
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stebkit.datasets.registry import SUITES
from stebkit.suites.checks import RUN_SETTINGS

SUITE_FILES = (".yaml", ".yml", ".toml")
"""The file endings a ``--suite`` value names a suite file by."""



def subset_label(kind: str, names: Sequence[str]) -> str:
    """The figure label of a run over chosen datasets or models: the kind and a short hash
    of the sorted names, so that such a run never overwrites the figures of a whole suite.

    >>> subset_label("models", ["b", "a"]) == subset_label("models", ["a", "b"])
    True
    >>> subset_label("datasets", ["a"]).startswith("datasets-")
    True
    """
    digest = hashlib.sha256("\n".join(sorted(names)).encode()).hexdigest()[:8]
    return f"{kind}-{digest}"


def is_suite_file(suite: str) -> bool:
    """Whether ``suite`` names a suite file rather than a built-in suite.

    >>> is_suite_file("my-suite.yaml"), is_suite_file("lite")
    (True, False)
    """
    return suite not in SUITES and Path(suite).suffix.lower() in SUITE_FILES


def unknown_suite(suite: str) -> ValueError:
    """The error for a ``--suite`` value that is neither a built-in suite nor a suite file."""
    return ValueError(f"--suite {suite!r} is neither a built-in suite {SUITES} "
                      f"nor a suite file ({', '.join(SUITE_FILES)})")


@dataclass(frozen=True)
class RunRequest:
    """A run resolved from its request: see the module docstring and :meth:`resolve`."""

    datasets: list[str] | None
    """The dataset names, ``None`` for those of the preset."""
    models: list[str]
    label: str
    """The name of the run's figures: the suite's, or a hash of chosen datasets/models."""
    smoke: bool
    settings: dict[str, Any]
    """The run settings a suite file may give (:data:`~stebkit.suites.checks.RUN_SETTINGS`),
    ``trust_remote_code`` a ``bool``."""
    executor: Any = None
    """The suite file's ``run: {executor: ...}`` settings, ``None`` without one."""
    left_out: tuple[str, ...] = field(default=())
    """Datasets of a built-in suite left out because they run remote code."""

    @classmethod
    def resolve(cls, *, suite: str | None = None, datasets: Sequence[str] | None = None,
                models: Sequence[str] | None = None, smoke: bool = False,
                settings: Mapping[str, Any] | None = None, allow_setup: bool = False,
                allow_sbatch_extra: bool = False) -> RunRequest:
        """Resolve a request; ``settings`` holds the command line's values of
        :data:`~stebkit.suites.checks.RUN_SETTINGS`
        (``None``: not given). ``allow_setup`` / ``allow_sbatch_extra`` grant a suite
        file's SLURM setup lines and sbatch options. Raises ``ValueError`` naming what to
        give when nothing says what to run, or the suite is unknown or empty."""
        given = {name: (settings or {}).get(name) for name in RUN_SETTINGS}
        names, label, from_file = _datasets(suite, datasets, given, allow_setup,
                                            allow_sbatch_extra)
        chosen = {name: given[name] if given[name] is not None else from_file.get(name)
                  for name in RUN_SETTINGS}
        chosen["trust_remote_code"] = bool(chosen["trust_remote_code"])
        left_out: tuple[str, ...] = ()
        if suite in SUITES and not datasets and not chosen["trust_remote_code"]:
            from stebkit.datasets import get_spec

            left_out = tuple(n for n in names if get_spec(n).needs_remote_code)
            names = [n for n in names if n not in left_out]
        from stebkit.encoders import default_models

        defaults = default_models()
        models = list(models or defaults)
        if sorted(models) != sorted(defaults):  # chosen models: figures of their own
            label = f"{label}-{subset_label('models', models)}"
        return cls(datasets=names, models=models, label=label,
                   smoke=smoke or suite == "smoke", settings=chosen,
                   executor=from_file.get("executor"), left_out=left_out)

    def left_out_note(self) -> str | None:
        """The line naming :attr:`left_out` and how to include them (``None``: none)."""
        if not self.left_out:
            return None
        return (f"{len(self.left_out)} dataset(s) left out: they run code from their Hugging "
                f"Face repository when loaded ({', '.join(self.left_out)}); add "
                "--trust-remote-code to include them")


def _datasets(suite: str | None, datasets: Sequence[str] | None, given: Mapping[str, Any],
              allow_setup: bool, allow_sbatch_extra: bool
              ) -> tuple[Any, str, dict[str, Any]]:
    """The dataset names, the label and the suite file's granted run settings."""
    if suite is None and not (datasets or given["preset"]):
        raise ValueError("stebkit run: say what to run: --suite lite (or smoke, synthetic, "
                         "steb, a suite file), --datasets NAME ... or --preset benchmark; "
                         "`stebkit datasets` lists the datasets")
    if datasets:
        return list(datasets), subset_label("datasets", datasets), {}
    if suite is None:  # no suite: the datasets of the preset
        return None, f"preset-{given['preset']}", {}
    if is_suite_file(suite):
        from stebkit.suites import load_suite

        loaded = load_suite(suite)
        # what the file asks for needs the caller's grant
        granted = loaded.granted_run(trust_remote_code=bool(given["trust_remote_code"]),
                                     allow_setup=allow_setup,
                                     allow_sbatch_extra=allow_sbatch_extra)
        return loaded.datasets, loaded.name, granted
    if suite not in SUITES:
        raise unknown_suite(suite)
    from stebkit.datasets import list_datasets

    names = list(list_datasets(suite=suite))
    if not names:
        raise ValueError(f"suite {suite!r} has no datasets")
    return names, suite, {}
