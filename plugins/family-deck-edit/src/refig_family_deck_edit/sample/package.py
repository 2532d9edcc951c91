"""Deterministic bytes of a python-pptx presentation: fixed timestamps in the zip, in the core
properties, and in the chart workbooks embedded in it (xlsxwriter stamps those with the time of
writing), so the same seed always writes the same file."""

from __future__ import annotations

import io
import re
import zipfile
from datetime import datetime

from pptx.presentation import Presentation

#: The fixed time every generated deck claims (the zip format starts in 1980).
EPOCH = (1980, 1, 1, 0, 0, 0)
CORE_TIME = datetime(2017, 6, 1)
_W3CDTF = re.compile(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")


def _fixed_zip(data: bytes, inner: bool) -> bytes:
    """``data`` rewritten with fixed entry times (and fixed core dates when ``inner``)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            blob = source.read(info.filename)
            if info.filename.endswith(".xlsx"):
                blob = _fixed_zip(blob, inner=True)
            elif inner and info.filename == "docProps/core.xml":
                blob = _W3CDTF.sub(rb"\g<1>2017-06-01T00:00:00Z\g<2>", blob)
            entry = zipfile.ZipInfo(info.filename, date_time=EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            target.writestr(entry, blob)
    return out.getvalue()


def deck_bytes(prs: Presentation) -> bytes:
    """The deck as bytes, identical for identical content."""
    props = prs.core_properties
    props.created = props.modified = props.last_printed = CORE_TIME
    props.revision = 1
    props.last_modified_by = props.author = "refig deck-sample"
    raw = io.BytesIO()
    prs.save(raw)
    return _fixed_zip(raw.getvalue(), inner=False)
