"""Quality checks of a benchmark run: is a dataset, a ranking, a dimension trustworthy?

- :func:`scale_inversions` — datasets where smaller models of a family beat larger ones
  in several families (a sign of label noise or a task that rewards the wrong thing);
- :func:`split_stability` — datasets whose score moves between validation and test;
- :func:`rank_resolution` — which adjacent leaderboard ranks a paired bootstrap can
  separate, and tiers of models that cannot be told apart;
- :func:`dimension_curve` — score against embedding dimension (first ``k`` dimensions,
  re-normalised), encoding once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from stebkit.scores import (
    is_significant,
    main_frame,
    operational,
    paired_difference,
    rank_tiers,
    select_episode_size,
)


def _scores_by_dataset(results: Any) -> pd.DataFrame:
    """(dataset, task) x model matrix of main values, one episode size each."""
    df = select_episode_size(main_frame(results))
    return df.pivot_table(index=["dataset", "task"], columns="model", values="value",
                          aggfunc="first")


# --------------------------------------------------------------------------- families
def scale_inversions(results: Any, families: Mapping[str, Sequence[str]], *,
                     min_families: int = 2, tol: float = 0.0) -> pd.DataFrame:
    """Flag datasets where a smaller model beats a larger one in several model families.

    Parameters
    ----------
    results : Results or DataFrame
        Evaluation results (anything :func:`stebkit.scores.main_frame` accepts).
    families : mapping of str to sequence of str
        Family name -> model names ordered from smallest to largest (at least two).
    min_families : int, default 2
        A dataset is flagged when at least this many families show an inversion.
    tol : float, default 0.0
        A smaller model must beat a larger one by more than ``tol`` to count.

    Returns
    -------
    DataFrame
        One row per (dataset, task): ``n_families`` (families with two or more models
        evaluated), ``n_inverted``, ``inverted_families`` (comma-separated), ``flagged``;
        flagged rows first.

    Examples
    --------
    >>> df = pd.DataFrame({"model": ["s1", "l1", "s2", "l2"], "dataset": "d",
    ...                    "task": "retrieval", "value": [0.9, 0.5, 0.8, 0.4]})
    >>> scale_inversions(df, {"A": ["s1", "l1"], "B": ["s2", "l2"]})[
    ...     ["dataset", "n_inverted", "flagged"]].values.tolist()
    [['d', 2, True]]
    """
    mat = _scores_by_dataset(results)
    _check_families(families, set(mat.columns))
    rows = []
    for (dataset, task), row in mat.iterrows():
        n_fam, inverted = _inversions(row, families, tol)
        rows.append({"dataset": dataset, "task": task, "n_families": n_fam,
                     "n_inverted": len(inverted), "inverted_families": ", ".join(inverted),
                     "flagged": len(inverted) >= min_families})
    out = pd.DataFrame(rows, columns=["dataset", "task", "n_families", "n_inverted",
                                      "inverted_families", "flagged"])
    return out.sort_values(["flagged", "n_inverted", "dataset", "task"],
                           ascending=[False, False, True, True]).reset_index(drop=True)


def _check_families(families: Mapping[str, Sequence[str]], known: set[str]) -> None:
    """Raise unless every family lists two or more models, all with results."""
    for fam, members in families.items():
        if isinstance(members, str) or len(members) < 2:
            raise ValueError(f"families[{fam!r}] must list at least two models, small to "
                             f"large; got {members!r}")
        missing = [m for m in members if m not in known]
        if missing:
            raise ValueError(f"families[{fam!r}]: model(s) {missing} have no results; "
                             f"known models: {sorted(known)}")


def _inversions(row: pd.Series, families: Mapping[str, Sequence[str]], tol: float
                ) -> tuple[int, list[str]]:
    """The number of families with two or more scores in ``row`` (one dataset's scores by
    model), and the families in which a smaller model beats a larger one by more than
    ``tol``."""
    n_fam, inverted = 0, []
    for fam, members in families.items():
        vals = [row[m] for m in members if pd.notna(row[m])]
        if len(vals) < 2:
            continue
        n_fam += 1
        v = np.asarray(vals)
        # any smaller model (earlier) above any larger one (later)
        best_before = np.maximum.accumulate(v)[:-1]
        if np.any(best_before - v[1:] > tol):
            inverted.append(fam)
    return n_fam, inverted


# --------------------------------------------------------------------------- splits
_VAL = ("validation", "val", "dev")


def split_stability(results_val: Any, results_test: Any = None, *, threshold: float = 0.20,
                    models: Sequence[str] | None = None, split_column: str = "split"
                    ) -> pd.DataFrame:
    """Flag datasets whose score differs between validation and test by > ``threshold``.

    The relative difference of a model is ``|val - test| / |test|``; a dataset is
    flagged when the mean over ``models`` exceeds ``threshold``. Pass the larger models
    of the pool as ``models``: small models are noisy everywhere.

    Parameters
    ----------
    results_val, results_test : Results or DataFrame
        Results on the validation and on the test split; or, with ``results_test=None``,
        one frame with a ``split_column`` holding ``"validation"`` (or ``"val"``,
        ``"dev"``) and ``"test"``.
    threshold : float, default 0.20
        Relative difference above which a dataset is flagged.
    models : sequence of str, optional
        Models to judge by (default: every model with both splits).
    split_column : str, default "split"

    Returns
    -------
    DataFrame
        One row per (dataset, task): ``val``, ``test`` (means over the models),
        ``rel_diff`` (mean relative difference ``|val - test| / max(|val|, |test|)``,
        symmetric and finite when one split scores 0), ``max_rel_diff``, ``n_models``,
        ``flagged``; flagged rows first.

    Examples
    --------
    >>> val = pd.DataFrame({"model": ["a", "b"], "dataset": "d", "task": "retrieval",
    ...                     "value": [0.5, 0.6]})
    >>> test = val.assign(value=[0.3, 0.4])
    >>> split_stability(val, test)[["dataset", "rel_diff", "flagged"]].round(3).values.tolist()
    [['d', 0.367, True]]
    """
    val_df, test_df = ((results_val, results_test) if results_test is not None
                       else _split_frames(results_val, split_column))
    keys = ["model", "dataset", "task"]
    v = select_episode_size(main_frame(val_df)).drop_duplicates(keys)
    t = select_episode_size(main_frame(test_df)).drop_duplicates(keys)
    both = v[keys + ["value"]].merge(t[keys + ["value"]], on=keys, suffixes=("_val", "_test"))
    out = _split_differences(both if models is None else _only_models(both, models))
    out["flagged"] = out["rel_diff"] > threshold
    return out.sort_values(["flagged", "rel_diff"], ascending=[False, False]
                           ).reset_index(drop=True)


def _only_models(both: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """The rows of ``models``, each of which must have results on both splits."""
    unknown = sorted(set(models) - set(both["model"]))
    if unknown:
        raise ValueError(f"models {unknown} have no results on both splits")
    return both[both["model"].isin(list(models))]


def _split_differences(both: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, task): the mean validation and test scores over the models, and the
    mean and largest symmetric relative difference between them."""
    with np.errstate(divide="ignore", invalid="ignore"):
        diff = (both["value_val"] - both["value_test"]).abs()
        larger = np.maximum(both["value_val"].abs(), both["value_test"].abs())
        both["rel"] = np.where(diff == 0, 0.0, diff / larger)
    return both.groupby(["dataset", "task"]).agg(
        val=("value_val", "mean"), test=("value_test", "mean"), rel_diff=("rel", "mean"),
        max_rel_diff=("rel", "max"), n_models=("model", "nunique")).reset_index()


def _split_frames(results: Any, split_column: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The validation rows and the test rows of one frame, told apart by ``split_column``."""
    if not isinstance(results, pd.DataFrame) or split_column not in results:
        raise ValueError(f"without results_test, results_val must be a frame with a "
                         f"{split_column!r} column holding 'validation' and 'test'")
    split = results[split_column].astype(str).str.lower()
    val_df, test_df = results[split.isin(_VAL)], results[split.eq("test")]
    if val_df.empty or test_df.empty:
        raise ValueError(f"column {split_column!r} needs both validation and test rows; "
                         f"found {sorted(set(split))}")
    return val_df, test_df


# --------------------------------------------------------------------------- ranks
def _records_of(results: Any) -> list[Mapping[str, Any]]:
    recs = getattr(results, "records", None)
    if recs is None:
        raise TypeError("per-item comparison needs a Results object (with .records holding "
                        "per_item values); pass stebkit.records.results.Results")
    return recs


def _per_item(results: Any, dataset: str, task: str) -> dict[str, dict[str, Any]]:
    """model -> its record for one dataset and task (one episode size, per-item kept)."""
    rows = []
    for r in _records_of(results):
        if r.get("status") != "ok" or r.get("task") != task:
            continue
        if (r.get("dataset") or {}).get("name") != dataset:
            continue
        if not (r.get("per_item") or {}).get("values"):
            continue
        rows.append({"model": r["model"]["name"], "dataset": dataset, "task": task,
                     "episode_size": r.get("episode_size"), "value": 0.0, "_record": r})
    if not rows:
        raise ValueError(f"no per-item values for dataset {dataset!r} and task {task!r} "
                         "(all-to-all pairs store none); check the names, or compare "
                         "aggregated scores with dataset=None")
    chosen = select_episode_size(pd.DataFrame(rows))
    return {row["model"]: row["_record"] for _, row in chosen.iterrows()}


def _aligned(record: Mapping[str, Any], ids: Sequence[str]) -> dict[str, Any]:
    """``record`` with its per-item lists reordered to ``ids``."""
    items = record["per_item"]
    pos = {str(i): k for k, i in enumerate(items["ids"])}
    if len(pos) != len(items["ids"]):
        raise ValueError(f"{record['model']['name']}: per-item ids are not unique")
    order = [pos[i] for i in ids]
    per = {key: [val[k] for k in order] for key, val in items.items()
           if isinstance(val, list) and len(val) == len(items["ids"])}
    return {**record, "per_item": {**per, "ids": list(ids)}}


def rank_resolution(results: Any, *, task: str | None = None, dataset: str | None = None,
                    n_resamples: int = 1000, alpha: float = 0.05, seed: int = 42,
                    recipe: Any = None, **options: Any) -> pd.DataFrame:
    """Which adjacent leaderboard ranks are separable, by a paired bootstrap.

    Models are ordered by score; each is compared with the next one down.

    - With ``task`` and ``dataset``: items are the evaluation's units (the per-item
      material stored in the records, aligned by item id), resampled with the same
      indices for both models; the task's main metric is recomputed on each resample
      (:func:`stebkit.tasks.paired_bootstrap`). ``score`` is the record's main metric,
      ``diff_to_next`` the difference on the items both models share.
    - Otherwise: items are datasets — the operational STEB score (or, with ``task``,
      that task's score) is recomputed on paired dataset resamples (same datasets for
      every model, grouping kept fixed).

    Parameters
    ----------
    results : Results or DataFrame
        A Results object is required for per-item comparisons.
    task, dataset : str, optional
        What to rank (see above).
    n_resamples, alpha, seed
        Bootstrap resamples, level (``1 - alpha`` intervals, two-sided p < alpha) and seed.
    recipe, **options
        The :class:`~stebkit.scores.ScoreRecipe` of the aggregated scores and its options
        by name (``grouping="fixed"``), as :func:`stebkit.scores.operational` takes them.

    Returns
    -------
    DataFrame
        ``rank``, ``model``, ``score``, ``diff_to_next``, ``diff_ci_low``,
        ``diff_ci_high``, ``p_value``, ``separable`` (from the next model down) and
        ``tier`` (models of one tier cannot be told apart from their neighbours). When
        the resamples cannot vary (every task has a single dataset), ``p_value`` is NaN
        and no step counts as separable.

    Examples
    --------
    >>> df = pd.DataFrame({"model": list("aabbcc"), "dataset": ["x", "y"] * 3,
    ...                    "task": "retrieval", "value": [.9, .8, .9, .8, .1, .2]})
    >>> rank_resolution(df, grouping="fixed", min_tasks=1, n_resamples=200)[
    ...     ["model", "separable", "tier"]].values.tolist()
    [['a', False, 1], ['b', True, 1], ['c', None, 2]]
    """
    shared = {"n_resamples": n_resamples, "alpha": alpha, "seed": seed}
    comparisons = (_item_comparisons(results, task, dataset, **shared) if dataset is not None
                   else _score_comparisons(results, task, recipe=recipe, **shared, **options))
    return _resolution_table(*comparisons, alpha)


_Comparisons = tuple[list[str], dict[str, float], list[tuple[float, float, float, float]]]
"""Models best first, their scores, and (diff, CI low, CI high, p) of each to the next."""


def _item_comparisons(results: Any, task: str | None, dataset: str, *, n_resamples: int,
                      alpha: float, seed: int) -> _Comparisons:
    """Adjacent models of one dataset and task compared by a paired bootstrap of the items
    they share (:func:`rank_resolution` with ``dataset``)."""
    if task is None:
        raise ValueError("rank_resolution(dataset=...) needs task= as well")
    from stebkit.tasks import FAMILIES, paired_bootstrap

    recs = _per_item(results, dataset, task)
    common = set.intersection(*(set(map(str, r["per_item"]["ids"]))
                                for r in recs.values()))
    if not common:
        raise ValueError(f"{dataset}/{task}: the models share no item ids")
    ids = [str(i) for i in next(iter(recs.values()))["per_item"]["ids"]
           if str(i) in common]
    family = FAMILIES.get_family(task)
    details = {m: family.item_details(_aligned(r, ids)["per_item"]) for m, r in recs.items()}
    score = {m: float(r["metrics"][r["main_metric"]]) for m, r in recs.items()}
    order = sorted(recs, key=lambda m: (-score[m], m))
    comps = []
    for a, b in zip(order[:-1], order[1:], strict=True):
        r = paired_bootstrap(details[a], details[b], task=task, n_resamples=n_resamples,
                             confidence=1 - alpha, seed=seed)
        comps.append((r["diff"], r["low"], r["high"], r["p_value"]))
    return order, score, comps


def _score_comparisons(results: Any, task: str | None, *, recipe: Any, alpha: float,
                       n_resamples: int, seed: int, **options: Any) -> _Comparisons:
    """Adjacent models compared on paired dataset resamples of the operational score (or
    of ``task``'s score)."""
    op = operational(results, recipe=recipe, n_resamples=n_resamples, seed=seed,
                     **options)
    if task is not None:
        if task not in op.task_replicates:
            raise ValueError(f"task {task!r} has no results; available: "
                             f"{sorted(op.task_replicates)}")
        reps = op.task_replicates[task]
    else:
        reps = op.replicates
    idx = {m: i for i, m in enumerate(op.models)}
    valid = [m for m in op.models if np.isfinite(reps[idx[m], 0])]
    order = sorted(valid, key=lambda m: (-reps[idx[m], 0], m))
    score = {m: float(reps[idx[m], 0]) for m in order}
    comps = []
    for a, b in zip(order[:-1], order[1:], strict=True):
        r = paired_difference(reps[idx[a]], reps[idx[b]], alpha=alpha)
        comps.append((r["diff"], r["low"], r["high"], r["p_value"]))
    return order, score, comps


def _resolution_table(order: list[str], score: dict[str, float],
                      comps: list[tuple[float, float, float, float]], alpha: float
                      ) -> pd.DataFrame:
    """The :func:`rank_resolution` table: one row per model, best first, with its step to
    the next model down and its tier."""
    rows = []
    separable: list[bool] = []
    for i, m in enumerate(order):
        if i < len(comps):
            diff, lo, hi, p = comps[i]
            sep = is_significant(p, lo, hi, alpha)
        else:
            diff = lo = hi = p = np.nan
            sep = None
        separable.append(bool(sep))
        rows.append({"rank": i + 1, "model": m, "score": score[m], "diff_to_next": diff,
                     "diff_ci_low": lo, "diff_ci_high": hi, "p_value": p, "separable": sep})
    out = pd.DataFrame(rows, columns=["rank", "model", "score", "diff_to_next", "diff_ci_low",
                                      "diff_ci_high", "p_value", "separable"])
    out["tier"] = rank_tiers(separable)
    return out


# --------------------------------------------------------------------------- dimensions
def _truncate(emb: np.ndarray, k: int | None) -> np.ndarray:
    x = emb if k is None else emb[:, :k]
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.where(norm > 0, norm, 1.0)).astype(np.float32)


def dimension_curve_from_embeddings(embeddings: np.ndarray,
                                    evaluate: Callable[[np.ndarray], float], *,
                                    dims: Sequence[int | None] = (32, 64, 128, 256, None)
                                    ) -> pd.DataFrame:
    """Score of ``evaluate`` on the first ``k`` dimensions (re-normalised), for each k.

    ``None`` in ``dims`` means all dimensions; sizes above the width are skipped.

    >>> emb = np.eye(4, dtype=np.float32)
    >>> dimension_curve_from_embeddings(emb, lambda x: float((x != 0).sum()),
    ...                                 dims=(1, 2, None)).to_dict("list")
    {'dim': [1, 2, 4], 'score': [1.0, 2.0, 4.0]}
    """
    emb = np.asarray(embeddings, dtype=np.float32)
    if emb.ndim != 2:
        raise ValueError(f"embeddings must be a 2-D (n, d) array, got shape {emb.shape}")
    width = emb.shape[1]
    ks = sorted({width if k is None else int(k) for k in dims})
    bad = [k for k in ks if k < 1]
    if bad:
        raise ValueError(f"dims must be positive ints or None, got {bad}")
    rows = [{"dim": k, "score": float(evaluate(_truncate(emb, k)))} for k in ks if k <= width]
    return pd.DataFrame(rows, columns=["dim", "score"])


def dimension_curve(encoder: Any, dataset: Any, *, task: str,
                    dims: Sequence[int | None] = (32, 64, 128, 256, None),
                    episode_size: int | None = None, episodes_per_label: int | None = None,
                    seed: int = 42, batch_size: int = 32, show_progress: bool = False
                    ) -> pd.DataFrame:
    """Score of an encoder on one dataset and task against the embedding dimension.

    The texts are encoded once; each curve point keeps the first ``k`` dimensions of the
    text embeddings, re-normalises them, pools the episodes and runs the task (main
    metric, :attr:`stebkit.tasks.TaskFamily.main_metric`).

    Parameters
    ----------
    encoder : Encoder
        Anything with ``encode(texts)``; wrap it in the embedding cache to reuse
        embeddings across calls.
    dataset : Dataset or str
        A loaded dataset, or a name for :func:`stebkit.load_dataset`.
    task : str
        A task the dataset serves.
    dims : sequence of int or None
        Widths to evaluate (None: all dimensions).
    episode_size, episodes_per_label : int, optional
        Default: the first episode size and the episodes per label of the dataset's
        configuration for ``task``.
    seed, batch_size, show_progress
        Episode sampling and task seed; encoding options.

    Returns
    -------
    DataFrame
        ``model``, ``dataset``, ``task``, ``metric``, ``dim``, ``score``.
    """
    spec, family, ti = _task_input(dataset, task, episode_size=episode_size,
                                   episodes_per_label=episodes_per_label, seed=seed)
    emb = np.asarray(encoder.encode(list(ti.texts), batch_size=batch_size,
                                    show_progress=show_progress), dtype=np.float32)
    metric = family.main_metric

    def evaluate(x: np.ndarray) -> float:
        return float(family.evaluate(ti, ti.pool(x), seed=seed)[metric])

    curve = dimension_curve_from_embeddings(emb, evaluate, dims=dims)
    curve.insert(0, "metric", metric)
    curve.insert(0, "task", task)
    curve.insert(0, "dataset", spec.name)
    curve.insert(0, "model", getattr(encoder, "name", type(encoder).__name__))
    return curve


def _task_input(dataset: Any, task: str, *, episode_size: int | None,
                episodes_per_label: int | None, seed: int) -> tuple[Any, Any, Any]:
    """The dataset's spec, the task's family and the task input built from the dataset
    (loaded by name if need be) with its configured episodes unless given."""
    from stebkit.tasks import FAMILIES

    if isinstance(dataset, str):
        from stebkit import load_dataset

        dataset = load_dataset(dataset)
    spec = dataset.spec
    if not spec.serves(task):
        raise ValueError(f"dataset {spec.name!r} does not serve task {task!r}; it serves "
                         f"{list(spec.tasks)}")
    family = FAMILIES[task]
    config = family.config(spec.tasks[task])
    ti = family.build(dataset.frame,
                      episode_size=config.episode_sizes[0] if episode_size is None
                      else episode_size,
                      episodes_per_label=config.episodes_per_label
                      if episodes_per_label is None else episodes_per_label, seed=seed)
    return spec, family, ti
