"""refig_toolkit_imaging.pdf: the first page of real PDFs (written here with pypdfium2), within a
pixel budget."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image
from refig_toolkit_imaging import PdfError, dpi_within, first_page, render_pages, render_pages_bgr


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


def picture_pdf(width: int, height: int) -> bytes:
    """A one-page PDF holding a striped picture, a point per pixel (written by Pillow)."""
    image = Image.new("RGB", (width, height), "white")
    for x in range(0, width, 7):
        image.paste((200, 30, 30), (x, 0, x + 3, height))
    buffer = io.BytesIO()
    image.save(buffer, format="PDF", resolution=72)
    return buffer.getvalue()


def test_a_page_drawn_into_its_own_size_is_the_page_rendered_at_its_scale() -> None:
    data = picture_pdf(301, 157)
    scale = dpi_within(144)
    rendered = first_page(data, scale)
    drawn = first_page(data, scale, size=lambda w, h: rendered.size)
    assert drawn.size == rendered.size == (602, 314)
    assert drawn.tobytes() == rendered.tobytes()  # the same pixels: the same drawing


def test_a_page_is_drawn_into_exactly_the_size_asked() -> None:
    data = picture_pdf(301, 157)
    drawn = first_page(data, dpi_within(144), size=lambda w, h: (602, 313))  # a pixel shorter
    assert drawn.size == (602, 313) and drawn.mode == "RGB"
    assert drawn.getpixel((2, 100))[1] < 100 and drawn.getpixel((10, 100))[1] > 200
    with pytest.raises(PdfError, match="over the limit"):
        first_page(data, dpi_within(72), max_pixels=10_000, size=lambda w, h: (200, 100))


def test_bgr_pages_are_the_rgb_pages_in_the_other_channel_order() -> None:
    """What an encoder taking BGR gets is, pixel for pixel, what :func:`render_pages` gives,
    drawn at a scale (resampled picture) and into a size."""
    image = Image.effect_noise((97, 61), 90).convert("RGB")
    image.paste((200, 30, 30), (10, 10, 40, 30))
    buffer = io.BytesIO()
    image.save(buffer, format="PDF", resolution=72, save_all=True, append_images=[image.rotate(90)])
    data = buffer.getvalue()
    for size in (None, lambda w, h: (301, 190)):
        rgb = render_pages(data, dpi_within(150), size=size)
        bgr = render_pages_bgr(data, dpi_within(150), size=size)
        assert len(rgb) == len(bgr) == 2
        for page, array in zip(rgb, bgr, strict=True):
            assert array.dtype == np.uint8 and array.flags.c_contiguous
            assert array.shape == (page.height, page.width, 3)
            assert np.array_equal(array[:, :, ::-1], np.asarray(page))
