"""What a run is made of, beside :mod:`stebkit.runner` (its public face): the settings
of a run (:mod:`~stebkit.runs.context`), its plan (:mod:`~stebkit.runs.planning`) and
the models it builds (:mod:`~stebkit.runs.encoders`)."""
