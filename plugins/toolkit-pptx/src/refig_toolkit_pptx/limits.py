"""The bounds every reader of an untrusted .pptx works within."""

from __future__ import annotations

from dataclasses import dataclass

from refig_toolkit_imaging import MAX_PIXELS

MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Size, count and ratio limits; exceeding one makes the gate answer ``too_large``.

    The defaults admit any slide a person or an agent would build (a deck of a few MB with a
    slide of a few thousand shapes) and refuse zip bombs, decompression-bomb images and
    pathological XML long before they cost more than a few hundred MB or a few seconds.
    """

    max_file_bytes: int = 200 * MiB
    max_entries: int = 5_000
    max_total_bytes: int = 1024 * MiB
    max_part_bytes: int = 128 * MiB
    max_xml_bytes: int = 16 * MiB
    #: Uncompressed / compressed size; only checked for parts larger than ``ratio_floor_bytes``.
    max_ratio: float = 200.0
    ratio_floor_bytes: int = 1 * MiB
    max_image_pixels: int = MAX_PIXELS
    max_objects: int = 20_000


DEFAULT_LIMITS = Limits()
