"""``stebkit leaderboard``: the leaderboard of a results folder, as a table and the
significance summary after it (:func:`stebkit.scores.leaderboard`), with the options of the
score's recipe.

Part of the command line: :func:`stebkit.cli.subcommands` lists it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from stebkit.cli.subcommand import Subcommand
from stebkit.escape import echo

FORMATS = ("text", "md", "latex", "csv")
"""The table formats of ``--format``: ``text`` for a terminal 100 columns wide, Markdown,
LaTeX (booktabs, within a 6.5 in text block or, with ``--columns 2``, a column or both),
CSV."""

TERMINAL_WIDTH = 100
"""Columns of the terminal the ``text`` leaderboard and its summary fit."""


def _add_leaderboard(p: argparse.ArgumentParser) -> None:
    p.add_argument("results", help="results folder written by `stebkit run`")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="output format: text (a terminal 100 columns wide, the default), md, "
                        "latex (booktabs tables for a paper) or csv")
    p.add_argument("--output", help="write to this file instead of printing")
    p.add_argument("--columns", type=int, choices=(1, 2), default=1,
                   help="with --format latex, the columns of the paper: 1 (default) sets "
                        "each table in the text block; 2 sets it in one column when it "
                        "keeps 8 pt there, else across both (table*); a table scaled "
                        "below 8 pt warns")
    p.add_argument("--published", action="store_true",
                   help="add the 40 models of the published STEB leaderboard (only when the "
                        "results cover the same datasets and protocol)")
    p.add_argument("--allow-partial", action="store_true",
                   help="with --published: show results that do not cover the published "
                        "benchmark anyway, marked 'not comparable' and unranked")
    p.add_argument("--models", nargs="+", metavar="MODEL",
                   help="score only these models of the folder, as if it held no others "
                        "(the correlation grouping, and so every score, depends on the "
                        "models compared)")
    p.add_argument("--summary", metavar="FILE",
                   help="also write the significance summary and rank tiers printed after "
                        "the table to this file, as Markdown (the website's leaderboard page "
                        "shows it)")
    _add_recipe_options(p)


def _add_recipe_options(p: argparse.ArgumentParser) -> None:
    """The options of the score's recipe (the flags of :class:`stebkit.scores.ScoreRecipe`);
    each is validated there, a bad value exiting with status 2."""
    from stebkit.scores.recipe import ScoreRecipe

    g = p.add_argument_group("score recipe (default: the reference's newest aggregation)")
    ScoreRecipe.add_flags(g)


def print_notes(board: Any) -> None:
    """What the leaderboard left out and why (to stderr, so exported tables stay clean)."""
    from stebkit.escape import text_cell
    from stebkit.scores import leaderboard_notes

    for line in leaderboard_notes(board):
        echo(f"stebkit: note: {text_cell(line)}", file=sys.stderr)


def _only_models(results: Any, models: Sequence[str]) -> Any:
    """The records of ``models`` (each must have records in ``results``)."""
    present = sorted({r.model_name for r in results})
    unknown = [m for m in models if m not in present]
    if unknown:
        raise ValueError(f"--models: no records of {unknown} in {results.root}; its models "
                         f"are {present}")
    wanted = set(models)
    return results.select(lambda r: r.model_name in wanted)


def print_summary(board: Any, file: Any = None, fmt: str = "text") -> None:
    """:func:`stebkit.scores.summary_lines` after the table (to ``file``, default
    stdout), a terminal's wrapped at :data:`TERMINAL_WIDTH`."""
    from stebkit.scores import summary_lines

    lines = summary_lines(board, fmt, TERMINAL_WIDTH)
    if lines:
        echo("\n" + "\n".join(lines), file=file or sys.stdout)


def run_title(results: Any) -> str:
    """What a leaderboard's captions call the run of ``results``: its suite (the
    smallest of :data:`stebkit.datasets.registry.SUITES` that holds every dataset of
    it), or its number of datasets when no suite holds them all, and its models.

    >>> from stebkit.records.results import Results
    >>> run_title(Results([]))
    'no results'
    """
    from stebkit.datasets import list_datasets
    from stebkit.datasets.registry import SUITES

    datasets = {r.dataset_name for r in results}
    models = {r.model_name for r in results}
    if not datasets:
        return "no results"
    suites = [s for s in sorted(SUITES, key=lambda s: len(list_datasets(suite=s)))
              if datasets <= set(list_datasets(suite=s))]
    where = (f"the {suites[0]} suite" if suites and datasets == set(
        list_datasets(suite=suites[0])) else f"{len(datasets)} datasets of the {suites[0]} "
        "suite" if suites else f"{len(datasets)} datasets")
    return f"{where}, {len(models)} models"


def render(board: Any, fmt: str, title: str = "", suite: str | None = None,
           columns: int = 1) -> str:
    """The leaderboard as text of ``fmt`` (:data:`FORMATS`): the operational and the
    definitional table, each ranked by its own score (:func:`stebkit.scores.split_board`),
    the operational score named by :func:`stebkit.scores.score_name` (``suite``'s score
    when its tasks are not STEB's); CSV, every column in one table. ``title`` (what the
    run is, :func:`run_title`) goes into the LaTeX captions, set for a paper of
    ``columns`` columns (:func:`stebkit.scores.to_latex`)."""
    from stebkit import scores
    from stebkit.escape import latex_cell

    if fmt == "csv":
        return scores.csv_text(board)
    tables = scores.split_board(board)
    name = scores.score_name(board, suite)
    if fmt == "latex":
        where = f" of {latex_cell(title)}" if title else ""
        return "\n\n".join(
            scores.to_latex(t, caption=f"{kind.capitalize()} {latex_cell(name)} scores"
                                       f"{where}.", label=f"tab:steb-{kind}",
                            score_name=name, columns=columns) for kind, t in tables.items())
    if fmt == "md":
        return "\n\n".join(scores.to_markdown(t, score_name=name) for t in tables.values())
    return scores.board_text(board, width=TERMINAL_WIDTH, suite=suite)


def _recipe(args: argparse.Namespace) -> Any:
    """The score recipe of the command line: the options given replace the defaults
    (the reference's newest recipe); a bad value names its flag (exit status 2).

    >>> from stebkit.cli import build_parser
    >>> _recipe(build_parser().parse_args(["leaderboard", "r", "--threshold", "1"]))
    ScoreRecipe(threshold=1.0)
    """
    from stebkit.scores import ScoreRecipe

    return ScoreRecipe.from_flags(args)


def _run_leaderboard(args: argparse.Namespace) -> int:
    from stebkit import scores
    from stebkit._io import write_text
    from stebkit.escape import text_cell
    from stebkit.records.results import Results

    recipe = _recipe(args)  # a bad option stops here, before anything is read
    results = Results.load(args.results)
    for note in results.notes:
        echo(f"stebkit: note: {text_cell(note)}", file=sys.stderr)
    if args.models:
        results = _only_models(results, args.models)
    board = scores.leaderboard(results, recipe=recipe)
    scored = board  # the summary is about these rows, published ones added or not
    print_notes(board)
    if args.allow_partial and not args.published:
        raise ValueError("--allow-partial only applies with --published")
    if args.published:
        from stebkit.scores.published import source_note, with_published

        board = with_published(board, results, allow_partial=args.allow_partial)
        comp = board.attrs["comparability"]
        echo(source_note(board.attrs["published_source"]), file=sys.stderr)
        if not comp.comparable:
            echo(f"stebkit: note: the rows of {args.results} are marked 'not comparable' "
                 f"and left unranked: {comp.reasons()}", file=sys.stderr)
    if args.summary:
        write_text(args.summary, "\n".join(scores.summary_lines(scored, "md")) + "\n")
    text = render(board, args.format, run_title(results), columns=args.columns)
    if args.output:
        write_text(args.output, text.rstrip("\n") + "\n")
        echo(f"leaderboard written to {args.output}")
        print_summary(scored)
    elif args.format in ("md", "text"):
        echo(text)
        print_summary(scored, fmt=args.format)
    else:
        echo(text)  # a CSV or LaTeX table stays clean on stdout: the summary to stderr
        print_summary(scored, sys.stderr)
    return 0


LEADERBOARD = Subcommand("leaderboard", help="leaderboard of a results folder",
                         add_arguments=_add_leaderboard, run=_run_leaderboard)
