"""The ``text`` metric: is the source's text on the slide as native, editable text?

The source's words are the exact labels of its annotation when the suite has one (a generated
suite: node texts, panel and group titles, edge labels), and otherwise the figure read with OCR
(``refig_toolkit_imaging.ocr.read_text``: RapidOCR, offline), which is then the only reference: a
rebuild that read the figure with the same OCR shares its misreadings. ``reference`` says which (1
labels, 0 OCR). The slide's text is read from the object tree (text boxes, shapes, table cells,
groups, SmartArt and chart text, only what paints). Both become case-folded word tokens and are
matched one to one
(:mod:`refig_metric_text.matching`).

* ``recall``: the share of the source's words found in the slide's native text.
* ``precision``: the share of the slide's native words found in the source's words.
* ``image_only_share``: the share of the source's words missing from the native text but held
  by the raster images the slide shows: text that is there only as pixels. A picture found in the
  source (the source itself, a scaled crop of it, or a picture holding it) holds the source's
  words in that region; any other picture is read by OCR (:mod:`refig_metric_text.pictures`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Mapping
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
from refig_toolkit_imaging import open_image
from refig_toolkit_imaging.ocr import DETECTOR_SIDE, ocr_environment
from refig_toolkit_pptx import object_tree
from refig_toolkit_pptx.slide_text import native_text, word_tokens

from refig_metric_text.located import Word, label_words
from refig_metric_text.matching import DEFAULT_SIMILARITY, match_tokens
from refig_metric_text.ocr_cache import ocr_words
from refig_metric_text.pictures import Pictures

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
#: Longest side OCR reads an image at: RapidOCR's own limit (``max_side_len``), beyond which it
#: shrinks the image again itself (bilinear). Measured in benchmarks/full_pass: the most of the
#: generated suite's labels, 0.88 against 0.81 at 1600 px; 2048, 2560 and 4096 read fewer
#: (docs/performance.md, "OCR at the resolution that keeps recall").
OCR_MAX_SIDE = 2000
SOURCE_NAMES = ("recall", "precision", "image_only_share", "source_words", "reference")
#: ``reference`` values: the source's words came from the annotation, or from OCR.
LABELS, OCR = 1.0, 0.0
#: How many unmatched words a detail lists.
DETAIL_WORDS = 50
NOT_READ = "embedded images not read (read_images=False)"


def share(part: int, whole: int) -> float | None:
    """``part / whole``, or None when there is no whole."""
    return part / whole if whole else None


class TextRecall(Metric):
    """Recall and precision of native text against OCR of the source; text held in images."""

    # 8: OCR's detector reads a figure over 1024 px shrunk to 1024
    # (refig_toolkit_imaging.ocr.ScaledDetector); 7: OCR at 2000 px, not 1600 (the knee on figures
    # of real sizes); 6: a picture found in the source holds the source's words in its region (no
    # OCR of it); 5: no OCR of the slide's images without a source (image_words null); 4: OCR at
    # 1600 px, not 2048 (benchmarks/full_pass); 3: exact labels
    version = "8"

    def __init__(
        self,
        min_similarity: float = DEFAULT_SIMILARITY,
        ocr_max_side: int = OCR_MAX_SIDE,
        read_images: bool = True,
        ocr_detector_side: int = DETECTOR_SIDE,
    ):
        self.min_similarity = float(min_similarity)
        self.ocr_max_side = int(ocr_max_side)
        self.ocr_detector_side = int(ocr_detector_side)
        self.read_images = bool(read_images)

    def environment(self) -> Mapping[str, str]:
        """Its version and options, and the OCR models' versions and digest."""
        return {"version": self.version, "min_similarity": str(self.min_similarity),
                "ocr_max_side": str(self.ocr_max_side),
                "ocr_detector_side": str(self.ocr_detector_side), **ocr_environment()}

    def compute(self, artifact: Artifact) -> Iterator[MetricValue]:
        make = ValueMaker(artifact, METRIC, self.version, source_sha256(artifact))
        tree = object_tree(artifact)
        if tree is None:
            yield from make.missing(NAMES, unavailable("no object tree", artifact))
            return
        started = time.perf_counter()
        native = [token for text in native_text(tree) for token in word_tokens(text)]
        labels = annotated_words(artifact.annotation)
        words = (labels if labels is not None
                 else self._source_words(artifact, make.reference_sha256))
        source = words if isinstance(words, str) else tuple(word.token for word in words)
        read_images = self.read_images and not isinstance(words, str)
        # Without a source the images' words would match nothing: reading them (most of this
        # metric's cost) is skipped and image_words says why.
        pictured, image_detail = (
            Pictures(artifact, words, self.ocr_max_side, self.ocr_detector_side).tokens(tree)
            if not isinstance(words, str) and self.read_images
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

    def _source_words(self, artifact: Artifact, sha: str | None) -> tuple[Word, ...] | str:
        """The source's OCR words (cached per source hash), or why there are none."""
        if artifact.source is None or sha is None:
            return "no source figure to compare with"
        source = artifact.source
        try:
            return ocr_words(sha, lambda: open_image(source), max_side=self.ocr_max_side,
                             detector_side=self.ocr_detector_side)
        except RefigError as exc:
            return f"cannot read the source figure: {exc.message}"


def annotated_words(annotation: Mapping[str, Any] | None) -> list[Word] | None:
    """The words, with their boxes, of every label a ``refig.figure-annotation/1`` document says
    is drawn (node texts, panel and group titles, edge labels), or None without such an
    annotation."""
    if not annotation or not isinstance(annotation.get("nodes"), list):
        return None
    return label_words(annotation)
