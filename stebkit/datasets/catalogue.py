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

from collections.abc import Callable, Iterable, Mapping
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
_NONE = License("no licence stated", research_only=True)
_LIC = {
    "pan": _PAN,
    "none": _NONE,
    "ldc": License("LDC User Agreement (Fisher English Training Transcripts)",
                   research_only=True, needs_agreement="LDC licence (LDC2004T19, LDC2005T19)",
                   url="https://catalog.ldc.upenn.edu/LDC2004T19"),
    "radiotalk": License("RadioTalk corpus terms (research use); the STEB release is a "
                         "plain Google Drive download", research_only=True,
                         url="https://github.com/social-machines/RadioTalk"),
    "mit": License("MIT"),
    "apache": License("Apache-2.0"),
    "cc-by": License("CC-BY-4.0"),
    "cc-by-sa": License("CC-BY-SA-4.0"),
    "cc-by-nc": License("CC-BY-NC-4.0", non_commercial=True),
    "cc-by-nc-sa3": License("CC-BY-NC-SA-3.0", non_commercial=True),
    "cc-by-nc-sa": License("CC-BY-NC-SA-4.0", non_commercial=True),
    "pd": License("public domain"),
    "bible": License("public domain, except LEB (Lexham English Bible: Lexham Press licence, "
                     "free use with attribution)"),
    "masc": License("MASC open data (CC-BY-3.0 or public domain per text)"),
    "stel": License("MIT; the formality items are a public 100-item sample derived from "
                    "GYAFC (Yahoo Answers L6 terms)", research_only=True),
    "shakespeare": License("no licence; modern side scraped from study guides",
                           research_only=True),
    "ptb": License("StylePTB release; sentences from the Penn Treebank (LDC99T42)",
                   research_only=True),
    "pile": License("MIT (compilation); component licences vary", research_only=True),
    "blog": License("Blog Authorship Corpus: non-commercial research use",
                    non_commercial=True, research_only=True),
    "fce": License("FCE release: non-commercial research and education",
                   non_commercial=True, research_only=True),
    "twitter": License("no licence; tweets under the platform's terms", research_only=True),
    "amazon": License("Amazon review data: academic research use", non_commercial=True,
                      research_only=True),
    "agnews": License("AG's corpus: non-commercial research use", non_commercial=True,
                      research_only=True),
    "reuters": License("Reuters-21578: free for research use", research_only=True),
    "emotion": License("educational and research use only", research_only=True),
    "yelp": License("Yelp Dataset terms (non-commercial, academic)", non_commercial=True,
                    research_only=True),
}

# ----------------------------------------------------------------------------- helpers
_TASK_CODES = {"C": "clustering", "A": "all_to_all_pairs", "P": "predefined_pairs",
               "R": "retrieval", "O": "order_alignment", "B": "probing"}
_CAT_APP = {  # category code -> (definitional category, application)
    "mtd": ("idiolect", "ai_text_detection"),
    "av": ("idiolect", "authorship_verification"),
    "ret": ("idiolect", "authorship_retrieval"),
    "attr": ("idiolect", "authorship_attribution"),
    "genre": ("genre", "register_classification"),
    "register": ("register", "register_classification"),
    "register-oa": ("register", "style_transfer_evaluation"),
    "feature-oa": ("linguistic_features", "style_transfer_evaluation"),
    "time": ("time", "register_classification"),
    "time-oa": ("time", "style_transfer_evaluation"),
    "demo": ("demographics", "authorship_attribution"),
    "dialect": ("dialect", "register_classification"),
    "dialect-oa": ("dialect", "style_transfer_evaluation"),
    "probe": ("linguistic_features", "linguistic_probing"),
    "semantic": ("semantic_control", "semantic_control"),
}


def catalogue_name(steb_name: str) -> str:
    """The stebkit name of a reference dataset folder.

    >>> catalogue_name("corpus-of-diverse-styles")
    'corpus_of_diverse_styles'
    """
    return steb_name.lower().replace("-", "_")


def _hub(path: str, split: str, name: str | None = None, note: str = "") -> Source:
    return Source(hf_path=path, hf_name=name, hf_split=split, note=note)


def _web(note: str, *urls: str) -> Source:
    return Source(urls=tuple((u, None) for u in urls), note=note)


def _spec(steb: str, desc: str, *, kind: str, tasks: str, label: str, lic: str, cite: str,
          src: Source, langs: Iterable[str] = ("en",), options: Mapping[str, Any] | None = None,
          episodes: Mapping[str, int] | None = None, reader: Callable[..., Any] | None = None,
          tested_on: str | None = None, version: int = 1,
          submetrics: Mapping[str, Mapping[str, Submetric]] | None = None) -> DatasetSpec:
    """One catalogue row -> a DatasetSpec (the family presets, optional overrides).

    ``reader`` defaults to :func:`read_hub` for Hub sources with ``options``; a spec with
    a reader and source URLs (or a local folder key) is ``offline``: it loads without
    network once its files are cached or mirrored, or its local folder is set.
    ``tested_on`` says how the reader is tested (:data:`stebkit.datasets.spec.TESTED_ON`).
    ``submetrics`` maps a task to the sub-results the reference's config declares for it.
    """
    category, application = _CAT_APP[kind]
    task_cfgs = {}
    for code in tasks:
        task = _TASK_CODES[code]
        # None: the family's preset (stebkit.tasks.TaskFamily.config resolves it)
        task_cfgs[task] = TaskConfig(None, (episodes or {}).get(task),
                                     (submetrics or {}).get(task, {}))
    if reader is None and src.is_hub and options is not None:
        reader = read_hub
    return DatasetSpec(name=catalogue_name(steb), description=desc, languages=tuple(langs),
                       source=src, license=_LIC[lic], label=label, tasks=task_cfgs,
                       category=category, application=application, citation=cite,
                       reader=reader, reader_version=version,
                       reader_options=dict(options or {}),
                       offline=reader is not None and not src.is_hub
                       and (bool(src.urls) or src.local is not None),
                       suites=("steb",), steb_name=steb, tested_on=tested_on)


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

_MTD = [
    *(_spec(f"machine_text_detection_DetectRL_{d}", f"DetectRL {d.replace('_', ' ')}: human "
            "vs. LLM-written texts", kind="mtd", tasks="C", label=_GEN_LABEL, lic="none",
            cite="Wu et al., 2024 (DetectRL, NeurIPS D&B)", src=_detectrl(d),
            reader=generated.read_detectrl, tested_on="mirror",
            options={"labels": "generator"})
      for d in ("arxiv", "direct_prompt", "writing_prompt", "xsum", "yelp_review")),
    *(_spec(f"machine_text_detection_DetectRL_{d}_attacks", f"DetectRL {d} attacks: human "
            "vs. attacked machine text", kind="mtd", tasks="C",
            label="human or machine (binary), machine text altered by the attack",
            lic="none", cite="Wu et al., 2024 (DetectRL, NeurIPS D&B)", src=_detectrl(d),
            reader=generated.read_detectrl, tested_on="mirror", options={"labels": "binary"})
      for d in ("paraphrase", "perturbation", "prompt")),
    *(_spec(f"machine_text_detection_M4_{d}", f"M4 {d}: human vs. machine text from "
            "several generators", kind="mtd", tasks="C", label=_GEN_LABEL, lic="none",
            cite="Wang et al., 2024 (M4, EACL)", src=_M4, reader=generated.read_m4,
            tested_on="constructed",
            options={"domain": d})
      for d in ("arxiv", "peerread", "reddit", "wikihow", "wikipedia")),
    *(_spec(f"machine_text_detection_MAGE_{d}", f"MAGE {d}: human vs. machine text",
            kind="mtd", tasks="C", label=_GEN_LABEL, lic="apache",
            cite="Li et al., 2024 (MAGE, ACL)", src=_MAGE, reader=hub_sets.read_mage,
            tested_on="constructed", options={"domain": d})
      for d in ("cmv", "eli5", "hswag", "roct", "sci_gen", "squad", "tldr", "wp", "xsum",
                "yelp")),
    _spec("machine_text_detection_PAN24_news", "PAN 2024 Voight-Kampff generative "
          "authorship: human vs. machine news", kind="mtd", tasks="C", label=_GEN_LABEL,
          lic="pan", cite="Bevendorff et al., 2024 (PAN)",
          src=_web("pan24-generative-authorship-news (Zenodo 10718757), https://pan.webis.de/"
                   "clef24/pan24-web/generated-content-analysis.html",
                   "https://zenodo.org/records/10718757/files/"
                   "pan24-generative-authorship-news.zip"),
          reader=pan.read_pan_generated, tested_on="constructed", options={"layout": "pan24"}),
    *(_spec(f"machine_text_detection_PAN25_26_{d}", f"PAN 2025/26 generative AI detection "
            f"(task 1, {d}, validation set): human vs. each generator", kind="mtd", tasks="C",
            label="generating model of the text (human for human texts)", lic="pan",
            cite="Bevendorff et al., 2025 (PAN)",
            src=_web("pan25-26-generative-ai-detection-task1 (Zenodo 14962653), "
                     "https://pan.webis.de/clef25/pan25-web/generated-content-analysis.html",
                     "https://zenodo.org/records/14962653/files/"
                     "pan25-generative-ai-detection-task1-train.zip"),
            reader=pan.read_pan_generated, tested_on="constructed",
            options={"layout": "task1", "genre": d})
      for d in ("essays", "fiction", "news")),
    _spec("machine_text_detection_PAN25_collaborative", "PAN 2025 human-AI collaborative "
          "text classification (dev set)", kind="mtd", tasks="C",
          label="kind of human-AI collaboration behind the text", lic="pan",
          cite="Bevendorff et al., 2025 (PAN)",
          src=_web("pan25-generative-ai-detection-task2 (Zenodo 14966981), "
                   "https://pan.webis.de/clef25/pan25-web/generated-content-analysis.html",
                   "https://zenodo.org/records/14966981/files/"
                   "pan25-generative-ai-detection-task2-train.zip"),
          reader=pan.read_pan_generated, tested_on="constructed", options={"layout": "task2"}),
    _spec("gede_essay_detection", "GEDE: human vs. machine-generated student essays",
          kind="mtd", tasks="C", label=_GEN_LABEL, lic="none", cite="GEDE essay detection",
          src=_web("STEB release gede_essay_detection.tar.gz (Google Drive)",
                   gdrive_url("1c3x_CR44ZCUqHf1dHVPm7K04ZIbTSYoD")),
          reader=generated.read_gede, tested_on="constructed", options={}),
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


def _pan_av(year: int, part: str, url: str, cite: str) -> DatasetSpec:
    lang = part.split("_")[-2] if part.endswith(("essays", "novels", "reviews", "articles")) \
        else part.split("_")[-1]
    return _spec(f"pan{year}_authorship_verification_{part}_test",
                 f"PAN {year} authorship verification test set ({part.replace('_', ' ')})",
                 kind="av", tasks="P", label=_AV_LABEL, lic="pan", cite=cite,
                 src=_web(f"PAN {year} authorship verification test corpus", url),
                 langs=(_PAN_LANGS[lang],), reader=pan.read_pan_verification,
                 tested_on="constructed", version=2,
                 options=_pan_av_options(year, part))


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
    *(_pan_av(13, lang, _PAN13, "Juola & Stamatatos, 2013 (PAN)")
      for lang in ("english", "greek", "spanish")),
    *(_pan_av(14, f"{corpus}_{genre}", _PAN14, "Stamatatos et al., 2014 (PAN)")
      for corpus in ("corpus1", "corpus2")
      for genre in ("english_essays", "english_novels", "dutch_essays", "dutch_reviews",
                    "greek_articles", "spanish_articles")),
    *(_pan_av(15, lang, _PAN15, "Stamatatos et al., 2015 (PAN)")
      for lang in ("english", "dutch", "greek", "spanish")),
    *(_spec(f"pan{y}_authorship_verification_test", f"PAN 20{y} cross-fandom authorship "
            "verification (fanfiction pairs), 250 same + 250 different pairs", kind="av",
            tasks="P", label=_AV_LABEL, lic="pan", cite=f"Kestemont et al., 20{y} (PAN)",
            src=_web(f"pan{y}-authorship-verification-test (Zenodo 5106099), "
                     f"https://pan.webis.de/clef{y}/pan{y}-web/author-identification.html",
                     f"{_ZENODO}5106099/files/pan{y}-authorship-verification-test.zip"),
            reader=pan.read_pan_jsonl_pairs, tested_on="constructed",
            options={"name": f"pan{y}-authorship-verification-test", "per_class": 250,
                     "subsample_seed": 42})
      for y in (20, 21)),
    _spec("pan18_style_change", "PAN 2018 style change detection (validation set)",
          kind="av", tasks="P", label=_SC_LABEL, lic="pan", cite="Kestemont et al., 2018 (PAN)",
          src=_web("pan18-style-change (Zenodo 3746040), https://pan.webis.de/clef18/pan18-web/"
                   "style-change-detection.html", f"{_ZENODO}3746040/files/pan18-style-change-"
                   "detection-validation-dataset-2018-01-31.zip"),
          reader=pan.read_pan18_style_change, tested_on="constructed",
          options={"folder": "pan18-style-change-detection-validation-dataset-2018-01-31"}),
    *(_spec(f"pan{y}_style_change_{level}", f"PAN 20{y} multi-author style change "
            f"detection ({level}, validation set)", kind="av", tasks="P", label=_SC_LABEL,
            lic="pan", cite=f"Zangerle et al., 20{y} (PAN)",
            src=_web(f"pan{y}-style-change/{level}, https://pan.webis.de/clef{y}/pan{y}-web/"
                     "style-change-detection.html", _ZENODO + _PAN_SC[y][0]),
            reader=pan.read_pan_style_change, tested_on="constructed",
            options={"folder": _PAN_SC[y][1][level], "level": level,
                     "balance": _PAN_SC[y][2]})
      for y, levels in ((22, ("basic", "sentence", "advanced")),
                        *((y, ("easy", "medium", "hard")) for y in (23, 24, 25, 26)))
      for level in levels),
    _spec("enron_authorship_corpus", "Enron e-mails of 80 authors, verification pairs",
          kind="av", tasks="P", label=_AV_LABEL, lic="cc-by",
          cite="Enron Authorship Verification Corpus (Mendeley Data n77w7mygwg)",
          src=_web("Enron (80 authors) from Mendeley Data n77w7mygwg",
                   "https://prod-dcd-datasets-public-files-eu-west-1.s3.eu-west-1.amazonaws.com/"
                   "f0527105-2774-423e-80ca-cc692b70b6cb"),
          reader=pan.read_pan_verification, tested_on="constructed",
          options={"chain": ["Enron (80 authors)"], "known": "all", "known_ext": "",
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
_RET = [
    *(_spec(f"pan18_cross_domain_authorship_attribution_{lang}", f"PAN 2018 cross-domain "
            f"authorship attribution ({lang} fanfiction) as retrieval", kind="ret",
            tasks="R", label=_RET_LABEL, lic="pan", cite="Kestemont et al., 2018 (PAN)",
            src=_web("pan18 cross-domain authorship attribution test set (Zenodo 3737849), "
                     "https://pan.webis.de/clef18/pan18-web/author-identification.html",
                     f"{_ZENODO}3737849/files/pan18-cross-domain-authorship-attribution-"
                     "dataset.zip"),
            langs=(_PAN_LANGS[lang],), reader=pan.read_pan18_attribution, tested_on="constructed",
            options={"chain": ["pan18-cross-domain-authorship-attribution-test-dataset2-"
                               "2018-04-20"], "language": code})
      for lang, code in (("english", "en"), ("french", "fr"), ("italian", "it"),
                         ("polish", "pl"), ("spanish", "sp"))),
    _spec("amazon", "Amazon reviews by author, query/target split", kind="ret", tasks="R",
          label=_RET_LABEL, lic="amazon", cite="Ni et al., 2019; Rivera-Soto et al., 2021",
          src=_web("STEB amazon_retrieval.tar.gz (Google Drive), from the Amazon review "
                   "data", gdrive_url("1HFWoFk3V7vqM_DbZzd8ixecdbjHp29c4")),
          reader=trials.read_retrieval_jsonl, tested_on="constructed", options={}),
    _spec("fanfiction", "Fanfiction stories by author, query/target split", kind="ret",
          tasks="R", label=_RET_LABEL, lic="none",
          cite="Bischoff et al., 2020; Rivera-Soto et al., 2021",
          src=_web("STEB fanfiction_retrieval.tar.gz (Google Drive)",
                   gdrive_url("1imzUA2kg4782WnYWxlKICyk1MmPCCtsV")),
          reader=trials.read_retrieval_jsonl, tested_on="constructed", options={}),
    _spec("stackexchange_retrieval", "Stack Exchange posts by author, query/target split",
          kind="ret", tasks="R", label=_RET_LABEL, lic="cc-by-sa",
          cite="Rivera-Soto et al., 2021",
          src=_web("STEB stackexchange_retrieval.tar.gz (Google Drive)",
                   gdrive_url("1PVu0BI6rvo9MndcIdHOhRdqm4nfaqgSG")),
          reader=trials.read_retrieval_jsonl, tested_on="constructed", options={}),
    *(_spec(f"authbench_attribution_{lang}", f"AuthBench authorship attribution ({lang}) as "
            "retrieval", kind="attr", tasks="R", label=_RET_LABEL, lic="none",
            cite="AuthBench (multilingual authorship attribution)",
            src=_hub("MaoXun/AuthBench", "test", note="configs queries, candidates and "
                     "ground_truth of the test split, one language"),
            langs=(lang,), reader=hub_sets.read_authbench, tested_on="constructed",
            options={"language": lang}, submetrics={"retrieval": _AUTHBENCH_SUBMETRICS})
      for lang in ("ar", "de", "en", "es", "fr", "hi", "ja", "ko", "ru", "zh")),
]

# -------------------------------------------------------------------- speaker attribution
_SPEAKERS = [
    *(_spec(f"fisher_speaker_attribution_{sys}_{level}", f"Fisher telephone conversations, "
            f"{sys.upper()} transcripts, {level} speaker-verification trials", kind="av",
            tasks="P", label="speaker; same=True when both transcripts are one speaker's",
            lic="ldc", cite="Cieri et al., 2004 (Fisher English)",
            src=Source(local="fisher_speaker_attribution",
                       note=f"the STEB trial file {sys}_test_{level}_trials.npy, built from the "
                            "Fisher English transcripts (LDC2004T19, LDC2005T19)"),
            reader=trials.read_speaker_trials, tested_on="constructed", version=2,
            options={"format": "npy", "file": f"{sys}_test_{level}_trials.npy"})
      for sys in ("bbn", "ldc") for level in ("base", "hard", "harder")),
    _spec("radiotalk", "RadioTalk talk-radio transcripts, speaker verification pairs",
          kind="av", tasks="P", label="speaker; same=True when one speaker said both",
          lic="radiotalk", cite="Beeferman et al., 2019 (RadioTalk)",
          src=_web("STEB radiotalk.tar.gz (Google Drive), from the RadioTalk corpus",
                   gdrive_url("1NHgHZDlMB9Yh9SGQdSTjz_CNLZZqGCuW")),
          reader=trials.read_speaker_trials, tested_on="constructed", version=2,
          options={"file": "radiotalk_pairs.json"}),
]

# ------------------------------------------------------------------------- object of study
_OBJECT = [
    _spec("core", "CORE: web registers of English (narrative, opinion, how-to, ...)",
          kind="genre", tasks="CA", label="register of the web page", lic="cc-by-sa",
          cite="Egbert et al., 2015; Laippala et al., 2022",
          src=_web("TurkuNLP CORE corpus (train, dev and test .tsv.gz of its master branch)"
                   + _UNPINNED,
                   *(f"https://github.com/TurkuNLP/CORE-corpus/raw/master/{part}.tsv.gz"
                     for part in ("train", "dev", "test"))),
          reader=tables.read_core, tested_on="constructed", options={}),
    _spec("x_genre", "X-GENRE English genre dataset (CORE and FTD parts)", kind="genre",
          tasks="CA", label="genre", lic="cc-by-sa", cite="Kuzman et al., 2023 (X-GENRE)",
          src=_hub("TajaKuzmanPungersek/X-GENRE-text-genre-dataset", "train+test+dev",
                   note="every split (train, test, dev); GINCO rows are Slovenian and left "
                        "out"),
          reader=hub_sets.read_x_genre, tested_on="constructed",
          options={"splits": ["train", "test", "dev"], "parts": ["CORE", "FTD"]}),
    _spec("masc_text_genre", "MASC 3.0.0 written and spoken genres, 150 passages each",
          kind="genre", tasks="CA", label="genre (MASC folder)", lic="masc",
          cite="Ide et al., 2010 (MASC)",
          src=_web("MASC-3.0.0 from https://anc.org/data/masc/downloads/",
                   "https://www.anc.org/MASC/download/MASC-3.0.0.zip"),
          reader=text_files.read_masc, tested_on="constructed", version=2, options={}),
    _spec("the_pile", "The Pile: 1,000 documents per source subset", kind="genre",
          tasks="CA", label="Pile subset (e.g. ArXiv, Github, PubMed)", lic="pile",
          cite="Gao et al., 2020 (The Pile)",
          src=_hub("ArmelR/the-pile-splitted", "train",
                   note="one Hub config per Pile subset, streamed"),
          reader=hub_sets.read_the_pile, tested_on="constructed",
          options={"per_subset": 1000, "max_chars": 1_000_000, "skip": ["all"]}),
    _spec("STEL_register", "STEL formality and simplicity quadruples", kind="register-oa",
          tasks="O", label="style dimension (formality, simplicity)", lic="stel",
          cite="Wegmann & Nguyen, 2021 (STEL)",
          src=_web("Data/STEL of https://github.com/nlpsoc/STEL", *stel.STEL_URLS),
          reader=partial(stel.read_stel, sampling="all"), tested_on="mirror",
          options={"styles": ["formality", "simplicity"]}),
    _spec("SynthSTEL_register", "SynthSTEL register contrasts (formal, polite, sarcastic, "
          "...)", kind="register-oa", tasks="O",
          label="contrasted style feature (e.g. 'formal / informal')", lic="mit",
          cite="Patel et al., 2025 (StyleDistance)",
          src=_hub("StyleDistance/synthstel", "train+test"),
          reader=synthstel.read_synthstel, tested_on="constructed",
          options={"group": "register"}),
    _spec("corpus-of-diverse-styles", "Corpus of Diverse Styles: 11 styles from tweets to "
          "Shakespeare", kind="register-oa", tasks="CAO", label="style (source corpus)",
          lic="none", cite="Krishna et al., 2020 (STRAP)",
          src=_hub("billray110/corpus-of-diverse-styles", "train",
                   note="each row: a styled text (position 0) and its neutral paraphrase"),
          reader=hub_sets.read_cds, tested_on="constructed", options={},
          submetrics={"clustering": {"tweets_vs_switchboard": Submetric(
              labels=("tweets", "switchboard"))}}),
    _spec("graded_formality", "Sentences rewritten at graded formality levels",
          kind="register-oa", tasks="O", label="formality", lic="none",
          cite="STEB graded formality (GPT-5-mini generated)",
          src=_web("STEB graded_formality_generated_gpt-5-mini.zip (Google Drive)",
                   gdrive_url("1TKtgg-6j2Yd-GTfiq0nnHRPcZC-VpGnu")),
          reader=tables.read_graded_formality, tested_on="constructed", version=2,
          options={"folder": "graded_formality_generated_gpt-5-mini"}),
    _spec("OneStopEnglishCorpus", "OneStopEnglish articles at three reading levels",
          kind="register-oa", tasks="O", label="reading level (elementary to advanced)",
          lic="cc-by-sa", cite="Vajjala & Lučić, 2018 (OneStopEnglish)",
          src=_web("Texts-SeparatedByReadingLevel from "
                   "https://github.com/nishkalavallabhi/OneStopEnglishCorpus",
                   *parallel.ONESTOP_URLS),
          reader=parallel.read_onestop, tested_on="mirror", options={}),
    *(_spec(f"{site}_politeness", f"Stanford politeness corpus ({site.title()} requests)",
            kind="register", tasks="CA", label="politeness (polite, neutral, impolite)",
            lic="cc-by", cite="Danescu-Niculescu-Mizil et al., 2013",
            src=_web(f"corpora/{csv}.annotated.csv of https://github.com/sudhof/politeness, "
                     f"the requests behind ConvoKit's {slug} (https://zissou.infosci.cornell."
                     f"edu/convokit/datasets/{slug}/{slug}.zip, which the reference reads)",
                     politeness.POLITENESS_URLS[csv]),
            reader=partial(politeness.read_politeness, sampling="all"), tested_on="mirror",
            options={})
      for site, slug, csv in (("wikipedia", "wikipedia-politeness-corpus", "wikipedia"),
                              ("stackexchange", "stack-exchange-politeness-corpus",
                               "stack-exchange"))),
    _spec("ASSET", "ASSET: Wikipedia sentences and their simplifications",
          kind="register-oa", tasks="O", label="complexity (0 = original, 1 = simplified)",
          lic="cc-by-nc", cite="Alva-Manchego et al., 2020 (ASSET)",
          src=_web("dataset/asset.{valid,test}.* of https://github.com/facebookresearch/"
                   "asset, the files of the Hub's facebook/asset (config simplification, "
                   "split validation+test) that the reference loads", *parallel.ASSET_URLS),
          reader=partial(parallel.read_asset, sampling="all"), tested_on="mirror", options={}),
    _spec("STEL_feature", "STEL characteristic quadruples (contraction, emotives, "
          "leetspeak, pronouns)", kind="feature-oa", tasks="O",
          label="style characteristic", lic="mit", cite="Wegmann & Nguyen, 2021 (STEL)",
          src=_web("Data/STEL of https://github.com/nlpsoc/STEL", *stel.STEL_URLS),
          reader=partial(stel.read_stel, sampling="all"), tested_on="mirror",
          options={"styles": ["contraction", "emotives", "nbr_substitution"]}),
    _spec("SynthSTEL_feature", "SynthSTEL linguistic-feature contrasts (contractions, "
          "emojis, ...)", kind="feature-oa", tasks="O",
          label="contrasted linguistic feature", lic="mit",
          cite="Patel et al., 2025 (StyleDistance)",
          src=_hub("StyleDistance/synthstel", "train+test"),
          reader=synthstel.read_synthstel, tested_on="constructed",
          options={"group": "feature"}),
    _spec("parallel_shakespeare", "Shakespeare lines and their modern paraphrases",
          kind="time-oa", tasks="O", label="Early Modern vs. modern English",
          lic="shakespeare", cite="Xu et al., 2012",
          src=_web("data/align/plays/merged of https://github.com/cocoxu/Shakespeare",
                   *parallel.SHAKESPEARE_URLS),
          reader=partial(parallel.read_shakespeare, sampling="all"), tested_on="mirror",
          options={}),
    _spec("StylePTB", "StylePTB single-transform sentence pairs (15 subtypes)",
          kind="feature-oa", tasks="O", label="syntactic/lexical transform", lic="ptb",
          cite="Lyu et al., 2021 (StylePTB)",
          src=_web("fulldata.h16 of https://github.com/lvyiwei1/StylePTB (the file all "
                   "single-transform splits are cut from)" + _UNPINNED,
                   "https://github.com/lvyiwei1/StylePTB/raw/master/fulldata.h16"),
          reader=text_files.read_styleptb, tested_on="constructed", options={}),
    _spec("bible_versions", "Eight English Bible translations, verse-aligned", kind="time",
          tasks="CA", label="Bible version (ASV, BBE, DARBY, DRA, KJV, LEB, WEB, YLT)",
          lic="bible", cite="Carlson et al., 2018",
          src=_web("Data/Bibles from https://github.com/keithecarlson/StyleTransferBibleData",
                   *bible.bible_urls()),
          reader=partial(bible.read_bible, sampling="all"), tested_on="mirror", options={}),
    _spec("ceeces", "Early English correspondence (CEECES 1 and 2) by period",
          kind="time", tasks="CA", label="period of the letter (20-year span)",
          lic="cc-by", cite="CEEC-400 sampler, University of Helsinki",
          src=_web("CEECES1/CEECES2 TEI releases on Zenodo (records 6411789, 5887101)",
                   *(f"{_ZENODO}{rec}/files/{leaf}" for rec, n in (("6411789", 1),
                                                                  ("5887101", 2))
                     for leaf in (f"CEECES{n}-metadata.txt", f"CEECES-{n}.zip"))),
          reader=xml_corpora.read_ceeces, tested_on="constructed",
          options={"parts": [{"metadata": f"{_ZENODO}{rec}/files/CEECES{n}-metadata.txt",
                              "archive": f"{_ZENODO}{rec}/files/CEECES-{n}.zip",
                              "folder": f"CEECES {n} - XML files by collection"}
                             for rec, n in (("6411789", 1), ("5887101", 2))]}),
    *(_spec(f"blog_{attr}", f"Blog Authorship Corpus posts by author {attr}", kind="demo",
            tasks="CA", label=lab, lic="blog", cite="Schler et al., 2006",
            src=_hub("barilan/blog_authorship_corpus", "train+validation"),
            options={"label": attr, "label_map": mapping, "remote_code": True,
                     "max_per_label": None}, tested_on="constructed", version=2)
      for attr, lab, mapping in (
          ("age", "age group (10s: 13-17, 20s: 23-27, 30s: 33-47)",
           {**{a: "10s" for a in range(13, 18)}, **{a: "20s" for a in range(23, 28)},
            **{a: "30s" for a in range(33, 48)}}),
          ("gender", "gender (male, female)", {"male": "male", "female": "female"}))),
    _spec("fce_l1", "FCE learner essays by first language", kind="demo", tasks="CA",
          label="writer's first language", lic="fce", cite="Yannakoudakis et al., 2011",
          src=_web("fce-released-dataset from https://ilexir.co.uk/datasets/index.html",
                   "https://s3-eu-west-1.amazonaws.com/ilexir-website-media/"
                   "fce-released-dataset.zip"),
          episodes={"clustering": 100, "all_to_all_pairs": 100},
          reader=xml_corpora.read_fce, tested_on="constructed", options={}),
    *(_spec(f"pastel_{attr}", f"PASTEL persona-written stories by annotator {attr}",
            kind="demo", tasks="CA", label=f"annotator {attr}", lic="none",
            cite="Kang & Hovy, 2019 (PASTEL)",
            src=_web("the stories/ folder (train, dev, test) of the data archive of "
                     "https://github.com/dykang/PASTEL" + _UNPINNED,
                     "https://github.com/dykang/PASTEL/raw/master/data/data_v2.zip"),
            reader=text_files.read_pastel, tested_on="constructed", options={"attribute": attr})
      for attr in ("age", "education", "gender", "ethnic", "politics")),
    _spec("endive", "EnDive: SAE sentences of 11 NLU tasks and their translations into "
          "five English dialects", kind="dialect", tasks="CA",
          label="dialect (sae, aave, chce, collsge, inde, jame)",
          lic="none", cite="Gupta et al., 2025 (EnDive)",
          src=_hub("abhaygupta1266/logic_bench_yn", "AAVE",
                   note="one Hub dataset per NLU task (abhaygupta1266/<task>), one split per "
                        "dialect, rows aligned on the SAE source"),
          reader=hub_sets.read_endive, tested_on="constructed",
          options={"tasks": list(hub_sets.ENDIVE_TASKS), "subsample_seed": 42}),
    _spec("twitter_aave_sae", "Parallel AAVE tweets and SAE rewrites", kind="dialect-oa",
          tasks="O", label="AAVE (position 0) vs. SAE", lic="twitter",
          cite="Groenwold et al., 2020",
          src=_web("EMNLP-AAVE-files/aave_samples.txt and sae_samples.txt of the paper's "
                   "supplementary material (ACL Anthology)",
                   "https://aclanthology.org/attachments/"
                   "2020.emnlp-main.473.OptionalSupplementaryMaterial.zip"),
          reader=text_files.read_aave_sae, tested_on="constructed", options={}),
    _spec("eWAVE", "eWAVE example sentences from varieties of English", kind="dialect",
          tasks="CA", label="variety of English", lic="cc-by",
          cite="Kortmann et al., 2020 (eWAVE)",
          src=_web("cldf/examples.csv and cldf/languages.csv from "
                   "https://github.com/cldf-datasets/ewave",
                   *(f"https://raw.githubusercontent.com/cldf-datasets/ewave/"
                     f"88b37ad853736a7debe64aabf281db1eacee5023/cldf/{leaf}.csv"
                     for leaf in ("examples", "languages"))),
          reader=tables.read_ewave, tested_on="constructed", options={}),
]

# ---------------------------------------------------------------------------- probing
_PROBING_FILES = {"amazon": "1zIRqhSMEdQZ4EZq3-jCLpccuTvXsmCyx",
                  "blog": "1JU9F5SbPV8PaefcBwpy7wUCWrzNXsydO",
                  "reddit": "1pU-Yo--OMtgG8qafk-7DBd_4WhYH_urc",
                  "stackexchange": "1Ke_Re3kwfOmr2ljApcS8GP2CdsiNPHz7"}
_PROBING = [
    _spec(f"probing_{domain}", f"Linguistic-feature probing on {domain} texts",
          kind="probe", tasks="B", label="binned value of a linguistic feature (one probe "
          "per feature: column 'feature'; split given per text and feature)", lic="none",
          cite="STEB probing sets",
          src=_web(f"STEB probing/{domain}.jsonl release (Google Drive)",
                   gdrive_url(file_id)),
          reader=probing_jsonl.read_probing_jsonl, tested_on="constructed", options={})
    for domain, file_id in _PROBING_FILES.items()
]

# -------------------------------------------------------------------- semantic control
_SEMANTIC = [
    _spec(steb, desc, kind="semantic", tasks="CA", label=label, lic=lic, cite=cite,
          src=_hub(path, split, name=name), options={**options, "max_per_label": None},
          tested_on="constructed", version=2)
    for steb, desc, label, lic, cite, path, split, name, options in (
        ("20_Newsgroups_Fixed", "20 Newsgroups posts (cleaned)", "newsgroup (topic)",
         "none", "Lang, 1995", "rungalileo/20_Newsgroups_Fixed", "test", None, {}),
        ("ag_news", "AG news articles", "news topic", "agnews", "Zhang et al., 2015",
         "ag_news", "test", None, {}),
        ("reuters21578", "Reuters-21578 newswire (ModLewis split)", "first topic",
         "reuters", "Lewis, 1997", "reuters21578", "test", "ModLewis",
         {"label": "topics", "remote_code": True}),
        ("emotion", "English tweets labelled with emotions", "emotion", "emotion",
         "Saravia et al., 2018", "emotion", "test", None, {}),
        ("financial_phrasebank", "Financial news sentences", "sentiment", "cc-by-nc-sa3",
         "Malo et al., 2014", "FinanceMTEB/financial_phrasebank", "test", None, {}),
        ("twitter-airline-sentiment", "Tweets about US airlines", "sentiment",
         "cc-by-nc-sa", "Crowdflower, 2015", "osanseviero/twitter-airline-sentiment",
         "train", None, {"label": "airline_sentiment"}),
        ("yelp_polarity", "Yelp reviews", "polarity", "yelp", "Zhang et al., 2015",
         "yelp_polarity", "test", None, {}),
    )
]

SPECS: list[DatasetSpec] = [*_MTD, *_AV, *_RET, *_SPEAKERS, *_OBJECT, *_PROBING, *_SEMANTIC]
"""All catalogue entries, suite ``"steb"``."""
