"""Decks generated for the gate and object-tree tests: python-pptx builds them, lxml and zipfile
twist them into the hostile and hidden cases python-pptx cannot write."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree
from PIL import Image
from pptx import Presentation
from pptx.util import Emu
from refig_toolkit_pptx import ObjectKind, ObjectTree, SlideObject
from refig_toolkit_pptx.gate import inspect_structure
from refig_toolkit_pptx.xml import NS

SLIDE = "ppt/slides/slide1.xml"
WIDE = (12_192_000, 6_858_000)


def png_bytes(
    size: tuple[int, int] = (64, 48), color: tuple[int, int, int] = (200, 30, 30)
) -> bytes:
    """A small real PNG."""
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def bomb_png(width: int = 20_000, height: int = 20_000) -> bytes:
    """A valid 1-bit PNG of ``width`` x ``height`` zeros: tiny on disk, huge once decoded."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    row = b"\x00" * (1 + (width + 7) // 8)
    packer = zlib.compressobj(9)
    body = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
    )


def element(xml: str) -> etree._Element:
    """An XML snippet with the OOXML prefixes declared."""
    declarations = " ".join(f'xmlns:{p}="{u}"' for p, u in NS.items())
    wrapper = etree.fromstring(f"<wrap {declarations}>{xml}</wrap>")
    return wrapper[0]


def picture_xml(rid: str, shape_id: int, rect: tuple[int, int, int, int], name: str = "Pic") -> str:
    """A ``p:pic`` showing the image of relationship ``rid`` at ``rect`` (x, y, w, h)."""
    x, y, w, h = rect
    return (
        f'<p:pic><p:nvPicPr><p:cNvPr id="{shape_id}" name="{name}"/><p:cNvPicPr/><p:nvPr/>'
        f'</p:nvPicPr><p:blipFill><a:blip r:embed="{rid}"/><a:stretch><a:fillRect/></a:stretch>'
        f'</p:blipFill><p:spPr><a:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="{w}" cy="{h}"/>'
        f'</a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:pic>'
    )


def blip_fill(rid: str) -> str:
    return f'<a:blipFill><a:blip r:embed="{rid}"/><a:stretch><a:fillRect/></a:stretch></a:blipFill>'


def image_rel(part: object, png: bytes) -> str:
    """Add ``png`` to a python-pptx slide, layout or master part; return the relationship id."""
    _, rid = part.get_or_add_image_part(io.BytesIO(png))  # type: ignore[attr-defined]
    return rid


def rewrite(path: Path, changes: dict[str, bytes | Callable[[bytes], bytes] | None]) -> Path:
    """Rewrite a zip: replace parts (bytes or a function of the old bytes), drop them (None) or
    add new ones."""
    with zipfile.ZipFile(path) as source:
        parts = {info.filename: source.read(info) for info in source.infolist()}
    for name, change in changes.items():
        if change is None:
            parts.pop(name, None)
        elif callable(change):
            parts[name] = change(parts[name])
        else:
            parts[name] = change
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in parts.items():
            target.writestr(name, data)
    return path


class Decks:
    """Factory of generated decks under a temporary directory (helpers reachable from tests,
    which cannot import this conftest under ``--import-mode=importlib``)."""

    SLIDE = SLIDE
    WIDE = WIDE
    picture_xml = staticmethod(picture_xml)
    blip_fill = staticmethod(blip_fill)
    image_rel = staticmethod(image_rel)
    png_bytes = staticmethod(png_bytes)
    bomb_png = staticmethod(bomb_png)
    element = staticmethod(element)
    rewrite = staticmethod(rewrite)

    def __init__(self, root: Path):
        self.root = root
        self.count = 0

    def path(self, stem: str) -> Path:
        self.count += 1
        return self.root / f"{self.count:02d}-{stem}.pptx"

    def new(self, slides: int = 1, size: tuple[int, int] = WIDE) -> Presentation:
        prs = Presentation()
        prs.slide_width, prs.slide_height = Emu(size[0]), Emu(size[1])
        for _ in range(slides):
            prs.slides.add_slide(prs.slide_layouts[6])
        return prs

    def save(self, prs: Presentation, stem: str) -> Path:
        path = self.path(stem)
        prs.save(path)
        return path

    def png_bomb(self) -> Path:
        """A one-slide deck whose full-slide picture is a decompression-bomb PNG (python-pptx
        refuses to add one, so a small picture is added and its bytes swapped)."""
        prs = self.new()
        picture = io.BytesIO(png_bytes())
        prs.slides[0].shapes.add_picture(picture, 0, 0, prs.slide_width, prs.slide_height)
        path = self.save(prs, "png-bomb")
        return rewrite(path, {"ppt/media/image1.png": bomb_png()})

    @staticmethod
    def tree_of(path: Path) -> ObjectTree:
        """The object tree of a deck that must pass the gate."""
        result = inspect_structure(path)
        assert result.gate.passed, result.gate
        assert result.tree is not None
        return result.tree

    @staticmethod
    def own(tree: ObjectTree, kind: ObjectKind) -> list[SlideObject]:
        """The slide's own objects of ``kind`` (not those its layout or master paint)."""
        return [o for o in tree.walk() if o.kind == kind and o.layer == "slide"]

    def simple(self, stem: str = "simple", slides: int = 1) -> Path:
        prs = self.new(slides)
        for slide in prs.slides:
            slide.shapes.add_textbox(
                Emu(914400), Emu(914400), Emu(3657600), Emu(914400)
            ).text = "hello"
        return self.save(prs, stem)


@pytest.fixture
def decks(tmp_path: Path) -> Decks:
    return Decks(tmp_path)
