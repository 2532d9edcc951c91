"""Where a picture sits in a source, found once per (picture hash, source hash) per process.

The flattening metric (is the source pasted?) and the text metric (which of the source's words
does a pasted piece hold?) ask the same question of the same pairs; both ask it here, so the
search (:mod:`refig.locating.matching`, the dearest step of either) runs once per pair.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path

from refig.images import open_image
from refig.locating.matching import Match, Signature, match, signature

#: How many (picture, source) pairs keep their result; the oldest is dropped beyond this.
MAX_MATCHES = 1024


@lru_cache(maxsize=16)
def source_signature(sha256: str, path: Path) -> Signature:
    """The source's matching signature, computed once per source per process."""
    return signature(open_image(path))


@lru_cache(maxsize=64)  # a signature keeps at most a 1024 px copy: a few MB each
def image_signature(sha256: str, data: bytes) -> Signature:
    """An embedded picture's signature, once per content per process: configurations of one
    source often paste the same picture (the source itself, most of all)."""
    return signature(open_image(data))


class _Matches:
    """The bounded table of pair results, and how many searches actually ran."""

    def __init__(self) -> None:
        self.table: OrderedDict[tuple[str, str], Match | None] = OrderedDict()
        self.lock = threading.Lock()
        self.searches = 0

    def clear(self) -> None:
        with self.lock:
            self.table.clear()
            self.searches = 0


matches = _Matches()


def cached_match(image_sha: str, candidate: Signature, source_sha: str,
                 source: Signature) -> Match | None:
    """:func:`~refig.locating.matching.match` of two signatures, once per pair of hashes."""
    key = (image_sha, source_sha)
    with matches.lock:
        if key in matches.table:
            matches.table.move_to_end(key)
            return matches.table[key]
    found = match(candidate, source)
    with matches.lock:
        matches.searches += 1
        matches.table[key] = found
        while len(matches.table) > MAX_MATCHES:
            matches.table.popitem(last=False)
    return found


def locate(image_sha: str, data: bytes, source_sha: str, source: Path) -> Match | None:
    """How the picture ``data`` (hash ``image_sha``) matches the source figure at ``source``:
    the source's own bytes are the whole source without a search. Raises
    :class:`~refig.errors.RefigError` when either cannot be decoded."""
    if image_sha == source_sha:
        return Match("whole", 0)
    reference = source_signature(source_sha, source)
    return cached_match(image_sha, image_signature(image_sha, data), source_sha, reference)


def forget() -> None:
    """Drop every cached signature and pair (tests compare cached against fresh results)."""
    source_signature.cache_clear()
    image_signature.cache_clear()
    matches.clear()
