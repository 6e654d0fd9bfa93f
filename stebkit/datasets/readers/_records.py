"""Builders that turn labelled passages into the records of each task family.

Input frames have at least ``text`` and ``label`` (and ``work`` for the cross-work
designs); outputs follow :mod:`stebkit.datasets.spec`. All sampling goes through the
``rng`` passed in, after sorting, so the result depends on the seed only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .text import cut_passages, per_label_sample, sample, spread_passages


def labelled(frame: pd.DataFrame, per_label: int, rng: np.random.Generator) -> pd.DataFrame:
    """Up to ``per_label`` rows per label: the records of clustering / all-to-all pairs.

    >>> f = pd.DataFrame({"text": list("abcdef"), "label": list("xxxyyy")})
    >>> labelled(f, 2, np.random.default_rng(0))["label"].tolist()
    ['x', 'x', 'y', 'y']
    """
    out = per_label_sample(frame, per_label, rng)
    return out.reset_index(drop=True)


def passages_per_label(docs: pd.DataFrame, per_label: int,
                       rng: np.random.Generator) -> pd.DataFrame:
    """About ``per_label`` passages per label from documents (``label``, ``work``,
    ``paragraphs``), spread over the label's documents and within each document.

    Documents are visited in a seeded order, each giving up to
    ``ceil(per_label / n_documents)`` passages, until the label has ``per_label``; if
    they fall short, the rest is drawn from all passages of the label's documents.
    """
    rows = []
    for label, group in docs.groupby("label", sort=True):
        group = group.sort_values("work")
        quota = -(-per_label // len(group))
        got = 0
        for w in rng.permutation(len(group)):
            doc = group.iloc[int(w)]
            texts = spread_passages(doc["paragraphs"], min(quota, per_label - got), rng)
            rows += [{"text": t, "label": str(label), "work": doc["work"]} for t in texts]
            got += len(texts)
            if got >= per_label:
                break
        if got < per_label:  # short documents: cut them whole and draw the rest
            taken = {r["text"] for r in rows}
            spare = [{"text": t, "label": str(label), "work": w}
                     for w, paras in zip(group["work"], group["paragraphs"], strict=True)
                     for t in cut_passages(paras) if t not in taken]
            rows += sample(spare, per_label - got, rng)
    return pd.DataFrame(rows, columns=["text", "label", "work"])


def _works_by_label(frame: pd.DataFrame) -> dict[str, list[str]]:
    works = {}
    for label, group in frame.groupby("label", sort=True):
        names = sorted(group["work"].unique())
        if len(names) >= 2:
            works[str(label)] = names[:2]
    return works


def cross_work_retrieval(frame: pd.DataFrame, per_side: int,
                         rng: np.random.Generator) -> pd.DataFrame:
    """Retrieval records: queries from a label's first work, targets from its second.

    Labels with fewer than two works are left out (a label needs both sides).

    >>> f = pd.DataFrame({"text": list("abcdefgh"), "label": list("xxxxyyyy"),
    ...                   "work": list("12121212")})
    >>> r = cross_work_retrieval(f, 1, np.random.default_rng(0))
    >>> r[["label", "work", "side"]].values.tolist()
    [['x', '1', 'query'], ['x', '2', 'target'], ['y', '1', 'query'], ['y', '2', 'target']]
    """
    rows = []
    for label, (first, second) in _works_by_label(frame).items():
        for work, side in ((first, "query"), (second, "target")):
            pool = frame[(frame["label"] == label) & (frame["work"] == work)]
            picked = sample(list(range(len(pool))), per_side, rng)
            part = pool.iloc[picked].copy()
            part["side"] = side
            rows.append(part)
    if not rows:
        raise ValueError("cross-work retrieval needs labels with at least two works")
    return pd.concat(rows, ignore_index=True)


def cross_work_pairs(frame: pd.DataFrame, same_per_label: int,
                     rng: np.random.Generator) -> pd.DataFrame:
    """Predefined verification pairs across works.

    Same-label pairs join a passage of the label's first work with one of its second
    work; as many different-label pairs join passages of two different labels. No
    passage is used twice.

    >>> f = pd.DataFrame({"text": [f"t{i}" for i in range(24)],
    ...                   "label": ["a"] * 8 + ["b"] * 8 + ["c"] * 8,
    ...                   "work": ["1", "2"] * 12})
    >>> p = cross_work_pairs(f, 1, np.random.default_rng(0))
    >>> bool(p.groupby("pair").size().eq(2).all()), int(p["same"].sum()) // 2, p["pair"].nunique()
    (True, 3, 6)
    """
    works = _works_by_label(frame)
    labels = sorted(works)
    if len(labels) < 2:
        raise ValueError("verification pairs need at least two labels with two works each")
    pools = _work_pools(frame, works, rng)
    rows = _same_label_pairs(pools, works, same_per_label)
    n_same = len(rows) // 2
    rows += _different_label_pairs(pools, works, n_same, rng)
    n_pairs = len(rows) // 2
    if n_pairs - n_same < n_same:
        raise ValueError(f"only {n_pairs - n_same} different-label pairs for {n_same} "
                         "same-label pairs: sample more passages per label")
    out = frame.loc[[r[0] for r in rows]].copy()
    out["pair"] = [r[1] for r in rows]
    out["same"] = [r[2] for r in rows]
    return out.reset_index(drop=True)


_Pools = dict[tuple[str, str], list[int]]
"""Row indices of each (label, work), shuffled; pairs pop passages off their ends."""


def _work_pools(frame: pd.DataFrame, works: dict[str, list[str]],
                rng: np.random.Generator) -> _Pools:
    """The shuffled row indices of each (label, work), labels in sorted order."""
    pools: _Pools = {}
    for label in sorted(works):
        for work in works[label]:
            idx = frame.index[(frame["label"] == label) & (frame["work"] == work)].tolist()
            pools[label, work] = [idx[i] for i in rng.permutation(len(idx))]
    return pools


def _same_label_pairs(pools: _Pools, works: dict[str, list[str]], same_per_label: int
                      ) -> list[tuple[int, str, bool]]:
    """Up to ``same_per_label`` pairs per label, a passage of its first work with one of its
    second, as ``(row, pair id, True)`` rows; pair ids count from ``p0000``."""
    rows: list[tuple[int, str, bool]] = []
    for label in sorted(works):
        first, second = works[label]
        for _ in range(same_per_label):
            if not pools[label, first] or not pools[label, second]:
                break
            pair = f"p{len(rows) // 2:04d}"
            rows += [(pools[label, first].pop(), pair, True),
                     (pools[label, second].pop(), pair, True)]
    return rows


def _different_label_pairs(pools: _Pools, works: dict[str, list[str]], n_same: int,
                           rng: np.random.Generator) -> list[tuple[int, str, bool]]:
    """Up to ``n_same`` pairs of passages of two labels (labels taken in turn, the other
    drawn), as ``(row, pair id, False)`` rows; pair ids count on from ``n_same``."""
    labels = sorted(works)
    rows: list[tuple[int, str, bool]] = []
    for i in range(n_same):
        a = labels[i % len(labels)]
        others = [lab for lab in labels if lab != a]
        b = others[int(rng.integers(len(others)))]
        pa = next((pools[a, w] for w in works[a] if pools[a, w]), None)
        pb = next((pools[b, w] for w in works[b] if pools[b, w]), None)
        if pa is None or pb is None:
            break
        pair = f"p{n_same + len(rows) // 2:04d}"
        rows += [(pa.pop(), pair, False), (pb.pop(), pair, False)]
    return rows


def sequences(groups: Sequence[Sequence[str]], label: str, prefix: str = "g",
              extra: dict[str, Sequence[object]] | None = None) -> pd.DataFrame:
    """Order-alignment records: one group per sequence, ``position`` = rank in it.

    >>> sequences([["simple", "complex"]], "simplicity")[["group", "position"]].values.tolist()
    [['g0000', 0], ['g0000', 1]]
    """
    rows = []
    for g, seq in enumerate(groups):
        for pos, text in enumerate(seq):
            rows.append({"text": text, "label": label, "group": f"{prefix}{g:04d}",
                         "position": pos})
    out = pd.DataFrame(rows, columns=["text", "label", "group", "position"])
    for column, values in (extra or {}).items():
        out[column] = list(values)
    return out


def with_splits(frame: pd.DataFrame, rng: np.random.Generator,
                fractions: tuple[float, float, float] = (0.6, 0.2, 0.2)) -> pd.DataFrame:
    """Add a stratified ``split`` column (train/validation/test) for probing.

    >>> f = pd.DataFrame({"text": list("abcdefghij"), "label": ["x"] * 10})
    >>> with_splits(f, np.random.default_rng(0))["split"].value_counts().to_dict()
    {'train': 6, 'validation': 2, 'test': 2}
    """
    out = frame.copy()
    out["split"] = ""
    for _, group in out.groupby("label", sort=True):
        order = group.index[rng.permutation(len(group))]
        n_train = int(round(fractions[0] * len(order)))
        n_val = int(round(fractions[1] * len(order)))
        out.loc[order[:n_train], "split"] = "train"
        out.loc[order[n_train:n_train + n_val], "split"] = "validation"
        out.loc[order[n_train + n_val:], "split"] = "test"
    return out


SAMPLINGS = ("all", "seeded")
"""How the readers of sources that serve both the STEB catalogue and the lite suite pick
records (their ``sampling`` argument): ``"all"`` reads every item, as the reference's
loader does; ``"seeded"`` draws the seeded sample that the spec's ``reader_options`` size."""


def is_seeded(sampling: str, dataset: str) -> bool:
    """Whether ``sampling`` asks for the seeded sample (``"seeded"``) rather than every
    item (``"all"``); anything else is an error naming the dataset.

    >>> is_seeded("all", "asset"), is_seeded("seeded", "asset")
    (False, True)
    >>> is_seeded("some", "asset")
    Traceback (most recent call last):
    ...
    ValueError: dataset 'asset': unknown sampling 'some'; use one of ('all', 'seeded')
    """
    if sampling not in SAMPLINGS:
        raise ValueError(f"dataset {dataset!r}: unknown sampling {sampling!r}; use one of "
                         f"{SAMPLINGS}")
    return sampling == "seeded"
