"""PDF page to PNG with pypdfium2, at a fixed width and the slide's exact aspect ratio."""

from __future__ import annotations

import threading
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image
from refig.images import MAX_PIXELS

# PDFium is not thread-safe; pypdfium2 leaves locking to the caller.
_PDFIUM = threading.Lock()


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
    with _PDFIUM:
        try:
            document = pdfium.PdfDocument(str(pdf))
        except pdfium.PdfiumError as exc:
            raise RasterError(f"unreadable PDF: {exc}") from exc
        try:
            if len(document) == 0:
                raise RasterError("the PDF has no page")
            page = document[0]
            try:
                page_width, page_height = page.get_size()
                if page_width <= 0 or page_height <= 0:
                    raise RasterError(f"the PDF page is {page_width}x{page_height} points")
                height = max(1, round(width * (aspect or page_height / page_width)))
                drawn = round(width * page_height / page_width)
                if width * max(height, drawn) > max_pixels:
                    raise RasterError(
                        f"a {width} px wide image of the page would be {max(height, drawn):,} px "
                        f"tall, over the limit of {max_pixels:,} pixels"
                    )
                bitmap = page.render(scale=width / page_width, rev_byteorder=True)  # RGB order
                try:
                    image = bitmap.to_pil().convert("RGB")  # a copy: the bitmap is freed below
                finally:
                    bitmap.close()
            except pdfium.PdfiumError as exc:
                raise RasterError(f"PDFium cannot render the page: {exc}") from exc
            finally:
                page.close()
        finally:
            document.close()
    if image.size != (width, height):
        image = image.resize((width, height), Image.Resampling.LANCZOS)
    image.save(png, format="PNG")
    return width, height
