"""Solutions to the exercises of notebook 07 · Embedding spaces (run from notebooks/)."""

import pandas as pd

import stebkit
from stebkit import plots
from stebkit.encoders import cached, get_encoder
from stebkit.plots.notebook import is_fast
from stebkit.tasks import all_to_all_pairs

FAST = is_fast()
SEMANTIC = "wordllama-l2-supercat" if FAST else "all-MiniLM-L6-v2"


def passages(name, n_authors=5):
    ds = stebkit.load_dataset(name, seed=42)  # as in the notebook: full data, five authors
    authors = sorted(ds.frame["label"].unique())[:n_authors]
    return ds.frame[ds.frame["label"].isin(authors)].reset_index(drop=True)


def author_vs_novel(rec, models):
    rows = {}
    for m in models:
        x = cached(get_encoder(m)).encode(rec["text"].tolist(), show_progress=False)
        rows[m] = {"same author": all_to_all_pairs(x, rec["label"].to_numpy())["auc"],
                   "same novel": all_to_all_pairs(x, rec["work"].to_numpy())["auc"]}
    table = pd.DataFrame(rows).T
    table["novel − author"] = table["same novel"] - table["same author"]
    return table


rec = passages("eltec-eng-authorship")

# %% Exercise 1: colour by decade
# ELTeC ids look like ENG18530_Author: the four digits after the language code are the
# year of the novel.
decade = rec["work"].str.extract(r"^[A-Z]{3}(\d{3})")[0] + "0s"
x = cached(get_encoder(SEMANTIC)).encode(rec["text"].tolist(), show_progress=False)
print(decade.value_counts().to_string())
plots.embedding_map(x, decade, method="pca", directory=None, title=f"{SEMANTIC} by decade")
by = {"author": all_to_all_pairs(x, rec["label"].to_numpy())["auc"],
      "decade": all_to_all_pairs(x, decade.to_numpy())["auc"]}
print("AUC of same author vs same decade:", {k: round(v, 3) for k, v in by.items()})

# %% Exercise 2: function words
print(author_vs_novel(rec, ["tfidf-char", "function-words"]).round(3))
# The smaller "novel − author" gap for function words (if it is smaller) is the sign of a
# representation that carries less topic.

# %% Exercise 3: German novels and a multilingual model
print(author_vs_novel(passages("eltec-deu-authorship"), ["tfidf-char", "use-multilingual"])
      .round(3))
