"""The offline ``lite`` suite (and its ``smoke`` variant): STEB-style datasets built
from the mirrored public sources, small enough to evaluate many models on two cores.

Every spec pins its files (URL and sha256, listed in ``readers/lite_manifest.txt``),
serves one or more task families, and is sized for speed: passages of 60-120 words,
at most a few hundred texts per dataset and about 6,700 in all. Episode
configurations are smaller than the reference presets
(:meth:`stebkit.tasks.TaskFamily.preset`); each description says how.
``load_dataset(name, smoke=True)`` caps every dataset at about 40 texts (two labels
with 20 texts each for the clustering sets, so that one episode configuration serves
both variants; order-alignment sets keep 20 sequences).

>>> from stebkit.datasets.lite import SPECS
>>> len(SPECS) >= 25
True
>>> sorted({lang for s in SPECS for lang in s.languages})
['de', 'en', 'es', 'fr', 'id', 'it', 'ru']
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from stebkit.sources import read_manifest

from .readers import (
    bible,
    conllu,
    detection,
    eltec,
    federalist,
    informal,
    nltk_zip,
    parallel,
    politeness,
    stel,
)
from .spec import DatasetSpec, License, Source, TaskConfig

LITE_SUITES = ("lite", "smoke")
"""The built-in suites every lite dataset belongs to."""
_MANIFEST = Path(__file__).parent / "readers" / "lite_manifest.txt"


def _seeded(reader: Callable[..., Any]) -> partial:
    """A reader of a source the STEB catalogue reads whole: the lite sets draw seeded
    samples (``sampling="seeded"``)."""
    return partial(reader, sampling="seeded")


@lru_cache(maxsize=1)
def _manifest() -> tuple[tuple[str, str], ...]:
    return read_manifest(_MANIFEST)


def _source(*patterns: str, note: str = "") -> Source:
    """The manifest files whose URL matches any of ``patterns``."""
    rx = [re.compile(p) for p in patterns]
    urls = tuple((u, s) for u, s in _manifest() if any(r.search(u) for r in rx))
    if not urls:
        raise RuntimeError(f"no lite file matches {patterns}")
    return Source(urls=urls, note=note)


# episode configurations shared by many sets
_CLUSTER = TaskConfig(episode_sizes=(1, 2), episodes_per_label=10)
_ORDER = TaskConfig(episode_sizes=(1,), episodes_per_label=100)
_STEL_ORDER = TaskConfig(episode_sizes=(1,), episodes_per_label=80)
_PAIRS = TaskConfig(episode_sizes=(1,), episodes_per_label=2)
_RETRIEVAL = TaskConfig(episode_sizes=(-1,), episodes_per_label=1)
_PROBE = TaskConfig(episode_sizes=(1,), episodes_per_label=1)
_LABELLED = {"clustering": _CLUSTER, "all_to_all_pairs": _CLUSTER}
_LABELLED_NOTE = ("Clustering and all-to-all pairs use episode sizes (1, 2) with 10 "
                  "episodes per label instead of the presets' (1, 2, 5) with 50.")

MIT = License("MIT", url="https://opensource.org/licenses/MIT")
PUBLIC_DOMAIN = License("public domain")
CC_BY_SA = License("CC-BY-SA-4.0", url="https://creativecommons.org/licenses/by-sa/4.0/")
NO_LICENCE = License("unspecified (no licence file)", research_only=True)

_CITE = {
    "stel": "Wegmann & Nguyen (2021). Does It Capture STEL? A Modular, Similarity-based "
            "Linguistic Style Evaluation Framework. EMNLP.",
    "bible": "Carlson, Riddell & Rockmore (2018). Evaluating prose style transfer with the "
             "Bible. Royal Society Open Science 5(10).",
    "eltec": "Schöch et al. (2021). Creating the European Literary Text Collection (ELTeC). "
             "Modern Languages Open.",
    "federalist": "Brown (2021). cmu.textstat: Functions for teaching text analysis. "
                  "Texts: Hamilton, Madison & Jay (1787-88), The Federalist.",
    "nltk": "Bird, Klein & Loper (2009). Natural Language Processing with Python. O'Reilly.",
    "brown": "Francis & Kučera (1979). Brown Corpus Manual. Brown University.",
    "masc": "Ide et al. (2010). MASC: the Manually Annotated Sub-Corpus of American "
            "English. LREC.",
    "ewt": "Silveira et al. (2014). A Gold Standard Dependency Corpus for English. LREC.",
    "gum": "Zeldes (2017). The GUM Corpus: Creating Multilayer Resources in the "
           "Classroom. Language Resources and Evaluation 51(3).",
    "politeness": "Danescu-Niculescu-Mizil et al. (2013). A computational approach to "
                  "politeness with application to social factors. ACL.",
    "informal": "Eder, Krieg-Holz & Hahn (2023). In_Formal sentences: a German formality "
                "dataset (ee-2/in_formal_sentences).",
    "fastdetect": "Bao et al. (2024). Fast-DetectGPT: Efficient Zero-Shot Detection of "
                  "Machine-Generated Text via Conditional Probability Curvature. ICLR.",
    "m4": "Wang et al. (2024). M4: Multi-generator, Multi-domain, and Multi-lingual "
          "Black-Box Machine-Generated Text Detection. EACL.",
    "argugpt": "Liu et al. (2023). ArguGPT: evaluating, understanding and identifying "
               "argumentative essays generated by GPT models. arXiv:2304.07666.",
    "asset": "Alva-Manchego et al. (2020). ASSET: A Dataset for Tuning and Evaluation of "
             "Sentence Simplification Models with Multiple Rewriting Transformations. ACL.",
    "shakespeare": "Xu et al. (2012). Paraphrasing for Style. COLING.",
}


_lite = partial(DatasetSpec, languages=("en",), offline=True, suites=LITE_SUITES,
                tested_on="mirror")  # tests/test_lite.py reads every lite dataset from the mirror
"""A lite dataset: a :class:`DatasetSpec` in the lite and smoke suites, loadable offline,
English unless its ``languages`` say otherwise."""


def _stel() -> list[DatasetSpec]:
    files = {"contraction": "quad_questions_char_contraction",
             "emotives": "quad_questions_char_emotives",
             "nbr-substitution": "quad_questions_char_substitution",
             "em-subj-pronoun": "quad_questions_em-subj-pronoun_100"}
    what = {"contraction": "contracted vs full forms (it's / it is)",
            "emotives": "emoticons vs emoji (:) / 😀)",
            "nbr-substitution": "number substitution / leetspeak vs standard spelling",
            "em-subj-pronoun": "the pronoun 'em' as subject vs standard pronouns"}
    out = []
    for short, stem in files.items():
        out.append(_lite(name=f"stel-{short}",
                         description=f"STEL characteristic quadruples: {what[short]}. 50 "
                                     "quadruples (seeded) give 100 two-position sequences (anchor "
                                     "pair and alternative pair; position 0 has the "
                                     "characteristic). Quadruples repeating an earlier pair are "
                                     "dropped first. The raw quadruple columns are kept "
                                     "(quadruple, role, slot, correct) for the STEL accuracy. "
                                     "Order alignment samples 80 sequences per label, not the "
                                     "preset's 100: repeated sequences count once, as in the "
                                     "reference, and two sets keep only 82-83 distinct ones.",
                         source=_source(rf"/{stem}\.tsv$"), license=MIT,
                         label="style characteristic (position 0 = with it)",
                         tasks={"order_alignment": _STEL_ORDER}, category="linguistic_features",
                         application="style_transfer_evaluation", citation=_CITE["stel"],
                         reader=_seeded(stel.read_stel),
                         steb_name=f"STEL_{short.replace('-', '_')}",
                         reader_options={"quadruples": 50, "smoke_quadruples": 10}))
    return out


_BIBLE_NOTE = ("Chapters: Genesis 1-3, Ruth 1-2, Proverbs 3, Ecclesiastes 3, Isaiah 40, "
               "Matthew 5-7, Luke 10 and 15, Acts 2, Romans 8, 1 Corinthians 13, James 1, "
               "Revelation 21 (verse numbering identical in all seven versions). Verses "
               "are aligned on verse number and grouped into 60-120-word spans.")
_BIBLE_LICENCE = License("public domain (no licence file; old or public-domain "
                         "translations)", research_only=False)


def _bible() -> list[DatasetSpec]:
    src = _source(r"/Data/Bibles/")
    return [
        _lite(name="bible-versions",
              description="Seven parallel English Bible versions (ASV, BBE, DARBY, DRA, KJV, WEB, "
                          "YLT); 30 spans, each cut from every version, so content is controlled. "
                          f"{_BIBLE_NOTE} {_LABELLED_NOTE}", source=src, license=_BIBLE_LICENCE,
              label="Bible version", tasks=_LABELLED, category="time",
              application="register_classification", citation=_CITE["bible"],
              reader=_seeded(bible.read_bible), reader_options={"design": "versions",
                              "versions": ("KJV", "ASV", "BBE", "DARBY", "DRA", "WEB", "YLT"),
                              "spans": 30, "smoke_spans": 20, "smoke_versions": ("KJV", "WEB")}),
        _lite(name="bible-eras",
              description="The same span in four versions ordered by date: KJV (1611), ASV "
                          "(1901), BBE (1949/1965), WEB (2000); 60 sequences (seeded), position 0 "
                          f"= oldest. {_BIBLE_NOTE} Order alignment: 60 sequences instead of the "
                          "preset's 100.", source=src, license=_BIBLE_LICENCE,
              label="era of the translation (0 = oldest)",
              tasks={"order_alignment": TaskConfig(episode_sizes=(1,), episodes_per_label=60)},
              category="time", application="style_transfer_evaluation", citation=_CITE["bible"],
              reader=_seeded(bible.read_bible),
              reader_options={"design": "order", "versions": ("KJV", "ASV", "BBE", "WEB"),
                              "spans": 60, "smoke_spans": 10}),
    ]


def _parallel() -> list[DatasetSpec]:
    return [
        _lite(name="asset-simplification",
              description="ASSET test set: 100 Wikipedia sentences (seeded), each with one of its "
                          "ten crowd simplifications drawn with the seed; position 0 = "
                          "simplified, 1 = original, as the reference. Order alignment uses the "
                          "preset.", source=_source(r"/asset/.*/dataset/asset\.test\."),
              license=License("CC-BY-NC-4.0", non_commercial=True,
                              url="https://creativecommons.org/licenses/by-nc/4.0/"),
              label="simplicity (position 0 = simplified)", tasks={"order_alignment": _ORDER},
              category="register", application="style_transfer_evaluation", citation=_CITE["asset"],
              reader=_seeded(parallel.read_asset), steb_name="ASSET",
              reader_options={"split": "test", "sequences": 100, "smoke_sequences": 20}),
        _lite(name="shakespeare-modern",
              description="Shakespeare lines and their modern paraphrases (SparkNotes/eNotes), "
                          "100 pairs (seeded) of 8-120 words; identical pairs dropped. Position 0 "
                          "= Early Modern original, 1 = modern. Order alignment uses the preset.",
              source=_source(r"/cocoxu/Shakespeare/"),
              license=License("unspecified; modern side scraped from SparkNotes/eNotes",
                              research_only=True),
              label="Early Modern English (position 0 = original)",
              tasks={"order_alignment": _ORDER}, category="time",
              application="style_transfer_evaluation", citation=_CITE["shakespeare"],
              reader=_seeded(parallel.read_shakespeare),
              reader_options={"sequences": 100, "smoke_sequences": 20}),
    ]


_ELTEC = {"eng": ("en", "English"), "deu": ("de", "German"), "fra": ("fr", "French"),
          "spa": ("es", "Spanish"), "ita": ("it", "Italian")}
_ELTEC_LICENCE = License("CC-BY-4.0 (markup); texts in the public domain",
                         url="https://creativecommons.org/licenses/by/4.0/")


def _eltec() -> list[DatasetSpec]:
    out = []
    for code, (lang, language) in _ELTEC.items():
        src = _source(rf"/COST-ELTeC/ELTeC-{code}/")
        base = (f"ELTeC {language} novels: 8 authors with two novels each (19th-early 20th "
                "century), cut into 60-120-word passages.")
        out += [
            _lite(name=f"eltec-{code}-authorship",
                  description=f"{base} 20 passages per author (seeded) from both novels. "
                              f"{_LABELLED_NOTE}", languages=(lang,), source=src,
                  license=_ELTEC_LICENCE, label="author", tasks=_LABELLED, category="idiolect",
                  application="authorship_attribution", citation=_CITE["eltec"],
                  reader=eltec.read_eltec,
                  reader_options={"design": "authorship", "per_label": 20, "smoke_per_label": 20,
                                  "smoke_authors": 2}),
            _lite(name=f"eltec-{code}-verification",
                  description=f"{base} Predefined pairs across novels: 4 same-author pairs per "
                              "author (one passage from each of the author's two novels) and as "
                              "many different-author pairs; no passage reused. Preset episode "
                              "configuration.", languages=(lang,), source=src,
                  license=_ELTEC_LICENCE, label="author (same = same author)",
                  tasks={"predefined_pairs": _PAIRS}, category="idiolect",
                  application="authorship_verification", citation=_CITE["eltec"],
                  reader=eltec.read_eltec,
                  reader_options={"design": "verification", "pairs_per_label": 4,
                                  "smoke_pairs_per_label": 2, "smoke_authors": 4}),
            _lite(name=f"eltec-{code}-retrieval",
                  description=f"{base} Retrieval across novels: 5 passages of each author's first "
                              "novel are the query, 5 of the second the target (one episode per "
                              "side and author, as the preset).", languages=(lang,), source=src,
                  license=_ELTEC_LICENCE, label="author", tasks={"retrieval": _RETRIEVAL},
                  category="idiolect", application="authorship_retrieval", citation=_CITE["eltec"],
                  reader=eltec.read_eltec,
                  reader_options={"design": "retrieval", "per_side": 5, "smoke_per_side": 4,
                                  "smoke_authors": 4}),
        ]
    return out


def _authorship() -> list[DatasetSpec]:
    return [
        _lite(name="federalist-authorship",
              description="Federalist Papers by Hamilton, Madison and Jay (the 12 disputed and 3 "
                          "joint papers are left out), 20 passages of 60-120 words per author "
                          f"(seeded), spread over the author's papers. {_LABELLED_NOTE}",
              source=_source(r"/cmu\.textstat/.*\.rda$"),
              license=License("MIT (package); texts in the public domain"), label="author",
              tasks=_LABELLED, category="idiolect", application="authorship_attribution",
              citation=_CITE["federalist"], reader=federalist.read_federalist,
              reader_options={"per_label": 20, "smoke_per_label": 20, "smoke_labels": 2}),
        _lite(name="sotu-retrieval",
              description="State of the Union addresses 1945-2006, 11 presidents: 5 passages of a "
                          "president's first address are the query, 5 of the second the target. "
                          "Speeches were often ghost-written: the label is the speaker. Preset "
                          "retrieval configuration.", source=_source(r"/state_union\.zip$"),
              license=PUBLIC_DOMAIN, label="president", tasks={"retrieval": _RETRIEVAL},
              category="idiolect", application="authorship_retrieval", citation=_CITE["nltk"],
              reader=nltk_zip.read_nltk,
              reader_options={"corpus": "state_union", "design": "retrieval", "per_side": 5,
                              "smoke_per_side": 2}),
    ]


def _registers() -> list[DatasetSpec]:
    """Register, genre and community labels: corpus sections, then graded judgements."""
    return [*_nltk_registers(), *_ud_registers(), *_community_registers()]


def _nltk_registers() -> list[DatasetSpec]:
    """Genres, registers and chat-room age groups of NLTK's corpora, as their files label
    them."""
    return [
        _lite(name="brown-genre",
              description="Brown Corpus (1961), 15 genres, 20 untagged passages per genre. "
                          f"{_LABELLED_NOTE}", source=_source(r"/brown\.zip$"),
              license=License("non-commercial use (NLTK descriptor)", non_commercial=True),
              label="genre", tasks=_LABELLED, category="genre",
              application="register_classification", citation=_CITE["brown"],
              reader=nltk_zip.read_nltk,
              reader_options={"corpus": "brown", "per_label": 20, "smoke_per_label": 20,
                              "smoke_labels": 2}),
        _lite(name="masc-register",
              description="MASC (written and spoken), 20 registers/genres (email, spam, blog, "
                          f"court transcript, ...), 20 untagged passages each. {_LABELLED_NOTE}",
              source=_source(r"/masc_tagged\.zip$"),
              license=License("MASC: research, education and development, including commercial"),
              label="register", tasks=_LABELLED, category="register",
              application="register_classification", citation=_CITE["masc"],
              reader=nltk_zip.read_nltk,
              reader_options={"corpus": "masc_tagged", "per_label": 20, "smoke_per_label": 20,
                              "smoke_labels": 2}),
        _lite(name="webtext-register",
              description="NLTK webtext: firefox forum, overheard NY, Pirates script, Grail "
                          f"script, singles ads, wine diary; 20 passages each. {_LABELLED_NOTE}",
              source=_source(r"/webtext\.zip$"), license=License("unspecified (none stated)",
                              research_only=True), label="source/register", tasks=_LABELLED,
              category="register", application="register_classification", citation=_CITE["nltk"],
              reader=nltk_zip.read_nltk,
              reader_options={"corpus": "webtext", "per_label": 20, "smoke_per_label": 20,
                              "smoke_labels": 2}),
        _lite(name="nps-chat-age",
              description="NPS Chat sessions (2006) by the age group of the room: teens, 20s, "
                          "30s, 40s, adults; runs of consecutive posts (system lines left out) "
                          "form 60-120-word passages, 20 per age group; user names (which name "
                          f"the room) are masked. {_LABELLED_NOTE}",
              source=_source(r"/nps_chat\.zip$"),
              license=License("non-commercial, non-profit educational and research use",
                              non_commercial=True, research_only=True),
              label="age group of the chat room", tasks=_LABELLED, category="demographics",
              application="register_classification", citation=_CITE["nltk"],
              reader=nltk_zip.read_nltk,
              reader_options={"corpus": "nps_chat", "per_label": 20, "smoke_per_label": 20,
                              "smoke_labels": 2}),
    ]


def _ud_registers() -> list[DatasetSpec]:
    """Genres of the Universal Dependencies English treebanks (EWT, GUM)."""
    return [
        _lite(name="ud-ewt-genre",
              description="UD English-EWT web genres (answers, email, newsgroup, reviews, "
                          "weblog): the first 30 documents per genre by file name, cut into "
                          "60-120-word passages (shorter documents whole); 20 texts per genre. "
                          f"{_LABELLED_NOTE}", source=_source(r"/UD_English-EWT/.*\.conllu$"),
              license=CC_BY_SA, label="web genre", tasks=_LABELLED, category="genre",
              application="register_classification", citation=_CITE["ewt"],
              reader=conllu.read_ud,
              reader_options={"design": "genre", "per_label": 20, "smoke_per_label": 20,
                              "smoke_labels": 2}),
        _lite(name="ud-gum-genre",
              description="UD English-GUM, 15 genres (academic ... conversation, vlog, whow), "
                          f"60-120-word passages, 20 per genre. {_LABELLED_NOTE}",
              source=_source(r"/UD_English-GUM/.*\.conllu$"),
              license=License("CC-BY-NC-SA-4.0", non_commercial=True), label="genre",
              tasks=_LABELLED, category="genre", application="register_classification",
              citation=_CITE["gum"], reader=conllu.read_ud,
              reader_options={"design": "genre", "per_label": 20, "smoke_per_label": 20,
                              "smoke_labels": 2}),
    ]


def _community_registers() -> list[DatasetSpec]:
    """Politeness and formality datasets: the source community or domain, and quintiles of
    a crowd-annotated score."""
    return [
        _lite(name="politeness-community",
              description="Stanford Politeness requests from Wikipedia editors vs Stack Exchange "
                          f"users, 20 per community. {_LABELLED_NOTE}",
              source=_source(r"/politeness/.*\.annotated\.csv$"), license=License("Apache-2.0"),
              label="community", tasks=_LABELLED, category="register",
              application="register_classification", citation=_CITE["politeness"],
              reader=_seeded(politeness.read_politeness),
              reader_options={"design": "community", "per_label": 20, "smoke_per_label": 20}),
        _lite(name="politeness-level",
              description="Stanford Politeness requests in five quintiles of the normalised "
                          "politeness score (both communities), 40 per quintile, with a 60/20/20 "
                          "stratified split for probing (preset configuration).",
              source=_source(r"/politeness/.*\.annotated\.csv$"), license=License("Apache-2.0"),
              label="politeness quintile", tasks={"probing": _PROBE}, category="register",
              application="linguistic_probing", citation=_CITE["politeness"],
              reader=_seeded(politeness.read_politeness),
              reader_options={"design": "level", "per_label": 40, "smoke_per_label": 8}),
        _lite(name="informal-genre",
              description="German In_Formal sentences by domain (11 domains; the CC BY-NC-SA "
                          f"'comments' domain is left out), 20 sentences each. {_LABELLED_NOTE}",
              languages=("de",), source=_source(r"/in_formal_sentences\.tsv$"), license=CC_BY_SA,
              label="domain", tasks=_LABELLED, category="genre",
              application="register_classification", citation=_CITE["informal"],
              reader=informal.read_informal,
              reader_options={"design": "genre", "per_label": 20, "smoke_per_label": 20,
                              "smoke_labels": 2}),
        _lite(name="informal-formality",
              description="German In_Formal sentences in five formality quintiles (crowd "
                          "best-worst scaling), 40 per quintile, 60/20/20 stratified split for "
                          "probing (preset configuration). Domain and formality are correlated.",
              languages=("de",), source=_source(r"/in_formal_sentences\.tsv$"), license=CC_BY_SA,
              label="formality quintile", tasks={"probing": _PROBE}, category="register",
              application="linguistic_probing", citation=_CITE["informal"],
              reader=informal.read_informal,
              reader_options={"design": "formality", "per_label": 40, "smoke_per_label": 8}),
    ]


def _detection() -> list[DatasetSpec]:
    """Machine-text detection: who wrote each text, a human or which generator."""
    return [*_fastdetect(), *_m4(), *_machine_only()]


def _fastdetect() -> list[DatasetSpec]:
    """Fast-DetectGPT's human texts and their machine continuations, one dataset a source."""
    out = []
    fdg = {"xsum": "XSum news", "writing": "WritingPrompts stories",
           "squad": "SQuAD Wikipedia contexts"}
    for stem, what in fdg.items():
        gens = ("gpt2-xl, opt-2.7b, gpt-neo-2.7B, gpt-j-6B, gpt-neox-20b" if stem == "squad"
                else "gpt2-xl, opt-2.7b, gpt-neo-2.7B, gpt-j-6B, gpt-neox-20b, davinci, "
                "gpt-3.5-turbo, gpt-4")
        out.append(_lite(name=f"fastdetectgpt-{stem}",
                         description=f"Fast-DetectGPT {what}: human texts and continuations by "
                                     f"{gens}. The shared human prefix (and the rest of its "
                                     "sentence) is removed from both sides; texts are the leading "
                                     "60-120 words; pairs left with < 30 words are dropped. 20 "
                                     f"texts per writer (seeded). {_LABELLED_NOTE}",
                         source=_source(rf"/fast-detect-gpt/.*/{stem}_[^/]*\.raw_data\.json$"),
                         license=License("MIT (repository); source datasets keep their own terms"),
                         label="writer (human or generator)", tasks=_LABELLED, category="idiolect",
                         application="ai_text_detection", citation=_CITE["fastdetect"],
                         reader=detection.read_detection,
                         reader_options={"kind": "fastdetect", "per_label": 20,
                                         "smoke_per_label": 20, "smoke_labels": 2}))
    return out


def _m4() -> list[DatasetSpec]:
    """M4's human texts against llama-2-70b-chat, one dataset a language."""
    out = []
    m4 = {"eng": ("en", r"test_(arxiv|reddit|wikihow|wikipedia)_llama2",
                  "arXiv, Reddit ELI5, wikiHow and Wikipedia"),
          "deu": ("de", r"test_germanwikipedia_llama2", "German Wikipedia"),
          "ind": ("id", r"test_id-newspaper_llama2", "Indonesian newspapers"),
          "rus": ("ru", r"test_russian_llama2", "RuATD 2022")}
    for code, (lang, pattern, what) in m4.items():
        out.append(_lite(name=f"m4-{code}-detection",
                         description=f"M4 {what}: human texts vs llama-2-70b-chat, 20 each "
                                     "(seeded), leading 60-120 words. Texts not detected as the "
                                     "file's language (script and stopword ratio) are dropped and "
                                     "reported. Machine texts may keep the chat model's preamble "
                                     f"('Certainly! Here is ...'), as released. {_LABELLED_NOTE}",
                         languages=(lang,), source=_source(rf"/M4/.*/{pattern}\.jsonl$"),
                         license=NO_LICENCE, label="writer (human or llama-2-70b-chat)",
                         tasks=_LABELLED, category="idiolect", application="ai_text_detection",
                         citation=_CITE["m4"], reader=detection.read_detection,
                         reader_options={"kind": "m4", "language": lang, "per_label": 20,
                                         "smoke_per_label": 20, "smoke_labels": 2}))
    return out


def _machine_only() -> list[DatasetSpec]:
    """Essays and summaries told apart by their generator (and human summaries)."""
    return [
        _lite(name="argugpt-generator",
              description="ArguGPT machine essays (dev, test, ood): 9 generators (gpt2-xl ... "
                          "gpt4, claude-instant, bloomz-7b, flan-t5-11b), 20 essays each, leading "
                          "60-120 words (the human-written first sentence of gpt2-xl essays "
                          "removed). Machine-only: the human essays are not released. "
                          f"{_LABELLED_NOTE}", source=_source(r"/ArguGPT/.*\.csv$"),
              license=NO_LICENCE, label="generator", tasks=_LABELLED, category="idiolect",
              application="ai_text_detection", citation=_CITE["argugpt"],
              reader=detection.read_detection,
              reader_options={"kind": "argugpt", "per_label": 20, "smoke_per_label": 20,
                              "smoke_labels": 2}),
        _lite(name="gum-summaries",
              description="One-sentence summaries of GUM documents by humans and by "
                          "claude-3.5-sonnet, gpt4o, Llama-3.2-3B, Meta-Llama-3-8B and Qwen2.5-7B "
                          "(post-edited machine summaries dropped); 20 per writer. "
                          f"{_LABELLED_NOTE}", source=_source(r"/UD_English-GUM/.*\.conllu$"),
              license=License("CC-BY-NC-SA-4.0", non_commercial=True),
              label="writer (human or generator)", tasks=_LABELLED, category="idiolect",
              application="ai_text_detection", citation=_CITE["gum"],
              reader=conllu.read_ud,
              reader_options={"design": "summaries", "per_label": 20, "smoke_per_label": 20,
                              "smoke_labels": 2}),
    ]


SPECS: list[DatasetSpec] = [*_stel(), *_bible(), *_parallel(), *_eltec(), *_authorship(),
                            *_registers(), *_detection()]
"""Every dataset of the lite suite, each also in the smoke suite."""
