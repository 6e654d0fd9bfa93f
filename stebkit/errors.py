"""Exceptions raised by stebkit.

Every error names the offending item and says how to fix it.
"""

from __future__ import annotations


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


class LinkRefused(StebkitError, ValueError):
    """A folder or file stebkit would write through is a symbolic link, or not what it
    should be (a file where a folder belongs), below a folder of the user's choosing."""


class InvalidSetting(StebkitError, ValueError, TypeError):
    """A setting's value is not of its declared type or range (:mod:`stebkit.settings`):
    the message names the setting, what it must be and what it got."""
