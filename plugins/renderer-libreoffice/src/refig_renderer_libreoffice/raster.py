"""PDF page to PNG with pypdfium2, at a fixed width and the slide's exact aspect ratio."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from refig_toolkit_imaging import MAX_PIXELS, PdfError, bgr_png_bytes, render_pages_bgr


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
    return _write(_pages(pdf, width, aspect, max_pixels, limit=1)[0], png)


def _pages(pdf: Path, width: int, aspect: float | None, max_pixels: int,
           limit: int | None) -> list[np.ndarray]:
    try:
        return render_pages_bgr(pdf, lambda page_width, _: width / page_width,
                                max_pixels=max_pixels, limit=limit,
                                size=exact_size(width, aspect))
    except PdfError as exc:
        raise RasterError(exc.message) from exc


def _write(bgr: np.ndarray, png: Path) -> tuple[int, int]:
    png.write_bytes(bgr_png_bytes(bgr))
    return bgr.shape[1], bgr.shape[0]


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
    paths = []
    for index, page in enumerate(_pages(pdf, width, aspect, max_pixels, limit=None)):
        path = out_dir / f"page-{index:03d}.png"
        _write(page, path)
        paths.append(path)
    return paths
