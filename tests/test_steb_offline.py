"""Offline and without the files, every STEB catalogue dataset that has a reader fails
with DataUnavailable naming where its data comes from (a URL, a Hub dataset, or the
agreement and local folder), never with a smaller dataset or 'no reader'."""

from __future__ import annotations

import pytest
from steb_files import read

from stebkit.datasets import catalogue
from stebkit.errors import DataUnavailable

READABLE = [s for s in catalogue.SPECS if s.reader is not None]


@pytest.mark.parametrize("spec", READABLE, ids=lambda s: s.name)
def test_offline_without_files_names_the_source(built, spec):
    with pytest.raises(DataUnavailable) as err:
        read(spec.name, trust_remote_code=bool(getattr(spec, "needs_remote_code", False)))
    msg = str(err.value)
    src = spec.source
    places = [u for u, _ in src.urls] + [src.hf_path or "\0", src.local or "\0"]
    assert any(p in msg for p in places), msg
    assert "no reader" not in msg
