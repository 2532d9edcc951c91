"""The ``flattening`` metric: how much of the slide is raster, and is the source pasted in?

``flattened`` is the flag the judges' cap uses. It is 1 when

* the source figure is pasted (``pasted_source``: an embedded image that paints on the slide is
  the source or holds it, or pieces of the source that paint together cover at least
  ``PIECES_MIN_COVERAGE`` of it), or
* images with content cover at least ``RASTER_ALONE`` of the slide, or
* they cover at least ``RASTER_WITH_LITTLE_TEXT`` of it while the slide's native text has fewer
  than ``MIN_NATIVE_WORDS`` words.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from refig.plugin import (
    Artifact,
    Metric,
    MetricValue,
    RefigError,
    ValueMaker,
    source_sha256,
    unavailable,
)
from refig_toolkit_imaging.locating import (
    Match,
    Signature,
    cached_match,
    image_signature,
    source_signature,
)
from refig_toolkit_pptx import ObjectTree, object_tree
from refig_toolkit_pptx.rasters import RasterPlacement, SlideImage, raster_placements, slide_images
from refig_toolkit_pptx.slide_text import native_text, word_tokens
from shapely.geometry import box
from shapely.ops import unary_union

from refig_metric_flattening.coverage import covered_share

METRIC = "flattening"
NAMES = (
    "raster_area_ratio",
    "content_raster_area_ratio",
    "raster_images",
    "pasted_source",
    "flattened",
)

#: Pieces of the source (crops, tiles) that together cover this share of it are a paste.
PIECES_MIN_COVERAGE = 0.5
#: Content images covering this share of the slide flatten it, whatever the native text.
RASTER_ALONE = 0.85
#: Content images covering this share flatten the slide when it has little native text...
RASTER_WITH_LITTLE_TEXT = 0.5
#: ...fewer words than this.
MIN_NATIVE_WORDS = 5
#: At most this many distinct images are compared with the source, largest on the slide first.
MAX_IMAGES = 24


@dataclass
class ImageReport:
    """What is known about one embedded image: where it paints, and how it matched."""

    image: SlideImage
    signature: Signature | None = None
    error: str | None = None
    match: Match | None = None

    @property
    def featureless(self) -> bool:
        """True when the image decoded and shows no edges (a blank or gradient fill)."""
        return self.signature is not None and self.signature.featureless

    def as_json(self) -> dict[str, Any]:
        """Where the image paints and how it matched, for a value's detail."""
        placements = self.image.placements
        return {
            "sha256": self.image.sha256,
            "part": self.image.part,
            "roles": sorted({p.role for p in placements}) or ["unplaced"],
            "layers": sorted({p.layer for p in placements}),
            "names": sorted({p.name for p in placements if p.name})[:5],
            "hidden": not self.image.shown,
            "featureless": self.featureless,
            "error": self.error,
            "match": self.match.as_json() if self.match else None,
        }


class Flattening(Metric):
    """Raster coverage and pasted-source detection for one artifact."""

    version = "3"  # 3: a linked picture counts as an embedded one (2: pasted_source null when
    # the images cannot be read)

    def compute(self, artifact: Artifact) -> Iterator[MetricValue]:
        started = time.perf_counter()
        reference = source_sha256(artifact)
        make = ValueMaker(artifact, METRIC, self.version, reference)
        tree = object_tree(artifact)
        if tree is None:
            yield from make.missing(NAMES, unavailable("no object tree", artifact))
            return
        shown = [p for p in raster_placements(tree) if not p.hidden]
        reports, unreadable = self._images(artifact, reference, tree)
        featureless = {sha for sha, report in reports.items() if report.featureless}
        content = [p for p in shown if p.sha256 not in featureless]
        ratio = covered_share(shown, tree.slide_width, tree.slide_height)
        content_ratio = covered_share(content, tree.slide_width, tree.slide_height)
        yield make.value(
            "raster_area_ratio",
            ratio,
            placements=[_placement_json(p) for p in shown[:50]],
            without_geometry=sum(1 for p in shown if p.rect is None),
        )
        yield make.value(
            "content_raster_area_ratio",
            content_ratio,
            featureless_images=sorted(featureless),
        )
        yield make.value("raster_images", len({p.sha256 for p in shown}))

        if unreadable:  # without the images nothing says whether the source is among them
            pasted, paste_detail = None, {"reason": unreadable}
        else:
            pasted, paste_detail = self._pasted(artifact, reference, reports)
        yield make.value("pasted_source", None if pasted is None else int(pasted), **paste_detail)

        words = sum(len(word_tokens(text)) for text in native_text(tree))
        reasons = []
        if pasted:
            reasons.append("pasted_source")
        if content_ratio >= RASTER_ALONE:
            reasons.append(f"content_raster_area_ratio >= {RASTER_ALONE}")
        if content_ratio >= RASTER_WITH_LITTLE_TEXT and words < MIN_NATIVE_WORDS:
            reasons.append(
                f"content_raster_area_ratio >= {RASTER_WITH_LITTLE_TEXT} "
                f"and native_words < {MIN_NATIVE_WORDS}"
            )
        yield make.value(
            "flattened",
            int(bool(reasons)),
            reasons=reasons,
            native_words=words,
            source_checked=pasted is not None,
            seconds=round(time.perf_counter() - started, 3),
        )

    def _images(
        self, artifact: Artifact, reference: str | None, tree: ObjectTree
    ) -> tuple[dict[str, ImageReport], str | None]:
        """One report per distinct embedded image, the first ``MAX_IMAGES`` decoded (an image
        with the source's bytes shares the source's signature)."""
        try:
            images = slide_images(artifact.path, tree)
        except RefigError as exc:
            return {}, f"cannot read the images of the package: {exc.message}"
        reports = {image.sha256: ImageReport(image) for image in images}
        for report in list(reports.values())[:MAX_IMAGES]:
            sha = report.image.sha256
            try:
                report.signature = (
                    source_signature(reference, artifact.source)
                    if sha == reference and artifact.source is not None
                    else image_signature(sha, report.image.data))
            except RefigError as exc:  # EMF/WMF/SVG, corrupt or oversized: counted as content
                report.error = exc.message
        return reports, None

    def _pasted(
        self, artifact: Artifact, reference: str | None, reports: dict[str, ImageReport]
    ) -> tuple[bool | None, dict[str, Any]]:
        """Whether a shown image is the source (or enough pieces of it), with the evidence."""
        if artifact.source is None or reference is None:
            return None, {"reason": "no source figure to compare with"}
        try:
            source = source_signature(reference, artifact.source)
        except RefigError as exc:
            return None, {"reason": f"cannot read the source figure: {exc.message}"}
        for report in reports.values():
            if report.signature is not None:
                report.match = cached_match(report.image.sha256, report.signature, reference,
                                            source)
        found = [(r, r.match) for r in reports.values() if r.match is not None]
        shown = [(r, m) for r, m in found if r.image.shown]
        whole = [r for r, m in shown if m.kind in ("whole", "contains")]
        pieces = [box(*m.region) for _, m in shown if m.kind == "crop"]
        piece_coverage = float(unary_union(pieces).area) if pieces else 0.0
        pasted = bool(whole) or piece_coverage >= PIECES_MIN_COVERAGE
        detail: dict[str, Any] = {
            "matches": [r.as_json() for r, _ in found],
            "piece_coverage": round(piece_coverage, 4),
            "unreadable": [r.as_json() for r in reports.values() if r.error],
            "not_examined": max(0, len(reports) - MAX_IMAGES),
        }
        if shown:
            image, best = min(shown, key=lambda pair: (pair[1].kind == "crop", pair[1].distance))
            detail["image"] = image.as_json()
            detail["distance"] = best.distance
        return pasted, detail


def _placement_json(placement: RasterPlacement) -> dict[str, Any]:
    rect = placement.rect
    return {
        "sha256": placement.sha256,
        "role": placement.role,
        "layer": placement.layer,
        "name": placement.name,
        "rect": None if rect is None else [rect.x, rect.y, rect.w, rect.h],
        "rotation": placement.rotation,
    }
