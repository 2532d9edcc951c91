"""OCR word tokens (and where each sits) cached per image hash: a source figure is read once per
process, however many configurations rebuilt it, and concurrent requests for one image wait for a
single OCR run."""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image
from refig.plugin import OncePerKey
from refig_toolkit_imaging.ocr import read_text

from refig_metric_text.located import Word, line_words

#: Word lists kept (a few kB each); the oldest is dropped beyond this.
MAX_ENTRIES = 4096

_cache: OncePerKey[str, tuple[Word, ...]] = OncePerKey(MAX_ENTRIES)


def ocr_tokens(key: str, load: Callable[[], Image.Image], *, max_side: int,
               detector_side: int) -> tuple[str, ...]:
    """The word tokens OCR reads in the image ``load()`` returns, cached under ``key``."""
    return tuple(word.token for word in
                 ocr_words(key, load, max_side=max_side, detector_side=detector_side))


def ocr_words(key: str, load: Callable[[], Image.Image], *, max_side: int,
              detector_side: int) -> tuple[Word, ...]:
    """The words OCR reads in the image ``load()`` returns (at ``max_side``, its detector at
    ``detector_side``: ``refig_toolkit_imaging.ocr.read_text``), with their boxes as fractions of
    it, cached under ``key``."""
    def read() -> tuple[Word, ...]:
        picture = load()
        lines = read_text(picture, max_side=max_side, detector_side=detector_side)
        return tuple(line_words(lines, *picture.size))

    return _cache.get(f"{key}@{max_side}/{detector_side}", read)
