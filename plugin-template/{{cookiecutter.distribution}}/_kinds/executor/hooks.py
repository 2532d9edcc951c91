"""Registers the {{ cookiecutter.name }} executor."""

from refig.plugin import ExecutorRecord, hookimpl


def _make(**options):
    from {{ cookiecutter.module }}.plugin import SerialExecutor

    return SerialExecutor(**options)


@hookimpl
def refig_executors():
    yield ExecutorRecord(name="{{ cookiecutter.name }}", description={{ cookiecutter.description | jsonify }},
                         factory=_make)
