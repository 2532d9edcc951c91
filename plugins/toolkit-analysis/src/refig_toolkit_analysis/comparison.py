"""Two runs' environments side by side (``refig compare RUN_A RUN_B``): every entry that
differs, and which of their numbers can be compared.

A stage's entries are the union over its recorded environments (a run evaluated on two machines
holds two values for an entry). Numbers are comparable when everything they were made from is
equal in both runs: the suite for all; the renderings for every metric and judge (they measure
or are shown them); a metric's own entries (its version, its model files); a judge's own entries
(its model and options, its prompt), the rubric and the models the provider reported.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from refig.models import Judgment
from refig.provenance import environments
from refig.store import RunStore

#: One run's entries: stage -> entry -> every value recorded.
Entries = dict[str, dict[str, set[str]]]


@dataclass(frozen=True)
class Difference:
    """One entry whose values differ between the runs (None: not recorded there)."""

    stage: str
    entry: str
    a: str | None
    b: str | None


@dataclass(frozen=True)
class Verdict:
    """Whether one group of numbers can be compared across the runs, and why not."""

    numbers: str
    comparable: bool
    why: str = ""


@dataclass
class Comparison:
    """What differs between two runs and what that means for their numbers."""

    differences: list[Difference] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"differences": [vars(d) for d in self.differences],
                "numbers": [vars(v) for v in self.verdicts]}


def entries(store: RunStore) -> Entries:
    """Every value each entry of each stage took, with the provider-reported judge models as
    ``judge.<label>.reported_model`` entries of the judge stage."""
    found: Entries = defaultdict(lambda: defaultdict(set))
    for env in environments(store):
        for entry, value in env.entries.items():
            found[env.stage][entry].add(value)
    for judgment in store.iter(Judgment):
        if judgment.model:
            found["judge"][f"judge.{judgment.judge}.reported_model"].add(judgment.model)
    return found


def _owns(prefix: str, entry: str) -> bool:
    """Whether ``entry`` is one of the component ``prefix``'s own (``judge.gpt-5.``'s entries
    are not ``judge.gpt-5.4.key``); every entry for the empty prefix."""
    return entry.startswith(prefix) and "." not in entry[len(prefix):] if prefix else True


def _joined(values: set[str] | None) -> str | None:
    return None if not values else " | ".join(sorted(values))


def compare_runs(a: RunStore, b: RunStore) -> Comparison:
    """Compare the environments of two runs."""
    left, right = entries(a), entries(b)
    comparison = Comparison()
    for stage in sorted({*left, *right}):
        keys = sorted({*left.get(stage, {}), *right.get(stage, {})})
        for entry in keys:
            x, y = left.get(stage, {}).get(entry), right.get(stage, {}).get(entry)
            if x != y:
                comparison.differences.append(Difference(stage, entry, _joined(x), _joined(y)))
    changed = {(d.stage, d.entry) for d in comparison.differences}

    def why(stage: str, prefix: str = "") -> str:
        """What blocks comparing numbers that depend on ``stage`` entries under ``prefix``."""
        if stage not in left or stage not in right:
            return f"the {stage} stage is not recorded in run {'A' if stage not in left else 'B'}"
        found = sorted(e for s, e in changed if s == stage and _owns(prefix, e))
        for name, run in (("A", left), ("B", right)):
            mixed = sorted(e for e, v in run[stage].items() if _owns(prefix, e) and len(v) > 1)
            if mixed:
                return (f"run {name} holds the {stage} stage from several environments, so its "
                        f"own numbers mix them: {', '.join(mixed)} took several values")
        return ", ".join(found) + (" differs" if len(found) == 1 else " differ") if found else ""

    base = [w for w in (why("suite"), why("render")) if w]
    # every metric reports its version and every judge its key: what names them
    for kind, stage, last in (("metric", "measure", ".version"), ("judge", "judge", ".key")):
        named = {e for run in (left, right) for e in run.get(stage, {})}
        names = sorted(e[len(kind) + 1:-len(last)] for e in named
                       if e.startswith(f"{kind}.") and e.endswith(last))
        for name in names:
            own = why(stage, f"{kind}.{name}.")
            if kind == "judge" and ("judge", "rubric.sha256") in changed:
                own = ", ".join(filter(None, (own, "the rubric differs")))
            blocks = [*base, own] if own else base
            comparison.verdicts.append(Verdict(f"{kind} {name}", not blocks, "; ".join(blocks)))
    return comparison
