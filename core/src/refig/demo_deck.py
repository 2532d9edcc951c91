"""The deck-edit step of ``refig demo``: a generated deck-edit suite, the ``identity`` and
``oracle`` baselines, the offline ``deck-metrics`` proxy judge, and what it showed.

Five edits, one per PPTArena category (a table cell, aligning boxes, a theme colour, transitions
on every slide, narration moved to notes before deleting its slide). The oracle returns each
target and must score IF 5; identity returns each original and must score IF 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from refig.console import err
from refig.errors import RefigError
from refig.pipeline import EvaluateRequest, evaluate
from refig.plugins import Registry
from refig.records import PluginKind
from refig.store import RunStore

RECIPES = ("table-cell", "align-steps", "theme-accent", "fade-transitions",
           "notes-then-delete-staging")
JUDGE = "deck-metrics"
IF_AXIS = "instruction_following"


@dataclass(frozen=True)
class DeckVerdict:
    """Mean IF and VQ (0-5) of each baseline under the proxy judge."""

    run: Path
    scores: dict[str, tuple[float, float, int]]

    def mean_if(self, harness: str) -> float:
        return self.scores[harness][0]


def run_deck_demo(registry: Registry, out: Path, *, jobs: int = 2,
                  quiet: bool = False) -> DeckVerdict:
    """Build the deck suite, run both baselines, evaluate with the proxy; return the verdict."""
    from refig.running.runner import execute, make_request

    if not quiet:
        err.rule("[bold]decks[/] deck-edit: identity and oracle on five generated edits",
                 align="left")
    suite, run = out / "deck-suite", out / "deck-run"
    registry.resolve(PluginKind.SUITE, "deck-sample").create()(
        suite, seed=0, recipes=RECIPES, quiet=quiet)
    for harness, options in (("identity", {}), ("oracle", {"suite": str(suite.resolve())})):
        request = make_request(registry, suite=suite, out=run, harness=harness,
                               workflow="direct", options=options, jobs=jobs)
        if execute(request, quiet=quiet).failed:
            raise RefigError(f"{harness} attempts failed", path=run,
                             fix="see the attempt logs with `refig export`")
    if evaluate(registry, EvaluateRequest(run=run, jobs=jobs, judges=(JUDGE,),
                                          quiet=quiet)).failures:
        raise RefigError("some deck evaluation steps failed", path=run,
                         fix=f"run `refig evaluate {run}` to retry them")
    return DeckVerdict(run=run, scores=_scores(RunStore.open(run)))


def _scores(store: RunStore) -> dict[str, tuple[float, float, int]]:
    """Per harness: mean IF, mean VQ and the number of judged decks."""
    from refig.models import Attempt, Configuration, Judgment, JudgmentStatus

    harness_of = {c.id: c.harness for c in store.iter(Configuration)}
    decks = {a.outputs.get("deck"): harness_of.get(a.config_id) for a in store.iter(Attempt)}
    found: dict[str, list[tuple[float, float]]] = {}
    for judgment in store.iter(Judgment):
        harness = decks.get(judgment.artifact_sha256)
        if harness and judgment.judge == JUDGE and judgment.status is JudgmentStatus.OK:
            axes = {s.axis: s.score for s in judgment.scores}
            found.setdefault(harness, []).append((axes[IF_AXIS], axes["visual_quality"]))
    return {h: (sum(i for i, _ in v) / len(v), sum(q for _, q in v) / len(v), len(v))
            for h, v in found.items()}
