"""Finding a picture inside a source figure (whole, a scaled crop, or holding it), shared by the
metrics that need it: :mod:`refig_toolkit_imaging.locating.matching` is the search,
:mod:`refig_toolkit_imaging.locating.shared` runs it once per pair of hashes."""

from refig_toolkit_imaging.locating.matching import Match, Signature
from refig_toolkit_imaging.locating.shared import (
    cached_match,
    image_signature,
    locate,
    source_box,
    source_signature,
)

__all__ = [
    "Match",
    "Signature",
    "cached_match",
    "image_signature",
    "locate",
    "source_box",
    "source_signature",
]
