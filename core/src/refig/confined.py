"""Reading what an untrusted process or folder left, without following links out of it.

An agent's workspace, a program's working directory and an imported release folder may hold
symlinks (to ``/etc/passwd``, to a key file, to the run store) or FIFOs. Every file refig takes
from such a folder goes through here: each path component is opened relative to its parent with
``O_NOFOLLOW``, so a link anywhere on the way is refused, not followed, and only regular files
are read, up to a size bound.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path


class FileRefused(Exception):
    """A file refig will not read: a link, outside its folder, not a regular file, or too large."""


@dataclass(frozen=True)
class Refused:
    """A path a listing skipped, with why (for the importer's or collector's report)."""

    path: Path
    reason: str


def _relative_parts(path: Path, root: Path) -> tuple[str, ...]:
    """``path``'s components below ``root``, lexically (no link is resolved to decide)."""
    absolute = Path(os.path.abspath(path))
    base = Path(os.path.abspath(root))
    if not absolute.is_relative_to(base) or absolute == base:
        raise FileRefused(f"{path} lies outside {root}")
    return absolute.relative_to(base).parts


def read_confined(path: Path, root: Path, *, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path`` inside ``root``, opened without following links."""
    parts = _relative_parts(path, root)
    directory_flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    fd = os.open(os.path.abspath(root), os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in parts[:-1]:
            try:
                child = os.open(part, directory_flags, dir_fd=fd)
            except OSError as exc:
                reason = f"{part} is a link or not a folder ({exc.strerror})"
                raise FileRefused(f"{path}: {reason}") from None
            os.close(fd)
            fd = child
        try:
            # O_NONBLOCK: a FIFO left behind must not hang the reader; fstat refuses it next.
            leaf = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
        except OSError as exc:
            raise FileRefused(f"{path} is a link or cannot be opened ({exc.strerror})") from None
    finally:
        os.close(fd)
    with os.fdopen(leaf, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{path} is not a regular file")
        if info.st_size > max_bytes:
            raise FileRefused(f"{path} has {info.st_size} bytes, over the limit of {max_bytes}")
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileRefused(f"{path} grew past the limit of {max_bytes} bytes while being read")
    return data


def confined_files(root: Path, pattern: str = "*") -> tuple[list[Path], list[Refused]]:
    """The regular files below ``root`` whose name matches ``pattern``, sorted, and the entries
    refused on the way (links of any kind, FIFOs, devices); linked folders are not entered."""
    kept: list[Path] = []
    refused: list[Refused] = []
    for folder, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(folder)
        for name in sorted(dirnames):
            if (base / name).is_symlink():
                refused.append(Refused(base / name, "a link to a folder"))
        for name in sorted(filenames):
            path = base / name
            if not path.match(pattern):
                continue
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                refused.append(Refused(path, f"a link to {os.readlink(path)}"))
            elif not stat.S_ISREG(mode):
                refused.append(Refused(path, "not a regular file"))
            else:
                kept.append(path)
    return sorted(kept), refused
