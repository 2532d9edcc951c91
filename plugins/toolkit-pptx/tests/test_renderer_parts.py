"""XML attacks in parts only the renderer reads (document properties, theme, layouts) make the
gate answer ``corrupt`` before LibreOffice ever sees them."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from pptx import Presentation
from refig.models import GateReason
from refig_toolkit_pptx.gate import inspect_structure

LAUGHS = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
          + b"".join(b'<!ENTITY lol%d "%s">' % (i, b"&lol%d;" % (i - 1) * 10 if i > 1
                                                  else b"&lol;" * 10) for i in range(1, 10))
          + b']><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/'
          b'extended-properties">&lol9;</Properties>')
XXE = ('<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE r [<!ENTITY x SYSTEM '
       '"file:///etc/passwd">]><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/'
       'package/2006/metadata/core-properties">&x;</cp:coreProperties>').encode("utf-16")


def deck(tmp_path: Path, replace: dict[str, bytes]) -> Path:
    buffer = io.BytesIO()
    presentation = Presentation()
    presentation.slides.add_slide(presentation.slide_layouts[6])
    presentation.save(buffer)
    out = io.BytesIO()
    with zipfile.ZipFile(buffer) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        names = source.namelist()
        for name in names:
            dst.writestr(name, replace.get(name, source.read(name)))
        for name, data in replace.items():
            if name not in names:
                dst.writestr(name, data)
    path = tmp_path / "slide.pptx"
    path.write_bytes(out.getvalue())
    return path


def test_an_untouched_deck_passes(tmp_path):
    assert inspect_structure(deck(tmp_path, {})).gate.passed


@pytest.mark.parametrize(("part", "data"), [
    ("docProps/app.xml", LAUGHS),
    ("docProps/core.xml", XXE),
    ("ppt/theme/theme1.xml", b"<a:theme xmlns:a='x'><unclosed></a:theme>"),
    ("ppt/slideLayouts/_rels/slideLayout1.xml.rels", LAUGHS),
])
def test_an_attack_in_a_part_only_the_renderer_reads_is_corrupt(tmp_path, part, data):
    gate = inspect_structure(deck(tmp_path, {part: data})).gate
    assert not gate.passed and gate.reason == GateReason.CORRUPT, gate
    assert part in (gate.detail or "")
