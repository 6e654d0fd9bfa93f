"""Solutions to the exercises of notebook 03 · Authorship retrieval (run from notebooks/)."""

import pandas as pd

import stebkit
from stebkit.encoders import cached, get_encoder
from stebkit.plots.notebook import is_fast
from stebkit.tasks import FAMILIES

SMOKE = is_fast()
ENCODERS = {m: cached(get_encoder(m)) for m in ("tfidf-char", "function-words", "random")}


def retrieval(name, episode_size=None, seed=42):
    data = stebkit.load_dataset(name, smoke=SMOKE)
    fam = FAMILIES["retrieval"]
    config = fam.config(data.spec.tasks["retrieval"])
    if episode_size is None:  # the dataset's own configuration
        size, per_label = config.episode_sizes[0], config.episodes_per_label
    else:  # as many episodes as the passages of the smallest author allow
        per_side = int(data.frame.groupby(["label", "side"]).size().min())
        size, per_label = episode_size, max(1, per_side // episode_size)
    ti = fam.build(data.frame, episode_size=size, episodes_per_label=per_label, seed=seed)
    return {m: fam.evaluate(ti, ti.shape_items(enc.encode_episodes(ti.episode_texts())))
            for m, enc in ENCODERS.items()}


# %% Exercise 1: State of the Union addresses
sotu = retrieval("sotu-retrieval")
print(pd.DataFrame({m: {"mrr": r["mrr"], "recall@1": r["recall@1"]}
                    for m, r in sotu.items()}).T.round(3))
# A speech is written by a team for a president: the label is the speaker, so the score
# measures how recognisable a presidency's speeches are (its writers, its era, its
# agenda) rather than one person's idiolect.

# %% Exercise 2: mrr against mrr_first_hit
eltec = {size: retrieval("eltec-eng-retrieval", episode_size=size) for size in (1, 2)}
print(pd.DataFrame({(size, metric): {m: r[metric] for m, r in res.items()}
                    for size, res in eltec.items()
                    for metric in ("mrr", "mrr_first_hit")}).round(3))
# STEB's mrr averages 1/rank over all relevant targets, so its ceiling falls as the number
# of relevant targets per query changes with the episode size; mrr_first_hit only asks for
# the first relevant target and has ceiling 1 at every size: it is the fairer comparison
# across episode sizes.

# %% Exercise 3: the grouping of passages alone
moves = pd.DataFrame({seed: {m: r["mrr"] for m, r in
                             retrieval("eltec-eng-retrieval", episode_size=2,
                                       seed=seed).items()}
                      for seed in (1, 2, 3)})
print(moves.round(3))
print("range over seeds:", (moves.max(axis=1) - moves.min(axis=1)).round(3).to_dict())
