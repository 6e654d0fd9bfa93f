"""The record: one JSON file per model, dataset, task and episode configuration.

- :mod:`~stebkit.records.schema` — the record's declared fields and the upgrade of older
  records (:data:`~stebkit.records.schema.SCHEMA`);
- :mod:`~stebkit.records.items` — the per-item values a record keeps for the bootstrap;
- :mod:`~stebkit.records.results` — reading and writing records:
  :class:`~stebkit.records.results.Results` (a folder of them) and
  :class:`~stebkit.records.results.Record`;
- :mod:`~stebkit.records.steb_format` — the reference's result files, both ways (export
  and import);
- :mod:`~stebkit.records.submission` — the check of a leaderboard submission against what
  the reference's benchmark writes.
"""
