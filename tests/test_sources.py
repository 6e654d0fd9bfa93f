"""stebkit.sources: cache, read-only mirrors, network (a local HTTP server); archives opened
in place, Google Drive through gdown, checksums recorded at the first download, and data
behind an agreement (local folders)."""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import os
import sys
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest

from stebkit import sources
from stebkit.cli import main
from stebkit.errors import ChecksumMismatch, DataUnavailable

PAYLOAD = b"style is how you say it\n" * 1000
SHA = hashlib.sha256(PAYLOAD).hexdigest()


@pytest.fixture()
def env(tmp_path, monkeypatch, online):
    """Fresh cache, two mirrors (the first empty), online, no verification memory."""
    cache, m1, m2 = tmp_path / "cache", tmp_path / "m1", tmp_path / "m2"
    for d in (cache, m1, m2):
        d.mkdir()
    monkeypatch.setenv("STEBKIT_CACHE", str(cache))
    monkeypatch.setenv("STEBKIT_MIRROR", f"{m1}:{m2}")
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


@pytest.mark.parametrize("flag", ["STEBKIT_OFFLINE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"])
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

    def spy(src, dst, **dir_fds):  # names relative to an open folder, as _io writes them
        fd = dir_fds.get("dst_dir_fd")
        folder = Path(os.readlink(f"/proc/self/fd/{fd}")) if fd is not None else Path()
        moves.append((folder / src, folder / dst, (folder / dst).exists()))
        real_replace(src, dst, **dir_fds)

    monkeypatch.setattr(sources.os, "replace", spy)
    target = sources.fetch(f"{base}/data/file.bin", SHA, show_progress=False)
    # the file, then its checksum record, each through its own temporary file
    [(src, dst, existed), (_, record, _)] = moves
    assert record == sources.record_path(target)
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


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _targz(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


# ---------------------------------------------------------------------------- archives
# (read in place by stebkit.datasets.readers._files.Tree)

def test_zip_in_zip_and_tar_gz_in_zip_are_read_in_place(tmp_path):
    from stebkit.datasets.readers._files import Tree

    inner_zip = _zip({"pan20/pairs.jsonl": b'{"id": "a"}\n', "pan20/truth.jsonl": b"t"})
    inner_tar = _targz({"release/data.tsv": b"x\ty\n", "release/README": b"r"})
    outer = tmp_path / "release"  # no extension: the format comes from the content
    outer.write_bytes(_zip({"test/inner.zip": inner_zip, "test/inner.tar.gz": inner_tar,
                            "notes.txt": b"hello"}))
    tree = Tree(outer)
    assert tree.read("notes.txt") == b"hello"
    assert tree.open("test/inner.zip").read("pan20/pairs.jsonl") == b'{"id": "a"}\n'
    tar = tree.open("test/inner.tar.gz")
    assert tar.names() == ["release/data.tsv", "release/README"]
    assert tar.read("release/data.tsv") == b"x\ty\n"
    assert list(tmp_path.iterdir()) == [outer]  # nothing unpacked to disk


def test_missing_member_names_the_archive_chain_and_the_member(tmp_path):
    from stebkit.datasets.readers._files import Tree

    outer = tmp_path / "release.zip"
    outer.write_bytes(_zip({"test/inner.zip": _zip({"pan20/pairs.jsonl": b"{}"})}))
    with pytest.raises(DataUnavailable) as info:
        Tree(outer).open("test/inner.zip").read("pan20/truth.jsonl")
    msg = str(info.value)
    assert f"{outer} -> test/inner.zip" in msg and "'pan20/truth.jsonl'" in msg
    assert "['pan20/pairs.jsonl']" in msg and "delete it to download it again" in msg
    tgz = tmp_path / "corpus.tar.gz"
    tgz.write_bytes(_targz({"a/b.txt": b"bee"}))
    assert Tree(tgz).read("a/b.txt") == b"bee"
    with pytest.raises(DataUnavailable, match=r"corpus.tar.gz has no member 'a/c.txt'"):
        Tree(tgz).read("a/c.txt")


# ----------------------------------------------------------------- recorded checksums

def test_first_download_records_sha256_and_size_next_to_the_file(env, server):
    base, hits = server
    url = f"{base}/data/file.bin"
    target = sources.fetch(url, show_progress=False)
    record = json.loads(sources.record_path(target).read_text())
    assert record["sha256"] == hashlib.sha256(PAYLOAD).hexdigest() == SHA
    assert record["bytes"] == len(PAYLOAD) and record["url"] == url
    assert record["reference_checksum"] is False
    assert sources.fetch(url, show_progress=False) == target and len(hits) == 1


def test_a_cached_file_that_changed_since_its_download_is_refused(env, server, monkeypatch):
    base, _ = server
    url = f"{base}/data/file.bin"
    target = sources.fetch(url, show_progress=False)
    target.write_bytes(PAYLOAD[:-1] + b"X")  # same size, other content
    with pytest.warns(RuntimeWarning, match="passed over"):  # the server has a good copy
        assert sources.fetch(url, show_progress=False) == target
    assert target.read_bytes() == PAYLOAD
    target.write_bytes(PAYLOAD[:-1] + b"X")
    monkeypatch.setenv("STEBKIT_OFFLINE", "1")  # no good copy reachable: refused
    with pytest.raises(ChecksumMismatch) as info:
        sources.fetch(url, show_progress=False)
    msg = str(info.value)
    assert str(target) in msg and "changed since it was first downloaded" in msg
    assert SHA in msg and "Delete both files" in msg
    target.write_bytes(b"short")
    with pytest.raises(ChecksumMismatch, match="it now has 5 bytes"):
        sources.fetch(url, show_progress=False)


def test_a_cached_file_without_record_gets_one_and_is_checked_after(env):
    url = "https://example.org/by/hand.txt"
    path = env["cache"] / "downloads" / sources.relative_path(url)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"copied by hand")
    assert sources.fetch(url) == path
    assert json.loads(sources.record_path(path).read_text())["sha256"] == hashlib.sha256(
        b"copied by hand").hexdigest()
    path.write_bytes(b"edited by hand")
    with pytest.raises(ChecksumMismatch, match="hand.txt"):
        sources.fetch(url)


def test_verify_cache_lists_every_file_and_its_state(env, server, capsys):
    base, _ = server
    good = sources.fetch(f"{base}/data/file.bin", show_progress=False)
    bad_url = "https://example.org/b.txt"
    bad = env["cache"] / "downloads" / sources.relative_path(bad_url)
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"one")
    sources.fetch(bad_url)
    bad.write_bytes(b"two")
    loose = bad.with_name("c.txt")
    loose.write_bytes(b"no record")
    gone = bad.with_name("d.txt")
    gone.write_bytes(b"d")
    sources.fetch("https://example.org/d.txt")
    gone.unlink()
    rows = {r["path"]: r["status"] for r in sources.verify_cache()}
    assert rows == {str(good): "ok", str(bad): "changed", str(loose): "unrecorded",
                    str(gone): "missing"}
    assert main(["datasets", "--verify"]) == 1
    out = capsys.readouterr()
    assert "changed" in out.out and "unrecorded" in out.out and "2 file(s) changed" in out.err
    bad.unlink()
    sources.record_path(bad).unlink()
    sources.record_path(gone).unlink()
    assert main(["datasets", "--verify"]) == 0


# ----------------------------------------------------------------------- Google Drive

def test_google_drive_files_come_through_gdown(env, monkeypatch):
    calls = []

    def download(id=None, output=None, quiet=False, **kwargs):  # noqa: A002 - gdown's name
        calls.append((id, quiet))
        with open(output, "wb") as fh:
            fh.write(PAYLOAD)
        return output

    fake = type(sys)("gdown")
    fake.download = download
    monkeypatch.setitem(sys.modules, "gdown", fake)
    url = sources.gdrive_url("1AbCdEfGhIjK")
    path = sources.fetch(url, SHA, show_progress=False)
    assert path.read_bytes() == PAYLOAD and calls == [("1AbCdEfGhIjK", True)]
    assert path.parent == env["cache"] / "downloads" / "drive.google.com"
    assert json.loads(sources.record_path(path).read_text())["reference_checksum"] is True
    assert sources.fetch(url, SHA) == path and len(calls) == 1
    with pytest.raises(ChecksumMismatch, match="expected 0+"):
        sources.fetch(sources.gdrive_url("2OtherFileId"), "0" * 64, show_progress=False)
    assert not list((env["cache"] / "downloads" / "drive.google.com").glob("*tmp*"))


def test_google_drive_without_gdown_says_how_to_install_it(env, monkeypatch):
    monkeypatch.setitem(sys.modules, "gdown", None)  # import gdown -> ImportError
    with pytest.raises(DataUnavailable, match=r"'gdown' library, a dependency.*pip install gdown"):
        sources.fetch(sources.gdrive_url("1AbCdEfGhIjK"))
    with pytest.raises(ValueError, match="not a Google Drive file id"):
        sources.gdrive_url("../x")


# ------------------------------------------------------------ data behind an agreement

def test_agreement_data_message_then_add_local_then_variable(env, tmp_path, monkeypatch,
                                                             capsys):
    NAME, VAR = "fisher_speaker_attribution", "STEBKIT_LOCAL_FISHER_SPEAKER_ATTRIBUTION"
    monkeypatch.delenv(VAR, raising=False)
    with pytest.raises(DataUnavailable) as info:
        sources.local_source(NAME, request="https://catalog.ldc.upenn.edu/LDC2004T19",
                             what="the LDC2004T19 transcripts")
    msg = str(info.value)
    assert "https://catalog.ldc.upenn.edu/LDC2004T19" in msg
    assert f"stebkit datasets --add-local {NAME}" in msg and VAR in msg
    folder = tmp_path / "ldc"
    folder.mkdir()
    assert main(["datasets", "--add-local", NAME, str(folder)]) == 0
    assert "now reads" in capsys.readouterr().out
    config = json.loads((env["cache"] / "config.json").read_text())
    assert config == {"local": {NAME: str(folder.resolve())}}
    assert sources.local_source(NAME, request="x") == folder.resolve()
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.setenv(VAR, str(other))  # the variable wins
    assert sources.local_source(NAME, request="x") == other
    monkeypatch.setenv(VAR, str(tmp_path / "gone"))
    with pytest.raises(DataUnavailable, match="gone does not exist"):
        sources.local_source(NAME, request="x")
    assert main(["datasets", "--add-local", NAME, str(tmp_path / "nope")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_manifest_line_that_is_not_url_and_sha256_is_named(tmp_path):
    from stebkit.sources import read_manifest

    path = tmp_path / "manifest.txt"
    path.write_text("https://h/a.txt 0a1b\n   \nhttps://h/b.txt\n")
    with pytest.raises(ValueError, match=r"manifest\.txt line 3: expected 'URL SHA256', got "
                                         r"'https://h/b\.txt'"):
        read_manifest(path)
    path.write_text("# url sha256\nhttps://h/a.txt 0a1b\n   \n")
    assert read_manifest(path) == (("https://h/a.txt", "0a1b"),)
