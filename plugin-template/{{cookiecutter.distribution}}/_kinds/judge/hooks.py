"""Registers the {{ cookiecutter.name }} judge."""

from refig.plugin import JudgeRecord, hookimpl


def _make(argument=None, **options):
    from {{ cookiecutter.module }}.plugin import NativeShareJudge

    return NativeShareJudge(**options)


@hookimpl
def refig_judges():
    yield JudgeRecord(name="{{ cookiecutter.name }}", description={{ cookiecutter.description | jsonify }},
                      factory=_make, families={"figure-to-slide"})
