"""Readers: one small module per file format, from mirrored source files to records.

Each ``read_*(spec, *, seed=42, smoke=False)`` function takes a
:class:`~stebkit.datasets.spec.DatasetSpec` whose ``source`` pins the files and whose
``reader_options`` choose the design, and returns the records documented in
:mod:`stebkit.datasets.spec`. Shared helpers live in ``text`` (normalising, sentence
splitting, passage cutting, seeded sampling, reporting dropped rows) and ``_records``
(building the records of each task family).

The STEB catalogue's readers follow the reference's loaders: ``pan`` (PAN releases,
Enron), ``generated`` (M4, GEDE, DetectRL), ``trials`` (retrieval releases, RadioTalk
and Fisher trials), ``hub_sets`` (MAGE, AuthBench, EnDive, the Pile, Corpus of Diverse
Styles, X-GENRE), ``tables`` (CORE, eWAVE, graded formality), ``text_files`` (MASC,
StylePTB, AAVE/SAE, PASTEL), ``xml_corpora`` (CEECES, FCE), ``probing_jsonl`` (the
probing sets), ``parallel`` (OneStopEnglish) and ``synthstel``. They read sources in
place through ``_files.Tree`` (archives, nested archives, gzip) and build records with
``_steb``.

Sources that serve both the catalogue and the lite suite have one reader each, whose
``sampling`` argument (:data:`~._records.SAMPLINGS`) chooses the records: ``"all"``
reads every item as the reference's loader does, ``"seeded"`` draws the lite suite's
seeded sample: ``stel.read_stel``, ``parallel.read_asset``,
``parallel.read_shakespeare``, ``bible.read_bible`` and ``politeness.read_politeness``.
The catalogue passes ``functools.partial(reader, sampling="all")``, the lite suite
``sampling="seeded"``.
"""
