"""The hybrid workflow's deck toolchain, run as the agent runs it (scripts in tools/): the
outline names the parts a patch addresses, and a patch is applied only when every step holds."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from lxml import etree
from pptx import Presentation
from pptx.util import Inches
from refig.plugins import Registry
from refig.records import PluginKind

TOOLS = (Path(__file__).resolve().parents[2]
         / "family-deck-edit/src/refig_family_deck_edit/toolchain")
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    deck = Presentation()
    for title in ("Results", "Outlook"):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.shapes.add_textbox(Inches(1), Inches(5), Inches(3), Inches(1)).text = "Footnote"
    deck.save(tmp_path / "source.pptx")
    (tmp_path / "tools").mkdir()
    for script in TOOLS.glob("*.py"):
        (tmp_path / "tools" / script.name).write_bytes(script.read_bytes())
    return tmp_path


def tool(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=workspace, capture_output=True, text=True,
                          timeout=120, check=False)


def part(deck: Path, name: str) -> etree._Element:
    with zipfile.ZipFile(deck) as package:
        return etree.fromstring(package.read(name))


def test_the_outline_lists_slides_shapes_and_the_parts_a_patch_addresses(
        workspace: Path) -> None:
    done = tool(workspace, "tools/outline_deck.py")
    assert done.returncode == 0, done.stderr
    assert "slide 1 [ppt/slides/slide1.xml]" in done.stdout
    assert "'Results'" in done.stdout and "'Footnote'" in done.stdout
    assert "ppt/theme/theme1.xml: colours" in done.stdout and "accent1=" in done.stdout
    assert "master [ppt/slideMasters/slideMaster1.xml]" in done.stdout


def test_a_valid_patch_edits_exactly_the_parts_it_names(workspace: Path) -> None:
    patch = [
        {"part": "ppt/theme/theme1.xml", "xpath": "//a:clrScheme/a:accent1/a:srgbClr",
         "op": "set", "attribute": "val", "value": "C00000"},
        {"part": "ppt/slides/slide2.xml", "xpath": "//a:t[.='Outlook']", "op": "text",
         "value": "Perspectives"},
        {"part": "ppt/slides/slide1.xml", "xpath": "//p:sp[.//a:t='Footnote']", "op": "remove"},
        {"part": "ppt/slides/slide1.xml", "xpath": "//p:cSld", "op": "insert",
         "position": "after", "xml": '<p:transition xmlns:p="http://schemas.openxmlformats.org/'
         'presentationml/2006/main"><p:fade/></p:transition>'},
    ]
    (workspace / "patch.json").write_text(json.dumps(patch))
    done = tool(workspace, "tools/apply_patch.py")
    assert done.returncode == 0, done.stderr
    edited = workspace / "edited.pptx"
    theme = part(edited, "ppt/theme/theme1.xml")
    assert theme.find(f".//{A}clrScheme/{A}accent1/{A}srgbClr").get("val") == "C00000"
    deck = Presentation(str(edited))
    assert deck.slides[1].shapes.title.text == "Perspectives"
    assert [s.text_frame.text for s in deck.slides[0].shapes] == ["Results", ""]
    assert part(edited, "ppt/slides/slide1.xml").find(
        "{http://schemas.openxmlformats.org/presentationml/2006/main}transition") is not None
    with zipfile.ZipFile(workspace / "source.pptx") as old, zipfile.ZipFile(edited) as new:
        changed = {n for n in old.namelist() if old.read(n) != new.read(n)}
    assert changed == {"ppt/theme/theme1.xml", "ppt/slides/slide1.xml", "ppt/slides/slide2.xml"}
    compare = tool(workspace, "-c", "import sys; sys.path.insert(0, 'tools'); "
                   "from compare_deck import changed_parts; "
                   "print(changed_parts(__import__('pathlib').Path('source.pptx'), "
                   "__import__('pathlib').Path('edited.pptx')))")
    assert "ppt/theme/theme1.xml" in compare.stdout, compare.stderr


@pytest.mark.parametrize(("patch", "complaint"), [
    ([{"part": "ppt/slides/slide1.xml", "xpath": "//a:t", "op": "text", "value": "x"}],
     "matches 2 elements"),
    ([{"part": "ppt/presentation.xml", "xpath": "//p:sldIdLst", "op": "remove"}],
     "is not a slide, layout, master, theme or notes part"),
    ([{"part": "ppt/slides/slide9.xml", "xpath": "//a:t", "op": "remove"}], "has no part"),
    ([{"part": "ppt/slides/slide1.xml", "xpath": "//p:cSld", "op": "insert", "xml": "<p:x"}],
     "not well formed"),
    ([{"part": "ppt/slides/slide1.xml", "xpath": "//a:t[", "op": "remove"}], "bad xpath"),
    ([{"part": "ppt/slides/slide1.xml", "xpath": "/p:sld", "op": "replace",
       "xml": "<other/>"}], "cannot replace the root"),
    ([{"part": "ppt/slides/slide1.xml", "xpath": "//a:t", "op": "explode"}], "op 'explode'"),
    ({"not": "a list"}, "non-empty JSON list"),
])
def test_a_bad_patch_is_refused_and_nothing_is_written(
        workspace: Path, patch: object, complaint: str) -> None:
    (workspace / "patch.json").write_text(json.dumps(patch))
    done = tool(workspace, "tools/apply_patch.py")
    assert done.returncode == 1 and complaint in done.stderr, done.stderr
    assert not (workspace / "edited.pptx").exists()


def test_compare_renders_both_decks_and_shows_the_slides_that_changed(workspace: Path) -> None:
    registry = Registry.load(warn=lambda _: None)
    if "libreoffice" not in registry.names(PluginKind.RENDERER) or not shutil.which("soffice"):
        pytest.skip("the LibreOffice renderer plugin or soffice is not installed")
    deck = Presentation(str(workspace / "source.pptx"))
    deck.slides[1].shapes.title.text = "Perspectives"
    deck.save(workspace / "edited.pptx")
    done = tool(workspace, "tools/compare_deck.py")
    assert done.returncode == 0, done.stderr
    assert "parts changed: ppt/slides/slide2.xml" in done.stdout
    assert "slide 2 text: - 'Outlook'; + 'Perspectives'" in done.stdout
    assert "slides that look different (before left, after right, in compare/): 2" in done.stdout
    assert sorted(p.name for p in (workspace / "compare").iterdir()) == ["slide-2.png"]
    assert len(list((workspace / "renders" / "edited").glob("slide-*.png"))) == 2
