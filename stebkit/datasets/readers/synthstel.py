"""SynthSTEL (``StyleDistance/synthstel``), read as the reference's loader reads it.

Both splits (``train+test``) are loaded. Each row is one parallel set: ``positive``
(position 0, the text with the style feature) and ``negative`` (position 1), both
stripped; its label is the row's ``feature`` lower-cased and stripped (the 40 raw
contrasts, not ``feature_clean``). Rows with an empty side or feature are dropped
(counted). ``reader_options["group"]``: ``"register"`` keeps the eight register
contrasts of :data:`REGISTER_FEATURES`, ``"feature"`` every other contrast. Every row
is kept (100 per feature); sampling into episodes is the task family's job.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .. import hub
from ._steb import set_records
from .text import report_dropped

__all__ = ["REGISTER_FEATURES", "read_synthstel", "synthstel_sets"]

REGISTER_FEATURES = frozenset({
    "certain / uncertain", "complex / simple", "formal / informal",
    "offensive / non-offensive", "polite / impolite", "positive / negative",
    "with humor / without humor", "with sarcasm / without sarcasm"})
"""The SynthSTEL contrasts of ``SynthSTEL_register``; the others form ``SynthSTEL_feature``."""


def _clean(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def synthstel_sets(table: pd.DataFrame, group: str) -> tuple[list, int]:
    """``(label, [positive, negative])`` sets of ``group`` and the rows dropped as
    incomplete.

    >>> rows = pd.DataFrame({"positive": [" Hi!! ", "I'm", ""], "negative": ["Hello.",
    ...     "I am", "x"], "feature": [" Formal / Informal ", "Contractions", "emojis"]})
    >>> synthstel_sets(rows, "register")
    ([('formal / informal', ['Hi!!', 'Hello.'])], 1)
    >>> synthstel_sets(rows, "feature")
    ([('contractions', ["I'm", 'I am'])], 1)
    """
    if group not in ("register", "feature"):
        raise ValueError(f"SynthSTEL group must be 'register' or 'feature', got {group!r}")
    missing = [c for c in ("positive", "negative", "feature") if c not in table.columns]
    if missing:
        raise ValueError(f"StyleDistance/synthstel lacks the column(s) {missing}; it has "
                         f"{list(table.columns)}. The Hub dataset changed its layout.")
    sets, incomplete = [], 0
    for pos, neg, feature in zip(table["positive"], table["negative"], table["feature"],
                                 strict=True):
        pos, neg, label = _clean(pos), _clean(neg), _clean(feature).lower()
        if not (pos and neg and label):
            incomplete += 1
            continue
        if (label in REGISTER_FEATURES) == (group == "register"):
            sets.append((label, [pos, neg]))
    return sets, incomplete


def read_synthstel(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """The SynthSTEL sets of ``reader_options["group"]`` (see the module docstring)."""
    del seed
    src = spec.source
    loaded = hub.load_hub(src.hf_path, name=src.hf_name, revision=src.hf_revision,
                          split=src.hf_split or "train+test")
    table = loaded if isinstance(loaded, pd.DataFrame) else loaded.to_pandas()
    sets, incomplete = synthstel_sets(table, spec.reader_options["group"])
    report_dropped(spec.name, incomplete, len(table), "rows with an empty text or feature")
    return set_records(sets, smoke)
