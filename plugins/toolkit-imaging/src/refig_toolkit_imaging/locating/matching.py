"""Is a picture the source figure, a piece of it, or does it hold it? (Moved here from the
flattening metric so the text metric locates pictures with the very same search.)

Three tests, cheapest first, all on the images trimmed of their uniform margins:

* ``whole``: perceptual hashes (``imagehash.phash``, 64 bits) within ``WHOLE_MAX_DISTANCE`` bits.
  Scaling, recompression and small colour shifts keep the hash; distinct figures differ by 24+
  bits (measured on the real figures under ``shared/data/real-figures``).
* ``crop``: the image is a piece of the source (cropped, then scaled by any factor): normalised
  cross-correlation (OpenCV's ``matchTemplate``, ``TM_CCOEFF_NORMED``) of the image, resized
  over a geometric range of scales, inside the source. A peak of at least ``MIN_NCC`` whose
  region of the source also hashes within ``WHOLE_MAX_DISTANCE`` of the image is a match, and
  gives the share of the source the piece covers.
* ``contains``: the source sits inside a larger image (pasted onto a canvas with other content):
  the same search with the roles swapped, confirmed the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import imagehash
import numpy as np
from PIL import Image

from refig_toolkit_imaging.images import as_rgb, content_box

#: Hamming distance (of 64 bits) under which two images count as the same picture.
WHOLE_MAX_DISTANCE = 12
#: Correlation peak above which a scaled piece counts as found in the other image.
MIN_NCC = 0.8
#: Widths, in pixels, of the copies searched in: every scale on the coarse copy, then the best
#: hit (if its correlation reaches ``COARSE_MIN_NCC``) refined on the search copy.
SEARCH_WIDTH, COARSE_WIDTH = 384, 160
COARSE_MIN_NCC = 0.6
#: A piece of the source must cover at least this share of it to be looked for...
MIN_PIECE_AREA = 0.04
#: ...and the source at least this share of an image said to contain it.
MIN_CONTAINED_AREA = 0.25
#: Ratio between successive template scales, then the finer ratio around the best one.
COARSE_STEP, FINE_STEP = 1.05, 1.015
#: Longest side of the trimmed image a signature keeps.
KEEP_SIDE = 1024
#: Sobel edge strength (0-1 intensity) and the share of edge pixels under which an image is blank.
EDGE_LEVEL, MIN_EDGE_SHARE = 0.05, 0.002

Kind = Literal["whole", "crop", "contains"]


@dataclass(frozen=True)
class Signature:
    """An image prepared for matching: trimmed, hashed, and (on its first search, which a
    hash match or a blank image never needs) as blurred grey search arrays. ``box`` is the
    trimmed content ``(left, top, right, bottom)`` as fractions of the image as decoded: a
    match's region (fractions of the trimmed image) maps back through it."""

    image: Image.Image
    phash: imagehash.ImageHash
    featureless: bool
    box: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)

    @cached_property
    def grey(self) -> np.ndarray:
        """The search copy, at most ``SEARCH_WIDTH`` wide."""
        return grey(self.image, min(SEARCH_WIDTH, self.image.width))

    @cached_property
    def coarse(self) -> np.ndarray:
        """The small copy every scale is first tried on, at most ``COARSE_WIDTH`` wide."""
        return grey(self.image, min(COARSE_WIDTH, self.image.width))

    @cached_property
    def piece(self) -> Image.Image:
        """The image as search templates are cut from it: grey, at most ``2 * SEARCH_WIDTH``
        wide (kept: the source is the piece of every ``contains`` search against it)."""
        piece = self.image
        if piece.width > 2 * SEARCH_WIDTH:  # every template is at most SEARCH_WIDTH wide
            size = (2 * SEARCH_WIDTH, max(1, round(2 * SEARCH_WIDTH * piece.height / piece.width)))
            piece = piece.resize(size, Image.Resampling.LANCZOS)
        return piece.convert("L")


@dataclass(frozen=True)
class Match:
    """How an embedded image matched the source.

    ``region`` is ``(left, top, right, bottom)`` as fractions of the trimmed source, ``area`` the
    share of the source it covers, ``distance`` the phash distance between the image and that
    region, ``ncc`` the correlation peak of a template match.
    """

    kind: Kind
    distance: int
    region: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)
    area: float = 1.0
    ncc: float | None = None

    def as_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "distance": self.distance,
            "region": [round(v, 4) for v in self.region],
            "area": round(self.area, 4),
            "ncc": None if self.ncc is None else round(self.ncc, 4),
        }


def grey_size(size: tuple[int, int], width: int) -> tuple[int, int]:
    """``(width, height)`` of :func:`grey` of an image of ``size`` at ``width`` pixels."""
    height = round(size[1] * width / size[0])
    if height > 4 * SEARCH_WIDTH:  # a tall strip: bound the array, keep the aspect
        width, height = max(1, round(width * 4 * SEARCH_WIDTH / height)), 4 * SEARCH_WIDTH
    return width, max(1, height)


def grey(image: Image.Image, width: int) -> np.ndarray:
    """Greyscale in 0-1 at ``width`` pixels, lightly blurred so a few pixels of misalignment
    between a template scale and the true scale do not break the correlation."""
    luma = image if image.mode == "L" else image.convert("L")  # convert would copy an L image
    small = luma.resize(grey_size(image.size, width), Image.Resampling.LANCZOS)
    from scipy.ndimage import gaussian_filter  # here: scipy costs seconds to import

    return gaussian_filter(np.asarray(small, dtype=np.float32) / 255.0, 1.0)


def is_featureless(image: Image.Image) -> bool:
    """True for a blank, flat or smooth-gradient image (no edges): it shows no figure content."""
    thumb = image.convert("L")
    thumb.thumbnail((256, 256))
    from skimage.filters import sobel  # here: it imports scipy

    edges = sobel(np.asarray(thumb, dtype=np.float32) / 255.0)
    return float((edges > EDGE_LEVEL).mean()) < MIN_EDGE_SHARE


def signature(image: Image.Image) -> Signature:
    """Prepare ``image`` (already decoded within refig's pixel limit) for matching."""
    rgb = as_rgb(image)
    cut = content_box(rgb) or (0, 0, rgb.width, rgb.height)
    content = rgb.crop(cut)
    # Hashes work on 32 px and searches on SEARCH_WIDTH: a bounded copy keeps cached
    # signatures small whatever the size of the figure.
    content.thumbnail((KEEP_SIDE, KEEP_SIDE), Image.Resampling.LANCZOS)
    luma = content.convert("L")  # once for the hash and the edge test
    return Signature(
        image=content,
        phash=imagehash.phash(luma),
        featureless=is_featureless(luma),
        box=(cut[0] / rgb.width, cut[1] / rgb.height, cut[2] / rgb.width, cut[3] / rgb.height),
    )


def match(candidate: Signature, source: Signature) -> Match | None:
    """How ``candidate`` matches ``source``, or None."""
    if candidate.featureless or source.featureless:
        return None
    distance = int(candidate.phash - source.phash)
    if distance <= WHOLE_MAX_DISTANCE:
        return Match("whole", distance)
    found = _search(candidate, source, MIN_PIECE_AREA)
    if found is not None:
        ncc, region = found
        piece_distance = int(candidate.phash - imagehash.phash(_crop(source.image, region)))
        if piece_distance <= WHOLE_MAX_DISTANCE:
            area = (region[2] - region[0]) * (region[3] - region[1])
            return Match("crop", piece_distance, region, area, ncc)
    found = _search(source, candidate, MIN_CONTAINED_AREA)
    if found is not None:
        ncc, region = found
        inner_distance = int(source.phash - imagehash.phash(_crop(candidate.image, region)))
        if inner_distance <= WHOLE_MAX_DISTANCE:
            return Match("contains", inner_distance, ncc=ncc)
    return None


def _crop(image: Image.Image, region: tuple[float, float, float, float]) -> Image.Image:
    left, top, right, bottom = region
    w, h = image.size
    return image.crop((round(left * w), round(top * h), round(right * w), round(bottom * h)))


@dataclass(frozen=True)
class SummedAreas:
    """Summed-area tables of an image and of its square: every window's mean and spread."""

    sums: np.ndarray
    squares: np.ndarray

    @classmethod
    def of(cls, image: np.ndarray) -> SummedAreas:
        padded = np.pad(image.astype(np.float64), ((1, 0), (1, 0)))
        return cls(padded.cumsum(0).cumsum(1), (padded**2).cumsum(0).cumsum(1))


def window_std(image: np.ndarray | SummedAreas, height: int, width: int) -> np.ndarray:
    """Standard deviation of every ``height`` x ``width`` window of an image (or of its tables,
    made once for many window sizes), laid out like ``cv2.matchTemplate``'s result."""
    tables = image if isinstance(image, SummedAreas) else SummedAreas.of(image)
    sums, squares = tables.sums, tables.squares

    def windows(table: np.ndarray) -> np.ndarray:
        return (
            table[height:, width:]
            - table[:-height, width:]
            - table[height:, :-width]
            + table[:-height, :-width]
        )

    count = height * width
    mean = windows(sums) / count
    return np.sqrt(np.maximum(windows(squares) / count - mean**2, 0.0))


@dataclass(frozen=True)
class Hit:
    """The best correlation of a template in a haystack, at ``(x, y)`` with size ``w`` x ``h``."""

    ncc: float
    x: int
    y: int
    w: int
    h: int


def _best(piece: Image.Image, haystack: np.ndarray, widths: list[int]) -> Hit | None:
    """The highest correlation of ``piece`` scaled to each of ``widths`` inside ``haystack``."""
    import cv2  # here: only a search needs OpenCV

    height, width = haystack.shape
    tables = SummedAreas.of(haystack)
    best: Hit | None = None
    for piece_width in widths:
        if not 8 <= piece_width <= width:
            continue
        if not 8 <= grey_size(piece.size, piece_width)[1] <= height:  # before any resize
            continue
        template = grey(piece, piece_width)
        if float(template.std()) < 0.01:
            continue
        result = cv2.matchTemplate(haystack, template, cv2.TM_CCOEFF_NORMED)
        # Where the haystack window is almost flat the correlation's denominator vanishes and
        # the result is numerical noise (OpenCV clips it to -1, 0 or 1): a true match has about
        # the template's contrast, so windows whose contrast differs twofold are ruled out.
        contrast = window_std(tables, *template.shape) / float(template.std())
        result[(contrast < 0.5) | (contrast > 2.0)] = -1.0
        y, x = np.unravel_index(int(np.argmax(result)), result.shape)
        hit = Hit(float(result[y, x]), int(x), int(y), template.shape[1], template.shape[0])
        if best is None or hit.ncc > best.ncc:
            best = hit
    return best


def _geometric(largest: float, smallest: float, step: float) -> list[int]:
    sizes, size = [], largest
    while size >= smallest:
        sizes.append(round(size))
        size /= step
    return sizes


def _search(
    needle: Signature, haystack: Signature, min_area: float
) -> tuple[float, tuple[float, float, float, float]] | None:
    """Where ``needle``'s image, scaled to cover between ``min_area`` and all of the haystack,
    correlates best: ``(ncc, region as fractions)``, or None below ``MIN_NCC``.

    Every scale is tried on the small copy (``COARSE_WIDTH``); only a promising hit is refined on
    the search copy, in a window around it, at finer scale steps.
    """
    aspect = needle.image.height / needle.image.width
    piece = needle.piece
    small = haystack.coarse
    height, width = small.shape
    largest = min(width, height / aspect)
    smallest = max(8.0, np.sqrt(min_area * width * height / aspect))
    coarse = _best(piece, small, _geometric(largest, smallest, COARSE_STEP))
    if coarse is None or coarse.ncc < COARSE_MIN_NCC:
        return None
    fine = haystack.grey
    k = fine.shape[1] / width
    margin = max(4, round(0.1 * coarse.w * k))
    x0, y0 = max(0, round(coarse.x * k) - margin), max(0, round(coarse.y * k) - margin)
    x1 = min(fine.shape[1], round((coarse.x + coarse.w) * k) + margin)
    y1 = min(fine.shape[0], round((coarse.y + coarse.h) * k) + margin)
    target = coarse.w * k
    widths = sorted({round(target * FINE_STEP**i) for i in range(-4, 5)}, reverse=True)
    hit = _best(piece, fine[y0:y1, x0:x1], widths)
    if hit is None or hit.ncc < MIN_NCC:
        return None
    fx, fy = (x0 + hit.x) / fine.shape[1], (y0 + hit.y) / fine.shape[0]
    return hit.ncc, (fx, fy, fx + hit.w / fine.shape[1], fy + hit.h / fine.shape[0])
