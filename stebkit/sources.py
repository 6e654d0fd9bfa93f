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
remembered per ``(path, size, mtime)`` for the life of the process. A corrupt copy is
passed over for the next place (a corrupt cached file is replaced by a good mirror or
network copy, with a warning); the error is raised only when no good copy is reachable.
A URL whose host or path would lead outside the cache or a mirror (``..``) is refused.

Sources without a reference checksum are pinned on first download: the sha256 and size
of the downloaded file are recorded next to it (``<file>.sha256``, JSON) and every later
:func:`fetch` of the cached file checks them, so a file that changed since it was first
downloaded raises :class:`~stebkit.errors.ChecksumMismatch` naming it. The record says
whether stebkit downloaded the file itself (``"downloaded": true``) or found it in the
cache without a record (copied in by hand); only the first is a pin
(:func:`downloaded_sha256`).
:func:`verify_cache` (``stebkit datasets --verify``) checks every cached file at once.

Helpers for readers
-------------------
:func:`fetch` ``(url, sha256=None)``
    A local path for a URL (cache, mirror, network). Google Drive files: pass
    :func:`gdrive_url` ``(file_id)``; they are downloaded through the ``gdown`` library
    (a dependency of stebkit), the error says so when it is missing.
:func:`local_source` ``(key, request=..., what=...)``
    The folder of data available only under an agreement (LDC, on request): from the
    variable ``STEBKIT_LOCAL_<KEY>`` or ``stebkit datasets --add-local KEY PATH``
    (:func:`add_local`, kept in ``$STEBKIT_CACHE/config.json``); otherwise a
    ``DataUnavailable`` saying where to request the data and both ways to point at it.
    Declare the key as ``Source(local=KEY)`` so that availability checks see the folder.

Archives are read in place by ``stebkit.datasets.readers._files`` (``Tree``: zip, tar,
tar.gz, nested; a missing member is a ``DataUnavailable`` naming archive and member;
``json_lines``/``load_json`` name the file and line that does not parse). Catalogue rows
take ``reader=`` and ``tested_on=`` (``"mirror"`` or ``"constructed"``, shown as the status
column of ``stebkit datasets``).
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import os
import re
import time
import urllib.error
import urllib.request
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ._io import atomic_file, inside, write_text
from .errors import ChecksumMismatch, DataUnavailable

__all__ = ["add_local", "cache_dir", "cache_path", "check_environment", "downloaded_sha256",
           "env_switch", "fetch", "file_sha256", "gdrive_url",
           "is_offline", "local_env_var", "local_path", "local_source", "local_sources",
           "locate", "mirror_dirs", "record_path", "relative_path", "request_url",
           "verify_cache"]

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


OFFLINE_VARIABLES = ("STEBKIT_OFFLINE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
"""Environment variables that switch stebkit offline (any set to 1/true/yes/on)."""


_FALSE = {"", "0", "false", "no", "off"}


def env_switch(name: str) -> bool:
    """The on/off environment variable ``name`` (``STEBKIT_OFFLINE``, ``STEBKIT_FAST``):
    1/true/yes/on (any case) is on; 0/false/no/off, empty or unset is off; any other value
    is a ``ValueError`` naming it, never taken for off.

    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"STEBKIT_FAST": " True"}):
    ...     env_switch("STEBKIT_FAST")
    True
    >>> with mock.patch.dict(os.environ, {"STEBKIT_FAST": "fast"}):
    ...     env_switch("STEBKIT_FAST")
    Traceback (most recent call last):
    ...
    ValueError: STEBKIT_FAST='fast' is not a switch: set it to 1 (or true, yes, on) or 0 \
(or false, no, off), or unset it
    """
    value = os.environ.get(name, "").strip().lower()
    if value not in _TRUE | _FALSE:
        raise ValueError(f"{name}={os.environ[name]!r} is not a switch: set it to 1 (or true, "
                         "yes, on) or 0 (or false, no, off), or unset it")
    return value in _TRUE


def is_offline() -> bool:
    """True when ``STEBKIT_OFFLINE``, ``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` is set
    to 1/true/yes/on: the one offline check of the package (datasets and models).
    ``STEBKIT_OFFLINE`` must be one of those or 0/false/no/off (or unset): any other value
    is a ``ValueError`` naming it, never taken for online.

    >>> isinstance(is_offline(), bool)
    True
    """
    own = env_switch("STEBKIT_OFFLINE")
    return own or any(os.environ.get(var, "").strip().lower() in _TRUE
                      for var in OFFLINE_VARIABLES)


def check_environment() -> None:
    """Refuse settings that would fail every result: ``STEBKIT_OFFLINE`` that is not a
    switch (:func:`is_offline`), and ``STEBKIT_CACHE`` that is not a folder and cannot
    be made one (a file, or a path under ``/proc``). The ``stebkit`` command calls it
    before any work.

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"STEBKIT_CACHE": "/dev/null"}):
    ...     check_environment()
    Traceback (most recent call last):
    ...
    ValueError: STEBKIT_CACHE=/dev/null is not a folder (it exists, as a file or device); \
point it at a folder stebkit may write, or unset it
    """
    is_offline()
    env = os.environ.get("STEBKIT_CACHE")
    if not env:
        return
    folder = Path(env).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"STEBKIT_CACHE={env} is not a folder (it exists, as a file or "
                         "device); point it at a folder stebkit may write, or unset it")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"STEBKIT_CACHE={env} is not a folder and cannot be made one "
                         f"({err.strerror or err}); point it at a folder stebkit may write, "
                         "or unset it") from None


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
    host = parts.netloc.lower()
    if host.startswith(".") or any(c in host for c in "\\/\x00"):
        raise ValueError(f"url {url!r} has a host that is not a host name ({host!r})")
    segments = [s for s in parts.path.split("/") if s]
    if not segments or any(s in (".", "..") for s in segments):
        raise ValueError(f"url {url!r} has no file path, or a '.'/'..' segment")
    if any("\\" in s or "\x00" in s for s in segments):
        raise ValueError(f"url {url!r} has a backslash or NUL in its path")
    if parts.query:
        digest = hashlib.sha256(parts.query.encode()).hexdigest()[:12]
        segments[-1] = f"{segments[-1]}__{digest}"
    return PurePosixPath(host, *segments)


def _cache_path(url: str) -> Path:
    return inside(cache_dir() / "downloads", relative_path(url))


def locate(url: str) -> Path | None:
    """The cached or mirrored copy of ``url`` if one exists, without network or checks.

    Cheap (a few ``stat`` calls): use it to ask whether a file is available offline.
    :func:`fetch` is what verifies checksums.

    >>> locate("https://example.org/surely/not/there-3f9a.txt") is None
    True
    """
    rel = relative_path(url)
    for candidate in (_cache_path(url), *(inside(m, rel) for m in mirror_dirs())):
        if candidate.is_file():
            return candidate
    return None


def read_manifest(path: str | os.PathLike[str]) -> tuple[tuple[str, str], ...]:
    """The ``(url, sha256)`` rows of a manifest file: one ``URL SHA256`` per line; blank
    lines and ``#`` comments are skipped, any other line is an error naming the file and
    the line.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "manifest.txt"
    >>> _ = p.write_text("# url sha256\\nhttps://h/a.txt 0a1b\\n\\n")
    >>> read_manifest(p)
    (('https://h/a.txt', '0a1b'),)
    """
    path = Path(path)
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        if len(fields) != 2:
            raise ValueError(f"{path} line {number}: expected 'URL SHA256', got {line[:80]!r}")
        rows.append((fields[0], fields[1]))
    return tuple(rows)


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
    bad: list[ChecksumMismatch] = []  # corrupt copies met on the way (cache, mirrors)
    expected = sha256
    if target.is_file():
        try:
            _check(target, sha256, url, "cached")
            return _check_record(target, url)
        except ChecksumMismatch as err:  # look for a good copy before giving up
            bad.append(err)
            with contextlib.suppress(ChecksumMismatch):
                expected = expected or (_read_record(target) or {}).get("sha256")
    rel = relative_path(url)
    tried = [inside(m, rel) for m in mirror_dirs()]
    for candidate in tried:
        if candidate.is_file():
            try:
                found = _check(candidate, expected, url, "mirror")
            except ChecksumMismatch as err:
                bad.append(err)
                continue
            if bad and target.is_file():  # the corrupt cached copy is not needed any more
                target.unlink(missing_ok=True)
                record_path(target).unlink(missing_ok=True)
            _recovered(bad, url, found)
            return found
    if is_offline():
        if bad:
            raise bad[0]
        raise DataUnavailable(_unavailable(url, tried, "offline mode is on (STEBKIT_OFFLINE "
                                                       "or HF_HUB_OFFLINE is set)"))
    try:
        if _is_gdrive(url):
            _download_gdrive(url, target, expected, show_progress)
        else:
            _download(url, target, expected, show_progress)
    except (urllib.error.URLError, http.client.HTTPException, TimeoutError,
            ConnectionError) as exc:
        if bad:
            raise bad[0] from exc
        raise DataUnavailable(_unavailable(url, tried, f"the download failed ({exc})")) from exc
    _write_record(target, url, reference=sha256 is not None, downloaded=True)
    _recovered(bad, url, target)
    return target


def _recovered(bad: list[ChecksumMismatch], url: str, good: Path) -> None:
    """Say that corrupt copies were passed over for a good one."""
    if bad:
        import warnings

        warnings.warn(f"{len(bad)} corrupt copy(ies) of {url} passed over ({bad[0]}); using "
                      f"the verified copy {good}", RuntimeWarning, stacklevel=3)


def _unavailable(url: str, tried: list[Path], why: str) -> str:
    mirrors = ", ".join(str(p) for p in tried) if tried else "none (STEBKIT_MIRROR is not set)"
    return (f"cannot get {url}: {why}. Not in the cache ({_cache_path(url)}); mirror paths "
            f"tried: {mirrors}. To fix it, set STEBKIT_MIRROR to a folder holding "
            f"<host>/<path> copies of the data, or go online (unset STEBKIT_OFFLINE and "
            f"HF_HUB_OFFLINE) so the file can be downloaded into the cache.")


def request_url(url: str) -> str:
    """``url`` with its path percent-encoded for the request (a source file name may hold
    spaces; the cache and mirrors keep the name as written).

    >>> request_url("https://h.org/a/Arctic mapping-adv.txt")
    'https://h.org/a/Arctic%20mapping-adv.txt'
    >>> request_url("https://h.org/a%20b.txt?x=1")
    'https://h.org/a%20b.txt?x=1'
    """
    from urllib.parse import quote, urlunsplit

    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=quote(parts.path, safe="/%:@!$&'()*+,;=~")))


def _download(url: str, target: Path, sha256: str | None, show_progress: bool) -> Path:
    from tqdm.auto import tqdm

    from stebkit.escape import text_cell

    request = urllib.request.Request(request_url(url), headers={"User-Agent": "stebkit"})
    with atomic_file(target) as out, urllib.request.urlopen(request, timeout=60) as resp:
        digest = hashlib.sha256()
        total = int(resp.headers.get("Content-Length") or 0) or None
        with tqdm(total=total, unit="B", unit_scale=True, desc=text_cell(target.name),
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


# ------------------------------------------------------------------ recorded checksums


def record_path(path: str | os.PathLike[str]) -> Path:
    """Where the sha256 and size recorded at download time are kept: ``<file>.sha256``.

    >>> record_path("/cache/downloads/example.org/a.zip").name
    'a.zip.sha256'
    """
    path = Path(path)
    return path.with_name(path.name + ".sha256")


def _write_record(path: Path, url: str, *, reference: bool, downloaded: bool) -> None:
    record = {"url": url, "sha256": file_sha256(path), "bytes": path.stat().st_size,
              "recorded": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "reference_checksum": reference, "downloaded": downloaded}
    write_text(record_path(path), json.dumps(record, indent=1) + "\n")


def cache_path(url: str) -> Path:
    """Where the download cache keeps ``url`` (whether or not it is there).

    >>> cache_path("https://example.org/a/b.txt").parts[-3:]
    ('example.org', 'a', 'b.txt')
    """
    return _cache_path(url)


def downloaded_sha256(url: str) -> str | None:
    """The sha256 recorded when stebkit downloaded ``url`` itself, or None: no record, or
    a record written for a file found in the cache without one (copied in by hand, or
    recorded by a version that did not say). The record stays when its file is deleted,
    so the pin holds for every later copy (:func:`fetch` with ``sha256=`` the pin).

    >>> downloaded_sha256("https://example.org/surely/not/downloaded-3f9a.bin") is None
    True
    """
    try:
        record = _read_record(_cache_path(url))
    except ChecksumMismatch:
        return None
    if record is None or record.get("downloaded") is not True:
        return None
    return str(record["sha256"])


def _read_record(path: Path) -> dict[str, Any] | None:
    rec = record_path(path)
    if not rec.is_file():
        return None
    try:
        data = json.loads(rec.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not {"sha256", "bytes"} <= set(data):
            raise ValueError("missing 'sha256' or 'bytes'")
    except ValueError as exc:
        raise ChecksumMismatch(f"the checksum record {rec} is damaged ({exc}); delete it and "
                               f"{path} to download the file again") from None
    return data


def _check_record(path: Path, url: str) -> Path:
    """Check a cached file against the sha256/size recorded at its first download;
    a cached file without a record (e.g. copied in by hand) gets one now."""
    record = _read_record(path)
    if record is None:
        _write_record(path, url, reference=False, downloaded=False)
        return path
    size = path.stat().st_size
    if size != int(record["bytes"]) or file_sha256(path) != record["sha256"]:
        raise ChecksumMismatch(
            f"cached file {path} (for {url}) changed since it was first downloaded "
            f"({record.get('recorded', 'date unknown')}): it now has {size} bytes and sha256 "
            f"{file_sha256(path)}, the record {record_path(path)} says {record['bytes']} bytes "
            f"and sha256 {record['sha256']}. Delete both files to download it again.")
    return path


def verify_cache() -> list[dict[str, Any]]:
    """Check every downloaded file of the cache against its recorded sha256 and size.

    Returns one dict per file (sorted by path) with ``path``, ``url``, ``bytes`` and
    ``status``: ``"ok"``, ``"changed"`` (differs from the record), ``"unrecorded"``
    (no record yet: one is written on its next :func:`fetch`) or ``"missing"`` (a record
    whose file is gone).

    >>> import os, tempfile
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"STEBKIT_CACHE": tempfile.mkdtemp()}):
    ...     verify_cache()
    []
    """
    root = cache_dir() / "downloads"
    rows = []
    if not root.is_dir():
        return rows
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.name.startswith(".") and path.name.endswith(".tmp"):
            continue
        if path.name.endswith(".sha256"):
            data = path.with_name(path.name[: -len(".sha256")])
            if not data.is_file():
                rows.append({"path": str(data), "url": _record_url(path), "bytes": None,
                             "status": "missing"})
            continue
        size = path.stat().st_size
        try:
            record = _read_record(path)
        except ChecksumMismatch:
            record = {"sha256": "", "bytes": -1}
        if record is None:
            status = "unrecorded"
        elif size == int(record["bytes"]) and file_sha256(path) == record["sha256"]:
            status = "ok"
        else:
            status = "changed"
        rows.append({"path": str(path), "url": (record or {}).get("url", ""), "bytes": size,
                     "status": status})
    return sorted(rows, key=lambda r: r["path"])


def _record_url(rec: Path) -> str:
    try:
        return str(json.loads(rec.read_text(encoding="utf-8")).get("url", ""))
    except (ValueError, AttributeError):
        return ""


# ----------------------------------------------------------------------- Google Drive

_GDRIVE_HOST = "drive.google.com"


def gdrive_url(file_id: str) -> str:
    """The URL that stands for a Google Drive file in a :class:`Source` and the cache.

    :func:`fetch` downloads it through the ``gdown`` library.

    >>> gdrive_url("1AbC_dE-f")
    'https://drive.google.com/uc?id=1AbC_dE-f'
    """
    if not re.fullmatch(r"[A-Za-z0-9_-]{8,}", file_id or ""):
        raise ValueError(f"not a Google Drive file id: {file_id!r}")
    return f"https://{_GDRIVE_HOST}/uc?id={file_id}"


def _is_gdrive(url: str) -> bool:
    return urlsplit(url).netloc.lower() == _GDRIVE_HOST


def _download_gdrive(url: str, target: Path, sha256: str | None, show_progress: bool) -> None:
    ids = parse_qs(urlsplit(url).query).get("id")
    if not ids:
        raise ValueError(f"Google Drive URL {url!r} has no ?id=<file id>; use gdrive_url()")
    try:
        import gdown
    except ImportError:
        raise DataUnavailable(
            f"cannot get {url}: Google Drive files are downloaded through the 'gdown' "
            f"library, a dependency of stebkit that is missing here: pip install gdown (or "
            f"make setup), or put the file at {target} yourself.") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.gdown.tmp")
    try:
        got = gdown.download(id=ids[0], output=str(tmp), quiet=not show_progress)
        if not got or not tmp.is_file() or tmp.stat().st_size == 0:
            raise DataUnavailable(f"cannot get {url}: gdown could not download Google Drive "
                                  f"file {ids[0]} (private, removed, or over its download "
                                  f"quota); put the file at {target} yourself.")
        if sha256 is not None:
            actual = file_sha256(tmp)
            if actual != sha256.lower():
                raise ChecksumMismatch(f"downloaded file for {url} has sha256 {actual}, "
                                       f"expected {sha256}; it was not kept")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


# ------------------------------------------------------- data behind an agreement

_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def _config_path() -> Path:
    return cache_dir() / "config.json"


def _read_config() -> dict[str, Any]:
    path = _config_path()
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"the stebkit configuration {path} is not valid JSON ({exc}); "
                         f"fix or delete it") from None
    return data if isinstance(data, dict) else {}


def local_env_var(key: str) -> str:
    """The environment variable that points at the local copy of ``key``.

    >>> local_env_var("fisher-english")
    'STEBKIT_LOCAL_FISHER_ENGLISH'
    """
    return "STEBKIT_LOCAL_" + re.sub(r"[^A-Za-z0-9]", "_", key).upper()


def local_sources() -> dict[str, str]:
    """The local folders registered with :func:`add_local` (``key -> folder``)."""
    return dict(_read_config().get("local", {}))


def add_local(key: str, path: str | os.PathLike[str]) -> Path:
    """Remember that the data of ``key`` is in the local folder ``path``.

    Kept in ``$STEBKIT_CACHE/config.json``; ``stebkit datasets --add-local KEY PATH``
    calls this.

    >>> import os, tempfile
    >>> from unittest import mock
    >>> folder = tempfile.mkdtemp()
    >>> with mock.patch.dict(os.environ, {"STEBKIT_CACHE": tempfile.mkdtemp()}):
    ...     _ = add_local("fisher", folder)
    ...     local_source("fisher", request="https://catalog.ldc.upenn.edu") == Path(folder)
    True
    """
    if not _KEY.fullmatch(key or ""):
        raise ValueError(f"local source name {key!r} must be letters, digits, '_', '.', '-'")
    folder = Path(path).expanduser().resolve()
    if not folder.exists():
        raise FileNotFoundError(f"{folder} does not exist: give the folder (or file) holding "
                                f"your copy of {key!r}")
    config = _read_config()
    config.setdefault("local", {})[key] = str(folder)
    write_text(_config_path(), json.dumps(config, indent=1, sort_keys=True) + "\n")
    return folder


def local_path(key: str) -> Path | None:
    """The local copy of ``key`` (variable first, then the configuration), or None."""
    env = os.environ.get(local_env_var(key), "").strip()
    chosen = env or local_sources().get(key)
    return Path(chosen).expanduser() if chosen else None


def local_source(key: str, *, request: str, what: str = "") -> Path:
    """The local folder of data available only under an agreement.

    Parameters
    ----------
    key : str
        Name of the data (one name may serve several datasets), as in
        ``stebkit datasets --add-local KEY PATH``.
    request : str
        Where to request the data (a URL or an address), quoted in the error.
    what : str
        What the folder must hold (e.g. the LDC catalogue numbers), quoted in the error.

    Raises
    ------
    DataUnavailable
        No folder is registered, or the registered one is gone.

    Examples
    --------
    >>> import os, tempfile
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"STEBKIT_CACHE": tempfile.mkdtemp()}):
    ...     local_source("fisher", request="https://catalog.ldc.upenn.edu/LDC2004T19")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stebkit.errors.DataUnavailable: 'fisher' is available only under an agreement: request \
it at https://catalog.ldc.upenn.edu/LDC2004T19, then ...
    """
    found = local_path(key)
    if found is not None and found.exists():
        return found
    holds = f" (it must hold {what})" if what else ""
    how = (f"then point stebkit at your copy{holds} with `stebkit datasets --add-local {key} "
           f"/path/to/folder` or the variable {local_env_var(key)}=/path/to/folder")
    if found is not None:
        raise DataUnavailable(f"the local copy of {key!r} at {found} does not exist; fix the "
                              f"path: {how}")
    raise DataUnavailable(f"{key!r} is available only under an agreement: request it at "
                          f"{request}, {how}.")
