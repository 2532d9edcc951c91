"""PDF to PNG with pypdfium2 on PDFs written here (no LibreOffice needed)."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image
from refig_renderer_libreoffice.raster import RasterError, pdf_to_png


def blank_pdf(path: Path, width: float, height: float) -> Path:
    """A one-page PDF of ``width`` x ``height`` points."""
    document = pdfium.PdfDocument.new()
    document.new_page(width, height).close()
    document.save(str(path))
    document.close()
    return path


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
