"""Solutions to the exercises of notebook 08 · Style vs content (run from notebooks/)."""

import itertools

import numpy as np
import pandas as pd

import stebkit
from stebkit.encoders import cached, get_encoder
from stebkit.plots.notebook import is_fast
from stebkit.tasks import predefined_pairs

SMOKE = is_fast()
MODELS = ["tfidf-char", "all-MiniLM-L6-v2"]
ENCODERS = {m: cached(get_encoder(m)) for m in MODELS}


def style_auc(encoder, same_style, same_content):
    """AUC of telling same-style pairs (positive) from same-content pairs."""
    both = same_style + same_content
    a = encoder.encode([p[0] for p in both])
    b = encoder.encode([p[1] for p in both])
    same = np.r_[np.ones(len(same_style), bool), np.zeros(len(same_content), bool)]
    return predefined_pairs(a, b, same)["auc"]


bible = stebkit.load_dataset("bible-versions", smoke=SMOKE).frame
wide = bible.pivot(index="work", columns="label", values="text").dropna()
shift = len(wide) // 2

# %% Exercise 1: style AUC per pair of versions
rows = []
for v, w in itertools.combinations(wide.columns, 2):
    same_style = list(zip(wide[v], np.roll(wide[v].to_numpy(), shift), strict=True))
    same_content = list(zip(wide[v], wide[w], strict=True))
    for m, enc in ENCODERS.items():
        rows.append({"model": m, "pair": f"{v} / {w}",
                     "style AUC": style_auc(enc, same_style, same_content)})
pairs = pd.DataFrame(rows)
print(pairs.pivot(index="pair", columns="model", values="style AUC").round(3))
# The pair with the highest style AUC is the one whose two versions look most different
# to the model; the lowest, the two versions it finds closest in style.
for m, part in pairs.groupby("model"):
    print(f"{m}: closest in style: {part.loc[part['style AUC'].idxmin(), 'pair']}")

# %% Exercise 2: French synthetic transformations
synth = stebkit.load_dataset("synthetic-order-fr", smoke=SMOKE).frame
kind = np.where(synth["distractor"], "distractor",
                np.where(synth["position"] == 0, "styled", "plain"))
sets = synth.assign(kind=kind).pivot(index="group", columns="kind", values="text")
style_pairs = list(zip(sets["styled"], sets["distractor"], strict=True))
content_pairs = list(zip(sets["styled"], sets["plain"], strict=True))
french = {m: style_auc(cached(get_encoder(m)), style_pairs, content_pairs)
          for m in ("tfidf-char", "use-multilingual")}
print("French style AUC:", {m: round(v, 3) for m, v in french.items()})

# %% Exercise 3: pooling five passages
rng = np.random.default_rng(42)
v, w = wide.columns[:2]
enc = ENCODERS["all-MiniLM-L6-v2"]
ev, ew = enc.encode(wide[v].tolist()), enc.encode(wide[w].tolist())
n = len(wide) // 5 * 5
groups = rng.permutation(n).reshape(-1, 5)
pool = lambda e, g: e[g].mean(axis=1)  # noqa: E731
other = np.roll(groups, 1, axis=0)
single = predefined_pairs(np.r_[ev[:n], ev[:n]], np.r_[ev[np.roll(np.arange(n), shift)], ew[:n]],
                          np.r_[np.ones(n, bool), np.zeros(n, bool)])["auc"]
pooled = predefined_pairs(np.r_[pool(ev, groups), pool(ev, groups)],
                          np.r_[pool(ev, other), pool(ew, groups)],
                          np.r_[np.ones(len(groups), bool), np.zeros(len(groups), bool)])["auc"]
print(f"all-MiniLM-L6-v2, {v} vs {w}: style AUC single passages {single:.3f}, "
      f"pooled by five {pooled:.3f}")
