"""The original deck of a generated task: ten slides on one master with layouts, placeholders,
a table, a chart, pictures, a group, bound connectors, a staging slide of narration, a SmartArt
diagram and a video."""

from __future__ import annotations

import io
import itertools
import random
from dataclasses import dataclass, field

from PIL import Image, ImageDraw
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.dml.color import RGBColor
from pptx.enum.chart import XL_CHART_TYPE
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.util import Emu, Pt

from refig_family_deck_edit.sample.embedded import add_smartart, add_video
from refig_family_deck_edit.sample.words import (
    AGENDA_ITEMS,
    NARRATION,
    PALETTE,
    REGIONS,
    ROADMAP,
    STEPS,
    TOPICS,
)

WIDTH, HEIGHT = 12_192_000, 6_858_000  # 16:9
TITLE_ONLY, TITLE_AND_CONTENT, TITLE_SLIDE = 5, 1, 0


@dataclass
class Plan:
    """What the generator put where, for the edits to refer to (slide numbers from 1)."""

    topic: str
    titles: dict[int, str] = field(default_factory=dict)
    subtitle_sizes: dict[int, float] = field(default_factory=dict)
    narration: dict[int, str] = field(default_factory=dict)
    staging: int = 7
    steps: int = 3
    values: dict[str, list[float]] = field(default_factory=dict)
    table: list[list[str]] = field(default_factory=list)
    roadmap: list[str] = field(default_factory=list)
    diagram: int = 9
    video: int = 10


def logo_png(letter: str, colour: str, size: int = 240) -> bytes:
    """A round logo with a letter: deterministic PNG bytes."""
    image = Image.new("RGB", (size, size), "white")
    draw = ImageDraw.Draw(image)
    draw.ellipse((8, 8, size - 8, size - 8), fill="#" + colour)
    draw.rectangle((size * 0.38, size * 0.3, size * 0.62, size * 0.7), fill="white")
    draw.text((size * 0.46, size * 0.45), letter, fill="#" + colour)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _text_box(slide, name: str, text: str, x: int, y: int, w: int, h: int, size: float):
    box = slide.shapes.add_textbox(Emu(x), Emu(y), Emu(w), Emu(h))
    box.name = name
    paragraphs = text.split("\n")
    frame = box.text_frame
    for index, line in enumerate(paragraphs):
        para = frame.paragraphs[0] if index == 0 else frame.add_paragraph()
        run = para.add_run()
        run.text = line
        run.font.size = Pt(size)
    return box


def _titled(prs, layout: int, title: str, plan: Plan):
    slide = prs.slides.add_slide(prs.slide_layouts[layout])
    slide.shapes.title.text = title
    plan.titles[len(prs.slides)] = title
    return slide


def build_deck(rng: random.Random) -> tuple[Presentation, Plan]:
    """A fresh original deck; the same ``rng`` state gives the same deck."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(WIDTH), Emu(HEIGHT)
    plan = Plan(topic=rng.choice(TOPICS))
    sizes = [float(s) for s in rng.sample((14, 16, 18, 22, 24, 28), 4)]

    first = _titled(prs, TITLE_SLIDE, f"Project {plan.topic}", plan)
    first.placeholders[1].text = f"Quarterly review {rng.randint(2024, 2027)}"

    agenda = _titled(prs, TITLE_AND_CONTENT, "Agenda", plan)
    body = agenda.placeholders[1].text_frame
    for index, item in enumerate(rng.sample(AGENDA_ITEMS, 4)):
        para = body.paragraphs[0] if index == 0 else body.add_paragraph()
        para.text = item

    results = _titled(prs, TITLE_ONLY, "Results by region", plan)
    regions = rng.sample(REGIONS, 3)
    plan.table = [["Region", "2025", "2026"]] + [
        [r, str(rng.randint(10, 99)), str(rng.randint(10, 99))] for r in regions]
    frame = results.shapes.add_table(4, 3, Emu(900_000), Emu(1_900_000), Emu(7_000_000),
                                     Emu(2_400_000))
    frame.name = "Results table"
    for r, row in enumerate(plan.table):
        for c, value in enumerate(row):
            frame.table.cell(r, c).text = value
    _text_box(results, "Subtitle", "Units sold, thousands", 900_000, 1_250_000, 7_000_000,
              500_000, sizes[0])
    plan.subtitle_sizes[3] = sizes[0]

    revenue = _titled(prs, TITLE_ONLY, "Revenue by quarter", plan)
    data = CategoryChartData()
    data.categories = ["Q1", "Q2", "Q3", "Q4"]
    for series in ("2025", "2026"):
        plan.values[series] = [float(rng.randint(5, 40)) for _ in range(4)]
        data.add_series(series, plan.values[series])
    chart = revenue.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Emu(900_000),
                                     Emu(1_900_000), Emu(7_000_000), Emu(4_200_000), data)
    chart.name = "Revenue chart"
    _text_box(revenue, "Subtitle", "Millions of euros", 900_000, 1_250_000, 7_000_000, 500_000,
              sizes[1])
    plan.subtitle_sizes[4] = sizes[1]

    steps = _titled(prs, TITLE_ONLY, "How it works", plan)
    boxes = []
    for index, label in enumerate(rng.sample(STEPS, plan.steps), 1):
        x = 700_000 + (index - 1) * 3_300_000 + rng.randint(-300_000, 300_000)
        y = 2_600_000 + rng.randint(-400_000, 400_000)
        box = steps.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, Emu(x), Emu(y),
                                     Emu(2_200_000), Emu(1_000_000))
        box.name = f"Step {index}"
        box.text = label
        box.fill.solid()
        box.fill.fore_color.rgb = RGBColor.from_string(rng.choice(PALETTE))
        boxes.append(box)
    for one, two in itertools.pairwise(boxes):
        arrow = steps.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
        arrow.begin_connect(one, 3)
        arrow.end_connect(two, 1)
        arrow.name = f"Arrow {one.name[-1]}-{two.name[-1]}"
    legend = steps.shapes.add_group_shape()
    legend.name = "Legend"
    swatch = legend.shapes.add_shape(MSO_SHAPE.RECTANGLE, Emu(700_000), Emu(5_400_000),
                                     Emu(300_000), Emu(300_000))
    swatch.name = "Legend swatch"
    key = legend.shapes.add_textbox(Emu(1_100_000), Emu(5_350_000), Emu(3_000_000),
                                    Emu(400_000))
    key.name = "Legend text"
    key.text = "One box per stage"
    _text_box(steps, "Subtitle", "From raw data to release", 700_000, 1_250_000, 7_000_000,
              500_000, sizes[2])
    plan.subtitle_sizes[5] = sizes[2]

    partners = _titled(prs, TITLE_ONLY, "Our partners", plan)
    for name, letter, x in (("Logo", plan.topic[0], 1_500_000),
                            ("Partner logo", "P", 6_500_000)):
        picture = partners.shapes.add_picture(
            io.BytesIO(logo_png(letter, rng.choice(PALETTE))),
            Emu(x + rng.randint(-200_000, 200_000)), Emu(2_300_000 + rng.randint(0, 600_000)),
            Emu(2_000_000 + rng.randint(0, 600_000)))
        picture.name = name
    _text_box(partners, "Subtitle", "Who builds it with us", 900_000, 1_250_000, 7_000_000,
              500_000, sizes[3])
    plan.subtitle_sizes[6] = sizes[3]

    staging = _titled(prs, TITLE_ONLY, "Staging notes", plan)
    staging._element.set("show", "0")  # hidden, as a working slide is: rendered deliberately
    lines = rng.sample(NARRATION, 3)
    plan.narration = dict(zip((2, 3, 5), lines, strict=True))
    _text_box(staging, "Narration", "\n".join(f"Slide {n}: {t}" for n, t in
                                              plan.narration.items()),
              900_000, 1_600_000, 9_000_000, 3_000_000, 18)

    closing = _titled(prs, TITLE_ONLY, "Thank you", plan)
    _text_box(closing, "Contact", f"team-{plan.topic.lower()}@example.org", 900_000, 2_800_000,
              7_000_000, 600_000, 20)

    roadmap = _titled(prs, TITLE_ONLY, "Roadmap", plan)
    plan.roadmap = rng.sample(ROADMAP, 4)
    add_smartart(roadmap, "Roadmap diagram", plan.roadmap, 900_000, 2_000_000, 10_000_000,
                 2_800_000)

    launch = _titled(prs, TITLE_ONLY, "Launch film", plan)
    add_video(launch, "Launch video", logo_png("V", rng.choice(PALETTE), 320), 3_000_000,
              1_700_000, 6_000_000, 4_500_000)
    return prs, plan
