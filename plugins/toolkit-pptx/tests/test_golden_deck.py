"""The golden deck of the slide canary holds the hard cases it claims, one per slide."""

from __future__ import annotations

import zipfile

from refig_toolkit_pptx import golden

A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"


def _slides() -> list[str]:
    with zipfile.ZipFile(golden.FOLDER / golden.DECK) as deck:
        return [deck.read(f"ppt/slides/slide{i}.xml").decode() for i in range(1, 5)]


def test_each_slide_holds_its_hard_case():
    from lxml import etree

    cjk, connectors, gradients, groups = (etree.fromstring(s.encode()) for s in _slides())
    faces = {e.get("typeface") for e in cjk.iter(f"{A}latin", f"{A}ea")}
    assert {"Calibri", "Cambria", "Noto Sans CJK SC", "Noto Sans CJK JP"} <= faces
    assert "中文" in "".join(cjk.itertext())
    glued = [c for c in connectors.iter(f"{P}cxnSp")
             if c.find(f".//{A}stCxn") is not None and c.find(f".//{A}endCxn") is not None]
    assert len(glued) == 3
    assert len(list(gradients.iter(f"{A}gradFill"))) == 3
    outer = [g for g in groups.iter(f"{P}grpSp") if g.find(f"{P}grpSp") is not None]
    assert outer and outer[0].find(f"{P}grpSpPr/{A}xfrm").get("rot") == str(12 * 60000)


def test_its_expected_renderings_are_committed_beside_it():
    pages = sorted(p.name for p in (golden.FOLDER / "expected").glob("*.png"))
    assert pages == [f"slides-{i}.png" for i in range(1, 5)]
    assert (golden.FOLDER / "expected" / "environment.json").is_file()
