"""Deterministic bytes of a python-pptx presentation: fixed timestamps in the zip and the core
properties, so the same seed always writes the same file."""

from __future__ import annotations

import io
import zipfile
from datetime import datetime

from pptx.presentation import Presentation

#: The fixed time every generated deck claims (the zip format starts in 1980).
EPOCH = (1980, 1, 1, 0, 0, 0)
CORE_TIME = datetime(2017, 6, 1)


def deck_bytes(prs: Presentation) -> bytes:
    """The deck as bytes, identical for identical content."""
    props = prs.core_properties
    props.created = props.modified = props.last_printed = CORE_TIME
    props.revision = 1
    props.last_modified_by = props.author = "refig deck-sample"
    raw = io.BytesIO()
    prs.save(raw)
    raw.seek(0)
    out = io.BytesIO()
    with zipfile.ZipFile(raw) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            target.writestr(entry, source.read(info.filename))
    return out.getvalue()
