"""The run's stored files as the pages hand them out: only objects the run refers to, addressed
by a well-formed sha256 (never a path), and re-hashed before they are served, so neither a crafted
id nor a damaged file leaves the run directory or passes for another."""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path

from refig.plugin import RefigError
from refig_toolkit_analysis import ObjectStore

SHA256 = re.compile(r"^[0-9a-f]{64}$")
_CHUNK = 1 << 20

#: File name endings of downloads by output role (a program's by the task's language).
EXTENSIONS = {"slide": ".pptx", "deck": ".pptx", "target": ".pptx", "transcript": ".jsonl",
              "calls": ".jsonl", "log": ".log", "render-log": ".log", "page": ".png",
              "figure": ".png", "annotation": ".json", "reference_code": ".txt"}
PROGRAM_EXTENSIONS = {"python": ".py", "r": ".R", "matlab": ".m", "octave": ".m",
                      "latex": ".tex"}
MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
         (b"GIF8", "image/gif"), (b"PK\x03\x04", "application/zip"),
         (b"%PDF", "application/pdf"))


class ObjectError(RefigError):
    """An object the run does not refer to, or whose bytes no longer match their hash."""


def content_type(head: bytes) -> str:
    """The media type of an object, from its first bytes (never from agent-chosen names)."""
    for magic, kind in MAGIC:
        if head.startswith(magic):
            return kind
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"


class VerifiedObjects:
    """Read access to the objects of one snapshot of a run."""

    def __init__(self, store: ObjectStore, known: dict[str, str]):
        self.store = store
        self.known = known
        self._verified: set[str] = set()
        self._lock = threading.Lock()

    def path(self, sha256: str) -> Path:
        """The object's file, after checking the id, the run's reference and the bytes' hash."""
        if not SHA256.match(sha256) or sha256 not in self.known:
            raise ObjectError(f"object {sha256[:70]!r} is not part of this run")
        path = self.store.path(sha256)
        with self._lock:
            if sha256 in self._verified:
                return path
        if not path.is_file():
            raise ObjectError(f"object {sha256} is missing from the run's objects/",
                              path=path, fix="the run directory is incomplete")
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(_CHUNK), b""):
                digest.update(chunk)
        if digest.hexdigest() != sha256:
            raise ObjectError(f"object {sha256} does not match its hash (damaged)", path=path,
                              fix="restore the run directory from a copy")
        with self._lock:
            self._verified.add(sha256)
        return path

    def get(self, sha256: str | None) -> Path | None:
        """The verified file, or None when there is none."""
        if not sha256:
            return None
        try:
            return self.path(sha256)
        except ObjectError:
            return None

    def is_picture(self, sha256: str | None) -> bool:
        """True when the object is an image a browser shows (by its first bytes)."""
        path = self.get(sha256)
        if path is None:
            return False
        with path.open("rb") as handle:
            return content_type(handle.read(16)).startswith("image/")

    def read_text(self, sha256: str | None, limit: int = 1 << 20) -> str | None:
        """At most ``limit`` bytes of an object as text (invalid UTF-8 replaced), or None."""
        path = self.get(sha256)
        if path is None:
            return None
        with path.open("rb") as handle:
            return handle.read(limit).decode("utf-8", errors="replace")

    def read_bytes(self, sha256: str | None, limit: int) -> bytes | None:
        path = self.get(sha256)
        if path is None:
            return None
        with path.open("rb") as handle:
            return handle.read(limit + 1)


def download_name(role: str, stem: str, language: str | None = None) -> str:
    """The file name a download is saved under: the sample it belongs to, then its role."""
    if role == "program":
        ext = PROGRAM_EXTENSIONS.get((language or "python").lower(), ".txt")
    else:
        ext = EXTENSIONS.get(role, "")
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._")[:80] or "file"
    return f"{safe}.{role}{ext}" if role not in ("slide", "program") else f"{safe}{ext}"
