"""Registers the {{ cookiecutter.name }} workflow."""

from refig.plugin import WorkflowRecord, hookimpl


def _make(**options):
    from {{ cookiecutter.module }}.plugin import ChecklistWorkflow

    return ChecklistWorkflow(**options)


@hookimpl
def refig_workflows():
    yield WorkflowRecord(name="{{ cookiecutter.name }}", description={{ cookiecutter.description | jsonify }},
                         factory=_make, families={"figure-to-slide"})
