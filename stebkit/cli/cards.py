"""``stebkit datasets --wide``: every column of the dataset table
(:func:`stebkit.datasets.table`), one dataset a card of ``column  value`` lines, each
wrapped to the terminal's width, so that no line is wider than the terminal however long
a licence or an agreement's address is.

Part of the command line: ``stebkit datasets`` prints it.
"""

from __future__ import annotations

import shutil
import textwrap
from typing import Any

OFFLINE_NOTE = ("offline: yes when every file of the dataset is in the cache or a mirror "
                "now, so it loads without network (stebkit prefetch fetches the others)")
"""What the ``offline`` line of a card says, printed under the cards."""


def terminal_width(fallback: int = 100) -> int:
    """The terminal's width in characters (``fallback`` when not a terminal), at least 40."""
    return max(40, shutil.get_terminal_size((fallback, 24)).columns)


def dataset_cards(frame: Any, width: int | None = None) -> str:
    """Each row of ``frame`` as a card: its name, then one line per other column (a
    value wrapped under itself past ``width``, default :func:`terminal_width`; an empty
    value left out; True and False as yes and no), then :data:`OFFLINE_NOTE`.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"name": ["toy"], "license": ["a licence " * 5],
    ...                       "needs_agreement": [""], "offline": [False]})
    >>> print(dataset_cards(frame, width=40))
    toy
      license          a licence a licence a
                       licence a licence a
                       licence
      offline          no
    <BLANKLINE>
    offline: yes when every file of the
    dataset is in the cache or a mirror now,
    so it loads without network (stebkit
    prefetch fetches the others)
    """
    import numpy as np
    import pandas as pd

    width = width or terminal_width()
    columns = [c for c in frame.columns if c != "name"]
    indent = 2 + max(map(len, columns), default=0) + 2
    lines = []
    for _, row in frame.iterrows():
        lines.append(str(row["name"]))
        for column in columns:
            value = row[column]
            if pd.isna(value) or value == "":
                continue
            text = ("yes" if value else "no") if isinstance(value, (bool, np.bool_)) \
                else str(value)
            lines += textwrap.wrap(text, width, initial_indent=f"  {column}".ljust(indent),
                                   subsequent_indent=" " * indent, break_on_hyphens=False)
    return "\n".join([*lines, "", *textwrap.wrap(OFFLINE_NOTE, width)])
