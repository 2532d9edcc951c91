"""Figure assets to raster images: PNG and JPEG as they are, PDF through pypdfium2, EPS through
Ghostscript when it is installed."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from refig_toolkit_imaging import (
    ImageError,
    PdfError,
    dpi_within,
    first_page,
    open_image,
    png_bytes,
)

GHOSTSCRIPT_HINT = ("EPS figures need Ghostscript (`gs`): apt-get install ghostscript "
                    "(macOS: brew install ghostscript); without it such papers are skipped")
MAX_SIDE = 4000
GS_TIMEOUT = 60


class RasterError(Exception):
    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Raster:
    data: bytes
    extension: str
    width: int
    height: int
    converted_from: str | None


def ghostscript() -> str | None:
    return shutil.which("gs")


def _pdf(data: bytes, dpi: int) -> Raster:
    try:
        image = first_page(data, dpi_within(dpi, max_side=MAX_SIDE))
    except PdfError as exc:
        raise RasterError("raster_failed", f"PDF: {exc.message}") from exc
    return Raster(png_bytes(image), "png", image.width, image.height, "pdf")


def _eps(data: bytes, dpi: int) -> Raster:
    gs = ghostscript()
    if gs is None:
        raise RasterError("eps_needs_ghostscript", GHOSTSCRIPT_HINT)
    with tempfile.TemporaryDirectory(prefix="refig-eps-") as tmp:
        source, target = Path(tmp) / "figure.eps", Path(tmp) / "figure.png"
        source.write_bytes(data)
        command = [gs, "-dSAFER", "-dBATCH", "-dNOPAUSE", "-dQUIET", "-dEPSCrop",
                   "-sDEVICE=png16m", f"-r{dpi}", "-dTextAlphaBits=4", "-dGraphicsAlphaBits=4",
                   f"-sOutputFile={target}", str(source)]
        try:
            subprocess.run(command, capture_output=True, timeout=GS_TIMEOUT, check=True)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            raise RasterError("raster_failed", f"Ghostscript: {exc}") from exc
        if not target.is_file():
            raise RasterError("raster_failed", "Ghostscript wrote no image")
        try:
            image = open_image(target)
        except ImageError as exc:
            raise RasterError("raster_failed", exc.message) from exc
    return Raster(png_bytes(image), "png", image.width, image.height, "eps")


def rasterise(name: str, data: bytes, dpi: int = 300) -> Raster:
    """The raster form of a figure file named ``name`` inside a package."""
    suffix = Path(name).suffix.lower()
    if suffix == ".pdf":
        return _pdf(data, dpi)
    if suffix in (".eps", ".ps"):
        return _eps(data, dpi)
    if suffix not in (".png", ".jpg", ".jpeg"):
        raise RasterError("asset_unsupported", f"{suffix or 'no extension'} figures are not read")
    try:
        image = open_image(data)
    except ImageError as exc:
        raise RasterError("raster_failed", exc.message) from exc
    return Raster(data, "jpg" if suffix != ".png" else "png", image.width, image.height, None)
