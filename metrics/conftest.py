"""Fixtures shared by the metric plugins' tests: a generated source figure, real .pptx files
(python-pptx, plus raw XML for what it cannot write) and their object trees."""

from __future__ import annotations

import copy
import hashlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from lxml import etree
from PIL import Image, ImageDraw, ImageFont
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.oxml.ns import qn
from pptx.slide import Slide
from pptx.util import Emu, Pt
from refig.models import GateResult
from refig.protocols import Artifact
from refig_toolkit_pptx import Package, read_tree

SLIDE_W, SLIDE_H = 12_192_000, 6_858_000  # 16:9, as PowerPoint creates
#: Real figures and decks beside the repository (tests that use them skip when they are absent).
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
REAL_FIGURES, PPTX_REAL = SHARED_DATA / "real-figures", SHARED_DATA / "pptx-real"
NS_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
NS_P14 = "http://schemas.microsoft.com/office/powerpoint/2010/main"

#: The labels of the generated figure, in reading order (the text metric's ground truth).
LABELS = (
    "Image Encoder",
    "Patch Tokens",
    "Cross Attention",
    "Memory Bank",
    "Decoder Head",
    "Contrastive Loss",
)
TITLE = "Overview of the Retrieval Pipeline"
COLOURS = ("#CFE2F3", "#FCE5CD", "#D9EAD3", "#F4CCCC", "#D9D2E9", "#FFF2CC")


CARLITO = Path("/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf")


def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Carlito (metric-compatible with Calibri, installed by CI) or Pillow's own font."""
    return (
        ImageFont.truetype(str(CARLITO), size)
        if CARLITO.is_file()
        else ImageFont.load_default(size)
    )


def draw_figure(seed: int = 0, width: int = 1600, height: int = 800) -> Image.Image:
    """A synthetic overview figure: a title, labelled boxes joined by arrows, a photo-like panel."""
    rng = np.random.default_rng(seed)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((width // 2, 50), TITLE, font=font(44), fill="#111111", anchor="mm")
    boxes = []
    for i, label in enumerate(LABELS):
        col, row = i % 3, i // 3
        x0, y0 = 420 + col * 400, 150 + row * 330
        box = (x0, y0, x0 + 320, y0 + 150)
        boxes.append(box)
        draw.rounded_rectangle(box, radius=18, fill=COLOURS[i], outline="#333333", width=4)
        centre = ((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)
        draw.text(centre, label, font=font(34), fill="#111111", anchor="mm")
    for a, b in ((0, 1), (1, 2), (3, 4), (4, 5), (0, 3)):
        ax, ay = (boxes[a][0] + boxes[a][2]) // 2, (boxes[a][1] + boxes[a][3]) // 2
        bx, by = (boxes[b][0] + boxes[b][2]) // 2, (boxes[b][1] + boxes[b][3]) // 2
        if ay == by:
            start, end = (boxes[a][2], ay), (boxes[b][0], by)
            head = [(end[0], end[1]), (end[0] - 22, end[1] - 12), (end[0] - 22, end[1] + 12)]
        else:
            start, end = (ax, boxes[a][3]), (bx, boxes[b][1])
            head = [(end[0], end[1]), (end[0] - 12, end[1] - 22), (end[0] + 12, end[1] - 22)]
        draw.line([start, end], fill="#333333", width=5)
        draw.polygon(head, fill="#333333")
    # A photo-like panel (smooth colour noise), as overview figures show input images.
    noise = rng.random((12, 9, 3))
    photo = Image.fromarray((noise * 255).astype(np.uint8)).resize((270, 360), Image.BICUBIC)
    image.paste(photo, (60, 180))
    draw.rectangle((60, 180, 330, 540), outline="#111111", width=4)
    draw.text((195, 590), "Input View", font=font(32), fill="#111111", anchor="mm")
    return image


@pytest.fixture(scope="session")
def source_png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated source figure as a PNG file."""
    path = tmp_path_factory.mktemp("source") / "figure.png"
    draw_figure().save(path)
    return path


# --- slides ---------------------------------------------------------------------------------------


def new_slide(height: int = SLIDE_H) -> tuple[Presentation, Slide]:
    """A presentation with one blank slide, 16:9 unless ``height`` says otherwise."""
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(SLIDE_W), Emu(height)
    return prs, prs.slides.add_slide(prs.slide_layouts[6])


def add_native_figure(slide: Slide) -> None:
    """An honest, native rebuild of the generated figure: text shapes and bound connectors,
    placed where the figure has them (stretched to the slide's aspect)."""
    part = slide.part.package.presentation_part.presentation
    scale_x, scale_y = part.slide_width / 1600, part.slide_height / 800
    title = slide.shapes.add_textbox(
        Emu(0), Emu(int(20 * scale_y)), Emu(part.slide_width), Emu(int(70 * scale_y))
    )
    title.text_frame.text = TITLE
    title.text_frame.paragraphs[0].runs[0].font.size = Pt(28)
    shapes = []
    for i, label in enumerate(LABELS):
        col, row = i % 3, i // 3
        x0, y0 = 420 + col * 400, 150 + row * 330
        shape = slide.shapes.add_shape(
            MSO_SHAPE.ROUNDED_RECTANGLE,
            Emu(int(x0 * scale_x)),
            Emu(int(y0 * scale_y)),
            Emu(int(320 * scale_x)),
            Emu(int(150 * scale_y)),
        )
        shape.fill.solid()
        shape.fill.fore_color.rgb = RGBColor.from_string(COLOURS[i][1:])
        shape.line.color.rgb = RGBColor(0x33, 0x33, 0x33)
        shape.line.width = Pt(2)
        shape.text_frame.text = label
        shape.text_frame.paragraphs[0].runs[0].font.color.rgb = RGBColor(0x11, 0x11, 0x11)
        shape.text_frame.paragraphs[0].runs[0].font.size = Pt(20)
        shapes.append(shape)
    for a, b in ((0, 1), (1, 2), (3, 4), (4, 5), (0, 3)):
        line = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
        same_row = a // 3 == b // 3
        line.begin_connect(shapes[a], 3 if same_row else 2)
        line.end_connect(shapes[b], 1 if same_row else 0)
        line.line.color.rgb = RGBColor(0x33, 0x33, 0x33)
        line.line.width = Pt(2.5)
        tail = etree.SubElement(line.line._get_or_add_ln(), qn("a:tailEnd"))
        tail.set("type", "triangle")
    label = slide.shapes.add_textbox(
        Emu(int(60 * scale_x)),
        Emu(int(570 * scale_y)),
        Emu(int(270 * scale_x)),
        Emu(int(50 * scale_y)),
    )
    label.text_frame.text = "Input View"


def image_rid(slide: Slide, image: Path) -> str:
    """Relate ``image`` to the slide; the relationship id to put in an ``a:blip``."""
    _, rid = slide.part.get_or_add_image_part(str(image))
    return rid


def blip_fill(rid: str) -> etree._Element:
    """``a:blipFill`` stretching the image related as ``rid`` over the shape."""
    fill = etree.Element(qn("a:blipFill"))
    blip = etree.SubElement(fill, qn("a:blip"))
    blip.set(qn("r:embed"), rid)
    etree.SubElement(etree.SubElement(fill, qn("a:stretch")), qn("a:fillRect"))
    return fill


def add_picture_fill(slide: Slide, image: Path, box: tuple[int, int, int, int]) -> None:
    """A rectangle whose fill is ``image``: a picture python-pptx does not call a picture."""
    shape = slide.shapes.add_shape(MSO_SHAPE.RECTANGLE, *(Emu(v) for v in box))
    sp_pr = shape._element.spPr
    for old in sp_pr.findall(qn("a:solidFill")):
        sp_pr.remove(old)
    sp_pr.insert(sp_pr.index(sp_pr.find(qn("a:prstGeom"))) + 1, blip_fill(image_rid(slide, image)))


def set_background(slide: Slide, image: Path) -> None:
    """A slide background filled with ``image`` (``p:bg/p:bgPr/a:blipFill``)."""
    c_sld = slide._element.find(qn("p:cSld"))
    bg = etree.Element(qn("p:bg"))
    props = etree.SubElement(bg, qn("p:bgPr"))
    props.append(blip_fill(image_rid(slide, image)))
    etree.SubElement(props, qn("a:effectLst"))
    c_sld.insert(0, bg)


def wrap_in_alternate_content(slide: Slide, shape_element: etree._Element) -> None:
    """Move a shape into ``mc:AlternateContent``: the shape in ``mc:Choice``, a copy in
    ``mc:Fallback`` (python-pptx does not see either)."""
    tree = shape_element.getparent()
    index = tree.index(shape_element)
    alternate = etree.Element(f"{{{NS_MC}}}AlternateContent", nsmap={"mc": NS_MC, "p14": NS_P14})
    choice = etree.SubElement(alternate, f"{{{NS_MC}}}Choice", Requires="p14")
    fallback = etree.SubElement(alternate, f"{{{NS_MC}}}Fallback")
    tree.remove(shape_element)
    choice.append(shape_element)
    fallback.append(copy.deepcopy(shape_element))
    tree.insert(index, alternate)


def save(prs: Presentation, path: Path) -> Path:
    """Write ``prs`` to ``path``; return the path."""
    prs.save(str(path))
    return path


def inspect(path: Path, source: Path | None = None) -> Artifact:
    """The artifact a metric sees: the first slide's object tree, read by refig's own reader."""
    with Package.open(path) as package:
        slides = package.slides()
        tree = read_tree(package, slides[0].part) if slides else None
    return Artifact(
        path=path,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        gate=GateResult(passed=tree is not None, slides=len(slides)),
        structure=tree,
        references={"figure": source} if source is not None else {},
    )


@pytest.fixture
def slides(tmp_path: Path) -> Callable[[str], Path]:
    """A path for a named .pptx in the test's temporary directory."""
    return lambda name: tmp_path / f"{name}.pptx"


@pytest.fixture(scope="session")
def kit() -> ModuleType:
    """This module's builders, for tests (a conftest cannot be imported under importlib mode)."""
    return sys.modules[__name__]


@pytest.fixture(scope="session")
def render(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., list[Path]]]:
    """Render .pptx files to PNG with refig's LibreOffice renderer (one warm renderer a session)."""
    from refig.plugin import RenderJob
    from refig.plugins import Registry
    from refig.records import PluginKind

    try:
        selection = Registry.load().resolve(PluginKind.RENDERER, "libreoffice")
        renderer = selection.create(width=1600)
    except Exception as exc:  # LibreOffice missing: the renderer says how to install it
        pytest.skip(f"the libreoffice renderer cannot run here: {exc}")
    out = tmp_path_factory.mktemp("renders")

    def run(*files: Path) -> list[Path]:
        outputs = renderer.render([RenderJob(f) for f in files], out)
        failed = [(f, o.error) for f, o in zip(files, outputs, strict=True) if o.png is None]
        assert not failed, f"rendering failed: {failed}"
        return [o.png for o in outputs if o.png is not None]

    yield run
    renderer.close()
