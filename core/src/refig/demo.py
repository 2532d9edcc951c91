"""``refig demo``: the whole pipeline, offline, on a generated sample suite, ending in a report.

Each installed task family whose record declares a :class:`~refig.records.FamilyDemo` takes
part: the demo builds its sample suite, runs its model-free baselines, evaluates them (gate,
render, structure, metrics, an offline deterministic judge, scored once), writes the terminal
and HTML reports, and checks the family's claim about them. Every stage is the one the commands
use, so a killed demo resumes where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from refig.console import err
from refig.errors import RefigError
from refig.pipeline import EvaluateRequest, ReportRequest, evaluate, report, reporter
from refig.plugins import Registry
from refig.records import FamilyDemo, PluginKind, TaskFamilyRecord
from refig.store import RunStore


@dataclass(frozen=True)
class ConfigVerdict:
    """One configuration's standing under the demo's offline judge."""

    config_id: str
    total: float
    editability: float
    capped: int
    judged: int


@dataclass(frozen=True)
class DemoOutcome:
    """Where one family's demo wrote, and each configuration's verdict."""

    demo: FamilyDemo
    suite: Path
    run: Path
    html: Path
    verdicts: tuple[ConfigVerdict, ...]
    #: What the proxy judge can and cannot see, as its judgments say.
    sight: str | None = None
    #: The most a total can be under the family's rubric (100 for ReFigBench).
    total_max: float = 100.0

    def verdict(self, harness: str) -> ConfigVerdict:
        """The verdict on the configuration that ran ``harness``."""
        found = next((v for v in self.verdicts if f"@{harness}/" in v.config_id), None)
        if found is None:
            judge = self.demo.judge
            raise RefigError(f"the {judge} judge left no verdict on {harness}", path=self.run,
                             fix=f"run `refig evaluate {self.run} --judge {judge}` to retry")
        return found


def _stage(number: int, title: str, quiet: bool) -> None:
    if not quiet:
        err.rule(f"[bold]{number}/4[/] {title}", align="left")


def demos(registry: Registry) -> list[FamilyDemo]:
    """The installed families' demos, the one writing to ``--out`` itself first, the others by
    folder; an error when one cannot run (:func:`check_installed`) or none is declared."""
    found = sorted((record.demo for record in registry.records(PluginKind.FAMILY)
                    if isinstance(record, TaskFamilyRecord) and record.demo is not None),
                   key=lambda demo: demo.folder)
    if not found:
        raise RefigError("no task family's demo is installed",
                         fix="`uv sync --all-packages` installs the first-party families")
    for demo in found:
        check_installed(registry, demo)
    return found


def check_installed(registry: Registry, demo: FamilyDemo) -> None:
    """Nothing when everything the demo runs is installed; else an error naming what is
    missing and every plugin that failed, so the demo never skips a family's baselines."""
    wanted = [(PluginKind.SUITE, demo.suite), (PluginKind.JUDGE, demo.judge),
              *((PluginKind.HARNESS, h) for h in demo.harnesses)]
    missing = [f"{kind} {name}" for kind, name in wanted if name not in registry.names(kind)]
    if not missing:
        return
    failed = [info for info in registry.plugins if info.status == "failed"]
    problems = [f"{info.name} failed: {info.error}" for info in failed]
    problems += [lost for info in registry.plugins for lost in info.lost]
    raise RefigError(
        f"the {demo.family} demo cannot run: {', '.join(missing)} not available"
        + "".join(f"\n  {line}" for line in problems),
        fix="`refig list-plugins` shows each plugin's state; reinstall the missing one, or hide "
        "a plugin that breaks it with REFIG_DISABLE_PLUGINS=NAME",
    )


def run_demo(registry: Registry, out: Path, *, tasks: int = 6, seed: int = 0, jobs: int = 2,
             quiet: bool = False) -> list[DemoOutcome]:
    """Run every installed family's demo into ``out`` and return their verdicts."""
    return [run_family_demo(registry, demo, out / demo.folder, tasks=tasks, seed=seed,
                            jobs=jobs, quiet=quiet)
            for demo in demos(registry)]


def run_family_demo(registry: Registry, demo: FamilyDemo, out: Path, *, tasks: int, seed: int,
                    jobs: int, quiet: bool) -> DemoOutcome:
    """Every stage of one family's demo into ``out`` (suite/, run/, report/)."""
    from refig.running.runner import execute, make_request

    sample = registry.resolve(PluginKind.SUITE, demo.suite)
    evaluate_request = EvaluateRequest(run=out / "run", jobs=jobs, judges=(demo.judge,),
                                       repeats=demo.repeats, quiet=quiet)
    # -q: only the verdicts, not every run's terminal tables
    report_request = ReportRequest(run=out / "run", targets=(("html", out / "report"),),
                                   terminal=not quiet, quiet=quiet, resamples=2000,
                                   elo_resamples=200)

    _stage(1, f"build the {demo.suite} suite ({tasks} generated tasks, seed {seed})", quiet)
    sample.create()(out / "suite", n=tasks, seed=seed, quiet=quiet)
    requests = [make_request(registry, suite=out / "suite", out=out / "run", harness=name,
                             jobs=jobs)
                for name in demo.harnesses]
    _stage(2, "run the baselines: " + " and ".join(demo.harnesses), quiet)
    for request in requests:
        summary = execute(request, quiet=quiet)
        if summary.failed:
            raise RefigError(f"{summary.failed} {request.harness.record.name} attempts failed",
                             path=out / "run", fix="see the attempt logs with `refig export`")
    _stage(3, f"evaluate: gate, render, structure, metrics, the {demo.judge} judge", quiet)
    if evaluate(registry, evaluate_request).failures:
        raise RefigError("some evaluation steps failed", path=out / "run",
                         fix=f"run `refig evaluate {out / 'run'}` to retry them")
    _stage(4, "report", quiet)
    report(registry, report_request)
    from refig.rubric import load_rubric

    store = RunStore.open(out / "run")
    return DemoOutcome(demo=demo, suite=out / "suite", run=out / "run", html=out / "report",
                       verdicts=verdicts(store, demo.judge, registry=registry),
                       sight=_sight(store, demo.judge),
                       total_max=load_rubric(family=demo.family).max_total)


def _sight(store: RunStore, judge: str) -> str | None:
    from refig.models import Judgment

    return next((j.sight for j in store.iter(Judgment) if j.judge == judge and j.sight), None)


def verdicts(store: RunStore, judge: str = "metrics", *,
             registry: Registry | None = None) -> tuple[ConfigVerdict, ...]:
    """Each configuration's mean total and editability (NaN when the rubric has none) under
    ``judge``, and its caps, as the ``verdicts`` reporter (refig-reporter-terminal) computes
    them (``registry``: this process's when not given)."""
    import json
    import tempfile

    from refig.engine.plugins import registry as process_registry

    chosen = reporter(registry or process_registry(), "verdicts")
    with tempfile.TemporaryDirectory() as folder:
        written = chosen.create().report(store.root, Path(folder), {"judge": judge})
        assert written is not None  # a directory given: the reporter writes a file
        rows = json.loads(written.read_text(encoding="utf-8"))["judges"][judge]
    return tuple(ConfigVerdict(config_id=row["config_id"], total=_number(row["total"]),
                               editability=_number(row["editability"]),
                               capped=row["capped"], judged=row["judged"]) for row in rows)


def _number(value: float | None) -> float:
    """A JSON number back as a float; null (a mean of nothing) as NaN."""
    return float("nan") if value is None else float(value)
