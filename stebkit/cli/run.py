"""``stebkit run`` and ``stebkit prefetch``: evaluate models on a suite, and fill the cache
before cluster jobs. Their settings' flags come from the declarations
(:mod:`stebkit.settings`): those of :class:`~stebkit.runs.context.RunContext`, of the run's
other options (:data:`~stebkit.runs.context.OPTIONS`) and of
:class:`~stebkit.suites.executor_config.ExecutorConfig`.

Part of the command line: :func:`stebkit.cli.subcommands` lists them.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from stebkit.cli.reporting import table_text
from stebkit.cli.subcommand import Subcommand
from stebkit.datasets.registry import SUITES
from stebkit.escape import echo
from stebkit.runs.context import OPTIONS, SETTINGS, RunContext
from stebkit.settings import add_flags, declared, flag_values
from stebkit.suites.checks import RUN_SETTINGS
from stebkit.suites.executor_config import ExecutorConfig

# --------------------------------------------------------------------------- run


def _add_run(p: argparse.ArgumentParser) -> None:
    """The flags of ``stebkit run``: what to run, the flags of the run settings
    (:class:`RunContext`, :data:`OPTIONS`; those a suite file may give default to ``None``,
    not given) and of the executor."""
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
    p.add_argument("--figures", default=None, metavar="FOLDER",
                   help="figures folder (default: OUTPUT/figures, beside the results)")
    RunContext.add_flags(p, given_only=tuple(RUN_SETTINGS))
    add_flags(p, OPTIONS, {"output_dir": "results"}, given_only=tuple(RUN_SETTINGS))
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
    """The flags of :class:`ExecutorConfig` (none given: the suite file's or the
    defaults), the SLURM lines and options, and the grants they need from a suite file."""
    g = p.add_argument_group("where it runs (see stebkit.runs.executors; a suite file sets the "
                             "same options in run: {executor: {kind: slurm, ...}})")
    ExecutorConfig.add_flags(g, given_only=tuple(declared(ExecutorConfig)))
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
    from stebkit.suites.executor_config import executor_config

    extra = None
    if args.slurm_extra:
        bad = [e for e in args.slurm_extra if "=" not in e or not e.split("=", 1)[0]]
        if bad:
            raise ValueError(f"--slurm-extra {bad[0]!r}: expected KEY=VALUE, e.g. account=abc")
        extra = dict(e.split("=", 1) for e in args.slurm_extra)
        extra = {k.strip().lstrip("-"): v for k, v in extra.items()}
    return executor_config(
        from_suite, **flag_values(args, declared(ExecutorConfig)),
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


def _run_run(args: argparse.Namespace) -> int:
    from stebkit.runs import evaluate
    from stebkit.runs.executors import JobsFailed
    from stebkit.runs.executors.jobfiles import check_job_files_home
    from stebkit.runs.request import RunRequest

    context = RunContext.from_flags(args)  # every flag checked before anything is read
    flag_values(args, OPTIONS)
    request = RunRequest.resolve(
        suite=args.suite, datasets=args.datasets, models=args.models, smoke=context.smoke,
        settings={name: getattr(args, name) for name in RUN_SETTINGS},
        # --slurm-setup and --slurm-extra replace the file's own lines: nothing of it runs
        allow_setup=args.allow_setup or bool(args.slurm_setup),
        allow_sbatch_extra=args.allow_sbatch_extra or bool(args.slurm_extra))
    if request.left_out:
        echo(request.left_out_note(), file=sys.stderr)
    note = None if args.models else style_model_note()
    if note:
        echo(note, file=sys.stderr)
    context = context.replace(smoke=request.smoke, **{
        name: value for name, value in request.settings.items() if name in SETTINGS})
    if args.preflight:
        return _preflight(request, context, args)
    executor = _executor(args, request.executor)
    check_job_files_home(executor.kind)  # before the datasets are loaded into the cache
    try:
        results = evaluate(request.models, _reachable(request, context, executor.kind),
                           tasks=args.tasks, output_dir=args.output_dir, executor=executor,
                           **{**request.settings, **context.get_params()})
    except JobsFailed as err:
        echo(f"stebkit: not everything ran: {err}\nrecords written so far are kept; run the "
             f"same command again to compute the rest (`stebkit status {args.output_dir}` shows "
             "each unit)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return _interrupted(Path(args.output_dir), slurm=executor.kind == "slurm")
    if not executor.wait and executor.kind != "sequential":
        return 0
    return _report_run(results, args, request.label)


def _reachable(request: Any, context: RunContext, executor: str) -> Any:
    """The datasets of the run, checked before any model is built: offline without the
    data, one line says so (:func:`~stebkit.runs.preflight.check_reachable`). In this
    process (the sequential executor) the dataset the check loaded takes the place of its
    name, so that the run loads it once."""
    if request.datasets is None:
        return None
    from stebkit.runs.preflight import check_reachable

    loaded = check_reachable(request.datasets, seed=context.seed, smoke=context.smoke,
                             trust_remote_code=context.trust_remote_code)
    if loaded is None or executor != "sequential":
        return request.datasets
    return [loaded if name == loaded.name else name for name in request.datasets]


def _interrupted(output: Path, slurm: bool) -> int:
    """Say what an interrupted run saved and how to resume; the exit status 130."""
    jobs = f"; the SLURM jobs go on (`stebkit status {output}` follows them)" if slurm else ""
    echo(f"\nstebkit: interrupted; {_count_records(output)} complete record(s) are saved "
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
        _report_board(results, args, label)
    skipped = results.with_status("skipped")
    if len(skipped):
        echo(f"\n{len(skipped)} result(s) skipped:\n{table_text(skipped)}")
    failures = results.with_status("failed")
    unavailable = failures["failure"].eq("data_unavailable")
    if unavailable.any():
        reasons = failures[unavailable].drop_duplicates("dataset")
        echo(f"\n{len(reasons)} dataset(s) could not be loaded (their results count as "
             f"missing):")
        for dataset, error in zip(reasons["dataset"], reasons["error"], strict=True):
            echo(f"- {dataset}: {error.removeprefix('DataUnavailable: ')}")
    failed = failures[~unavailable]
    if len(failed):
        echo(f"\n{len(failed)} result(s) failed (records in {args.output_dir}):\n"
             f"{table_text(failed)}", file=sys.stderr)
    if not len(failures) and len(skipped) == len(results) and len(results):
        echo(f"stebkit: nothing ran: all {len(skipped)} result(s) were skipped (e.g. "
             f"{skipped['reason'].iloc[0]}); change what the reason names and run again",
             file=sys.stderr)
        return 1
    if not len(failures):
        return 0
    echo(f"stebkit: not everything ran: {_did_not_run(failures, unavailable)}; fix the "
         f"cause and run the same command again (what is done is kept)", file=sys.stderr)
    return 1


def _report_board(results: Any, args: argparse.Namespace, label: str) -> None:
    """Print the leaderboard of a run's records and write its figures; records that no
    score counts (only the reference's excluded models) get a note saying why there is
    no leaderboard, the records being kept."""
    from stebkit.cli.leaderboard import print_notes, print_summary, render
    from stebkit.errors import NothingToScore
    from stebkit.scores import leaderboard

    try:
        board = leaderboard(results)
    except NothingToScore as err:
        echo(f"stebkit: note: no leaderboard: {err}; the records are in {args.output_dir}",
             file=sys.stderr)
        return
    echo(render(board, "text", suite=_suite_name(args, label)))
    print_summary(board)
    print_notes(board)
    _figures(board, Path(args.figures or Path(args.output_dir) / "figures"), label,
             Path(args.output_dir), args)


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


def _preflight(request: Any, context: RunContext, args: argparse.Namespace) -> int:
    """Print the preflight report of the run (stebkit.runs.preflight) instead of running it."""
    from stebkit.runs import preflight

    run = request.settings
    options = {"seed": context.seed, "smoke": context.smoke,
               "trust_remote_code": context.trust_remote_code}
    if run["preset"]:
        report = preflight.preflight_preset(run["preset"], request.datasets, tasks=args.tasks,
                                            **options)
        for problem in report.attrs["unavailable"]:
            echo(f"preset {run['preset']!r}: {problem}", file=sys.stderr)
    else:
        report = preflight.preflight(request.datasets, tasks=args.tasks,
                                     episode_sizes=run["episode_sizes"],
                                     episodes_per_label=run["episodes_per_label"], **options)
    echo(table_text(report))
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
        echo(f"\nno figures of {label!r}: no task has an operational score (each needs "
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
    echo(f"\nfigures of {label!r} written to {folder}: "
         f"{', '.join(p.name for p in paths)} (the caption of Figure 1)")


# --------------------------------------------------------------------------- prefetch


def _add_prefetch(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", default="lite", metavar="SUITE",
                   help=f"datasets when --datasets is not given: one of {SUITES} or a suite "
                        "file (default: lite)")
    p.add_argument("--models", nargs="+", metavar="MODEL", type=model_argument,
                   help="model names or local model folders (default: the offline zoo and "
                        "the trained style model)")
    p.add_argument("--datasets", nargs="+", metavar="DATASET", help="dataset names")
    RunContext.add_flags(p, only=("smoke", "seed", "show_progress"))


def _run_prefetch(args: argparse.Namespace) -> int:
    from stebkit.encoders import default_models
    from stebkit.runs.executors import prefetch
    from stebkit.runs.request import is_suite_file, unknown_suite
    context = RunContext.from_flags(args)
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
    table = prefetch(args.models or default_models(), datasets, seed=context.seed,
                     smoke=context.smoke or args.suite == "smoke",
                     show_progress=context.show_progress)
    failed = table[table["status"] == "failed"]
    echo(f"{len(table) - len(failed)} of {len(table)} item(s) ready in the cache")
    if len(failed):
        echo(table_text(failed[["kind", "name", "error"]]), file=sys.stderr)
        return 1
    return 0


RUN = Subcommand("run", help="evaluate models on a suite and print the leaderboard",
                 add_arguments=_add_run, run=_run_run)
PREFETCH = Subcommand("prefetch", help="download and process data and models into the cache "
                      "(before cluster jobs)", add_arguments=_add_prefetch, run=_run_prefetch)


