"""Deterministic font resolution: fixed families, looked up in a fixed order of directories.

The same machine and seed always draw with the same font files. When none of the families is
installed, Pillow's bundled font is used and a warning names the packages that fix it.
"""

from __future__ import annotations

import functools
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import ImageFont

#: family -> (regular, bold, italic) file names; sans families first (the common case in figures).
FAMILIES: dict[str, tuple[str, str, str]] = {
    "Carlito": ("Carlito-Regular.ttf", "Carlito-Bold.ttf", "Carlito-Italic.ttf"),
    "DejaVu Sans": ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf"),
    "Caladea": ("Caladea-Regular.ttf", "Caladea-Bold.ttf", "Caladea-Italic.ttf"),
    "DejaVu Serif": ("DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf"),
}
FONT_DIRS = (
    "/usr/share/fonts/truetype/crosextra",
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    "/Library/Fonts",
    "C:/Windows/Fonts",
)
FALLBACK = "Pillow default"
INSTALL_HINT = "apt-get install fonts-crosextra-carlito fonts-dejavu-core"


@functools.cache
def _find(name: str) -> Path | None:
    extra = [d for d in os.environ.get("REFIG_FONT_DIRS", "").split(os.pathsep) if d]
    for base in (*extra, *FONT_DIRS):
        root = Path(base)
        direct = root / name
        if direct.is_file():
            return direct
        if root.is_dir():
            found = sorted(root.rglob(name))
            if found:
                return found[0]
    return None


def available_families() -> list[str]:
    """Families whose three faces are all installed, in :data:`FAMILIES` order."""
    return [f for f, files in FAMILIES.items() if all(_find(n) for n in files)]


@dataclass(frozen=True)
class FontSet:
    """One family's faces, resolved to files (or Pillow's bundled font)."""

    family: str
    regular: Path | None
    bold: Path | None
    italic: Path | None

    def get(self, size: int, face: str = "regular") -> ImageFont.FreeTypeFont:
        """The face at ``size`` pixels."""
        return _load(getattr(self, face), max(6, int(size)))


@functools.cache
def _load(path: Path | None, size: int) -> ImageFont.FreeTypeFont:
    if path is None:
        return ImageFont.load_default(size)  # type: ignore[return-value]
    return ImageFont.truetype(str(path), size)


def font_set(family: str | None) -> FontSet:
    """The faces of ``family``; :data:`FALLBACK` (with a warning) when it is not installed."""
    if family is not None and family in FAMILIES:
        paths = [_find(n) for n in FAMILIES[family]]
        if all(paths):
            return FontSet(family, *paths)
    warnings.warn(
        f"none of the fonts {', '.join(FAMILIES)} is installed; drawing with Pillow's bundled "
        f"font (figures will differ from other machines). Fix: {INSTALL_HINT}",
        stacklevel=2,
    )
    return FontSet(FALLBACK, None, None, None)
