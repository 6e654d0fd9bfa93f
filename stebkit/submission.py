"""Moved: the names of this module now live in :mod:`stebkit.records.submission`.

This path re-exports them for one release, each with a ``DeprecationWarning``.
"""

from stebkit._moved import forward

__getattr__ = forward(__name__, "stebkit.records.submission")
