"""Unpacking arXiv source packages safely, in memory.

A package is a gzipped tar, a gzipped single TeX file, a plain tar, or (for PDF-only submissions)
a PDF. Decompression is bounded (a gzip bomb stops at ``max_total`` bytes), members are read into
memory and never written to disk, and a package holding links, devices, absolute paths or ``..``
is refused whole: genuine arXiv sources have none.
"""

from __future__ import annotations

import io
import posixpath
import tarfile
import zlib
from dataclasses import dataclass


class SourceError(Exception):
    """A package that cannot be used; ``reason`` is the short code recorded for the paper."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Limits:
    max_total: int = 500_000_000
    max_file: int = 100_000_000
    max_members: int = 5_000


def _gunzip(data: bytes, limit: int) -> bytes:
    """Decompress every gzip member, refusing output past ``limit`` bytes."""
    out = bytearray()
    while data:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            while data:
                out += inflater.decompress(data, limit + 1 - len(out))
                if len(out) > limit:
                    raise SourceError("too_large", f"decompresses to more than {limit:,} bytes")
                data = inflater.unconsumed_tail
                if inflater.eof:
                    break
        except zlib.error as exc:
            raise SourceError("corrupt", f"gzip: {exc}") from exc
        data = inflater.unused_data
        if not inflater.eof:
            raise SourceError("corrupt", "truncated gzip stream")
    return bytes(out)


def _is_tar(data: bytes) -> bool:
    return len(data) >= 512 and data[257:262] == b"ustar"


def _safe_name(name: str) -> str:
    normal = posixpath.normpath(name.replace("\\", "/"))
    if name.startswith("/") or normal.startswith("../") or normal == ".." or ":" in normal[:3]:
        raise SourceError("unsafe_archive", f"member {name!r} leaves the package")
    return normal.removeprefix("./")


def unpack(data: bytes, limits: Limits = Limits()) -> dict[str, bytes]:
    """The files of a source package, by their path inside it."""
    if data[:5] == b"%PDF-":
        raise SourceError("no_source", "the submission is a PDF without LaTeX source")
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data, limits.max_total)
    if data[:5] == b"%PDF-":
        raise SourceError("no_source", "the submission is a PDF without LaTeX source")
    if not _is_tar(data):
        if b"\\begin{document}" in data or b"\\documentclass" in data:
            return {"main.tex": data}
        raise SourceError("unknown_format", "neither a tar archive nor a TeX file")
    files: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
            for count, member in enumerate(archive, 1):
                if count > limits.max_members:
                    raise SourceError("too_large", f"more than {limits.max_members} members")
                name = _safe_name(member.name)
                if member.issym() or member.islnk():
                    raise SourceError("unsafe_archive", f"member {member.name!r} is a link")
                if member.isdev() or member.isfifo():
                    raise SourceError("unsafe_archive", f"member {member.name!r} is a device")
                if not member.isfile():
                    continue
                if member.size > limits.max_file:
                    raise SourceError("too_large", f"{member.name} is {member.size:,} bytes")
                total += member.size
                if total > limits.max_total:
                    raise SourceError("too_large", f"more than {limits.max_total:,} bytes")
                handle = archive.extractfile(member)
                if handle is not None:
                    files[name] = handle.read(member.size)
    except tarfile.TarError as exc:
        raise SourceError("corrupt", f"tar: {exc}") from exc
    return files
