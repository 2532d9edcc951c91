"""Registers the {{ cookiecutter.name }} metric."""

from refig.plugin import MetricRecord, hookimpl


def _make(**options):
    from {{ cookiecutter.module }}.plugin import WordCount

    return WordCount(**options)


@hookimpl
def refig_metrics():
    yield MetricRecord(
        name="{{ cookiecutter.name }}",
        description={{ cookiecutter.description | jsonify }},
        factory=_make,
        families={"figure-to-slide"},
    )
