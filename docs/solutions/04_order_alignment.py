"""Solutions to the exercises of notebook 04 · Order alignment (run from notebooks/)."""

import numpy as np
import pandas as pd

import stebkit
from stebkit.datasets.readers.stel import quadruples
from stebkit.encoders import cached, get_encoder
from stebkit.plots.notebook import is_fast
from stebkit.tasks import FAMILIES, stel

SMOKE = is_fast()
SETS = ["bible-eras", "synthetic-order-en", "stel-contraction"]


def order_input(name, episode_size=1):
    records = stebkit.load_dataset(name, smoke=SMOKE).frame
    fam = FAMILIES["order_alignment"]
    config = fam.config(stebkit.datasets.get_spec(name).tasks["order_alignment"])
    sets = records if "distractor" not in records else records[~records["distractor"]]
    available = int(sets.groupby("label")["group"].nunique().min()) // episode_size
    return fam.build(records, episode_size=episode_size,
                     episodes_per_label=max(1, min(config.episodes_per_label, available)))


def order_scores(models, episode_size=1):
    rows = []
    for name in SETS:
        ti = order_input(name, episode_size)
        for m in models:
            items = ti.pool(cached(get_encoder(m)).encode(list(ti.texts)))
            r = FAMILIES["order_alignment"].evaluate(ti, items)
            rows.append({"model": m, "dataset": name, "episode size": episode_size,
                         "acc_mean": r["acc_mean"],
                         "distractor_acc_mean": r["distractor_acc_mean"]})
    return pd.DataFrame(rows)


# %% Exercise 1: two more semantic models
models = ["all-MiniLM-L6-v2", "paraphrase-MiniLM-L3-v2", "use-multilingual"]
scores = order_scores(models)
print(scores.pivot(index="dataset", columns="model", values="distractor_acc_mean").round(2))
robust = scores.groupby("model")["distractor_acc_mean"].mean()
print("most robust to distractors:", robust.idxmax(), f"({robust.max():.3f})")
for m, part in scores.groupby("model"):
    print(f"{m}: weakest on {part.loc[part['distractor_acc_mean'].idxmin(), 'dataset']}")

# %% Exercise 2: pooling two sets per position
pooled = pd.concat([order_scores(["tfidf-char", "all-MiniLM-L6-v2"], size) for size in (1, 2)])
print(pooled[pooled["dataset"] == "bible-eras"]
      .pivot(index="model", columns="episode size", values="distractor_acc_mean").round(3))

# %% Exercise 3: ties on stel-emotives
table = quadruples(stebkit.load_dataset("stel-emotives", smoke=SMOKE).frame)
ties = {}
for m in ("tfidf-word", "tfidf-char", "function-words", "all-MiniLM-L6-v2"):
    enc = cached(get_encoder(m))
    embs = [enc.encode(table[c].tolist()) for c in ("anchor1", "anchor2", "alt1", "alt2")]
    result = stel(*embs, table["correct"].to_numpy())
    ties[m] = int(np.sum(result["details"]["stel_correct"] == 0.5))
print(pd.Series(ties, name=f"ties of {len(table)} items"))
# A word-level representation drops the emoticons and emoji that the tokenizer does not
# keep as words: the two alternatives become the same vector and the rule can only tie.
# Character n-grams see ":)" and the emoji as characters and can tell them apart.
assert all(0 <= t <= len(table) for t in ties.values())
