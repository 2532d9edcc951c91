"""The run a command works on, worked out once at the command's boundary and handed down.

``refig evaluate`` and ``refig report`` open a :class:`RunContext` before any work and pass it
to every stage (the engine's source, the reading of artifacts for the judges, the reporters'
checks), so no stage reads the run's family from the store again.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from refig.engine.runs import run_family
from refig.models import Task
from refig.plugins import Registry
from refig.records import TaskFamilyRecord
from refig.store import RunStore


@dataclass(frozen=True)
class RunContext:
    """A run store, the registry its plugins come from, and the run's task family."""

    registry: Registry
    store: RunStore
    #: The run's task family: its suite's (one suite, so one family, per run); "" for a run
    #: that holds no task yet, when the command accepts one (``allow_empty``).
    family: str

    @classmethod
    def open(cls, registry: Registry, run: Path | str, *, allow_empty: bool = False
             ) -> RunContext:
        """The context of the run directory ``run`` (a missing or unreadable run exits 1)."""
        return cls.of(registry, RunStore.open(run), allow_empty=allow_empty)

    @classmethod
    def of(cls, registry: Registry, store: RunStore, *, allow_empty: bool = False
           ) -> RunContext:
        """The context of an open run store; a run without a task is a usage error unless
        ``allow_empty`` (``refig report`` says there is nothing yet)."""
        if allow_empty and store.suite() is None and next(store.iter(Task), None) is None:
            return cls(registry, store, "")
        return cls(registry, store, run_family(store))

    @cached_property
    def record(self) -> TaskFamilyRecord:
        """The family's record (exit 2, naming the installed families, when none provides it);
        only the stages that need the family installed ask for it."""
        record = self.registry.family(self.family).record
        assert isinstance(record, TaskFamilyRecord)
        return record

    @property
    def role(self) -> str:
        """The output role the run's artifacts are stored under: the primary deliverable's."""
        return self.record.primary.role
