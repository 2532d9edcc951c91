"""The ``image`` metric: how close the rendering looks to the source figure, pixel for pixel."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image
from refig.plugin import (
    Artifact,
    Metric,
    MetricValue,
    RefigError,
    ValueMaker,
    source_sha256,
    unavailable,
)
from refig_toolkit_imaging import files_digest, open_image

from refig_metric_image.pairing import WORK_WIDTH, Prepared, content, pair_with, prepare
from refig_metric_image.perceptual import Lpips, LpipsUnavailable
from refig_metric_image.similarity import Side, ciede2000, psnr, ssim

METRIC = "image"
NAMES = ("ssim", "psnr", "ciede2000", "lpips", "ssim_blank", "ciede2000_blank", "layout_ssim",
         "layout_ssim_blank")
#: What an empty slide renders as: LibreOffice paints a slide without a background white.
BLANK = (255, 255, 255)
#: Width, in pixels, at which ``layout_ssim`` compares: where the masses sit, not their detail,
#: so a rebuild a few pixels off still counts as laid out like the source.
LAYOUT_WIDTH = 64


@lru_cache(maxsize=16)
def prepared_source(key: str | None, path: Path, width: int) -> Prepared:
    """The source figure cut and resized once per source per process (the evaluation hands a
    worker all the artifacts of one source together), not once per artifact."""
    return prepare(open_image(path), width)


@dataclass(frozen=True)
class Blank:
    """What an empty slide of one size scores against one source (the ``*_blank`` values)."""

    ssim: float
    ciede2000: float
    layout_ssim: float


@lru_cache(maxsize=64)
def blank_scores(key: str | None, path: Path, width: int) -> Blank:
    """The empty slide against the source, once per source: it does not depend on the artifact.
    An empty slide of any size, cut and letterboxed like a render, is white at the source's size
    (the whole of it is its content, and Lanczos keeps a constant image constant), so the pair
    is made without resizing it."""
    source, layout = (prepared_source(key, path, w) for w in (width, LAYOUT_WIDTH))
    blank, coarse = (Image.new("RGB", prepared.image.size, BLANK) for prepared in (source, layout))
    return Blank(ssim(source.side, blank), ciede2000(source.side, blank),
                 ssim(layout.side, coarse))


LPIPS_OFF = (
    "LPIPS is off for the image metric unless asked for: --metric-opt image:lpips=true "
    "(weights from refig-lpips-weights) or image:lpips_weights=DIR"
)


def _truthy(value: bool | str) -> bool:
    return value is True or str(value).strip().lower() in {"1", "true", "yes", "on"}


class ImageSimilarity(Metric):
    """SSIM, PSNR, mean CIEDE2000 and (when set up) LPIPS between the source and the render.

    ``layout_ssim`` is SSIM at ``LAYOUT_WIDTH`` pixels wide. Each ``*_blank`` value is what an
    empty slide of the render's size earns against the same source: the floor a score must be
    measured from, since on a mostly white figure an empty slide already reaches an SSIM near 0.9.
    """

    # 3: SSIM in float32, CIEDE2000 per distinct colour pair (within 4e-6 of 2; docs/metrics.md);
    # 2: the empty-slide baselines
    version = "3"

    def __init__(
        self,
        width: int = WORK_WIDTH,
        lpips_weights: str | Path | None = None,
        lpips: bool | str = False,
    ):
        self.width = int(width)
        # Off unless asked for: about a second a page at 1024 px, and slides' numbers unchanged.
        self.lpips = Lpips(lpips_weights) if lpips_weights or _truthy(lpips) else None
        if self.lpips is not None:  # values with LPIPS are other values: stored apart
            self.version = f"{type(self).version}+lpips"

    def environment(self) -> Mapping[str, str]:
        """Its version, the working width and, with LPIPS, the weights file's digest."""
        found = {"version": self.version, "width": str(self.width)}
        if self.lpips is not None:
            path = self.lpips.path
            found["lpips_weights_sha256"] = (files_digest([path]) if path.is_file()
                                             else f"missing ({path})")
        return found

    def compute(self, artifact: Artifact) -> Iterator[MetricValue]:
        make = ValueMaker(artifact, METRIC, self.version, source_sha256(artifact))
        if artifact.render is None:
            yield from make.missing(NAMES, unavailable("no rendering", artifact))
            return
        if artifact.source is None:
            yield from make.missing(NAMES, "no source figure to compare with")
            return
        try:
            source = prepared_source(make.reference_sha256, artifact.source, self.width)
        except RefigError as exc:
            yield from make.missing(NAMES, f"cannot read the source figure: {exc.message}")
            return
        try:
            render = open_image(artifact.render)
        except RefigError as exc:
            yield from make.missing(NAMES, f"cannot read the rendering: {exc.message}")
            return
        cut = content(render)  # the render's content box, for both sizes
        images = pair_with(source, render, cut)
        size = list(images.source.size)
        detail = {"size": size, "source_box": images.source_box, "render_box": images.render_box}
        rendered = Side(images.render)
        yield make.value("ssim", ssim(source.side, rendered), **detail)
        yield make.value("psnr", psnr(source.side, rendered), size=size)
        yield make.value("ciede2000", ciede2000(source.side, rendered), size=size)
        if self.lpips is None:
            yield make.value("lpips", None, reason=LPIPS_OFF)
        else:
            try:
                yield make.value(
                    "lpips", self.lpips.distance(images.source, images.render), size=size
                )
            except LpipsUnavailable as exc:
                yield make.value("lpips", None, reason=str(exc))
        blank = blank_scores(make.reference_sha256, artifact.source, self.width)
        detail = {"size": size, "blank": list(render.size)}
        yield make.value("ssim_blank", blank.ssim, **detail)
        yield make.value("ciede2000_blank", blank.ciede2000, **detail)
        layout = prepared_source(make.reference_sha256, artifact.source, LAYOUT_WIDTH)
        coarse = pair_with(layout, render, cut)
        small = {"size": list(coarse.source.size)}
        yield make.value("layout_ssim", ssim(layout.side, coarse.render), **small)
        yield make.value("layout_ssim_blank", blank.layout_ssim, **small)
