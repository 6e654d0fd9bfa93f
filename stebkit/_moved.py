"""Old module paths kept for one release: each forwards its names to where they moved.

A forwarded name still works and issues a :class:`DeprecationWarning` that names its new
home, so code can move at its own pace:

>>> import warnings
>>> from stebkit._moved import forward
>>> getattr_ = forward("old.place", "stebkit.records.results", {"OldRecord": "Record"})
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     getattr_("OldRecord").__name__
'Record'
>>> str(caught[0].message)
'old.place.OldRecord moved to stebkit.records.results.Record; import it from there'
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any


def forward(old: str, new: str, renamed: Mapping[str, str] | None = None
            ) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the old path ``old`` whose names now live in module
    ``new`` (``renamed``: old name -> new name where a name changed). The old module
    lists none of them (``dir``), so tools that walk a module warn about nothing."""
    renamed = dict(renamed or {})

    def __getattr__(name: str) -> Any:
        if name == "__all__":
            return [*getattr(importlib.import_module(new), "__all__", ()), *renamed]
        if name.startswith("__"):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        target = renamed.get(name, name)
        value = getattr(importlib.import_module(new), target)
        warnings.warn(f"{old}.{name} moved to {new}.{target}; import it from there",
                      DeprecationWarning, stacklevel=2)
        return value

    return __getattr__
