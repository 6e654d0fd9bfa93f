"""Solutions to the exercises of notebook 00 · Quickstart (run from notebooks/)."""

import stebkit
from stebkit import plots
from stebkit.encoders import cached, get_encoder
from stebkit.plots.notebook import is_fast
from stebkit.tasks import FAMILIES

SMOKE = is_fast()
dataset = stebkit.load_dataset("eltec-eng-authorship", smoke=SMOKE)
fam = FAMILIES["clustering"]
config = fam.config(dataset.spec.tasks["clustering"])


def v_measure(model, episode_size=1):
    task_input = fam.build(dataset.frame, episode_size=episode_size,
                           episodes_per_label=config.episodes_per_label)
    encoder = cached(get_encoder(model))
    items = task_input.pool(encoder.encode(list(task_input.texts)))
    return fam.evaluate(task_input, items)["v_measure"], items, task_input


# %% Exercise 1: a semantic model instead of character n-grams
scores = {}
for model in ("tfidf-char", "all-MiniLM-L6-v2"):
    scores[model], items, task_input = v_measure(model)
    print(f"{model:18s} V-measure {scores[model]:.3f}")
plots.embedding_map(items, task_input.labels, method="pca", directory=None,
                    title="ELTeC English passages, all-MiniLM-L6-v2")
better = scores["all-MiniLM-L6-v2"] > scores["tfidf-char"]
print("the semantic model separates the authors", "better" if better else "worse")
# Whatever the ranking, the semantic model reacts to what a passage is about: the
# characters, places and scenes of one novel. Colour the map by the novel (the `work`
# column of the records) to see it group the passages of one book.

# %% Exercise 2: episodes of two passages
one, _, ti1 = v_measure("tfidf-char", episode_size=1)
two, _, ti2 = v_measure("tfidf-char", episode_size=2)
print(f"episode size 1: {one:.3f} ({ti1.n_items} episodes)   "
      f"episode size 2: {two:.3f} ({ti2.n_items} episodes)")
# Averaging two passages can help: what is particular to one passage (its topic, its
# dialogue) partly cancels, what the author does everywhere adds up. The number of
# episodes stays the same (episodes_per_label per author), each one now drawing on two
# passages; on the tiny smoke data of fast mode the change can go either way.
assert 0 <= two <= 1 and ti2.n_items == ti1.n_items

# %% Exercise 3: genre rather than author
results = stebkit.evaluate(["tfidf-char", "function-words", "all-MiniLM-L6-v2"],
                           ["brown-genre"], smoke=SMOKE, output_dir="../results/exercises",
                           show_progress=False)
frame = results.main_frame()
print("tasks run on brown-genre:", sorted(frame["task"].unique()))
print(frame.pivot_table(index="model", columns="task", values="value").round(3))
# evaluate runs every task the dataset's spec declares. Genre is partly a matter of
# topic (news, religion, science fiction), so a semantic model is not handicapped here
# the way it is on authors who write about many things.
assert set(frame["task"]) == set(stebkit.datasets.get_spec("brown-genre").tasks)
