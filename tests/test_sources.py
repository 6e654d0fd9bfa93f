"""stebkit.sources.fetch: cache, read-only mirrors, network (a local HTTP server)."""

from __future__ import annotations

import hashlib
import http.server
import threading
from pathlib import Path

import pytest

from stebkit import sources
from stebkit.errors import ChecksumMismatch, DataUnavailable

PAYLOAD = b"style is how you say it\n" * 1000
SHA = hashlib.sha256(PAYLOAD).hexdigest()


@pytest.fixture()
def env(tmp_path, monkeypatch):
    """Fresh cache, two mirrors (the first empty), online, no verification memory."""
    cache, m1, m2 = tmp_path / "cache", tmp_path / "m1", tmp_path / "m2"
    for d in (cache, m1, m2):
        d.mkdir()
    monkeypatch.setenv("STEBKIT_CACHE", str(cache))
    monkeypatch.setenv("STEBKIT_MIRROR", f"{m1}:{m2}")
    monkeypatch.delenv("STEBKIT_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(sources, "_verified", {})
    return {"cache": cache, "mirrors": (m1, m2)}


class _Handler(http.server.SimpleHTTPRequestHandler):
    hits: list[str] = []

    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):  # noqa: N802 - http.server naming
        type(self).hits.append(self.path)
        if self.path == "/truncated.bin":  # promise 1000 bytes, send 10, hang up
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"0123456789")
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()


@pytest.fixture()
def server(tmp_path):
    root = tmp_path / "www"
    (root / "data").mkdir(parents=True)
    (root / "data" / "file.bin").write_bytes(PAYLOAD)
    _Handler.hits = []

    def handler(*args, **kwargs):
        return _Handler(*args, directory=str(root), **kwargs)

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", _Handler.hits
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _place(root: Path, url: str, data: bytes = PAYLOAD) -> Path:
    path = root / sources.relative_path(url)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".part")]


URL = "https://example.org/corpus/v1/file.bin"


def test_relative_path_layout_and_rejections():
    rel = sources.relative_path("https://Raw.Example.org/a/b.txt")
    assert str(rel) == "raw.example.org/a/b.txt"
    with_query = sources.relative_path("https://h.org/f.zip?download=1")
    assert with_query.name.startswith("f.zip__") and with_query != sources.relative_path(
        "https://h.org/f.zip?download=2")
    for bad in ("ftp://h.org/x", "https://h.org/", "https://h.org/a/../b", "/local/path"):
        with pytest.raises(ValueError, match="url"):
            sources.relative_path(bad)


def test_cache_hit_is_returned_and_verified(env):
    cached = _place(env["cache"] / "downloads", URL)
    assert sources.fetch(URL, SHA) == cached
    assert sources.fetch(URL.replace("v1", "v1"), None) == cached


def test_mirror_hit_is_returned_in_place_never_copied(env):
    mirrored = _place(env["mirrors"][1], URL)
    assert sources.fetch(URL, SHA) == mirrored
    assert not (env["cache"] / "downloads").exists()
    assert sources.locate(URL) == mirrored


def test_mirror_checksum_mismatch_names_file_expected_and_actual(env):
    mirrored = _place(env["mirrors"][0], URL, b"tampered")
    with pytest.raises(ChecksumMismatch) as err:
        sources.fetch(URL, SHA)
    msg = str(err.value)
    assert str(mirrored) in msg and SHA in msg and hashlib.sha256(b"tampered").hexdigest() in msg


def test_cache_checksum_mismatch(env):
    _place(env["cache"] / "downloads", URL, b"old version")
    with pytest.raises(ChecksumMismatch, match="Delete it"):
        sources.fetch(URL, SHA)


def test_verification_is_remembered_until_the_file_changes(env, monkeypatch):
    mirrored = _place(env["mirrors"][0], URL)
    calls = []
    real = hashlib.sha256

    def counting(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(sources.hashlib, "sha256", counting)
    for _ in range(3):
        sources.fetch(URL, SHA)
    assert len(calls) == 1
    mirrored.write_bytes(PAYLOAD + b"x")  # new size -> checked again, and caught
    with pytest.raises(ChecksumMismatch):
        sources.fetch(URL, SHA)
    assert len(calls) == 2


@pytest.mark.parametrize("flag", ["STEBKIT_OFFLINE", "HF_HUB_OFFLINE"])
def test_offline_and_not_mirrored_raises_with_url_mirrors_and_fix(env, server, monkeypatch,
                                                                  flag):
    base, hits = server
    monkeypatch.setenv(flag, "1")
    url = f"{base}/data/file.bin"
    with pytest.raises(DataUnavailable) as err:
        sources.fetch(url, SHA)
    msg = str(err.value)
    assert url in msg and "offline" in msg
    for mirror in env["mirrors"]:
        assert str(mirror / sources.relative_path(url)) in msg
    assert "STEBKIT_MIRROR" in msg and "online" in msg
    assert hits == []  # the network was never tried


def test_no_mirror_configured_is_said(env, monkeypatch):
    monkeypatch.delenv("STEBKIT_MIRROR")
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")
    with pytest.raises(DataUnavailable, match="STEBKIT_MIRROR is not set"):
        sources.fetch(URL)


def test_download_from_local_server_then_cache_hit(env, server):
    base, hits = server
    url = f"{base}/data/file.bin"
    path = sources.fetch(url, SHA, show_progress=False)
    assert path == env["cache"] / "downloads" / sources.relative_path(url)
    assert path.read_bytes() == PAYLOAD
    assert sources.fetch(url, SHA, show_progress=False) == path
    assert hits == ["/data/file.bin"]  # the second call never reached the server
    assert _leftovers(env["cache"]) == []


def test_download_writes_a_temp_file_in_the_same_folder_then_replaces(env, server,
                                                                    monkeypatch):
    base, _ = server
    moves = []
    real_replace = sources.os.replace

    def spy(src, dst):
        moves.append((Path(src), Path(dst), Path(dst).exists()))
        real_replace(src, dst)

    monkeypatch.setattr(sources.os, "replace", spy)
    target = sources.fetch(f"{base}/data/file.bin", SHA, show_progress=False)
    [(src, dst, existed)] = moves
    assert dst == target and src.parent == dst.parent and src.name.endswith(".tmp")
    assert not existed and not src.exists()


def test_download_checksum_mismatch_keeps_nothing(env, server):
    base, _ = server
    url = f"{base}/data/file.bin"
    with pytest.raises(ChecksumMismatch, match="expected 0+"):
        sources.fetch(url, "0" * 64, show_progress=False)
    assert not (env["cache"] / "downloads" / sources.relative_path(url)).exists()
    assert _leftovers(env["cache"]) == []


def test_truncated_download_removes_partial_file(env, server):
    base, _ = server
    url = f"{base}/truncated.bin"
    with pytest.raises(DataUnavailable, match="download failed"):
        sources.fetch(url, show_progress=False)
    assert not (env["cache"] / "downloads" / sources.relative_path(url)).exists()
    assert _leftovers(env["cache"]) == []


def test_http_error_is_data_unavailable_naming_the_url(env, server):
    base, _ = server
    url = f"{base}/data/missing.bin"
    with pytest.raises(DataUnavailable) as err:
        sources.fetch(url, show_progress=False)
    assert url in str(err.value) and "404" in str(err.value)


def test_real_mirror_file_matches_manifest(mirror):
    manifest = mirror.parent / "manifest.tsv"
    line = next(ln for ln in manifest.read_text().splitlines()[1:] if "nlpsoc/STEL" in ln)
    url, sha, size = line.split("\t")
    path = sources.fetch(url, sha)
    assert path.is_relative_to(mirror) and path.stat().st_size == int(size)
