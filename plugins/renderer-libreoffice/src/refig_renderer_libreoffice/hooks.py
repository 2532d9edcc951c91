"""Registers the ``libreoffice`` renderer; the converter module is imported only when selected."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from refig.plugin import RendererRecord, hookimpl


def _checks() -> Iterator[Any]:
    from refig_renderer_libreoffice.renderer import machine_checks

    return machine_checks()


def _create(**options: Any) -> Any:
    from refig_renderer_libreoffice.renderer import LibreOfficeRenderer

    return LibreOfficeRenderer(**options)


@hookimpl
def refig_renderers() -> Iterator[RendererRecord]:
    yield RendererRecord(
        name="libreoffice",
        description="LibreOffice headless to PDF, pypdfium2 to PNG; warm batched converters.",
        factory=_create,
        aliases=("soffice",),
        checks=_checks,
    )
