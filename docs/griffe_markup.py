"""A griffe extension that turns the reStructuredText habits of stebkit's docstrings into
the Markdown the API reference renders (``docs/mkdocs.yml`` loads it for mkdocstrings).

- doctest blocks (``>>>`` lines and their output) outside a numpydoc ``Examples``
  section, which griffe already shows as code, become fenced ``pycon`` code blocks;
- literal blocks introduced by ``::`` become fenced code blocks;
- cross-reference roles (:func:`x`, :class:`~a.B`, :data:, :mod:, :meth:, :attr:,
  :exc:, :obj:) become inline code (``x``, ``B``).

>>> to_markdown("Text.\\n\\n>>> 1 + 1\\n2\\n\\nSee :func:`~stebkit.run`.").splitlines()
['Text.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'See `run`.']
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|data|mod|meth|attr|exc|obj|const):`(~?)([^`]+)`")
SECTION_RULE = re.compile(r"^\s*-{3,}\s*$")


def _role(match: re.Match) -> str:
    name = match.group(2)
    return f"`{name.rsplit('.', 1)[-1] if match.group(1) else name}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def to_markdown(text: str) -> str:
    """The docstring ``text`` with doctest and literal blocks fenced and roles as code."""
    lines = text.splitlines()
    out: list[str] = []
    section, fenced, i = "", False, 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and i + 1 < len(lines) and line.strip() \
                and SECTION_RULE.match(lines[i + 1]):
            section = line.strip().lower()
        if fenced:
            out.append(line)
            i += 1
            continue
        if line.lstrip().startswith(">>>") and section != "examples":
            end = i
            while end < len(lines) and lines[end].strip():
                end += 1
            pad = " " * _indent(line)
            out += [pad + "```pycon", *lines[i:end], pad + "```"]
            i = end
            continue
        if line.rstrip().endswith("::") and i + 2 < len(lines) and not lines[i + 1].strip() \
                and _indent(lines[i + 2]) > _indent(line):
            out += [ROLE.sub(_role, line.rstrip()[:-1]), ""]
            end = i + 2
            while end < len(lines) and (not lines[end].strip()
                                        or _indent(lines[end]) > _indent(line)):
                end += 1
            while lines[end - 1].strip() == "":
                end -= 1
            pad = " " * _indent(line)
            block = textwrap.dedent("\n".join(lines[i + 2:end])).splitlines()
            out += [pad + "```text", *(pad + b for b in block), pad + "```"]
            i = end
            continue
        out.append(ROLE.sub(_role, line))
        i += 1
    return "\n".join(out)


class RstToMarkdown(griffe.Extension):
    """Rewrite every docstring with :func:`to_markdown` as griffe loads it."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)
