"""Exceptions raised by stebkit, and how it warns.

Every error names the offending item and says how to fix it; every warning that reports
on the caller's data names the caller's line (:func:`warn`), never a library file.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
"""The folder of the stebkit package: frames of its modules are the library's own."""


def caller_stacklevel(package: Path = PACKAGE) -> int:
    """The ``stacklevel`` that makes a warning issued by the caller of this function point
    at the first frame outside ``package``: the user's script, notebook cell or test.

    >>> caller_stacklevel(Path("/nowhere"))  # every frame is outside: the caller itself
    1
    """
    root = str(package) + os.sep
    frame, level = sys._getframe(1), 1
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(root):
        frame, level = frame.f_back, level + 1
    return level


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Issue a warning that names the line of the caller's own code which led to it (the
    first frame outside the stebkit package), however deep in the library it arose, so
    that what a reader sees is their code, never a library source line.

    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("3 texts are empty")
    >>> str(caught[0].message), caught[0].filename.startswith("<doctest")  # not errors.py
    ('3 texts are empty', True)
    """
    warnings.warn(message, category, stacklevel=caller_stacklevel())


class StebkitError(Exception):
    """Base class of every stebkit-specific error."""


class DataUnavailable(StebkitError, OSError):
    """A data file or dataset cannot be reached (offline, not mirrored, not cached).

    Examples
    --------
    >>> raise DataUnavailable("https://example.org/x.csv is not cached")
    Traceback (most recent call last):
    ...
    stebkit.errors.DataUnavailable: https://example.org/x.csv is not cached
    """


class ChecksumMismatch(StebkitError, ValueError):
    """A file's sha256 differs from the one the catalogue pins."""


class RemoteCodeRefused(StebkitError, PermissionError):
    """A dataset or model needs code from its repository and the user has not opted in."""


class ModelUnavailable(StebkitError, OSError):
    """A model cannot be loaded here (offline, missing optional dependency, remote code)."""


class NothingRan(StebkitError, ValueError):
    """An evaluation has nothing to run on what it was given (``stebkit run`` exits 1)."""


class NothingToScore(StebkitError, ValueError):
    """Results hold no model a score counts: only models the reference does not score
    (its excluded models). ``stebkit run`` keeps their records and shows no leaderboard;
    ``stebkit leaderboard`` exits 2."""


class LinkRefused(StebkitError, ValueError):
    """A folder or file stebkit would write through is a symbolic link, or not what it
    should be (a file where a folder belongs), below a folder of the user's choosing."""


class InvalidSetting(StebkitError, ValueError, TypeError):
    """A setting's value is not of its declared type or range (:mod:`stebkit.settings`):
    the message names the setting, what it must be and what it got."""


_FAULTS: dict[str, Callable[[Path], None]] = {}

FAULT_POINTS = ("write",)
"""Where a test may inject a fault (:func:`inject_fault`): ``write``, as the one writer
(:func:`stebkit._io.atomic_file`) starts a file, before anything is created."""


@contextmanager
def inject_fault(point: str, fault: Callable[[Path], None]) -> Iterator[None]:
    """A test hook: while the block runs, ``fault(path)`` is called at ``point``
    (:data:`FAULT_POINTS`) with the file at stake, and may raise the error to inject there
    (a full disk, a read-only file system); stebkit handles it as the real one. Faults
    reach this process only, not the workers it starts.

    >>> import errno, tempfile, pathlib
    >>> from stebkit._io import write_text
    >>> def full(path):
    ...     raise OSError(errno.ENOSPC, "No space left on device", str(path))
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> with inject_fault("write", full):
    ...     write_text(target, "x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    OSError: [Errno 28] No space left on device: ...a.txt'...
    >>> write_text(target, "x").read_text()  # the block is over: no fault
    'x'
    """
    if point not in FAULT_POINTS:
        raise ValueError(f"fault point {point!r} is not one of {list(FAULT_POINTS)}")
    before = _FAULTS.get(point)
    _FAULTS[point] = fault
    try:
        yield
    finally:
        if before is None:
            _FAULTS.pop(point, None)
        else:
            _FAULTS[point] = before


def fault_point(point: str, path: Path) -> None:
    """Where stebkit lets an injected fault happen (:func:`inject_fault`); nothing when
    none is injected."""
    fault = _FAULTS.get(point)
    if fault is not None:
        fault(path)
