"""What the judging stage spent: per-judge ledgers, the summary, and the shared dollar budget."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from refig.errors import UsageError
from refig.judging.selection import SelectedJudge
from refig.models import Usage


@dataclass
class JudgeLedger:
    """What one judge did in this run: calls, outcomes, tokens and dollars."""

    label: str
    calls: int = 0
    judged: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    cached: int = 0
    skipped_budget: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    retries: int = 0
    rate_limited: int = 0
    #: Judgments another live ``refig evaluate`` held or stored while this one ran.
    elsewhere: int = 0
    #: Repeats asked for but not made: a deterministic judge is scored once.
    collapsed_repeats: int = 0

    def line(self) -> str:
        """``gpt-5.4: 120 judged (2 failed: 2 timeout), 30 cached, 140 calls, $1.2345``."""
        failed = sum(self.failed.values())
        text = f"{self.label}: {self.judged} judged"
        if failed:
            kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.failed.items()))
            text += f" ({failed} failed: {kinds})"
        text += f", {self.cached} cached, {self.calls} calls"
        if self.retries:
            text += f" ({self.retries} retries, {self.rate_limited} rate-limited)"
        text += f", ${self.cost_usd:.4f}"
        if self.unpriced_calls:
            text += f" (+{self.unpriced_calls} calls of unknown price)"
        if self.skipped_budget:
            text += f", {self.skipped_budget} skipped at the budget"
        if self.elsewhere:
            text += f", {self.elsewhere} made by another process"
        if self.collapsed_repeats:
            text += "; deterministic judge: scored once, repeats collapse to one"
        return text

    def as_json(self) -> dict[str, Any]:
        return {
            "judge": self.label,
            "judged": self.judged,
            "collapsed_repeats": self.collapsed_repeats,
            "failed": dict(self.failed),
            "cached": self.cached,
            "calls": self.calls,
            "retries": self.retries,
            "rate_limited": self.rate_limited,
            "cost_usd": round(self.cost_usd, 6),
            "unpriced_calls": self.unpriced_calls,
            "skipped_budget": self.skipped_budget,
            "elsewhere": self.elsewhere,
            "usage": self.usage.model_dump(),
        }


@dataclass
class JudgingSummary:
    """The outcome of one judging stage, per judge."""

    rubric_sha256: str
    rubric_version: str
    repeats: int
    ledgers: list[JudgeLedger]
    not_judged_gate: int = 0
    budget_usd: float | None = None
    seconds: float = 0.0

    @property
    def cost_usd(self) -> float:
        return sum(ledger.cost_usd for ledger in self.ledgers)

    @property
    def calls(self) -> int:
        return sum(ledger.calls for ledger in self.ledgers)

    @property
    def failed(self) -> int:
        return sum(sum(ledger.failed.values()) for ledger in self.ledgers)

    @property
    def skipped_budget(self) -> int:
        return sum(ledger.skipped_budget for ledger in self.ledgers)

    def lines(self) -> list[str]:
        """A line per judge, then the budget and the artifacts the gate kept from judging."""
        lines = [ledger.line() for ledger in self.ledgers]
        if self.budget_usd is not None:
            lines.append(
                f"budget: ${self.cost_usd:.4f} of ${self.budget_usd:.4f} spent"
                + (f"; {self.skipped_budget} judgments not made (run again with a larger "
                   "--budget to make them)" if self.skipped_budget else "")
            )
        if self.not_judged_gate:
            lines.append(f"{self.not_judged_gate} artifacts not judged: they failed the gate")
        return lines

    def as_json(self) -> dict[str, Any]:
        return {
            "rubric_sha256": self.rubric_sha256,
            "rubric_version": self.rubric_version,
            "repeats": self.repeats,
            "judges": [ledger.as_json() for ledger in self.ledgers],
            "cost_usd": round(self.cost_usd, 6),
            "budget_usd": self.budget_usd,
            "skipped_budget": self.skipped_budget,
            "not_judged_gate": self.not_judged_gate,
            "seconds": round(self.seconds, 3),
        }


class Budget:
    """Dollars spent and reserved across judges: a call starts only with a reservation.

    A call reserves its estimate before it starts (the larger of the judge's prompt estimate
    and the largest cost one of its calls has had); until a call of a judge has reported a
    cost, that judge runs one call at a time, so parallel slots never overspend an unknown.
    """

    def __init__(self, limit: float | None):
        self.limit = limit
        self.spent = 0.0
        self.reserved = 0.0
        self.in_flight = 0
        self._lock = threading.Lock()

    def reserve(self, estimate: float | None, *, probing: bool) -> float | None:
        """Reserve ``estimate`` dollars; None when the budget cannot cover it now."""
        with self._lock:
            if self.limit is None:
                self.in_flight += 1
                return 0.0
            amount = estimate or 0.0
            if probing and self.in_flight:
                return None
            if self.spent + self.reserved + amount > self.limit or self.spent >= self.limit:
                return None
            self.reserved += amount
            self.in_flight += 1
            return amount

    def settle(self, reservation: float, cost: float | None) -> None:
        """Replace a reservation with what the call cost."""
        with self._lock:
            self.reserved -= reservation
            self.in_flight -= 1
            self.spent += cost or 0.0

    def busy(self) -> bool:
        """Calls are in flight whose settling may free room for the next one."""
        with self._lock:
            return self.in_flight > 0

    def exhausted(self) -> bool:
        return self.limit is not None and self.spent >= self.limit


def check_budget(judges: Sequence[SelectedJudge], budget: float | None) -> None:
    """Refuse ``--budget`` for a judge whose calls have no known price (it could not count)."""
    if budget is None:
        return
    unpriced = [s.label for s in judges if s.judge.priced() is False]
    if unpriced:
        raise UsageError(
            f"--budget cannot count the calls of {', '.join(unpriced)}: refig knows no price "
            "for its model",
            fix="give the price with --judge-opt input_cost_per_token=... and "
            "--judge-opt output_cost_per_token=..., or drop --budget",
        )
