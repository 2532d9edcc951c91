"""Edits of what a deck says: translation, notes, tables, charts, footers, links and alt text."""

from __future__ import annotations

import random

from pptx.chart.data import CategoryChartData
from pptx.util import Emu, Pt

from refig_family_deck_edit.diff import cell_field
from refig_family_deck_edit.sample.deck import HEIGHT, Plan
from refig_family_deck_edit.sample.edit import Edit
from refig_family_deck_edit.sample.words import FRENCH


def shape_named(slide, name: str):
    """The shape called ``name`` on ``slide``, inside groups too."""
    stack = list(slide.shapes)
    while stack:
        shape = stack.pop(0)
        if shape.name == name:
            return shape
        if shape.shape_type == 6:  # a group
            stack += list(shape.shapes)
    raise KeyError(name)


def translate_titles(prs, plan: Plan, rng: random.Random) -> Edit:
    glossary = "; ".join(f"{en} = {fr}" for en, fr in FRENCH.items())
    edit = Edit(
        instruction=f"Translate every slide title that appears in this glossary into French, "
                    f"exactly as it gives them: {glossary}. Leave every other text as it is.",
        style_target="Titles use the glossary's French wording verbatim; nothing else changes.",
        categories=("Content",), operations=("text_typography",))
    for index, slide in enumerate(prs.slides, 1):
        title = slide.shapes.title
        if title is not None and title.text in FRENCH:
            title.text_frame.text = FRENCH[title.text]
            edit.want(index, title.name, "text", title.text_frame.text)
    return edit


def notes_then_delete_staging(prs, plan: Plan, rng: random.Random) -> Edit:
    edit = Edit(
        instruction="The 'Staging notes' slide holds narration lines of the form 'Slide N: "
                    "text'. Put each line's text (without the 'Slide N:' prefix) into the "
                    "speaker notes of slide N, then delete the 'Staging notes' slide.",
        style_target="Notes hold exactly the narration sentence; the staging slide is gone and "
                     "the other slides keep their order.",
        categories=("Structure", "Content"), operations=("slides_sections_footers",))
    for number, line in plan.narration.items():
        prs.slides[number - 1].notes_slide.notes_text_frame.text = line
        edit.want(number, "", "notes", line)
    listing = prs.slides._sldIdLst
    entry = listing[plan.staging - 1]
    prs.part.drop_rel(entry.rId)
    listing.remove(entry)
    edit.want(plan.staging, "", "slide", None)
    return edit


def table_cell(prs, plan: Plan, rng: random.Random) -> Edit:
    slide = prs.slides[2]
    table = shape_named(slide, "Results table").table
    region, old = plan.table[2][0], plan.table[2][2]
    new = str(int(old) + rng.randint(5, 40))
    table.cell(2, 2).text = new
    edit = Edit(
        instruction=f"In the results table, the 2026 figure for {region} is wrong: it should "
                    f"be {new}, not {old}.",
        style_target="Only that one cell changes; the table keeps its size and formatting.",
        categories=("Content",), operations=("tables",))
    edit.want(3, "Results table", cell_field(3, 3), new)
    return edit


def chart_value(prs, plan: Plan, rng: random.Random) -> Edit:
    chart = shape_named(prs.slides[3], "Revenue chart").chart
    values = {name: list(v) for name, v in plan.values.items()}
    old = values["2026"][2]
    values["2026"][2] = new = old + float(rng.randint(3, 12))
    data = CategoryChartData()
    data.categories = ["Q1", "Q2", "Q3", "Q4"]
    for name, series in values.items():
        data.add_series(name, series)
    chart.replace_data(data)
    edit = Edit(
        instruction=f"Update the revenue chart: Q3 of 2026 was {new:g}, not {old:g}.",
        style_target="The chart keeps its type, categories and the other values.",
        categories=("Content",), operations=("charts",))
    edit.want(4, "Revenue chart", "chart", {
        "type": "barChart", "categories": ["Q1", "Q2", "Q3", "Q4"],
        "series": [{"name": n, "values": v} for n, v in values.items()]})
    return edit


def footers(prs, plan: Plan, rng: random.Random) -> Edit:
    text = f"{plan.topic} | Confidential"
    edit = Edit(
        instruction=f"Add the footer '{text}' at the bottom left of every slide except the "
                    f"title slide.",
        style_target="Same footer text, position and size (12 pt) on every slide but the first.",
        categories=("Structure",), operations=("slides_sections_footers",))
    for index, slide in enumerate(prs.slides, 1):
        if index == 1:
            continue
        box = slide.shapes.add_textbox(Emu(600_000), Emu(HEIGHT - 600_000), Emu(5_000_000),
                                       Emu(400_000))
        box.name = "Footer"
        run = box.text_frame.paragraphs[0].add_run()
        run.text = text
        run.font.size = Pt(12)
        edit.want(index, f"new text_box {text!r}", "object", "text_box")
    return edit


def alt_text(prs, plan: Plan, rng: random.Random) -> Edit:
    slide = prs.slides[5]
    texts = {"Logo": f"Logo of {plan.topic}", "Partner logo": "Logo of our partner"}
    for name, text in texts.items():
        shape_named(slide, name)._element.nvPicPr.cNvPr.set("descr", text)
    edit = Edit(
        instruction="Give the two logos on 'Our partners' alternative text for screen readers: "
                    + " and ".join(f"'{t}'" for t in texts.values()) + ", left logo first.",
        style_target="Each picture's description is exactly the given text.",
        categories=("Content",), operations=("accessibility",))
    for name, text in texts.items():
        edit.want(6, name, "alt_text", text)
    return edit


def contact_link(prs, plan: Plan, rng: random.Random) -> Edit:
    box = shape_named(prs.slides[7], "Contact")
    address = f"mailto:{box.text_frame.text}"
    for para in box.text_frame.paragraphs:
        for run in para.runs:
            run.hyperlink.address = address
    edit = Edit(
        instruction="Make the e-mail address on the 'Thank you' slide a clickable mailto link.",
        style_target=f"The address links to {address}; its text is unchanged.",
        categories=("Interactivity",), operations=("hyperlinks",))
    edit.want(8, "Contact", "run_links", [address])
    return edit
