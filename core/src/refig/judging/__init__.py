"""The judging stage: every evaluated artifact x judge x repeat, cached, throttled, within budget.

``selection`` chooses judges and their options, ``accounting`` keeps the ledgers and the
budget, ``workers`` runs each judge's calls, and ``stage`` plans, runs and sums it all up.
"""

from refig.judging.accounting import Budget, JudgeLedger, JudgingSummary, check_budget
from refig.judging.selection import (
    STAGE_OPTIONS,
    JudgeOption,
    SelectedJudge,
    accepted_options,
    is_deterministic,
    parse_judge_options,
    select_judges,
)
from refig.judging.stage import NOT_CACHED, inputs_key, judge_artifacts
from refig.judging.workers import FATAL, JUDGMENT_FIELDS, RATE_LIMITED, JudgmentKey

__all__ = [
    "FATAL",
    "JUDGMENT_FIELDS",
    "NOT_CACHED",
    "RATE_LIMITED",
    "STAGE_OPTIONS",
    "Budget",
    "JudgeLedger",
    "JudgeOption",
    "JudgingSummary",
    "JudgmentKey",
    "SelectedJudge",
    "accepted_options",
    "check_budget",
    "inputs_key",
    "is_deterministic",
    "judge_artifacts",
    "parse_judge_options",
    "select_judges",
]
