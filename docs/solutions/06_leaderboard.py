"""Solutions to the exercises of notebook 06 · Leaderboard (run from notebooks/)."""

import warnings

import pandas as pd

import stebkit
from stebkit import scores
from stebkit.plots.notebook import is_fast, leaderboard_run, repository_root

FAST = is_fast()
ROOT = repository_root()
SUITE = "smoke" if FAST else "lite"
MODELS, DATASETS, RUN = leaderboard_run(FAST)  # the notebook's: its records are reused
res = stebkit.evaluate(MODELS, DATASETS, smoke=FAST, output_dir=ROOT / "results" / SUITE,
                       overwrite="only-missing", seed=42, show_progress=False, **RUN)


def steb(**options):
    """The operational score without intervals; the few-models note is the notebook's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return scores.operational(res, grouping="correlation", n_resamples=0, **options)


def board(**options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return scores.leaderboard(res, grouping="correlation", seed=42, **options) \
            .set_index("model")


# %% Exercise 1: the former cut at 1.0
now, former = steb(), steb(threshold=1.0)
for task in now.tasks:
    print(f"{task}: {len(now.tasks[task].groups)} groups at 0.5, "
          f"{len(former.tasks[task].groups)} at 1.0")
    # one Ward tree cut higher: groups can only merge, never split
    assert len(former.tasks[task].groups) <= len(now.tasks[task].groups)
ranks = pd.DataFrame({"rank at 0.5": now.steb.rank(ascending=False),
                      "rank at 1.0": former.steb.rank(ascending=False)})
print(ranks.sort_values("rank at 0.5").to_string())
print("rank changes:", int((ranks["rank at 0.5"] != ranks["rank at 1.0"]).sum()))

# %% Exercise 2: non-English datasets in the score
english, every = steb(), steb(exclude=["semantic_control"])
n_english = sum(a.matrix.shape[1] for a in english.tasks.values())
n_every = sum(a.matrix.shape[1] for a in every.tasks.values())
print(f"datasets scored: {n_english} English only, {n_every} with every language")
assert n_every > n_english  # the ELTeC sets in other languages join
print((every.steb - english.steb).sort_values(ascending=False).round(4).to_string())
# A multilingual model (use-multilingual in full mode) keeps its quality on German or
# French novels, where an English-only encoder sees subword noise: it gains most.

# %% Exercise 3: one dataset fewer
task = max(english.tasks, key=lambda t: english.tasks[t].matrix.shape[1])
largest = max(english.tasks[task].groups.values(), key=len)
full = board()
fewer = board(exclude=[*scores.DEFAULT_EXCLUDE, largest[0]])
moved = (fewer["steb_score"] - full["steb_score"]).abs()
width = full["steb_ci_high"] - full["steb_ci_low"]
print(f"{task}: dropping {largest[0]} (of a group of {len(largest)})")
print(pd.DataFrame({"move": moved, "interval width": width}).round(4).to_string())
# Dropping a dataset whose group keeps other members moves the scores by far less than
# their intervals are wide: the grouping gives the group, not each dataset, one vote.
