"""Choosing judges: ``--judge`` selectors and the ``--judge-opt`` meant for each judge."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from refig.errors import UsageError
from refig.models import stable_hash
from refig.plugins import Registry, Selection, distribution_version
from refig.protocols import Judge
from refig.records import PluginKind
from refig.running.redact import option_secrets
from refig.traffic import RetryPolicy

#: ``--judge-opt`` keys the stage keeps for itself instead of passing them to the judge: each
#: with its type and least value (RetryPolicy's calls per judgment and first backoff step).
STAGE_OPTIONS: dict[str, tuple[type[int] | type[float], float]] = {
    "attempts": (int, 1),
    "backoff": (float, 0.0),
}


@dataclass(frozen=True)
class JudgeOption:
    """One ``--judge-opt [JUDGE:]KEY=VALUE``; ``scope`` limits it to one judge."""

    scope: str | None
    key: str
    value: str


def parse_judge_options(pairs: Iterable[str]) -> list[JudgeOption]:
    """Parse ``KEY=VALUE`` or ``JUDGE:KEY=VALUE`` (``JUDGE`` as in ``--judge``)."""
    options = []
    for pair in pairs:
        head, sep, value = pair.partition("=")
        scope, _, key = head.rpartition(":")
        if not sep or not key.strip():
            raise UsageError(
                f"--judge-opt {pair!r} is not KEY=VALUE",
                fix="write --judge-opt temperature=0 or --judge-opt qwen:api_base=http://...",
            )
        options.append(JudgeOption(scope.strip() or None, key.strip(), value))
    return options


@dataclass(frozen=True)
class SelectedJudge:
    """A judge ready to run: the label stored in ``Judgment.judge``, the judge, its retry policy."""

    label: str
    judge: Judge
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    #: The registry selection it was built from (its record says which families it serves).
    selection: Selection | None = None
    #: Credential values among its ``--judge-opt`` (``api_key``): masked in all it stores.
    secrets: Mapping[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """The cache key of its judgments: the judge's own key and its plugin's version, so a
        new release of a judge's code judges again instead of reusing stale scores."""
        if self.selection is None:
            return self.judge.key
        version = distribution_version(self.selection.distribution)
        return stable_hash({"judge": self.judge.key, "plugin": self.selection.distribution,
                            "version": version})


def is_deterministic(judge: Judge) -> bool:
    """True for a judge whose scores are a function of its inputs (``deterministic = True``)."""
    return judge.deterministic


def select_judges(
    registry: Registry, selectors: Sequence[str], options: Iterable[str] = ()
) -> list[SelectedJudge]:
    """Resolve ``--judge`` selectors and build each judge with the ``--judge-opt`` meant for it."""
    parsed = parse_judge_options(options)
    chosen: list[SelectedJudge] = []
    used: set[str] = set()
    taken: set[str] = set()  # option keys some selected judge reads
    accepting: list[tuple[str, frozenset[str] | None]] = []
    for selector in selectors:
        selection = registry.resolve(PluginKind.JUDGE, selector)
        names = {selector, selection.label, *selection.record.names}
        mine: dict[str, str] = {}
        for option in parsed:
            if option.scope is None or option.scope in names:
                mine[option.key] = option.value
                if option.scope:
                    used.add(option.scope)
        stage: dict[str, Any] = {}  # RetryPolicy fields, each of its STAGE_OPTIONS type
        for key, (cast, least) in STAGE_OPTIONS.items():
            if key in mine:
                try:
                    stage[key] = cast(mine.pop(key))
                except ValueError as exc:
                    raise UsageError(f"--judge-opt {key} must be a number: {exc}") from exc
                if stage[key] < least:
                    raise UsageError(
                        f"--judge-opt {key} must be at least {least:g}, not {stage[key]}"
                    )
        secrets = option_secrets(mine, f"JUDGE_OPT_{selection.label}:")
        judge = selection.create(**mine)
        label = judge.label or selection.label
        accepts = accepted_options(judge)
        accepting.append((label, accepts))
        taken |= set(mine) if accepts is None else set(mine) & accepts
        if any(c.judge.key == judge.key for c in chosen):
            continue
        chosen.append(SelectedJudge(label, judge, RetryPolicy(**stage), selection, secrets))
    unknown = {o.scope for o in parsed if o.scope} - used
    if unknown:
        raise UsageError(
            f"--judge-opt names judges that are not selected: {', '.join(sorted(unknown))}",
            fix="prefix an option with a judge given to --judge, e.g. qwen:api_base=URL",
        )
    ignored = sorted({o.key for o in parsed} - taken - set(STAGE_OPTIONS))
    if ignored:
        readers = "; ".join(
            f"{label} accepts " + (", ".join(sorted(keys)) if keys else "no options")
            for label, keys in accepting if keys is not None
        )
        raise UsageError(
            f"--judge-opt {', '.join(ignored)}: no selected judge accepts "
            + ("it" if len(ignored) == 1 else "them"),
            fix=f"{readers}; every judge accepts {', '.join(STAGE_OPTIONS)} (the judging stage)",
        )
    return chosen


def accepted_options(judge: Judge) -> frozenset[str] | None:
    """The ``--judge-opt`` keys a judge reads (its ``accepts``); None: it checks its own."""
    return None if judge.accepts is None else frozenset(judge.accepts)
