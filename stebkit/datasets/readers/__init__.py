"""Readers: one small module per file format, from mirrored source files to records.

Each ``read_*(spec, *, seed=42, smoke=False)`` function takes a
:class:`~stebkit.datasets.spec.DatasetSpec` whose ``source`` pins the files and whose
``reader_options`` choose the design, and returns the records documented in
:mod:`stebkit.datasets.spec`. Shared helpers live in ``_text`` (normalising, sentence
splitting, passage cutting, seeded sampling, reporting dropped rows) and ``_records``
(building the records of each task family).
"""
