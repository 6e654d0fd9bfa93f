"""``python -m stebkit.executors PAYLOAD`` runs one local worker for one release; the
command is now ``python -m stebkit.runs.executors PAYLOAD``."""

from __future__ import annotations

import sys

from stebkit.runs.executors.worker import _main

if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
