"""``python -m stebkit``: the same as the ``stebkit`` command."""

from __future__ import annotations

import sys

from stebkit.cli import main

if __name__ == "__main__":
    sys.exit(main())
