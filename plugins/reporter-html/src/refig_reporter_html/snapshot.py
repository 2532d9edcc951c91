"""The run as the pages see it at one moment, and a live source of such moments.

``refig report --html`` builds one :class:`Snapshot` from the analysis it was given; ``refig view``
holds a :class:`LiveRun` that opens the store read-only and reads it again whenever the store's
fingerprint (row counts and newest write per table) changes, so pages follow a run in progress.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from refig.plugin import Judgment, err
from refig_toolkit_analysis import (
    Analysis,
    Context,
    Options,
    Outcome,
    Preference,
    RunData,
    RunStore,
    analyse,
    judge_labels,
)

from refig_reporter_html.fields import input_shas, pages, render_log
from refig_reporter_html.slugs import slug

#: Bootstrap resamples of the viewer's summary page (the static report keeps `refig report`'s).
LIVE_RESAMPLES = 1000


@dataclass
class Snapshot:
    """One reading of the run: its data, judge scores, lookups by slug, and the analysis."""

    token: str
    context: Context
    given: Analysis | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def data(self) -> RunData:
        return self.context.data

    def analysis(self) -> Analysis:
        """The report's tables (computed on first use: the list and task pages do not need it)."""
        with self._lock:
            if self.given is None:
                self.given = analyse(self.data.store, self.context.options)
            return self.given

    @cached_property
    def tasks_by_slug(self) -> dict[str, str]:
        return {slug(t): t for t in self.data.task_order}

    @cached_property
    def configs_by_slug(self) -> dict[str, str]:
        return {slug(c): c for c in self.data.config_order}

    @cached_property
    def current_ids(self) -> dict[str, set[int]]:
        """The ids of each judge label's current judgments (:func:`judge_labels`)."""
        return {label: {id(j) for j in judged}
                for label, judged in judge_labels(self.data).items()}

    def judgments(self, label: str, outcome: Outcome) -> list[Judgment]:
        """The current judgments of ``label`` on this outcome's own inputs, repeats in order."""
        current = self.current_ids.get(label, set())
        return sorted((j for j in outcome.judgments if id(j) in current), key=lambda j: j.repeat)

    @cached_property
    def votes(self) -> dict[str, list[Preference]]:
        found: dict[str, list[Preference]] = defaultdict(list)
        for p in sorted(self.data.preferences, key=lambda p: p.created_at):
            found[p.task_id].append(p)
        return dict(found)

    @cached_property
    def objects(self) -> dict[str, str]:
        """Every object the run refers to, with the role it plays (what a download may name)."""
        data = self.data
        known: dict[str, str] = {}
        for task in data.tasks.values():
            for role, sha in input_shas(task).items():
                known.setdefault(sha, role)
        for attempt in data.attempts:
            for role, sha in attempt.outputs.items():
                known.setdefault(sha, role)
        for renders in data.renders.values():
            for render in renders:
                for page in pages(render):
                    known.setdefault(page.sha256, "page")
                if (log := render_log(render)) is not None:
                    known.setdefault(log, "render-log")
        for references in data.metrics.values():  # pictures a metric kept (edit probes')
            for values in references.values():
                for value in values.values():
                    for sha in value.detail.get("objects") or ():
                        known.setdefault(sha, "metric-picture")
        return known


def snapshot_of(analysis: Analysis) -> Snapshot:
    """The snapshot of an analysis ``refig report`` already made."""
    return Snapshot("static", analysis.context, analysis)


class LiveRun:
    """A run read-only, read again when its fingerprint changes (checked at most once every
    ``check_every`` seconds).

    With ``background`` the new reading is made in a thread while requests keep the previous
    one (reading a run of 10,000 artifacts takes seconds), and ``prepare`` (the site's warm-up:
    the list's rows, the lookups) runs on it before it replaces the old one.
    """

    def __init__(self, root: Path, *, judge: str | None = None, count_failures: bool = False,
                 judge_run: int | None = None, check_every: float = 1.0,
                 background: bool = True):
        self.store = RunStore.open(root, readonly=True)
        self.options = Options(judge=judge, resamples=LIVE_RESAMPLES, elo_resamples=200,
                               count_failures=count_failures, judge_run=judge_run)
        self.check_every = check_every
        self.background = background
        self.prepare: Callable[[Snapshot], None] = lambda _: None
        self._lock = threading.Lock()
        self._checked = 0.0
        self._reloading = False
        self._current = self._read(self.store.fingerprint())

    def _read(self, token: str) -> Snapshot:
        context = Context(RunData.load(self.store, judge_run=self.options.judge_run),
                          self.options)
        _ = context.primary  # an unknown --judge (or --judge-run) fails here, before serving
        return Snapshot(token, context)

    def snapshot(self) -> Snapshot:
        """The latest complete snapshot; starts reading a new one when something landed."""
        with self._lock:
            now = time.monotonic()
            if self._reloading or now - self._checked < self.check_every:
                return self._current
            self._checked = now
            token = self.store.fingerprint()
            if token == self._current.token:
                return self._current
            self._reloading = True
        if not self.background:
            self._reload(token)
            return self._current
        threading.Thread(target=self._reload, args=(token,), daemon=True).start()
        return self._current

    def _reload(self, token: str) -> None:
        try:
            snap = self._read(token)
            self.prepare(snap)
            with self._lock:
                self._current = snap
        except Exception as exc:  # keep serving the last good reading; the next check retries
            err.print(f"viewer: could not read {self.store.root} again: {exc}")
        finally:
            with self._lock:
                self._reloading = False
