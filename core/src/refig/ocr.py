"""Offline OCR through rapidocr-onnxruntime (its models ship in the wheel).

Install the ``ocr`` extra (``refig[ocr]``) to use it. The engine loads once per process, on first
use; large images are downscaled to ``max_side`` first so time stays bounded.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from refig.errors import RefigError
from refig.images import open_image

_engine: Any = None
_lock = threading.Lock()


@dataclass(frozen=True)
class OcrLine:
    """One recognised line: its text, bounding box ``(x0, y0, x1, y1)`` in pixels and confidence."""

    text: str
    box: tuple[float, float, float, float]
    score: float


def engine() -> Any:
    """The process-wide RapidOCR engine, loaded on first use."""
    global _engine
    with _lock:
        if _engine is None:
            try:
                from rapidocr_onnxruntime import RapidOCR
            except ImportError as exc:
                raise RefigError(
                    "OCR needs rapidocr-onnxruntime, which is not installed",
                    fix="uv pip install 'refig[ocr]'  (or: pip install rapidocr-onnxruntime)",
                ) from exc
            _engine = RapidOCR()
        return _engine


def read_text(
    image: Path | Image.Image, *, max_side: int = 2048, min_score: float = 0.5
) -> list[OcrLine]:
    """Recognise the text lines of an image, top to bottom."""
    picture = image if isinstance(image, Image.Image) else open_image(image)
    picture = picture.convert("RGB")
    scale = min(1.0, max_side / max(picture.size))
    if scale < 1.0:
        size = (max(1, round(picture.width * scale)), max(1, round(picture.height * scale)))
        picture = picture.resize(size, Image.Resampling.LANCZOS)
    result, _ = engine()(np.asarray(picture)[:, :, ::-1])  # RapidOCR expects BGR
    lines: list[OcrLine] = []
    for quad, text, score in result or ():
        if float(score) < min_score or not str(text).strip():
            continue
        xs = [p[0] / scale for p in quad]
        ys = [p[1] / scale for p in quad]
        lines.append(OcrLine(str(text).strip(), (min(xs), min(ys), max(xs), max(ys)), float(score)))
    return sorted(lines, key=lambda line: (line.box[1], line.box[0]))
