"""Registers the {{ cookiecutter.name }} renderer."""

from refig.plugin import RendererRecord, hookimpl


def _make(**options):
    from {{ cookiecutter.module }}.plugin import ThumbnailRenderer

    return ThumbnailRenderer(**options)


@hookimpl
def refig_renderers():
    yield RendererRecord(name="{{ cookiecutter.name }}", description={{ cookiecutter.description | jsonify }},
                         factory=_make)
