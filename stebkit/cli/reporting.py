"""How the ``stebkit`` command reports what goes wrong around a subcommand: an ``OSError``
as one line naming the path and the fix (:func:`os_error_message`), a closed stdout as no
error (:func:`stdout_closed`), a warning as one line (:func:`one_line_warning`).
:mod:`stebkit.cli` uses them in :func:`stebkit.cli.main`; its subcommands print a frame
as a plain table (:func:`table_text`).
"""

from __future__ import annotations

import sys
from typing import Any

STDOUT_CLOSED = 141
"""Exit status when the reader of stdout went away: 128 + SIGPIPE, as a shell tool's."""


def stdout_closed() -> int:
    """The reader of stdout went away (``stebkit datasets | head -1``): not an error.

    stdout is pointed at the null device, so that the flush at exit stays quiet too, and
    the status is :data:`STDOUT_CLOSED`, as for a command ended by ``SIGPIPE``.

    Examples
    --------
    ``stebkit datasets | head -1`` prints one line, nothing on stderr, and exits with

    >>> STDOUT_CLOSED
    141
    """
    import contextlib
    import os

    with contextlib.suppress(OSError, ValueError):  # a captured stdout has no descriptor
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return STDOUT_CLOSED


def one_line_warning(message: Warning | str, category: type[Warning], filename: str,
                     lineno: int, line: str | None = None) -> str:
    """How the command shows a warning: one line with its message, without the source
    file and line that issued it (a ``warnings.formatwarning``), through
    :func:`stebkit.escape.text_cell`.

    >>> one_line_warning(UserWarning("3 texts are empty"), UserWarning, "x.py", 1)
    'stebkit: warning: 3 texts are empty\\n'
    """
    from stebkit.escape import text_cell

    return f"stebkit: warning: {text_cell(message, lines=True)}\n"


_INPUT_ERRNOS = ("ENOENT", "EACCES", "EPERM", "EISDIR", "ENOTDIR", "ENAMETOOLONG", "ELOOP",
                 "EROFS", "EEXIST")
_NO_SPACE_ERRNOS = ("ENOSPC", "EDQUOT", "EFBIG")


def os_error_message(err: OSError, command: str = "run") -> tuple[str, int]:
    """One line for an ``OSError`` (the path, what is wrong, the fix) and the exit status:
    2 when the path given is at fault (missing, unreadable, read-only, a folder), 1 for a
    failure while working (a full disk: rerun after freeing space, the run resumes).

    >>> import errno
    >>> message, code = os_error_message(PermissionError(errno.EACCES, "Permission denied",
    ...                                                  "s.yaml"))
    >>> code, message[:40]
    (2, 'cannot access s.yaml: permission denied;')
    """
    import errno as errnos

    name = errnos.errorcode.get(err.errno or -1, "")
    paths = [str(p) for p in (err.filename, err.filename2) if p is not None]
    where = " -> ".join(paths) if paths else "a file"
    if err.errno is None or not err.strerror:  # raised by stebkit with its own message
        return str(err), 2
    if name in _NO_SPACE_ERRNOS:
        resume = (f"rerun the same `stebkit {command}` command: finished results are kept "
                  "and it resumes where it stopped" if command == "run" else
                  f"rerun `stebkit {command}`")
        return (f"cannot write {where}: {err.strerror.lower()} (the disk or quota is full); "
                f"free some space, or point --output / STEBKIT_CACHE at a bigger disk, then "
                f"{resume}", 1)
    fixes = {
        "ENOENT": "check the path",
        "EACCES": "make it readable (and its folder writable) for this user, or choose "
                  "another path",
        "EPERM": "make it readable (and its folder writable) for this user, or choose "
                 "another path",
        "EISDIR": "give a file, not a folder",
        "ENOTDIR": "a part of the path is a file, not a folder; check the path",
        "EROFS": "choose a folder on a writable disk (--output; STEBKIT_CACHE for the "
                 "cache)",
        "EEXIST": "remove it or choose another path",
    }
    fix = fixes.get(name, "check the path and the disk, then rerun the command")
    return (f"cannot access {where}: {err.strerror.lower()}; {fix}",
            2 if name in _INPUT_ERRNOS else 1)


def table_text(frame: Any) -> str:
    """A frame as a plain table, without its index.

    >>> import pandas as pd
    >>> print(table_text(pd.DataFrame({"unit": ["a"], "state": ["done"]})))
    unit state
       a  done
    """
    from stebkit.escape import text_table

    return text_table(frame)
