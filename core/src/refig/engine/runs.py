"""What a run store holds as a whole: its task family and the output role its artifacts are
stored under (one suite, so one family, per run)."""

from __future__ import annotations

from refig.engine.plugins import registry
from refig.errors import UsageError
from refig.models import Output, Task
from refig.records import FIGURE_TO_SLIDE, TaskFamilyRecord
from refig.store import RunStore


def primary_role(store: RunStore) -> str:
    """The output role a run's artifacts are stored under: its family's primary deliverable
    (``slide`` for figure-to-slide, and when the family is not installed)."""
    family = run_family(store)
    try:
        record = registry().family(family).record
    except UsageError:
        return Output.SLIDE.value
    return record.primary.role if isinstance(record, TaskFamilyRecord) else Output.SLIDE.value


def run_family(store: RunStore) -> str:
    """The task family of a run: its suite's (a run holds one suite)."""
    manifest = store.suite()
    if manifest is not None:
        return manifest.family
    families = {task.family for task in store.iter(Task)}
    if len(families) > 1:
        raise UsageError(f"{store.root} holds tasks of several families: "
                         f"{', '.join(sorted(families))}", path=store.root)
    return families.pop() if families else FIGURE_TO_SLIDE
