"""Content-addressed objects: files named by the sha256 of their bytes, written atomically."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

_CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    """Stream a file through sha256."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


class ObjectStore:
    """Files addressed by the sha256 of their bytes, under ``objects/ab/<sha>``."""

    def __init__(self, root: Path):
        self.root = root

    def path(self, sha256: str) -> Path:
        """Where the object with this hash lives (it may not exist)."""
        return self.root / sha256[:2] / sha256

    def exists(self, sha256: str) -> bool:
        return self.path(sha256).is_file()

    def _whole(self, sha256: str) -> bool:
        """The object is there with the right bytes (a damaged one is written again)."""
        try:
            return sha256_file(self.path(sha256)) == sha256
        except OSError:
            return False

    def put_bytes(self, data: bytes) -> str:
        """Store bytes; return their hash. Storing the same bytes twice writes once."""
        sha = hashlib.sha256(data).hexdigest()
        if not self._whole(sha):
            self._commit(sha, lambda handle: handle.write(data))
        return sha

    def put_file(self, source: Path) -> str:
        """Copy a file in; return its hash."""
        sha = sha256_file(source)
        if not self._whole(sha):
            with source.open("rb") as src:
                self._commit(sha, lambda handle: shutil.copyfileobj(src, handle, _CHUNK))
        return sha

    def read_bytes(self, sha256: str) -> bytes:
        return self.path(sha256).read_bytes()

    def _commit(self, sha: str, write: Any) -> None:
        target = self.path(sha)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as handle:
                write(handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
