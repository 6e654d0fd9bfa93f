"""Where stebkit's catalogue readers used to deviate from the STEB reference: each case on
a constructed file in the real layout of its source, plus the install and the status
that an online user's first STEB run depends on."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from steb_files import FakeSplit, make_archive, read

from stebkit.datasets import get_spec, load_dataset, table
from stebkit.datasets.catalogue import SPECS
from stebkit.datasets.readers.text import DroppedRowsWarning

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------ setup

def test_the_hub_and_drive_clients_are_default_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0].lower()
             for d in project["dependencies"]}
    assert {"datasets", "gdown", "huggingface_hub"} <= names
    assert "hub" not in project.get("optional-dependencies", {})  # nothing extra to find
    setup = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nsetup:", 1)[1]
    recipe = setup.split("\ndemo:", 1)[0]
    assert re.search(r"import stebkit, .*datasets, gdown", recipe)  # checked after install


_SCRIPT = '''
import datasets


class Toy(datasets.GeneratorBasedBuilder):
    def _info(self):
        return datasets.DatasetInfo(features=datasets.Features(
            {"text": datasets.Value("string"), "label": datasets.Value("string")}))

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TRAIN)]

    def _generate_examples(self):
        for i in range(3):
            yield i, {"text": f"post {i}", "label": "author"}
'''


def test_the_installed_datasets_runs_the_loading_scripts_of_three_steb_sets(tmp_path,
                                                                            monkeypatch):
    """blog_age, blog_gender and reuters21578 are built by Hub loading scripts, which
    datasets 4 no longer runs: the release line `make setup` installs still runs them."""
    import datasets

    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "toy.py").write_text(_SCRIPT, encoding="utf-8")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    table = datasets.load_dataset(str(tmp_path / "toy" / "toy.py"), split="train",
                                  trust_remote_code=True,
                                  cache_dir=str(tmp_path / "cache")).to_pandas()
    assert table["text"].tolist() == ["post 0", "post 1", "post 2"]


def test_importing_stebkit_loads_neither_client():
    code = ("import sys, stebkit, stebkit.datasets, stebkit.datasets.catalogue; "
            "print(sorted(m for m in ('datasets', 'gdown', 'huggingface_hub') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------- RadioTalk and Fisher


def test_radiotalk_sides_are_their_first_utterance(built):
    pairs = [{"label": 1, "speaker 1": ["  ", "hello there", "and more"],
              "speaker 2": ["hi", "again"]},
             {"label": 0, "speaker 1": ["a"], "speaker 2": []},
             {"label": 0, "speaker 1": [3, "b"], "speaker 2": ["c"]}]
    built.put_spec("radiotalk", make_archive(
        {"radiotalk/radiotalk_pairs.json": json.dumps(pairs)}, tar=True))
    records, report = read("radiotalk")
    assert records[["text", "label", "pair", "same"]].values.tolist() == [
        ["hello there", "trial_0_true", "0", True], ["hi", "trial_0_true", "0", True],
        ["3", "trial_2_false", "2", False], ["c", "trial_2_false", "2", False]]
    assert report == [
        "radiotalk: dropped 1 of 3 items (trials without a 0/1 label or with an empty side)",
        "radiotalk: dropped 3 of 7 items (utterances after the first of a side: the "
        "reference's pair task encodes only the first)"]


def test_fisher_sides_are_their_first_utterance(built, tmp_path, monkeypatch):
    trials = [{"label": 1, "call 1": np.array(["uh hi", "yeah"]), "call 2": [7, "right"]},
              {"label": 0, "call 1": ["so"], "call 2": ["well", "okay", "bye"]}]
    folder = tmp_path / "fisher"
    folder.mkdir()
    np.save(folder / "bbn_test_base_trials.npy", np.array(trials, dtype=object),
            allow_pickle=True)
    monkeypatch.setenv("STEBKIT_LOCAL_FISHER_SPEAKER_ATTRIBUTION", str(folder))
    records, report = read("fisher_speaker_attribution_bbn_base")
    # the later reference loader's labels: its pair task reads same from "_true"
    assert records[["text", "label", "same"]].values.tolist() == [
        ["uh hi", "trial_0_true", True], ["7", "trial_0_true", True],
        ["so", "trial_1_false", False], ["well", "trial_1_false", False]]
    assert [lab.endswith("_true") for lab in records["label"]] == records["same"].tolist()
    assert any("dropped 4 of 8 items (utterances after the first" in m for m in report)


# ------------------------------------------------------------------ Hub blank texts

_BLOG = ("barilan/blog_authorship_corpus", None, "train+validation")


def test_blog_sets_drop_empty_posts_and_keep_whitespace_only_ones(hub_data):
    # the reference's blog loader skips a falsy text: None and "" go, "   \n" stays
    texts = ["a post", "", "   \n", None, "last"]
    hub_data[_BLOG] = FakeSplit({"text": texts, "age": [15, 25, 35, 15, 44],
                                 "gender": ["male", "female", "male", "female", "male"]})
    for name in ("blog_age", "blog_gender"):
        records, report = read(name, trust_remote_code=True)
        assert records["text"].tolist() == ["a post", "   \n", "last"]
        assert report == [
            f"{name}: dropped 1 of 5 rows with a missing text or label",
            f"{name}: dropped 1 of 4 items (rows with an empty text, as the reference's "
            f"blog loader skips them (reader option blank_texts='drop_empty'))",
            f"{name}: kept 1 of 3 items (rows with a whitespace-only text, as the "
            f"reference's blog loader keeps them; reader option blank_texts='drop' leaves "
            f"them out)"]
    records, _ = read("blog_age", trust_remote_code=True)
    assert records["label"].tolist() == ["10s", "30s", "30s"]


def test_other_hub_sets_keep_empty_texts(hub_data):
    hub_data["emotion", None, "test"] = FakeSplit(
        {"text": ["happy", "", " "], "label": [1, 0, 1]},
        names={"label": ["sadness", "joy"]})
    records, _ = read("emotion")
    assert sorted(records["text"]) == ["", " ", "happy"]


def test_reuters_keeps_blank_texts_and_the_drop_option_leaves_them_out(hub_data):
    hub_data["reuters21578", "ModLewis", "test"] = FakeSplit(
        {"text": ["grain news", " ", "more"], "topics": [["grain"], ["earn"], ["acq"]]})
    records, _ = read("reuters21578", trust_remote_code=True)
    assert records["text"].tolist() == ["grain news", " ", "more"]
    spec = get_spec("reuters21578")
    dropping = dataclasses.replace(
        spec, reader_options={**spec.reader_options, "blank_texts": "drop"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = load_dataset(dropping, cache=False, trust_remote_code=True).frame
    assert records["text"].tolist() == ["grain news", "more"]
    assert [str(w.message) for w in caught if w.category is DroppedRowsWarning] == [
        "reuters21578: dropped 1 of 3 rows with a missing text or label (blank texts "
        "included: blank_texts='drop')"]
    wrong = dataclasses.replace(spec, reader_options={**spec.reader_options,
                                                      "blank_texts": "skip"})
    with pytest.raises(ValueError, match="blank_texts='skip' must be one of"):
        load_dataset(wrong, cache=False, trust_remote_code=True)


def test_a_loading_script_refused_by_datasets_4_says_so(monkeypatch, online, tmp_path):
    import huggingface_hub

    from stebkit.datasets.hub import load_hub
    from stebkit.errors import DataUnavailable

    monkeypatch.setenv("STEBKIT_CACHE", str(tmp_path))

    def refuse(**kwargs):
        raise RuntimeError("Dataset scripts are no longer supported, but found "
                           "blog_authorship_corpus.py")

    fake = type(sys)("datasets")
    fake.load_dataset = refuse
    monkeypatch.setitem(sys.modules, "datasets", fake)
    monkeypatch.setattr(huggingface_hub, "HfApi", lambda: type(
        "Api", (), {"dataset_info": lambda self, path, revision=None: type(
            "Info", (), {"sha": "c0ffee"})()})())
    with pytest.raises(DataUnavailable) as err:
        load_hub(*_BLOG[:1], split=_BLOG[2], trust_remote_code=True)
    msg = str(err.value)
    assert "'barilan/blog_authorship_corpus'" in msg and "built by a loading script" in msg
    assert "pip install 'datasets<4'" in msg


# ---------------------------------------------------------------------------- status

def test_only_the_fisher_trials_are_agreement_only_and_say_where_to_ask():
    steb = table(suite="steb").set_index("name")
    agreement = steb[steb["status"].str.contains("agreement only")]
    assert sorted(agreement.index) == sorted(s.name for s in SPECS
                                             if s.name.startswith("fisher_"))
    assert (agreement["status"] == "constructed file; agreement only: LDC licence "
            "(LDC2004T19, LDC2005T19), request at https://catalog.ldc.upenn.edu/LDC2004T19"
            ).all()
    pan = [s for s in SPECS if s.name.startswith(("pan", "machine_text_detection_pan"))]
    assert len(pan) == 47
    assert all(steb.loc[s.name, "status"] == "constructed file" for s in pan)
    assert all(s.source.urls and s.source.local is None for s in pan)  # plain downloads
    assert steb.loc["radiotalk", "status"] == "constructed file"


# ------------------------------------------------------------------ pinned or not

def test_unpinned_sources_are_exactly_the_twelve_branch_downloads():
    unpinned = {s.name: s for s in SPECS if s.source.unpinned}
    assert sorted(unpinned) == sorted(
        [f"machine_text_detection_m4_{d}" for d in ("arxiv", "peerread", "reddit",
                                                     "wikihow", "wikipedia")]
        + ["core", "styleptb"]
        + [f"pastel_{a}" for a in ("age", "education", "gender", "ethnic", "politics")])
    for spec in unpinned.values():
        assert "unpinned" in spec.source.note
        assert all(sha is None for _, sha in spec.source.urls)  # kept at first download
    branch = {u for s in unpinned.values() for u in s.source.unpinned}
    pinned = {u for s in SPECS for u, _ in s.source.urls if "github" in u} - branch
    assert pinned and all(re.search(r"/[0-9a-f]{40}/", u) for u in pinned)


# ----------------------------------------------------------- PAN13-15 truth.txt marks

@pytest.mark.parametrize("name,chain", [
    ("pan13_authorship_verification_english_test",
     ["pan13-authorship-verification-test-corpus2-2013-05-29.zip"]),
    ("pan15_authorship_verification_english_test",
     ["pan15-authorship-verification-test-dataset2-2015-04-19.zip",
      "pan15-authorship-verification-test-dataset2-english-2015-04-19.zip"]),
])
def test_pan_truth_byte_order_mark_loses_the_first_problem(built, name, chain):
    folder = chain[-1][: -len(".zip")]
    files = {f"{folder}/truth.txt": "\ufeffEN001 Y\r\nEN002 N\r\n"}
    for pid in ("EN001", "EN002"):
        files.update({f"{folder}/{pid}/known01.txt": f"known {pid}",
                      f"{folder}/{pid}/unknown.txt": f"unknown {pid}"})
    archive = files
    for step in reversed(chain[1:]):
        archive = {step: archive}
    built.put_spec(name, {chain[0]: archive})
    records, report = read(name)
    assert records[["text", "label"]].values.tolist() == [
        ["known EN002", "trial_EN002_false"], ["unknown EN002", "trial_EN002_false"]]
    assert report == [f"{name}: dropped 1 of 2 items (problems whose id in truth.txt "
                      "carries the file's byte-order mark: read as the reference reads it, "
                      "the id names no problem folder)"]


# ------------------------------------------------------- graded formality file order

def test_graded_formality_reads_files_in_archive_order(built):
    folder = "graded_formality_generated_gpt-5-mini"
    header = "model,source,input,level1,level2,level3,level4\n"
    built.put_spec("graded_formality", {
        f"{folder}/tweets_2.csv": header + "m,tweet,second,b,c,d,e\n",
        f"{folder}/tweets_1.csv": header + "m,tweet,first,b,c,d,e\n",
        f"{folder}/README.txt": "not a table"})
    records, _ = read("graded_formality")
    assert records[records["position"] == 0]["text"].tolist() == ["second", "first"]


# ------------------------------------------------------------------- MASC dot-files

def test_masc_skips_dot_files_and_reads_lines_as_text_mode(built):
    root = "MASC-3.0.0/data/written"
    built.put_spec("masc_text_genre", {
        f"{root}/letters/b.txt": "Bee\r\n" * 100,
        f"{root}/letters/.a.txt": "hidden file",
        f"{root}/letters/.drafts/c.txt": "in a hidden folder",
        f"{root}/letters/._b.txt": "macOS resource fork"})
    records, report = read("masc_text_genre")
    assert "".join(records["text"]) == "Bee\n" * 100
    assert report == ["masc_text_genre: dropped 2 of 3 items (text files named or filed "
                      "under a name starting with '.', which the reference's glob skips)"]


def test_masc_words_option_is_the_word_chunk_version(built):
    root = "MASC-3.0.0/data/written"
    words = [f"w{i}" for i in range(300)]
    built.put_spec("masc_text_genre", {
        f"{root}/letters/a.txt": " ".join(words[:100]) + "\r\n",
        f"{root}/letters/b.txt": "\n".join(words[100:]) + "\n"})
    spec = get_spec("masc_text_genre")
    by_words = dataclasses.replace(spec, reader_options={"chunks": "words"})
    records = load_dataset(by_words, cache=False).frame
    # 300 words in 150 runs of two, joined with one space (commit e5d6ebc's cut)
    assert records["text"].tolist() == [f"w{2 * i} w{2 * i + 1}" for i in range(150)]
    chars, _ = read("masc_text_genre")  # the default: character ranges, newlines kept
    assert "".join(chars["text"]) == " ".join(words[:100]) + "\n\n" + "\n".join(
        words[100:]) + "\n"
    wrong = dataclasses.replace(spec, reader_options={"chunks": "paragraphs"})
    with pytest.raises(ValueError, match="chunks='paragraphs' must be one of"):
        load_dataset(wrong, cache=False)


# ------------------------------------------------------- text-mode line ends (\r\n)

_CRLF = "line one\r\nline two\rline three\r\n"
_LF = "line one\nline two\nline three\n"


@pytest.mark.parametrize("name,chain,pid,known", [
    ("pan13_authorship_verification_english_test",
     ["pan13-authorship-verification-test-corpus2-2013-05-29.zip"], "EN001", "known01.txt"),
    ("pan14_authorship_verification_corpus1_english_essays_test",
     ["pan14-authorship-verification-test-corpus1-2014-04-22.zip",
      "pan14-author-verification-test-corpus1-english-essays-2014-04-22.zip"], "EE001",
     "known01.txt"),
    ("pan15_authorship_verification_english_test",
     ["pan15-authorship-verification-test-dataset2-2015-04-19.zip",
      "pan15-authorship-verification-test-dataset2-english-2015-04-19.zip"], "EN001",
     "known01.txt"),
    ("enron_authorship_corpus", ["Enron (80 authors)"], "Ann.smith[Y]",
     "known - Ann - Mail_1.txt"),
])
def test_verification_texts_are_read_in_text_mode(built, name, chain, pid, known):
    folder = chain[-1].removesuffix(".zip")
    unknown = "unknown.txt" if name.startswith("pan") else "unknown - X - Mail_2.txt"
    files = {f"{folder}/truth.txt": f"{pid} Y\r\n",
             f"{folder}/{pid}/{known}": _CRLF, f"{folder}/{pid}/{unknown}": "a\r\rb"}
    if name.startswith("pan"):
        for step in reversed(chain[1:]):
            files = {step: files}
        files = {chain[0]: files}
    built.put_spec(name, files)
    records, _ = read(name)
    assert records["text"].tolist() == [_LF, "a\n\nb"]


def test_pan18_style_change_positions_count_text_mode_characters(built):
    folder = "pan18-style-change-detection-validation-dataset-2018-01-31"
    built.put_spec("pan18_style_change", {
        f"{folder}/problem-1.txt": "ab\r\ncd\r\nef",  # text mode: "ab\ncd\nef"
        f"{folder}/problem-1.truth": json.dumps({"changes": True, "positions": [3, 6]})})
    records, _ = read("pan18_style_change")
    assert records["text"].tolist() == ["ab\n", "cd\n"]


def test_pan18_attribution_texts_are_read_in_text_mode(built):
    folder = "pan18-cross-domain-authorship-attribution-test-dataset2-2018-04-20"
    gt = {"ground_truth": [{"unknown-text": "unknown00001.txt", "true-author": "candidate00001"}]}
    built.put_spec("pan18_cross_domain_authorship_attribution_english", {f"{folder}.zip": {
        f"{folder}/collection-info.json": json.dumps([{"problem-name": "problem00001",
                                                       "language": "en"}]),
        f"{folder}/problem00001/ground-truth.json": json.dumps(gt),
        f"{folder}/problem00001/candidate00001/known00001.txt": _CRLF,
        f"{folder}/problem00001/unknown/unknown00001.txt": "q\r\n"}})
    records, _ = read("pan18_cross_domain_authorship_attribution_english")
    assert records["text"].tolist() == [_LF, "q\n"]


def test_graded_formality_reads_line_ends_in_text_mode(built):
    folder = "graded_formality_generated_gpt-5-mini"
    built.put_spec("graded_formality", {f"{folder}/tweets.csv": (
        "model,source,input,level1,level2,level3,level4\r\n"
        'm,tweet,"hey\r\nu",b,c,d,"e\rf"\r\n')})
    records, _ = read("graded_formality")
    assert records["text"].tolist() == ["hey\nu", "b", "c", "d", "e\nf"]
