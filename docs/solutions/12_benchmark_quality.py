"""Solutions to the exercises of notebook 12 · Benchmark quality (run from notebooks/)."""

import stebkit
from stebkit.plots.notebook import is_fast, leaderboard_run, repository_root
from stebkit.scores import quality

FAST = is_fast()
ROOT = repository_root()
SUITE = "smoke" if FAST else "lite"
MODELS, DATASETS, RUN = leaderboard_run(FAST)  # the notebook's: its records are reused
STABILITY_MODELS = (["function-words", "tfidf-word", "tfidf-char"] if FAST
                    else ["tfidf-char", "all-MiniLM-L6-v2", "use-multilingual"])


def run(seed, models=MODELS):
    folder = ROOT / "results" / (SUITE if seed == 42 else f"{SUITE}-seed{seed}")
    return stebkit.evaluate(models, DATASETS, smoke=FAST, seed=seed, output_dir=folder,
                            overwrite="only-missing", show_progress=False, **RUN)


res = run(42)

# %% Exercise 1: inversions in a single family
SCALE_FAMILIES = {
    "MiniLM (3 → 6 layers)": ["paraphrase-MiniLM-L3-v2", "all-MiniLM-L6-v2"],
    "static → contextual": ["wordllama-l2-supercat", "all-MiniLM-L6-v2"],
    "TF-IDF (word → char)": ["tfidf-word", "tfidf-char"],
    "chance → function words": ["random", "function-words"],
    "chance → static vectors": ["random", "wordllama-l2-supercat"],
}
evaluated = set(res.main_frame()["model"])
families = {f: m for f, m in SCALE_FAMILIES.items() if set(m) <= evaluated}
one = quality.scale_inversions(res, families, min_families=1)
two = quality.scale_inversions(res, families, min_families=2)
assert one["flagged"].sum() >= two["flagged"].sum()  # a weaker rule flags at least as many
single = one[one["flagged"] & ~one.index.isin(two[two["flagged"]].index)]
print(f"flagged with one family: {int(one['flagged'].sum())}, with two: "
      f"{int(two['flagged'].sum())}")
print(single.to_string())
# Read the families column of these rows: when the same family inverts again and again
# (chance → function words, say), the "inversion" says more about that pair of models than
# about the datasets.

# %% Exercise 2: a third seed
stab = {seed: quality.split_stability(res, run(seed, STABILITY_MODELS),
                                      models=STABILITY_MODELS, threshold=0.20)
        for seed in (7, 13)}
flagged = {seed: {f"{d} ({t})" for d, t in s.loc[s["flagged"], ["dataset", "task"]].to_numpy()}
           for seed, s in stab.items()}
print("flagged with seed 7:", sorted(flagged[7]))
print("flagged with seed 13:", sorted(flagged[13]))
print("flagged both times:", sorted(flagged[7] & flagged[13]))
sizes = {n: len(stebkit.load_dataset(n, smoke=FAST).frame) for n in DATASETS}
print("texts per dataset:", sizes)
# Set the flagged datasets beside their sizes: the fewer texts a dataset has, the more each
# draw of its sample moves the score, and the more often it is flagged under any seed.

# %% Exercise 3: tiers under the correlation grouping
fixed = quality.rank_resolution(res, grouping="fixed", n_resamples=1000, seed=42)
correlation = quality.rank_resolution(res, grouping="correlation", n_resamples=1000, seed=42)
for name, ranks in (("fixed", fixed), ("correlation", correlation)):
    print(name, ranks.groupby("tier")["model"].apply(list).to_dict())
assert set(fixed["model"]) == set(correlation["model"])
# The correlation grouping merges datasets that rank these very models alike, so the
# datasets that would disagree about them weigh less: the score is built from the models'
# own ordering, and adjacent models look more separable than independent evidence says.
