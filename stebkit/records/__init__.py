"""The record: one JSON file per model, dataset, task and episode configuration.

- :mod:`~stebkit.records.schema` — the record's declared fields and the upgrade of older
  records (:data:`~stebkit.records.schema.SCHEMA`);
- :mod:`~stebkit.records.items` — the per-item values a record keeps for the bootstrap;
- :mod:`~stebkit.records.record` — one record, parsed and checked once
  (:class:`~stebkit.records.record.Record`), and the one constructor of new records;
- :mod:`~stebkit.records.catalogue` — a record as the score reads it (the catalogue's and
  the zoo's declarations);
- :mod:`~stebkit.records.results` — a results folder: where records lie, reading and
  writing them, :class:`~stebkit.records.results.Results` (a set of them and its frames);
- :mod:`~stebkit.records.steb_format` — the reference's result files, both ways (export
  and import);
- :mod:`~stebkit.records.submission` — the check of a leaderboard submission against what
  the reference's benchmark writes.
"""
