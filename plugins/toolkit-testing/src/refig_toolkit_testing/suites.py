"""Small suites on disk, written through the suite writer as a builder would."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

from PIL import Image
from refig.suite import SuiteWriter


def png(width: int, height: int, color: str = "#336699") -> bytes:
    """A plain PNG of one colour."""
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, format="PNG")
    return buffer.getvalue()


def tiny_suite(directory: Path) -> Path:
    """A figure-to-slide suite ``tiny`` of three figures (300, 200 and 400 px wide, 100 high) in
    two fields, one with an annotation, written to ``directory`` with a fixed creation time."""
    writer = SuiteWriter(directory, name="tiny", family="figure-to-slide", builder="test",
                         created_at=datetime(2020, 1, 1, tzinfo=UTC))
    writer.add("a", "a.png", png(300, 100), annotation={"nodes": []}, meta={"field": "cs.CV"})
    writer.add("b", "b.png", png(200, 100), meta={"field": "cs.CL"})
    writer.add("c", "c.png", png(400, 100), meta={"field": "cs.CV"})
    writer.finish()
    return directory
