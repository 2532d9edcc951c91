"""The figure-to-code step of ``refig demo``: a generated suite, the three offline baselines,
the `program` realiser, the `code` metric and the `code-metrics` proxy judge, then a report.

Everything is the commands' own machinery, so the step resumes like they do. It checks the
outcome the baselines exist for: the reference reaches the proxy's maximum, the blank figure
scores below it, and every smuggled program is caught (capped to 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refig.plugin import RefigError

BASELINES = ("reference", "blank", "smuggle")
JUDGE = "code-metrics"
CATEGORIES = ("statistical", "mathematical")


@dataclass(frozen=True)
class BaselineVerdict:
    """One baseline's mean proxy total, mean FCF and how many of its programs were capped."""

    harness: str
    total: float
    fcf: float
    capped: int
    judged: int


def run_code_demo(registry: Any, out: Path, *, jobs: int = 2, quiet: bool = False,
                  categories: Sequence[str] = CATEGORIES) -> tuple[BaselineVerdict, ...]:
    """Build, run, evaluate and report into ``out`` (suite/, run/, report/)."""
    from refig.pipeline import EvaluateRequest, ReportRequest, evaluate, report
    from refig.running.runner import execute, make_request

    from refig_family_figure_to_code.suites.code_sample import build_code_sample

    suite, run = out / "suite", out / "run"
    if not (suite / "suite.json").is_file():
        build_code_sample(suite, categories=categories)
    for harness in BASELINES:
        options = {"suite": str(suite.resolve())} if harness == "reference" else {}
        request = make_request(registry, suite=suite, out=run, harness=harness, jobs=jobs,
                               options=options)
        summary = execute(request, quiet=quiet)
        if summary.failed:
            raise RefigError(f"{summary.failed} {harness} attempts failed", path=run,
                             fix="see the attempt logs with `refig export`")
    outcome = evaluate(registry, EvaluateRequest(run=run, renderer="program", jobs=jobs,
                                                 judges=(JUDGE,), quiet=quiet))
    if outcome.failures:
        raise RefigError("some evaluation steps failed", path=run,
                         fix=f"run `refig evaluate {run}` to retry them")
    report(registry, ReportRequest(run=run, targets=(("html", out / "report"),), quiet=quiet,
                                   resamples=1000, elo_resamples=100))
    return verdicts(run)


def verdicts(run: Path) -> tuple[BaselineVerdict, ...]:
    """Each baseline's standing under the proxy judge, read back from the run store."""
    from refig.analysis.rundata import RunData
    from refig.store import RunStore

    data = RunData.load(RunStore.open(run))
    found = []
    for harness in BASELINES:
        outcomes = [o for (_, config), o in data.outcomes.items() if f"@{harness}/" in config]
        judged = [j for o in outcomes if o.artifact for j in data.judgments.get(o.artifact, [])
                  if j.judge == JUDGE and j.total is not None]
        fcf = [data.metric(o.artifact, "code", "fcf") or 0.0 for o in outcomes]
        found.append(BaselineVerdict(
            harness=harness,
            total=sum(j.total or 0.0 for j in judged) / len(judged) if judged else 0.0,
            fcf=sum(fcf) / len(fcf) if fcf else 0.0,
            capped=sum(j.capped for j in judged), judged=len(judged)))
    return tuple(found)
