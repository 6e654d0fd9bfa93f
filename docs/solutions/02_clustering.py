"""Solutions to the exercises of notebook 02 · Clustering (run from notebooks/)."""

import numpy as np
import pandas as pd
from sklearn.cluster import MiniBatchKMeans
from sklearn.metrics import adjusted_mutual_info_score, v_measure_score

import stebkit
from stebkit.encoders import cached, get_encoder
from stebkit.plots.notebook import is_fast
from stebkit.tasks import FAMILIES, clustering

SMOKE = is_fast()
DATASETS = {"author": "eltec-eng-authorship", "register": "masc-register",
            "genre": "brown-genre", "generator": "argugpt-generator"}
MODELS = ["tfidf-char", "function-words", "random"]
ENCODERS = {m: cached(get_encoder(m)) for m in MODELS}

# %% Exercise 1: the second episode size
rows = []
for kind, name in DATASETS.items():
    ds = stebkit.load_dataset(name, smoke=SMOKE)
    config = FAMILIES["clustering"].config(ds.spec.tasks["clustering"])
    for size in config.episode_sizes[:2]:
        ti = FAMILIES["clustering"].build(ds.frame, episode_size=size,
                                          episodes_per_label=config.episodes_per_label)
        for m in MODELS:
            x = ti.shape_items(ENCODERS[m].encode_episodes(ti.episode_texts()))
            rows.append({"label": kind, "model": m, "episode size": size,
                         "v_measure": clustering(x, ti.labels, seed=42)["v_measure"]})
table = pd.DataFrame(rows)
gain = table.pivot_table(index=["label", "model"], columns="episode size", values="v_measure")
print(gain.round(3))
if gain.shape[1] == 2:
    per_label = (gain.iloc[:, 1] - gain.iloc[:, 0]).drop("random", level="model")
    print("largest mean gain from averaging:", per_label.groupby("label").mean().idxmax())

# %% Exercise 2: V-measure and AMI of pure noise
ds = stebkit.load_dataset("brown-genre", smoke=SMOKE)
labels = ds.frame["label"].to_numpy()
noise = ENCODERS["random"].encode(ds.frame["text"].tolist())
rows = []
for k in (2, 5, 10):
    pred = MiniBatchKMeans(k, n_init=3, random_state=42).fit_predict(noise)
    rows.append({"k": k, "v_measure": v_measure_score(labels, pred),
                 "ami": adjusted_mutual_info_score(labels, pred)})
noise_table = pd.DataFrame(rows).set_index("k")
print(noise_table.round(3))
# The V-measure of noise grows with k (more clusters, more chance agreement), the AMI
# stays near zero: it subtracts the agreement expected by chance.
assert noise_table["ami"].abs().max() < 0.1

# %% Exercise 3: how many seeds for two decimals?
config = FAMILIES["clustering"].config(ds.spec.tasks["clustering"])
ti = FAMILIES["clustering"].build(ds.frame, episode_size=1,
                                  episodes_per_label=config.episodes_per_label)
spread = {}
for m in ("tfidf-char", "function-words"):  # the models whose score means something
    x = ti.shape_items(ENCODERS[m].encode_episodes(ti.episode_texts()))
    spread[m] = np.std([clustering(x, ti.labels, seed=s)["v_measure"] for s in range(5)])
worst = max(spread, key=spread.get)
# The standard error of a mean of n seeds is std / sqrt(n); two decimals need it < 0.005.
n_runs = int(np.ceil((spread[worst] / 0.005) ** 2))
print(f"largest seed spread: {worst} (std {spread[worst]:.4f}); average about "
      f"{max(n_runs, 1)} seeds")
