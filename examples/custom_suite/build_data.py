"""Build the small tables of the example suite ``federalist_suite.yaml`` from the data mirror.

The suite plays a researcher who has texts of a few authors in a CSV file of their own.
Here that file is made from the Federalist Papers (public domain; the R data files of
browndw/cmu.textstat, fetched with their checksums or read from ``$STEBKIT_MIRROR``):
the papers of Hamilton, Jay and Madison are cut into passages of about 100 words, at most
``PER_AUTHOR`` per author (seeded), and every paper goes whole to one split, so that no
paper has passages on both sides of a train/test boundary.

Files written into ``build/custom_suite/`` of the repository (git-ignored; or into the
folder given on the command line), with a copy of the suite file beside them::

    federalist_passages.csv   id, text, author, paper, split (train/validation/test)
    federalist_queries.csv    id, text         test passages, QUERIES_PER_AUTHOR per author
    federalist_corpus.csv     id, text         all train passages
    federalist_qrels.csv      query_id, doc_id, relevance (1 = same author)

Run it with ``python examples/custom_suite/build_data.py [FOLDER]``, then
``stebkit run --suite build/custom_suite/federalist_suite.yaml``; it needs no network
when ``$STEBKIT_MIRROR`` holds the files. The tracked folder ``examples/custom_suite/``
stays as committed.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from stebkit._io import write_text
from stebkit.datasets import get_spec
from stebkit.datasets.readers.federalist import AUTHORS, read_papers

HERE = Path(__file__).resolve().parent
SUITE = HERE / "federalist_suite.yaml"
OUTPUT = HERE.parents[1] / "build" / "custom_suite"
WORDS = 100
PER_AUTHOR = 60
QUERIES_PER_AUTHOR = 10
SEED = 42


def passages(seed: int = SEED) -> pd.DataFrame:
    """Passages of about ``WORDS`` words of the three authors' papers, with a split column."""
    papers = read_papers(get_spec("federalist-authorship"))
    papers = papers[papers["author_id"].isin(AUTHORS)].sort_values("doc_id")
    rng = np.random.default_rng(seed)
    rows = []
    for author, group in papers.groupby("author_id", sort=True):
        # Whole papers to splits: 60 % train, 20 % validation, 20 % test (at least one each).
        ids = group["doc_id"].to_numpy()[rng.permutation(len(group))]
        n_test = n_val = max(1, round(0.2 * len(ids)))
        split = dict.fromkeys(ids[:n_test], "test")
        split.update(dict.fromkeys(ids[n_test:n_test + n_val], "validation"))
        split.update(dict.fromkeys(ids[n_test + n_val:], "train"))
        chunks = []
        for doc_id, text in zip(group["doc_id"], group["text"], strict=True):
            words = text.split()
            if words[:8] == "To the People of the State of New York:".split():
                words = words[8:]
            chunks += [(doc_id, " ".join(words[i:i + WORDS]))
                       for i in range(0, len(words) - WORDS + 1, WORDS)]
        keep = np.sort(rng.permutation(len(chunks))[:PER_AUTHOR])
        rows += [{"text": chunks[i][1], "author": author, "paper": chunks[i][0],
                  "split": split[chunks[i][0]]} for i in keep]
    frame = pd.DataFrame(rows)
    frame.insert(0, "id", [f"p{i:03d}" for i in range(len(frame))])
    return frame


def build(folder: str | Path = OUTPUT, seed: int = SEED) -> Path:
    """Write the four tables (and the suite file, if missing) into ``folder``.

    Returns the path of the suite file in ``folder``.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    table = passages(seed)
    rng = np.random.default_rng(seed + 1)
    queries = pd.concat([g.iloc[np.sort(rng.permutation(len(g))[:QUERIES_PER_AUTHOR])]
                         for _, g in table[table["split"] == "test"].groupby("author")])
    corpus = table[table["split"] == "train"]
    qrels = queries[["id", "author"]].merge(corpus[["id", "author"]], on="author",
                                            suffixes=("_q", "_d"))
    qrels = pd.DataFrame({"query_id": qrels["id_q"], "doc_id": qrels["id_d"],
                          "relevance": 1})
    for name, frame in (("passages", table), ("queries", queries[["id", "text"]]),
                        ("corpus", corpus[["id", "text"]]), ("qrels", qrels)):
        write_text(folder / f"federalist_{name}.csv", frame.to_csv(index=False))
    suite = folder / SUITE.name
    if suite.resolve() != SUITE:
        shutil.copyfile(SUITE, suite)
    return suite


if __name__ == "__main__":
    path = build(sys.argv[1] if len(sys.argv) > 1 else OUTPUT)
    print(f"wrote the tables of {path}")
