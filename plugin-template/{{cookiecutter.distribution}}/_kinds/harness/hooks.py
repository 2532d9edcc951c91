"""Registers the {{ cookiecutter.name }} harness."""

from refig.plugin import HarnessRecord, hookimpl


def _make(**options):
    from {{ cookiecutter.module }}.plugin import TitleHarness

    return TitleHarness(**options)


@hookimpl
def refig_harnesses():
    yield HarnessRecord(name="{{ cookiecutter.name }}", description={{ cookiecutter.description | jsonify }},
                        factory=_make, needs_model=False, families={"figure-to-slide"})
