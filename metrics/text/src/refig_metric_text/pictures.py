"""The words in the raster pictures a slide shows: located in the source, else read by OCR.

A picture that is the source (the same bytes), holds it, or is a piece of it found by the same
search the flattening metric runs (:func:`refig_toolkit_imaging.locating.locate`, once per pair of
hashes) holds the source's reference words in that region (:mod:`refig_metric_text.located`). Only a
picture not found in the source, or when the search cannot run, is read by OCR (as in version 5).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from PIL import Image
from refig.plugin import Artifact, RefigError, source_sha256
from refig_toolkit_imaging import open_image
from refig_toolkit_imaging.locating import locate, source_box
from refig_toolkit_pptx import ObjectTree
from refig_toolkit_pptx.rasters import SlideImage, slide_images

from refig_metric_text.located import Word, source_region, words_in
from refig_metric_text.ocr_cache import ocr_tokens

#: Embedded images read, largest on the slide first; smaller ones hold no sentence.
MAX_OCR_IMAGES = 8
MIN_OCR_SIDE = 24
#: PNG and JPEG, whose header's pixel size is the decoded one (Pillow's ICO, ICNS, EPS and WMF
#: loaders can change the size when they decode).
_HEADER_SIZED = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")


class _NoPixels(Exception):
    """A picture that does not decode (EMF, SVG, corrupt): its ``message`` says why."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _pixels(data: bytes) -> Image.Image:
    """The picture decoded; :class:`_NoPixels` (not a ``RefigError``, which an OCR failure is)
    when it cannot be."""
    try:
        return open_image(data)
    except RefigError as exc:
        raise _NoPixels(exc.message) from exc


def _size(image: SlideImage) -> tuple[int, int]:
    """The picture's pixel size: its header's for a PNG or JPEG large enough to read, so only a
    picture OCR reads is decoded (a located one decoded in the search, the same bytes); any
    other is decoded here, so one with no pixels is skipped before the search."""
    if (image.width is not None and image.height is not None
            and min(image.width, image.height) >= MIN_OCR_SIDE
            and image.data.startswith(_HEADER_SIZED)):
        return image.width, image.height
    return _pixels(image.data).size


class Pictures:
    """Reads the pictures of one artifact against its source's words."""

    def __init__(self, artifact: Artifact, source_words: tuple[Word, ...] | list[Word],
                 ocr_max_side: int, ocr_detector_side: int):
        self.artifact = artifact
        self.source_words = source_words
        self.ocr_max_side, self.ocr_detector_side = ocr_max_side, ocr_detector_side
        self.source_sha = source_sha256(artifact)

    def tokens(self, tree: ObjectTree) -> tuple[list[str], dict[str, Any]]:
        """The tokens of every shown picture (up to :data:`MAX_OCR_IMAGES`) and how each was
        read."""
        path: Path = self.artifact.path
        try:
            images = [image for image in slide_images(path, tree) if image.shown]
        except RefigError as exc:
            return [], {"images_error": f"cannot read the images: {exc.message}"}
        tokens: list[str] = []
        read, located, skipped = [], [], []
        for image in images[:MAX_OCR_IMAGES]:
            try:
                if min(_size(image)) < MIN_OCR_SIDE:
                    continue
                found = self._located(image)
                if found is None:
                    tokens += ocr_tokens(image.sha256, partial(_pixels, image.data),
                                         max_side=self.ocr_max_side,
                                         detector_side=self.ocr_detector_side)
                    read.append(image.part)
                    continue
            except _NoPixels as exc:  # EMF, SVG, corrupt: no pixels to read
                skipped.append({"part": image.part, "reason": exc.message})
                continue
            words, where = found
            tokens += words
            located.append({"part": image.part, **where, "words": len(words)})
        detail: dict[str, Any] = {"images_read": read, "images_located": located}
        if skipped:
            detail["images_skipped"] = skipped
        if len(images) > MAX_OCR_IMAGES:
            detail["images_not_read"] = len(images) - MAX_OCR_IMAGES
        return tokens, detail

    def _located(self, image: SlideImage) -> tuple[list[str], dict[str, Any]] | None:
        """The source's words the picture holds and where it was found, or None when it was not
        found in the source (or the search could not run): then OCR reads it."""
        source, sha = self.artifact.source, self.source_sha
        if source is None or sha is None:
            return None
        try:
            found = locate(image.sha256, image.data, sha, source)
            if found is None:
                return None
            region = source_region(found, source_box(sha, source))
        except RefigError:
            return None
        words = words_in(self.source_words, region)
        if words is None:
            return None
        return words, {"kind": found.kind, "region": [round(v, 4) for v in region]}
