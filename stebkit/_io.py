"""Atomic file writes: a reader sees the old file or the complete new one, never half.

Every file stebkit writes (downloads, processed datasets, embeddings, result records,
figures, tables, checkpoints) goes through :func:`atomic_file`: the content is written to a
temporary file in the target's folder, flushed to disk, given the usual permissions
(``0o666`` less the umask — a temporary file would otherwise stay private) and renamed
over the target. On any error the temporary file is removed.
"""

from __future__ import annotations

import errno
import os
import re
import reprlib
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from stebkit.errors import fault_point


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _refused(where: Path, root: Path) -> ValueError:
    from stebkit.errors import LinkRefused

    return LinkRefused(f"{where} is a symbolic link or not a folder; stebkit writes only into "
                       f"real folders below {root} (another user or program put it there): "
                       "remove it and run again")


def open_folder(root: str | os.PathLike[str], folder: str | os.PathLike[str]) -> int:
    """A file descriptor (``O_DIRECTORY``; the caller closes it) of ``folder``, created
    as needed, whose every folder below ``root`` is opened without following a link: a
    symbolic link, or a file, where a folder should be is refused and named
    (:class:`~stebkit.errors.LinkRefused`). ``root`` itself may be a link (the user
    chose it); ``folder`` is ``root`` or a folder below it.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> os.close(open_folder(root, root / "a" / "b")); (root / "a" / "b").is_dir()
    True
    >>> (root / "link").symlink_to(root / "a")
    >>> open_folder(root, root / "link" / "b")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stebkit.errors.LinkRefused: .../link is a symbolic link or not a folder; ...
    """
    root, folder = Path(root), Path(folder)
    parts = folder.relative_to(root).parts
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    here = root
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        for part in parts:
            here = here / part
            try:
                try:
                    below = os.open(part, flags, dir_fd=fd)
                except FileNotFoundError:
                    with suppress(FileExistsError):
                        os.mkdir(part, 0o777, dir_fd=fd)
                    below = os.open(part, flags, dir_fd=fd)
            except OSError as err:
                if err.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _refused(here, root) from None
                err.filename = str(here)
                raise
            os.close(fd)
            fd = below
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextmanager
def atomic_file(path: str | os.PathLike[str], mode: str = "wb", *,
                root: str | os.PathLike[str] | None = None, perms: int = 0o666,
                **open_kwargs: Any) -> Iterator[IO[Any]]:
    """Open a temporary file that replaces ``path`` when the block ends without error.

    Folders are created as needed; with ``root`` (a folder above ``path``), every folder
    between it and ``path`` must be a real folder, never a link (:func:`open_folder`):
    the file is created and renamed inside the folder opened so. The file gets ``perms``
    less the umask.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "sub" / "a.txt"
    >>> with atomic_file(target, "w", encoding="utf-8") as fh:
    ...     _ = fh.write("complete")
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('complete', ['a.txt'])
    """
    path = Path(path)
    folder = open_folder(path.parent if root is None else root, path.parent)
    try:
        try:
            fault_point("write", path)  # a test's injected fault, if any
            fd, tmp = _create_temp(folder, path)
        except OSError as err:  # name the file asked for, not the temporary one
            err.filename, err.filename2 = str(path), None
            raise
        try:
            with os.fdopen(fd, mode, **open_kwargs) as fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
                os.fchmod(fh.fileno(), perms & ~_umask())
            os.replace(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException as err:
            with suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
            if isinstance(err, OSError) and err.errno is not None \
                    and err.filename in (tmp, None):
                err.filename, err.filename2 = str(path), None
            raise
    finally:
        os.close(folder)


def _create_temp(folder: int, path: Path) -> tuple[int, str]:
    """A new private file (descriptor, name) beside ``path`` in the open ``folder``."""
    import secrets

    tmp = f".{path.name}.{secrets.token_hex(4)}.tmp"
    return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                   0o600, dir_fd=folder), tmp


def write_text(path: str | os.PathLike[str], text: str, *,
               root: str | os.PathLike[str] | None = None) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically and return the path (``root``: as
    :func:`atomic_file`'s)."""
    with atomic_file(path, "w", encoding="utf-8", root=root) as fh:
        fh.write(text)
    return Path(path)


_BAD_NAME = re.compile(r"[\x00-\x1f\x7f\\]")
MAX_NAME_BYTES = 150
"""The longest dataset or model name, in UTF-8 bytes: a name becomes one file name
(``/`` turned into ``__``, plus a hash and a suffix), and a file name may hold 255."""

_LOOK_ALIKES = str.maketrans({
    **dict.fromkeys("\u00ad\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d", "-"),
    **dict(zip("\u0430\u0432\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455"
               "\u04bb\u0501\u051b\u051d\u04cf\u043a\u043c\u043d\u0442",
               "abeopcyxijshdqwlkmht", strict=True)),
    **dict(zip("\u03b1\u03b2\u03b5\u03b9\u03ba\u03bd\u03bf\u03c1\u03c4\u03c5\u03c7"
               "\u03b7\u03b6\u03bc", "abeikvoptuxnzm", strict=True)),
})
"""Letters and dashes that look like ASCII ones (Cyrillic, Greek, Unicode dashes), after
case folding: what :func:`name_skeleton` maps them to."""


def check_name(name: object, what: str = "name") -> str:
    """Check a dataset or model name that becomes part of file paths; return it.

    Refused: a non-string or blank name, one over :data:`MAX_NAME_BYTES` bytes, control
    characters, backslashes, an absolute path (``/...``, ``~...``, ``C:...``) and
    ``.``/``..`` or empty segments between ``/`` (``org/model`` is fine).

    >>> check_name("sentence-transformers/all-MiniLM-L6-v2", "model")
    'sentence-transformers/all-MiniLM-L6-v2'
    >>> check_name("../../etc/passwd", "dataset")
    Traceback (most recent call last):
    ...
    ValueError: dataset name '../../etc/passwd' could reach outside its folder ('.' or '..' \
segment); use letters, digits and - _ . (and / between parts)
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a {what} name must be a non-empty string, got {shown(name)}")
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME_BYTES:
        raise ValueError(f"{what} name {name[:40]!r}... is {size} bytes long; a name becomes "
                         f"a file name, so it may have at most {MAX_NAME_BYTES}: shorten it")
    _check_file_name(name, what)
    if _BAD_NAME.search(name):
        why = "a control character or backslash"
    elif name.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", name):
        why = "an absolute path"
    elif any(part in ("", ".", "..") for part in name.split("/")):
        why = "'.' or '..' segment" if any(p in (".", "..") for p in name.split("/")) \
            else "an empty segment"
    else:
        return name
    raise ValueError(f"{what} name {shown(name)} could reach outside its folder ({why}); use "
                     "letters, digits and - _ . (and / between parts)")


def _check_file_name(name: str, what: str) -> None:
    """Refuse a name whose file name (:func:`stebkit.names.file_name`), with the longest
    suffix stebkit adds to it, would not fit in one file name."""
    from stebkit.names import LONGEST_SUFFIX, MAX_FILE_NAME_BYTES, file_name

    size = len(file_name(name).encode("utf-8", "surrogatepass"))
    if size + LONGEST_SUFFIX > MAX_FILE_NAME_BYTES:
        raise ValueError(f"{what} name {name[:40]!r}... becomes a file name of {size} bytes "
                         f"('/' is written '__'); with the {LONGEST_SUFFIX} bytes stebkit "
                         f"adds, a file name may hold {MAX_FILE_NAME_BYTES}: shorten it to "
                         f"a file name of at most {MAX_FILE_NAME_BYTES - LONGEST_SUFFIX} "
                         "bytes")


def name_skeleton(name: str) -> str:
    """What a name looks like: NFKC-folded, case-folded, invisible format characters
    removed and look-alike letters and dashes mapped to ASCII. Two names with the same
    skeleton cannot be told apart on screen; a dataset may not take the skeleton of
    another registered one.

    >>> name_skeleton("federalist\u2010authorship") == name_skeleton("federalist-authorship")
    True
    >>> name_skeleton("\u0430g_news")  # a Cyrillic a
    'ag_news'
    >>> name_skeleton("ｆｕｌｌｗｉｄｔｈ")
    'fullwidth'
    """
    import unicodedata

    folded = unicodedata.normalize("NFKC", name).casefold()
    visible = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", visible.translate(_LOOK_ALIKES))


def inside(root: str | os.PathLike[str], *parts: str | os.PathLike[str]) -> Path:
    """``root`` joined with ``parts``, refused when the result would leave ``root``.

    >>> inside("/cache", "downloads", "example.org", "a.txt").as_posix()
    '/cache/downloads/example.org/a.txt'
    >>> inside("/cache", "..", "etc")
    Traceback (most recent call last):
    ...
    ValueError: path '../etc' would leave its folder /cache
    """
    base = Path(os.path.abspath(root))
    target = Path(os.path.abspath(base.joinpath(*parts)))
    if target != base and base not in target.parents:
        rel = Path(*parts).as_posix()
        raise ValueError(f"path {rel!r} would leave its folder {base}")
    return target


def remove_stray_temps(path: str | os.PathLike[str]) -> None:
    """Remove the temporary files :func:`atomic_file` left beside ``path`` when its
    process was killed (``.<name>.<8 characters>.tmp``); nothing else is touched.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / ".a.json.k3j_x9q2.tmp").write_text("{"), (root / "b.tmp").write_text("")
    >>> remove_stray_temps(root / "a.json"); sorted(p.name for p in root.iterdir())
    ['b.tmp']
    """
    path = Path(path)
    stray = re.compile(rf"\.{re.escape(path.name)}\.[a-z0-9_]{{8}}\.tmp")
    if not path.parent.is_dir():
        return
    for entry in os.scandir(path.parent):
        if stray.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            Path(entry.path).unlink(missing_ok=True)


def files_under(root: str | os.PathLike[str], pattern: str) -> list[Path]:
    """The files under ``root`` whose name matches ``pattern`` (``fnmatch``), sorted,
    in a folder stebkit did not write: a symbolic link (to a file of that name, or to a
    folder, which could hold some) is refused, never followed.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a").mkdir(), (root / "a" / "r.json").write_text("{}")
    >>> [p.relative_to(root).as_posix() for p in files_under(root, "*.json")]
    ['a/r.json']
    >>> (root / "b.json").symlink_to(root / "a" / "r.json")
    >>> files_under(root, "*.json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../b.json is a symbolic link; stebkit does not follow links in a folder ...
    """
    import fnmatch

    out = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        links = [here / d for d in dirs if (here / d).is_symlink()]
        links += [here / f for f in files
                  if fnmatch.fnmatchcase(f, pattern) and (here / f).is_symlink()]
        if links:
            raise ValueError(f"{links[0]} is a symbolic link; stebkit does not follow links "
                             f"in a folder it did not write: replace it with a copy of what "
                             f"it points to, or remove it")
        out += [here / f for f in files if fnmatch.fnmatchcase(f, pattern)]
    return sorted(out)


UNTRUSTED_LIMIT = 16 * 2**20
"""The most bytes read from a file stebkit did not write (a record, a ``metrics.json``):
such files are a few kilobytes."""

_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 80
_SHORT.maxlist = _SHORT.maxdict = 6


def shown(value: object) -> str:
    """``repr(value)``, shortened for a message (:mod:`reprlib`): a long value is not
    echoed whole.

    >>> shown("ari"), shown(7.5)
    ("'ari'", '7.5')
    >>> len(shown("x" * 10**6)) <= 80
    True
    """
    return _SHORT.repr(value)


def read_untrusted(path: str | os.PathLike[str], *, limit: int = UNTRUSTED_LIMIT,
                   fix: str = "replace it with a copy of the file, or remove it",
                   chosen: bool = False) -> bytes:
    """The bytes of ``path``, a file stebkit did not write, read safely: a regular file
    with one link, at most ``limit`` bytes. A symbolic link, a FIFO, a device, a folder, a
    file with several hard links or a larger file is refused (ValueError naming the file,
    what it is, and ``fix``), never followed, waited on or read without end. A file the
    user ``chosen`` by name (a command's argument) may be a link or have several names;
    what it leads to must still be a regular file of at most ``limit`` bytes.

    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "r.json"
    >>> _ = file.write_text("{}")
    >>> read_untrusted(file)
    b'{}'
    >>> read_untrusted("/dev/null")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: /dev/null: not a regular file (a character device); replace it with ...
    """
    fd = _open_regular_file(path, fix, chosen)
    try:
        chunks, size = [], min(os.fstat(fd).st_size, limit + 1)
        size = 0 if size <= limit else size  # a file over the limit is not read at all
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise ValueError(f"{path}: larger than {limit:,} bytes, far more than such a "
                             f"file holds; {fix}")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _open_regular_file(path: str | os.PathLike[str], fix: str, chosen: bool) -> int:
    """A read-only descriptor of the regular file ``path`` (never blocking on a FIFO);
    see :func:`read_untrusted`."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if chosen else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as err:
        if err.errno == errno.ELOOP and not chosen:
            raise ValueError(f"{path}: a symbolic link; stebkit does not follow links in a "
                             f"folder it did not write; {fix}") from None
        err.filename = str(path)
        raise
    info = os.fstat(fd)
    why = None
    if not stat.S_ISREG(info.st_mode):
        why = f"not a regular file ({_kind(info.st_mode)})"
    elif info.st_nlink != 1 and not chosen:
        why = f"a file with {info.st_nlink} hard links (another name could change it)"
    if why:
        os.close(fd)
        raise ValueError(f"{path}: {why}; {fix}")
    return fd


def open_file(path: str | os.PathLike[str], *, fix: str, chosen: bool = False) -> IO[bytes]:
    """``path`` opened for reading in binary, checked as :func:`read_untrusted` checks it
    (a regular file, never a FIFO waited on; a link or several names only when
    ``chosen``) but streamed, with no size cap: for data read block by block (a dataset's
    table, a model's weights hashed). The caller closes it.

    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> _ = file.write_text("text,label")
    >>> with open_file(file, fix="name a data file") as fh:
    ...     fh.read()
    b'text,label'
    """
    return os.fdopen(_open_regular_file(path, fix, chosen), "rb")


def read_text(path: str | os.PathLike[str], *, fix: str, limit: int = UNTRUSTED_LIMIT,
              chosen: bool = False) -> str:
    """The UTF-8 text of ``path`` (a leading byte-order mark dropped), read as
    :func:`read_untrusted` reads: a ValueError names the file when it is not UTF-8 text.

    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "s.yaml"
    >>> _ = file.write_bytes(b"name: \\xff")
    >>> read_text(file, fix="save it as UTF-8", chosen=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../s.yaml: not UTF-8 text (byte 6: invalid start byte); save it as UTF-8
    """
    data = read_untrusted(path, limit=limit, fix=fix, chosen=chosen)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text (byte {err.start}: {err.reason}); "
                         f"{fix}") from None


def read_tail(path: str | os.PathLike[str], size: int = 20_000) -> str:
    """The last ``size`` bytes of the log ``path`` as text (undecodable bytes replaced),
    whatever the file's length: read from its end, never whole; a link or anything but a
    regular file is refused as by :func:`read_untrusted`.

    >>> import tempfile, pathlib
    >>> log = pathlib.Path(tempfile.mkdtemp()) / "job.log"
    >>> _ = log.write_text("x" * 100_000 + "last line")
    >>> read_tail(log, 9)
    'last line'
    """
    fd = _open_regular_file(path, "remove it", chosen=False)
    try:
        end = os.fstat(fd).st_size
        return os.pread(fd, size, max(0, end - size)).decode("utf-8", errors="replace")
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a plain file")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """One JSON object, each key once (``json.loads``' ``object_pairs_hook``): a key given
    twice is refused, never read as its last value."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {shown(key)} appears twice in one object")
        out[key] = value
    return out


def read_json(path: str | os.PathLike[str], *, fix: str, what: str = "valid JSON",
              chosen: bool = False) -> Any:
    """The JSON value of ``path``, a file stebkit did not write (:func:`read_untrusted`,
    ``chosen`` as there): a ValueError names the file, says it is not ``what`` and why
    (not UTF-8 JSON, a key given twice in one object, or nested too deeply to parse), and
    ``fix``.

    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "m.json"
    >>> _ = file.write_text("[" * 100_000 + "]" * 100_000)
    >>> read_json(file, fix="remove it")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../m.json: not valid JSON (nested too deeply); remove it
    >>> _ = file.write_text('{"v_measure": 0.1, "v_measure": 0.9}')
    >>> read_json(file, fix="remove it")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: .../m.json: not valid JSON (key 'v_measure' appears twice in one object); ...
    """
    import json

    data = read_untrusted(path, fix=fix, chosen=chosen)
    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=_unique_keys)
    except RecursionError:
        why = "nested too deeply"
    except (ValueError, UnicodeDecodeError) as err:  # JSONDecodeError is a ValueError
        why = shown(str(err))[1:-1]
    raise ValueError(f"{path}: not {what} ({why}); {fix}")
