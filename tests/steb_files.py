"""Helpers of the STEB reader tests: constructed source files in a private mirror.

A test writes small files (or archives) with exactly the layout the reference's loader
reads, puts them where ``stebkit.sources.fetch`` looks for the dataset's URLs
(``<mirror>/<host>/<path>``), and runs the catalogue reader on them offline.
"""

from __future__ import annotations

import io
import json
import tarfile
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from stebkit.datasets import get_spec, hub
from stebkit.datasets.readers.text import DroppedRowsWarning
from stebkit.sources import relative_path

Members = dict[str, Any]  # name -> str | bytes | Members (a nested archive)


def _bytes(value: Any, name: str) -> bytes:
    if isinstance(value, dict):
        return make_archive(value, tar=name.endswith((".tar.gz", ".tgz")))
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def make_archive(members: Members, *, tar: bool = False) -> bytes:
    """A zip (or tar.gz) holding ``members``; a dict value becomes a nested archive."""
    buf = io.BytesIO()
    if tar:
        with tarfile.open(fileobj=buf, mode="w:gz") as tf:
            for name, value in members.items():
                data = _bytes(value, name)
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    else:
        with zipfile.ZipFile(buf, "w") as zf:
            for name, value in members.items():
                zf.writestr(name, _bytes(value, name))
    return buf.getvalue()


def jsonl(rows: list[Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


class Mirror:
    """A private mirror folder; ``put(url, content)`` stores a file for ``url``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def put(self, url: str, content: Any) -> Path:
        path = self.root / relative_path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict):
            content = make_archive(content, tar=url.endswith((".tar.gz", ".tgz")))
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
        return path

    def put_spec(self, name: str, *contents: Any) -> None:
        """Store ``contents`` for the URLs of dataset ``name``, in order."""
        urls = [u for u, _ in get_spec(name).source.urls]
        assert len(urls) == len(contents), (name, urls)
        for url, content in zip(urls, contents, strict=True):
            self.put(url, content)


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Mirror:
    """An empty private mirror, offline, with a fresh cache."""
    root = tmp_path / "mirror"
    root.mkdir()
    monkeypatch.setenv("STEBKIT_MIRROR", str(root))
    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    return Mirror(root)


def read(name: str, **kwargs: Any) -> tuple[Any, list[str]]:
    """Run dataset ``name``'s reader; return its validated records and the dropped-rows
    messages it reported."""
    from stebkit.datasets import load_dataset

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = load_dataset(name, cache=False, **kwargs).frame
    return records, [str(w.message) for w in caught if issubclass(w.category,
                                                                  DroppedRowsWarning)]


class FakeSplit:
    """What ``datasets.load_dataset`` returns: ``to_pandas()`` and ``features``."""

    def __init__(self, rows: dict[str, list], names: dict[str, list[str]] | None = None):
        self.rows = rows
        self.features = {c: type("ClassLabel", (), {"names": n})()
                         for c, n in (names or {}).items()}

    def to_pandas(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)


@pytest.fixture
def hub_data(monkeypatch):
    """Serve ``{(path, name, split): split}``; record every call."""
    data: dict[tuple, Any] = {}
    calls: list[tuple] = []

    def fake_load(path, *, name=None, revision=None, split=None, trust_remote_code=False,
                  streaming=False):
        calls.append((path, name, split, streaming))
        return data[path, name, split]

    monkeypatch.setattr(hub, "load_hub", fake_load)
    monkeypatch.setattr(hub, "hub_configs", lambda path, revision=None: sorted(
        {k[1] for k in data if k[0] == path}))
    data["calls"] = calls
    return data
