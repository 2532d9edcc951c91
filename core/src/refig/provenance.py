"""What made a run's numbers, and the plan it was locked to.

Each stage's **environment** is what its components report (``Renderer``, ``Metric``, ``Judge``
and ``Executor`` each have an ``environment()``: the toolchains, model files and models they
depend on), keyed ``component.key``; refig collects, digests and stores it (the
``environments`` table), once per distinct digest and host. The **lock** (``refig lock``) is
the analysis plan as flat entries (``judge.<label>``, ``metric.<name>``, ``rubric``,
``repeats``, ``stats.<option>``, ``suite``) with the time it was made; evaluation and reports
compare the plan they follow with it and list each :class:`~refig.models.Deviation`.
"""

from __future__ import annotations

import json
import socket
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from refig.errors import UsageError
from refig.models import Deviation, Environment, Task, stable_hash, utcnow
from refig.store import RunStore

if TYPE_CHECKING:
    from refig.plugins import Registry

#: The run's meta key holding the lock.
LOCK_KEY = "lock"


def component_environment(label: str, component: Any) -> dict[str, str]:
    """``component.environment()`` as entries ``label.key`` (the value as a string)."""
    return {f"{label}.{key}": str(value) for key, value in component.environment().items()}


def environment_of(components: Mapping[str, Any]) -> dict[str, str]:
    """The entries each labelled component reports, merged (labels such as
    ``renderer.libreoffice`` or ``metric.image`` keep them apart)."""
    entries: dict[str, str] = {}
    for label, component in components.items():
        entries.update(component_environment(label, component))
    return entries


def digest(entries: Mapping[str, str]) -> str:
    """A stable digest of entries: sha256 of their JSON with sorted keys."""
    return stable_hash(dict(entries))


def environment_digest(components: Mapping[str, Any]) -> str:
    """A stable digest of the environment ``components`` report, by label (``{"renderer.
    libreoffice": renderer}``): equal on two machines exactly when every component reports the
    same entries. A check that is valid per environment (the golden canary) caches by it."""
    return digest(environment_of(components))


def software(registry: Registry) -> dict[str, str]:
    """refig's and every loaded plugin's version, ``plugin.<distribution>``."""
    return {f"plugin.{info.name}": info.version for info in registry.plugins
            if info.status == "active"}


def suite_digest(store: RunStore) -> str:
    """A digest of the run's tasks: each id, family, inputs by content and parameters."""
    tasks = [task.model_dump(mode="json", include={"id", "family", "inputs", "params"})
             for task in store.iter(Task)]
    for task in tasks:
        for asset in task.get("inputs", {}).values():
            asset.pop("path", None)
    return stable_hash(tasks)


def record_environment(store: RunStore, stage: str, entries: Mapping[str, str]) -> bool:
    """Store the stage's environment unless this digest was stored for this host; True when
    it is new (a stage first run here, or run with something else)."""
    return store.put(Environment(stage=stage, digest=digest(entries), host=socket.gethostname(),
                                 entries=dict(entries)))


def environments(store: RunStore) -> list[Environment]:
    """The stored environments, oldest first (none in a run older than them, read-only)."""
    try:
        found = store.query(Environment)
    except sqlite3.OperationalError:  # a read-only open of a store without the table
        return []
    return sorted(found, key=lambda e: (e.created_at, e.stage))


def latest(store: RunStore) -> dict[str, Environment]:
    """The newest environment of each stage."""
    return {env.stage: env for env in environments(store)}


# --- the lock -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lock:
    """A run's locked analysis plan and when it was locked."""

    plan: dict[str, str]
    locked_at: datetime

    @property
    def digest(self) -> str:
        return digest(self.plan)[:12]


def read_lock(store: RunStore) -> Lock | None:
    """The run's lock, or None."""
    raw = store.get_meta(LOCK_KEY)
    if raw is None:
        return None
    found = json.loads(raw)
    return Lock(plan=found["plan"], locked_at=datetime.fromisoformat(found["locked_at"]))


def write_lock(store: RunStore, plan: Mapping[str, str], *, replace: bool = False) -> Lock:
    """Lock the plan; a run locked before is refused unless ``replace``."""
    old = read_lock(store)
    if old is not None and not replace:
        raise UsageError(f"{store.root} was locked at {old.locked_at.isoformat()} "
                         f"(plan {old.digest})",
                         fix="keep that lock, or give --replace to lock the new plan instead")
    lock = Lock(plan=dict(plan), locked_at=utcnow())
    store.set_meta(LOCK_KEY, json.dumps({"plan": lock.plan,
                                         "locked_at": lock.locked_at.isoformat()}))
    return lock


def compare(locked: Mapping[str, str], used: Mapping[str, str], stage: str,
            prefixes: Iterable[str]) -> list[Deviation]:
    """The entries under ``prefixes`` (``judge.``, ``rubric``) that differ between the lock and
    the plan used, or are on one side only."""
    wanted = tuple(prefixes)
    keys = sorted(k for k in {*locked, *used} if k.startswith(wanted))
    return [Deviation(entry=k, locked=locked.get(k), used=used.get(k), stage=stage)
            for k in keys if locked.get(k) != used.get(k)]


def statistics_plan(options: Mapping[str, Any]) -> dict[str, str]:
    """The report's statistics options as plan entries ``stats.<option>`` (JSON values)."""
    return {f"stats.{key}": json.dumps(list(value) if isinstance(value, tuple) else value)
            for key, value in sorted(options.items())}


def plan_deviations(store: RunStore, statistics: Mapping[str, Any]) -> list[Deviation]:
    """Every way the run left its lock: the deviations its evaluations stored, then the
    report's statistics options (``statistics``) that differ from the locked ones; none
    without a lock."""
    lock = read_lock(store)
    if lock is None:
        return []
    try:
        stored = sorted(store.query(Deviation), key=lambda d: (d.created_at, d.entry))
    except sqlite3.OperationalError:  # a read-only open of a store without the table
        stored = []
    return stored + compare(lock.plan, statistics_plan(statistics), "report", ("stats.",))
