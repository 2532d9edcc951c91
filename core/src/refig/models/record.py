"""The base of every stored model, the schema version and the hashing and time helpers."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

SCHEMA_VERSION = 2
"""2: tasks hold inputs by role and a family, renders hold pages, inspections a structure
(:mod:`refig.migration` brings version 1 runs and suites forward)."""

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._+-]*$"
SHA256_PATTERN = r"^[0-9a-f]{64}$"


def utcnow() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def stable_hash(value: Any) -> str:
    """sha256 of a JSON-serialisable value with sorted keys: a key that survives restarts."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class Record(BaseModel):
    """Base of every stored model: immutable, and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


R = TypeVar("R", bound=BaseModel)
