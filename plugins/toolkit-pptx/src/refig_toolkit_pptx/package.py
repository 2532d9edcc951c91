"""Bounded reading of an untrusted .pptx: the zip, its parts, relationships and slide list.

Every limit is checked against the zip's central directory before anything is decompressed, and
parts are then read in chunks with the cap enforced on the bytes actually produced, so a header
that lies about a part's size cannot make a read allocate more than the cap.
"""

from __future__ import annotations

import posixpath
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import NoReturn

from lxml import etree
from refig.plugin import GateReason, RefigError

from refig_toolkit_pptx.limits import DEFAULT_LIMITS, Limits
from refig_toolkit_pptx.xml import XmlError, parse, q

_CHUNK = 1 << 16
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
# PowerPoint and LibreOffice read only stored and deflated parts.
_READABLE_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)

REL_OFFICE_DOCUMENT = "/officeDocument"
REL_SLIDE = "/slide"
REL_SLIDE_LAYOUT = "/slideLayout"
REL_SLIDE_MASTER = "/slideMaster"
REL_THEME = "/theme"
REL_IMAGE = "/image"
REL_NOTES = "/notesSlide"

#: Default slide size (4:3) when ``p:sldSz`` is absent, as PowerPoint assumes.
DEFAULT_SLIDE_SIZE = (9_144_000, 6_858_000)


class PackageError(RefigError):
    """A .pptx that fails the structural gate; ``reason`` is the typed gate reason."""

    def __init__(self, reason: GateReason, detail: str, *, path: Path | str | None = None):
        super().__init__(detail, path=path)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Relationship:
    """One relationship of a part; ``target`` is a resolved part name unless ``external``."""

    id: str
    type: str
    target: str
    external: bool = False

    def is_a(self, suffix: str) -> bool:
        """True when the relationship type ends with ``suffix`` (transitional or strict URI)."""
        return self.type.endswith(suffix)


@dataclass(frozen=True)
class SlideRef:
    """A slide listed in ``p:sldIdLst``, in presentation order."""

    part: str
    rel_id: str
    hidden: bool


def rels_name(part: str) -> str:
    """The relationships part of ``part`` (``ppt/slides/_rels/slide1.xml.rels``)."""
    folder, base = posixpath.split(part)
    return posixpath.join(folder, "_rels", base + ".rels")


def resolve_target(source: str, target: str) -> str:
    """A relationship target relative to its source part, as a zip entry name."""
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/"))
    return posixpath.normpath(posixpath.join(posixpath.dirname(source), target))


class Package:
    """An opened .pptx; use :meth:`open` as a context manager."""

    def __init__(self, path: Path, archive: zipfile.ZipFile, limits: Limits):
        self.path = path
        self.limits = limits
        self._zip = archive
        self._names = {info.filename.lower(): info for info in archive.infolist()}
        self._rels: dict[str, dict[str, Relationship]] = {}
        self._xml: dict[str, etree._Element] = {}
        self._bytes_read = 0
        self._types: tuple[dict[str, str], dict[str, str]] | None = None

    # --- opening --------------------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path | str, limits: Limits = DEFAULT_LIMITS) -> Package:
        """Open and check the zip against ``limits``; raise :class:`PackageError` with a reason."""
        path = Path(path)
        try:
            info = path.stat()
        except FileNotFoundError:
            raise PackageError(GateReason.MISSING, "the file does not exist", path=path) from None
        except OSError as exc:
            raise PackageError(GateReason.MISSING, f"cannot stat: {exc}", path=path) from exc
        if not stat.S_ISREG(info.st_mode):
            raise PackageError(GateReason.NOT_A_ZIP, "not a regular file", path=path)
        if info.st_size > limits.max_file_bytes:
            raise PackageError(
                GateReason.TOO_LARGE,
                f"the file is {info.st_size:,} bytes, over the limit of {limits.max_file_bytes:,}",
                path=path,
            )
        try:
            handle = path.open("rb")
        except OSError as exc:
            raise PackageError(GateReason.MISSING, f"cannot open: {exc}", path=path) from exc
        try:
            magic = handle.read(4)
            handle.seek(0)
            if magic not in _ZIP_MAGIC:
                raise PackageError(
                    GateReason.NOT_A_ZIP, "not a zip archive (no zip signature)", path=path
                )
            try:
                archive = zipfile.ZipFile(handle)
            except (
                zipfile.BadZipFile,
                zipfile.LargeZipFile,
                ValueError,
                OSError,
                NotImplementedError,  # "zip file version 8.8" in a damaged directory
            ) as exc:
                raise PackageError(
                    GateReason.CORRUPT, f"damaged zip archive: {exc}", path=path
                ) from exc
            package = cls(path, archive, limits)
            package._check_directory()
            return package
        except BaseException:
            handle.close()
            raise

    def _check_directory(self) -> None:
        """Apply the entry-count, size and ratio limits to the central directory."""
        infos = self._zip.infolist()
        limits = self.limits
        if len(infos) > limits.max_entries:
            self._fail(
                GateReason.TOO_LARGE,
                f"{len(infos):,} zip entries, over the limit of {limits.max_entries:,}",
            )
        if len(self._names) != len(infos):
            self._fail(GateReason.CORRUPT, "the zip holds two entries with the same name")
        total = 0
        for info in infos:
            total += info.file_size
            ratio = info.file_size / max(info.compress_size, 1)
            if info.file_size > limits.ratio_floor_bytes and ratio > limits.max_ratio:
                self._fail(
                    GateReason.TOO_LARGE,
                    f"part {info.filename} expands {ratio:,.0f} times "
                    f"(limit {limits.max_ratio:,.0f}): a zip bomb",
                )
            if info.file_size > limits.max_part_bytes:
                self._fail(
                    GateReason.TOO_LARGE,
                    f"part {info.filename} is {info.file_size:,} bytes uncompressed, "
                    f"over the limit of {limits.max_part_bytes:,}",
                )
            if info.flag_bits & 0x1:
                self._fail(GateReason.CORRUPT, f"part {info.filename} is encrypted")
            if info.compress_type not in _READABLE_METHODS:
                self._fail(
                    GateReason.CORRUPT,
                    f"part {info.filename} uses zip compression method {info.compress_type}, "
                    "which PowerPoint and LibreOffice cannot read",
                )
        if total > limits.max_total_bytes:
            self._fail(
                GateReason.TOO_LARGE,
                f"the parts add up to {total:,} bytes uncompressed, "
                f"over the limit of {limits.max_total_bytes:,}",
            )

    def close(self) -> None:
        """Close the archive and the file under it."""
        fp = self._zip.fp
        self._zip.close()
        if fp is not None:
            fp.close()

    def __enter__(self) -> Package:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _fail(self, reason: GateReason, detail: str) -> NoReturn:
        raise PackageError(reason, detail, path=self.path)

    # --- parts ----------------------------------------------------------------------------------

    def part_names(self) -> list[str]:
        """Every member of the zip, as stored."""
        return [info.filename for info in self._zip.infolist()]

    def check_xml(self, part: str) -> None:
        """Parse one XML part with the hardened parser, without keeping it (``corrupt``)."""
        try:
            parse(self.read(part, max_bytes=self.limits.max_xml_bytes))
        except XmlError as exc:
            self._fail(GateReason.CORRUPT, f"part {part}: {exc}")

    def has(self, part: str) -> bool:
        """True when the package holds ``part`` (part names are case-insensitive)."""
        return part.lower() in self._names

    def read(self, part: str, *, max_bytes: int | None = None) -> bytes:
        """A part's bytes, read in chunks and cut off at the cap (``too_large``)."""
        info = self._names.get(part.lower())
        if info is None:
            self._fail(GateReason.CORRUPT, f"part {part} is referenced but missing")
        cap = min(self.limits.max_part_bytes, max_bytes or self.limits.max_part_bytes)
        chunks: list[bytes] = []
        size = 0
        try:
            with self._zip.open(info) as stream:
                while chunk := stream.read(_CHUNK):
                    size += len(chunk)
                    if size > cap:
                        self._fail(
                            GateReason.TOO_LARGE,
                            f"part {part} is over the limit of {cap:,} bytes",
                        )
                    self._bytes_read += len(chunk)
                    if self._bytes_read > self.limits.max_total_bytes:
                        self._fail(
                            GateReason.TOO_LARGE,
                            f"reading the parts passed the total limit of "
                            f"{self.limits.max_total_bytes:,} bytes",
                        )
                    chunks.append(chunk)
        except (
            zipfile.BadZipFile,
            zlib.error,
            EOFError,
            OSError,
            ValueError,
            NotImplementedError,  # "zip file version 18.6" in a damaged header
            RuntimeError,  # encryption flags in a damaged header
        ) as exc:
            self._fail(GateReason.CORRUPT, f"part {part} cannot be decompressed: {exc}")
        return b"".join(chunks)

    def xml(self, part: str) -> etree._Element:
        """A part parsed with the hardened parser (cached); malformed XML is ``corrupt``."""
        key = part.lower()
        if key not in self._xml:
            data = self.read(part, max_bytes=self.limits.max_xml_bytes)
            try:
                self._xml[key] = parse(data)
            except XmlError as exc:
                self._fail(GateReason.CORRUPT, f"part {part}: {exc}")
        return self._xml[key]

    def rels(self, part: str) -> dict[str, Relationship]:
        """The relationships of ``part`` by id; a part without a ``.rels`` has none."""
        key = part.lower()
        if key not in self._rels:
            name = rels_name(part)
            found: dict[str, Relationship] = {}
            if self.has(name):
                for element in self.xml(name).iter(q("pr:Relationship")):
                    rid, kind = element.get("Id"), element.get("Type", "")
                    target = element.get("Target", "")
                    if not rid:
                        continue
                    external = element.get("TargetMode", "") == "External"
                    resolved = target if external else resolve_target(part, target)
                    found[rid] = Relationship(rid, kind, resolved, external)
            self._rels[key] = found
        return self._rels[key]

    def related(self, part: str, suffix: str) -> str | None:
        """The first internal part related to ``part`` by a relationship type ending ``suffix``."""
        for rel in self.rels(part).values():
            if rel.is_a(suffix) and not rel.external:
                return rel.target
        return None

    def content_type(self, part: str) -> str:
        """The part's content type from ``[Content_Types].xml`` (override, else by extension)."""
        if self._types is None:
            overrides: dict[str, str] = {}
            defaults: dict[str, str] = {}
            if self.has("[Content_Types].xml"):
                root = self.xml("[Content_Types].xml")
                for node in root.iter(q("ct:Override")):
                    name = node.get("PartName", "").lstrip("/").lower()
                    overrides[name] = node.get("ContentType", "")
                for node in root.iter(q("ct:Default")):
                    defaults[node.get("Extension", "").lower()] = node.get("ContentType", "")
            self._types = (overrides, defaults)
        overrides, defaults = self._types
        found = overrides.get(part.lower())
        if found is None:
            found = defaults.get(posixpath.splitext(part)[1].lstrip(".").lower(), "")
        return found

    # --- the presentation -----------------------------------------------------------------------

    @property
    def presentation_part(self) -> str:
        """The main presentation part named by the package relationships."""
        if not self.has("[Content_Types].xml"):
            self._fail(GateReason.CORRUPT, "no [Content_Types].xml: not an OOXML package")
        part = self.related("", REL_OFFICE_DOCUMENT)
        if part is None or not self.has(part):
            self._fail(GateReason.CORRUPT, "no presentation part: not a PowerPoint file")
        root = self.xml(part)
        if root.tag != q("p:presentation"):
            self._fail(GateReason.CORRUPT, f"{part} is not a presentation (root {root.tag})")
        return part

    def slide_size(self) -> tuple[int, int]:
        """``(cx, cy)`` of ``p:sldSz`` in EMU."""
        size = self.xml(self.presentation_part).find(q("p:sldSz"))
        if size is None:
            return DEFAULT_SLIDE_SIZE
        try:
            cx, cy = int(size.get("cx", "")), int(size.get("cy", ""))
        except ValueError:
            self._fail(GateReason.CORRUPT, "p:sldSz has no valid size")
        if cx <= 0 or cy <= 0:
            self._fail(GateReason.CORRUPT, f"slide size {cx}x{cy} is not positive")
        return cx, cy

    def slides(self) -> list[SlideRef]:
        """Every slide in presentation order, hidden ones (``show="0"``) included."""
        part = self.presentation_part
        rels = self.rels(part)
        listing = self.xml(part).find(q("p:sldIdLst"))
        refs: list[SlideRef] = []
        for entry in () if listing is None else listing.iter(q("p:sldId")):
            rid = entry.get(q("r:id"), "")
            rel = rels.get(rid)
            if rel is None or rel.external or not rel.is_a(REL_SLIDE):
                self._fail(GateReason.CORRUPT, f"slide id {rid!r} points to no slide part")
            if not self.has(rel.target):
                self._fail(GateReason.CORRUPT, f"slide part {rel.target} is missing")
            root = self.xml(rel.target)
            if root.tag != q("p:sld"):
                self._fail(GateReason.CORRUPT, f"{rel.target} is not a slide (root {root.tag})")
            hidden = root.get("show", "1") in {"0", "false"}
            refs.append(SlideRef(rel.target, rid, hidden))
        return refs
