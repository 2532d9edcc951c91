"""The fonts fontconfig offers this process, and one digest of their files.

What a renderer's pixels depend on beyond its version: the font families ``fc-list`` reports
(under the process's ``FONTCONFIG_FILE``, which the LibreOffice sandbox passes on) and the
files behind them. The LibreOffice renderer's manifest entries and the golden canary's
environment both read them here.
"""

from __future__ import annotations

import functools
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from refig.probing import files_digest, probe

#: ``fc-list`` prints each font file's family and path, one a line.
_FORMAT = "%{family[0]}\t%{file}\n"


@dataclass(frozen=True)
class Fonts:
    """The font families fontconfig offers (sorted) and their files (sorted)."""

    families: tuple[str, ...]
    files: tuple[Path, ...]


def fontconfig_fonts() -> Fonts:
    """The fonts fontconfig offers this process: none when fontconfig is not installed; a
    RefigError when ``fc-list`` fails twice (never an empty list taken for no fonts). Read
    once per ``fc-list`` binary and fontconfig configuration."""
    return _listed(shutil.which("fc-list"), os.environ.get("FONTCONFIG_FILE"),
                   os.environ.get("FONTCONFIG_PATH"))


@functools.cache
def _listed(fc_list: str | None, config_file: str | None, config_path: str | None) -> Fonts:
    if fc_list is None:
        return Fonts((), ())
    printed = probe([fc_list, "--format", _FORMAT],
                    fix="repair fontconfig (apt-get install --reinstall fontconfig)")
    families, files = set(), set()
    for line in printed.splitlines():
        family, _, file = line.partition("\t")
        if family.strip() and file.strip():
            families.add(family.strip())
            files.add(Path(file.strip()))
    return Fonts(tuple(sorted(families)), tuple(sorted(files)))


def font_files_digest() -> str:
    """:func:`refig.probing.files_digest` over the files of :func:`fontconfig_fonts`: each
    font read once per path, size and modification time on this machine, not per process."""
    return files_digest(fontconfig_fonts().files)
