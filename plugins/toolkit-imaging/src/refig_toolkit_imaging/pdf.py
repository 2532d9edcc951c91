"""The pages of a PDF as images, through pypdfium2, within a pixel budget.

PDFium is not thread-safe and pypdfium2 leaves locking to the caller, so every call here holds one
process-wide lock. The bitmap is copied out (into Pillow, or a NumPy array) and freed before the
lock is released.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from PIL import Image
from refig.plugin import RefigError

from refig_toolkit_imaging.images import MAX_PIXELS

_PDFIUM = threading.Lock()
T = TypeVar("T")

#: ``scale(width_pt, height_pt)``: pixels per PDF point for a page of that size.
Scale = Callable[[float, float], float]
#: ``size(width_pt, height_pt)``: the exact (width, height) in pixels to draw a page of that size
#: into, for an image whose shape is known better than the page's (its points are rounded).
Size = Callable[[float, float], tuple[int, int]]


class PdfError(RefigError):
    """A PDF whose first page cannot be rendered: unreadable, empty, degenerate or too large."""


def first_page(source: Path | bytes, scale: Scale, *, max_pixels: int = MAX_PIXELS,
               size: Size | None = None) -> Image.Image:
    """Render page one of ``source`` on white at ``scale(width_pt, height_pt)`` (or into exactly
    ``size(width_pt, height_pt)`` pixels), as RGB.

    A page whose image would exceed ``max_pixels`` is refused before any bitmap is allocated.
    """
    return render_pages(source, scale, max_pixels=max_pixels, limit=1, size=size)[0]


def render_pages(
    source: Path | bytes, scale: Scale, *, max_pixels: int = MAX_PIXELS, limit: int | None = None,
    size: Size | None = None,
) -> list[Image.Image]:
    """Render the pages of ``source`` (the first ``limit`` of them) on white, as RGB, each
    within ``max_pixels``; a deck's every slide, or a figure's one page. ``size``: draw each
    page into exactly that many pixels (stretched by under a pixel where the page's rounded
    points disagree), instead of at ``scale`` and resampling after."""
    return _render(source, scale, max_pixels, limit, size, _rgb_image)


def render_pages_bgr(
    source: Path | bytes, scale: Scale, *, max_pixels: int = MAX_PIXELS, limit: int | None = None,
    size: Size | None = None,
) -> list[np.ndarray]:
    """The pages :func:`render_pages` gives, pixel for pixel, as PDFium draws them: ``uint8``
    arrays of rows x columns x (blue, green, red), with no conversion, for an encoder that
    takes that order (OpenCV's)."""
    return _render(source, scale, max_pixels, limit, size, _bgr_array)


def _rgb_image(bitmap: Any) -> Image.Image:
    return bitmap.to_pil().convert("RGB")  # a copy: the bitmap is freed after


def _bgr_array(bitmap: Any) -> np.ndarray:
    # both ways of drawing here make 24-bit BGR bitmaps (opaque white fill, no alpha)
    return np.array(bitmap.to_numpy())  # a contiguous copy: the bitmap is freed after


def _render(source: Path | bytes, scale: Scale, max_pixels: int, limit: int | None,
            size: Size | None, take: Callable[[Any], T]) -> list[T]:
    """Each page drawn and handed to ``take``, which copies it out of the bitmap."""
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
            count = len(document) if limit is None else min(limit, len(document))
            return [_page(pdfium, document, index, scale, max_pixels, name, size, take)
                    for index in range(count)]
        finally:
            document.close()


def _page(pdfium: Any, document: Any, index: int, scale: Scale, max_pixels: int,
          name: str, size: Size | None, take: Callable[[Any], T]) -> T:
    """One page, copied out by ``take``; the caller holds the PDFium lock."""
    page = document[index]
    try:
        width, height = page.get_size()
        if width <= 0 or height <= 0:
            raise PdfError(f"PDF page {index + 1} is {width}x{height} points", path=name)
        factor = scale(width, height)
        columns, rows = (size(width, height) if size is not None
                         else (round(width * factor), round(height * factor)))
        if columns * rows > max_pixels:
            raise PdfError(f"page {index + 1} would be {columns * rows:,} pixels, over the limit "
                           f"of {max_pixels:,}", path=name)
        if size is None:
            bitmap = page.render(scale=factor, fill_color=(255, 255, 255, 255))
        else:
            bitmap = _drawn_into(pdfium, page, columns, rows)
        try:
            return take(bitmap)
        finally:
            bitmap.close()
    except pdfium.PdfiumError as exc:
        raise PdfError(f"PDFium cannot render page {index + 1}: {exc}", path=name) from exc
    finally:
        page.close()


def _drawn_into(pdfium: Any, page: Any, columns: int, rows: int) -> Any:
    """The page drawn on white into a ``columns`` x ``rows`` bitmap: what ``page.render`` does
    (the same format and flags) with the size given instead of derived from a scale."""
    import pypdfium2.raw as raw

    bitmap = pdfium.PdfBitmap.new_native(columns, rows, format=raw.FPDFBitmap_BGR,
                                         rev_byteorder=False)
    bitmap.fill_rect((255, 255, 255, 255), 0, 0, columns, rows)
    raw.FPDF_RenderPageBitmap(bitmap, page, 0, 0, columns, rows, 0, raw.FPDF_ANNOT)
    return bitmap


def dpi_within(dpi: float, *, max_pixels: int = MAX_PIXELS, max_side: float | None = None) -> Scale:
    """A scale of ``dpi`` that shrinks to fit ``max_pixels`` (and ``max_side`` pixels a side)."""

    def scale(width: float, height: float) -> float:
        factor = min(dpi / 72, (max_pixels / (width * height)) ** 0.5)
        return min(factor, max_side / max(width, height)) if max_side else factor

    return scale
