"""The first page of a PDF as an image, through pypdfium2, within a pixel budget.

PDFium is not thread-safe and pypdfium2 leaves locking to the caller, so every call here holds one
process-wide lock. The bitmap is copied into Pillow and freed before the lock is released.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from refig.errors import RefigError
from refig.images import MAX_PIXELS

_PDFIUM = threading.Lock()

#: ``scale(width_pt, height_pt)``: pixels per PDF point for a page of that size.
Scale = Callable[[float, float], float]


class PdfError(RefigError):
    """A PDF whose first page cannot be rendered: unreadable, empty, degenerate or too large."""


def first_page(source: Path | bytes, scale: Scale, *, max_pixels: int = MAX_PIXELS) -> Image.Image:
    """Render page one of ``source`` on white at ``scale(width_pt, height_pt)``, as RGB.

    A page whose image would exceed ``max_pixels`` is refused before any bitmap is allocated.
    """
    import pypdfium2 as pdfium

    name = str(source) if isinstance(source, Path) else "<PDF bytes>"
    with _PDFIUM:
        try:
            document = pdfium.PdfDocument(str(source) if isinstance(source, Path) else source)
        except pdfium.PdfiumError as exc:
            raise PdfError(f"unreadable PDF: {exc}", path=name) from exc
        try:
            if len(document) == 0:
                raise PdfError("the PDF has no page", path=name)
            page = document[0]
            try:
                width, height = page.get_size()
                if width <= 0 or height <= 0:
                    raise PdfError(f"the PDF page is {width}x{height} points", path=name)
                factor = scale(width, height)
                pixels = round(width * factor) * round(height * factor)
                if pixels > max_pixels:
                    raise PdfError(f"the page would be {pixels:,} pixels, over the limit of "
                                   f"{max_pixels:,}", path=name)
                bitmap = page.render(scale=factor, fill_color=(255, 255, 255, 255))
                try:
                    return bitmap.to_pil().convert("RGB")  # a copy: the bitmap is freed below
                finally:
                    bitmap.close()
            except pdfium.PdfiumError as exc:
                raise PdfError(f"PDFium cannot render the page: {exc}", path=name) from exc
            finally:
                page.close()
        finally:
            document.close()


def dpi_within(dpi: float, *, max_pixels: int = MAX_PIXELS, max_side: float | None = None) -> Scale:
    """A scale of ``dpi`` that shrinks to fit ``max_pixels`` (and ``max_side`` pixels a side)."""

    def scale(width: float, height: float) -> float:
        factor = min(dpi / 72, (max_pixels / (width * height)) ** 0.5)
        return min(factor, max_side / max(width, height)) if max_side else factor

    return scale
