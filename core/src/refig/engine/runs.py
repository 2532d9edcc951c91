"""What a run store holds as a whole: its task family and the output role its artifacts are
stored under (one suite, so one family, per run)."""

from __future__ import annotations

from refig.engine.plugins import registry
from refig.errors import UsageError
from refig.models import Task
from refig.records import TaskFamilyRecord
from refig.store import RunStore


def primary_role(store: RunStore) -> str:
    """The output role a run's artifacts are stored under: its family's primary deliverable
    (a family not installed is a usage error naming the installed ones)."""
    record = registry().family(run_family(store)).record
    assert isinstance(record, TaskFamilyRecord)
    return record.primary.role


def run_family(store: RunStore) -> str:
    """The task family of a run: its suite's (a run holds one suite), else its tasks' (a run
    stored before suites were)."""
    manifest = store.suite()
    if manifest is not None:
        return manifest.family
    families = {task.family for task in store.iter(Task)}
    if len(families) > 1:
        raise UsageError(f"{store.root} holds tasks of several families: "
                         f"{', '.join(sorted(families))}", path=store.root)
    if not families:
        raise UsageError(f"{store.root} holds no task, so no task family", path=store.root,
                         fix="give the directory of a run made by `refig run`")
    return families.pop()
