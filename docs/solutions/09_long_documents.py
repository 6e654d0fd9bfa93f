"""Solutions to the exercises of notebook 09 · Long documents (run from notebooks/)."""

import numpy as np
import pandas as pd

import stebkit
from stebkit.encoders import cached, get_encoder, mean_of_episodes
from stebkit.plots.notebook import is_fast
from stebkit.tasks import all_to_all_pairs

FAST = is_fast()
SMOKE = FAST
MODEL = "all-MiniLM-L6-v2"
eltec = stebkit.load_dataset("eltec-eng-authorship", smoke=SMOKE).frame


def episodes(records, k):
    """Each author's passages, k at a time, in file order (as the notebook builds them)."""
    out = []
    for label, group in records.groupby("label", sort=True):
        texts = group["text"].tolist()
        out += [(label, texts[i:i + k]) for i in range(0, len(texts) - k + 1, k)]
    return out


def auc(encoder, documents):
    labels = np.array([label for label, _ in documents])
    texts = [" ".join(passages) for _, passages in documents]
    return all_to_all_pairs(encoder.encode(texts, show_progress=False), labels)["auc"]


# %% Exercise 1: document length
chunked, truncated = cached(get_encoder(MODEL)), cached(get_encoder(MODEL, truncate=True))
rows = []
for k in (1, 2, 4, 8):
    documents = episodes(eltec, k)
    if len({label for label, _ in documents}) < 2:
        break  # too few passages per author left for documents this long
    rows.append({"passages": k, "documents": len(documents),
                 "chunk-and-pool": auc(chunked, documents),
                 "truncate": auc(truncated, documents)})
by_length = pd.DataFrame(rows).set_index("passages")
by_length["gap"] = by_length["chunk-and-pool"] - by_length["truncate"]
print(by_length.round(3).to_string())
assert by_length.loc[1, "gap"] == 0  # one passage fits the cap: nothing is truncated
# While a document fits the model's 256-token cap (one or two passages) the two settings
# give the same vectors; beyond it truncation reads only the first 256 tokens and the two
# part. Which one wins, and by how much, needs the full data: with the smoke data's few
# documents per length, a difference of 0.1 AUC is within the noise.

# %% Exercise 2: the parser's sentences
document = " ".join(eltec.loc[eltec["label"] == eltec["label"].iloc[0], "text"])
rules, parser = get_encoder(MODEL), get_encoder(MODEL, sentence_splitter="parser")
a, b = rules.split(document), parser.split(document)
print(f"rules: {len(a)} chunks, parser: {len(b)} chunks; "
      f"{sum(x == y for x, y in zip(a, b, strict=False))} identical")
documents = episodes(eltec, 4)
print(f"AUC, 4 passages: rules {auc(cached(rules), documents):.3f}, "
      f"parser {auc(cached(parser), documents):.3f}")
# The two splitters disagree on abbreviations, quotes and dialogue, so the chunk boundaries
# shift from the first disagreement on; each chunk still holds whole sentences up to the
# cap, and the AUC moves by far less than its bootstrap interval is wide.

# %% Exercise 3: chunk-and-pool is not episode pooling
documents = episodes(eltec, 4)
whole = chunked.encode([" ".join(p) for _, p in documents], show_progress=False)
pooled = mean_of_episodes(chunked, [p for _, p in documents])
cos = np.sum(whole * pooled, axis=1) / (np.linalg.norm(whole, axis=1)
                                        * np.linalg.norm(pooled, axis=1))
print(f"cosine of the two vectors of one document: {cos.min():.3f} to {cos.max():.3f}")
assert cos.min() < 0.9999  # not the same vectors
# Chunk-and-pool cuts at the token cap, wherever the passages end, and averages chunks of
# equal length; an episode averages one vector per passage. Close, but not the same: the
# chunks mix the end of one passage with the start of the next.
