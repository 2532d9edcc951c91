"""The environment the golden results depend on, and how two environments differ.

:func:`canary_environment` is the one place that says what the canary caches by; the run
manifest's environment digest is meant to replace it.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from refig.plugin import Renderer, cache_dir, stable_hash

#: The entries that are not a realiser's version.
FONTS, FONT_FILES = "fonts", "fonts sha256"
_DOTTED = re.compile(r"\b(\d+)\.(\d+)(?:\.\d+)+")


def canary_environment(renderers: Mapping[str, Renderer]) -> dict[str, str]:
    """What the golden renderings depend on, as entries: each realiser's ``version`` by name
    (LibreOffice's; the program renderer's lists each interpreter's: Python and matplotlib,
    Octave, R, XeTeX), the font families fontconfig offers and a digest of their files."""
    entries = {name: renderer.version for name, renderer in sorted(renderers.items())}
    families, files = fontconfig_fonts()
    entries[FONTS] = ", ".join(families)
    entries[FONT_FILES] = fonts_digest(files)
    return entries


def environment_digest(entries: Mapping[str, str]) -> str:
    """A stable digest of the entries."""
    return stable_hash(dict(entries))


def fontconfig_fonts() -> tuple[list[str], list[Path]]:
    """The font families fontconfig offers (sorted) and their files, as ``fc-list`` reports
    them under this process's ``FONTCONFIG_FILE``; none when fontconfig is not installed."""
    try:
        done = subprocess.run(["fc-list", "--format", "%{family[0]}\t%{file}\n"],
                              capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return [], []
    families, files = set(), set()
    for line in done.stdout.splitlines():
        family, _, file = line.partition("\t")
        if family.strip() and file.strip():
            families.add(family.strip())
            files.add(Path(file.strip()))
    return sorted(families), sorted(files)


def fonts_digest(files: Iterable[Path]) -> str:
    """sha256 over each font file's name and content digest, in order; each file's digest is
    kept by its size and modification time in the cache (hashing every font takes seconds)."""
    memo_path = cache_dir() / "canary" / "font-digests.json"
    try:
        memo = json.loads(memo_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        memo = {}
    total, changed = hashlib.sha256(), False
    for path in sorted(set(files)):
        try:
            stat = path.stat()
        except OSError:
            continue
        stamp = f"{stat.st_size}:{stat.st_mtime_ns}"
        known = memo.get(str(path))
        if not (isinstance(known, list) and len(known) == 2 and known[0] == stamp):
            known, changed = [stamp, _file_sha256(path)], True
            memo[str(path)] = known
        total.update(f"{path}\0{known[1]}\n".encode())
    if changed:
        memo_path.parent.mkdir(parents=True, exist_ok=True)
        partial = memo_path.with_suffix(f".{id(memo)}.tmp")
        partial.write_text(json.dumps(memo), encoding="utf-8")
        partial.replace(memo_path)
    return total.hexdigest()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return "unreadable"
    return digest.hexdigest()


def release(version: str) -> str:
    """``version`` with every dotted number cut to its release, major.minor (``LibreOffice
    7.4.7.2`` is ``LibreOffice 7.4``): a patch level does not fail the canary, a release does."""
    return _DOTTED.sub(r"\1.\2", version)


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
    """What differs from the environment the expected results were made in: ``failures`` fail
    the canary, ``notes`` are said beside it."""

    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _listed(names: Iterable[str], most: int = 6) -> str:
    names = sorted(names)
    more = len(names) - most
    return ", ".join(names[:most]) + (f" and {more} more" if more > 0 else "")


def differences(expected: Mapping[str, str], found: Mapping[str, str],
                required_fonts: Iterable[str]) -> Differences:
    """How ``found`` differs from ``expected``: another release of a realiser or toolchain, or a
    required font family (matched by prefix: ``Noto Sans CJK``) missing, fail; another patch
    level, a toolchain no longer installed, other fonts or font files are notes."""
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
            elif release(now[part]) != release(was):
                said.failures.append(f"{label}: {now[part]} (expected {was})")
            elif now[part] != was:
                said.notes.append(f"{label}: {now[part]} (expected {was}, the same release)")
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
