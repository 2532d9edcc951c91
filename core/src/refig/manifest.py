"""One evaluation's manifest: what each stage runs with, the plan it follows, and that plan
checked against the run's lock (:mod:`refig.provenance` stores and compares them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from refig.errors import RefigError
from refig.models import Deviation
from refig.plugins import Selection
from refig.provenance import (
    compare,
    component_environment,
    environment_of,
    read_lock,
    record_environment,
    software,
    suite_digest,
)
from refig.records import PluginKind

if TYPE_CHECKING:
    from refig.context import RunContext
    from refig.engine.engine import Summary
    from refig.judging import JudgingSummary, SelectedJudge
    from refig.rubric import Rubric

#: A judge's environment entries that belong to the analysis plan (its prices do not).
JUDGE_PLAN_KEYS = ("model", "prompt_sha256")


class PlanDeviationError(RefigError):
    """``--strict``: the evaluation would leave the run's locked plan (exit 1)."""


@dataclass
class Manifest:
    """Each stage's environment entries, the plan entries and the plan's sections covered."""

    stages: dict[str, dict[str, str]] = field(default_factory=dict)
    plan: dict[str, str] = field(default_factory=dict)
    sections: tuple[str, ...] = ()


def evaluation_plan(context: RunContext, metrics: Sequence[Selection],
                    judges: Sequence[SelectedJudge], rubric: Rubric | None,
                    repeats: int) -> Manifest:
    """The manifest of an evaluation but its renderer's (:func:`rendered_with`): builds the
    metrics in this process (as its stages do, so call it where their options are given) and
    asks each, and each judge, what it depends on."""
    from refig.engine.plugins import plugin

    measured = {m.record.name: plugin(PluginKind.METRIC, m.record.name) for m in metrics}
    suite = suite_digest(context.store)
    found = Manifest(
        stages={"software": software(context.registry), "suite": {"suite": suite},
                "measure": environment_of({f"metric.{n}": m for n, m in measured.items()})},
        plan={"suite": suite, **{f"metric.{n}": m.version for n, m in measured.items()}},
        sections=("suite", "metric."))
    if rubric is not None and judges:
        judged = environment_of({f"judge.{j.label}": j.judge for j in judges})
        found.stages["judge"] = {**judged, "rubric.sha256": rubric.sha256}
        found.plan.update({f"judge.{j.label}": j.key for j in judges})
        found.plan.update({k: v for k, v in judged.items() if k.endswith(JUDGE_PLAN_KEYS)})
        found.plan.update({"rubric": rubric.sha256, "repeats": str(repeats)})
        found.sections += ("judge.", "rubric", "repeats")
    return found


def rendered_with(manifest: Manifest, renderer: Selection) -> None:
    """Add the renderer's environment once it has rendered: it is built only where rendering
    is left to do (a run judged on a machine without the renderer needs none)."""
    from refig.engine.plugins import plugin

    made = plugin(PluginKind.RENDERER, renderer.record.name)
    manifest.stages["render"] = component_environment(f"renderer.{renderer.record.name}", made)


def follow_lock(context: RunContext, manifest: Manifest, *, strict: bool) -> list[Deviation]:
    """How the evaluation leaves the run's lock (none without one); under ``strict`` any
    deviation is refused before work (:class:`PlanDeviationError`, exit 1)."""
    lock = read_lock(context.store)
    if lock is None:
        return []
    found = compare(lock.plan, manifest.plan, "evaluate", manifest.sections)
    if found and strict:
        raise PlanDeviationError(
            f"this evaluation leaves the plan locked at {lock.locked_at.isoformat()}: "
            + "; ".join(describe(d) for d in found), path=context.store.root,
            fix="evaluate as locked, or leave out --strict to evaluate and record the "
            "deviations (the report lists them first)")
    return found


def describe(deviation: Deviation) -> str:
    """``rubric: locked 1a2b…, used 3c4d…``."""
    return (f"{deviation.entry}: locked {deviation.locked or '(absent)'}, "
            f"used {deviation.used or '(absent)'}")


def record(context: RunContext, manifest: Manifest, deviations: Sequence[Deviation],
           summary: Summary, judging: JudgingSummary | None) -> None:
    """Store the environment of each stage that did work, and the deviations it made."""
    judged = sum(ledger.judged for ledger in judging.ledgers) if judging is not None else 0
    worked = {"render": summary.rendered, "measure": summary.metric_values, "judge": judged}
    if not any(worked.values()):
        return
    for stage, entries in manifest.stages.items():
        if worked.get(stage, 1):  # software and suite with any stage
            record_environment(context.store, stage, entries)
    context.store.put_many(deviations)
