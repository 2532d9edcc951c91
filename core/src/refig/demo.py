"""``refig demo``: the whole pipeline, offline, on a generated sample suite, ending in a report.

It builds the sample suite, runs the two model-free baselines (``cv``, a classical-vision
reconstruction with native shapes and bound connectors, and ``raster-paste``, the cheat the
flattening cap exists to catch), evaluates both (gate, render, object tree, metrics, the offline
deterministic ``metrics`` judge, scored once), and writes the terminal and HTML reports. Every
stage is the one the commands use, so a killed demo resumes where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from refig.console import err
from refig.errors import RefigError
from refig.pipeline import EvaluateRequest, ReportRequest, evaluate, report
from refig.plugins import Registry
from refig.records import PluginKind
from refig.store import RunStore

BASELINES = ("cv", "raster-paste")
JUDGE = "metrics"


@dataclass(frozen=True)
class ConfigVerdict:
    """One baseline's standing under the proxy judge."""

    config_id: str
    total: float
    editability: float
    capped: int
    judged: int


@dataclass(frozen=True)
class DemoOutcome:
    """Where the demo wrote, and how the paste fared against the native rebuild."""

    suite: Path
    run: Path
    html: Path
    verdicts: tuple[ConfigVerdict, ...]
    #: What the proxy judge can and cannot see, as it says itself.
    sight: str | None = None

    def verdict(self, harness: str) -> ConfigVerdict:
        """The verdict on the configuration that ran ``harness``."""
        found = next((v for v in self.verdicts if f"@{harness}/" in v.config_id), None)
        if found is None:
            raise RefigError(f"the {JUDGE} judge left no verdict on {harness}", path=self.run,
                             fix=f"run `refig evaluate {self.run} --judge {JUDGE}` to retry")
        return found


def _stage(number: int, title: str, quiet: bool) -> None:
    if not quiet:
        err.rule(f"[bold]{number}/4[/] {title}", align="left")


def run_demo(registry: Registry, out: Path, *, tasks: int = 6, seed: int = 0, jobs: int = 2,
             quiet: bool = False) -> DemoOutcome:
    """Run every stage into ``out`` (suite/, run/, report/) and return the verdicts."""
    from refig.running.runner import execute, make_request

    sample = registry.resolve(PluginKind.SUITE, "sample")
    evaluate_request = EvaluateRequest(run=out / "run", jobs=jobs, judges=(JUDGE,),
                                       quiet=quiet)
    report_request = ReportRequest(run=out / "run", targets=(("html", out / "report"),),
                                   quiet=quiet, resamples=2000, elo_resamples=200)

    _stage(1, f"build the sample suite ({tasks} generated figures, seed {seed})", quiet)
    sample.create()(out / "suite", n=tasks, seed=seed, quiet=quiet)
    requests = [make_request(registry, suite=out / "suite", out=out / "run", harness=name,
                             jobs=jobs) for name in BASELINES]
    _stage(2, "run the baselines: " + " and ".join(BASELINES), quiet)
    for request in requests:
        summary = execute(request, quiet=quiet)
        if summary.failed:
            raise RefigError(f"{summary.failed} {request.harness.record.name} attempts failed",
                             path=out / "run", fix="see the attempt logs with `refig export`")
    _stage(3, f"evaluate: gate, render, object tree, metrics, the {JUDGE} judge (deterministic)",
           quiet)
    if evaluate(registry, evaluate_request).failures:
        raise RefigError("some evaluation steps failed", path=out / "run",
                         fix=f"run `refig evaluate {out / 'run'}` to retry them")
    _stage(4, "report", quiet)
    report(registry, report_request)
    store = RunStore.open(out / "run")
    return DemoOutcome(suite=out / "suite", run=out / "run", html=out / "report",
                       verdicts=verdicts(store), sight=_sight(store))


def _sight(store: RunStore) -> str | None:
    from refig.models import Judgment

    return next((j.sight for j in store.iter(Judgment) if j.judge == JUDGE and j.sight), None)


def verdicts(store: RunStore) -> tuple[ConfigVerdict, ...]:
    """Each configuration's mean total and editability under the proxy judge, and its caps."""
    from refig.analysis.rundata import RunData
    from refig.analysis.scores import judge_labels, judge_scores
    from refig.models import JudgmentStatus

    data = RunData.load(store)
    judgments = judge_labels(data).get(JUDGE, [])
    scores = judge_scores(data, JUDGE, judgments)
    editability = scores.axis_index("edit")
    found = []
    for c, config_id in enumerate(scores.configs):
        artifacts = {o.artifact for (_, cid), o in data.outcomes.items()
                     if cid == config_id and o.artifact}
        mine = [j for j in judgments
                if j.artifact_sha256 in artifacts and j.status is JudgmentStatus.OK]
        found.append(ConfigVerdict(
            config_id=config_id,
            total=float(np.nanmean(scores.total[c])),
            editability=float(np.nanmean(scores.axis_points[c, :, editability]))
            if editability is not None else float("nan"),
            capped=sum(j.capped for j in mine),
            judged=len(mine),
        ))
    return tuple(found)
