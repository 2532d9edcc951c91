"""Which attempts a run still has to make, given what the run store already holds.

An attempt is keyed by task x configuration x try. A task is done for a configuration when its
latest try succeeded. A task whose latest try failed is left alone (its failure is a result)
unless ``retry_failed`` is set and the failure is typed retryable (a timeout, a lost worker, an
API error) and fewer than ``max_tries`` tries exist; then the next try runs. A try that was under
way when a run was killed has no record, so it runs again under the same index: every attempt is
recorded exactly once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from refig.models import Attempt, AttemptStatus, Task


@dataclass(frozen=True)
class Planned:
    """One attempt to run: a task and the index of the try."""

    task: Task
    try_index: int


@dataclass
class Plan:
    """The attempts to run and why the others are skipped."""

    todo: list[Planned] = field(default_factory=list)
    done: int = 0
    failed_final: int = 0
    failed_not_retried: int = 0
    exhausted: int = 0

    @property
    def skipped(self) -> int:
        return self.done + self.failed_final + self.failed_not_retried + self.exhausted


def plan_attempts(
    tasks: Sequence[Task],
    attempts: Iterable[Attempt],
    *,
    retry_failed: bool = False,
    max_tries: int = 3,
    redo: bool = False,
) -> Plan:
    """Plan one configuration's attempts over ``tasks`` (its stored ``attempts`` given);
    ``redo``: a new try of every task, whatever its last try did (after a change to the
    harness's code, which the configuration id cannot see), beyond ``max_tries``."""
    latest: dict[str, Attempt] = {}
    for attempt in attempts:
        seen = latest.get(attempt.task_id)
        if seen is None or attempt.try_index > seen.try_index:
            latest[attempt.task_id] = attempt
    plan = Plan()
    for task in tasks:
        last = latest.get(task.id)
        if last is None:
            plan.todo.append(Planned(task, 0))
        elif redo:
            plan.todo.append(Planned(task, last.try_index + 1))
        elif last.status == AttemptStatus.SUCCEEDED:
            plan.done += 1
        elif last.error is not None and not last.error.retryable:
            plan.failed_final += 1
        elif not retry_failed:
            plan.failed_not_retried += 1
        elif last.try_index + 1 >= max_tries:
            plan.exhausted += 1
        else:
            plan.todo.append(Planned(task, last.try_index + 1))
    return plan
