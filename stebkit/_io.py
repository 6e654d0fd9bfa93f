"""Atomic file writes: a reader sees the old file or the complete new one, never half.

Every file stebkit writes (downloads, processed datasets, embeddings, result records,
figures, tables, checkpoints) goes through :func:`atomic_file`: the content is written to a
temporary file in the target's folder, flushed to disk, given the usual permissions
(``0o666`` less the umask — a temporary file would otherwise stay private) and renamed
over the target. On any error the temporary file is removed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_file(path: str | os.PathLike[str], mode: str = "wb",
                **open_kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file that replaces ``path`` when the block ends without error.

    Folders are created as needed.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "sub" / "a.txt"
    >>> with atomic_file(target, "w", encoding="utf-8") as fh:
    ...     _ = fh.write("complete")
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('complete', ['a.txt'])
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode, **open_kwargs) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically and return the path."""
    with atomic_file(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return Path(path)
