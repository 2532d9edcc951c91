"""The evaluate and report stages as functions, shared by their commands and by ``refig demo``.

Every name is resolved through the registry before any work starts, so a typo exits 2 with the
names that exist instead of failing half-way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from refig.console import err
from refig.errors import RefigError, UsageError, refuse_file_as_folder
from refig.plugins import Registry, Selection, check_serves
from refig.records import PluginKind, TaskFamilyRecord
from refig.store import RunStore

if TYPE_CHECKING:
    from refig.evaluation import Summary
    from refig.judging import JudgingSummary


@dataclass(frozen=True)
class EvaluateRequest:
    """What ``refig evaluate`` was asked to do."""

    run: Path
    metrics: Sequence[str] = ()
    #: ``METRIC:KEY=VALUE`` items (``--metric-opt``).
    metric_options: Sequence[str] = ()
    #: None: the run's family's realiser.
    renderer: str | None = None
    executor: str = "local"
    jobs: int = 2
    judges: Sequence[str] = ()
    judge_options: Sequence[str] = ()
    repeats: int = 1
    budget: float | None = None
    rubric: Path | None = None
    judge_jobs: int = 8
    rejudge_failed: bool = False
    quiet: bool = False


@dataclass(frozen=True)
class EvaluateOutcome:
    """What the deterministic stages and the judges did; failed work items are retried by a
    re-run."""

    stages: Summary
    judging: JudgingSummary | None = None

    @property
    def failures(self) -> int:
        """Stage work items and judgments that failed: a failed judgment is no result."""
        return self.stages.failures + self.judgments_failed

    @property
    def judgments_failed(self) -> int:
        return self.judging.failed if self.judging is not None else 0

    def as_json(self) -> dict[str, Any]:
        return {
            "stages": self.stages.as_json(),
            "judging": self.judging.as_json() if self.judging is not None else None,
        }


def evaluate(registry: Registry, request: EvaluateRequest) -> EvaluateOutcome:
    """Inspect, render, gate and measure every artifact of a run, then judge it."""
    from refig.engine.plugins import close_plugins, use_registry
    from refig.engine.runs import run_family
    from refig.evaluation import Evaluation, load_artifacts, select_metrics

    # names first (a typo exits 2 before any file is read), then what the run's family allows
    if request.renderer is not None:
        registry.resolve(PluginKind.RENDERER, request.renderer)
    select_metrics(registry, request.metrics)
    executor = registry.resolve(PluginKind.EXECUTOR, request.executor)
    judges = rubric = None
    if request.judges:
        from refig.judging import check_budget, select_judges

        judges = select_judges(registry, request.judges, request.judge_options)
        check_budget(judges, request.budget)  # before any work: exit 2
    store = RunStore.open(request.run)
    family = run_family(store)
    family_record = registry.family(family).record
    assert isinstance(family_record, TaskFamilyRecord)  # the registry checks each record's kind
    renderer = registry.resolve_for(PluginKind.RENDERER,
                                    request.renderer or family_record.renderer, family)
    metrics = select_metrics(registry, request.metrics, family)
    metric_options = _checked_metric_options(request.metric_options, metrics)
    if judges:
        from refig.rubric import load_rubric

        for selected in judges:
            if selected.selection is not None:  # None: built without the registry
                check_serves(registry, selected.selection, family)
        rubric = load_rubric(request.rubric, family=family)
    use_registry(registry)
    from refig.metric_options import given

    with given(metric_options):
        pool = executor.create()
        try:
            summary = Evaluation(store=store, renderer=renderer, metrics=metrics, executor=pool,
                                 jobs=request.jobs, quiet=request.quiet).run()
        finally:
            close_plugins()
            pool.close()
    if not request.quiet:
        gates = ", ".join(f"{k} {v}" for k, v in sorted(summary.gates.items())) or "none"
        err.print(
            f"evaluated {summary.artifacts} artifacts: {summary.inspected} inspected, "
            f"{summary.rendered} rendered, {summary.metric_values} metric values "
            f"({sum(summary.skipped.values())} steps already stored); gate: {gates}"
        )
    judging = None
    if judges:
        from refig.judging import judge_artifacts

        judging = judge_artifacts(
            store, load_artifacts(store, damage=summary.damage), judges, rubric=rubric,
            repeats=request.repeats,
            jobs=request.judge_jobs, budget=request.budget, retry_failed=request.rejudge_failed,
            quiet=request.quiet)
    damaged = summary.damage.error() if summary.damage is not None else None
    if damaged is not None:  # the whole items were done; the damaged ones wait for a repair
        raise damaged
    return EvaluateOutcome(stages=summary, judging=judging)


def _checked_metric_options(pairs: Sequence[str], metrics: Sequence[Selection]
                            ) -> dict[str, dict[str, str]]:
    """``--metric-opt`` parsed, each naming a selected metric that accepts its keys (exit 2)."""
    from refig.metric_options import parse_metric_options

    options = parse_metric_options(pairs)
    selected = {m.record.name: m for m in metrics}
    for name, given in options.items():
        if name not in selected:
            raise UsageError(f"--metric-opt names {name!r}, which is not a selected metric",
                             fix="metrics selected: " + ", ".join(sorted(selected)))
        try:
            selected[name].create(**given)  # a wrong key or value fails here, not in a worker
        except (TypeError, ValueError) as exc:
            raise UsageError(f"--metric-opt {name}: {exc}",
                             fix=f"see the options of metric {name} in docs/metrics.md") from exc
    return options


@dataclass(frozen=True)
class ReportRequest:
    """What ``refig report`` was asked to write. ``targets`` maps reporter names to folders."""

    run: Path
    targets: Sequence[tuple[str, Path | None]] = ()
    terminal: bool = True
    as_json: bool = False
    judge: str | None = None
    resamples: int = 10_000
    elo_resamples: int = 1000
    seed: int = 0
    quiet: bool = False
    zero_margin: Literal["exclude", "disagree"] = "exclude"
    count_failures: bool = False


def report(registry: Registry, request: ReportRequest) -> dict[str, Path]:
    """Analyse a run once and hand the analysis to each reporter; return what each wrote (a
    folder of runs: see :func:`refig.collection.report_collection`)."""
    from refig.analysis import Options, analyse
    from refig.collection import collection_runs, report_collection

    for name, target in request.targets:
        if target is not None:
            refuse_file_as_folder(target, str(target), noun=f"a folder for the {name} report")
    if (runs := collection_runs(request.run)) is not None:
        return report_collection(registry, request, runs)

    wanted: list[tuple[Selection, Path | None]] = []
    if request.terminal and not request.as_json:
        wanted.append((registry.resolve(PluginKind.REPORTER, "terminal"), None))
    for name, target in request.targets:
        wanted.append((registry.resolve(PluginKind.REPORTER, name), target))
    if request.as_json:
        wanted.append((registry.resolve(PluginKind.REPORTER, "json"), None))
    if not wanted:
        raise UsageError("nothing to report: give --html, --latex, --figures or --reporter")
    store = RunStore.open(request.run)
    from refig.engine.runs import run_family

    family = run_family(store)
    for selection, _ in wanted:
        check_serves(registry, selection, family)
    quiet = request.quiet or request.as_json
    options = Options(judge=request.judge, resamples=request.resamples,
                      elo_resamples=request.elo_resamples, seed=request.seed,
                      zero_margin=request.zero_margin, count_failures=request.count_failures)
    analysis = analyse(store, options, quiet=quiet)
    shared = {"analysis": analysis, "quiet": quiet, "judge": request.judge}
    written: dict[str, Path] = {}
    for selection, target in wanted:
        try:
            path = selection.create().report(store.root, target, shared)
        except OSError as exc:  # a reporter could not create or write its directory
            raise RefigError(
                f"cannot write the {selection.record.name} report: {exc.strerror or exc}",
                path=exc.filename,
                fix="give --html, --latex, --figures or --reporter NAME=DIR a directory that "
                "refig can create and write",
            ) from exc
        if path is not None:
            written[selection.record.name] = path
            if not request.quiet:
                err.print(f"{selection.record.name} report: {path}")
    return written
