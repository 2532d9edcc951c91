"""The images a slide can show, however they are hidden, read within the package limits.

A pasted raster can sit in a picture, a shape or table fill, a group fill, the background of the
slide, its layout, master or theme, an OLE preview, a chart or a SmartArt drawing. Rather than
enumerate those routes, :func:`slide_images` follows every internal relationship reachable from the
slide (never into other slides, notes or the layouts a master lists) and keeps the image parts.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from refig.plugin import GateReason

from refig_toolkit_pptx.limits import DEFAULT_LIMITS, Limits
from refig_toolkit_pptx.package import (
    REL_IMAGE,
    REL_SLIDE_LAYOUT,
    REL_SLIDE_MASTER,
    Package,
    PackageError,
)

# Relationship types never followed: other slides (hyperlinks), notes, and from a master the
# layouts it lists (only the slide's own layout paints on it).
_SKIP_FROM_ANY = ("/slide", "/notesSlide", "/notesMaster", "/handoutMaster", "/comments")
_IMAGE_RELS = (REL_IMAGE, "/hdphoto")


@dataclass(frozen=True)
class EmbeddedImage:
    """One image part reachable from the slide.

    ``width``/``height`` are the pixel size from the header (None for vector formats such as EMF
    and SVG, or an unrecognised header); ``data`` is never decoded here.
    """

    part: str
    sha256: str
    data: bytes
    content_type: str
    width: int | None = None
    height: int | None = None


def _pixel_size(data: bytes) -> tuple[int, int] | None:
    """The header's pixel size, without decoding pixels."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with Image.open(io.BytesIO(data)) as image:
                return image.size
    except Image.DecompressionBombError:
        raise
    except Exception:  # not an image Pillow knows (SVG, some EMF): no pixel size
        return None


def _reachable(package: Package, slide_part: str) -> list[tuple[str, bool]]:
    """``(part, is_image)`` for every internal part reachable from the slide, breadth first."""
    seen = {slide_part.lower()}
    queue = deque([slide_part])
    found: list[tuple[str, bool]] = []
    while queue:
        part = queue.popleft()
        is_master = package.content_type(part).endswith("slideMaster+xml")
        for rel in package.rels(part).values():
            if rel.external or rel.target.lower() in seen or not package.has(rel.target):
                continue
            if rel.type.endswith(_SKIP_FROM_ANY) or (is_master and rel.is_a(REL_SLIDE_LAYOUT)):
                continue
            seen.add(rel.target.lower())
            content_type = package.content_type(rel.target)
            if rel.type.endswith(_IMAGE_RELS) or content_type.startswith("image/"):
                found.append((rel.target, True))
            elif content_type.endswith("xml") or rel.is_a(REL_SLIDE_MASTER):
                found.append((rel.target, False))
                queue.append(rel.target)
    return found


#: An image part's name, bytes and header pixel size (None when the header gives none).
_ImagePart = tuple[str, bytes, tuple[int, int] | None]


def _image_parts(package: Package, slide_part: str) -> Iterator[_ImagePart]:
    """``(part, bytes, header size)`` of every image part the slide can show, one at a time.

    Raises :class:`PackageError` (``too_large``) for an image whose header declares more pixels
    than ``limits.max_image_pixels``: a decompression bomb that would exhaust any renderer.
    """
    limit = package.limits.max_image_pixels
    for part, is_image in _reachable(package, slide_part):
        if not is_image:
            continue
        data = package.read(part)
        try:
            size = _pixel_size(data)
        except Image.DecompressionBombError as exc:  # Pillow's own, larger limit
            raise PackageError(
                GateReason.TOO_LARGE,
                f"image {part} declares more than {limit:,} pixels (a decompression bomb)",
                path=package.path,
            ) from exc
        if size is not None and size[0] * size[1] > limit:
            raise PackageError(
                GateReason.TOO_LARGE,
                f"image {part} declares {size[0]}x{size[1]} pixels, over the limit of {limit:,} "
                "(a decompression bomb)",
                path=package.path,
            )
        yield part, data, size


def check_image_headers(package: Package, slide_part: str) -> None:
    """Read every image part the slide can show and its header, as :func:`iter_slide_images`
    does, without hashing it: :class:`PackageError` for a decompression bomb (the gate)."""
    for _ in _image_parts(package, slide_part):
        pass


def iter_slide_images(package: Package, slide_part: str) -> Iterator[EmbeddedImage]:
    """Every image part the slide can show, one at a time (memory holds one image at most);
    :class:`PackageError` for a decompression bomb (see :func:`_image_parts`)."""
    for part, data, size in _image_parts(package, slide_part):
        yield EmbeddedImage(
            part=part,
            sha256=hashlib.sha256(data).hexdigest(),
            data=data,
            content_type=package.content_type(part),
            width=size[0] if size else None,
            height=size[1] if size else None,
        )


def slide_images(package: Package, slide_part: str) -> dict[str, EmbeddedImage]:
    """Every image part the slide can show, by part name (see :func:`iter_slide_images`)."""
    return {image.part: image for image in iter_slide_images(package, slide_part)}


def embedded_images(
    path: Path | str, *, limits: Limits = DEFAULT_LIMITS
) -> dict[str, EmbeddedImage]:
    """The images the first slide of the deck at ``path`` can show, by part name.

    Bounded by ``limits`` (each part, the total read, pixel counts); raises
    :class:`PackageError` when the deck fails those checks.
    """
    with Package.open(path, limits) as package:
        slides = package.slides()
        if not slides:
            return {}
        return slide_images(package, slides[0].part)
