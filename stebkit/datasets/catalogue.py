"""Every dataset of the STEB reference configuration, declared as data.

One row per dataset of the reference benchmark (its ``steb/steb_datasets/<name>``
folders, minus the dummy sets), with the online source, licence, label meaning, tasks
with their preset episode configuration, definitional category, application and a short
citation. Names are the reference's folder names in lower case with ``-`` turned into
``_``; ``steb_name`` keeps the original.

Every entry has a reader that follows the reference's loader for it (modules of
:mod:`stebkit.datasets.readers`, one per format or loader family; Hub label sets with a
plain row layout use :func:`stebkit.datasets.hub.read_hub`), with its options in
``reader_options`` and its sources where the reference's download script gets them
(Zenodo, S3, the ACL Anthology, GitHub files, Google Drive ids, Hub datasets, or a local
folder for the one source released on request, the Fisher trials). GitHub files are
pinned to a commit, except those kept outside their repository's git history (M4, CORE,
StylePTB, PASTEL: :attr:`~stebkit.datasets.spec.Source.unpinned`), which the sha256 of
their first download keeps fixed. ``tested_on`` says how its reader is tested. Offline,
a dataset whose files are neither cached nor mirrored raises ``DataUnavailable`` naming
them; runnable stand-ins are in the ``lite`` suite.

The reference's reporting clusters (which datasets are averaged into each operational
and definitional cluster) live with the scores: :func:`stebkit.scores.reference_clusters`.

>>> len(SPECS) >= 90
True
>>> spec = next(s for s in SPECS if s.name == "corpus_of_diverse_styles")
>>> spec.source.hf_path, sorted(spec.tasks)
('billray110/corpus-of-diverse-styles', ['all_to_all_pairs', 'clustering', 'order_alignment'])
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ..sources import gdrive_url
from .hub import read_hub
from .readers import (
    bible,
    generated,
    hub_sets,
    pan,
    parallel,
    politeness,
    probing_jsonl,
    stel,
    synthstel,
    tables,
    text_files,
    trials,
    xml_corpora,
)
from .spec import DatasetSpec, License, Source, Submetric, TaskConfig

__all__ = ["SPECS", "catalogue_name"]

# ---------------------------------------------------------------------------- licences
# The PAN releases are plain Zenodo downloads (the reference's download script fetches
# each with wget/curl, no request or login); only Fisher is released on request.
_PAN = License("PAN shared-task data (Zenodo), for research on the shared tasks",
              research_only=True, url="https://pan.webis.de/data.html")
_NO_LICENCE = License("no licence stated", research_only=True)
_LDC = License("LDC User Agreement (Fisher English Training Transcripts)", research_only=True,
              needs_agreement="LDC licence (LDC2004T19, LDC2005T19)",
              url="https://catalog.ldc.upenn.edu/LDC2004T19")
_RADIOTALK = License("RadioTalk corpus terms (research use); the STEB release is a plain "
                    "Google Drive download", research_only=True,
                    url="https://github.com/social-machines/RadioTalk")
_MIT = License("MIT")
_APACHE = License("Apache-2.0")
_CC_BY = License("CC-BY-4.0")
_CC_BY_SA = License("CC-BY-SA-4.0")
_CC_BY_NC = License("CC-BY-NC-4.0", non_commercial=True)
_CC_BY_NC_SA_3 = License("CC-BY-NC-SA-3.0", non_commercial=True)
_CC_BY_NC_SA = License("CC-BY-NC-SA-4.0", non_commercial=True)
_BIBLE = License("public domain, except LEB (Lexham English Bible: Lexham Press licence, "
                "free use with attribution)")
_MASC = License("MASC open data (CC-BY-3.0 or public domain per text)")
_STEL = License("MIT; the formality items are a public 100-item sample derived from "
               "GYAFC (Yahoo Answers L6 terms)", research_only=True)
_SHAKESPEARE = License("no licence; modern side scraped from study guides", research_only=True)
_PTB = License("StylePTB release; sentences from the Penn Treebank (LDC99T42)",
              research_only=True)
_PILE = License("MIT (compilation); component licences vary", research_only=True)
_BLOG = License("Blog Authorship Corpus: non-commercial research use", non_commercial=True,
               research_only=True)
_FCE = License("FCE release: non-commercial research and education", non_commercial=True,
              research_only=True)
_TWITTER = License("no licence; tweets under the platform's terms", research_only=True)
_AMAZON = License("Amazon review data: academic research use", non_commercial=True,
                 research_only=True)
_AG_NEWS = License("AG's corpus: non-commercial research use", non_commercial=True,
                  research_only=True)
_REUTERS = License("Reuters-21578: free for research use", research_only=True)
_EMOTION = License("educational and research use only", research_only=True)
_YELP = License("Yelp Dataset terms (non-commercial, academic)", non_commercial=True,
               research_only=True)

# ----------------------------------------------------------------------------- helpers
PRESET = TaskConfig(episode_sizes=None, episodes_per_label=None)
"""The task family's reference preset, filled in by :meth:`stebkit.tasks.TaskFamily.config`."""


def catalogue_name(steb_name: str) -> str:
    """The stebkit name of a reference dataset folder.

    >>> catalogue_name("corpus-of-diverse-styles")
    'corpus_of_diverse_styles'
    """
    return steb_name.lower().replace("-", "_")


def _steb(*, steb_name: str, source: Source, languages: tuple[str, ...] = ("en",),
          **fields: Any) -> DatasetSpec:
    """A reference dataset: a :class:`DatasetSpec` named after its reference folder
    ``steb_name`` (:func:`catalogue_name`), in the suite ``"steb"``, English unless
    ``languages`` says otherwise; ``fields`` are the other :class:`DatasetSpec` fields.

    It is ``offline`` when its reader reads files (source URLs or a local folder key):
    it loads without network once they are cached or mirrored, or the folder is set.

    >>> spec = _steb(steb_name="Toy-Set", description="toy", category="genre",
    ...              application="register_classification", label="genre",
    ...              license=_MIT, tasks={"clustering": PRESET}, reader=print,
    ...              source=Source(urls=(("https://example.org/toy.zip", None),)))
    >>> spec.name, spec.suites, spec.offline, spec.tasks["clustering"].episode_sizes
    ('toy_set', ('steb',), True, None)
    """
    offline = (fields.get("reader") is not None and not source.is_hub
               and (bool(source.urls) or source.local is not None))
    return DatasetSpec(name=catalogue_name(steb_name), steb_name=steb_name, source=source,
                       languages=languages, suites=("steb",), offline=offline, **fields)


def _hub(path: str, split: str, name: str | None = None, note: str = "") -> Source:
    return Source(hf_path=path, hf_name=name, hf_split=split, note=note)


def _web(note: str, *urls: str) -> Source:
    return Source(urls=tuple((u, None) for u in urls), note=note)


# ---------------------------------------------------------------- machine-text detection


def _detectrl(part: str) -> Source:
    return _web("DetectRL test file (Benchmark/Benchmark_Data) of "
                "https://github.com/NLP2CT/DetectRL", generated.DETECTRL_URLS[part])


_UNPINNED = ("; unpinned: the files are kept outside the repository's git history, so no "
             "commit pins them; the branch is read and the sha256 of the first download is "
             "kept and checked")
_M4 = _web("M4 data/<domain>_<model>.jsonl files of https://github.com/mbzuai-nlp/M4 (the "
           "reference clones the repository's HEAD)" + _UNPINNED,
           "https://github.com/mbzuai-nlp/M4/archive/HEAD.zip")
_MAGE = _hub("yaful/MAGE", "test", note="MAGE (DeepfakeTextDetect) test split; rows of one "
             "source domain, from https://github.com/yafuly/MAGE")
_GEN_LABEL = "source of the text: human or the generating language model"

_detection = partial(_steb, category="idiolect", application="ai_text_detection",
                     tasks={"clustering": PRESET})

_MTD = [
    *(_detection(steb_name=f"machine_text_detection_DetectRL_{d}",
                 description=f"DetectRL {d.replace('_', ' ')}: human vs. LLM-written texts",
                 label=_GEN_LABEL, license=_NO_LICENCE,
                 citation="Wu et al., 2024 (DetectRL, NeurIPS D&B)", source=_detectrl(d),
                 reader=generated.read_detectrl, tested_on="mirror",
                 reader_options={"labels": "generator"})
      for d in ("arxiv", "direct_prompt", "writing_prompt", "xsum", "yelp_review")),
    *(_detection(steb_name=f"machine_text_detection_DetectRL_{d}_attacks",
                 description=f"DetectRL {d} attacks: human vs. attacked machine text",
                 label="human or machine (binary), machine text altered by the attack",
                 license=_NO_LICENCE, citation="Wu et al., 2024 (DetectRL, NeurIPS D&B)",
                 source=_detectrl(d), reader=generated.read_detectrl, tested_on="mirror",
                 reader_options={"labels": "binary"})
      for d in ("paraphrase", "perturbation", "prompt")),
    *(_detection(steb_name=f"machine_text_detection_M4_{d}",
                 description=f"M4 {d}: human vs. machine text from several generators",
                 label=_GEN_LABEL, license=_NO_LICENCE, citation="Wang et al., 2024 (M4, EACL)",
                 source=_M4, reader=generated.read_m4, tested_on="constructed",
                 reader_options={"domain": d})
      for d in ("arxiv", "peerread", "reddit", "wikihow", "wikipedia")),
    *(_detection(steb_name=f"machine_text_detection_MAGE_{d}",
                 description=f"MAGE {d}: human vs. machine text", label=_GEN_LABEL, license=_APACHE,
                 citation="Li et al., 2024 (MAGE, ACL)", source=_MAGE, reader=hub_sets.read_mage,
                 tested_on="constructed", reader_options={"domain": d})
      for d in ("cmv", "eli5", "hswag", "roct", "sci_gen", "squad", "tldr", "wp", "xsum",
                "yelp")),
    _detection(steb_name="machine_text_detection_PAN24_news",
               description="PAN 2024 Voight-Kampff generative authorship: human vs. machine news",
               label=_GEN_LABEL, license=_PAN, citation="Bevendorff et al., 2024 (PAN)",
               source=_web("pan24-generative-authorship-news (Zenodo 10718757), https://pan.webis.de/"
                           "clef24/pan24-web/generated-content-analysis.html",
                           "https://zenodo.org/records/10718757/files/"
                           "pan24-generative-authorship-news.zip"), reader=pan.read_pan_generated,
               tested_on="constructed", reader_options={"layout": "pan24"}),
    *(_detection(steb_name=f"machine_text_detection_PAN25_26_{d}",
                 description=f"PAN 2025/26 generative AI detection (task 1, {d}, validation set): "
                             "human vs. each generator",
                 label="generating model of the text (human for human texts)", license=_PAN,
                 citation="Bevendorff et al., 2025 (PAN)",
                 source=_web("pan25-26-generative-ai-detection-task1 (Zenodo 14962653), "
                             "https://pan.webis.de/clef25/pan25-web/generated-content-analysis.html",
                             "https://zenodo.org/records/14962653/files/"
                             "pan25-generative-ai-detection-task1-train.zip"),
                 reader=pan.read_pan_generated, tested_on="constructed",
                 reader_options={"layout": "task1", "genre": d})
      for d in ("essays", "fiction", "news")),
    _detection(steb_name="machine_text_detection_PAN25_collaborative",
               description="PAN 2025 human-AI collaborative text classification (dev set)",
               label="kind of human-AI collaboration behind the text", license=_PAN,
               citation="Bevendorff et al., 2025 (PAN)",
               source=_web("pan25-generative-ai-detection-task2 (Zenodo 14966981), "
                           "https://pan.webis.de/clef25/pan25-web/generated-content-analysis.html",
                           "https://zenodo.org/records/14966981/files/"
                           "pan25-generative-ai-detection-task2-train.zip"),
               reader=pan.read_pan_generated, tested_on="constructed",
               reader_options={"layout": "task2"}),
    _detection(steb_name="gede_essay_detection",
               description="GEDE: human vs. machine-generated student essays", label=_GEN_LABEL,
               license=_NO_LICENCE, citation="GEDE essay detection",
               source=_web("STEB release gede_essay_detection.tar.gz (Google Drive)",
                           gdrive_url("1c3x_CR44ZCUqHf1dHVPm7K04ZIbTSYoD")),
               reader=generated.read_gede, tested_on="constructed"),
]

# ----------------------------------------------------------------- authorship verification
_PAN_LANGS = {"english": "en", "dutch": "nl", "greek": "el", "spanish": "es",
              "french": "fr", "italian": "it", "polish": "pl"}
_PAN13 = "https://zenodo.org/records/3715999/files/pan13-authorship-verification-test-and-training.zip"
_PAN14 = "https://zenodo.org/records/3716033/files/pan14-authorship-verification-test-and-training.zip"
_PAN15 = "https://zenodo.org/records/3737563/files/pan15-authorship-verification-test-and-training.zip"
_AV_LABEL = "author; pairs are (known, unknown) documents, same=True if one author wrote both"
_SC_LABEL = ("author of a segment; pairs are consecutive segments of one document, "
             "same=True when there is no style (author) change between them")


_verification = partial(_steb, category="idiolect", application="authorship_verification",
                        tasks={"predefined_pairs": PRESET})
_PAN13_PREFIX = {"english": "EN", "greek": "GR", "spanish": "SP"}


def _pan_av_options(year: int, part: str) -> dict[str, Any]:
    """Where the reference reads a PAN13-15 test corpus inside the Zenodo zip."""
    if year == 13:
        return {"chain": ["pan13-authorship-verification-test-corpus2-2013-05-29"],
                "known": "all", "prefix": _PAN13_PREFIX[part]}
    if year == 14:
        corpus, rest = part.split("_", 1)
        return {"chain": [f"pan14-authorship-verification-test-{corpus}-2014-04-22",
                          f"pan14-author-verification-test-{corpus}-"
                          f"{rest.replace('_', '-')}-2014-04-22"], "known": "known01"}
    return {"chain": ["pan15-authorship-verification-test-dataset2-2015-04-19",
                      f"pan15-authorship-verification-test-dataset2-{part}-2015-04-19"],
            "known": "known01"}


def _pan_av_language(part: str) -> str:
    """The language code of a PAN13-15 corpus part (``english``, ``corpus1_dutch_essays``)."""
    genre = part.endswith(("essays", "novels", "reviews", "articles"))
    return _PAN_LANGS[part.split("_")[-2] if genre else part.split("_")[-1]]


_PAN_AV = (  # year, Zenodo file, citation, corpus parts
    (13, _PAN13, "Juola & Stamatatos, 2013 (PAN)", ("english", "greek", "spanish")),
    (14, _PAN14, "Stamatatos et al., 2014 (PAN)",
     tuple(f"{corpus}_{genre}" for corpus in ("corpus1", "corpus2")
           for genre in ("english_essays", "english_novels", "dutch_essays", "dutch_reviews",
                         "greek_articles", "spanish_articles"))),
    (15, _PAN15, "Stamatatos et al., 2015 (PAN)", ("english", "dutch", "greek", "spanish")),
)

_ZENODO = "https://zenodo.org/records/"
_PAN_SC = {  # year -> (Zenodo file, {level: folder of its validation set}, balance)
    22: ("6334245/files/pan22.zip", {"basic": "dataset1/validation",
                                      "advanced": "dataset2/validation",
                                      "sentence": "dataset3/validation"}, False),
    23: ("7729178/files/pan23-multi-author-analysis.zip",
         {level: f"pan23-multi-author-analysis-dataset{i}-validation"
          for i, level in enumerate(("easy", "medium", "hard"), start=1)}, False),
    24: ("10677876/files/pan24-multi-author-analysis.zip",
         {level: f"{level}/validation" for level in ("easy", "medium", "hard")}, False),
    25: ("14891299/files/pan25-multi-author-analysis.zip",
         {level: f"{level}/validation" for level in ("easy", "medium", "hard")}, False),
    26: ("19068843/files/mawsa26-pan-zenodo.zip",
         {level: f"{level}/validation" for level in ("easy", "medium", "hard")}, True),
}


_AV = [
    *(_verification(steb_name=f"pan{year}_authorship_verification_{part}_test",
                    description=f"PAN {year} authorship verification test set "
                                f"({part.replace('_', ' ')})", label=_AV_LABEL, license=_PAN,
                    citation=citation,
                    source=_web(f"PAN {year} authorship verification test corpus", url),
                    languages=(_pan_av_language(part),), reader=pan.read_pan_verification,
                    tested_on="constructed", reader_version=3,
                    reader_options=_pan_av_options(year, part))
      for year, url, citation, parts in _PAN_AV for part in parts),
    *(_verification(steb_name=f"pan{y}_authorship_verification_test",
                    description=f"PAN 20{y} cross-fandom authorship verification (fanfiction "
                                "pairs), 250 same + 250 different pairs", label=_AV_LABEL,
                    license=_PAN, citation=f"Kestemont et al., 20{y} (PAN)",
                    source=_web(f"pan{y}-authorship-verification-test (Zenodo 5106099), "
                                f"https://pan.webis.de/clef{y}/pan{y}-web/"
                                "author-identification.html",
                                f"{_ZENODO}5106099/files/"
                                f"pan{y}-authorship-verification-test.zip"),
                    reader=pan.read_pan_jsonl_pairs, tested_on="constructed",
                    reader_options={"name": f"pan{y}-authorship-verification-test",
                                    "per_class": 250, "subsample_seed": 42})
      for y in (20, 21)),
    _verification(steb_name="pan18_style_change",
                  description="PAN 2018 style change detection (validation set)", label=_SC_LABEL,
                  license=_PAN, citation="Kestemont et al., 2018 (PAN)",
                  source=_web("pan18-style-change (Zenodo 3746040), "
                              "https://pan.webis.de/clef18/pan18-web/style-change-detection.html",
                              f"{_ZENODO}3746040/files/pan18-style-change-"
                              "detection-validation-dataset-2018-01-31.zip"),
                  reader=pan.read_pan18_style_change, tested_on="constructed", reader_version=2,
                  reader_options={"folder": "pan18-style-change-detection-validation-"
                                  "dataset-2018-01-31"}),
    *(_verification(steb_name=f"pan{y}_style_change_{level}",
                    description=f"PAN 20{y} multi-author style change detection ({level}, "
                                "validation set)", label=_SC_LABEL, license=_PAN,
                    citation=f"Zangerle et al., 20{y} (PAN)",
                    source=_web(f"pan{y}-style-change/{level}, https://pan.webis.de/clef{y}/pan{y}-web/"
                                "style-change-detection.html", _ZENODO + _PAN_SC[y][0]),
                    reader=pan.read_pan_style_change, tested_on="constructed",
                    reader_options={"folder": _PAN_SC[y][1][level], "level": level,
                                    "balance": _PAN_SC[y][2]})
      for y, levels in ((22, ("basic", "sentence", "advanced")),
                        *((y, ("easy", "medium", "hard")) for y in (23, 24, 25, 26)))
      for level in levels),
    _verification(steb_name="enron_authorship_corpus",
                  description="Enron e-mails of 80 authors, verification pairs", label=_AV_LABEL,
                  license=_CC_BY,
                  citation="Enron Authorship Verification Corpus (Mendeley Data n77w7mygwg)",
                  source=_web("Enron (80 authors) from Mendeley Data n77w7mygwg",
                              "https://prod-dcd-datasets-public-files-eu-west-1.s3.eu-west-1.amazonaws.com/"
                              "f0527105-2774-423e-80ca-cc692b70b6cb"),
                  reader=pan.read_pan_verification, tested_on="constructed", reader_version=2,
                  reader_options={"chain": ["Enron (80 authors)"], "known": "all", "known_ext": "",
                                  "unknown": "first", "truth_encoding": "utf-8-sig"}),
]

# ------------------------------------------------------------------ authorship retrieval
_RET_LABEL = "author; each author's query texts must retrieve the same author's targets"
# AuthBench's sub-results, as the reference prepares them: queries of one length bucket
# against every target, and queries and targets of one primary genre (a same-topic pool).
_AUTHBENCH_SUBMETRICS = {
    **{f"length_{name}": Submetric(field="length_bucket", value=name, sides="query")
       for name, _ in hub_sets.AUTHBENCH_LENGTHS},
    "topic_pool_{value}": Submetric(field="primary_genre"),
}
_retrieval = partial(_steb, category="idiolect", application="authorship_retrieval",
                     tasks={"retrieval": PRESET})
_RET = [
    *(_retrieval(steb_name=f"pan18_cross_domain_authorship_attribution_{lang}",
                 description=f"PAN 2018 cross-domain authorship attribution ({lang} fanfiction) "
                             "as retrieval", label=_RET_LABEL, license=_PAN,
                 citation="Kestemont et al., 2018 (PAN)",
                 source=_web("pan18 cross-domain authorship attribution test set (Zenodo 3737849), "
                             "https://pan.webis.de/clef18/pan18-web/author-identification.html",
                             f"{_ZENODO}3737849/files/pan18-cross-domain-authorship-attribution-"
                             "dataset.zip"), languages=(_PAN_LANGS[lang],),
                 reader=pan.read_pan18_attribution, tested_on="constructed", reader_version=2,
                 reader_options={"chain": ["pan18-cross-domain-authorship-attribution-test-"
                                 "dataset2-2018-04-20"], "language": code})
      for lang, code in (("english", "en"), ("french", "fr"), ("italian", "it"),
                         ("polish", "pl"), ("spanish", "sp"))),
    _retrieval(steb_name="amazon", description="Amazon reviews by author, query/target split",
               label=_RET_LABEL, license=_AMAZON,
               citation="Ni et al., 2019; Rivera-Soto et al., 2021",
               source=_web("STEB amazon_retrieval.tar.gz (Google Drive), from the Amazon review "
                           "data", gdrive_url("1HFWoFk3V7vqM_DbZzd8ixecdbjHp29c4")),
               reader=trials.read_retrieval_jsonl, tested_on="constructed"),
    _retrieval(steb_name="fanfiction",
               description="Fanfiction stories by author, query/target split", label=_RET_LABEL,
               license=_NO_LICENCE, citation="Bischoff et al., 2020; Rivera-Soto et al., 2021",
               source=_web("STEB fanfiction_retrieval.tar.gz (Google Drive)",
                           gdrive_url("1imzUA2kg4782WnYWxlKICyk1MmPCCtsV")),
               reader=trials.read_retrieval_jsonl, tested_on="constructed"),
    _retrieval(steb_name="stackexchange_retrieval",
               description="Stack Exchange posts by author, query/target split", label=_RET_LABEL,
               license=_CC_BY_SA, citation="Rivera-Soto et al., 2021",
               source=_web("STEB stackexchange_retrieval.tar.gz (Google Drive)",
                           gdrive_url("1PVu0BI6rvo9MndcIdHOhRdqm4nfaqgSG")),
               reader=trials.read_retrieval_jsonl, tested_on="constructed"),
    *(_steb(steb_name=f"authbench_attribution_{lang}",
            description=f"AuthBench authorship attribution ({lang}) as retrieval",
            category="idiolect", application="authorship_attribution",
            tasks={"retrieval": TaskConfig(
                   episode_sizes=None, episodes_per_label=None,
                   submetrics=_AUTHBENCH_SUBMETRICS)}, label=_RET_LABEL, license=_NO_LICENCE,
            citation="AuthBench (multilingual authorship attribution)",
            source=_hub("MaoXun/AuthBench", "test", note="configs queries, candidates and "
                        "ground_truth of the test split, one language"), languages=(lang,),
            reader=hub_sets.read_authbench, tested_on="constructed",
            reader_options={"language": lang})
      for lang in ("ar", "de", "en", "es", "fr", "hi", "ja", "ko", "ru", "zh")),
]

# -------------------------------------------------------------------- speaker attribution
_SPEAKERS = [
    *(_verification(steb_name=f"fisher_speaker_attribution_{sys}_{level}",
                    description=f"Fisher telephone conversations, {sys.upper()} transcripts, "
                                f"{level} speaker-verification trials",
                    label="speaker; same=True when both transcripts are one speaker's",
                    license=_LDC, citation="Cieri et al., 2004 (Fisher English)",
                    source=Source(local="fisher_speaker_attribution",
                                  note=f"the STEB trial file {sys}_test_{level}_trials.npy, "
                                       "built from the Fisher English transcripts "
                                       "(LDC2004T19, LDC2005T19)"),
                    reader=trials.read_speaker_trials, tested_on="constructed", reader_version=3,
                    reader_options={"format": "npy", "file": f"{sys}_test_{level}_trials.npy"})
      for sys in ("bbn", "ldc") for level in ("base", "hard", "harder")),
    _verification(steb_name="radiotalk",
                  description="RadioTalk talk-radio transcripts, speaker verification pairs",
                  label="speaker; same=True when one speaker said both", license=_RADIOTALK,
                  citation="Beeferman et al., 2019 (RadioTalk)",
                  source=_web("STEB radiotalk.tar.gz (Google Drive), from the RadioTalk corpus",
                              gdrive_url("1NHgHZDlMB9Yh9SGQdSTjz_CNLZZqGCuW")),
                  reader=trials.read_speaker_trials, tested_on="constructed", reader_version=2,
                  reader_options={"file": "radiotalk_pairs.json"}),
]

# ------------------------------------------------------------------------- object of study
_OBJECT = [
    _steb(steb_name="core",
          description="CORE: web registers of English (narrative, opinion, how-to, ...)",
          category="genre", application="register_classification",
          tasks={"clustering": PRESET, "all_to_all_pairs": PRESET},
          label="register of the web page", license=_CC_BY_SA,
          citation="Egbert et al., 2015; Laippala et al., 2022",
          source=_web("TurkuNLP CORE corpus (train, dev and test .tsv.gz of its master branch)"
                      + _UNPINNED,
                      *(f"https://github.com/TurkuNLP/CORE-corpus/raw/master/{part}.tsv.gz"
                        for part in ("train", "dev", "test"))), reader=tables.read_core,
          tested_on="constructed"),
    _steb(steb_name="x_genre", description="X-GENRE English genre dataset (CORE and FTD parts)",
          category="genre", application="register_classification",
          tasks={"clustering": PRESET, "all_to_all_pairs": PRESET}, label="genre",
          license=_CC_BY_SA, citation="Kuzman et al., 2023 (X-GENRE)",
          source=_hub("TajaKuzmanPungersek/X-GENRE-text-genre-dataset", "train+test+dev",
                      note="every split (train, test, dev); GINCO rows are Slovenian and left "
                           "out"), reader=hub_sets.read_x_genre, tested_on="constructed",
          reader_options={"splits": ["train", "test", "dev"], "parts": ["CORE", "FTD"]}),
    _steb(steb_name="masc_text_genre",
          description="MASC 3.0.0 written and spoken genres, 150 passages each", category="genre",
          application="register_classification",
          tasks={"clustering": PRESET, "all_to_all_pairs": PRESET}, label="genre (MASC folder)",
          license=_MASC, citation="Ide et al., 2010 (MASC)",
          source=_web("MASC-3.0.0 from https://anc.org/data/masc/downloads/",
                      "https://www.anc.org/MASC/download/MASC-3.0.0.zip"),
          reader=text_files.read_masc, tested_on="constructed", reader_version=2),
    _steb(steb_name="the_pile", description="The Pile: 1,000 documents per source subset",
          category="genre", application="register_classification",
          tasks={"clustering": PRESET, "all_to_all_pairs": PRESET},
          label="Pile subset (e.g. ArXiv, Github, PubMed)", license=_PILE,
          citation="Gao et al., 2020 (The Pile)", source=_hub("ArmelR/the-pile-splitted", "train",
                      note="one Hub config per Pile subset, streamed"),
          reader=hub_sets.read_the_pile, tested_on="constructed",
          reader_options={"per_subset": 1000, "max_chars": 1_000_000, "skip": ["all"]}),
    _steb(steb_name="STEL_register", description="STEL formality and simplicity quadruples",
          category="register", application="style_transfer_evaluation",
          tasks={"order_alignment": PRESET}, label="style dimension (formality, simplicity)",
          license=_STEL, citation="Wegmann & Nguyen, 2021 (STEL)",
          source=_web("Data/STEL of https://github.com/nlpsoc/STEL", *stel.STEL_URLS),
          reader=partial(stel.read_stel, sampling="all"), tested_on="mirror",
          reader_options={"styles": ["formality", "simplicity"]}),
    _steb(steb_name="SynthSTEL_register",
          description="SynthSTEL register contrasts (formal, polite, sarcastic, ...)",
          category="register", application="style_transfer_evaluation",
          tasks={"order_alignment": PRESET},
          label="contrasted style feature (e.g. 'formal / informal')", license=_MIT,
          citation="Patel et al., 2025 (StyleDistance)",
          source=_hub("StyleDistance/synthstel", "train+test"), reader=synthstel.read_synthstel,
          tested_on="constructed", reader_options={"group": "register"}),
    _steb(steb_name="corpus-of-diverse-styles",
          description="Corpus of Diverse Styles: 11 styles from tweets to Shakespeare",
          category="register", application="style_transfer_evaluation",
          tasks={"clustering": TaskConfig(
                 episode_sizes=None, episodes_per_label=None,
                 submetrics={"tweets_vs_switchboard": Submetric(labels=("tweets", "switchboard"))}),
                 "all_to_all_pairs": PRESET, "order_alignment": PRESET},
          label="style (source corpus)", license=_NO_LICENCE,
          citation="Krishna et al., 2020 (STRAP)",
          source=_hub("billray110/corpus-of-diverse-styles", "train",
                      note="each row: a styled text (position 0) and its neutral paraphrase"),
          reader=hub_sets.read_cds, tested_on="constructed"),
    _steb(steb_name="graded_formality",
          description="Sentences rewritten at graded formality levels", category="register",
          application="style_transfer_evaluation", tasks={"order_alignment": PRESET},
          label="formality", license=_NO_LICENCE,
          citation="STEB graded formality (GPT-5-mini generated)",
          source=_web("STEB graded_formality_generated_gpt-5-mini.zip (Google Drive)",
                      gdrive_url("1TKtgg-6j2Yd-GTfiq0nnHRPcZC-VpGnu")),
          reader=tables.read_graded_formality, tested_on="constructed", reader_version=3,
          reader_options={"folder": "graded_formality_generated_gpt-5-mini"}),
    _steb(steb_name="OneStopEnglishCorpus",
          description="OneStopEnglish articles at three reading levels", category="register",
          application="style_transfer_evaluation", tasks={"order_alignment": PRESET},
          label="reading level (elementary to advanced)", license=_CC_BY_SA,
          citation="Vajjala & Lučić, 2018 (OneStopEnglish)",
          source=_web("Texts-SeparatedByReadingLevel from "
                      "https://github.com/nishkalavallabhi/OneStopEnglishCorpus",
                      *parallel.ONESTOP_URLS), reader=parallel.read_onestop, tested_on="mirror"),
    *(_steb(steb_name=f"{site}_politeness",
            description=f"Stanford politeness corpus ({site.title()} requests)",
            category="register", application="register_classification",
            tasks={"clustering": PRESET, "all_to_all_pairs": PRESET},
            label="politeness (polite, neutral, impolite)", license=_CC_BY,
            citation="Danescu-Niculescu-Mizil et al., 2013",
            source=_web(f"corpora/{csv}.annotated.csv of https://github.com/sudhof/politeness, "
                        f"the requests behind ConvoKit's {slug} (https://zissou.infosci.cornell."
                        f"edu/convokit/datasets/{slug}/{slug}.zip, which the reference reads)",
                        politeness.POLITENESS_URLS[csv]),
            reader=partial(politeness.read_politeness, sampling="all"), tested_on="mirror")
      for site, slug, csv in (("wikipedia", "wikipedia-politeness-corpus", "wikipedia"),
                              ("stackexchange", "stack-exchange-politeness-corpus",
                               "stack-exchange"))),
    _steb(steb_name="ASSET", description="ASSET: Wikipedia sentences and their simplifications",
          category="register", application="style_transfer_evaluation",
          tasks={"order_alignment": PRESET}, label="complexity (0 = original, 1 = simplified)",
          license=_CC_BY_NC, citation="Alva-Manchego et al., 2020 (ASSET)",
          source=_web("dataset/asset.{valid,test}.* of https://github.com/facebookresearch/"
                      "asset, the files of the Hub's facebook/asset (config simplification, "
                      "split validation+test) that the reference loads", *parallel.ASSET_URLS),
          reader=partial(parallel.read_asset, sampling="all"), tested_on="mirror"),
    _steb(steb_name="STEL_feature",
          description="STEL characteristic quadruples (contraction, emotives, leetspeak, pronouns)",
          category="linguistic_features", application="style_transfer_evaluation",
          tasks={"order_alignment": PRESET}, label="style characteristic", license=_MIT,
          citation="Wegmann & Nguyen, 2021 (STEL)",
          source=_web("Data/STEL of https://github.com/nlpsoc/STEL", *stel.STEL_URLS),
          reader=partial(stel.read_stel, sampling="all"), tested_on="mirror",
          reader_options={"styles": ["contraction", "emotives", "nbr_substitution"]}),
    _steb(steb_name="SynthSTEL_feature",
          description="SynthSTEL linguistic-feature contrasts (contractions, emojis, ...)",
          category="linguistic_features", application="style_transfer_evaluation",
          tasks={"order_alignment": PRESET}, label="contrasted linguistic feature", license=_MIT,
          citation="Patel et al., 2025 (StyleDistance)",
          source=_hub("StyleDistance/synthstel", "train+test"), reader=synthstel.read_synthstel,
          tested_on="constructed", reader_options={"group": "feature"}),
    _steb(steb_name="parallel_shakespeare",
          description="Shakespeare lines and their modern paraphrases", category="time",
          application="style_transfer_evaluation", tasks={"order_alignment": PRESET},
          label="Early Modern vs. modern English", license=_SHAKESPEARE, citation="Xu et al., 2012",
          source=_web("data/align/plays/merged of https://github.com/cocoxu/Shakespeare",
                      *parallel.SHAKESPEARE_URLS),
          reader=partial(parallel.read_shakespeare, sampling="all"), tested_on="mirror"),
    _steb(steb_name="StylePTB",
          description="StylePTB single-transform sentence pairs (15 subtypes)",
          category="linguistic_features", application="style_transfer_evaluation",
          tasks={"order_alignment": PRESET}, label="syntactic/lexical transform", license=_PTB,
          citation="Lyu et al., 2021 (StylePTB)",
          source=_web("fulldata.h16 of https://github.com/lvyiwei1/StylePTB (the file all "
                      "single-transform splits are cut from)" + _UNPINNED,
                      "https://github.com/lvyiwei1/StylePTB/raw/master/fulldata.h16"),
          reader=text_files.read_styleptb, tested_on="constructed"),
    _steb(steb_name="bible_versions", description="Eight English Bible translations, verse-aligned",
          category="time", application="register_classification",
          tasks={"clustering": PRESET, "all_to_all_pairs": PRESET},
          label="Bible version (ASV, BBE, DARBY, DRA, KJV, LEB, WEB, YLT)", license=_BIBLE,
          citation="Carlson et al., 2018",
          source=_web("Data/Bibles from https://github.com/keithecarlson/StyleTransferBibleData",
                      *bible.bible_urls()), reader=partial(bible.read_bible, sampling="all"),
          tested_on="mirror"),
    _steb(steb_name="ceeces", description="Early English correspondence (CEECES 1 and 2) by period",
          category="time", application="register_classification",
          tasks={"clustering": PRESET, "all_to_all_pairs": PRESET},
          label="period of the letter (20-year span)", license=_CC_BY,
          citation="CEEC-400 sampler, University of Helsinki",
          source=_web("CEECES1/CEECES2 TEI releases on Zenodo (records 6411789, 5887101)",
                      *(f"{_ZENODO}{rec}/files/{leaf}" for rec, n in (("6411789", 1),
                                                                     ("5887101", 2))
                        for leaf in (f"CEECES{n}-metadata.txt", f"CEECES-{n}.zip"))),
          reader=xml_corpora.read_ceeces, tested_on="constructed",
          reader_options={"parts": [{"metadata": f"{_ZENODO}{rec}/files/CEECES{n}-metadata.txt",
                           "archive": f"{_ZENODO}{rec}/files/CEECES-{n}.zip",
                           "folder": f"CEECES {n} - XML files by collection"}
                          for rec, n in (("6411789", 1), ("5887101", 2))]}),
    *(_steb(steb_name=f"blog_{attr}", description=f"Blog Authorship Corpus posts by author {attr}",
            category="demographics", application="authorship_attribution",
            tasks={"clustering": PRESET, "all_to_all_pairs": PRESET}, label=lab, license=_BLOG,
            citation="Schler et al., 2006",
            source=_hub("barilan/blog_authorship_corpus", "train+validation"), reader=read_hub,
            reader_options={"label": attr, "label_map": mapping, "remote_code": True,
                            "max_per_label": None, "blank_texts": "drop_empty"},
            tested_on="constructed", reader_version=3)
      for attr, lab, mapping in (
          ("age", "age group (10s: 13-17, 20s: 23-27, 30s: 33-47)",
           {**{a: "10s" for a in range(13, 18)}, **{a: "20s" for a in range(23, 28)},
            **{a: "30s" for a in range(33, 48)}}),
          ("gender", "gender (male, female)", {"male": "male", "female": "female"}))),
    _steb(steb_name="fce_l1", description="FCE learner essays by first language",
          category="demographics", application="authorship_attribution",
          tasks={"clustering": TaskConfig(episode_sizes=None, episodes_per_label=100),
                 "all_to_all_pairs": TaskConfig(episode_sizes=None, episodes_per_label=100)},
          label="writer's first language", license=_FCE, citation="Yannakoudakis et al., 2011",
          source=_web("fce-released-dataset from https://ilexir.co.uk/datasets/index.html",
                      "https://s3-eu-west-1.amazonaws.com/ilexir-website-media/"
                      "fce-released-dataset.zip"), reader=xml_corpora.read_fce,
          tested_on="constructed"),
    *(_steb(steb_name=f"pastel_{attr}",
            description=f"PASTEL persona-written stories by annotator {attr}",
            category="demographics", application="authorship_attribution",
            tasks={"clustering": PRESET, "all_to_all_pairs": PRESET}, label=f"annotator {attr}",
            license=_NO_LICENCE, citation="Kang & Hovy, 2019 (PASTEL)",
            source=_web("the stories/ folder (train, dev, test) of the data archive of "
                        "https://github.com/dykang/PASTEL" + _UNPINNED,
                        "https://github.com/dykang/PASTEL/raw/master/data/data_v2.zip"),
            reader=text_files.read_pastel, tested_on="constructed",
            reader_options={"attribute": attr})
      for attr in ("age", "education", "gender", "ethnic", "politics")),
    _steb(steb_name="endive",
          description="EnDive: SAE sentences of 11 NLU tasks and their translations into five "
                      "English dialects", category="dialect", application="register_classification",
          tasks={"clustering": PRESET, "all_to_all_pairs": PRESET},
          label="dialect (sae, aave, chce, collsge, inde, jame)", license=_NO_LICENCE,
          citation="Gupta et al., 2025 (EnDive)",
          source=_hub("abhaygupta1266/logic_bench_yn", "AAVE",
                      note="one Hub dataset per NLU task (abhaygupta1266/<task>), one split per "
                           "dialect, rows aligned on the SAE source"), reader=hub_sets.read_endive,
          tested_on="constructed",
          reader_options={"tasks": list(hub_sets.ENDIVE_TASKS), "subsample_seed": 42}),
    _steb(steb_name="twitter_aave_sae", description="Parallel AAVE tweets and SAE rewrites",
          category="dialect", application="style_transfer_evaluation",
          tasks={"order_alignment": PRESET}, label="AAVE (position 0) vs. SAE", license=_TWITTER,
          citation="Groenwold et al., 2020",
          source=_web("EMNLP-AAVE-files/aave_samples.txt and sae_samples.txt of the paper's "
                      "supplementary material (ACL Anthology)",
                      "https://aclanthology.org/attachments/"
                      "2020.emnlp-main.473.OptionalSupplementaryMaterial.zip"),
          reader=text_files.read_aave_sae, tested_on="constructed"),
    _steb(steb_name="eWAVE", description="eWAVE example sentences from varieties of English",
          category="dialect", application="register_classification",
          tasks={"clustering": PRESET, "all_to_all_pairs": PRESET}, label="variety of English",
          license=_CC_BY, citation="Kortmann et al., 2020 (eWAVE)",
          source=_web("cldf/examples.csv and cldf/languages.csv from "
                      "https://github.com/cldf-datasets/ewave",
                      *(f"https://raw.githubusercontent.com/cldf-datasets/ewave/"
                        f"88b37ad853736a7debe64aabf281db1eacee5023/cldf/{leaf}.csv"
                        for leaf in ("examples", "languages"))), reader=tables.read_ewave,
          tested_on="constructed"),
]

# ---------------------------------------------------------------------------- probing
_PROBING_FILES = {"amazon": "1zIRqhSMEdQZ4EZq3-jCLpccuTvXsmCyx",
                  "blog": "1JU9F5SbPV8PaefcBwpy7wUCWrzNXsydO",
                  "reddit": "1pU-Yo--OMtgG8qafk-7DBd_4WhYH_urc",
                  "stackexchange": "1Ke_Re3kwfOmr2ljApcS8GP2CdsiNPHz7"}
_PROBING = [
    _steb(steb_name=f"probing_{domain}",
          description=f"Linguistic-feature probing on {domain} texts",
          category="linguistic_features", application="linguistic_probing",
          tasks={"probing": PRESET},
          label="binned value of a linguistic feature (one probe per feature: column 'feature'; "
                "split given per text and feature)", license=_NO_LICENCE,
          citation="STEB probing sets",
          source=_web(f"STEB probing/{domain}.jsonl release (Google Drive)",
                      gdrive_url(file_id)), reader=probing_jsonl.read_probing_jsonl,
          tested_on="constructed")
    for domain, file_id in _PROBING_FILES.items()
]

# -------------------------------------------------------------------- semantic control
_semantic = partial(_steb, category="semantic_control", application="semantic_control",
                    tasks={"clustering": PRESET, "all_to_all_pairs": PRESET}, reader=read_hub,
                    tested_on="constructed", reader_version=2)
_SEMANTIC = [
    _semantic(steb_name="20_Newsgroups_Fixed", description="20 Newsgroups posts (cleaned)",
              label="newsgroup (topic)", license=_NO_LICENCE, citation="Lang, 1995",
              source=_hub("rungalileo/20_Newsgroups_Fixed", "test"),
              reader_options={"max_per_label": None}),
    _semantic(steb_name="ag_news", description="AG news articles", label="news topic",
              license=_AG_NEWS, citation="Zhang et al., 2015", source=_hub("ag_news", "test"),
              reader_options={"max_per_label": None}),
    _semantic(steb_name="reuters21578", description="Reuters-21578 newswire (ModLewis split)",
              label="first topic", license=_REUTERS, citation="Lewis, 1997",
              source=_hub("reuters21578", "test", name="ModLewis"),
              reader_options={"label": "topics", "remote_code": True, "max_per_label": None}),
    _semantic(steb_name="emotion", description="English tweets labelled with emotions",
              label="emotion", license=_EMOTION, citation="Saravia et al., 2018",
              source=_hub("emotion", "test"), reader_options={"max_per_label": None}),
    _semantic(steb_name="financial_phrasebank", description="Financial news sentences",
              label="sentiment", license=_CC_BY_NC_SA_3, citation="Malo et al., 2014",
              source=_hub("FinanceMTEB/financial_phrasebank", "test"),
              reader_options={"max_per_label": None}),
    _semantic(steb_name="twitter-airline-sentiment", description="Tweets about US airlines",
              label="sentiment", license=_CC_BY_NC_SA, citation="Crowdflower, 2015",
              source=_hub("osanseviero/twitter-airline-sentiment", "train"),
              reader_options={"label": "airline_sentiment", "max_per_label": None}),
    _semantic(steb_name="yelp_polarity", description="Yelp reviews", label="polarity",
              license=_YELP, citation="Zhang et al., 2015", source=_hub("yelp_polarity", "test"),
              reader_options={"max_per_label": None}),
]

SPECS: list[DatasetSpec] = [*_MTD, *_AV, *_RET, *_SPEAKERS, *_OBJECT, *_PROBING, *_SEMANTIC]
"""All catalogue entries, suite ``"steb"``."""
