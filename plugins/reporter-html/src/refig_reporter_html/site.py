"""The site: every page and file of a run's report, by relative path.

One code path for both uses: ``refig report --html DIR`` asks for every path and writes the
answers to disk; ``refig view`` asks for the path a browser requested. Paths are matched against
fixed patterns (ids by slug, objects by sha256), never joined onto a directory.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Protocol

from refig_reporter_html.images import difference, thumbnail
from refig_reporter_html.objects import ObjectError, VerifiedObjects, content_type
from refig_reporter_html.pages import PageBuilder
from refig_reporter_html.plots import plots
from refig_reporter_html.rows import sample_rows
from refig_reporter_html.slugs import slug
from refig_reporter_html.snapshot import LiveRun, Snapshot

HTML = "text/html; charset=utf-8"
ASSETS = {"style.css": "text/css; charset=utf-8", "viewer.js": "text/javascript; charset=utf-8"}
#: Stands in for a page's digest while it is rendered.
DIGEST = "@@refig-page-digest@@"
#: Derived pictures kept in memory by the live viewer (thumbnails, difference images).
CACHED_PICTURES = 512
#: Task pages kept in memory per snapshot.
CACHED_PAGES = 128


class NotFound(LookupError):
    """No page or file at this path."""


@dataclass(frozen=True)
class Resource:
    """What a path holds: bytes (or a verified object's file), their media type, and how a
    browser may keep it: ``immutable`` for content-addressed files and pictures, ``revalidate``
    (by ETag) for pages and rows, ``never`` for the change token."""

    body: bytes | Path
    content_type: str
    cache: Literal["immutable", "revalidate", "never"] = "revalidate"


def environment() -> Any:
    """The jinja2 environment: package templates, autoescaping on, undefined names an error."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("refig_reporter_html", "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def rows_script(document: dict[str, Any]) -> bytes:
    """The rows as a script a static page loads (a file:// page cannot fetch JSON). ``<`` and
    the line separators are escaped so no string can end the script or break the line."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.REFIG_ROWS = {text};\n".encode()


class _State:
    """What is built once per snapshot: object access, page data, rows, derived pictures."""

    def __init__(self, snap: Snapshot):
        self.snap = snap
        self.objects = VerifiedObjects(snap.data.store.objects, snap.objects)
        self.builder = PageBuilder(snap, self.objects)
        self._rows: dict[str, Any] | None = None
        self.rows_json = b""
        self.rows_js = b""
        self.pictures: OrderedDict[str, bytes] = OrderedDict()
        self.pages: OrderedDict[str, Resource] = OrderedDict()
        self.lock = threading.Lock()

    def rows(self) -> dict[str, Any]:
        """The sample list; a thumbnail only where the object is a picture (a deck is not)."""
        with self.lock:
            if self._rows is None:
                document = sample_rows(self.snap.context)
                for row in document["rows"]:
                    for key in ("source", "result"):
                        row[key] = row[key] if self.objects.is_picture(row[key]) else None
                self._rows = document
                self.rows_json = json.dumps(document, ensure_ascii=False).encode()
                self.rows_js = rows_script(document)
            return self._rows

    def encoded_rows(self) -> tuple[bytes, bytes]:
        """The rows as JSON and as the static pages' script, encoded once per snapshot."""
        self.rows()
        return self.rows_json, self.rows_js


def asset(name: str) -> Resource:
    """The stylesheet or the script, from the package."""
    body = resources.files("refig_reporter_html").joinpath(f"static/{name}").read_bytes()
    return Resource(body, ASSETS[name])


class Pages(Protocol):
    """What the server asks of a site: one run's (:class:`Site`) or a folder's."""

    live: bool

    def get(self, path: str) -> Resource: ...


def render_page(env: Any, template: str, *, token: str, **context: Any) -> Resource:
    """A page from its template; ``context`` holds what ``base.html`` reads (``root``, ``live``,
    ``run_name``, ``primary``, ``home``) and the page's own data."""
    html = env.get_template(template).render(
        token=token, generated_at=datetime.now(UTC), slug=slug, digest=DIGEST, **context)
    # The page's own digest (the run's token left out) lets a live page reload only when
    # what it shows changed, not whenever anything in the run did.
    digest = hashlib.sha256(html.replace(token, "").encode()).hexdigest()[:16]
    return Resource(html.replace(DIGEST, digest, 1).encode(), HTML)


class Site:
    """Answers paths from the current snapshot (``live`` adds the polling script's endpoints).

    In a collection, ``name`` is the run's name there and ``home`` the way from the run's pages
    to the collection's (``../../``), which their navigation links to; ``note`` is shown atop
    every page (why the run's main judge is not the one ``--judge`` asked for)."""

    def __init__(self, current: Callable[[], Snapshot], *, live: bool, name: str | None = None,
                 home: str | None = None):
        self.current = current
        self.live = live
        self.name = name
        self.home = home
        self.note: str | None = None
        self.env = environment()
        self._states: OrderedDict[int, _State] = OrderedDict()
        self._lock = threading.Lock()

    def state(self) -> _State:
        return self.prepare(self.current())

    def prepare(self, snap: Snapshot) -> _State:
        """The per-snapshot state, built (rows, lookups) the first time a snapshot is seen."""
        with self._lock:
            found = self._states.get(id(snap))
            if found is not None and found.snap is snap:
                return found
        state = _State(snap)
        state.rows()
        _ = snap.current_ids, snap.votes, snap.tasks_by_slug, snap.configs_by_slug
        with self._lock:
            self._states[id(snap)] = state
            while len(self._states) > 2:  # the one served and the one being made
                self._states.popitem(last=False)
        return state

    # --- routing --------------------------------------------------------------------------------

    def get(self, path: str) -> Resource:
        """The resource at a relative path (``index.html``, ``tasks/<slug>.html``, ...)."""
        state = self.state()
        path = path.lstrip("/") or "index.html"
        for pattern, handler in self._routes():
            match = re.fullmatch(pattern, path)
            if match:
                return handler(state, *match.groups())
        raise NotFound(path)

    def _routes(self) -> list[tuple[str, Callable[..., Resource]]]:
        routes: list[tuple[str, Callable[..., Resource]]] = [
            (r"index\.html", self._list),
            (r"summary\.html", self._summary),
            (r"configs/([A-Za-z0-9._-]+)\.html", self._config),
            (r"tasks/([A-Za-z0-9._-]+)\.html", self._task),
            (r"data/rows\.js", lambda s: Resource(s.encoded_rows()[1], ASSETS["viewer.js"])),
            (r"assets/(style\.css|viewer\.js)", self._asset),
            (r"files/([0-9a-f]{64})", self._file),
            (r"img/thumb/([0-9a-f]{64})\.png", self._thumb),
            (r"img/diff/([0-9a-f]{64})-([0-9a-f]{64})\.png", self._diff),
        ]
        if self.live:
            routes += [
                (r"api/rows\.json", lambda s: Resource(s.encoded_rows()[0],
                                                         "application/json")),
                (r"api/token", lambda s: Resource(
                    json.dumps({"token": s.snap.token}).encode(), "application/json", "never")),
            ]
        return routes

    def paths(self) -> Iterator[str]:
        """Every page of the static site; then every file and picture those pages link."""
        state = self.state()
        data = state.snap.data
        yield from ("index.html", "summary.html", "data/rows.js", "assets/style.css",
                    "assets/viewer.js")
        yield from (f"configs/{slug(c)}.html" for c in data.config_order)
        yield from (f"tasks/{slug(t)}.html" for t in data.task_order)
        for row in state.rows()["rows"]:
            for sha in (row["source"], row["result"]):
                if sha:
                    state.builder.linked.add(f"img/thumb/{sha}.png")
        yield from sorted(state.builder.linked)

    # --- pages ----------------------------------------------------------------------------------

    def _render(self, state: _State, template: str, root: str, **context: Any) -> Resource:
        snap = state.snap
        return render_page(self.env, template, token=snap.token, root=root, live=self.live,
                           run_name=self.name or snap.data.root.name, home=self.home,
                           primary=snap.context.primary, note=self.note, **context)

    def _list(self, state: _State) -> Resource:
        data = state.snap.data
        return self._render(state, "list.html", "", tasks=len(data.task_order),
                            configs=data.config_order, samples=len(data.outcomes), runs=[])

    def _summary(self, state: _State) -> Resource:
        analysis = state.snap.analysis()
        return self._render(
            state, "summary.html", "", analysis=analysis, plots=plots(analysis),
            configs=[(c, state.builder.config_href(c)) for c in state.snap.data.config_order])

    def _config(self, state: _State, name: str) -> Resource:
        config_id = state.snap.configs_by_slug.get(name)
        if config_id is None:
            raise NotFound(name)
        return self._render(state, "config.html", "../", analysis=state.snap.analysis(),
                            **state.builder.config_page(config_id))

    def _task(self, state: _State, name: str) -> Resource:
        task_id = state.snap.tasks_by_slug.get(name)
        if task_id is None:
            raise NotFound(name)
        with state.lock:
            held = state.pages.get(name)
            if held is not None:
                state.pages.move_to_end(name)
        if held is None:  # a snapshot never changes: its task pages are built once
            held = self._render(state, "task.html", "../", **state.builder.task_page(task_id))
            with state.lock:
                state.pages[name] = held
                while len(state.pages) > CACHED_PAGES:
                    state.pages.popitem(last=False)
        return held

    def _asset(self, state: _State, name: str) -> Resource:
        return asset(name)

    # --- files and pictures ---------------------------------------------------------------------

    def _file(self, state: _State, sha: str) -> Resource:
        try:
            path = state.objects.path(sha)
        except ObjectError as exc:
            raise NotFound(str(exc)) from exc
        with path.open("rb") as handle:
            head = handle.read(16)
        return Resource(path, content_type(head), "immutable")

    def _picture(self, state: _State, key: str, make: Callable[[], bytes | None]) -> Resource:
        with state.lock:
            held = state.pictures.get(key)
            if held is not None:
                state.pictures.move_to_end(key)
                return Resource(held, "image/png", "immutable")
        made = make()
        if made is None:
            raise NotFound(key)
        with state.lock:
            state.pictures[key] = made
            while len(state.pictures) > CACHED_PICTURES:
                state.pictures.popitem(last=False)
        return Resource(made, "image/png", "immutable")

    def _thumb(self, state: _State, sha: str) -> Resource:
        path = state.objects.get(sha)
        if path is None:
            raise NotFound(sha)
        return self._picture(state, f"thumb-{sha}", lambda: thumbnail(path))

    def _diff(self, state: _State, source: str, result: str) -> Resource:
        a, b = state.objects.get(source), state.objects.get(result)
        if a is None or b is None:
            raise NotFound(f"{source}-{result}")

        def make() -> bytes | None:
            found = difference(a, b)
            return None if found is None else found[0]

        return self._picture(state, f"diff-{source}-{result}", make)


def live_site(source: LiveRun, *, name: str | None = None, home: str | None = None) -> Site:
    """The site of a live run: its first snapshot prepared now (the list's rows ready before the
    first visit), each later one prepared before it replaces the last."""
    site = Site(source.snapshot, live=True, name=name, home=home)
    source.prepare = site.prepare
    site.prepare(source.snapshot())
    return site
