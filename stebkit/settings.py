"""One declared schema for settings: each setting is declared once, with its type and
range (:class:`Setting`), and every entry point checks what it is given through it.

A setting given from code, a suite file or a command line passes the same check: a
switch only as a ``bool`` (the text ``"false"`` is not false: it is refused), a whole
number only as an ``int`` (never a ``bool`` or a float), a number only when finite, each
within its declared range, a choice among its declared values. What is refused raises
:class:`~stebkit.errors.InvalidSetting` (a ``ValueError`` and a ``TypeError``) naming the
setting, what it must be and what it got, before anything runs.

The settings of :class:`stebkit.RunContext` are declared on its fields
(:func:`declared`); :func:`stebkit.evaluate`'s other options and those of
:class:`stebkit.train.TrainConfig` in the same way.

Examples
--------
>>> SEED.check(7)
7
>>> SEED.check(2**32)
Traceback (most recent call last):
...
stebkit.errors.InvalidSetting: seed must be an int in [0, 4294967296), got 4294967296
>>> Setting("smoke", "bool").check("false")
Traceback (most recent call last):
...
stebkit.errors.InvalidSetting: smoke must be true or false (a bool), got 'false'
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from stebkit.errors import InvalidSetting

KINDS = ("bool", "int", "number", "choice", "text")
"""The kinds of setting: a switch, a whole number, a finite real number, one of declared
values, a non-empty text."""


@dataclass(frozen=True)
class Setting:
    """One setting: its ``name`` (as a message shows it: ``seed`` or ``--seed``), its
    ``kind`` (:data:`KINDS`), its range (``low`` <= value, value < ``high`` for an int,
    value <= ``high`` for a number; ``low_open``/``high_open``: ``low`` < value, value <
    ``high``), its ``choices`` (of a choice; of an int, special values allowed outside
    the range) and whether ``None`` (not given) is allowed (``optional``).

    >>> Setting("batch_size", "int", low=1, high=2**20).check(0)
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: batch_size must be an int in [1, 1048576), got 0
    >>> Setting("learning_rate", "number", low=0, low_open=True).check(float("nan"))
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: learning_rate must be a finite number > 0, got nan
    """

    name: str
    kind: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[Any, ...] = ()
    optional: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"setting {self.name!r}: kind {self.kind!r} is none of {KINDS}")

    def named(self, name: str) -> Setting:
        """This setting under another name (a command line's ``--seed``)."""
        return replace(self, name=name)

    def describe(self) -> str:
        """What a value must be, in words."""
        if self.kind == "bool":
            return "true or false (a bool)"
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind == "text":
            return "a non-empty text"
        if self.kind == "int":
            also = "".join(f" or {c!r}" for c in self.choices)
            if self.high is None:
                return f"an int >= {self.low}{also}"
            return f"an int in [{self.low}, {self.high}){also}"
        low = "" if self.low is None else f" {'>' if self.low_open else '>='} {self.low:g}"
        high = "" if self.high is None else f" {'<' if self.high_open else '<='} {self.high:g}"
        return f"a finite number{low}{' and' if low and high else ''}{high}"

    def check(self, value: Any) -> Any:
        """``value`` if it is one of this setting's (an ``int``/``float`` of NumPy as the
        plain one); :class:`~stebkit.errors.InvalidSetting` otherwise."""
        if value is None and self.optional:
            return None
        checked = _CHECKS[self.kind](self, value)
        if checked is _REFUSED:
            from stebkit._io import shown

            raise InvalidSetting(f"{self.name} must be {self.describe()}, got {shown(value)}")
        return checked


_REFUSED = object()


def _bool(setting: Setting, value: Any) -> Any:
    return value if isinstance(value, bool) else _REFUSED


def _int(setting: Setting, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return _REFUSED
    value = int(value)
    if value in setting.choices:  # a special value outside the range (-1: all)
        return value
    if (setting.low is not None and value < setting.low) or \
            (setting.high is not None and value >= setting.high):
        return _REFUSED
    return value


def _number(setting: Setting, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return _REFUSED
    value = float(value)
    low, high = setting.low, setting.high
    if not math.isfinite(value) or (
            high is not None and (value >= high if setting.high_open else value > high)) or (
            low is not None and (value <= low if setting.low_open else value < low)):
        return _REFUSED
    return value


def _choice(setting: Setting, value: Any) -> Any:
    ok = isinstance(value, str) and value in setting.choices
    return value if ok else _REFUSED


def _text(setting: Setting, value: Any) -> Any:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    return value if isinstance(value, str) and value.strip() else _REFUSED


_CHECKS: Mapping[str, Callable[[Setting, Any], Any]] = {
    "bool": _bool, "int": _int, "number": _number, "choice": _choice, "text": _text}

SEED = Setting("seed", "int", low=0, high=2**32)
"""A random seed: what NumPy's and scikit-learn's generators take, ``[0, 2**32)``."""

MAX_COUNT = 1_000_000
"""The most of anything counted per step or episode (batch sizes, episode sizes,
episodes per label): far above any real use, far below what would exhaust a machine."""


def setting(default: Any, declared: Setting, **kwargs: Any) -> Any:
    """A dataclass field whose value is checked by ``declared`` (:func:`check_fields`).

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Options:
    ...     verbose: bool = setting(False, Setting("verbose", "bool"))
    ...     def __post_init__(self):
    ...         check_fields(self)
    >>> Options(verbose="no")
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: verbose must be true or false (a bool), got 'no'
    """
    return field(default=default, metadata={"setting": declared}, **kwargs)


def declared(obj: Any) -> dict[str, Setting]:
    """The declared :class:`Setting` of each field of the dataclass ``obj`` (or class)."""
    return {f.name: f.metadata["setting"] for f in fields(obj) if "setting" in f.metadata}


def check_fields(obj: Any) -> None:
    """Check every declared field of the frozen dataclass ``obj`` and store its checked
    value (a NumPy int as ``int``)."""
    for name, declared_setting in declared(obj).items():
        object.__setattr__(obj, name, declared_setting.check(getattr(obj, name)))


def changed(obj: Any) -> dict[str, Any]:
    """The fields of the dataclass ``obj`` whose value differs from their default, in
    order: what its repr shows (as scikit-learn's estimators print only the parameters
    that were changed).

    >>> from stebkit.runs.context import RunContext
    >>> changed(RunContext(seed=7, smoke=True))
    {'seed': 7, 'smoke': True}
    """
    return {f.name: getattr(obj, f.name) for f in fields(obj)
            if getattr(obj, f.name) != f.default}
