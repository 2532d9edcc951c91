"""PDF page to PNG with pypdfium2, at a fixed width and the slide's exact aspect ratio."""

from __future__ import annotations

from pathlib import Path

from PIL import Image
from refig.images import MAX_PIXELS
from refig.pdf import PdfError, first_page

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
        image = first_page(pdf, lambda page_width, _: width / page_width, max_pixels=max_pixels)
    except PdfError as exc:
        raise RasterError(exc.message) from exc
    height = max(1, round(width * aspect)) if aspect else image.height
    if image.size != (width, height):
        image = image.resize((width, height), Image.Resampling.LANCZOS)
    image.save(png, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return width, height
