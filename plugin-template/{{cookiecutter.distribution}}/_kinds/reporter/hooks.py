"""Registers the {{ cookiecutter.name }} reporter."""

from refig.plugin import ReporterRecord, hookimpl


def _make(**options):
    from {{ cookiecutter.module }}.plugin import CsvLeaderboard

    return CsvLeaderboard(**options)


@hookimpl
def refig_reporters():
    yield ReporterRecord(name="{{ cookiecutter.name }}", description={{ cookiecutter.description | jsonify }},
                         factory=_make)
