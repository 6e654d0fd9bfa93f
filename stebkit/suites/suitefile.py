"""Reading a suite file as untrusted text: bounded, without duplicated keys, with lines.

:func:`read_suite_file` parses a YAML or TOML suite file and returns its data with the
line of each key (:class:`KeyLines`), so that messages can point at the line that is
wrong. YAML aliases may not blow the file up (:data:`MAX_EXPANSION`), nesting is capped
at :data:`MAX_DEPTH` levels, and a key given twice in one mapping is refused rather than
silently replaced. :func:`unknown_keys` words the refusal of a misspelled key with the
closest known one.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

MAX_EXPANSION = 1_000_000
"""How much larger than the file (in nodes plus characters) its YAML aliases may make it."""

MAX_DEPTH = 32
"""Levels of nesting a suite file may have (its format needs five)."""

Keys = tuple[str | int, ...]
"""Where a value sits: its keys and list indices from the top, e.g. ``("run", "device")``."""


class SuiteError(ValueError):
    """A suite file is malformed; the message names the file, the dataset and the field."""


class KeyLines:
    """The line (1-based) of each key of a suite file.

    YAML files know every key's line; in a TOML file a key is found by its name when
    that name is written on one line only.

    >>> lines = KeyLines({("run",): 2, ("run", "device"): 3})
    >>> lines.line(("run", "device")), lines.line(("datasets",))
    (3, None)
    >>> lines.at(("run", "device"))
    'line 3: '
    """

    def __init__(self, lines: Mapping[Keys, int] | None = None, text: str | None = None) -> None:
        self._lines = dict(lines or {})
        self._text = text

    def line(self, keys: Keys) -> int | None:
        """The line of the key at ``keys``, or None when it cannot be told."""
        if keys in self._lines:
            return self._lines[keys]
        if self._text is None or not keys or not isinstance(keys[-1], str):
            return None
        pattern = re.compile(rf"(^|[\s{{,.]){re.escape(keys[-1])}\s*=")
        found = [i for i, text in enumerate(self._text.splitlines(), start=1)
                 if pattern.search(text.split("#", 1)[0])]
        return found[0] if len(found) == 1 else None

    def at(self, keys: Keys) -> str:
        """``"line N: "`` for the key at ``keys``, or ``""``."""
        line = self.line(keys)
        return f"line {line}: " if line is not None else ""


def unknown_keys(given: Iterable[Any], known: Sequence[str], what: str = "key") -> str | None:
    """A refusal of the keys of ``given`` not in ``known`` (with the closest known key of
    each), or None when every key is known.

    >>> unknown_keys(["name", "runs"], ["name", "datasets", "run"])
    "unknown key 'runs' (did you mean 'run'?); known keys: name, datasets, run"
    >>> unknown_keys(["name"], ["name"]) is None
    True
    """
    unknown = [k for k in given if k not in known]
    if not unknown:
        return None
    parts = []
    for key in unknown:
        close = difflib.get_close_matches(str(key), list(known), n=1, cutoff=0.6)
        parts.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    plural = "s" if len(unknown) > 1 else ""
    return f"unknown {what}{plural} {', '.join(parts)}; known {what}s: {', '.join(known)}"


def read_suite_file(path: Path) -> tuple[dict[str, Any], KeyLines]:
    """The top-level mapping of the suite file ``path`` and the lines of its keys.

    Raises
    ------
    SuiteError
        The file is missing, not UTF-8, not valid YAML/TOML, not a mapping, nested too
        deeply, blown up by aliases, or gives a key twice; the message names the file
        (and the line).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "s.yaml"
    >>> _ = file.write_text("name: tiny\\nrun:\\n  device: cpu\\n")
    >>> data, lines = read_suite_file(file)
    >>> data["run"], lines.line(("run", "device"))
    ({'device': 'cpu'}, 3)
    >>> _ = file.write_text("name: tiny\\nname: again\\n")
    >>> read_suite_file(file)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stebkit.suites.suitefile.SuiteError: ...s.yaml: line 2: the key 'name' is given twice ...
    """
    from stebkit._io import read_text

    if not path.exists():
        raise SuiteError(f"{path}: no such suite file")
    try:
        text = read_text(path, fix="name a suite file (YAML or TOML, saved as UTF-8)",
                         chosen=True)
    except ValueError as err:  # an OSError (permissions) is the command's to name
        raise SuiteError(str(err)) from None
    kind = "TOML" if path.suffix.lower() == ".toml" else "YAML"
    try:
        if kind == "TOML":
            data, lines = _read_toml(text), KeyLines(text=text)
        else:
            data, lines = _read_yaml(text, path)
    except SuiteError:
        raise
    except RecursionError:
        raise SuiteError(f"{path}: nested too deeply to read (a suite file needs five "
                         "levels)") from None
    except Exception as err:  # yaml/toml parse errors carry their own line numbers
        raise SuiteError(f"{path}: not valid {kind}: {err}") from None
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: the top level must be a mapping with 'name' and 'datasets'")
    return data, lines


def _read_toml(text: str) -> Any:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    data = tomllib.loads(text)
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SuiteError(f"nested more than {MAX_DEPTH} levels deep")
        children = value.values() if isinstance(value, dict) else \
            value if isinstance(value, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return data


def _read_yaml(text: str, path: Path) -> tuple[Any, KeyLines]:
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, KeyLines()
        lines = _check_nodes(node, path, budget=len(text) + MAX_EXPANSION)
        return loader.construct_document(node), lines
    finally:
        loader.dispose()


def _check_nodes(root: Any, path: Path, *, budget: int) -> KeyLines:
    """Walk the YAML node graph once (iteratively): the lines of its keys, no key twice,
    at most ``MAX_DEPTH`` levels, no alias inside itself, and an expanded size (each alias
    counted as a copy of what it names) within ``budget``."""
    import yaml

    sizes: dict[int, int] = {}
    lines: dict[Keys, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, Keys, bool]] = [(root, (), False)]
    while stack:
        node, keys, done = stack.pop()
        where = f"{path}: line {node.start_mark.line + 1}"
        if done:
            open_nodes.discard(id(node))
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[id(node)] > budget:
                raise SuiteError(f"{where}: its aliases (*name) expand the file to more than "
                                 f"{budget:,} nodes and characters; write the values out "
                                 "instead of repeating aliases")
            continue
        if id(node) in open_nodes:
            raise SuiteError(f"{where}: an alias (*name) refers to a value that contains it; "
                             "a suite file cannot be recursive")
        if id(node) in sizes:  # an alias of a value already walked
            continue
        if len(keys) > MAX_DEPTH:
            raise SuiteError(f"{where}: nested more than {MAX_DEPTH} levels deep")
        if isinstance(node, yaml.ScalarNode):
            sizes[id(node)] = 1 + len(node.value)
            continue
        open_nodes.add(id(node))
        stack.append((node, keys, True))
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, (*keys, i), False) for i, child in enumerate(node.value))
            continue
        seen: dict[tuple[str, str], int] = {}
        for key, value in node.value:
            stack.extend([(key, keys, False), (value, keys, False)])
            if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                continue
            line = key.start_mark.line + 1
            if (key.tag, key.value) in seen:
                raise SuiteError(f"{path}: line {line}: the key {key.value!r} is given twice "
                                 f"in one mapping (first on line {seen[key.tag, key.value]}); "
                                 "keep one")
            seen[key.tag, key.value] = line
            stack[-1] = (value, (*keys, key.value), False)
            lines.setdefault((*keys, key.value), line)
    return KeyLines(lines)


def _children(node: Any) -> list[Any]:
    import yaml

    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []
