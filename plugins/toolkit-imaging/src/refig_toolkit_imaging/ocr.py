"""Offline OCR through rapidocr-onnxruntime (its models ship in the wheel).

Install the ``ocr`` extra (``refig-toolkit-imaging[ocr]``) to use it. The engine loads once per
process, on first use; large images are downscaled to ``max_side`` first so time stays bounded, and
thin ones padded (:func:`letterboxed`) so memory does.

The text detector reads an image longer than :data:`DETECTOR_SIDE` px as a copy shrunk to that
side (:class:`ScaledDetector`); the recogniser still reads each line it finds from the image at
``max_side``. RapidOCR's own rule (the shortest side raised to 736 px, the longest kept) read
fewer of the generated figures' exact labels for more CPU on figures of real sizes, and is kept
for smaller pictures, whose small text it needs (docs/metrics.md, "Version 8 against version 7").

Each onnxruntime session runs on ``REFIG_OCR_THREADS`` threads, 1 unless set: refig runs one
worker per core, and onnxruntime's default (a pool as wide as the machine, its threads spinning
while they wait) made each worker fight the others for cores. On 2 cores, one thread read the same
lines with 1.7x less CPU (docs/metrics.md). ``0`` keeps onnxruntime's default.

RapidOCR turns onnxruntime's CPU memory arena off; :func:`engine` turns it back on (each sub-model
then reuses its buffers instead of allocating them on every call). The output is the same, exactly
(texts, boxes, scores on 12 generated and 8 real figures), for about 20% less CPU
(docs/performance.md, "Source OCR's CPU").
"""

from __future__ import annotations

import copy
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageOps
from refig.plugin import RefigError, install_fix
from refig.probing import files_digest

from refig_toolkit_imaging.images import open_image

THREADS_ENV = "REFIG_OCR_THREADS"
#: A picture longer than this many times its other side is padded to :data:`PADDED_ASPECT`
#: (RapidOCR's own letterbox for wide pictures: ``width_height_ratio`` 8, padded to 4:1).
MAX_ASPECT, PADDED_ASPECT = 8, 4
#: Longest side, in pixels, beyond which the text detector reads a copy shrunk to it.
DETECTOR_SIDE = 1024
_engines: dict[tuple[int, bool, int], Any] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class OcrLine:
    """One recognised line: its text, bounding box ``(x0, y0, x1, y1)`` in pixels and confidence."""

    text: str
    box: tuple[float, float, float, float]
    score: float


def ocr_threads() -> int:
    """Threads per onnxruntime session: ``REFIG_OCR_THREADS``, else 1 (0: onnxruntime's default)."""
    value = os.environ.get(THREADS_ENV, "1").strip()
    if not value.isdigit():
        raise RefigError(f"{THREADS_ENV}={value!r} is not a number of threads",
                         fix=f"set {THREADS_ENV} to 1 (the default), or 0 for onnxruntime's own")
    return int(value)


class ScaledDetector:
    """RapidOCR's text detector reading an image longer than ``side`` px as a copy shrunk to
    ``side`` (by pixel area, and not enlarged again), its boxes mapped back to the image; a
    smaller image, or one whose shrunk copy shows no text (a strip whose text is small against
    its length), by RapidOCR's own rule (the shortest side raised to 736 px); with ``side`` 0,
    every image by that rule."""

    def __init__(self, detector: Any, side: int):
        self.detector, self.side = detector, side
        self.shrunk = copy.copy(detector)  # the same session; "max" enlarges nothing under 1500
        self.shrunk.limit_type = "max"

    def __call__(self, image: np.ndarray) -> tuple[np.ndarray | None, float]:
        height, width = image.shape[:2]
        if not self.side or max(height, width) <= self.side:
            return self.detector(image)
        scale = self.side / max(height, width)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        boxes, seconds = self.shrunk(cv2.resize(image, size, interpolation=cv2.INTER_AREA))
        if boxes is None or not len(boxes):
            return self.detector(image)
        stretch = np.array([width / size[0], height / size[1]], dtype=np.float32)
        return np.asarray(boxes, dtype=np.float32) * stretch, seconds


def engine(threads: int | None = None, *, arena: bool = True,
           detector_side: int = DETECTOR_SIDE) -> Any:
    """The process-wide RapidOCR engine on ``threads`` threads (:func:`ocr_threads` unless
    given), its detector shrinking what is longer than ``detector_side`` px
    (:class:`ScaledDetector`), loaded on first use; ``arena=False`` keeps RapidOCR's sessions as
    it makes them (memory arena off), for comparing against."""
    threads = ocr_threads() if threads is None else threads
    key = (threads, arena, detector_side)
    with _lock:
        if key not in _engines:
            try:
                from rapidocr_onnxruntime import RapidOCR
            except ImportError as exc:
                raise RefigError(
                    "OCR needs rapidocr-onnxruntime, which is not installed",
                    fix=install_fix("refig-toolkit-imaging[ocr]"),
                ) from exc
            # RapidOCR leaves a count of -1 to onnxruntime (one thread per core)
            count = threads if threads > 0 else -1
            ocr = RapidOCR(intra_op_num_threads=count, inter_op_num_threads=count)
            for model in models(ocr) if arena else ():
                model.session = with_memory_arena(model.session)
            ocr.text_det = ScaledDetector(ocr.text_det, detector_side)
            _engines[key] = ocr
        return _engines[key]


def ocr_environment() -> dict[str, str]:
    """What OCR's words depend on: rapidocr-onnxruntime's and onnxruntime's versions and a
    digest of the models (and their configuration) shipped in the rapidocr wheel; found without
    loading them."""
    from importlib import metadata, util

    found = {}
    for name in ("rapidocr-onnxruntime", "onnxruntime"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    package = util.find_spec("rapidocr_onnxruntime")
    if package is not None and package.origin is not None:
        root = Path(package.origin).parent
        files = [*root.rglob("*.onnx"), *root.rglob("*.yaml")]
        found["ocr_models_sha256"] = files_digest(files)
    return found


def models(ocr: Any) -> tuple[Any, ...]:
    """A RapidOCR engine's three sub-models (detector, angle classifier, recogniser), each
    holding its onnxruntime ``session``."""
    detector = getattr(ocr.text_det, "detector", ocr.text_det)  # inside a ScaledDetector
    return detector.infer, ocr.text_cls.infer, ocr.text_rec.session


def with_memory_arena(session: Any) -> Any:
    """The onnxruntime ``session`` made again from its model, with its options and the CPU memory
    arena on (as it was, where this onnxruntime does not say which model file it read)."""
    from onnxruntime import InferenceSession

    model = getattr(session, "_model_path", None)  # onnxruntime keeps no public path
    if model is None:
        return session
    options = session.get_session_options()
    options.enable_cpu_mem_arena = True
    return InferenceSession(model, sess_options=options, providers=session.get_providers())


def read_text(
    image: Path | Image.Image, *, max_side: int = 2048, min_score: float = 0.5,
    threads: int | None = None, arena: bool = True, detector_side: int = DETECTOR_SIDE,
) -> list[OcrLine]:
    """Recognise the text lines of an image, top to bottom (``threads``, ``arena``,
    ``detector_side``: see :func:`engine`)."""
    picture = image if isinstance(image, Image.Image) else open_image(image)
    picture = picture.convert("RGB")
    scale = min(1.0, max_side / max(picture.size))
    if scale < 1.0:
        size = (max(1, round(picture.width * scale)), max(1, round(picture.height * scale)))
        picture = picture.resize(size, Image.Resampling.LANCZOS)
    picture, (left, top) = letterboxed(picture)
    bgr = np.asarray(picture)[:, :, ::-1]  # RapidOCR expects BGR
    result, _ = engine(threads, arena=arena, detector_side=detector_side)(bgr)
    lines: list[OcrLine] = []
    for quad, text, score in result or ():
        if float(score) < min_score or not str(text).strip():
            continue
        xs = [(p[0] - left) / scale for p in quad]
        ys = [(p[1] - top) / scale for p in quad]
        lines.append(OcrLine(str(text).strip(), (min(xs), min(ys), max(xs), max(ys)), float(score)))
    return sorted(lines, key=lambda line: (line.box[1], line.box[0]))


def letterboxed(picture: Image.Image) -> tuple[Image.Image, tuple[int, int]]:
    """``picture`` centred on black bands to :data:`PADDED_ASPECT` when it is longer than
    :data:`MAX_ASPECT` times its width or height, and where it now starts.

    RapidOCR does this itself only to a wide picture, after shrinking it to 2000 px: a tall strip
    (40 x 2000 px) reached its detector 736 px wide and 36,800 tall (5.4 GB, 24 CPU s), a wide
    one under 16 px high after that shrinking failed to resize, and thinner ones ran out of
    memory. Padded first, no picture reaches the detector larger than a square one would.
    """
    width, height = picture.size
    if max(width, height) <= MAX_ASPECT * min(width, height):
        return picture, (0, 0)
    pad_x = max(0, height // PADDED_ASPECT - width) // 2
    pad_y = max(0, width // PADDED_ASPECT - height) // 2
    return ImageOps.expand(picture, (pad_x, pad_y), fill="black"), (pad_x, pad_y)
