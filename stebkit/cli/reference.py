"""Subcommands that work with the reference's files and tooling.

``stebkit export RESULTS OUT --format steb`` and ``stebkit import OUT RESULTS``
(:mod:`stebkit.records.steb_format`), ``stebkit submission check RESULTS --model ORG/NAME``
(:mod:`stebkit.records.submission`), ``stebkit validate`` and ``stebkit new-dataset NAME --type
hub|local`` (:mod:`stebkit.suites.validate`), in the order of ``stebkit --help``
(:func:`stebkit.cli.subcommands`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from stebkit.cli.subcommand import Subcommand
from stebkit.escape import echo


def _add_export(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", help="stebkit results folder (written by `stebkit run`)")
    p.add_argument("out", help="new folder for the exported files")
    p.add_argument("--format", choices=("steb",), default="steb",
                   help="steb: the reference's <dataset>/<model>/<size>_<n>/<task>/"
                        "metrics.json layout (default)")
    p.add_argument("--overwrite", action="store_true",
                   help="allow a non-empty OUT (files of the same path are replaced)")


def _run_export(args: argparse.Namespace) -> int:
    from stebkit.records.steb_format import export_steb

    report = export_steb(args.results, args.out, overwrite=args.overwrite)
    echo(report.summary(args.out))
    return 0


def _add_import(p: argparse.ArgumentParser) -> None:
    p.add_argument("steb_results", metavar="STEB_RESULTS",
                   help="folder in the reference's layout (its results/ or "
                        "submitted_results/)")
    p.add_argument("results", help="stebkit results folder to write the records to")
    p.add_argument("--overwrite", action="store_true", help="replace existing records")


def _run_import(args: argparse.Namespace) -> int:
    import uuid
    from pathlib import Path

    from stebkit.records.steb_format import import_steb
    from stebkit.runs.executors.jobfiles import run_lock
    from stebkit.runs.executors.submission import run_info

    info = run_info(f"import-{uuid.uuid4().hex[:12]}", {})
    with run_lock(Path(args.results), info):  # no run writes the folder meanwhile
        written = import_steb(args.steb_results, args.results, overwrite=args.overwrite)
    echo(f"{len(written)} record(s) written under {args.results}; "
         f"`stebkit leaderboard {args.results}` scores them")
    return 0


def _add_submission(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = sub.add_parser("check", help="validate a submission as the reference's "
                           "validator does and print the entry to paste",
                           description="validate a submission as the reference's validator "
                           "does and print the entry to paste")
    check.add_argument("results", help="the model's results in the reference's layout "
                       "(stebkit export RESULTS OUT --format steb)")
    check.add_argument("--model", required=True, metavar="ORG/NAME", help="the Hub id")
    check.add_argument("--submissions", metavar="FILE", help="the edited SUBMISSIONS.yaml")
    check.add_argument("--models-file", metavar="FILE",
                       help="the edited scripts/models_all.txt")
    check.add_argument("--contributor", metavar="HANDLE",
                       help="your GitHub handle (default: ORG)")


def _run_submission(args: argparse.Namespace) -> int:
    from stebkit.records.submission import check_submission

    check = check_submission(args.results, args.model, submissions=args.submissions,
                             models_file=args.models_file, contributor=args.contributor)
    echo(check.report(), file=sys.stdout if check.ok else sys.stderr)
    return 0 if check.ok else 1


def _add_validate(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="SUITE_FILE",
                   help="suite files (or folders of them) to check as well")
    p.add_argument("--no-catalogue", action="store_true",
                   help="check only the given suite files, not the catalogue")


PROGRESS_EVERY = 1000
"""``stebkit validate`` says how far it is in a suite file every this many datasets."""


def _run_validate(args: argparse.Namespace) -> int:
    from stebkit.datasets import list_datasets
    from stebkit.suites.validate import validate

    def progress(file: Any, done: int, total: int) -> None:
        if done % PROGRESS_EVERY == 0 or (done == total and total >= PROGRESS_EVERY):
            echo(f"stebkit validate: {file}: {done} of {total} dataset(s) checked",
                 file=sys.stderr, flush=True)

    problems = validate(args.paths, catalogue=not args.no_catalogue, progress=progress)
    checked = (f"{0 if args.no_catalogue else len(list_datasets())} catalogue dataset(s), "
               f"{len(args.paths)} suite path(s)")
    if problems:
        echo(f"{len(problems)} problem(s) in {checked}:", file=sys.stderr)
        for p in problems:
            echo(f"  - {p}", file=sys.stderr)
        return 1
    echo(f"OK: {checked} checked")
    return 0


def _add_new_dataset(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="the new dataset's name")
    p.add_argument("--type", required=True, choices=("hub", "local"), dest="kind",
                   help="a Hugging Face Hub dataset or a local file")
    p.add_argument("--directory", default=".", help="where to write the files (default: .)")
    p.add_argument("--overwrite", action="store_true", help="replace existing files")


def _run_new_dataset(args: argparse.Namespace) -> int:
    from stebkit.suites.validate import new_dataset

    spec_file, test_file = new_dataset(args.name, args.kind, args.directory,
                                       overwrite=args.overwrite)
    echo(f"wrote {spec_file} (the declaration: fill in the TODOs) and {test_file} (a test "
         f"to fill in); then: stebkit validate {spec_file}")
    return 0


EXPORT = Subcommand("export", help="write results in another layout (the reference's "
                    "metrics.json files)", add_arguments=_add_export, run=_run_export)
IMPORT = Subcommand("import", help="read the reference's metrics.json files into stebkit "
                    "records", add_arguments=_add_import, run=_run_import)
SUBMISSION = Subcommand("submission", help="check a submission to the published STEB "
                        "leaderboard", add_arguments=_add_submission, run=_run_submission)
VALIDATE = Subcommand("validate", help="check every catalogue dataset spec and the given "
                      "suite files", add_arguments=_add_validate, run=_run_validate)
NEW_DATASET = Subcommand("new-dataset", help="write a suite-file stub for a new dataset and "
                         "a test to fill in", add_arguments=_add_new_dataset,
                         run=_run_new_dataset)
