"""The executor block (as PPTArena's Table 7) for PPTPilot-style runs: for each model that ran
the ``hybrid`` workflow (python-pptx code or a validated OOXML patch, render, compare, repeat),
every deck-edit executor it ran beside it, with the scores and what each attempt cost as the run
recorded it (turns, tokens, dollars, seconds)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator, Sequence
from typing import Any

from refig_toolkit_analysis import Column, Table, judge_labels

from refig_family_deck_edit.report.cases import collect, label, oracle_configs
from refig_family_deck_edit.report.scores import summarise

#: The executor each deck-edit workflow gives the agent (``docs/running.md``).
EXECUTORS = {
    "direct": "none (the agent's own means)",
    "toolchain": "python-pptx program",
    "hybrid": "code or OOXML patch, render-compare loop (PPTPilot)",
}
PPTPILOT = "hybrid"


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def attempt_costs(attempts: Sequence[Any]) -> dict[str, float | None]:
    """Means per attempt of what the run recorded: turns, tokens, dollars (priced attempts
    only) and wall seconds."""
    return {
        "turns": _mean([a.turns for a in attempts if a.turns is not None]),
        "input_tokens": _mean([a.usage.input_tokens for a in attempts]),
        "output_tokens": _mean([a.usage.output_tokens for a in attempts]),
        "cost": _mean([a.cost_usd for a in attempts if a.cost_usd is not None]),
        "seconds": _mean([a.wall_seconds for a in attempts]),
    }


def executor_table(ctx: Any) -> Iterator[Table]:
    data = ctx.data
    table = Table(key="deck-executor", title="Executors (as PPTArena Table 7's executor block)",
                  columns=[
                      Column("model", "model"), Column("executor", "executor"),
                      Column("config", "configuration"),
                      Column("if", "IF (0-5)", "float", 2, best="max"),
                      Column("vq", "VQ (0-5)", "float", 2, best="max"),
                      Column("if_pct", "IF%", "pct", 1, best="max"),
                      Column("vq_pct", "VQ%", "pct", 1, best="max"),
                      Column("system", "system score (PPTArena)", "float", 1, best="max"),
                      Column("attempts", "succeeded / attempted"),
                      Column("turns", "turns", "float", 1),
                      Column("input_tokens", "input tokens", "float", 0),
                      Column("output_tokens", "output tokens", "float", 0),
                      Column("cost", "USD per attempt", "usd", 4, best="min"),
                      Column("seconds", "seconds per attempt", "float", 1, best="min")],
                  description="Each model that ran the hybrid workflow, beside every other "
                  "deck-edit executor it ran; IF% and VQ% over the expected cases (missing 0); "
                  "turns, tokens, cost and seconds are means over each task's last attempt as "
                  "the run recorded them (cost over the attempts whose calls were priced).")
    pilots = {c.model for c in data.configs.values() if c.workflow == PPTPILOT}
    if not pilots:
        table.not_applicable = ("no configuration ran the hybrid workflow (PPTPilot's "
                                "executor): `refig run ... --workflow hybrid`")
        yield table
        return
    primary = ctx.primary
    judgments = judge_labels(data).get(primary, []) if primary else []
    cases = collect(data, judgments, ctx.options.count_failures)
    oracles = oracle_configs(data)
    chosen = sorted((cid for cid, c in data.configs.items()
                     if c.model in pilots and c.workflow in EXECUTORS and cid in data.config_order),
                    key=lambda cid: (data.configs[cid].model,
                                     list(EXECUTORS).index(data.configs[cid].workflow), cid))
    rows = summarise(cases, chosen, list(data.task_order), oracles)
    for cid, row in zip(chosen, rows, strict=True):
        config = data.configs[cid]
        attempts = [o.attempt for (_, c), o in data.outcomes.items() if c == cid]
        succeeded = sum(str(a.status) == "succeeded" for a in attempts)
        judged = primary is not None
        table.rows.append({
            "model": config.model, "executor": EXECUTORS[config.workflow],
            "config": label(cid, oracles),
            "if": _finite(row.instruction) if judged else None,
            "vq": _finite(row.visual) if judged else None,
            "if_pct": _finite(row.if_pct / 100) if judged else None,
            "vq_pct": _finite(row.vq_pct / 100) if judged else None,
            "system": _finite(row.system) if judged else None,
            "attempts": f"{succeeded} / {len(attempts)}", **attempt_costs(attempts)})
    if primary is None:
        table.notes.append("no judgments yet: scores need `refig evaluate RUN --judge ...`")
    yield table
