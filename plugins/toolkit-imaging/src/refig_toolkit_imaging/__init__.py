"""Untrusted images and PDFs read within a pixel budget: the toolkit metrics, renderers, suites
and harnesses share. OCR (:mod:`refig_toolkit_imaging.ocr`, extra ``ocr``) and picture locating
(:mod:`refig_toolkit_imaging.locating`, extra ``locate``) are submodules imported on their own,
as they need their extras. ``files_digest``, ``probe`` and ``environment_digest`` are the core's
(:mod:`refig.probing`, :mod:`refig.provenance`), for the plugins that report what their numbers
depend on; :mod:`refig_toolkit_imaging.fonts` reads the fonts fontconfig offers."""

from refig.probing import files_digest, probe
from refig.provenance import environment_digest

from refig_toolkit_imaging.images import (
    MAX_PIXELS,
    ImageError,
    as_rgb,
    bgr_png_bytes,
    border_colour,
    content_box,
    flatten_alpha,
    open_image,
    png_bytes,
    rgb_png_bytes,
)
from refig_toolkit_imaging.pdf import (
    PdfError,
    dpi_within,
    first_page,
    render_pages,
    render_pages_bgr,
)

__all__ = [
    "MAX_PIXELS",
    "ImageError",
    "PdfError",
    "as_rgb",
    "bgr_png_bytes",
    "border_colour",
    "content_box",
    "dpi_within",
    "environment_digest",
    "files_digest",
    "first_page",
    "flatten_alpha",
    "open_image",
    "png_bytes",
    "probe",
    "render_pages",
    "render_pages_bgr",
    "rgb_png_bytes",
]
