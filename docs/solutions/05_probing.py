"""Solutions to the exercises of notebook 05 · Probing (run from notebooks/)."""

import numpy as np
import pandas as pd

import stebkit
from stebkit.datasets.features import lftk_features
from stebkit.datasets.probing_sets import probing_records
from stebkit.encoders import cached, get_encoder
from stebkit.plots.notebook import is_fast
from stebkit.tasks import FAMILIES, quantile_bins

SMOKE = is_fast()
MODELS = ["lftk", "function-words", "tfidf-char", "random"]
ENCODERS = {m: cached(get_encoder(m)) for m in MODELS}
pool = stebkit.load_dataset("ud-ewt-probing-t_punct", smoke=SMOKE).frame
texts = pool["text"].tolist()


def probe_accuracy(records):
    fam = FAMILIES["probing"]
    ti = fam.build(records, episode_size=1, episodes_per_label=1)
    return {m: fam.evaluate(ti, ti.pool(enc.encode(list(ti.texts))))["accuracy"]
            for m, enc in ENCODERS.items()}


# %% Exercise 1: probe the number of verbs
n_verb = lftk_features(texts, features=["n_verb"])["n_verb"].to_numpy()
records = probing_records(texts, n_verb, feature_name="n_verb")
verb = pd.Series(probe_accuracy(records), name="n_verb accuracy").sort_values(ascending=False)
print(verb.round(3))
print("encodes the verb count best:", verb.index[0])

# %% Exercise 2: two bins instead of five
punct = lftk_features(texts, features=["t_punct"])["t_punct"].to_numpy()
rank = {}
for n_bins in (5, 2):
    records = probing_records(texts, punct, feature_name="t_punct", n_bins=n_bins)
    rank[f"{n_bins} bins"] = probe_accuracy(records)
rank = pd.DataFrame(rank)
print(rank.round(3))
print("same ranking:", list(rank["5 bins"].sort_values().index) ==
      list(rank["2 bins"].sort_values().index))
print("bin sizes with two bins:", np.bincount(quantile_bins(punct, n_bins=2)))

# %% Exercise 3: why lftk does not reach 100 % on t_punct
records = probing_records(texts, punct, feature_name="t_punct")
test = records[records["split"] == "test"]
print("test texts per bin:", test["label"].value_counts().sort_index().to_dict())
# Quantile bins cut a count with many ties: texts with the same number of punctuation
# marks can land on both sides of an edge when the bins are balanced, and a linear probe
# on standardised features next to dozens of others must place boundaries it learned
# from a small train split; each error on a test split of this size costs whole points.
assert len(test) > 0
