"""The ``text`` metric: is the source's text on the slide as native, editable text?

The source's words are the exact labels of its annotation when the suite has one (a generated
suite: node texts, panel and group titles, edge labels), and otherwise the figure read with OCR
(``refig.ocr.read_text``: RapidOCR, offline), which is then the only reference: a rebuild that read
the figure with the same OCR shares its misreadings. ``reference`` says which (1 labels, 0 OCR).
The slide's text is read from the object tree (text boxes, shapes, table cells, groups,
SmartArt and chart text, only what paints). Both become case-folded word tokens and are matched
one to one
(:mod:`refig_metric_text.matching`).

* ``recall``: the share of the source's words found in the slide's native text.
* ``precision``: the share of the slide's native words found in the source's words.
* ``image_only_share``: the share of the source's OCR words missing from the native text but read
  by OCR inside the raster images the slide shows: text that is there only as pixels.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from refig.plugin import (
    Artifact,
    MetricValue,
    RefigError,
    ValueMaker,
    open_image,
    source_sha256,
    unavailable,
)
from refig.pptx import ObjectTree
from refig.pptx.rasters import slide_images
from refig.pptx.slide_text import native_text, word_tokens

from refig_metric_text.matching import DEFAULT_SIMILARITY, match_tokens
from refig_metric_text.ocr_cache import ocr_tokens

METRIC = "text"
NAMES = (
    "recall",
    "precision",
    "image_only_share",
    "source_words",
    "native_words",
    "image_words",
    "reference",
)
#: Embedded images read by OCR, largest on the slide first; smaller ones hold no sentence.
MAX_OCR_IMAGES = 8
MIN_OCR_SIDE = 24
#: Longest side OCR reads an image at. Measured in benchmarks/full_pass: on the generated suite
#: 1600 px keeps (better than) the recall of 2048 px at 20% less CPU; below it, real figures,
#: whose text is smaller, lose words (docs/performance.md).
OCR_MAX_SIDE = 1600
SOURCE_NAMES = ("recall", "precision", "image_only_share", "source_words", "reference")
#: ``reference`` values: the source's words came from the annotation, or from OCR.
LABELS, OCR = 1.0, 0.0
#: How many unmatched words a detail lists.
DETAIL_WORDS = 50
NOT_READ = "embedded images not read (read_images=False)"


def share(part: int, whole: int) -> float | None:
    """``part / whole``, or None when there is no whole."""
    return part / whole if whole else None


class TextRecall:
    """Recall and precision of native text against OCR of the source; text held in images."""

    # 5: no OCR of the slide's images without a source (image_words null); 4: OCR at 1600 px,
    # not 2048 (benchmarks/full_pass); 3: exact labels
    version = "5"

    def __init__(
        self,
        min_similarity: float = DEFAULT_SIMILARITY,
        ocr_max_side: int = OCR_MAX_SIDE,
        read_images: bool = True,
    ):
        self.min_similarity = float(min_similarity)
        self.ocr_max_side = int(ocr_max_side)
        self.read_images = bool(read_images)

    def compute(self, artifact: Artifact) -> Iterator[MetricValue]:
        make = ValueMaker(artifact, METRIC, self.version, source_sha256(artifact))
        tree = artifact.tree
        if tree is None:
            yield from make.missing(NAMES, unavailable("no object tree", artifact))
            return
        started = time.perf_counter()
        native = [token for text in native_text(tree) for token in word_tokens(text)]
        labels = annotated_labels(artifact.annotation)
        source = (tuple(labels) if labels is not None
                  else self._source_tokens(artifact, make.reference_sha256))
        read_images = self.read_images and not isinstance(source, str)
        # Without a source the images' words would match nothing: OCR (most of this metric's
        # cost, about a CPU second a slide) is skipped and image_words says why.
        pictured, image_detail = (self._image_tokens(artifact.path, tree) if read_images
                                  else ([], {"reason": NOT_READ if not self.read_images
                                             else f"{source}: the slide's images are not read"}))
        if isinstance(source, str):
            yield from make.missing(SOURCE_NAMES, source)
        else:
            found = match_tokens(source, native, self.min_similarity)
            no_text = "the source shows no text the OCR can read"
            yield make.value(
                "recall",
                share(found.matched, len(source)),
                missing=list(found.unmatched_left[:DETAIL_WORDS]),
                exact=found.exact,
                reason=None if source else no_text,
            )
            yield make.value(
                "precision",
                share(found.matched, len(native)),
                extra=list(found.unmatched_right[:DETAIL_WORDS]),
                reason=None if native else "the slide has no native text",
            )
            if self.read_images:
                in_images = match_tokens(found.unmatched_left, pictured, self.min_similarity)
                pictured_only = Counter(found.unmatched_left) - Counter(in_images.unmatched_left)
                yield make.value(
                    "image_only_share",
                    share(in_images.matched, len(source)),
                    words=list(pictured_only.elements())[:DETAIL_WORDS],
                    reason=None if source else no_text,
                )
            else:
                yield make.value("image_only_share", None, reason=NOT_READ)
            yield make.value("source_words", len(source))
            yield make.value(
                "reference", LABELS if labels is not None else OCR,
                source="annotation labels" if labels is not None else "OCR of the source figure",
            )
        yield make.value("native_words", len(native))
        yield make.value(
            "image_words",
            len(pictured) if read_images else None,
            seconds=round(time.perf_counter() - started, 3),
            **image_detail,
        )

    def _source_tokens(self, artifact: Artifact, sha: str | None) -> tuple[str, ...] | str:
        """The source's OCR tokens (cached per source hash), or why there are none."""
        if artifact.source is None or sha is None:
            return "no source figure to compare with"
        source = artifact.source
        try:
            return ocr_tokens(sha, lambda: open_image(source), max_side=self.ocr_max_side)
        except RefigError as exc:
            return f"cannot read the source figure: {exc.message}"

    def _image_tokens(self, path: Path, tree: ObjectTree) -> tuple[list[str], dict[str, Any]]:
        """OCR tokens of the raster images the slide shows (each image read once per process)."""
        try:
            images = [image for image in slide_images(path, tree) if image.shown]
        except RefigError as exc:
            return [], {"images_error": f"cannot read the images: {exc.message}"}
        tokens: list[str] = []
        read, skipped = [], []
        for image in images[:MAX_OCR_IMAGES]:
            try:
                picture = open_image(image.data)
            except RefigError as exc:  # EMF, SVG, corrupt: no pixels to read
                skipped.append({"part": image.part, "reason": exc.message})
                continue
            if min(picture.size) < MIN_OCR_SIDE:
                continue
            tokens += ocr_tokens(image.sha256, lambda p=picture: p, max_side=self.ocr_max_side)
            read.append(image.part)
        detail: dict[str, Any] = {"images_read": read}
        if skipped:
            detail["images_skipped"] = skipped
        if len(images) > MAX_OCR_IMAGES:
            detail["images_not_read"] = len(images) - MAX_OCR_IMAGES
        return tokens, detail


def annotated_labels(annotation: Mapping[str, Any] | None) -> list[str] | None:
    """The word tokens of every label a ``refig.figure-annotation/1`` document says is drawn (node
    texts, panel and group titles, edge labels), or None without such an annotation."""
    if not annotation or not isinstance(annotation.get("nodes"), list):
        return None
    texts: list[Any] = [n.get("text") for n in annotation["nodes"] if isinstance(n, dict)]
    for part, key in (("panels", "title"), ("groups", "title"), ("edges", "label")):
        items = annotation.get(part)
        if isinstance(items, list):
            texts += [item.get(key) for item in items if isinstance(item, dict)]
    return [token for text in texts if isinstance(text, str) for token in word_tokens(text)]

