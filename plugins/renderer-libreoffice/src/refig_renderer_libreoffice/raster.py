"""PDF page to PNG with pypdfium2, at a fixed width and the slide's exact aspect ratio."""

from __future__ import annotations

import threading
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image

# PDFium is not thread-safe; pypdfium2 leaves locking to the caller.
_PDFIUM = threading.Lock()


class RasterError(Exception):
    """A PDF that cannot be turned into a PNG."""


def pdf_to_png(pdf: Path, png: Path, *, width: int, aspect: float | None = None) -> tuple[int, int]:
    """Render the first page of ``pdf`` to ``png``, ``width`` pixels wide; return the size.

    ``aspect`` (height / width) is the slide's own, from ``p:sldSz``; the PDF page size is
    rounded to points, so without it the height could be a pixel off the slide's shape.
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
            page_width, page_height = page.get_size()
            if page_width <= 0 or page_height <= 0:
                raise RasterError(f"the PDF page is {page_width}x{page_height} points")
            ratio = aspect if aspect else page_height / page_width
            height = max(1, round(width * ratio))
            bitmap = page.render(scale=width / page_width, rev_byteorder=True)  # RGB, no swap
            image = bitmap.to_pil()
            page.close()
        finally:
            document.close()
    if image.size != (width, height):
        image = image.resize((width, height), Image.Resampling.LANCZOS)
    image.convert("RGB").save(png, format="PNG")
    return width, height
