"""``build_orbit``: sample papers, fetch their sources, pick each one's overview figure.

Order of work, all seeded: the (month, category) windows from ``start`` to ``end`` are shuffled;
each window draws one page of its listing at a random offset and shuffles it; papers are then
examined round-robin, one per window per pass, until ``n`` are accepted. A paper is examined once
(cross-lists are skipped), and the tasks are the accepted papers in examination order, so a smaller
``n`` yields a prefix of a larger one.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from refig.plugin import (
    FileRefused,
    RefigError,
    Refused,
    Suite,
    SuiteWriter,
    UsageError,
    cache_dir,
    confined_files,
    err,
    read_confined,
    track,
)

from refig_suite_orbit import latex
from refig_suite_orbit.arxiv import DEFAULT_URL, URL_ENV, Client, Entry, month_query
from refig_suite_orbit.evidence import MIN_HEIGHT, MIN_WIDTH, rank
from refig_suite_orbit.raster import GHOSTSCRIPT_HINT, RasterError, ghostscript, rasterise
from refig_suite_orbit.sources import SourceError, unpack

DEFAULT_CATEGORIES = ("cs.AI", "cs.CL", "cs.CV", "cs.LG")
START = date(2017, 6, 1)
SELECTION_FILE = "selection.jsonl"
METADATA_FILES = ("metadata.jsonl", "metadata.json")
MAX_METADATA_BYTES = 64 << 20
PACKAGE_RE = re.compile(r"^(?P<id>.+?)v(?P<v>\d+)\.(?:tar\.gz|tgz|tar|gz|pdf|bin)$")


def parse_month(text: str) -> date:
    try:
        return datetime.strptime(text, "%Y-%m").date()
    except ValueError:
        raise UsageError(f"month {text!r} is not YYYY-MM (e.g. 2017-06)") from None


def months(start: date, end: date) -> list[date]:
    found, current = [], start.replace(day=1)
    while current <= end:
        found.append(current)
        current = date(current.year + current.month // 12, current.month % 12 + 1, 1)
    return found


def default_cache() -> Path:
    return cache_dir() / "arxiv"


# --- candidates ---------------------------------------------------------------------------------


@dataclass
class Candidate:
    entry: Entry
    window: str
    url: str


class _Window:
    """One (category, month) listing, drawn lazily at a seeded random offset."""

    def __init__(self, category: str, month: date, seed: int, page_size: int):
        self.category, self.month, self.page_size = category, month, page_size
        self.rng = random.Random(f"orbit:{seed}:{category}:{month:%Y-%m}")
        self.entries: list[Entry] | None = None
        self.cursor = 0

    @property
    def label(self) -> str:
        return f"{self.category}/{self.month:%Y-%m}"

    def next(self, client: Client) -> Entry | None:
        if self.entries is None:
            query = month_query(self.category, self.month)
            first = client.listing(query, 0, self.page_size)
            page = first
            if first.total > self.page_size:
                offset = self.rng.randrange(first.total - self.page_size + 1)
                if offset:
                    page = client.listing(query, offset, self.page_size)
            self.entries = list(page.entries)
            self.rng.shuffle(self.entries)
        if self.cursor >= len(self.entries):
            return None
        self.cursor += 1
        return self.entries[self.cursor - 1]


def remote_candidates(client: Client, categories: list[str], span: list[date], seed: int,
                      page_size: int) -> Iterator[Candidate]:
    windows = [_Window(c, m, seed, page_size) for m in span for c in categories]
    random.Random(f"orbit:{seed}").shuffle(windows)
    while windows:
        for window in list(windows):
            entry = window.next(client)
            if entry is None:
                windows.remove(window)
                continue
            yield Candidate(entry, window.label, client.source_url(entry))


def _local_metadata(folder: Path) -> dict[str, dict[str, Any]]:
    for name in METADATA_FILES:
        path = folder / name
        if path.is_file() or path.is_symlink():
            try:
                text = read_confined(path, folder, max_bytes=MAX_METADATA_BYTES).decode("utf-8")
            except FileRefused as exc:
                raise RefigError(f"refused: {exc}", fix="replace the link with the file itself, "
                                 "or remove it") from None
            try:
                rows = ([json.loads(line) for line in text.splitlines() if line.strip()]
                        if name.endswith("l") else json.loads(text))
                return {f"{r['id']}v{r['version']}": r for r in rows}
            except (ValueError, KeyError, TypeError) as exc:
                raise RefigError(
                    f"cannot read {name}: {type(exc).__name__}: {exc}", path=path,
                    fix="give one JSON object per paper with at least `id` and `version`",
                ) from exc
    return {}


def local_packages(folder: Path) -> tuple[list[Path], list[Refused]]:
    """The packages directly in ``folder`` (regular files only), and the links and special files
    among them refused: a link is never followed, so no file from elsewhere becomes a task."""
    kept, refused = confined_files(folder)
    return ([p for p in kept if p.parent == folder and PACKAGE_RE.match(p.name)],
            [r for r in refused if r.path.parent == folder
             and (PACKAGE_RE.match(r.path.name) or r.path.name in METADATA_FILES)])


def local_candidates(folder: Path, packages: list[Path], categories: list[str], span: list[date],
                     seed: int) -> Iterator[tuple[Candidate, Path]]:
    """Packages named ``<id>v<N>.tar.gz`` (``.tgz``, ``.tar``, ``.gz``, ``.pdf``) in a folder
    (see :func:`local_packages`), with optional ``metadata.jsonl`` rows (id, version, title,
    license, categories, published)."""
    metadata = _local_metadata(folder)
    packages = sorted(packages)
    random.Random(f"orbit:{seed}").shuffle(packages)
    first, last = span[0], span[-1]
    for path in packages:
        match = PACKAGE_RE.match(path.name)
        assert match is not None
        arxiv_id = match["id"].replace("_", "/")
        row = metadata.get(f"{arxiv_id}v{match['v']}", {})
        cats = tuple(row.get("categories") or ())
        if cats and not set(cats) & set(categories):
            continue
        published = str(row.get("published") or "")
        if published[:7] and not (f"{first:%Y-%m}" <= published[:7] <= f"{last:%Y-%m}"):
            continue
        entry = Entry(arxiv_id=arxiv_id, version=int(match["v"]), title=row.get("title", ""),
                      published=published, categories=cats,
                      primary_category=row.get("primary_category", cats[0] if cats else ""),
                      license=row.get("license") or "unreported")
        window = next((c for c in cats if c in categories), "local")
        yield Candidate(entry, window, f"file:{path.name}"), path


# --- one paper ----------------------------------------------------------------------------------


@dataclass
class Decision:
    accepted: bool
    reason: str
    detail: str = ""
    figure: dict[str, Any] | None = None
    raster: Any = None
    asset_sha256: str | None = None


def examine(data: bytes, dpi: int) -> Decision:
    """Unpack a source package, rank its figures and apply the gate."""
    try:
        files = unpack(data)
    except SourceError as exc:
        return Decision(False, exc.reason, exc.detail)
    main = latex.main_file(files)
    if main is None:
        return Decision(False, "no_tex", "no file with \\documentclass")
    text = latex.expand(files, main)
    found = latex.figures(text)
    if not found:
        return Decision(False, "no_figures")
    folders = latex.graphic_path(text)
    ranked = rank(found)
    passing = [(f, e) for f, e in ranked if e.passes]
    if not passing:
        top, evidence = ranked[0]
        return Decision(False, "no_overview_evidence", f"best caption: {top.caption[:160]!r}",
                        figure={"index": top.index, "caption": top.caption,
                                "evidence": evidence.as_json()})
    reason, detail = "", ""
    for figure, evidence in passing:
        described = {"index": figure.index, "env": figure.env, "label": figure.label,
                     "caption": figure.caption, "evidence": evidence.as_json(),
                     "score": evidence.score, "caption_score": evidence.caption_score}
        if len(figure.graphics) != 1:
            reason = "multi_graphic"
            detail = f"figure {figure.index + 1} has {len(figure.graphics)} graphics"
            continue
        path = latex.resolve_graphic(files, figure.graphics[0].path, folders,
                                     posixpath.dirname(main))
        if path is None:
            reason, detail = "asset_missing", figure.graphics[0].path
            continue
        try:
            raster = rasterise(path, files[path], dpi)
        except RasterError as exc:
            reason, detail = exc.reason, exc.detail
            continue
        if raster.width < MIN_WIDTH or raster.height < MIN_HEIGHT:
            reason, detail = "too_small", f"{raster.width}x{raster.height}"
            continue
        described |= {"source_path": path, "include": figure.graphics[0].path,
                      "include_options": figure.graphics[0].options}
        return Decision(True, "accepted", figure=described, raster=raster,
                        asset_sha256=hashlib.sha256(files[path]).hexdigest())
    return Decision(False, reason, detail)


def _task_id(entry: Entry) -> str:
    return "arxiv-" + re.sub(r"[^A-Za-z0-9.]+", "-", entry.arxiv_id) + f"v{entry.version}"


# --- the build ----------------------------------------------------------------------------------


def build_orbit(out: Path | str, *, n: int, seed: int,
                categories: list[str] | tuple[str, ...] = DEFAULT_CATEGORIES,
                source: str | None = None, cache: Path | None = None, start: date = START,
                end: date | None = None, page_size: int = 100, delay: float = 3.0,
                retries: int = 5, backoff: float = 2.0, dpi: int = 300,
                max_papers: int | None = None, created_at: datetime | None = None,
                quiet: bool = True) -> Suite:
    """Build the ORBIT suite of ``n`` overview figures (see the module docstring)."""
    if n < 1:
        raise UsageError("--n must be at least 1")
    categories = [c.strip() for c in categories if c.strip()]
    if not categories:
        raise UsageError("--categories names no category")
    span = months(start, end or date.today())
    if not span:
        raise UsageError("--end lies before --start")
    limit = max_papers or n * 50
    local = Path(source) if source and not re.match(r"^https?://", source) else None
    if local is not None and not local.is_dir():
        raise UsageError(f"--source {source} is neither an http(s) URL nor a folder")
    base_url = None if local else (source or os.environ.get(URL_ENV) or DEFAULT_URL)
    if ghostscript() is None and not quiet:
        err.print(f"[yellow]note:[/] {GHOSTSCRIPT_HINT}")
    params: dict[str, Any] = {
        "n": n, "seed": seed, "categories": categories, "start": f"{start:%Y-%m}",
        "end": f"{span[-1]:%Y-%m}", "source": base_url or f"local:{local.name}",
        "page_size": page_size, "dpi": dpi,
    }
    description = (f"ORBIT: {n} overview figures from arXiv {', '.join(categories)} "
                   f"({span[0]:%Y-%m} to {span[-1]:%Y-%m}), seed {seed}")
    writer = SuiteWriter(out, name="orbit", family="figure-to-slide", builder="orbit",
                         params=params, created_at=created_at, description=description)
    client = Client(base_url or "", cache or default_cache(), delay=delay, retries=retries,
                    backoff=backoff)
    refused: list[Refused] = []
    if local is not None:
        packages, refused = local_packages(local)
        for item in refused:
            err.print(f"[yellow]refused[/] {item.path.name}: {item.reason} (not followed)")
        pairs = local_candidates(local, packages, categories, span, seed)
        stream: Iterator[tuple[Candidate, Any]] = pairs
    else:
        stream = ((c, None) for c in remote_candidates(client, categories, span, seed, page_size))
    log: list[dict[str, Any]] = []
    seen: set[str] = set()
    accepted = 0
    with track("selecting overview figures", n, quiet=quiet) as tracker:
        for candidate, path in stream:
            if accepted >= n or len(log) >= limit:
                break
            entry = candidate.entry
            if entry.arxiv_id in seen:
                continue
            seen.add(entry.arxiv_id)
            if path is not None:
                try:
                    data = read_confined(path, local, max_bytes=client.max_source_bytes)
                except FileRefused as exc:  # swapped for a link since it was listed, or too big
                    refused.append(Refused(path, str(exc)))
                    err.print(f"[yellow]refused[/] {exc}")
                    continue
            else:
                data = client.source(entry)
            decision = examine(data, dpi)
            record: dict[str, Any] = {
                "arxiv_id": entry.arxiv_id, "version": entry.version, "window": candidate.window,
                "title": entry.title, "license": entry.license, "decision": decision.reason,
                "detail": decision.detail, "source_sha256": hashlib.sha256(data).hexdigest(),
            }
            if decision.figure is not None:
                record["figure"] = decision.figure
            log.append(record)
            if not decision.accepted:
                continue
            raster, figure = decision.raster, decision.figure or {}
            task_id = _task_id(entry)
            meta = {
                "arxiv_id": entry.arxiv_id, "version": entry.version,
                "versioned_id": entry.versioned, "title": entry.title,
                "published": entry.published, "categories": list(entry.categories),
                "primary_category": entry.primary_category,
                "field": candidate.window.split("/")[0],
                "window": candidate.window, "license": entry.license,
                "source_url": candidate.url, "source_package_sha256": record["source_sha256"],
                "source_path": figure["source_path"], "include": figure["include"],
                "caption": figure["caption"], "label": figure["label"],
                "figure_index": figure["index"], "evidence": figure["evidence"],
                "score": figure["score"], "asset_sha256": decision.asset_sha256,
                "converted_from": raster.converted_from,
                "width": raster.width, "height": raster.height,
            }
            writer.add(task_id, f"{task_id}.{raster.extension}", raster.data, meta=meta,
                       cluster=task_id)
            accepted += 1
            tracker.finish()
    reasons = Counter(r["decision"] for r in log)
    writer.set_params(examined=len(log), accepted=accepted,
                      **({"refused": [{"path": r.path.name, "reason": r.reason}
                                      for r in refused]} if local is not None else {}),
                      rejected=dict(sorted((k, v) for k, v in reasons.items() if k != "accepted")),
                      requests=client.requests)
    lines = "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in log)
    (Path(out) / SELECTION_FILE).write_text(lines, encoding="utf-8")
    if accepted == 0:
        raise RefigError(
            f"no paper passed the gate after examining {len(log)}: {dict(reasons)}",
            path=Path(out) / SELECTION_FILE,
            fix="widen --categories or the --start/--end months, or raise --max-papers",
        )
    if accepted < n and not quiet:
        err.print(f"[yellow]only {accepted} of {n} papers passed the gate[/] after examining "
                  f"{len(log)}; see {Path(out) / SELECTION_FILE}")
    return writer.finish()
