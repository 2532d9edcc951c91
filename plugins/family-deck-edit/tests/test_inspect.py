"""The deck inspector: what it reads from generated and real decks, and typed verdicts within
bounds on hostile ones."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from refig_family_deck_edit import inspect_deck as inspector
from refig_family_deck_edit.inspect_deck import inspect_deck
from refig_family_deck_edit.sample.recipes import NAMES

from .conftest import REAL, read

NOTES = "ppt/notesSlides/notesSlide1.xml"


def _rewrite(path: Path, name: str, change) -> Path:
    with zipfile.ZipFile(path) as source:
        parts = {i.filename: source.read(i) for i in source.infolist()}
    parts[name] = change(parts[name]) if callable(change) else change
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for part, data in parts.items():
            target.writestr(part, data)
    return path


def test_a_generated_deck_reads_whole(write_case):
    _, original, target = write_case("notes-then-delete-staging")
    deck = read(original)
    assert deck.slides[0].title.startswith("Project ")
    assert [s.title for s in deck.slides][1:] == ["Agenda", "Results by region",
                                                  "Revenue by quarter", "How it works",
                                                  "Our partners", "Staging notes", "Thank you",
                                                  "Roadmap", "Launch film"]
    assert [s.hidden for s in deck.slides].count(True) == 1 and deck.slides[6].hidden
    assert deck.slides[0].layout == "Title Slide" and deck.theme.colors["accent1"] == "#4F81BD"
    objects = {o.name: o for s in deck.slides for o in s.walk()}
    assert objects["Results table"].cells[0] == ("Region", "2025", "2026")
    chart = objects["Revenue chart"].chart
    assert chart.type == "barChart" and chart.categories == ("Q1", "Q2", "Q3", "Q4")
    assert [s.name for s in chart.series] == ["2025", "2026"]
    assert objects["Arrow 1-2"].start_id == objects["Step 1"].id
    assert [c.name for c in objects["Legend"].children] == ["Legend swatch", "Legend text"]
    assert objects["Logo"].image_sha256 and objects["Step 1"].fill.startswith("#")
    assert objects["Subtitle"].paragraphs[0].runs[0].size in (14, 16, 18, 22, 24, 28)
    edited = read(target)
    assert len(edited.slides) == 9
    assert [s.notes for s in edited.slides if s.notes]  # the narration reached the notes


def test_links_alt_text_transitions_and_animations_are_read(write_case):
    reads = {}
    for recipe in ("contact-link", "alt-text", "fade-transitions", "appear-steps"):
        reads[recipe] = read(write_case(recipe)[2])
    contact = next(o for o in reads["contact-link"].slides[7].objects if o.name == "Contact")
    assert contact.paragraphs[0].runs[0].link.startswith("mailto:team-")
    logo = next(o for o in reads["alt-text"].slides[5].objects if o.name == "Logo")
    assert logo.alt_text.startswith("Logo of ")
    assert {s.transition.effect for s in reads["fade-transitions"].slides} == {"fade"}
    assert reads["appear-steps"].slides[4].animations == 3


@pytest.mark.skipif(not REAL.is_dir(), reason="the shared real decks are absent")
def test_every_real_deck_gets_a_verdict_and_most_read_whole():
    decks = sorted(REAL.glob("*.pptx"))
    verdicts = {p.name: inspect_deck(p) for p in decks}
    assert all(v.reason is None or v.reason in {"no_slides"} for v in verdicts.values()), {
        k: (v.reason, v.detail) for k, v in verdicts.items() if not v.passed}
    chart = verdicts["bar-chart.pptx"].structure
    assert chart.slides[0].objects[1].chart.series[0].values[0] == pytest.approx(8.2)
    table = verdicts["tbl-cell.pptx"].structure
    assert any(o.cells for s in table.slides for o in s.objects)


def test_hostile_parts_of_a_deck_get_typed_verdicts(write_case, monkeypatch):
    _, original, target = write_case("notes-then-delete-staging")
    laughs = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aa">]><x>&a;</x>'
    assert inspect_deck(_rewrite(target, NOTES, laughs)).reason == "corrupt"
    _, original, _ = write_case("chart-value")
    chart = "ppt/charts/chart1.xml"
    assert inspect_deck(_rewrite(original, chart, b"<c:chartSpace")).reason == "corrupt"
    nested = b"".join([b'<p:grpSp><p:nvGrpSpPr><p:cNvPr id="9" name="g"/></p:nvGrpSpPr>'] * 3000)

    def deep(xml: bytes) -> bytes:
        return xml.replace(b"</p:spTree>", nested + b"</p:grpSp>" * 3000 + b"</p:spTree>")

    verdict = inspect_deck(_rewrite(original, "ppt/slides/slide2.xml", deep))
    assert (verdict.passed, verdict.reason) == (False, "corrupt")
    monkeypatch.setattr(inspector, "MAX_SLIDES", 3)
    verdict = inspect_deck(write_case("footers")[1])
    assert (verdict.reason, verdict.slides) == ("too_large", 10)


def test_randomly_damaged_decks_get_a_classified_verdict(write_case):
    """Seeded byte flips in a multi-slide deck: no verdict from the catch-all fallback."""
    _, original, _ = write_case(NAMES[0])
    base = original.read_bytes()
    rng = random.Random(5)
    path = original.with_name("fuzz.pptx")
    for _ in range(150):
        data = bytearray(base)
        for _ in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        path.write_bytes(bytes(data))
        verdict = inspect_deck(path)
        assert "unreadable" not in verdict.detail, verdict.detail


_MEMORY_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from refig_family_deck_edit.inspect_deck import inspect_deck
print(json.dumps([[v.passed, v.reason] for v in map(inspect_deck, sys.argv[1:])]))
"""


def test_hostile_decks_stay_within_a_memory_bound(write_case):
    _, original, target = write_case("footers")
    bomb = target
    with (zipfile.ZipFile(bomb, "a", zipfile.ZIP_DEFLATED) as archive,
          archive.open("ppt/notesSlides/big.xml", "w", force_zip64=True) as handle):
        for _ in range(64):
            handle.write(b"<a/>" * (1 << 18))
    limit = 1 << 30
    done = subprocess.run([sys.executable, "-c", _MEMORY_CHILD.format(limit=limit),
                           str(original), str(bomb)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [[True, None], [False, "too_large"]]


@pytest.mark.skipif(not REAL.is_dir(), reason="the shared real decks are absent")
def test_a_real_smartart_edit_is_read_from_its_data_model(tmp_path):
    """Apache POI's SmartArt deck: five empty content nodes; writing a word into the first
    node's text (what an editor of the diagram does) is one ``smartart`` change."""
    import shutil

    from refig_family_deck_edit.diff import changes

    original = tmp_path / "SmartArt.pptx"
    shutil.copyfile(REAL / "SmartArt.pptx", original)
    before = read(original)
    [diagram] = [o for o in before.slides[0].walk() if o.kind == "smartart"]
    assert diagram.smartart == ("",) * 5
    edited = tmp_path / "edited.pptx"
    shutil.copyfile(original, edited)

    def fill_first_node(data: bytes) -> bytes:
        doc = data.index(b'type="doc"')
        node = data.index(b"<dgm:pt ", doc + 1)  # the first content node, after the document's
        end = data.index(b"</a:p>", node)
        return data[:end] + b"<a:r><a:t>Plan</a:t></a:r>" + data[end:]

    after = read(_rewrite(edited, "ppt/diagrams/data1.xml", fill_first_node))
    assert [(c.field, c.after) for c in changes(before, after)] == [
        ("smartart", ["Plan", "", "", "", ""])]
