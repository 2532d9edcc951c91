"""Keeping API keys out of everything an attempt writes.

Secrets are the values of environment variables whose names look like credentials
(``ANTHROPIC_API_KEY``, ``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``...). They are never put in an
attempt's environment by refig, and every file refig stores or leaves behind passes through a
:class:`Redactor`, which replaces each value with ``[REDACTED:NAME]``, inside zip members too
(a .pptx is a zip whose XML parts are usually compressed).
"""

from __future__ import annotations

import builtins
import io
import os
import re
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

SECRET_NAME = re.compile(
    r"(API_?KEY|ACCESS_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_?KEY|AUTH)", re.I
)
#: Shorter values are not treated as secrets: redacting "1" or "true" would mangle every file.
MIN_SECRET_LENGTH = 8
#: Zip members above this size (uncompressed) are not rewritten; refig never stores such parts.
_MAX_MEMBER_BYTES = 256 << 20
#: Files up to this size are redacted in memory (zips included); larger ones are streamed.
_WHOLE_FILE_BYTES = 64 << 20
_CHUNK = 1 << 20


def option_secrets(options: Mapping[str, str], prefix: str) -> dict[str, str]:
    """The credential-like values among ``KEY=VALUE`` options (``--judge-opt api_key=...``),
    named ``prefix`` plus the key."""
    return {
        f"{prefix}{key}": value
        for key, value in options.items()
        if SECRET_NAME.search(key) and len(value) >= MIN_SECRET_LENGTH
    }


def find_secrets(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The credential-like variables of ``environ`` (default: this process), name to value."""
    env = os.environ if environ is None else environ
    return {
        name: value
        for name, value in env.items()
        if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_LENGTH
    }


class Redactor:
    """Replaces known secret values in bytes, files and directory trees."""

    def __init__(self, secrets: Mapping[str, str]):
        pairs = {value.encode(): f"[REDACTED:{name}]".encode() for name, value in secrets.items()}
        # Longest first, so a secret that contains another is replaced whole.
        self._pairs = sorted(pairs.items(), key=lambda kv: -len(kv[0]))
        self._masks = dict(self._pairs)
        self._pattern = re.compile(b"|".join(re.escape(secret) for secret in self._masks))

    def found(self, data: bytes) -> bool:
        """True when ``data`` holds a secret verbatim."""
        return any(secret in data for secret, _ in self._pairs)

    def text(self, data: bytes) -> bytes:
        """``data`` with every secret replaced (no zip handling)."""
        for secret, mask in self._pairs:
            data = data.replace(secret, mask)
        return data

    def bytes(self, data: bytes) -> bytes:
        """``data`` with every secret replaced, looking inside zip archives as well."""
        if not self._pairs:
            return data
        if data[:4] == b"PK\x03\x04":
            rewritten = self._zip(data)
            if rewritten is not None:
                return rewritten
        return self.text(data)

    # builtins.bytes: inside the class, ``bytes`` names the method above.
    def _zip(self, data: builtins.bytes) -> builtins.bytes | None:
        """Rewrite the members that hold a secret; None when ``data`` is not a readable zip."""
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                infos = archive.infolist()
                if sum(i.file_size for i in infos) > _MAX_MEMBER_BYTES:
                    return None
                members = [(info, archive.read(info)) for info in infos]
        except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError):
            return None
        if not any(self.found(payload) for _, payload in members) and not self.found(data):
            return data
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for info, payload in members:
                archive.writestr(info, self.text(payload), compress_type=info.compress_type)
        # A secret in a member's name or the archive comment: mask the raw bytes as a last resort.
        return self.text(buffer.getvalue())

    def record(self, record: M) -> M:
        """A copy of a pydantic record with every secret masked in each of its strings (a
        judgment's error message, rationales, answers)."""
        if not self._pairs:
            return record
        dumped = record.model_dump()
        cleaned = self._strings(dumped)
        return record if cleaned == dumped else type(record).model_validate(cleaned)

    def _strings(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value.encode()).decode() if self.found(value.encode()) else value
        if isinstance(value, dict):
            return {key: self._strings(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self._strings(item) for item in value)
        return value

    def file(self, path: Path) -> bool:
        """Redact one file in place; return True when it changed. Memory stays bounded."""
        if not self._pairs or not path.is_file() or path.is_symlink():
            return False
        if path.stat().st_size > _WHOLE_FILE_BYTES:
            return self._stream(path)
        data = path.read_bytes()
        cleaned = self.bytes(data)
        if cleaned == data:
            return False
        path.write_bytes(cleaned)
        return True

    def _stream(self, path: Path) -> bool:
        """Redact a large file chunk by chunk, catching secrets that straddle two chunks."""
        keep = max(len(secret) for secret, _ in self._pairs) - 1
        changed = False
        staged = path.with_name(f".{path.name}.redacting")
        with path.open("rb") as source, staged.open("wb") as target:
            carry = b""
            while chunk := source.read(_CHUNK):
                data = carry + chunk
                # a match starting before ``cut`` lies wholly inside ``data``; later ones may not
                cut, position = len(data) - keep, 0
                for match in self._pattern.finditer(data):
                    if match.start() >= cut:
                        break
                    target.write(data[position:match.start()] + self._masks[match.group()])
                    position, changed = match.end(), True
                if position < cut:
                    target.write(data[position:cut])
                carry = data[max(position, cut):]
            cleaned = self.text(carry)
            changed |= cleaned != carry
            target.write(cleaned)
        if changed:
            staged.replace(path)
        else:
            staged.unlink()
        return changed

    def tree(self, root: Path) -> int:
        """Redact every regular file under ``root``; return how many changed."""
        if not self._pairs:
            return 0
        return sum(self.file(path) for path in root.rglob("*") if path.is_file())
