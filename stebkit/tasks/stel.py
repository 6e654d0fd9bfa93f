"""STEL: the similarity-based style evaluation framework (Wegmann & Nguyen, 2021).

A STEL item is a quadruple: anchors ``A1, A2`` in two styles and alternatives ``S1, S2``
in the same two styles, where ``correct`` says whether ``S1`` (1) or ``S2`` (2) shares
``A1``'s style. Similarity is the cosine of the embeddings; a tie counts as 0.5 (STEL
guesses at random there and credits ties with 0.5 in its accuracy).

- *STEL* (quadruple rule): with distances ``d = 1 - cos``, predict 1 when
  ``|| (d(A1,S1), d(A2,S2)) || < || (d(A1,S2), d(A2,S1)) ||`` and 2 when greater.
- *STEL-or-Content* (triple rule, Wegmann et al., 2022): the wrong alternative is replaced
  by ``A2`` (same content as ``A1``, other style); correct when
  ``cos(A1, S_correct) > cos(A1, A2)``.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

import numpy as np

from stebkit.datasets.spec import RECORD_COLUMNS

from . import _checks, inputs, similarity
from .family import Statistic, TaskFamily, mean_of
from .result import TaskResult


def _credit(good: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """1 where good wins, 0 where bad wins, 0.5 on ties."""
    return np.where(good, 1.0, np.where(bad, 0.0, 0.5))


def stel(anchor1: np.ndarray, anchor2: np.ndarray, alt1: np.ndarray, alt2: np.ndarray,
         correct: np.ndarray) -> TaskResult:
    """STEL accuracy (quadruple rule) and STEL-or-Content accuracy (triple rule).

    Parameters
    ----------
    anchor1, anchor2, alt1, alt2 : ndarray of shape (n, d)
        Embeddings of ``A1``, ``A2``, ``S1``, ``S2`` of each item.
    correct : array-like of shape (n,)
        1 when ``S1`` has ``A1``'s style, 2 when ``S2`` has.

    Returns
    -------
    TaskResult
        ``metrics``: ``accuracy`` (STEL, main) and ``or_content_accuracy``
        (STEL-or-Content); ``counts``: ``n_items``; ``details``: the per-item credit (1,
        0.5 or 0) ``stel_correct`` and ``stel_or_content_correct``.

    Examples
    --------
    >>> import numpy as np
    >>> from stebkit.tasks import stel
    >>> formal, casual = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    >>> r = stel(formal, casual, casual + 0.1, formal + 0.1, [2])
    >>> r["accuracy"], r["or_content_accuracy"]
    (1.0, 1.0)
    """
    a1, a2, s1, s2 = _unit_quadruples(anchor1, anchor2, alt1, alt2)
    n = a1.shape[0]
    c = _checks.labels(correct, "correct", n, "anchor1")
    if c.dtype.kind not in "iuf" or not np.isin(c, (1, 2)).all():
        raise ValueError("correct must contain only 1 (alt1 matches anchor1's style) or 2")
    one = c == 1
    cos = functools.partial(similarity.cosine_rows, unit=True)  # rows scaled once
    c11, c12 = cos(a1, s1), cos(a1, s2)
    d11, d12 = 1 - c11, 1 - c12
    d21, d22 = 1 - cos(a2, s1), 1 - cos(a2, s2)
    straight = np.sqrt(d11 * d11 + d22 * d22)
    crossed = np.sqrt(d12 * d12 + d21 * d21)
    pred1, pred2 = straight < crossed, straight > crossed
    quad = _credit(np.where(one, pred1, pred2), np.where(one, pred2, pred1))
    style = np.where(one, c11, c12)
    content = cos(a1, a2)
    triple = _credit(style > content, style < content)
    return TaskResult({"accuracy": float(quad.mean()),
                       "or_content_accuracy": float(triple.mean())}, {"n_items": n},
                      {"stel_correct": quad, "stel_or_content_correct": triple})


def _unit_quadruples(anchor1: object, anchor2: object, alt1: object, alt2: object
                     ) -> tuple[np.ndarray, ...]:
    """The four arrays checked to be embeddings of one shape, their rows scaled to unit
    length."""
    a1 = _checks.embeddings(anchor1, "anchor1")
    arrays = [a1]
    for name, arr in (("anchor2", anchor2), ("alt1", alt1), ("alt2", alt2)):
        arr = _checks.embeddings(arr, name)
        if arr.shape != a1.shape:
            raise ValueError(f"{name} has shape {arr.shape} but anchor1 has shape {a1.shape}; "
                             "each item needs one row in all four arrays")
        arrays.append(arr)
    return tuple(similarity.unit_rows(a) for a in arrays)


def build_stel(records: Any, task: str, episode_size: int, episodes_per_label: int,
               seed: int, sampling: str = "reference") -> inputs.TaskInput:
    """STEL items from records: one ``group`` per item, ``position`` 0..3 holding
    ``A1``, ``A2``, the alternative in ``A1``'s style and the one in ``A2``'s style.

    Items keep record order; a group without exactly these four positions is dropped
    and counted.
    """
    if episode_size != 1:
        raise ValueError(f"{task} compares single texts: episode_size must be 1, "
                         f"got {episode_size}")
    inputs.require_columns(records, ["text", "label", "group", "position"], task)
    rows, invalid = inputs.valid_rows(records, ["label", "group", "position"])
    texts = rows["text"].to_numpy()
    groups = rows["group"].astype(str).to_numpy()
    positions = rows["position"].to_numpy(dtype=np.int64)
    members: dict[str, dict[int, int]] = {}
    for i, (g, p) in enumerate(zip(groups, positions, strict=True)):
        members.setdefault(g, {})[int(p)] = i
    intern = inputs.Texts()
    episodes, labels, ids, bad = [], [], [], 0
    counts = Counter(groups.tolist())  # rows per group (a position given twice counts)
    for g, pos in members.items():
        if sorted(pos) != [0, 1, 2, 3] or counts[g] != 4:
            bad += 1
            continue
        episodes += [(intern(texts[pos[p]]),) for p in range(4)]
        labels.append(str(rows["label"].iloc[pos[0]]))
        ids.append(g)
    dropped = inputs.report_dropped(task, {**invalid, "malformed_items": bad},
                                    "a STEL item is one group with positions 0, 1, 2 and 3")
    return inputs.TaskInput(task, episode_size, episodes_per_label, seed, intern.tuple(),
                            tuple(episodes), 4, np.asarray(labels, dtype=object), tuple(ids),
                            dropped=dropped, sampling=sampling)


class _Stel(TaskFamily):
    """STEL: one item per quadruple, which alternative shares the anchor's style."""

    builder = staticmethod(build_stel)

    def _run(self, ti: inputs.TaskInput, emb: np.ndarray, *, seed: int, batch_size: int,
             scoring: str) -> TaskResult:
        return stel(emb[:, 0], emb[:, 1], emb[:, 2], emb[:, 3],
                    np.ones(emb.shape[0], np.int64))

    def statistic(self, details: Any) -> tuple[int, Statistic]:
        return mean_of("stel_correct")(details)


FAMILY = _Stel(
    name="stel", function=stel, metrics={"accuracy": True, "or_content_accuracy": True},
    unit="item", per_item=("stel_correct", None), episode_sizes=(1,),
    episodes_per_label=1, columns=RECORD_COLUMNS["stel"], single_text=True, steb=False,
    description="STEL quadruples: which alternative shares the anchor's style")
