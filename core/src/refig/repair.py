"""``refig repair RUN``: check every object a run refers to, re-make what can be re-made.

Renderings are re-made by rendering the slide again (LibreOffice's output is deterministic here:
the same slide gives the same PNG bytes, so judgments stored against it stay valid). A task's
source figure or annotation is restored from the suite folder when one is given and holds the
same bytes. An agent's outputs (slide, program, transcript, calls, log) cannot be re-made: they
are listed in the run's ``damaged_objects`` entry and the command exits 1 until they are put
back, or until ``--forget-lost`` removes the attempts that made them, so the next ``refig run``
with the same options makes those attempts again. Once an object is whole, the next
``refig evaluate`` does the work that was left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from refig.integrity import Damage, DamagedObject
from refig.models import Attempt, Render, Task
from refig.plugins import Registry
from refig.records import PluginKind
from refig.store import RunStore, sha256_file
from refig.suite import Suite, inside

#: The run-store meta entry listing objects that could not be re-made.
DAMAGED_META = "damaged_objects"
_META_RENDERER = "evaluation.renderer"


@dataclass
class RepairReport:
    """What one repair found and did."""

    checked: int = 0
    restored: list[str] = field(default_factory=list)
    renders_remade: int = 0
    lost: list[DamagedObject] = field(default_factory=list)
    #: Attempts removed because an output of theirs was lost (``forget_lost``).
    forgotten: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"checked": self.checked, "restored": self.restored,
                "renders_remade": self.renders_remade, "forgotten": self.forgotten,
                "lost": [{"sha256": d.sha256, "what": d.what, "missing": d.missing}
                         for d in self.lost]}


def _references(store: RunStore) -> Iterator[tuple[str, str, str]]:
    """Every object the run refers to: (sha256, what it is, its kind)."""
    for task in store.iter(Task):
        for role, asset in task.inputs.items():
            yield asset.sha256, f"{role} of task {task.id}", "input"
    for attempt in store.iter(Attempt):
        for role, sha in attempt.outputs.items():
            yield sha, (f"{role} of attempt {attempt.task_id} / {attempt.config_id} / "
                        f"{attempt.try_index}"), "output"
    for render in store.iter(Render):
        for page in render.pages:
            yield page.png_sha256, f"rendering of {render.artifact_sha256[:12]}", "render"


def _restore(store: RunStore, suite: Suite, tasks: dict[str, Task], sha: str) -> bool:
    """Copy a task's input back from the suite folder when its bytes match."""
    for task in tasks.values():
        for asset in task.inputs.values():
            path = inside(suite.root, asset.path)
            if asset.sha256 == sha and path.is_file() and sha256_file(path) == sha:
                store.objects.put_file(path)
                return True
    return False


def _forget(store: RunStore, damage: Damage) -> list[str]:
    """Remove each attempt with a lost output (a re-run makes it again); return which."""
    forgotten = []
    for attempt in store.query(Attempt):
        lost = [sha for sha in attempt.outputs.values() if sha in damage.found]
        if lost:
            store.delete(Attempt, task_id=attempt.task_id, config_id=attempt.config_id,
                         try_index=attempt.try_index)
            forgotten.append(f"attempt {attempt.task_id} / {attempt.config_id} / "
                             f"{attempt.try_index}")
            for sha in lost:
                damage.found.pop(sha, None)
    return forgotten


def repair(registry: Registry, run: Path, *, suite: Path | None = None, jobs: int = 2,
           quiet: bool = False, forget_lost: bool = False) -> RepairReport:
    """Check, restore and re-make; with ``forget_lost`` remove the attempts whose outputs are
    lost; record what stays lost in the run."""
    from refig.context import RunContext
    from refig.engine.plugins import close_plugins, use_registry
    from refig.evaluation import Evaluation

    store = RunStore.open(run)
    source = Suite.load(suite) if suite is not None else None
    tasks = {task.id: task for task in store.iter(Task)}
    damage = Damage(store)
    report = RepairReport()
    broken_renders = 0
    for sha, what, kind in _references(store):
        report.checked += 1
        if damage.check(sha, what):
            continue
        if kind == "input" and source is not None and _restore(store, source, tasks, sha):
            report.restored.append(what)
            damage.found.pop(sha, None)
        elif kind == "render":
            broken_renders += 1
            damage.found.pop(sha, None)  # re-made below
    chosen = json.loads(store.get_meta(_META_RENDERER) or "{}")
    if broken_renders and chosen.get("name"):
        use_registry(registry)
        pool = registry.resolve(PluginKind.EXECUTOR, "local").create()
        try:
            summary = Evaluation(context=RunContext.of(registry, store),
                                 renderer=registry.resolve(PluginKind.RENDERER, chosen["name"]),
                                 metrics=[], executor=pool, jobs=jobs, quiet=quiet).run()
        finally:
            close_plugins()
            pool.close()
        report.renders_remade = summary.rendered
    for render in store.iter(Render):
        for page in render.pages:
            damage.check(page.png_sha256, f"rendering of {render.artifact_sha256[:12]}")
    if forget_lost:
        report.forgotten = _forget(store, damage)
    report.lost = sorted(damage.found.values(), key=lambda d: d.what)
    store.set_meta(DAMAGED_META, json.dumps(report.as_json()["lost"]))
    return report
