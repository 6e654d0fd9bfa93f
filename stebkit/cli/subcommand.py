"""What a ``stebkit`` subcommand is, for the modules that define some.

:mod:`stebkit.cli`, :mod:`stebkit.cli.train` and :mod:`stebkit.cli.reference` each define
their subcommands as :class:`Subcommand` values; :func:`stebkit.cli.subcommands` lists
them all, in the order of ``stebkit --help``. The modules that define subcommands import
this module, never :mod:`stebkit.cli`, so that no import goes back to the command line.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Subcommand:
    """One ``stebkit <name>`` command: ``add_arguments(parser)`` and ``run(args) -> int``.

    Examples
    --------
    >>> def add(parser): parser.add_argument("--who", default="world")
    >>> def hello(args): print("hello", args.who); return 0
    >>> command = Subcommand("hello", help="say hello", add_arguments=add, run=hello)
    >>> parser = argparse.ArgumentParser(prog="stebkit")
    >>> _ = command.add_to(parser.add_subparsers(dest="command"))
    >>> command.run(parser.parse_args(["hello", "--who", "STEB"]))
    hello STEB
    0
    """

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int | None]

    def add_to(self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]
               ) -> argparse.ArgumentParser:
        """Add this command's parser (its help is also its description) to ``subparsers``."""
        parser = subparsers.add_parser(self.name, help=self.help, description=self.help)
        self.add_arguments(parser)
        return parser
