"""Edits of how a deck looks and behaves: typography, theme, master, background, fills,
z-order, alignment, pictures, layouts, transitions and animations."""

from __future__ import annotations

import random

from lxml import etree
from pptx.dml.color import RGBColor
from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.oxml.ns import qn
from pptx.util import Emu, Pt

from refig_family_deck_edit.diff import same
from refig_family_deck_edit.sample.deck import Plan
from refig_family_deck_edit.sample.edit import Edit
from refig_family_deck_edit.sample.edits_content import shape_named
from refig_family_deck_edit.sample.words import PALETTE

A = "http://schemas.openxmlformats.org/drawingml/2006/main"


def normalise_subtitles(prs, plan: Plan, rng: random.Random) -> Edit:
    edit = Edit(
        instruction="Standardise the subtitle sizes: every slide's subtitle text box "
                    "('Subtitle') should use 20 pt text.",
        style_target="All subtitles 20 pt; their text, font and position unchanged.",
        categories=("Styling",), operations=("text_typography",))
    for number in plan.subtitle_sizes:
        for para in shape_named(prs.slides[number - 1], "Subtitle").text_frame.paragraphs:
            for run in para.runs:
                run.font.size = Pt(20)
        edit.want(number, "Subtitle", "font_sizes", [20.0])
    return edit


def _theme(prs) -> tuple[object, etree._Element]:
    part = prs.slide_master.part.part_related_by(RT.THEME)
    return part, etree.fromstring(part.blob)


def _save_theme(part, root: etree._Element) -> None:
    part._blob = etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)


def theme_accent(prs, plan: Plan, rng: random.Random) -> Edit:
    part, root = _theme(prs)
    slot = root.find(f".//{{{A}}}clrScheme/{{{A}}}accent1")
    old = slot[0].get("val", "").upper()
    new = rng.choice([c for c in PALETTE if c != old])
    slot.clear()
    etree.SubElement(slot, f"{{{A}}}srgbClr", val=new)
    _save_theme(part, root)
    edit = Edit(
        instruction=f"Change the theme's first accent colour to #{new}, so everything that uses "
                    f"it follows.",
        style_target=f"Theme accent 1 is #{new}; no slide-level colour is changed by hand.",
        categories=("Styling",), operations=("theme_background", "master"))
    edit.want("deck", "theme", "color:accent1", f"#{new}")
    return edit


def heading_font(prs, plan: Plan, rng: random.Random) -> Edit:
    part, root = _theme(prs)
    root.find(f".//{{{A}}}majorFont/{{{A}}}latin").set("typeface", "Georgia")
    _save_theme(part, root)
    edit = Edit(
        instruction="Set the heading font of the deck's master theme to Georgia.",
        style_target="The theme's major (heading) Latin font is Georgia; body text unchanged.",
        categories=("Styling",), operations=("master", "text_typography"))
    edit.want("deck", "theme", "major_font", "Georgia")
    return edit


def title_background(prs, plan: Plan, rng: random.Random) -> Edit:
    colour = rng.choice(PALETTE)
    fill = prs.slides[0].background.fill
    fill.solid()
    fill.fore_color.rgb = RGBColor.from_string(colour)
    edit = Edit(
        instruction=f"Give the title slide a solid #{colour} background.",
        style_target="Only the title slide's background changes.",
        categories=("Styling",), operations=("theme_background",))
    edit.want(1, "", "background", f"#{colour}")
    return edit


def recolour_steps(prs, plan: Plan, rng: random.Random) -> Edit:
    colour = rng.choice(PALETTE)
    edit = Edit(
        instruction=f"Make the fill of every step box on 'How it works' #{colour}.",
        style_target="All step boxes share that fill; outlines and text unchanged.",
        categories=("Styling",), operations=("shapes",))
    for index in range(1, plan.steps + 1):
        box = shape_named(prs.slides[4], f"Step {index}")
        before = f"#{box.fill.fore_color.rgb}"
        box.fill.fore_color.rgb = RGBColor.from_string(colour)
        if before != f"#{colour}":
            edit.want(5, box.name, "fill", f"#{colour}")
    return edit


def bring_to_front(prs, plan: Plan, rng: random.Random) -> Edit:
    slide = prs.slides[4]
    tree = slide.shapes._spTree
    box = shape_named(slide, "Step 1")._element
    tree.remove(box)
    tree.append(box)
    count = sum(1 for _ in tree.iter(qn("p:cNvPr"))) - 1  # every object but the tree itself
    edit = Edit(
        instruction="Bring the first step box on 'How it works' to the front.",
        style_target="That box paints above every other object; nothing moves.",
        categories=("Layout",), operations=("alignment_zorder",))
    edit.want(5, "Step 1", "z_order", count - 1)
    return edit


def align_steps(prs, plan: Plan, rng: random.Random) -> Edit:
    boxes = sorted((shape_named(prs.slides[4], f"Step {i}") for i in range(1, plan.steps + 1)),
                   key=lambda b: b.left)
    top = min(b.top for b in boxes)
    first, last = boxes[0].left, boxes[-1].left
    edit = Edit(
        instruction="On 'How it works', align the step boxes to the top of the highest one and "
                    "distribute them horizontally (equal spacing between the leftmost and the "
                    "rightmost).",
        style_target="Equal tops; equal gaps; the leftmost and rightmost boxes keep their x.",
        categories=("Layout",), operations=("alignment_zorder",))
    for k, box in enumerate(boxes):
        x = first + round(k * (last - first) / (len(boxes) - 1))
        if not same("y", int(box.top), int(top)):
            edit.want(5, box.name, "y", int(top))
        if not same("x", int(box.left), x):
            edit.want(5, box.name, "x", x)
        box.top, box.left = Emu(top), Emu(x)
    return edit


def match_logos(prs, plan: Plan, rng: random.Random) -> Edit:
    height, top = 1_800_000, 2_400_000
    edit = Edit(
        instruction="Resize the two logos on 'Our partners' to the same height of 1.8 million "
                    "EMU (about 1.97 in), keeping their proportions, and align their tops at "
                    "2.4 million EMU.",
        style_target="Both logos equally tall, undistorted, top-aligned; x positions kept.",
        categories=("Layout",), operations=("images",))
    for name in ("Logo", "Partner logo"):
        picture = shape_named(prs.slides[5], name)
        width = round(picture.width * height / picture.height)
        for field, old, new in (("y", picture.top, top), ("h", picture.height, height),
                                ("w", picture.width, width)):
            if not same(field, int(old), new):
                edit.want(6, name, field, new)
        picture.top, picture.height, picture.width = Emu(top), Emu(height), Emu(width)
    return edit


def closing_layout(prs, plan: Plan, rng: random.Random) -> Edit:
    slide = prs.slides[7]
    layout = prs.slide_layouts[2]
    for rel in slide.part.rels.values():
        if rel.reltype == RT.SLIDE_LAYOUT:
            rel._target = layout.part
    edit = Edit(
        instruction=f"Switch the 'Thank you' slide to the '{layout.name}' layout.",
        style_target="The slide uses that layout; its title follows the layout's placeholder.",
        categories=("Structure",), operations=("layout_placeholders",))
    edit.want(8, "", "layout", layout.name)
    title = slide.shapes.title.name
    edit.allow += [("8", title, field) for field in ("x", "y", "w", "h")]
    return edit


def _insert_after_clr_map(slide, element: etree._Element) -> None:
    root = slide._element
    anchor = root.find(qn("p:clrMapOvr"))
    if anchor is None:
        anchor = root.find(qn("p:cSld"))
    anchor.addnext(element)


def fade_transitions(prs, plan: Plan, rng: random.Random) -> Edit:
    edit = Edit(
        instruction="Add a medium-speed fade transition to every slide.",
        style_target="Every slide fades in at medium speed, with no auto-advance.",
        categories=("Interactivity",), operations=("transitions",))
    for index, slide in enumerate(prs.slides, 1):
        transition = etree.Element(qn("p:transition"), spd="med")
        etree.SubElement(transition, qn("p:fade"))
        _insert_after_clr_map(slide, transition)
        edit.want(index, "", "transition", {"effect": "fade", "speed": "med",
                                            "advance_ms": None})
    return edit


_APPEAR = """<p:par xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cTn
 id="{a}" fill="hold"><p:stCondLst><p:cond delay="indefinite"/></p:stCondLst><p:childTnLst>
<p:par><p:cTn id="{b}" fill="hold"><p:stCondLst><p:cond delay="0"/></p:stCondLst><p:childTnLst>
<p:par><p:cTn id="{c}" presetID="1" presetClass="entr" presetSubtype="0" fill="hold"
 nodeType="clickEffect"><p:stCondLst><p:cond delay="0"/></p:stCondLst><p:childTnLst><p:set>
<p:cBhvr><p:cTn id="{d}" dur="1" fill="hold"><p:stCondLst><p:cond delay="0"/></p:stCondLst>
</p:cTn><p:tgtEl><p:spTgt spid="{spid}"/></p:tgtEl><p:attrNameLst><p:attrName>style.visibility
</p:attrName></p:attrNameLst></p:cBhvr><p:to><p:strVal val="visible"/></p:to></p:set>
</p:childTnLst></p:cTn></p:par></p:childTnLst></p:cTn></p:par></p:childTnLst></p:cTn></p:par>"""


def appear_steps(prs, plan: Plan, rng: random.Random) -> Edit:
    slide = prs.slides[4]
    timing = etree.fromstring(
        '<p:timing xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">'
        '<p:tnLst><p:par><p:cTn id="1" dur="indefinite" restart="never" nodeType="tmRoot">'
        '<p:childTnLst><p:seq concurrent="1" nextAc="seek"><p:cTn id="2" dur="indefinite" '
        'nodeType="mainSeq"><p:childTnLst/></p:cTn></p:seq></p:childTnLst></p:cTn></p:par>'
        '</p:tnLst></p:timing>')
    sequence = timing.find(f".//{qn('p:childTnLst')}/{qn('p:seq')}/{qn('p:cTn')}"
                           f"/{qn('p:childTnLst')}")
    for k in range(plan.steps):
        spid = shape_named(slide, f"Step {k + 1}").shape_id
        base = 3 + 4 * k
        sequence.append(etree.fromstring(_APPEAR.format(a=base, b=base + 1, c=base + 2,
                                                        d=base + 3, spid=spid)))
    anchor = slide._element.find(qn("p:transition"))
    if anchor is None:
        anchor = slide._element.find(qn("p:clrMapOvr"))
    anchor.addnext(timing)
    edit = Edit(
        instruction="On 'How it works', make the step boxes appear one by one on click, in "
                    "order.",
        style_target="One 'appear' entrance per step box, on click, first to last.",
        categories=("Interactivity",), operations=("animations",))
    edit.want(5, "", "animations", plan.steps)
    return edit
