"""``python -m stebkit.runs.executors PAYLOAD``: one local worker (:func:`run_job`)."""

from __future__ import annotations

import sys

from stebkit.runs.executors.worker import worker_main

if __name__ == "__main__":
    sys.exit(worker_main(sys.argv[1:]))
