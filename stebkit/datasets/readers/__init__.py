"""Readers: one small module per file format, from mirrored source files to records.

Each ``read_*(spec, *, seed=42, smoke=False)`` function takes a
:class:`~stebkit.datasets.spec.DatasetSpec` whose ``source`` pins the files and whose
``reader_options`` choose the design, and returns the records documented in
:mod:`stebkit.datasets.spec`. Shared helpers live in ``text`` (normalising, sentence
splitting, passage cutting, seeded sampling, reporting dropped rows) and ``_records``
(building the records of each task family).

The STEB catalogue's readers follow the reference's loaders: ``pan`` (PAN releases,
Enron), ``generated`` (M4, GEDE), ``trials`` (retrieval releases, RadioTalk and Fisher
trials), ``hub_sets`` (MAGE, AuthBench, EnDive, the Pile, Corpus of Diverse Styles,
X-GENRE), ``tables`` (CORE, eWAVE, graded formality), ``text_files`` (MASC, StylePTB,
AAVE/SAE, PASTEL), ``xml_corpora`` (CEECES, FCE), ``probing_jsonl`` (the probing sets),
``steb_github`` and ``synthstel``. They read sources in place through ``_files.Tree``
(archives, nested archives, gzip) and build records with ``_steb``.
"""
