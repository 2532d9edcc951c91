"""Registers the {{ cookiecutter.name }} renderer."""

from refig import hookimpl
from refig.records import RendererRecord


def _make(**options):
    from {{ cookiecutter.module }}.plugin import ThumbnailRenderer

    return ThumbnailRenderer(**options)


@hookimpl
def refig_renderers():
    yield RendererRecord(name="{{ cookiecutter.name }}", description="{{ cookiecutter.description }}",
                         factory=_make)
