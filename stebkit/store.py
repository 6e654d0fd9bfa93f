"""The one store of derived files: embedding shards, exported ONNX graphs, LFTK features,
fitted baselines (TF-IDF vocabularies, LFTK standardisers) and processed datasets.

Like git's objects or the Nix store, every entry is

- **keyed by what made it**: it lies in the folder ``<root>/<label>/<key>/``, where
  ``key`` (:func:`entry_key`) hashes the producer and its version, the digests of its
  inputs and its settings (any mapping of plain values), so an entry made one way is
  never found for another;
- **named by its own bytes**: its file name is the sha256 of its content
  (``<sha256><suffix>``), checked on every read;
- **written atomically** (:func:`stebkit._io.atomic_file`), never through a link, with no
  write permission for the group or others;
- **used only when this user wrote it and no one else could have replaced it**, as the
  job folder's rule (:func:`stebkit.runs.executors.jobfiles.check_private_path`) says:
  the entry must be a regular file with one link, owned by this user, writable by no one
  else, in folders that belong to this user (or root) and that others cannot write (or
  that have the sticky bit), up to ``/``.

An entry that fails (a symbolic link, FIFO or device in its place, another user's file,
bytes that are not their name's digest, arrays of the wrong shape) is never served: it is
moved aside (renamed ``<name>.rejected``) with one warning naming the file and what is
wrong, and its caller builds it again. No other module reads or writes derived files in
the cache (``tests/test_one_opener.py`` scans for it).
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import re
import stat
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["FORMAT", "KINDS", "Store", "entry_key", "folder_fault", "store_of"]

FORMAT = 1
"""Bumped when the store's layout changes: entries of another format are never found (each
is simply built again)."""

KINDS = {
    "embeddings": "embedding cache shard",
    "onnx": "exported ONNX graph",
    "lftk": "LFTK feature shard",
    "baselines": "fitted baseline",
    "processed": "processed dataset",
}
"""The kinds of derived file: the folder of the cache each lives in, and what an entry is
called in messages."""

_ENTRY = re.compile(r"[0-9a-f]{64}(\.[a-z0-9]+)+")


def entry_key(producer: str, version: object, *, inputs: Mapping[str, str] | None = None,
              settings: Mapping[str, Any] | None = None) -> str:
    """The sha256 (hex) of what makes an entry: its producer and version, the digests of
    its ``inputs`` and its ``settings`` (a mapping of plain values: a new setting, such as
    a dtype, is one more item). The order of a mapping's items does not matter.

    >>> a = entry_key("all-MiniLM-L6-v2", "rev1", settings={"pooling": "mean"})
    >>> a == entry_key("all-MiniLM-L6-v2", "rev1", settings={"pooling": "mean"}), len(a)
    (True, 64)
    >>> a == entry_key("all-MiniLM-L6-v2", "rev1", settings={"pooling": "cls"})
    False
    """
    blob = json.dumps({"format": FORMAT, "producer": str(producer), "version": str(version),
                       "inputs": dict(inputs or {}), "settings": dict(settings or {})},
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def store_of(kind: str, cache: str | os.PathLike[str] | None = None) -> Store:
    """The store of one of the :data:`KINDS` of derived file, below the cache folder
    ``cache`` (default ``$STEBKIT_CACHE``).

    >>> import tempfile
    >>> store = store_of("onnx", tempfile.mkdtemp())
    >>> store.root.name, store.what
    ('onnx', 'exported ONNX graph')
    """
    from stebkit.sources import cache_dir

    return Store((Path(cache) if cache is not None else cache_dir()) / kind, KINDS[kind])


def _slug(label: str) -> str:
    """A readable folder name for ``label`` (the key beneath it tells entries apart)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("._")[-80:] or "entry"


class Store:
    """The entries of one kind of derived file below ``root`` (see the module docstring).

    Parameters
    ----------
    root : path
        The kind's folder (e.g. ``$STEBKIT_CACHE/embeddings``).
    what : str
        What an entry is, for messages (``"embedding shard"``).

    Examples
    --------
    >>> import tempfile
    >>> store = Store(tempfile.mkdtemp(), "note")
    >>> folder = store.folder("greeter", "1", settings={"lang": "en"})
    >>> path = store.put(folder, b"hello", ".txt")
    >>> path.name[:12], store.get(path)
    ('2cf24dba5fb0', b'hello')
    >>> [p.name == path.name for p in store.entries(folder, ".txt")]
    [True]
    """

    def __init__(self, root: str | os.PathLike[str], what: str) -> None:
        self.root = Path(root)
        self.what = what
        self._warned: set[Path] = set()
        self._above: str | None | bool = False  # what is wrong above root (False: unknown)

    # -- places -------------------------------------------------------------------------
    def folder(self, producer: str, version: object, *, inputs: Mapping[str, str] | None = None,
               settings: Mapping[str, Any] | None = None, label: str | None = None) -> Path:
        """The folder of the entries made by ``producer`` at ``version`` from ``inputs``
        with ``settings`` (:func:`entry_key`), below a folder named after ``label`` (default:
        the producer)."""
        key = entry_key(producer, version, inputs=inputs, settings=settings)
        return self.root / _slug(label or producer) / key[:32]

    def entries(self, folder: Path, suffix: str) -> list[Path]:
        """The entries of ``folder`` with ``suffix`` (whatever they are: :meth:`get` checks
        each), sorted; none when the folder is missing or is not a real folder."""
        try:
            names = [e.name for e in os.scandir(folder) if e.name.endswith(suffix)]
        except (FileNotFoundError, NotADirectoryError):
            return []
        return [folder / n for n in sorted(names) if _ENTRY.fullmatch(n)]

    # -- writing ------------------------------------------------------------------------
    def put(self, folder: Path, data: bytes, suffix: str) -> Path | None:
        """Write ``data`` as an entry of ``folder`` (named by its sha256) and return its
        path. The folders from the root down are made private to their owner's writes.
        Where another user's folder, or one others may write, would hold it (it would
        never be used), nothing is written: one warning says why, and None is returned."""
        from stebkit._io import atomic_file

        path = folder / f"{hashlib.sha256(data).hexdigest()}{suffix}"
        for each in _folders(self.root, folder):
            _close_to_others(each)
        why = self._folders_fault(folder)
        if why is not None:
            if folder not in self._warned:
                self._warned.add(folder)
                warnings.warn(f"{self.what} not stored in {folder}: {why}", RuntimeWarning,
                              stacklevel=3)
            return None
        with atomic_file(path, root=self.root, perms=0o644) as fh:
            fh.write(data)
        for each in _folders(self.root, folder):
            _close_to_others(each)
        return path

    def put_arrays(self, folder: Path, **arrays: Any) -> Path | None:
        """Write NumPy ``arrays`` as one ``.npz`` entry (never pickled)."""
        import numpy as np

        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        return self.put(folder, buffer.getvalue(), ".npz")

    # -- reading ------------------------------------------------------------------------
    def get(self, path: Path) -> bytes | None:
        """The bytes of the entry ``path`` when it checks out; None (after moving it aside
        with a warning) when it does not, or when it is missing."""
        try:
            data, why = self._read(path)
        except FileNotFoundError:
            return None
        if why is not None:
            self.reject(path, why)
            return None
        return data

    def get_arrays(self, path: Path, check: Callable[[dict[str, Any]], str | None]
                   | None = None) -> dict[str, Any] | None:
        """The arrays of the ``.npz`` entry ``path`` (no pickles), or None as :meth:`get`;
        ``check`` returns what is wrong with them (None: nothing), which rejects the
        entry too."""
        import zipfile

        import numpy as np

        data = self.get(path)
        if data is None:
            return None
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                arrays = {k: npz[k] for k in npz.files}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
            self.reject(path, f"unreadable ({err})")
            return None
        why = check(arrays) if check is not None else None
        if why is not None:
            self.reject(path, why)
            return None
        return arrays

    def first(self, folder: Path, suffix: str) -> tuple[Path, bytes] | None:
        """The first entry of ``folder`` with ``suffix`` that checks out, with its bytes."""
        for path in self.entries(folder, suffix):
            data = self.get(path)
            if data is not None:
                return path, data
        return None

    def reject(self, path: Path, why: str) -> None:
        """Move the entry ``path`` aside (``<name>.rejected``) and warn once, naming it and
        ``why``; an entry that cannot be moved (another user's in a sticky folder) is left
        where it is and never used."""
        try:
            os.replace(path, path.with_name(path.name + ".rejected"))
            moved = "moved aside"
        except OSError:
            moved = "left in place, unused"
        if path not in self._warned:
            self._warned.add(path)
            warnings.warn(f"{self.what} {path}: {why}; it is {moved} and built again",
                          RuntimeWarning, stacklevel=3)

    def _read(self, path: Path) -> tuple[bytes, str | None]:
        """The bytes of ``path`` and what is wrong with the entry (None: nothing)."""
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(path, flags)
        except OSError as err:
            if err.errno == errno.ELOOP:
                return b"", "a symbolic link, not an entry stebkit wrote"
            raise
        try:
            info = os.fstat(fd)
            why = _file_fault(info) or self._folders_fault(path.parent)
            if why is not None:
                return b"", why
            data = b"".join(iter(lambda: os.read(fd, 1 << 24), b""))
        finally:
            os.close(fd)
        digest = hashlib.sha256(data).hexdigest()
        if not path.name.startswith(digest):
            return data, (f"its bytes (sha256 {digest[:12]}...) are not the ones it was "
                          "written with (changed after it was stored)")
        return data, None

    def _folders_fault(self, folder: Path) -> str | None:
        """What makes the folders from ``/`` down to ``folder`` unsafe, or None."""
        if self._above is False:  # the folders above the root, once per store
            faults = ((p, folder_fault(p, link_ok=True))
                      for p in Path(os.path.abspath(self.root)).parents if os.path.lexists(p))
            self._above = next((f"the folder {p} {why}: run `chmod go-w` on it (or `chmod "
                                "+t` on a shared folder), or set STEBKIT_CACHE to a folder of "
                                "your own" for p, why in faults if why), None)
        if self._above is not None:
            return self._above
        for each in _folders(self.root, folder):
            why = folder_fault(each, link_ok=each == self.root) \
                if os.path.lexists(each) else None
            if why is not None:
                return (f"the folder {each} {why}: run `chmod go-w` on it (or `chmod +t` on a "
                    "shared folder), or set STEBKIT_CACHE to a folder of your own")
        return None


def _folders(root: Path, folder: Path) -> Iterator[Path]:
    yield root
    here = root
    for part in folder.relative_to(root).parts:
        here = here / part
        yield here


def _file_fault(info: os.stat_result) -> str | None:
    """What makes an entry's file unsafe to use (another user's, writable by others, not a
    regular file, several names), or None."""
    from stebkit._io import _kind

    if not stat.S_ISREG(info.st_mode):
        return f"not a regular file ({_kind(info.st_mode)})"
    if info.st_nlink != 1:
        return f"a file with {info.st_nlink} hard links (another name could change it)"
    if info.st_uid != os.getuid():
        return f"written by another user (uid {info.st_uid}), not by this one"
    if info.st_mode & 0o022:
        return (f"writable by other users (mode {stat.S_IMODE(info.st_mode):04o}), who "
                "could have replaced its bytes")
    return None


def folder_fault(folder: str | os.PathLike[str], link_ok: bool = False) -> str | None:
    """Why other users could replace what ``folder`` holds, or None: it is a symbolic link
    (unless ``link_ok``: a link the user chose, whose target is checked too; a link's own
    mode means nothing), belongs to another user than this one or root, or is writable by
    others and has no sticky bit
    (``/tmp``'s, under which nobody renames what another user owns). The rule of the job
    folder (:func:`stebkit.runs.executors.jobfiles.check_private_path`) and of the store.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> folder_fault(folder) is None
    True
    >>> os.chmod(folder, 0o777); folder_fault(folder)
    'is writable by other users (mode 0777, no sticky bit)'
    """
    info = os.lstat(folder)
    link = stat.S_ISLNK(info.st_mode)
    if link and not link_ok:
        return "is a symbolic link, not a folder the store made"
    if info.st_uid not in (os.getuid(), 0):
        return f"belongs to another user (uid {info.st_uid})"
    if not link and info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
        return f"is writable by other users (mode {stat.S_IMODE(info.st_mode):04o}, no sticky bit)"
    return None


def _close_to_others(folder: Path) -> None:
    """Take group and others' write permission from ``folder`` when this user owns it and
    it has no sticky bit (a folder stebkit made under a permissive umask)."""
    if not os.path.lexists(folder):
        return
    info = os.lstat(folder)
    if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() \
            and info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
        os.chmod(folder, stat.S_IMODE(info.st_mode) & ~0o022)
