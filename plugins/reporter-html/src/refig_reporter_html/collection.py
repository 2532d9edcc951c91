"""A folder of runs as one site: one sample list over every run (family and run as columns and
filters), each run's own pages under ``runs/<slug>/`` (task pages, summary, files), and a summary
with each run's plots. ``refig view DIR`` serves it live; ``refig report DIR --html`` writes it.

A run holds one suite, so one family; the demo writes one run per family, and this is how its
whole output is read at once (as ``inspect view`` opens a folder of logs).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from refig.plugin import RefigError, UsageError, err
from refig_toolkit_analysis import (
    find_runs,
    judge_notice,
    judges_of,
    run_name,
    runs_without,
)

from refig_reporter_html.fields import family_of
from refig_reporter_html.plots import plots
from refig_reporter_html.site import (
    ASSETS,
    NotFound,
    Resource,
    Site,
    asset,
    environment,
    live_site,
    render_page,
    rows_script,
)
from refig_reporter_html.slugs import slug
from refig_reporter_html.snapshot import LiveRun

#: How a run's pages reach the collection's: run pages sit at ``runs/<slug>/``.
HOME = "../../"
#: Seconds between looks for runs that appeared in the folder since (a demo still running).
SCAN_EVERY = 5.0


@dataclass(frozen=True)
class Member:
    """One run of the collection: its name (path in the folder), slug and site; ``note`` says
    when ``--judge`` did not judge it (its pages then use its own main judge)."""

    name: str
    slug: str
    site: Site
    note: str | None = None

    @property
    def base(self) -> str:
        return f"runs/{self.slug}/"

    def family(self) -> str:
        """The run's task family (a run holds one suite; several only if mixed by hand)."""
        data = self.site.state().snap.data
        found = sorted({family_of(data.tasks.get(t)) for t in data.task_order})
        return ", ".join(found) or "no tasks yet"


def member(folder: Path, run: Path, site_of: Callable[[str, str | None], Site],
           judge: str | None = None) -> Member:
    """The run's member: its site made with ``judge`` when ``judge`` judged the run, else with
    the run's own main judge, and then a note saying so (printed on stderr too)."""
    name = run_name(folder, run)
    if judge is None or judge in judges_of(run):
        try:
            return Member(name, slug(name), site_of(name, judge))
        except UsageError:  # judged only artifacts the run no longer shows
            if judge is None:
                raise
    note = judge_notice(judge, name)
    err.print(note, style="yellow", markup=False, highlight=False)
    site = site_of(name, None)
    site.note = note  # atop each of the run's own pages too
    return Member(name, slug(name), site, note)


def merged_rows(members: list[Member]) -> dict[str, Any]:
    """One sample list over every run: each row says its run and links into the run's pages; the
    judges, metrics and facets are the union; ``primary`` is "" when the runs' main judges differ
    (each row then carries its own)."""
    rows: list[dict[str, Any]] = []
    judges: dict[str, list[str]] = {}
    metrics: set[str] = set()
    facets: dict[str, set[str]] = {"run": set()}
    primaries: set[str | None] = set()
    for m in members:
        document = m.site.state().rows()
        primaries.add(document["primary"])
        for row in document["rows"]:
            rows.append({**row, "href": m.base + row["href"], "base": m.base, "run": m.name,
                         "primary": document["primary"]})
        for label, axes in document["judges"].items():
            held = judges.setdefault(label, [])
            held.extend(a for a in axes if a not in held)
        metrics.update(document["metrics"])
        for key, values in document["facets"].items():
            facets.setdefault(key, set()).update(values)
        facets["run"].add(m.name)
    return {
        "rows": rows,
        "judges": judges,
        "primary": next(iter(primaries)) if len(primaries) == 1 else "",
        "metrics": sorted(metrics),
        "facets": {key: sorted(values) for key, values in facets.items()},
    }


class CollectionSite:
    """Answers paths for a folder of runs, from the members ``current`` gives at each request."""

    def __init__(self, name: str, current: Callable[[], list[Member]], *, live: bool):
        self.name = name
        self.current = current
        self.live = live
        self.env = environment()
        self._lock = threading.Lock()
        self._rows: tuple[str, bytes, bytes] | None = None

    def token(self, members: list[Member]) -> str:
        """Changes when any run changed or a run appeared."""
        held = [f"{m.name}={m.site.state().snap.token}" for m in members]
        return hashlib.sha256("\n".join(held).encode()).hexdigest()[:24]

    def _encoded_rows(self, members: list[Member], token: str) -> tuple[bytes, bytes]:
        with self._lock:
            if self._rows is not None and self._rows[0] == token:
                return self._rows[1], self._rows[2]
        document = merged_rows(members)
        encoded = (token, json.dumps(document, ensure_ascii=False).encode(),
                   rows_script(document))
        with self._lock:
            self._rows = encoded
        return encoded[1], encoded[2]

    def get(self, path: str) -> Resource:
        """The resource at a relative path; ``runs/<slug>/...`` is answered by that run's site."""
        path = path.lstrip("/") or "index.html"
        members = self.current()
        found = re.fullmatch(r"runs/([A-Za-z0-9._-]+)/(.*)", path)
        if found:
            held = next((m for m in members if m.slug == found.group(1)), None)
            if held is None:
                raise NotFound(path)
            return held.site.get(found.group(2))
        if found := re.fullmatch(r"assets/(style\.css|viewer\.js)", path):
            return asset(found.group(1))
        token = self.token(members)
        if path == "index.html":
            return self._list(members, token)
        if path == "summary.html":
            return self._summary(members, token)
        if path == "data/rows.js":
            return Resource(self._encoded_rows(members, token)[1], ASSETS["viewer.js"])
        if self.live and path == "api/rows.json":
            return Resource(self._encoded_rows(members, token)[0], "application/json")
        if self.live and path == "api/token":
            return Resource(json.dumps({"token": token}).encode(), "application/json", "never")
        raise NotFound(path)

    def paths(self) -> Iterator[str]:
        """Every page of the static site: the collection's, then each run's under its slug."""
        yield from ("index.html", "summary.html", "data/rows.js", "assets/style.css",
                    "assets/viewer.js")
        for m in self.current():
            yield from (m.base + path for path in m.site.paths())

    def _page(self, template: str, members: list[Member], token: str,
              **context: Any) -> Resource:
        return render_page(self.env, template, token=token, root="", live=self.live,
                           run_name=f"{self.name} ({len(members)} runs)", home=None,
                           primary=None, **context)

    def _list(self, members: list[Member], token: str) -> Resource:
        datas = [m.site.state().snap.data for m in members]
        configs = sorted({c for d in datas for c in d.config_order})
        runs = [{"name": m.name, "href": m.base + "index.html", "family": m.family(),
                 "note": m.note} for m in members]
        return self._page("list.html", members, token,
                          tasks=sum(len(d.task_order) for d in datas), configs=configs,
                          samples=sum(len(d.outcomes) for d in datas), runs=runs)

    def _summary(self, members: list[Member], token: str) -> Resource:
        runs = []
        for m in members:
            snap = m.site.state().snap
            analysis = snap.analysis()
            runs.append({
                "name": m.name, "base": m.base, "family": m.family(), "analysis": analysis,
                "note": m.note,
                "means": analysis.table("means"), "plots": plots(analysis),
                "configs": [(c, f"{m.base}configs/{slug(c)}.html")
                            for c in snap.data.config_order],
            })
        return self._page("runs.html", members, token, runs=runs)


class LiveFolder:
    """The runs of a folder, each a :class:`LiveRun` served live, and runs that appear later
    (looked for at most every ``scan_every`` seconds)."""

    def __init__(self, folder: Path, *, judge: str | None = None, count_failures: bool = False,
                 check_every: float = 1.0, scan_every: float = SCAN_EVERY,
                 background: bool = True):
        self.folder = folder
        self.judge = judge
        self.count_failures = count_failures
        self.check_every = check_every
        self.scan_every = scan_every
        self.background = background
        self._members: dict[Path, Member] = {}
        self._unreadable: dict[Path, str] = {}
        self._lock = threading.Lock()
        self._scanned = time.monotonic()
        runs_without(folder, find_runs(folder), judge)  # exit 2 when judge judged none of them
        self._scan()

    def _open(self, run: Path, name: str, judge: str | None) -> Site:
        source = LiveRun(run, judge=judge, count_failures=self.count_failures,
                         check_every=self.check_every, background=self.background)
        return live_site(source, name=name, home=HOME)

    def _scan(self) -> None:
        for run in find_runs(self.folder):
            if run in self._members:
                continue
            try:
                self._members[run] = member(self.folder, run,
                                            lambda n, j, r=run: self._open(r, n, j), self.judge)
            except (RefigError, sqlite3.DatabaseError) as exc:
                # a run still being created, or damaged: the next look retries; said once
                if self._unreadable.get(run) != str(exc):
                    self._unreadable[run] = str(exc)
                    err.print(f"viewer: {run} is left out until it can be read: {exc}",
                              markup=False, highlight=False)

    def members(self) -> list[Member]:
        """The runs found so far, in name order."""
        with self._lock:
            if time.monotonic() - self._scanned >= self.scan_every:
                self._scanned = time.monotonic()
                self._scan()
            return sorted(self._members.values(), key=lambda m: m.name)
