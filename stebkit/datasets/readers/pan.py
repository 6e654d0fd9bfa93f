"""PAN shared-task releases (Zenodo) and the Enron verification corpus, read in place.

One module for the reference's PAN loader family; every release is read from its
downloaded zip (nested zips opened in memory) exactly as the reference reads the
unpacked folders.

Authorship verification, folder per problem (``read_pan_verification``)
    ``truth.txt`` lists ``<problem id> <Y|N>``; problems are visited in sorted id
    order. ``reader_options["known"]``: ``"known01"`` (PAN14/15: only
    ``known01.txt`` is one side), ``"all"`` (PAN13, Enron: every ``known*`` file,
    sorted, joined with a blank line). The other side is ``unknown.txt`` (Enron,
    ``unknown="first"``: the first ``unknown*`` file). ``prefix`` keeps problem ids
    starting with it (PAN13 languages ``EN``/``GR``/``SP``). Problems without their
    files are skipped (counted). Label ``trial_<id>_<true|false>``, ``pair`` = problem id.
    ``truth.txt`` is decoded as ``reader_options["truth_encoding"]``: ``"utf-8"`` (the
    default, PAN13-15) keeps a byte-order mark, as the reference reads these files: the
    mark becomes part of the first problem id, which then names no folder (nor starts
    with a PAN13 prefix), so that problem is left out (counted); ``"utf-8-sig"`` (Enron,
    as the reference reads it) drops the mark.
Authorship verification, JSON lines (``read_pan_jsonl_pairs``, PAN20/21)
    ``<name>.jsonl`` (``id``, ``pair``) and ``<name>-truth.jsonl`` (``id``, ``same``).
    As the reference's download script does, the pairs are cut to 250 same-author and
    250 different-author pairs: Python's ``random.Random(42)`` shuffles the same and
    the different pairs (file order), and the first 250 of each are kept, same first.
Style change, PAN18 (``read_pan18_style_change``)
    ``problem-<id>.txt`` with ``problem-<id>.truth`` (``changes``, ``positions``): a
    document without a change is cut at the whitespace nearest its middle (a same-author
    pair); with a change, its first segment is paired with the second (different
    authors). Pairs with a blank side are skipped (counted).
Style change, PAN22-26 (``read_pan_style_change``)
    ``problem-<id>.txt`` (one paragraph or sentence per line) with
    ``truth-problem-<id>.json`` (``changes``: one 0/1 per consecutive pair). Every
    consecutive pair is a trial ``trial_<level>_<id>_<i>_<true|false>``; documents
    whose ``changes`` do not fit their lines are skipped (counted). With
    ``balance`` (PAN26), all different-author pairs are kept and the same-author pairs
    of each document are sampled (``random.Random(42)``) at the global rate
    ``n_different / n_same``, in the reference's order.
Cross-domain attribution, PAN18 (``read_pan18_attribution``)
    Turned into retrieval as the reference's download script does: per problem (in
    ``collection-info.json`` order) of ``reader_options["language"]``, each candidate's
    known texts joined with a blank line are one target (label
    ``<problem>_<candidate>``), each unknown text with a ground-truth author is a query.
Generated text (``read_pan_generated``)
    ``layout="pan24"``: ``human.jsonl`` then ``machines/<model>.jsonl`` (label = file
    stem); ``"task1"``: ``val.jsonl`` rows of ``reader_options["genre"]``, label
    ``model``; ``"task2"``: ``dev.jsonl``, label ``label_text``. Blank texts are
    skipped (counted).

Texts are decoded as UTF-8 with undecodable bytes replaced, as the reference reads
them; the plain text files (PAN13-15 and Enron sides, PAN18 style-change documents, the
PAN18 attribution texts) are read as the reference's text-mode ``open`` reads them:
``\\r\\n`` and a lone ``\\r`` become ``\\n`` (PAN18 change positions then count
characters of that text, as in the reference). A JSON line that does not parse, or a
missing member, raises naming the file.
"""

from __future__ import annotations

import posixpath
import random
from typing import Any

import pandas as pd

from ...errors import DataUnavailable
from ._files import Tree, json_lines, load_json, require_keys, source_tree
from ._steb import frame, pair_rows, smoke_cut, trial_label
from .text import report_dropped

__all__ = ["read_pan18_attribution", "read_pan18_style_change", "read_pan_generated",
           "read_pan_jsonl_pairs", "read_pan_style_change", "read_pan_verification"]

_PAIR_COLUMNS = ("text", "label", "pair", "same")


def descend(tree: Tree, steps: list[str]) -> tuple[Tree, str]:
    """Follow ``steps`` (names of nested archives or folders) into ``tree``.

    Each step is the name of a member archive (``<step>.zip``), opened in memory, or
    of a folder, which becomes the path prefix. Returns the innermost tree and prefix.
    """
    prefix = ""
    for step in steps:
        archives = [n for n in tree.names() if n.startswith(prefix)
                    and posixpath.basename(n) in (f"{step}.zip", f"{step}.tar.gz")]
        if len(archives) == 1:
            tree, prefix = tree.open(archives[0]), ""
            continue
        folders = sorted({n[: n.index(f"{step}/", len(prefix)) + len(step) + 1]
                          for n in tree.names() if n.startswith(prefix)
                          and (n[len(prefix):].startswith(f"{step}/")
                               or f"/{step}/" in n[len(prefix):])})
        if len(folders) != 1:
            raise DataUnavailable(
                f"{tree.label} has {'no' if not folders else len(folders)} archive or folder "
                f"named {step!r}{' under ' + prefix if prefix else ''} "
                f"({folders[:3] or 'none'}); the download is incomplete or a different "
                f"release: delete it to download it again")
        prefix = folders[0]
    return tree, prefix


_TRUTH_ENCODINGS = ("utf-8", "utf-8-sig")


def _truth(tree: Tree, name: str, encoding: str = "utf-8") -> dict[str, bool]:
    """``{problem id: same author}`` of a ``truth.txt`` (a byte-order mark kept unless
    ``encoding`` is ``"utf-8-sig"``)."""
    if encoding not in _TRUTH_ENCODINGS:
        raise ValueError(f"{tree.label}: truth_encoding={encoding!r} must be one of "
                         f"{_TRUTH_ENCODINGS}")
    text = tree.text(name, errors="replace")
    if encoding == "utf-8-sig":
        text = text.removeprefix("\ufeff")
    truth: dict[str, bool] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            truth[parts[0]] = parts[1] == "Y"
    if not truth:
        raise ValueError(f"{tree.label}: {name} lists no '<problem> <Y|N>' lines")
    return truth


def read_pan_verification(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """Verification problems in folders with a ``truth.txt`` (PAN13-15, Enron)."""
    opts = dict(spec.reader_options)
    tree, prefix = descend(source_tree(spec), list(opts.get("chain", [])))
    truths = sorted((n for n in tree.names() if n.startswith(prefix)
                     and posixpath.basename(n) == "truth.txt"), key=lambda n: (n.count("/"), n))
    if not truths:
        raise DataUnavailable(f"{tree.label} has no truth.txt under {prefix or 'its root'}")
    base = posixpath.dirname(truths[0])
    base = f"{base}/" if base else ""
    truth = _truth(tree, truths[0], opts.get("truth_encoding", "utf-8"))
    files: dict[str, list[str]] = {}
    for name in tree.names():
        if name.startswith(base) and name.count("/") == base.count("/") + 1:
            pid, leaf = name[len(base):].split("/")
            files.setdefault(pid, []).append(leaf)
    mode = opts.get("known", "known01")
    marked = [p for p in truth if p.startswith("\ufeff")]
    report_dropped(spec.name, len(marked), len(truth), "problems whose id in truth.txt "
                   "carries the file's byte-order mark: read as the reference reads it, the "
                   "id names no problem folder")
    pids = sorted(p for p in truth if p.startswith(opts.get("prefix", ""))
                  and p not in marked)
    rows, skipped = [], 0
    for pid in pids:
        leaves = sorted(files.get(pid, []))
        if mode == "known01":
            known = ["known01.txt"] if "known01.txt" in leaves else []
            unknown = ["unknown.txt"] if "unknown.txt" in leaves else []
        elif mode == "all":
            ext = opts.get("known_ext", ".txt")
            known = [f for f in leaves if f.startswith("known") and f.endswith(ext)]
            unknown = ([f for f in leaves if f.startswith("unknown")][:1]
                       if opts.get("unknown") == "first" else
                       ["unknown.txt"] if "unknown.txt" in leaves else [])
        else:
            raise ValueError(f"dataset {spec.name!r}: reader option known={mode!r} must be "
                             f"'known01' or 'all'")
        if not known or not unknown:
            skipped += 1
            continue
        first = "\n\n".join(tree.text(f"{base}{pid}/{k}", errors="replace", newline=None)
                            for k in known)
        second = tree.text(f"{base}{pid}/{unknown[0]}", errors="replace", newline=None)
        rows += pair_rows(pid, truth[pid], trial_label(pid, truth[pid]), first, second)
    report_dropped(spec.name, skipped, len(pids), "problems without their known/unknown files")
    return smoke_cut(frame(rows, _PAIR_COLUMNS), smoke)


def subsample_pairs(ids: list[str], same: dict[str, bool], per_class: int,
                    seed: int = 42) -> list[str]:
    """The reference's download-time cut: shuffled same-author ids, then different-author
    ids, ``per_class`` of each (Python's ``random`` seeded with ``seed``).

    >>> ids = [f"p{i}" for i in range(6)]
    >>> subsample_pairs(ids, {i: n % 2 == 0 for n, i in enumerate(ids)}, 2)
    ['p2', 'p0', 'p5', 'p3']
    """
    rng = random.Random(seed)
    same_ids = [i for i in ids if same[i]]
    diff_ids = [i for i in ids if not same[i]]
    rng.shuffle(same_ids)
    rng.shuffle(diff_ids)
    return same_ids[:per_class] + diff_ids[:per_class]


def read_pan_jsonl_pairs(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """PAN20/21 verification pairs (JSON lines), cut to 250 + 250 pairs as the reference."""
    opts = dict(spec.reader_options)
    tree = source_tree(spec)
    name = opts["name"]
    data = tree.find(f"*{name}.jsonl", what="data file")
    truth_file = tree.find(f"*{name}-truth.jsonl", what="truth file")
    truth_rows = json_lines(tree.text(truth_file), f"{tree.label}: {truth_file}")
    truth = {}
    for n, row in enumerate(truth_rows, start=1):
        require_keys(row, ("id", "same"), f"{tree.label}: {truth_file} record {n}")
        truth[row["id"]] = bool(row["same"])
    records = json_lines(tree.text(data), f"{tree.label}: {data}")
    by_id = {}
    for n, row in enumerate(records, start=1):
        require_keys(row, ("id", "pair"), f"{tree.label}: {data} record {n}")
        if row["id"] not in truth:
            raise ValueError(f"{tree.label}: {data} record {n} (id {row['id']!r}) has no "
                             f"line in {truth_file}; the release is incomplete")
        by_id[row["id"]] = row
    chosen = subsample_pairs(list(by_id), truth, int(opts.get("per_class", 250)),
                             int(opts.get("subsample_seed", 42)))
    rows, skipped = [], 0
    for pid in chosen:
        pair = by_id[pid]["pair"]
        if len(pair) != 2:
            skipped += 1
            continue
        rows += pair_rows(pid, truth[pid], trial_label(pid, truth[pid]), pair[0], pair[1])
    report_dropped(spec.name, skipped, len(chosen), "records whose 'pair' is not two texts")
    return smoke_cut(frame(rows, _PAIR_COLUMNS), smoke)


def _problems(tree: Tree, folder: str, text_glob: str) -> list[tuple[str, str]]:
    """``(doc id, member)`` of the ``problem-<id>.txt`` files of ``folder``, sorted."""
    names = tree.glob(f"*{folder}/{text_glob}") if folder else tree.glob(f"*{text_glob}")
    if not names:
        raise DataUnavailable(f"{tree.label} has no {text_glob} files in a folder matching "
                              f"{folder or '(any)'!r}; the download is incomplete or a "
                              f"different release: delete it to download it again")
    parents = {posixpath.dirname(n) for n in names}
    if len(parents) > 1:
        raise ValueError(f"{tree.label}: {text_glob} files of {folder!r} are in "
                         f"{len(parents)} folders ({sorted(parents)[:3]}); expected one")
    return [(posixpath.basename(n)[len("problem-"):-len(".txt")], n) for n in names]


def _middle_split(text: str) -> int:
    """Where the reference cuts a change-free document: after the whitespace nearest the
    middle (looking left first at each distance).

    >>> _middle_split("ab cd ef")
    6
    """
    mid = len(text) // 2
    for offset in range(len(text)):
        left, right = mid - offset, mid + offset
        if left >= 0 and text[left].isspace():
            return left + 1
        if right < len(text) and text[right].isspace():
            return right + 1
    return mid


def read_pan18_style_change(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """PAN18 style change: one verification pair per document."""
    tree = source_tree(spec)
    problems = _problems(tree, spec.reader_options.get("folder", ""), "problem-*.txt")
    rows, skipped = [], 0
    for doc_id, member in problems:
        truth_name = member[: -len(".txt")] + ".truth"
        text = tree.text(member, errors="replace", newline=None)
        truth = load_json(tree.text(truth_name), f"{tree.label}: {truth_name}")
        if truth.get("changes"):
            positions = truth.get("positions") or []
            if not positions:
                raise ValueError(f"{tree.label}: {truth_name} says the document changes "
                                 f"author but lists no 'positions'")
            end = positions[1] if len(positions) > 1 else len(text)
            first, second, same = text[: positions[0]], text[positions[0]:end], False
        else:
            cut = _middle_split(text)
            first, second, same = text[:cut], text[cut:], True
        if not first.strip() or not second.strip():
            skipped += 1
            continue
        rows += pair_rows(doc_id, same, trial_label(doc_id, same), first, second)
    report_dropped(spec.name, skipped, len(problems), "documents with a blank side")
    return smoke_cut(frame(rows, _PAIR_COLUMNS), smoke)


def read_pan_style_change(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """PAN22-26 style change: every consecutive pair of units is a trial."""
    opts = dict(spec.reader_options)
    level = opts["level"]
    tree = source_tree(spec)
    problems = _problems(tree, opts.get("folder", ""), "problem-*.txt")
    docs, skipped, n_same, n_diff = [], 0, 0, 0
    for doc_id, member in problems:
        truth_name = f"{posixpath.dirname(member)}/truth-problem-{doc_id}.json"
        units = [u for u in tree.text(member, errors="replace").splitlines() if u.strip()]
        truth = load_json(tree.text(truth_name), f"{tree.label}: {truth_name}")
        changes = truth.get("changes", []) if isinstance(truth, dict) else []
        if len(units) < 2 or len(changes) != len(units) - 1:
            skipped += 1
            continue
        same_idx = [i for i, c in enumerate(changes) if c == 0]
        diff_idx = [i for i, c in enumerate(changes) if c == 1]
        n_same, n_diff = n_same + len(same_idx), n_diff + len(diff_idx)
        docs.append((doc_id, units, same_idx, diff_idx))
    report_dropped(spec.name, skipped, len(problems),
                   "documents with fewer than two units or 'changes' not matching them")
    if not n_same or not n_diff:
        raise ValueError(f"dataset {spec.name!r}: {tree.label} gives {n_same} same-author and "
                         f"{n_diff} different-author pairs; both kinds are needed")
    balance = bool(opts.get("balance", False))
    rng = random.Random(int(opts.get("subsample_seed", 42)))
    rate = n_diff / n_same
    rows, dropped = [], 0
    for doc_id, units, same_idx, diff_idx in docs:
        kept = same_idx
        if balance:
            n_keep = min(len(same_idx), round(rate * len(same_idx)))
            kept = rng.sample(same_idx, n_keep) if n_keep > 0 else []
            dropped += len(same_idx) - len(kept)
        for idx, same in [*((i, True) for i in kept), *((i, False) for i in diff_idx)]:
            pid = f"{level}_{doc_id}_{idx}"
            rows += pair_rows(pid, same, trial_label(pid, same), units[idx], units[idx + 1])
    report_dropped(spec.name, dropped, n_same, "same-author pairs left out to balance the "
                   "classes, as the reference does")
    return smoke_cut(frame(rows, _PAIR_COLUMNS), smoke)


def read_pan18_attribution(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """PAN18 cross-domain attribution as retrieval (candidates = targets)."""
    opts = dict(spec.reader_options)
    tree, prefix = descend(source_tree(spec), list(opts.get("chain", [])))
    info_name = min((n for n in tree.names() if n.startswith(prefix)
                     and posixpath.basename(n) == "collection-info.json"),
                    key=lambda n: n.count("/"), default=None)
    if info_name is None:
        raise DataUnavailable(f"{tree.label} has no collection-info.json under "
                              f"{prefix or 'its root'}")
    base = posixpath.dirname(info_name)
    base = f"{base}/" if base else ""
    collection = load_json(tree.text(info_name), f"{tree.label}: {info_name}")
    rows, skipped, n_unknown = [], 0, 0
    for n, entry in enumerate(collection, start=1):
        require_keys(entry, ("problem-name", "language"), f"{tree.label}: {info_name} entry {n}")
        if entry["language"] != opts["language"]:
            continue
        problem = entry["problem-name"]
        gt_name = f"{base}{problem}/ground-truth.json"
        gt = load_json(tree.text(gt_name), f"{tree.label}: {gt_name}")
        require_keys(gt, ("ground_truth",), f"{tree.label}: {gt_name}")
        author_of = {e["unknown-text"]: e["true-author"] for e in gt["ground_truth"]}
        members: dict[str, list[str]] = {}
        for name in tree.names():
            if name.startswith(f"{base}{problem}/") and name.count("/") == base.count("/") + 2:
                folder, leaf = name[len(base) + len(problem) + 1:].split("/")
                members.setdefault(folder, []).append(leaf)
        for candidate in sorted(c for c in members if c != "unknown"):
            texts = [tree.text(f"{base}{problem}/{candidate}/{f}", errors="replace", newline=None)
                     for f in sorted(members[candidate]) if f.endswith(".txt")]
            rows.append({"text": "\n\n".join(texts), "label": f"{problem}_{candidate}",
                         "side": "target"})
        for leaf in sorted(f for f in members.get("unknown", []) if f.endswith(".txt")):
            n_unknown += 1
            if leaf not in author_of:
                skipped += 1
                continue
            text = tree.text(f"{base}{problem}/unknown/{leaf}", errors="replace", newline=None)
            rows.append({"text": text, "label": f"{problem}_{author_of[leaf]}",
                         "side": "query"})
    report_dropped(spec.name, skipped, n_unknown, "unknown texts without a ground-truth author")
    if not rows:
        raise ValueError(f"dataset {spec.name!r}: {tree.label} has no problem in language "
                         f"{opts['language']!r}")
    return smoke_cut(frame(rows, ("text", "label", "side")), smoke)


def read_pan_generated(spec: Any, *, seed: int = 42, smoke: bool = False) -> pd.DataFrame:
    """PAN24 generative authorship (news) and PAN25 generative AI detection (tasks 1, 2)."""
    opts = dict(spec.reader_options)
    tree = source_tree(spec)
    layout = opts["layout"]
    if layout == "pan24":
        human = tree.find("*human.jsonl", what="human.jsonl")
        folder = posixpath.dirname(human)
        machines = tree.glob(f"{folder}/machines/*.jsonl" if folder else "machines/*.jsonl")
        files = [("human", human)] + [(posixpath.basename(m)[: -len(".jsonl")], m)
                                      for m in machines]
        label_key, genre = None, None
    elif layout in ("task1", "task2"):
        leaf = "val.jsonl" if layout == "task1" else "dev.jsonl"
        files = [("", tree.find(f"*{leaf}", what=leaf))]
        label_key = "model" if layout == "task1" else "label_text"
        genre = opts.get("genre") if layout == "task1" else None
    else:
        raise ValueError(f"dataset {spec.name!r}: unknown layout {layout!r}")
    rows, blank, total = [], 0, 0
    for label, member in files:
        for n, row in enumerate(json_lines(tree.text(member), f"{tree.label}: {member}"), 1):
            where = f"{tree.label}: {member} record {n}"
            require_keys(row, ("text",) + ((label_key,) if label_key else ()), where)
            if genre is not None and row.get("genre") != genre:
                continue
            total += 1
            text = row["text"]
            if not isinstance(text, str) or not text.strip():
                blank += 1
                continue
            rows.append({"text": text, "label": str(row[label_key]) if label_key else label})
    report_dropped(spec.name, blank, total, "blank texts")
    return smoke_cut(frame(rows), smoke)
