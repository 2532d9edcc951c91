"""Reading a user's figure file safely, and turning it into the bytes a suite stores."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from refig.plugin import FileRefused, RefigError, read_confined
from refig_toolkit_imaging import (
    ImageError,
    PdfError,
    dpi_within,
    first_page,
    open_image,
    png_bytes,
)

#: Stored byte for byte (agents and renderers read these everywhere).
KEPT = {".png": "png", ".jpg": "jpg", ".jpeg": "jpg", ".webp": "webp"}
#: Converted to PNG (first frame or page).
CONVERTED = frozenset({".gif", ".bmp", ".tif", ".tiff", ".pdf"})
SUFFIXES = frozenset(KEPT) | CONVERTED


class FigureError(RefigError):
    """A figure file that cannot become a task."""


@dataclass(frozen=True)
class Figure:
    """The stored bytes of one figure, their extension and size, and the file's own hash."""

    data: bytes
    extension: str
    width: int
    height: int
    converted: bool
    original_sha256: str


def _pdf_page(data: bytes, digest: str, path: Path, dpi: int, max_pixels: int) -> Figure:
    try:
        image = first_page(data, dpi_within(dpi, max_pixels=max_pixels), max_pixels=max_pixels)
    except PdfError as exc:
        raise FigureError(exc.message, path=path,
                          fix="remove the file, or pass --skip-invalid") from exc
    return Figure(png_bytes(image), "png", image.width, image.height, True, digest)


def read_figure(path: Path, root: Path, *, max_pixels: int, max_bytes: int,
                pdf_dpi: int = 200) -> Figure:
    """The figure at ``path`` (a regular file inside ``root``, read without following links) as
    stored bytes; raises :class:`FigureError` naming the file."""
    size = path.lstat().st_size
    if size > max_bytes:
        raise FigureError(f"file is {size:,} bytes, over the limit of {max_bytes:,}", path=path,
                          fix="shrink it, raise --max-bytes, or pass --skip-invalid")
    try:
        data = read_confined(path, root, max_bytes=max_bytes)
    except FileRefused as exc:
        raise FigureError(f"refused: {exc}", path=path,
                          fix="replace the link with the file itself, or remove it") from None
    digest = hashlib.sha256(data).hexdigest()
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _pdf_page(data, digest, path, pdf_dpi, max_pixels)
    try:
        image = open_image(data, max_pixels=max_pixels, name=path)
    except ImageError as exc:
        raise FigureError(exc.message, path=path,
                          fix=exc.fix or "remove the file, or pass --skip-invalid") from exc
    if suffix in KEPT:
        return Figure(data, KEPT[suffix], image.width, image.height, False, digest)
    return Figure(png_bytes(image), "png", image.width, image.height, True, digest)
