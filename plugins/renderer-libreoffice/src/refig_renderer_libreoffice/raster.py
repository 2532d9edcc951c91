"""PDF page to PNG with pypdfium2, at a fixed width and the slide's exact aspect ratio."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from refig.plugin import MAX_PIXELS, PdfError, first_page, render_pages

#: zlib level of the PNGs: level 1 encodes a 1600 px slide about 3x faster than Pillow's default
#: 6 for files about a third larger, the same pixels (benchmarks/full_pass measures both).
PNG_COMPRESS_LEVEL = 1


class RasterError(Exception):
    """A PDF that cannot be turned into a PNG."""


def pdf_to_png(
    pdf: Path, png: Path, *, width: int, aspect: float | None = None, max_pixels: int = MAX_PIXELS
) -> tuple[int, int]:
    """Render the first page of ``pdf`` to ``png``, ``width`` pixels wide; return the size.

    ``aspect`` (height / width) is the slide's own, from ``p:sldSz``; the PDF page size is
    rounded to points, so without it the height could be a pixel off the slide's shape. A page
    whose PNG would exceed ``max_pixels`` (at 1600 px, a slide over 25 times taller than wide) is
    refused before any bitmap is allocated.
    """
    if aspect is not None and width * round(width * aspect) > max_pixels:
        raise RasterError(f"a {width} px wide image of the slide would be "
                          f"{round(width * aspect):,} px tall, over the limit of "
                          f"{max_pixels:,} pixels")
    try:
        image = first_page(pdf, lambda page_width, _: width / page_width, max_pixels=max_pixels,
                           size=exact_size(width, aspect))
    except PdfError as exc:
        raise RasterError(exc.message) from exc
    image.save(png, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return image.size


def exact_size(width: int, aspect: float | None) -> Callable[[float, float], tuple[int, int]]:
    """Draw a page ``width`` pixels wide and as tall as the slide's ``aspect`` says (else as the
    page's points say): drawn at that size, not drawn at the page's rounded size and resampled."""

    def size(page_width: float, page_height: float) -> tuple[int, int]:
        return width, max(1, round(width * (aspect or page_height / page_width)))

    return size


def pdf_to_pngs(
    pdf: Path, out_dir: Path, *, width: int, aspect: float | None = None, all_pages: bool = False,
    max_pixels: int = MAX_PIXELS,
) -> list[Path]:
    """The first page (or every page) of ``pdf`` as ``page-NNN.png`` files in ``out_dir``,
    ``width`` pixels wide, each within ``max_pixels``."""
    if not all_pages:
        png = out_dir / "page-000.png"
        pdf_to_png(pdf, png, width=width, aspect=aspect, max_pixels=max_pixels)
        return [png]
    try:
        images = render_pages(pdf, lambda page_width, _: width / page_width,
                              max_pixels=max_pixels, size=exact_size(width, aspect))
    except PdfError as exc:
        raise RasterError(exc.message) from exc
    paths = []
    for index, image in enumerate(images):
        path = out_dir / f"page-{index:03d}.png"
        image.save(path, format="PNG")
        paths.append(path)
    return paths
