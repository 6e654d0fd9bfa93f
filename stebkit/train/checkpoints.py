"""A training run's checkpoints: written atomically, read as tensors and plain containers
only (a planted file runs no code), kept next to the run's output folder.

>>> checkpoint_dir("models/style").as_posix()
'models/style.checkpoints'
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from stebkit._io import atomic_file


def checkpoint_dir(output_dir: str | os.PathLike[str]) -> Path:
    """Checkpoints of a run live next to its output: ``<output_dir>.checkpoints``."""
    out = Path(output_dir)
    return out.with_name(out.name + ".checkpoints")


def checkpoints(folder: Path) -> list[Path]:
    """The checkpoints in ``folder``, oldest first (none when it is missing)."""
    return sorted(folder.glob("step-*.pt")) if folder.is_dir() else []


def save_checkpoint(folder: Path, state: dict, keep: int) -> Path:
    """Write ``state`` atomically as the checkpoint of its step in ``folder``, keeping the
    newest ``keep``."""
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step-{state['step']:07d}.pt"
    with atomic_file(path) as fh:
        torch.save(state, fh)
    for old in checkpoints(folder)[:-keep]:
        old.unlink(missing_ok=True)
    return path


def load_checkpoint(path: Path) -> dict[str, Any]:
    """Read a checkpoint with ``weights_only=True``: tensors and plain containers only, so
    a planted file cannot run code; anything else is refused with the way out."""
    import pickle

    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, TypeError) as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ValueError(f"checkpoint {path} is not a plain stebkit checkpoint (tensors, "
                         f"numbers, strings, lists and dicts only), so it is not loaded: "
                         f"{first[:200]}. Delete it (or the folder {path.parent}) or pass "
                         "resume=False (--no-resume) to start over") from None
    keys = {"step", "model", "optimizer", "losses", "negatives", "config", "data"}
    if not isinstance(state, dict) or not keys <= set(state):
        raise ValueError(f"checkpoint {path} lacks {sorted(keys - set(state or {}))}; delete "
                         "it or pass resume=False (--no-resume) to start over")
    return state


def drop_checkpoints(folder: Path) -> None:
    """Delete a run's checkpoints and their folder (once its model is saved)."""
    for path in checkpoints(folder):
        path.unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()
