"""PDF to PNG with pypdfium2 on PDFs written here (no LibreOffice needed)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as raw
import pytest
from PIL import Image
from refig_renderer_libreoffice.raster import RasterError, exact_size, pdf_to_png, pdf_to_pngs
from refig_toolkit_imaging import first_page, render_pages


def blank_pdf(path: Path, width: float, height: float) -> Path:
    """A one-page PDF of ``width`` x ``height`` points."""
    document = pdfium.PdfDocument.new()
    document.new_page(width, height).close()
    document.save(str(path))
    document.close()
    return path


def vector_pdf(path: Path, pages: int = 1) -> Path:
    """PDF pages of 960 x 540 points holding what slides hold: filled, outlined rectangles at
    fractional positions and lines of text (anti-aliased edges, many distinct colours)."""
    document = pdfium.PdfDocument.new()
    for index in range(pages):
        page = document.new_page(960, 540)
        for box, (r, g, b) in enumerate([(200, 30, 30), (30, 120, 200), (40, 160, 60)]):
            rect = raw.FPDFPageObj_CreateNewRect(60.3 + box * 280, 150.7 + box * 40, 220.5, 130.3)
            raw.FPDFPageObj_SetFillColor(rect, r, g, b, 255)
            raw.FPDFPageObj_SetStrokeColor(rect, 20, 20, 20, 255)
            raw.FPDFPageObj_SetStrokeWidth(rect, 2.5)
            raw.FPDFPath_SetDrawMode(rect, raw.FPDF_FILLMODE_ALTERNATE, True)
            raw.FPDFPage_InsertObject(page.raw, rect)
            text = raw.FPDFPageObj_NewTextObj(document.raw, b"Helvetica", 31.7 - index)
            words = f"Encoder {box} -> attention".encode("utf-16-le") + b"\x00\x00"
            raw.FPDFText_SetText(text, ctypes.cast(ctypes.c_char_p(words),
                                                   ctypes.POINTER(raw.FPDF_WCHAR)))
            raw.FPDFPageObj_Transform(text, 1, 0, 0, 1, 70.2 + box * 280, 100.6 + box * 40)
            raw.FPDFPage_InsertObject(page.raw, text)
        raw.FPDFPage_GenerateContent(page.raw)
        page.close()
    document.save(str(path))
    document.close()
    return path


def test_the_png_holds_exactly_the_pixels_pdfium_draws(tmp_path: Path) -> None:
    """The PNG (OpenCV's libpng, one filter for every row) decodes to the very pixels PDFium drew,
    which is the image the Pillow encoder wrote before: nothing is lost in the faster encoding."""
    pdf = vector_pdf(tmp_path / "slides.pdf", pages=2)
    drawn = first_page(pdf, lambda w, _: 1600 / w, size=exact_size(1600, 9 / 16))
    assert pdf_to_png(pdf, tmp_path / "one.png", width=1600, aspect=9 / 16) == drawn.size
    with Image.open(tmp_path / "one.png") as png:
        assert png.mode == "RGB" and png.size == (1600, 900)
        assert png.tobytes() == drawn.tobytes()
    assert len(drawn.getcolors(maxcolors=1 << 20)) > 100  # anti-aliased: not a flat picture
    every = render_pages(pdf, lambda w, _: 800 / w, size=exact_size(800, None))
    paths = pdf_to_pngs(pdf, tmp_path, width=800, all_pages=True)
    assert [p.name for p in paths] == ["page-000.png", "page-001.png"]
    for path, page in zip(paths, every, strict=True):
        with Image.open(path) as png:
            assert png.tobytes() == page.tobytes()
    assert every[0].tobytes() != every[1].tobytes()  # the pages differ: each page is its own


def test_the_png_has_the_width_asked_and_the_slide_aspect(tmp_path: Path) -> None:
    pdf = blank_pdf(tmp_path / "page.pdf", 960, 540.3)  # a page size rounded to points
    size = pdf_to_png(pdf, tmp_path / "page.png", width=400, aspect=9 / 16)
    with Image.open(tmp_path / "page.png") as image:
        assert size == image.size == (400, 225) and image.mode == "RGB"


def test_a_page_too_tall_for_the_pixel_limit_is_refused(tmp_path: Path) -> None:
    pdf = blank_pdf(tmp_path / "tall.pdf", 72, 14_400)  # 1 x 200 inches
    with pytest.raises(RasterError, match="over the limit"):
        pdf_to_png(pdf, tmp_path / "tall.png", width=1600)
    assert not (tmp_path / "tall.png").exists()
    assert pdf_to_png(pdf, tmp_path / "thin.png", width=16) == (16, 3200)  # small enough


def test_a_file_that_is_not_a_pdf_is_a_raster_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pdf"
    junk.write_bytes(b"%PDF-1.4 but nothing else")
    with pytest.raises(RasterError, match="unreadable PDF"):
        pdf_to_png(junk, tmp_path / "junk.png", width=100)
