"""OCR word tokens (and where each sits) cached per image hash: a source figure is read once per
process, however many configurations rebuilt it, and concurrent requests for one image wait for a
single OCR run."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from PIL import Image
from refig.plugin import read_text

from refig_metric_text.located import Word, line_words

#: Word lists kept (a few kB each); the oldest is dropped beyond this.
MAX_ENTRIES = 4096

_cache: OrderedDict[str, tuple[Word, ...]] = OrderedDict()
_locks: dict[str, threading.Lock] = {}
_guard = threading.Lock()


def ocr_tokens(key: str, load: Callable[[], Image.Image], *, max_side: int) -> tuple[str, ...]:
    """The word tokens OCR reads in the image ``load()`` returns, cached under ``key``."""
    return tuple(word.token for word in ocr_words(key, load, max_side=max_side))


def ocr_words(key: str, load: Callable[[], Image.Image], *, max_side: int) -> tuple[Word, ...]:
    """The words OCR reads in the image ``load()`` returns, with their boxes as fractions of it,
    cached under ``key``."""
    key = f"{key}@{max_side}"
    with _guard:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        with _guard:
            if key in _cache:
                return _cache[key]
        picture = load()
        words = tuple(line_words(read_text(picture, max_side=max_side), *picture.size))
        with _guard:
            _cache[key] = words
            _locks.pop(key, None)
            while len(_cache) > MAX_ENTRIES:
                _cache.popitem(last=False)
        return words
