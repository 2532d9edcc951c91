"""The run's judgments as deck-edit cases: per judge, per (configuration, task), IF and VQ by
repeat. A deck that failed the gate is a judged case scoring 0 on both axes; a missing attempt
or a failed judgment is not judged (it counts 0 in the system score only). An attempt that
failed for the provider or the set-up is an infrastructure case: not judged, unless
``count_failures`` makes it a judged 0 like the model's own failures."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from refig_family_deck_edit.judges.llm import IF_AXIS, VQ_AXIS
from refig_family_deck_edit.report.scores import Case, Scored

ORACLE_HARNESS = "oracle"


def collect(data: Any, judgments: Iterable[Any],
            count_failures: bool = False) -> dict[tuple[str, str], Case]:
    """Cases of one judge over the run's outcomes."""
    chosen = {id(judgment) for judgment in judgments}
    cases: dict[tuple[str, str], Case] = {}
    for (task, config), outcome in data.outcomes.items():
        case = Case(config, task)
        cases[(config, task)] = case
        if outcome.infrastructure and not count_failures:
            case.infrastructure = True
            continue
        if outcome.gated:
            case.judged.append(Scored(0, 0.0, 0.0))
            continue
        for judgment in (j for j in outcome.judgments if id(j) in chosen):
            scores = {s.axis: s.score for s in judgment.scores}
            if str(judgment.status) == "ok" and IF_AXIS in scores and VQ_AXIS in scores:
                case.judged.append(Scored(judgment.repeat, scores[IF_AXIS], scores[VQ_AXIS]))
            else:
                case.failed = True
    return cases


def oracle_configs(data: Any) -> set[str]:
    """Configurations whose harness returns the target: marked in every table."""
    return {cid for cid, config in data.configs.items() if config.harness == ORACLE_HARNESS}


def label(config: str, oracles: set[str]) -> str:
    return f"{config} (oracle)" if config in oracles else config


def task_labels(tasks: Mapping[str, Any], key: str) -> dict[str, list[str]]:
    """Each task's categories (a list) or edit type (one) from its meta."""
    found: dict[str, list[str]] = {}
    for task_id, task in tasks.items():
        value = task.meta.get(key)
        values = value if isinstance(value, list) else [value] if value else []
        found[task_id] = [str(v) for v in values]
    return found
