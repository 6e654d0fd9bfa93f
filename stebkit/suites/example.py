"""The example suite: a YAML file and the ASSET tables it reads (a ``retrieval_ndcg``
dataset), written by :func:`write_example_suite`."""

from __future__ import annotations

import json
from pathlib import Path

_ASSET = "https://raw.githubusercontent.com/facebookresearch/asset/" \
    "9d659040d0d8942dbc4cd65cf357563b43fd9ab4/dataset/asset.test."
_ASSET_SHA256 = {
    "orig": "673ceb2672a37168a52040d75e16f9ffd1e3777b9f68e19207f2adf6542723f1",
    "simp.0": "66f36029d0c732eb92886021faefe531c6cfd0a32bdbe7ae4aa97fd45bd1b046",
    "simp.1": "d323ceb364abbe84c79b14b028aa1ff563cd94955fbab19049612548dbb0f83f",
    "simp.2": "786b55f8425ce4a993e98be5e2bea9ef87bf536b96dc13f7a57c4733fdb63e06",
    "simp.3": "e211c9e2ede1dfe315097132dbe4feda76b309bdc636a5394cb5d2664ba5bf52",
    "simp.4": "37be9cf0592c0f68d87848dc9c442fe62f344518c1993896c00788bf943b755d",
    "simp.5": "8485210573a3bd76116de8e978b227677c6c207111a4938729397c4e603dfa46",
    "simp.6": "f0cb3ab823d23203ea044f81bd7e67cc823db0632095e43b78a54a9891a0b0a8",
    "simp.7": "35cbb8b9964252a1470607634f19ad946c6bc2951b3e500eedd826baf12bd3c8",
    "simp.8": "047b6419590b88f93b435d3177bba1883dc9c0dc178676e48470b408236446f4",
    "simp.9": "3f5745e4f2743563b88ea4284ec35fa4ddb68d62de80b63ffb87751b998fe6b8",
}


def write_example_suite(directory: str | Path) -> Path:
    """Write the example suite (YAML + the ASSET tables it reads) into ``directory``.

    The ASSET tables are built from the public ASSET test files (fetched with their
    checksums, or read from ``$STEBKIT_MIRROR``): the 359 original sentences are the
    queries, their 3,590 crowd simplifications the corpus, and each simplification is
    relevant (grade 1) to its own original. Returns the suite file's path; pass it to
    :func:`load_suite` or ``stebkit run --suite``.
    """
    from importlib.resources import files

    from stebkit._io import write_text
    from stebkit.sources import fetch

    folder = Path(directory)  # made by the first write_text
    lines = {k: fetch(_ASSET + k, sha).read_text(encoding="utf-8").splitlines()
             for k, sha in _ASSET_SHA256.items()}
    n = len(lines["orig"])
    bad = [k for k, v in lines.items() if len(v) != n]
    if bad:
        raise ValueError(f"ASSET files {bad} are not line-aligned with asset.test.orig")
    queries = [json.dumps({"id": f"q{i}", "text": t}) for i, t in enumerate(lines["orig"])]
    corpus, qrels = [], ["query_id\tdoc_id\trelevance"]
    for k in range(10):
        for i, t in enumerate(lines[f"simp.{k}"]):
            corpus.append(json.dumps({"id": f"q{i}-s{k}", "text": t}))
            qrels.append(f"q{i}\tq{i}-s{k}\t1")
    write_text(folder / "asset_queries.jsonl", "\n".join(queries) + "\n")
    write_text(folder / "asset_corpus.jsonl", "\n".join(corpus) + "\n")
    write_text(folder / "asset_qrels.tsv", "\n".join(qrels) + "\n")
    suite = folder / "example_suite.yaml"
    write_text(suite, files("stebkit.data").joinpath("example_suite.yaml").read_text())
    return suite
