"""Reading the members of downloaded sources: archives, JSON, JSON lines, tables.

The readers of the STEB catalogue read their files where they were downloaded, without
unpacking them: :class:`Tree` is a read-only view of one source file — a zip or tar
archive, nested archives (a zip inside a zip), or a plain file — with the members'
names and bytes. Every parse error names the source, the member and the line.
"""

from __future__ import annotations

import fnmatch
import io
import json
import posixpath
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...errors import DataUnavailable
from .text import decode, file_lines, line_ends

__all__ = ["Tree", "file_lines", "json_lines", "load_json", "open_source", "require_keys",
           "source_tree"]


class Tree:
    """Members of one source file (an archive, possibly nested, or a plain file).

    ``Tree(path)`` opens ``path``; ``tree.open(member)`` opens an archive stored inside
    as another :class:`Tree`. A plain (non-archive) file has one member: its own name.

    >>> import tempfile, zipfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.zip"
    >>> with zipfile.ZipFile(p, "w") as z:
    ...     z.writestr("top/x.txt", "hello")
    >>> t = Tree(p)
    >>> t.names(), t.text("top/x.txt")
    (['top/x.txt'], 'hello')
    """

    def __init__(self, path: str | Path, *, data: bytes | None = None,
                 label: str | None = None) -> None:
        self.label = label or str(path)
        self._zip: zipfile.ZipFile | None = None
        self._tar: tarfile.TarFile | None = None
        self._plain: tuple[str, bytes] | None = None
        raw: Any = io.BytesIO(data) if data is not None else Path(path)
        try:
            if zipfile.is_zipfile(raw):
                self._zip = zipfile.ZipFile(raw)
                return
            if data is not None:
                raw.seek(0)
            try:
                self._tar = (tarfile.open(fileobj=raw) if data is not None
                             else tarfile.open(raw))
                return
            except tarfile.ReadError:
                pass
        except (OSError, zipfile.BadZipFile, EOFError) as err:
            raise DataUnavailable(f"{self.label} cannot be opened ({err}); delete the file "
                                  f"to download it again") from err
        name = posixpath.basename(str(path))
        body = data if data is not None else Path(path).read_bytes()
        if body[:2] == b"\x1f\x8b":  # a gzip-compressed single file (e.g. ``x.tsv.gz``)
            import gzip

            try:
                body = gzip.decompress(body)
            except (OSError, EOFError) as err:
                raise DataUnavailable(f"{self.label} is a damaged gzip file ({err}); delete "
                                      f"it to download it again") from err
            name = name[: -len(".gz")] if name.endswith(".gz") else name
        self._plain = (name, body)

    def names(self) -> list[str]:
        """Member file names, in archive order; folders and the macOS resource files
        archivers add (``__MACOSX/``, ``._<name>``) are left out."""
        if self._zip is not None:
            names = [n for n in self._zip.namelist() if not n.endswith("/")]
        elif self._tar is not None:
            names = [_tar_name(m) for m in self._tar.getmembers() if m.isfile()]
        else:
            assert self._plain is not None
            return [self._plain[0]]
        return [n for n in names if not n.startswith("__MACOSX/")
                and not posixpath.basename(n).startswith("._")]

    def read(self, name: str) -> bytes:
        """The bytes of member ``name``; a missing member raises ``DataUnavailable``."""
        if self._zip is not None:
            try:
                return self._zip.read(name)
            except KeyError:
                self._missing(name)
        if self._tar is not None:
            for member in self._tar.getmembers():
                if member.isfile() and _tar_name(member) == name:
                    fh = self._tar.extractfile(member)
                    assert fh is not None
                    return fh.read()
            self._missing(name)
        assert self._plain is not None
        if name != self._plain[0]:
            self._missing(name)
        return self._plain[1]

    def text(self, name: str, *, errors: str = "strict", encoding: str = "utf-8",
             newline: str | None = "") -> str:
        """Member ``name`` decoded (``errors="replace"`` where the reference replaces).

        ``newline`` is read as :func:`open` reads it (:func:`~.text.line_ends`): ``None``
        reads the line ends as text mode does (``\\r\\n`` and ``\\r`` become ``\\n``),
        ``""`` (the default here) keeps them as stored.

        >>> import tempfile, zipfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.zip"
        >>> with zipfile.ZipFile(p, "w") as z:
        ...     z.writestr("x.txt", "a\\r\\nb\\rc\\u2028d")
        >>> Tree(p).text("x.txt"), Tree(p).text("x.txt", newline=None)
        ('a\\r\\nb\\rc\\u2028d', 'a\\nb\\nc\\u2028d')
        """
        data = self.read(name)
        text = (decode(data, f"{self.label}: {name}", encoding) if errors == "strict"
                else data.decode(encoding, errors=errors))
        return line_ends(text, newline)

    def open(self, name: str) -> Tree:
        """The archive stored as member ``name``, as a :class:`Tree`."""
        return Tree(name, data=self.read(name), label=f"{self.label} -> {name}")

    def find(self, pattern: str, *, what: str = "member") -> str:
        """The one member whose path matches the glob ``pattern`` (``*`` spans folders).

        Raises ``DataUnavailable`` naming the archive, the pattern and close names when
        there is none, and ``ValueError`` when several match.
        """
        hits = self.glob(pattern)
        if not hits:
            self._missing(pattern, what)
        if len(hits) > 1:
            raise ValueError(f"{self.label}: {len(hits)} members match {pattern!r} "
                             f"({hits[:3]}...); expected one {what}")
        return hits[0]

    def glob(self, pattern: str) -> list[str]:
        """Members matching the glob ``pattern``, sorted."""
        return sorted(n for n in self.names() if fnmatch.fnmatchcase(n, pattern))

    def _missing(self, name: str, what: str = "member") -> None:
        import difflib

        close = difflib.get_close_matches(name, self.names(), n=3, cutoff=0.3)
        raise DataUnavailable(f"{self.label} has no {what} {name!r} (closest names: {close}); "
                              f"the download may be incomplete or a different release: "
                              f"delete it to download it again")

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


def _tar_name(member: tarfile.TarInfo) -> str:
    name = member.name
    while name.startswith("./"):
        name = name[2:]
    return name


def open_source(url: str, sha256: str | None = None) -> Tree:
    """Fetch ``url`` (cache, mirror or network) and open it as a :class:`Tree`."""
    from stebkit.sources import fetch

    return Tree(fetch(url, sha256=sha256), label=url)


def source_tree(spec: Any, index: int = 0) -> Tree:
    """The :class:`Tree` of the ``index``-th URL of ``spec.source``."""
    urls = spec.source.urls
    if len(urls) <= index:
        raise ValueError(f"dataset {spec.name!r}: its source declares {len(urls)} URL(s), "
                         f"the reader needs URL #{index + 1}")
    url, sha = urls[index]
    return open_source(url, sha)


def json_lines(text: str, where: str) -> list[Any]:
    """Parse JSON lines (blank lines skipped); a bad line raises naming ``where`` and it.

    >>> json_lines('{"a": 1}\\n\\n{"a": 2}\\n', "x.jsonl")
    [{'a': 1}, {'a': 2}]
    >>> json_lines('{"a": 1}\\n{"a": \\n', "x.jsonl")
    Traceback (most recent call last):
    ...
    ValueError: x.jsonl line 2 is not valid JSON (Expecting value); ...
    """
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise ValueError(f"{where} line {number} is not valid JSON ({err.msg}); the file "
                             f"is damaged or truncated: delete it to download it again") from None
    return out


def load_json(text: str, where: str) -> Any:
    """Parse a JSON document; an error names ``where`` and the line.

    >>> load_json('[1, 2]', "x.json")
    [1, 2]
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{where} line {err.lineno} is not valid JSON ({err.msg}); the file is "
                         f"damaged or truncated: delete it to download it again") from None


def require_keys(row: Any, keys: tuple[str, ...], where: str) -> None:
    """Raise a ValueError naming ``where`` when ``row`` (a dict) lacks one of ``keys``."""
    if not isinstance(row, dict):
        raise ValueError(f"{where} holds a {type(row).__name__}, expected a JSON object")
    missing = [k for k in keys if k not in row]
    if missing:
        raise ValueError(f"{where} lacks the field(s) {missing}; it has {sorted(row)[:10]}. "
                         f"The file is not in the layout this reader expects.")
