"""Where a picture sits in a source, found once per (picture hash, source hash) per process.

The flattening metric (is the source pasted?) and the text metric (which of the source's words
does a pasted piece hold?) ask the same question of the same pairs; both ask it here, so the
search (:mod:`refig_toolkit_imaging.locating.matching`, the dearest step of either) runs once per
pair.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

from refig.plugin import OncePerKey

from refig_toolkit_imaging.images import open_image
from refig_toolkit_imaging.locating.matching import Match, Signature, match, signature

#: How many (picture, source) pairs keep their result; the oldest is dropped beyond this. The pass
#: runs each metric over every artifact before the next metric, so the second of flattening and
#: text finds a pair only when the table spans the pass: 16,384 pairs (about 0.6 kB each, 10 MB at
#: most) span 10,000 artifacts at 1.6 searched pictures each (the benchmark's corpus has 0.2).
MAX_MATCHES = 16_384


#: The trimmed box of every source signed, kept after its signature (four floats each) for the
#: regions of crops found in it, in the next metric's stage.
_source_boxes: OncePerKey[str, tuple[float, float, float, float]] = OncePerKey(MAX_MATCHES)


@lru_cache(maxsize=16)
def source_signature(sha256: str, path: Path) -> Signature:
    """The source's matching signature, computed once per source per process."""
    made = signature(open_image(path))
    _source_boxes.get(sha256, lambda: made.box)
    return made


def source_box(sha256: str, path: Path) -> tuple[float, float, float, float]:
    """The source's :attr:`Signature.box`, without remaking the
    signature of a source signed before (:func:`source_signature` raises for one that cannot
    be decoded)."""
    box = _source_boxes.peek(sha256)
    return box if box is not None else source_signature(sha256, path).box


@lru_cache(maxsize=64)  # a signature keeps at most a 1024 px copy: a few MB each
def image_signature(sha256: str, data: bytes) -> Signature:
    """An embedded picture's signature, once per content per process: configurations of one
    source often paste the same picture (the source itself, most of all)."""
    return signature(open_image(data))


class _Matches:
    """The bounded table of pair results, and how many searches actually ran."""

    def __init__(self) -> None:
        self.table: OncePerKey[tuple[str, str], Match | None] = OncePerKey(MAX_MATCHES)
        self.searches = 0
        self._count = threading.Lock()

    def search(self, candidate: Signature, source: Signature) -> Match | None:
        """One search, counted."""
        found = match(candidate, source)
        with self._count:
            self.searches += 1
        return found

    def clear(self) -> None:
        self.table.clear()
        with self._count:
            self.searches = 0


matches = _Matches()


def cached_match(image_sha: str, candidate: Signature, source_sha: str,
                 source: Signature) -> Match | None:
    """:func:`match` of two signatures, once per pair of hashes (two
    threads asking for one pair wait for one search)."""
    return matches.table.get((image_sha, source_sha), lambda: matches.search(candidate, source))


def locate(image_sha: str, data: bytes, source_sha: str, source: Path) -> Match | None:
    """How the picture ``data`` (hash ``image_sha``) matches the source figure at ``source``:
    the source's own bytes are the whole source without a search, and a pair searched before
    is answered from the table without either signature. Raises
    :class:`~refig.errors.RefigError` when either cannot be decoded."""
    if image_sha == source_sha:
        return Match("whole", 0)

    def search() -> Match | None:
        reference = source_signature(source_sha, source)
        return matches.search(image_signature(image_sha, data), reference)

    # a pair already searched needs neither signature (the picture's may be long evicted)
    return matches.table.get((image_sha, source_sha), search)


def forget() -> None:
    """Drop every cached signature and pair (tests compare cached against fresh results)."""
    source_signature.cache_clear()
    _source_boxes.clear()
    image_signature.cache_clear()
    matches.clear()
