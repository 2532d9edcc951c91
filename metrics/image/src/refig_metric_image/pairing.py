"""The source and the rendering brought to one size, so that pixels can be compared.

1. Both images are cropped to their content box (pixels that differ from the border colour by
   more than 24 levels), so a figure drawn with a margin, or centred on a wider slide, is compared
   with the figure and not with the empty slide around it. A box covering under
   ``MIN_CONTENT_SHARE`` of the image (a blank render) is ignored and the whole image is used.
2. The rendering's content is letterboxed (centred, padded with its own border colour) to the
   aspect ratio of the source's content, so nothing is stretched. Aspects within
   ``ASPECT_TOLERANCE`` of each other are left alone: padding a pixel or two (rounding, a
   trimmed JPEG row) would shift every pixel and cost more SSIM than the stretch does.
3. Both are resized (Lanczos) to ``width`` pixels wide, the height following the source's aspect
   (each side kept within ``MIN_SIDE`` and ``MAX_SIDE``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from PIL import Image
from refig_toolkit_imaging import border_colour, content_box

from refig_metric_image.similarity import Side

#: Default working width, in pixels, of the compared images.
WORK_WIDTH = 1024
MIN_CONTENT_SHARE = 0.01
#: Bounds of either side of the compared images, whatever the aspect.
MIN_SIDE, MAX_SIDE = 16, 4096
ASPECT_TOLERANCE = 0.02


@dataclass(frozen=True)
class Pair:
    """The two images at one size, and the content boxes they were cut from."""

    source: Image.Image
    render: Image.Image
    source_box: tuple[int, int, int, int]
    render_box: tuple[int, int, int, int]


def content(image: Image.Image) -> tuple[Image.Image, tuple[int, int, int, int]]:
    """The image cut to its content box (the whole image when the box is missing or tiny)."""
    whole = (0, 0, image.width, image.height)
    box = content_box(image) or whole
    share = (box[2] - box[0]) * (box[3] - box[1]) / (image.width * image.height)
    if share < MIN_CONTENT_SHARE:
        box = whole
    return image.crop(box), box


def letterbox(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """``image`` scaled to fit ``size``, centred and padded with its border colour (or simply
    resized when the aspects are within ``ASPECT_TOLERANCE``)."""
    aspect, target = image.height / image.width, size[1] / size[0]
    if abs(aspect / target - 1) <= ASPECT_TOLERANCE:
        return image.resize(size, Image.Resampling.LANCZOS)
    scale = min(size[0] / image.width, size[1] / image.height)
    inner = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    canvas = Image.new("RGB", size, border_colour(image))
    offset = ((size[0] - inner[0]) // 2, (size[1] - inner[1]) // 2)
    canvas.paste(image.resize(inner, Image.Resampling.LANCZOS), offset)
    return canvas


@dataclass(frozen=True)
class Prepared:
    """The source's side of a pair: its content at the working size, made once per source."""

    image: Image.Image
    box: tuple[int, int, int, int]

    @cached_property
    def side(self) -> Side:
        """The source's share of every comparison, computed once for all its artifacts."""
        return Side(self.image)


def prepare(source: Image.Image, width: int = WORK_WIDTH) -> Prepared:
    """``source`` (RGB) cut to its content and resized to ``width`` pixels wide."""
    source_content, source_box = content(source)
    aspect = source_content.height / source_content.width
    height = width * aspect
    # An extreme aspect (a 1 px strip) must not make a huge canvas; SSIM needs 11 px a side.
    shrink = min(1.0, MAX_SIDE / max(width, height))
    size = (max(MIN_SIDE, round(width * shrink)), max(MIN_SIDE, round(height * shrink)))
    return Prepared(source_content.resize(size, Image.Resampling.LANCZOS), source_box)


Cut = tuple[Image.Image, tuple[int, int, int, int]]


def pair_with(source: Prepared, render: Image.Image, cut: Cut | None = None) -> Pair:
    """A prepared source and ``render`` (RGB) at the source's size; ``cut`` is
    ``content(render)`` when the caller pairs one render at several sizes."""
    render_content, render_box = cut or content(render)
    return Pair(source.image, letterbox(render_content, source.image.size), source.box,
                render_box)


def pair(source: Image.Image, render: Image.Image, width: int = WORK_WIDTH) -> Pair:
    """``source`` and ``render`` (RGB) at ``width`` pixels wide and the source's content aspect."""
    return pair_with(prepare(source, width), render)
