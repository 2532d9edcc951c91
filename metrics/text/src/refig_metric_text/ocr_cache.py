"""OCR word tokens cached per image hash: a source figure is read once per process, however many
configurations rebuilt it, and concurrent requests for one image wait for a single OCR run."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from PIL import Image
from refig.plugin import read_text
from refig.pptx.slide_text import word_tokens

#: Token lists kept (a few kB each); the oldest is dropped beyond this.
MAX_ENTRIES = 4096

_cache: OrderedDict[str, tuple[str, ...]] = OrderedDict()
_locks: dict[str, threading.Lock] = {}
_guard = threading.Lock()


def ocr_tokens(key: str, load: Callable[[], Image.Image], *, max_side: int) -> tuple[str, ...]:
    """The word tokens OCR reads in the image ``load()`` returns, cached under ``key``."""
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
        lines = read_text(load(), max_side=max_side)
        tokens = tuple(token for line in lines for token in word_tokens(line.text))
        with _guard:
            _cache[key] = tokens
            _locks.pop(key, None)
            while len(_cache) > MAX_ENTRIES:
                _cache.popitem(last=False)
        return tokens
