"""The environment the golden results depend on, and how two environments differ.

:func:`canary_environment` is the one place that says what the canary caches by; the run
manifest's environment digest is meant to replace it. Its entries are read so that two
processes of one machine read the same (:func:`refig_toolkit_imaging.probe`: a probe that
fails is an error, not an entry).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from refig.plugin import Renderer, stable_hash
from refig_toolkit_imaging.fonts import font_files_digest, fontconfig_fonts

#: The entries that are not a realiser's version.
FONTS, FONT_FILES = "fonts", "fonts sha256"


def canary_environment(renderers: Mapping[str, Renderer]) -> dict[str, str]:
    """What the golden renderings depend on, as entries: each realiser's ``version`` by name
    (LibreOffice's; the program renderer's lists each interpreter's: Python and matplotlib,
    Octave, R, XeTeX), the font families fontconfig offers and the digest of their files
    (:func:`refig_toolkit_imaging.fonts.font_files_digest`, the LibreOffice renderer's)."""
    entries = {name: renderer.version for name, renderer in sorted(renderers.items())}
    entries[FONTS] = ", ".join(fontconfig_fonts().families)
    entries[FONT_FILES] = font_files_digest()
    return entries


def environment_digest(entries: Mapping[str, str]) -> str:
    """A stable digest of the entries."""
    return stable_hash(dict(entries))


def _parts(version: str) -> dict[str, str]:
    """A version listing toolchains (``python: 3.12.1 matplotlib 3.9; r: R 4.2.2``) by name;
    a plain version is one part named ""."""
    parts = {}
    for piece in version.split("; "):
        name, colon, rest = piece.partition(": ")
        parts[name if colon else ""] = rest if colon else piece
    return parts


@dataclass
class Differences:
    """What differs from the environment the expected results were made in. The pixels decide
    whether a set passes: only ``failures`` (a required font family missing) fail it whatever
    they say; ``versions`` (another version of the realiser or of a toolchain, even another
    build string of one release) and ``notes`` (fonts, font files, a toolchain no longer
    installed) are said beside the pages, and name the likely cause when a page differs."""

    failures: list[str] = field(default_factory=list)
    versions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _listed(names: Iterable[str], most: int = 6) -> str:
    names = sorted(names)
    more = len(names) - most
    return ", ".join(names[:most]) + (f" and {more} more" if more > 0 else "")


def differences(expected: Mapping[str, str], found: Mapping[str, str],
                required_fonts: Iterable[str]) -> Differences:
    """How ``found`` differs from ``expected``: a required font family (matched by prefix:
    ``Noto Sans CJK``) missing is a failure; another version of a realiser or toolchain is a
    version difference; a toolchain no longer installed, other fonts or font files are notes."""
    said = Differences()
    if not expected:
        said.notes.append("no environment recorded with the expected results")
        return said
    for name, version in expected.items():
        if name in (FONTS, FONT_FILES):
            continue
        now = _parts(found.get(name, ""))
        for part, was in _parts(version).items():
            label = f"{name} {part}".strip()
            if part not in now:
                said.notes.append(f"{label}: not installed (expected {was})")
            elif now[part] != was:
                said.versions.append(f"{label}: {now[part]} (expected {was})")
    had = set(filter(None, expected.get(FONTS, "").split(", ")))
    has = set(filter(None, found.get(FONTS, "").split(", ")))
    missing = [font for font in required_fonts if not any(f.startswith(font) for f in has)]
    if missing:
        said.failures.append(f"fonts missing: {', '.join(missing)} "
                             f"(fontconfig offers {len(has)} families)")
    if had - has and not missing:
        said.notes.append(f"fonts no longer offered: {_listed(had - has)}")
    if has - had:
        said.notes.append(f"fonts not offered before: {_listed(has - had)}")
    if expected.get(FONT_FILES) not in (None, found.get(FONT_FILES)) and not (had ^ has):
        said.notes.append("the font files differ (same families)")
    return said
