"""Operational and definitional STEB scores, with bootstrap intervals.

The STEB reference reports two scores (its ``scripts/benchmark_clustering`` package
and ``docs/leaderboard.md``):

Operational score
    Per task, a models x datasets matrix of the task's main metric (default
    exclusions: the reference's non-English and semantic-control datasets). How is one
    :class:`ScoreRecipe`, whose defaults follow the reference's newest recipe
    (:data:`REFERENCE`: its ``__main__.py``, ``auto_cluster.py``, ``discovery.py`` and
    ``config.py``):

    - models: the reference's ``EXCLUDED_MODELS`` (``lftk``, ``tfidf``, ``tfidfngrams``,
      ``avgs_typetoken_read.yaml``) are not scored; every other model, the random
      baseline included, is scored and shapes the grouping
      (``grouping_models="without_baselines"``: every model scored,
      :data:`GROUPING_EXCLUDED_MODELS` left out of the grouping);
    - each model's number comes from its first configuration folder in string order
      holding a result, as ``discovery.py`` reads it (``configuration``);
    - missing results: a model with no result in a task is not part of it; of the others,
      the datasets not every model has are dropped (``missing="drop_models"``: the models
      that miss a dataset are left out of the task instead);
    - a task with fewer than 3 models (``min_models``) gets no operational score, as the
      reference skips it; a task with one dataset left scores it alone.

    Datasets are grouped so that redundant datasets count once:

    - ``grouping="correlation"`` (the reference): Spearman correlation between the
      dataset columns across models (an undefined correlation counts as 0), distance
      ``clip(1 - rho, 0, 2)`` with a zero diagonal, Ward linkage of the condensed
      distance matrix (``scipy.cluster.hierarchy.linkage(squareform(d), "ward")``),
      flat clusters cut with ``fcluster(Z, t=threshold, criterion="distance")``.
      Each correlation is ``scipy.stats.spearmanr`` of the pair, as the reference's.
      The cut defaults to ``threshold=0.5`` (roughly: datasets whose rankings correlate
      at 0.5 or more fall together), the newest reference's command-line default; its
      older versions cut at 1.0. The grouping moves when models are
      added and is unreliable with fewer than 10 models (a warning says so, once, with
      the number of models in the grouping).
    - ``grouping="fixed"``: the reference's hand-made clusters
      (``stebkit/data/dataset_clusters.yaml``, transcribed from the reference's
      ``scripts/dataset_clusters.yaml``); a dataset listed in several clusters belongs
      to the first. Datasets the reference does not list (the offline suites) form one
      group each. Scores do not move when models are added.
    - a mapping ``{dataset: group}`` or ``{group: [datasets]}``: a declared grouping;
      unlisted datasets form one group each.

    Task score = mean over groups of the group means; STEB score = mean of the task
    scores a model has, written only when at least 2 tasks are scored (``min_tasks``), as
    the reference's ``__main__.py``. Results of user suites (:mod:`stebkit.suites`:
    classification, nDCG retrieval and the STEB families on the suite's datasets) are
    aggregated by the same recipe, so the score of a suite-only run is its tasks' mean.
    With several episode configurations, each model's number comes from its first
    configuration folder in string order that holds a result
    (:func:`choose_configurations`; ``configuration="preset_size_first"``: the reference
    preset's first size for every model, else the smallest size).

Definitional score (Wegmann et al.'s definition of style, as the reference computes it)
    For each definitional cluster — genre, register, time, demographics, dialect,
    idiolect, linguistic features (the reference's ``predefined_features``) and content
    independence (``style_vs_content``) — one column per (task, metric): the mean over
    the cluster's datasets evaluated by every model of that column; the cluster score is
    the mean of its columns (missing results: each column keeps the datasets that every
    model with a result in it has, as the newest reference's manual clusters; a model is
    scored on the columns it has). Order alignment enters the style clusters with its plain
    accuracy (``acc_mean``) and content independence with its distractor accuracy
    (``distractor_acc_mean``, order-alignment results only). Object of Study = mean of
    the six object clusters; Definitional score = mean of Object of Study, Linguistic
    Features and Content Independence. Datasets the reference does not list join the
    cluster of their declared ``dataset_category``, and every order-alignment dataset
    also joins content independence, as all of the reference's do. Records enter at one
    episode configuration per dataset and task, the same for every model: the benchmark
    preset's first episode size *and* its episodes per label, as the reference's
    ``manual_cluster.py`` (``_benchmark_default_ep_configs``) keeps exactly that
    configuration; a dataset and task with no record at it (the lite suite's own
    settings, the ``fast`` preset, ``--episode-sizes``/``--episodes-per-label``) enter at
    the run's own configuration instead of losing their score, and the leaderboard notes
    say which (:func:`episode_configs`).

Intervals are percentile bootstrap intervals over datasets. Operational: a two-stage
(clustered) bootstrap inside every task — resample the task's groups, and the datasets
inside each group, with replacement (tasks themselves are fixed). Definitional: resample
the datasets inside every cluster column (clusters and axes are fixed by the
definition). The grouping is kept fixed, and the same draw serves every model, so
replicates are paired across models.

The package's modules, by concern: :mod:`~stebkit.scores.inputs` (the results frame,
exclusions, episode sizes), :mod:`~stebkit.scores.grouping` (dataset groupings),
:mod:`~stebkit.scores.aggregates` (the two scores and their replicates),
:mod:`~stebkit.scores.ranking` (the leaderboard and its significance summary) and
:mod:`~stebkit.scores.tables` (Markdown, LaTeX, CSV); every public name is importable from
``stebkit.scores``.
"""

from __future__ import annotations

from stebkit.scores.aggregates import (
    Definitional,
    Operational,
    TaskAggregate,
    definitional,
    operational,
)
from stebkit.scores.grouping import (
    DEFAULT_THRESHOLD,
    GROUPING_EXCLUDED_MODELS,
    MIN_RELIABLE_MODELS,
    NON_ENGLISH_DATASETS,
    REFERENCE,
    REFERENCE_EXCLUDED_MODELS,
    correlation_groups,
    dataset_correlation,
    dataset_linkage,
    fixed_groups,
    listed_datasets,
    reference_clusters,
    reference_datasets,
    unlisted_datasets,
)
from stebkit.scores.inputs import (
    DEFAULT_EXCLUDE,
    DEFINITIONAL_COLUMNS,
    MissingResultsWarning,
    apply_exclusions,
    choose_configurations,
    episode_configs,
    folder_names,
    main_frame,
    score_matrix,
    scored_frame,
    select_episode_config,
    select_episode_size,
)
from stebkit.scores.published import OBJECT_OF_STUDY  # noqa: F401 (the published one, as before)
from stebkit.scores.ranking import (
    CHANCE_MODELS,
    Leaderboard,
    is_significant,
    leaderboard,
    leaderboard_notes,
    leaderboard_summary,
    missing_families,
    paired_difference,
    rank_tiers,
    recipe_line,
    summary_lines,
)
from stebkit.scores.recipe import (
    CONFIGURATIONS,
    GROUPING_MODELS,
    MISSING,
    UNLISTED,
    ScoreRecipe,
)
from stebkit.scores.tables import (
    CHANCE_LABEL,
    HEADERS,
    STAR_LEGEND,
    board_text,
    csv_text,
    header,
    one_dataset,
    ranked,
    score_name,
    split_board,
    task_frame,
    task_to_latex,
    to_csv,
    to_html,
    to_latex,
    to_markdown,
    to_text,
)

__all__ = [
    "ScoreRecipe",
    "MISSING",
    "GROUPING_MODELS",
    "CONFIGURATIONS",
    "UNLISTED",
    "NON_ENGLISH_DATASETS",
    "reference_datasets",
    "unlisted_datasets",
    "scored_frame",
    "choose_configurations",
    "folder_names",
    "MIN_RELIABLE_MODELS",
    "DEFAULT_THRESHOLD",
    "DEFAULT_EXCLUDE",
    "GROUPING_EXCLUDED_MODELS",
    "REFERENCE",
    "REFERENCE_EXCLUDED_MODELS",
    "CHANCE_MODELS",
    "MissingResultsWarning",
    "DEFINITIONAL_COLUMNS",
    "main_frame",
    "apply_exclusions",
    "select_episode_size",
    "episode_configs",
    "select_episode_config",
    "score_matrix",
    "listed_datasets",
    "dataset_correlation",
    "dataset_linkage",
    "correlation_groups",
    "reference_clusters",
    "fixed_groups",
    "TaskAggregate",
    "Operational",
    "operational",
    "Definitional",
    "definitional",
    "Leaderboard",
    "is_significant",
    "paired_difference",
    "rank_tiers",
    "leaderboard",
    "leaderboard_notes",
    "leaderboard_summary",
    "summary_lines",
    "missing_families",
    "recipe_line",
    "HEADERS",
    "STAR_LEGEND",
    "board_text",
    "to_html",
    "csv_text",
    "CHANCE_LABEL",
    "header",
    "ranked",
    "score_name",
    "one_dataset",
    "split_board",
    "task_frame",
    "to_markdown",
    "to_text",
    "to_latex",
    "task_to_latex",
    "to_csv",
]
