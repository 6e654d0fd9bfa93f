"""File names of models and datasets: the ground floor every folder may import.

A model or dataset name becomes a folder or file name in the results folder, the
processed-records cache and the job files. :func:`safe_name` makes a name safe for
every file system; :func:`file_name` makes it safe *and* keeps one file name per name,
so two names never share a file.

>>> file_name("team/model"), file_name("team__model")
('team__model', 'team__model~29cce84dd9')
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["file_name", "safe_name"]

LONGEST_SUFFIX = len(".") + len("-0123456789abcdef.parquet.sha256") + len(".0123abcd.tmp")
"""The most bytes stebkit adds to a :func:`file_name`: the temporary file (``.<name>.
<8 characters>.tmp``) of the checksum beside a processed dataset
(``<name>-<fingerprint>.parquet.sha256``)."""

MAX_FILE_NAME_BYTES = 255
"""The longest file name most file systems hold, in bytes."""


def safe_name(name: str) -> str:
    """A file-system-safe version of a model or dataset name.

    >>> safe_name("sentence-transformers/all-MiniLM-L6-v2")
    'sentence-transformers__all-MiniLM-L6-v2'
    >>> safe_name("my model: v2?")
    'my_model_v2'
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a model or dataset name must be a non-empty string, got {name!r}")
    out = name.strip().replace("/", "__").replace("\\", "__")
    out = re.sub(r"[^A-Za-z0-9._+=-]+", "_", out).strip("._")
    return out or "_"


_PLAIN = re.compile(r"[A-Za-z0-9+=-]+(?:[./][A-Za-z0-9+=-]+|_[A-Za-z0-9+=-]+)*")


def file_name(name: str) -> str:
    """The file name of a model or dataset: one name, one file name, never shared.

    A plain name (letters, digits, ``.+=-``, single ``_`` and ``/`` between them) keeps
    its :func:`safe_name` (``/`` becomes ``__``, which a plain name never holds itself);
    any other name gets its :func:`safe_name` plus ``~`` and a short hash of the exact
    name, so ``team/model`` and ``team__model`` never share a file.

    >>> file_name("sentence-transformers/all-MiniLM-L6-v2")
    'sentence-transformers__all-MiniLM-L6-v2'
    >>> file_name("team/model") != file_name("team__model")
    True
    >>> file_name("team__model")
    'team__model~29cce84dd9'
    """
    base = safe_name(name)
    if _PLAIN.fullmatch(name):
        return base
    return f"{base}~{hashlib.sha256(name.encode('utf-8')).hexdigest()[:10]}"
