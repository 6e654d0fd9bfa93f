"""One declared schema for settings: each setting is declared once, with its type and
range (:class:`Setting`), and every entry point checks what it is given through it.

A setting given from code, a suite file or a command line passes the same check: a
switch only as a ``bool`` (the text ``"false"`` is not false: it is refused), a whole
number only as an ``int`` (never a ``bool`` or a float), a number only when finite, each
within its declared range, a choice among its declared values. What is refused raises
:class:`~stebkit.errors.InvalidSetting` (a ``ValueError`` and a ``TypeError``) naming the
setting, what it must be and what it got, before anything runs.

A group of settings is a frozen dataclass built on :class:`Settings` whose fields are
declared with :func:`setting`: :class:`stebkit.RunContext`,
:class:`stebkit.train.TrainConfig`, :class:`stebkit.ScoreRecipe` and
:class:`~stebkit.suites.executor_config.ExecutorConfig`. From those declarations alone it
is checked, printed (only what differs from the defaults, as scikit-learn's estimators),
changed (:meth:`Settings.replace`), given its command-line flags (a setting with a
``help`` has one: :func:`add_flags`, with its help, choices and default) and read back
from them (:func:`flag_values`, a bad value named by its flag). A fixed set of choices is
a :class:`Choice` (a ``str`` enum: the plain text still works). A new option is one field.

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

import argparse
import dataclasses
import math
import numbers
import os
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from enum import Enum
from typing import Any, TypeVar

from stebkit.errors import InvalidSetting


class Choice(str, Enum):
    """The fixed choices of a setting, as a ``str`` enum: each member is also its plain
    text, so ``"never"`` and ``Overwrite.NEVER`` are the same value.

    >>> class Colour(Choice):
    ...     RED = "red"
    ...     BLUE = "blue"
    >>> Colour.values(), Colour.RED == "red", str(Colour.BLUE)
    (('red', 'blue'), True, 'blue')
    """

    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """The plain texts of the choices, in order."""
        return tuple(member.value for member in cls)


KINDS = ("bool", "int", "number", "choice", "text")
"""The kinds of setting: a switch, a whole number, a finite real number, one of declared
values, a non-empty text."""


@dataclass(frozen=True)
class Setting:
    """One setting: its ``name`` (as a message shows it: ``seed`` or ``--seed``), its
    ``kind`` (:data:`KINDS`), its range (``low`` <= value, value < ``high`` for an int,
    value <= ``high`` for a number; ``low_open``/``high_open``: ``low`` < value, value <
    ``high``), its ``choices`` (of a choice, a :class:`Choice` enum or a tuple; of an int,
    special values allowed outside the range) and whether ``None`` (not given) is
    allowed (``optional``).

    How the command line shows it: with a ``help`` it has a flag (:func:`add_flags`),
    named ``flag`` (default: ``--`` and the field's name with dashes), showing
    ``metavar``, taking one or more values when ``many`` (each checked alone).

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
    choices: Any = ()
    optional: bool = False
    help: str = ""
    flag: str = ""
    metavar: str | None = None
    many: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"setting {self.name!r}: kind {self.kind!r} is none of {KINDS}")
        if isinstance(self.choices, type) and issubclass(self.choices, Choice):
            object.__setattr__(self, "choices", self.choices.values())

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
    try:
        value = float(value)
    except OverflowError:  # an int beyond the float range (10**400) is no finite number
        return _REFUSED
    low, high = setting.low, setting.high
    if not math.isfinite(value) or (
            high is not None and (value >= high if setting.high_open else value > high)) or (
            low is not None and (value <= low if setting.low_open else value < low)):
        return _REFUSED
    return value


def _choice(setting: Setting, value: Any) -> Any:
    ok = isinstance(value, str) and value in setting.choices
    return str(value.value if isinstance(value, Enum) else value) if ok else _REFUSED


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


def check_fields(obj: Any, skip: tuple[str, ...] = ()) -> None:
    """Check every declared field of the frozen dataclass ``obj`` (but those of ``skip``)
    and store its checked value (a NumPy int as ``int``, a choice as its plain text)."""
    for name, declared_setting in declared(obj).items():
        if name not in skip:
            object.__setattr__(obj, name, declared_setting.check(getattr(obj, name)))


def _default(f: dataclasses.Field[Any]) -> Any:
    return f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]


def changed(obj: Any) -> dict[str, Any]:
    """The fields of the dataclass ``obj`` whose value differs from their default, in
    order: what its repr shows (as scikit-learn's estimators print only the parameters
    that were changed).

    >>> from stebkit.runs.context import RunContext
    >>> changed(RunContext(seed=7, smoke=True))
    {'seed': 7, 'smoke': True}
    """
    return {f.name: getattr(obj, f.name) for f in fields(obj)
            if getattr(obj, f.name) != _default(f)}


SettingsT = TypeVar("SettingsT", bound="Settings")


class Settings:
    """The base of a group of settings: a frozen dataclass (declared with ``repr=False``,
    so that this repr stays) whose fields are declared with :func:`setting`. It is
    checked when made, prints only what differs from the defaults, lists its values
    (:meth:`get_params`), is changed by name (:meth:`replace`) and adds its command-line
    flags (:meth:`add_flags`, :meth:`from_flags`). ``WHAT`` names it in messages (default:
    the class's name).

    >>> @dataclass(frozen=True, repr=False)
    ... class Options(Settings):
    ...     WHAT = "toy"
    ...     size: int = setting(3, Setting("size", "int", low=1, high=10, help="how many"))
    ...     verbose: bool = setting(False, Setting("verbose", "bool", help="say more"))
    >>> Options(), Options(size=4), Options().get_params()
    (Options(), Options(size=4), {'size': 3, 'verbose': False})
    >>> Options(size=0)
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: size must be an int in [1, 10), got 0
    >>> Options().replace(sise=4)
    Traceback (most recent call last):
    ...
    TypeError: unknown toy setting 'sise'; the settings are size, verbose
    >>> parser = argparse.ArgumentParser(prog="toy")
    >>> Options.add_flags(parser)
    >>> Options.from_flags(parser.parse_args(["--size", "5", "--verbose"]))
    Options(size=5, verbose=True)
    >>> Options.from_flags(parser.parse_args(["--size", "50"]))
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: --size must be an int in [1, 10), got 50
    """

    WHAT = ""

    def __post_init__(self) -> None:
        check_fields(self)  # each field through its declared setting

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={_shown(v)}" for k, v in changed(self).items())
        return f"{type(self).__name__}({shown})"

    def get_params(self) -> dict[str, Any]:
        """Every setting by name, in order (scikit-learn's ``get_params``)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]

    def replace(self: SettingsT, **changes: Any) -> SettingsT:
        """A copy with ``changes`` (checked again); an unknown name is a ``TypeError``
        that lists the settings."""
        names = [f.name for f in fields(self)]  # type: ignore[arg-type]
        unknown = [name for name in changes if name not in names]
        if unknown:
            what = self.WHAT or type(self).__name__
            raise TypeError(f"unknown {what} setting {unknown[0]!r}; the settings are "
                            f"{', '.join(names)}")
        return replace(self, **changes) if changes else self  # type: ignore[type-var]

    @classmethod
    def add_flags(cls, parser: Any, *, given_only: tuple[str, ...] = (),
                  only: tuple[str, ...] = ()) -> None:
        """Add the flag of each setting with a ``help`` (of ``only``, when given) to
        ``parser`` (:func:`add_flags`); those of ``given_only`` default to ``None`` (not
        given: another source, such as a suite file, may set them)."""
        defaults = {f.name: _default(f) for f in fields(cls)}  # type: ignore[arg-type]
        settings = {name: s for name, s in declared(cls).items() if not only or name in only}
        add_flags(parser, settings, defaults, given_only=given_only)

    @classmethod
    def from_flags(cls: type[SettingsT], args: argparse.Namespace, **values: Any
                   ) -> SettingsT:
        """These settings from the flags in ``args`` (each checked as its flag names it,
        :func:`flag_values`), with ``values`` besides."""
        return cls(**{**flag_values(args, declared(cls)), **values})


def _shown(value: Any) -> str:
    return repr(os.fspath(value) if isinstance(value, os.PathLike) else value)


def flag_of(name: str, declared_setting: Setting) -> str:
    """The command-line flag of the setting ``name``: its declared ``flag``, else
    ``--`` and the name with dashes.

    >>> flag_of("batch_size", Setting("batch_size", "int", low=1))
    '--batch-size'
    """
    return declared_setting.flag or "--" + name.replace("_", "-")


def add_flags(parser: Any, settings: Mapping[str, Setting],
              defaults: Mapping[str, Any] | None = None, *,
              given_only: tuple[str, ...] = ()) -> None:
    """Add to the argparse ``parser`` (or group) a flag for each of ``settings`` that has
    a ``help``: a switch (``--smoke``; a switch that is on by default is turned off,
    ``--no-progress``), a value of its kind with its choices, or (``many``) one or more.
    The value lands under the setting's name; its default is ``defaults``' (said in the
    help), ``None`` for the names of ``given_only``.

    >>> parser = argparse.ArgumentParser(prog="toy")
    >>> add_flags(parser, {"mode": Setting("mode", "choice", choices=("a", "b"),
    ...                                    help="the mode")}, {"mode": "a"})
    >>> parser.parse_args(["--mode", "b"]).mode, parser.format_usage().strip()
    ('b', 'usage: toy [-h] [--mode {a,b}]')
    """
    defaults = defaults or {}
    for name, declared_setting in settings.items():
        if not declared_setting.help:
            continue
        default = defaults.get(name)
        text = declared_setting.help
        if declared_setting.kind != "bool" and default is not None and "default" not in text:
            text += f" (default: {default})"
        if declared_setting.kind == "bool":  # off by default: --smoke; on: --no-progress
            default = bool(default)
        kwargs: dict[str, Any] = {"dest": name, "help": text,
                                  "default": None if name in given_only else default}
        if declared_setting.kind == "bool":
            kwargs.update(action="store_const", const=not default)
        else:
            kwargs["type"] = {"int": int, "number": float}.get(declared_setting.kind, str)
            flag = flag_of(name, declared_setting)  # --output OUTPUT, whatever the name
            if declared_setting.kind == "choice":
                kwargs["choices"] = declared_setting.choices
            kwargs["metavar"] = declared_setting.metavar or (
                None if declared_setting.kind == "choice" else flag[2:].replace("-", "_").upper())
            if declared_setting.many:
                kwargs["nargs"] = "+"
        parser.add_argument(flag_of(name, declared_setting), **kwargs)


def flag_values(args: argparse.Namespace, settings: Mapping[str, Setting]) -> dict[str, Any]:
    """The values in ``args`` of the flags of ``settings`` (:func:`add_flags`), each
    checked through its setting named as its flag (``--seed must be ...``); ``None`` (not
    given) is left out.

    >>> flag_values(argparse.Namespace(seed=2**32), {"seed": replace(SEED, help="seed")})
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: --seed must be an int in [0, 4294967296), got 4294967296
    """
    out = {}
    for name, declared_setting in settings.items():
        value = getattr(args, name, None)
        if not declared_setting.help or value is None:
            continue
        as_flag = declared_setting.named(flag_of(name, declared_setting))
        for item in value if declared_setting.many else [value]:
            as_flag.check(item)
        out[name] = value
    return out
