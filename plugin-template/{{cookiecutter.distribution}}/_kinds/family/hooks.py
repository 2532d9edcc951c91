"""Registers the {{ cookiecutter.name }} task family (light: the family loads on selection)."""

from refig.plugin import Deliverable, InputSpec, TaskFamilyRecord, hookimpl


def _make(**options):
    from {{ cookiecutter.module }}.plugin import CaptionFamily

    return CaptionFamily(**options)


@hookimpl
def refig_task_families():
    yield TaskFamilyRecord(
        name="{{ cookiecutter.name }}",
        description={{ cookiecutter.description | jsonify }},
        factory=_make,
        inputs=(InputSpec("figure", visible=True, description="the figure to caption"),
                InputSpec("caption", visible=False, required=False,
                          description="the reference caption")),
        deliverables=(Deliverable("caption", "caption.txt", primary=True),),
        renderer="none",  # a caption has no pages: judges read its text
        metrics=(),
        judges=(),
    )
