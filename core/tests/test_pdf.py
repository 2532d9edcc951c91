"""refig.pdf: the first page of real PDFs (written here with pypdfium2), within a pixel budget."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from refig.pdf import PdfError, dpi_within, first_page


def pdf_bytes(width: float, height: float, pages: int = 1) -> bytes:
    """A PDF of ``pages`` blank pages of ``width`` x ``height`` points."""
    document = pdfium.PdfDocument.new()
    for _ in range(pages):
        document.new_page(width, height).close()
    buffer = io.BytesIO()
    document.save(buffer)
    document.close()
    return buffer.getvalue()


def test_dpi_scale_and_white_background(tmp_path: Path) -> None:
    source = tmp_path / "fig.pdf"
    source.write_bytes(pdf_bytes(144, 72, pages=2))  # 2 x 1 inches, two pages: the first counts
    image = first_page(source, dpi_within(100))
    assert image.size == (200, 100) and image.mode == "RGB"
    assert image.getpixel((10, 10)) == (255, 255, 255)
    assert first_page(source.read_bytes(), dpi_within(100)).size == (200, 100)


def test_the_scale_shrinks_to_fit_the_budget_and_a_side_limit() -> None:
    data = pdf_bytes(720, 720)  # 10 x 10 inches
    assert first_page(data, dpi_within(300, max_pixels=250_000)).size == (500, 500)
    assert first_page(data, dpi_within(300, max_side=400)).size == (400, 400)


def test_over_the_budget_or_unreadable_is_a_pdf_error(tmp_path: Path) -> None:
    with pytest.raises(PdfError, match="over the limit"):
        first_page(pdf_bytes(72, 14_400), lambda w, h: 1600 / w)  # 1 x 200 inches at 1600 px
    with pytest.raises(PdfError, match="unreadable PDF"):
        first_page(b"%PDF-1.4 and nothing else", dpi_within(72))


def test_threads_share_pdfium_safely() -> None:
    data, sizes, errors = pdf_bytes(144, 144), [], []

    def render() -> None:
        try:
            sizes.extend(first_page(data, dpi_within(72 * k)).size for k in (1, 2, 3))
        except Exception as exc:  # collected: an exception in a thread would be lost
            errors.append(exc)

    threads = [threading.Thread(target=render) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and sorted(set(sizes)) == [(144, 144), (288, 288), (432, 432)]
