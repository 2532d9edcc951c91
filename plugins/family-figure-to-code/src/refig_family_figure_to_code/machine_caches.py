"""This machine's caches a sandboxed program may read, so that a cold run does not redo work
every run repeats: fontconfig's font cache, and XeTeX's LaTeX format stored uncompressed.

Measured in the sandbox (docs/performance.md, *LaTeX's cold run*): without
``/var/cache/fontconfig`` every run that starts fontconfig (xelatex, R's cairo device, Octave's
gnuplot) scanned the system's 1,200 font files and wrote a cache into the sandbox's throwaway
root; and every xelatex run inflates the system's gzip-compressed ``xelatex.fmt`` (31 MB) before
reading it. Both are shown to the program read-only, and neither changes a pixel:

- the system's fontconfig cache describes the fonts under ``/usr/share/fonts`` that the program
  can already read; fontconfig still checks each entry against its directory and scans a
  directory whose cache is stale, as it did before;
- the uncompressed format holds the very bytes XeTeX inflates from the system's file (zlib's
  ``gzread`` reads a file that is not gzip as it is), kept under refig's cache in a folder named
  by the system file's sha256 and searched first (``TEXFORMATS``), the system's path after it.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from refig.plugin import cache_dir

#: The system's fontconfig cache (``fc-cache``'s output for the system's font folders).
FONTCONFIG_CACHE = Path("/var/cache/fontconfig")
#: The format ``xelatex`` loads.
XELATEX_FORMAT = "xelatex.fmt"


def fontconfig_binds() -> tuple[Path, ...]:
    """The fontconfig cache to show a program, when this machine has one."""
    return (FONTCONFIG_CACHE,) if FONTCONFIG_CACHE.is_dir() else ()


@functools.cache
def system_format() -> Path | None:
    """The ``xelatex.fmt`` a sandboxed xelatex loads (kpathsea's search with an empty home and
    no user tree, as in the sandbox), or None when there is none."""
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None:
        return None
    with tempfile.TemporaryDirectory(prefix="refig-kpse-") as empty:
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": empty,
               "TEXMFVAR": str(Path(empty) / "texmf-var")}
        try:
            found = subprocess.run([kpsewhich, "-engine=xetex", XELATEX_FORMAT], env=env,
                                   capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
    path = Path(found.stdout.strip()) if found.returncode == 0 else None
    return path if path is not None and path.is_file() else None


def _inflated_size(compressed: bytes) -> int:
    """The size gzip records for its content (modulo 2**32), from the trailer."""
    return int.from_bytes(compressed[-4:], "little")


def uncompressed_formats() -> Path | None:
    """A folder holding the system's ``xelatex.fmt`` uncompressed, made once per machine and
    system format (a format rebuilt in place gets a folder of its own); None when there is no
    gzip format to inflate or it cannot be written."""
    source = system_format()
    if source is None:
        return None
    try:
        stat = source.stat()
    except OSError:
        return None
    return _inflated(source, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _inflated(source: Path, mtime_ns: int, size: int) -> Path | None:
    """:func:`uncompressed_formats` for one state of the system's file."""
    try:
        compressed = source.read_bytes()
        if not compressed.startswith(b"\x1f\x8b"):
            return None
        folder = cache_dir() / "tex-formats" / hashlib.sha256(compressed).hexdigest()[:32]
        target = folder / XELATEX_FORMAT
        expected = _inflated_size(compressed)
        if target.is_file() and target.stat().st_size % (1 << 32) == expected:
            return folder
        folder.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(dir=folder, prefix=".partial-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(gzip.decompress(compressed))
        os.chmod(partial, 0o444)
        os.replace(partial, target)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    return folder


def latex_caches() -> tuple[dict[str, str], tuple[Path, ...]]:
    """The environment and read-only binds that let a sandboxed xelatex use both caches."""
    binds = fontconfig_binds()
    formats = uncompressed_formats()
    if formats is None:
        return {}, binds
    # the trailing colon appends kpathsea's default search path after the folder
    return {"TEXFORMATS": f"{formats}:"}, (*binds, formats)
