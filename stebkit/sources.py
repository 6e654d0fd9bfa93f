"""From a URL to a local file: the cache, read-only mirrors, then the network.

:func:`fetch` looks for ``https://<host>/<path>`` in three places, in order:

1. the download cache, ``$STEBKIT_CACHE/downloads/<host>/<path>`` (``STEBKIT_CACHE``
   defaults to the user cache folder of "stebkit");
2. every folder of ``STEBKIT_MIRROR`` (separated by ``os.pathsep``), laid out as
   ``<mirror>/<host>/<path>``; a mirror hit is returned in place, never copied;
3. the network, unless ``STEBKIT_OFFLINE=1`` or ``HF_HUB_OFFLINE=1``: the file is
   streamed to a temporary file next to its cache path, checked, then moved into place
   with :func:`os.replace`, so a cache file is always complete.

Whenever a sha256 is given it is checked, wherever the file was found. Checks are
remembered per ``(path, size, mtime)`` for the life of the process.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.request
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from ._io import atomic_file
from .errors import ChecksumMismatch, DataUnavailable

__all__ = ["cache_dir", "fetch", "file_sha256", "is_offline", "locate", "mirror_dirs",
           "relative_path"]

_CHUNK = 1 << 20
_TRUE = {"1", "true", "yes", "on"}
_verified: dict[tuple[str, int, int], str] = {}


def cache_dir() -> Path:
    """The stebkit cache folder: ``$STEBKIT_CACHE`` or the user cache folder.

    >>> isinstance(cache_dir(), Path)
    True
    """
    env = os.environ.get("STEBKIT_CACHE")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("stebkit"))


def mirror_dirs() -> list[Path]:
    """The folders of ``STEBKIT_MIRROR``, in order (empty entries are ignored).

    >>> all(isinstance(p, Path) for p in mirror_dirs())
    True
    """
    raw = os.environ.get("STEBKIT_MIRROR", "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]


def is_offline() -> bool:
    """True when ``STEBKIT_OFFLINE`` or ``HF_HUB_OFFLINE`` is set to 1/true/yes/on.

    >>> isinstance(is_offline(), bool)
    True
    """
    return any(os.environ.get(var, "").strip().lower() in _TRUE
               for var in ("STEBKIT_OFFLINE", "HF_HUB_OFFLINE"))


def relative_path(url: str) -> PurePosixPath:
    """``<host>/<path>`` of an http(s) URL: where the cache and mirrors keep it.

    A query string, if any, becomes a short hash suffix so that distinct URLs never
    share a file.

    >>> relative_path("https://raw.githubusercontent.com/o/r/abc/data/x.tsv")
    PurePosixPath('raw.githubusercontent.com/o/r/abc/data/x.tsv')
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"url must be an http(s) URL with a host, got {url!r}")
    segments = [s for s in parts.path.split("/") if s]
    if not segments or any(s in (".", "..") for s in segments):
        raise ValueError(f"url {url!r} has no file path, or a '.'/'..' segment")
    if parts.query:
        digest = hashlib.sha256(parts.query.encode()).hexdigest()[:12]
        segments[-1] = f"{segments[-1]}__{digest}"
    return PurePosixPath(parts.netloc.lower(), *segments)


def _cache_path(url: str) -> Path:
    return cache_dir() / "downloads" / relative_path(url)


def locate(url: str) -> Path | None:
    """The cached or mirrored copy of ``url`` if one exists, without network or checks.

    Cheap (a few ``stat`` calls): use it to ask whether a file is available offline.
    :func:`fetch` is what verifies checksums.

    >>> locate("https://example.org/surely/not/there-3f9a.txt") is None
    True
    """
    rel = relative_path(url)
    for candidate in (cache_dir() / "downloads" / rel, *(m / rel for m in mirror_dirs())):
        if candidate.is_file():
            return candidate
    return None


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file, remembered per ``(path, size, mtime)``.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x"
    >>> _ = p.write_bytes(b"abc")
    >>> file_sha256(p)[:16]
    'ba7816bf8f01cfea'
    """
    path = Path(path)
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _verified:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(_CHUNK), b""):
                digest.update(block)
        _verified[key] = digest.hexdigest()
    return _verified[key]


def _check(path: Path, sha256: str | None, url: str, where: str) -> Path:
    if sha256 is not None:
        actual = file_sha256(path)
        if actual != sha256.lower():
            raise ChecksumMismatch(
                f"{where} file {path} (for {url}) has sha256 {actual}, expected {sha256}. "
                + ("Delete it to download it again." if where == "cached" else
                   "The mirror copy differs from the pinned file: refresh the mirror.")
            )
    return path


def fetch(url: str, sha256: str | None = None, *, show_progress: bool = True) -> Path:
    """Return a local, verified copy of ``url`` (see the module docstring for the order).

    Parameters
    ----------
    url : str
        An ``http(s)`` URL.
    sha256 : str, optional
        The expected hex digest; checked for cache, mirror and downloaded files alike.
    show_progress : bool
        Show a tqdm progress bar while downloading.

    Returns
    -------
    pathlib.Path
        The cached file, or the mirror's own file (never copied).

    Raises
    ------
    DataUnavailable
        Offline (or the download failed) and the file is neither cached nor mirrored.
    ChecksumMismatch
        A found or downloaded file does not match ``sha256``.

    Examples
    --------
    >>> import os, pathlib, tempfile
    >>> mirror = pathlib.Path(tempfile.mkdtemp())
    >>> f = mirror / "example.org" / "data" / "a.txt"
    >>> f.parent.mkdir(parents=True); _ = f.write_text("hello")
    >>> saved = os.environ.get("STEBKIT_MIRROR")
    >>> os.environ["STEBKIT_MIRROR"] = str(mirror)
    >>> fetch("https://example.org/data/a.txt") == f
    True
    >>> _ = os.environ.pop("STEBKIT_MIRROR") if saved is None else os.environ.update(
    ...     STEBKIT_MIRROR=saved)
    """
    target = _cache_path(url)
    if target.is_file():
        return _check(target, sha256, url, "cached")
    rel = relative_path(url)
    tried = [m / rel for m in mirror_dirs()]
    for candidate in tried:
        if candidate.is_file():
            return _check(candidate, sha256, url, "mirror")
    if is_offline():
        raise DataUnavailable(_unavailable(url, tried, "offline mode is on (STEBKIT_OFFLINE "
                                                       "or HF_HUB_OFFLINE is set)"))
    try:
        return _download(url, target, sha256, show_progress)
    except (urllib.error.URLError, http.client.HTTPException, TimeoutError,
            ConnectionError) as exc:
        raise DataUnavailable(_unavailable(url, tried, f"the download failed ({exc})")) from exc


def _unavailable(url: str, tried: list[Path], why: str) -> str:
    mirrors = ", ".join(str(p) for p in tried) if tried else "none (STEBKIT_MIRROR is not set)"
    return (f"cannot get {url}: {why}. Not in the cache ({_cache_path(url)}); mirror paths "
            f"tried: {mirrors}. To fix it, set STEBKIT_MIRROR to a folder holding "
            f"<host>/<path> copies of the data, or go online (unset STEBKIT_OFFLINE and "
            f"HF_HUB_OFFLINE) so the file can be downloaded into the cache.")


def _download(url: str, target: Path, sha256: str | None, show_progress: bool) -> Path:
    from tqdm.auto import tqdm

    request = urllib.request.Request(url, headers={"User-Agent": "stebkit"})
    digest = hashlib.sha256()
    with atomic_file(target) as out, urllib.request.urlopen(request, timeout=60) as resp:
        total = int(resp.headers.get("Content-Length") or 0) or None
        with tqdm(total=total, unit="B", unit_scale=True, desc=target.name,
                  disable=not show_progress) as bar:
            received = 0
            for block in iter(lambda: resp.read(_CHUNK), b""):
                out.write(block)
                digest.update(block)
                bar.update(len(block))
                received += len(block)
        if total is not None and received != total:
            raise http.client.IncompleteRead(b"", total - received)
        actual = digest.hexdigest()
        if sha256 is not None and actual != sha256.lower():
            raise ChecksumMismatch(f"downloaded file for {url} has sha256 {actual}, "
                                   f"expected {sha256}; it was not kept")
    st = target.stat()
    _verified[(str(target.resolve()), st.st_size, st.st_mtime_ns)] = actual
    return target
