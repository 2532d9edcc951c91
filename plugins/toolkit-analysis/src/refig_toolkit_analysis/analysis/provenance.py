"""The report's provenance sections: every deviation from the run's locked plan (the first
section), and the environment each stage ran in (``refig.provenance``)."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from refig.pipeline import CANARY_KEY
from refig.provenance import environments, latest, plan_deviations, read_lock

from refig_toolkit_analysis.analysis.context import Context, Options
from refig_toolkit_analysis.analysis.tables import Cell, Column, Table

#: The ``Options`` fields a lock records as ``stats.<field>`` (``level`` has no option).
STATISTICS = ("judge", "resamples", "elo_resamples", "seed", "zero_margin", "count_failures",
              "judge_run", "buckets")
_DIGEST = re.compile(r"[0-9a-f]{64}")


def short(value: str | None) -> str:
    """A value as a table shows it: a sha256 cut to 12 digits (JSON keeps it whole)."""
    if value is None:
        return "(absent)"
    return value[:12] if _DIGEST.fullmatch(value) else value


def statistics(options: Options) -> dict[str, Any]:
    """The analysis options as ``refig lock`` records them."""
    return {name: getattr(options, name) for name in STATISTICS}


def deviations(ctx: Context) -> Iterator[Table]:
    """Each plan entry the run's evaluations or this report used other than the lock says."""
    store = ctx.data.store
    lock = read_lock(store)
    table = Table("deviations", "Deviations from the locked plan", [
        Column("entry", "entry"), Column("locked", "locked"), Column("used", "used"),
        Column("stage", "by"), Column("since", "first")])
    if lock is None:
        table.not_applicable = "no plan is locked (`refig lock RUN` records one)"
        yield table
        return
    table.description = (f"plan {lock.digest} locked at {lock.locked_at:%Y-%m-%d %H:%M} UTC: "
                         f"{len(lock.plan)} entries")
    found = plan_deviations(store, statistics(ctx.options))
    table.rows = [{"entry": d.entry, "locked": short(d.locked), "used": short(d.used),
                   "stage": d.stage, "since": f"{d.created_at:%Y-%m-%d %H:%M}"} for d in found]
    if not found:
        table.not_applicable = "none: every evaluation and this report followed the plan"
    yield table


def environment(ctx: Context) -> Iterator[Table]:
    """The environment of each stage: every entry of the first one recorded, then what each
    later one (another host, an upgrade) changed; the model each judge's provider reported."""
    found = environments(ctx.data.store)
    columns = [Column("stage", "stage"), Column("entry", "entry"), Column("value", "value"),
               Column("recorded", "recorded on, at")]
    table = Table("environment", "Environment", columns, description=(
        "what each stage ran with, as its renderer, metrics and judges report it; refig's and "
        "every plugin's version are in the JSON and HTML (environment_software)"))
    software = Table("environment_software", "Software", columns, detail=True)
    before: dict[str, dict[str, str]] = {}
    runs: dict[str, int] = defaultdict(int)
    for env in found:
        runs[env.stage] += 1
        seen = before.get(env.stage, {})
        for entry, value in sorted(env.entries.items()):
            row: dict[str, Cell] = {"stage": env.stage, "entry": entry, "value": value,
                                    "recorded": f"{env.host}, {env.created_at:%Y-%m-%d %H:%M}"}
            if env.stage == "software":
                software.rows.append(row)
            elif seen.get(entry) != value:
                table.rows.append({**row, "value": short(value)})
        before[env.stage] = env.entries
    table.rows += _reported_models(ctx)
    if not found:
        table.insufficient = ("no environment recorded: the run was evaluated before refig "
                              "recorded one; `refig evaluate` records it when it next does work")
    if said := _canary_note(canary(ctx)):
        table.notes.append(said)
    for stage, count in sorted(runs.items()):
        if count > 1:
            table.notes.append(
                f"the {stage} stage ran in {count} environments (rows after its first show what "
                f"changed): its numbers may not all be comparable; `refig compare` says which")
    yield table
    if software.rows:
        yield software


def canary(ctx: Context) -> dict[str, Any]:
    """The run's golden canary as its last evaluation left it (``refig evaluate``): its status
    and every environment the run was evaluated in; empty when never checked."""
    found = json.loads(ctx.data.store.get_meta(CANARY_KEY) or "{}")
    return found if isinstance(found, dict) else {}


def _canary_note(found: dict[str, Any]) -> str:
    if not found:
        return ""
    seen = found.get("environments", [])
    said = f"golden canary at the last evaluation: {found.get('status')}"
    if len(seen) > 1:
        said += (f"; the run was evaluated in {len(seen)} canary environments "
                 f"({', '.join(str(d)[:12] for d in seen)}, added with --mixed-environments): "
                 "its numbers mix set-ups")
    return said


def _reported_models(ctx: Context) -> list[dict[str, Any]]:
    """Per judge, the model ids its provider reported on the stored judgments."""
    models: dict[str, set[str]] = defaultdict(set)
    for judgments in ctx.data.judgments.values():
        for judgment in judgments:
            if judgment.model:
                models[judgment.judge].add(judgment.model)
    return [{"stage": "judge", "entry": f"judge.{label}.reported_model",
             "value": ", ".join(sorted(found)), "recorded": "on its judgments"}
            for label, found in sorted(models.items())]


def provenance_json(ctx: Context) -> dict[str, Any]:
    """The lock, the newest environment of each stage in full and the golden canary's meta
    entry, for ``refig report --json``."""
    store = ctx.data.store
    lock = read_lock(store)
    return {
        "lock": None if lock is None else {"locked_at": lock.locked_at.isoformat(),
                                           "plan": lock.plan},
        "environment": {stage: env.model_dump(mode="json")
                        for stage, env in latest(store).items()},
        "deviations": [d.model_dump(mode="json")
                       for d in plan_deviations(store, statistics(ctx.options))],
        "canary": canary(ctx) or None,
    }
