"""The evaluate and report stages as functions, shared by their commands and by ``refig demo``.

Each reads as one pipeline: resolve every name through the registry (a typo exits 2 with the
names that exist instead of failing half-way), open the run's :class:`~refig.context.RunContext`
once, fit the choices to the run's family, then do the work with that context. A folder of runs
is reported by :func:`refig.collection.report_collection`, a layer above :func:`report`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from refig.console import err
from refig.context import RunContext
from refig.errors import RefigError, UsageError, install_fix, refuse_file_as_folder
from refig.manifest import (
    Manifest,
    PlanDeviationError,
    describe,
    evaluation_plan,
    follow_lock,
    record,
    rendered_with,
)
from refig.plugins import Registry, Selection, check_serves
from refig.provenance import (
    Lock,
    component_environment,
    plan_deviations,
    statistics_plan,
    write_lock,
)
from refig.records import PluginKind

if TYPE_CHECKING:
    from refig.evaluation import Summary
    from refig.judging import JudgingSummary, SelectedJudge
    from refig.protocols import Canary
    from refig.rubric import Rubric
    from refig.store import RunStore


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
    #: Refuse (exit 1) an evaluation that leaves the run's locked plan.
    strict: bool = False
    #: False (``--no-canary``): add numbers without checking the golden canary, as the run
    #: then states.
    canary: bool = True
    #: True (``--mixed-environments``): add numbers to a run evaluated in another environment.
    mixed: bool = False


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


@dataclass(frozen=True)
class _Prepared:
    """An evaluation's choices, every name resolved and fitted to the run's family."""

    context: RunContext
    renderer: Selection
    metrics: list[Selection]
    metric_options: dict[str, dict[str, str]]
    judges: list[SelectedJudge]
    rubric: Rubric | None

    @contextmanager
    def planned(self, request: EvaluateRequest) -> Iterator[Manifest]:
        """The evaluation's manifest, its metrics built in this process (the ones its stages
        then use, as the renderer they build) until the block ends."""
        from refig.engine.plugins import close_plugins, use_registry
        from refig.metric_options import given

        use_registry(self.context.registry)
        with given(self.metric_options):
            try:
                yield evaluation_plan(self.context, self.metrics, self.judges, self.rubric,
                                      request.repeats)
            finally:
                close_plugins()


def _prepare(registry: Registry, request: EvaluateRequest) -> _Prepared:
    """Names first (a typo exits 2 before any file is read), then what the run's family
    allows."""
    from refig.evaluation import StageChoice

    chosen = StageChoice.named(registry, request.renderer, request.metrics)
    judges = _chosen_judges(registry, request)
    context = RunContext.open(registry, request.run)
    renderer, metrics = chosen.serving(registry, context.record)
    return _Prepared(context, renderer, metrics,
                     _checked_metric_options(request.metric_options, metrics), judges,
                     _rubric(context, judges, request.rubric))


def evaluate(registry: Registry, request: EvaluateRequest) -> EvaluateOutcome:
    """Inspect, render, gate and measure every artifact of a run, then judge it; the plan
    checked against the run's lock and each stage's environment recorded."""
    executor = registry.resolve(PluginKind.EXECUTOR, request.executor)
    prepared = _prepare(registry, request)
    context, judges, rubric = prepared.context, prepared.judges, prepared.rubric
    _check_canary(context, prepared.renderer, request)
    with prepared.planned(request) as manifest:
        deviations = follow_lock(context, manifest, strict=request.strict)
        for deviation in deviations if not request.quiet else ():
            err.print(f"[yellow]deviation from the locked plan:[/] {describe(deviation)}")
        summary = _run_stages(context, prepared.renderer, prepared.metrics, executor, request,
                              manifest)
        if summary.rendered:
            rendered_with(manifest, prepared.renderer)
    record(context, manifest, deviations, summary, None)  # kept should judging fail
    judging = _judge(context, judges, rubric, summary, request) if rubric is not None else None
    record(context, manifest, deviations, summary, judging)
    damaged = summary.damage.error() if summary.damage is not None else None
    if damaged is not None:  # the whole items were done; the damaged ones wait for a repair
        raise damaged
    return EvaluateOutcome(stages=summary, judging=judging)


def lock(registry: Registry, request: EvaluateRequest, statistics: Mapping[str, Any], *,
         replace: bool = False) -> Lock:
    """Lock the plan an evaluation with ``request`` and a report with ``statistics`` follow."""
    prepared = _prepare(registry, request)
    with prepared.planned(request) as manifest:
        plan = {**manifest.plan, **statistics_plan(statistics)}
    return write_lock(prepared.context.store, plan, replace=replace)


#: The run's meta key saying how the golden canary stood when numbers were last added.
CANARY_KEY = "canary"


def _check_canary(context: RunContext, renderer: Selection, request: EvaluateRequest) -> None:
    """The run's family's golden canary, before any number is added (cached by the canary per
    environment): a failure exits 1 saying what differs, unless ``--no-canary``; so does a
    passing machine whose environment is none of those the run was evaluated in before, unless
    ``--mixed-environments``. The run's meta says which, and every environment it was
    evaluated in (a set skipped whole, its realiser unable to start, read none)."""
    declared = context.record.canary
    if declared is None:
        return
    canary: Canary = declared()
    if canary.renderer != renderer.record.name:
        return  # its expected results say nothing of another realiser
    before = json.loads(context.store.get_meta(CANARY_KEY) or "{}")
    seen: list[str] = before.get("environments", [])
    if not request.canary:
        context.store.set_meta(CANARY_KEY, json.dumps(
            {"status": "not checked (--no-canary)", "environments": seen}))
        err.print("[yellow]the golden canary was not checked (--no-canary); the run says so[/]")
        return
    from refig.engine.plugins import use_registry

    use_registry(context.registry)
    verdict = canary.check(quiet=request.quiet)
    new = verdict.passed and bool(verdict.environment) and verdict.environment not in seen
    if new and seen and not request.mixed:
        raise RefigError(
            f"this run was evaluated in another environment (canary digest "
            f"{', '.join(d[:12] for d in seen)}; this machine {verdict.environment[:12]}), so "
            "no number was added: its numbers would mix two set-ups",
            path=context.store.root,
            fix="evaluate it on the set-up it was made on (`refig canary --json` prints this "
                "one's environment), compare two runs with `refig compare` instead, or, knowing "
                f"its numbers mix set-ups, `refig evaluate {context.store.root} "
                "--mixed-environments`")
    if new:
        seen = [*seen, verdict.environment]
    context.store.set_meta(CANARY_KEY, json.dumps({
        "status": "passed" if verdict.passed else "failed",
        "environment": verdict.environment, "differs": verdict.differs, "environments": seen}))
    if not verdict.passed:
        raise RefigError(
            f"the golden canary failed on this machine, so no number was added: "
            f"{verdict.differs}",
            fix="set the machine up as docs/reproducibility.md says (`refig canary` shows each "
                "golden document), or, knowing its numbers may not match, add --no-canary")


def _judge(context: RunContext, judges: Sequence[SelectedJudge], rubric: Rubric,
           summary: Summary, request: EvaluateRequest) -> JudgingSummary:
    """Every evaluated artifact of the run (those with damaged objects left out) judged by each
    judge, on the judging stage's own threads."""
    from refig.evaluation import load_artifacts
    from refig.judging import judge_artifacts

    return judge_artifacts(
        context.store, load_artifacts(context, damage=summary.damage), judges, rubric=rubric,
        repeats=request.repeats, jobs=request.judge_jobs, budget=request.budget,
        retry_failed=request.rejudge_failed, quiet=request.quiet)


def _chosen_judges(registry: Registry, request: EvaluateRequest) -> list[SelectedJudge]:
    """The ``--judge`` selections, within ``--budget`` (exit 2 before any work)."""
    if not request.judges:
        return []
    from refig.judging import check_budget, select_judges

    judges = select_judges(registry, request.judges, request.judge_options)
    check_budget(judges, request.budget)
    return judges


def _rubric(context: RunContext, judges: Sequence[SelectedJudge],
            path: Path | None) -> Rubric | None:
    """The judges' rubric (``--rubric``, else the family's), once each judge is known to serve
    the run's family; None when no judge is asked for."""
    if not judges:
        return None
    from refig.rubric import load_rubric

    for selected in judges:
        if selected.selection is not None:  # None: built without the registry
            check_serves(context.registry, selected.selection, context.family)
    return load_rubric(path, family=context.family)


def _run_stages(context: RunContext, renderer: Selection, metrics: Sequence[Selection],
                executor: Selection, request: EvaluateRequest, manifest: Manifest) -> Summary:
    """The deterministic stages over the run on ``executor``'s pool (what it reports joins the
    manifest's software); their summary, said on stderr unless quiet."""
    from refig.evaluation import Evaluation

    pool = executor.create()
    manifest.stages["software"].update(
        component_environment(f"executor.{executor.record.name}", pool))
    try:
        summary = Evaluation(context=context, renderer=renderer, metrics=metrics,
                             executor=pool, jobs=request.jobs, quiet=request.quiet).run()
    finally:
        pool.close()
    if not request.quiet:
        gates = ", ".join(f"{k} {v}" for k, v in sorted(summary.gates.items())) or "none"
        err.print(
            f"evaluated {summary.artifacts} artifacts: {summary.inspected} inspected, "
            f"{summary.rendered} rendered, {summary.metric_values} metric values "
            f"({sum(summary.skipped.values())} steps already stored); gate: {gates}"
        )
    return summary


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
    judge_run: int | None = None
    #: Edges of the direction-agreement buckets (the last infinite); None: the analysis default.
    buckets: tuple[float, ...] | None = None
    #: A paper of the run's family whose tables the LaTeX reporter writes (``--paper``).
    paper: str | None = None
    #: Exit 1 when the run's evaluations or this report left the run's locked plan.
    strict: bool = False

    def statistics(self) -> dict[str, Any]:
        """The options the report's statistics follow, as a lock records them."""
        return {"judge": self.judge, "resamples": self.resamples, "seed": self.seed,
                "elo_resamples": self.elo_resamples, "zero_margin": self.zero_margin,
                "count_failures": self.count_failures, "judge_run": self.judge_run,
                "buckets": self.buckets}


def refuse_file_targets(request: ReportRequest) -> None:
    """Exit 2 when a report's folder is an existing file, before any work."""
    for name, target in request.targets:
        if target is not None:
            refuse_file_as_folder(target, str(target), noun=f"a folder for the {name} report")


def report(registry: Registry, request: ReportRequest) -> dict[str, Path]:
    """Hand one run to each reporter with the analysis options; return what each wrote.

    The reporters of one report share ``options["cache"]``: the analysis toolkit analyses the
    run once, for the first reporter that asks, and every other reporter gets that analysis.
    """
    if not registry.names(PluginKind.REPORTER):
        raise UsageError("no reporter is installed, so there is nothing to write a report",
                         fix=install_fix(TERMINAL_REPORTERS) + " (the terminal and json "
                         "reporters; refig-reporter-html, -latex and -figures add the others)")
    refuse_file_targets(request)
    wanted: list[tuple[Selection, Path | None]] = []
    if request.terminal and not request.as_json:
        wanted.append((reporter(registry, "terminal"), None))
    for name, target in request.targets:
        wanted.append((reporter(registry, name), target))
    if request.as_json:
        wanted.append((reporter(registry, "json"), None))
    if not wanted:
        raise UsageError("nothing to report: give --html, --latex, --figures or --reporter")
    context = RunContext.open(registry, request.run, allow_empty=True)
    for selection, _ in wanted if context.family else ():  # a run with no task yet: any reporter
        check_serves(registry, selection, context.family)
    quiet = request.quiet or request.as_json
    shared: dict[str, Any] = {
        "quiet": quiet, "judge": request.judge, "resamples": request.resamples,
        "elo_resamples": request.elo_resamples, "seed": request.seed,
        "zero_margin": request.zero_margin, "count_failures": request.count_failures,
        "judge_run": request.judge_run, "cache": {},
    }
    if request.buckets is not None:
        shared["buckets"] = request.buckets
    if request.paper is not None:
        shared["paper"] = request.paper
    written: dict[str, Path] = {}
    for selection, target in wanted:
        try:
            path = selection.create().report(context.store.root, target, shared)
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
    if request.strict:
        refuse_deviations(context.store, request)
    return written


def refuse_deviations(store: RunStore, request: ReportRequest) -> None:
    """``--strict``: exit 1 naming every deviation of the run from its locked plan."""
    if found := plan_deviations(store, request.statistics()):
        raise PlanDeviationError(
            f"{len(found)} deviations from the run's locked plan: "
            + "; ".join(describe(d) for d in found), path=store.root,
            fix="the report's first section lists them; evaluate and report as locked")


#: The distribution of the reporters ``refig report`` runs without options (``terminal``),
#: with ``--json`` (``json``), and ``refig demo`` for its verdicts (``verdicts``).
TERMINAL_REPORTERS = "refig-reporter-terminal"


def reporter(registry: Registry, name: str) -> Selection:
    """The reporter ``name``; those of refig-reporter-terminal, when missing, name that
    distribution (exit 2)."""
    if name in ("terminal", "json", "verdicts") and name not in registry.names(
            PluginKind.REPORTER):
        raise UsageError(f"the {name} reporter is not installed",
                         fix=install_fix(TERMINAL_REPORTERS))
    return registry.resolve(PluginKind.REPORTER, name)
