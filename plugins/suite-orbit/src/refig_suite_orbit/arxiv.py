"""A polite arXiv client: the query API (Atom) and source packages at pinned versions.

Politeness: at most one request per ``delay`` seconds (arXiv asks for three), retries with
exponential backoff on 429, 5xx, throttling bodies and dropped connections, honouring
``Retry-After``; every response is cached on disk (written atomically), so an interrupted build
resumes without fetching anything twice. The Atom feed is parsed with a hardened lxml parser (no
entities, no DTD, no network, bounded size).
"""

from __future__ import annotations

import email.utils
import hashlib
import os
import re
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

from lxml import etree
from refig.plugin import RefigError

DEFAULT_URL = "https://export.arxiv.org"
URL_ENV = "REFIG_ARXIV_URL"
NS = {"atom": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom",
      "opensearch": "http://a9.com/-/spec/opensearch/1.1/"}
ID_RE = re.compile(r"(?:abs|pdf)/(?P<id>[a-z\-]+(?:\.[A-Z]{2})?/\d{7}|\d{4}\.\d{4,5})v(?P<v>\d+)$")
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_FEED_BYTES = 20_000_000
USER_AGENT = "refig-orbit/0.1 (+https://github.com/refig; research benchmark builder)"


class ArxivError(RefigError):
    """The arXiv API or a download failed for good."""


@dataclass(frozen=True)
class Entry:
    """One paper of a listing, at the version the listing names."""

    arxiv_id: str
    version: int
    title: str
    published: str
    categories: tuple[str, ...]
    primary_category: str
    license: str

    @property
    def versioned(self) -> str:
        return f"{self.arxiv_id}v{self.version}"


@dataclass
class Listing:
    total: int
    entries: list[Entry]


def _text(node: etree._Element | None) -> str:
    return " ".join((node.text or "").split()) if node is not None else ""


def parse_feed(data: bytes) -> Listing:
    """Entries of an Atom feed; arXiv's error entries and throttling bodies raise."""
    if len(data) > MAX_FEED_BYTES:
        raise ArxivError(f"feed of {len(data):,} bytes is over the limit")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             huge_tree=False, remove_comments=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise ArxivError(f"the listing is not valid Atom XML: {exc}") from exc
    total_text = root.findtext("opensearch:totalResults", default="0", namespaces=NS)
    entries: list[Entry] = []
    for node in root.findall("atom:entry", NS):
        raw_id = _text(node.find("atom:id", NS))
        title = _text(node.find("atom:title", NS))
        if "/api/errors" in raw_id or title == "Error":
            raise ArxivError(f"the arXiv API reported an error: "
                             f"{_text(node.find('atom:summary', NS)) or raw_id}")
        match = ID_RE.search(raw_id)
        if match is None:
            continue
        categories = tuple(c.get("term", "") for c in node.findall("atom:category", NS))
        primary = node.find("arxiv:primary_category", NS)
        license_node = node.find("arxiv:license", NS)
        license_text = ""
        if license_node is not None:
            license_text = _text(license_node) or license_node.get("href") or license_node.get(
                "uri") or ""
        for link in node.findall("atom:link", NS):
            if not license_text and link.get("rel") == "license":
                license_text = link.get("href", "")
        entries.append(Entry(
            arxiv_id=match["id"], version=int(match["v"]), title=title,
            published=_text(node.find("atom:published", NS)), categories=categories,
            primary_category=primary.get("term", "") if primary is not None else "",
            license=license_text or "unreported",
        ))
    try:
        total = int(total_text)
    except ValueError:
        total = len(entries)
    return Listing(total=total, entries=entries)


def month_query(category: str, month: date) -> str:
    """``cat:cs.CV AND submittedDate:[201706010000 TO 201706302359]``."""
    following = date(month.year + month.month // 12, month.month % 12 + 1, 1)
    last = date.fromordinal(following.toordinal() - 1)
    return (f"cat:{category} AND submittedDate:[{month:%Y%m%d}0000 TO {last:%Y%m%d}2359]")


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        if parsed is None:
            return None
        return max(0.0, (parsed - datetime.now(UTC)).total_seconds())


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


@dataclass
class Client:
    """HTTP access to the API and the e-print service, rate limited, retried and cached."""

    base_url: str
    cache: Path
    delay: float = 3.0
    retries: int = 5
    backoff: float = 2.0
    max_wait: float = 300.0
    timeout: float = 60.0
    max_source_bytes: int = 200_000_000
    sleep: Callable[[float], None] = time.sleep
    requests: int = 0
    _last: float = field(default=-1e9, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _wait_turn(self) -> None:
        with self._lock:
            pause = self._last + self.delay - time.monotonic()
            if pause > 0:
                self.sleep(pause)
            self._last = time.monotonic()

    def _get(self, url: str, limit: int, *, api: bool) -> bytes:
        last_error = ""
        for attempt in range(self.retries + 1):
            self._wait_turn()
            self.requests += 1
            wait: float | None = None
            try:
                request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    data = response.read(limit + 1)
                if len(data) > limit:
                    raise ArxivError(f"{url} sent more than {limit:,} bytes",
                                     fix="raise --max-source-bytes if the package is genuine")
                if api and data[:64].lstrip().startswith(b"Rate exceeded"):
                    last_error = "throttled (Rate exceeded)"
                else:
                    return data
            except urllib.error.HTTPError as exc:
                if exc.code not in RETRY_STATUSES:
                    raise ArxivError(f"{url} answered HTTP {exc.code}") from exc
                last_error = f"HTTP {exc.code}"
                wait = _retry_after(exc.headers.get("Retry-After"))
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                last_error = f"{type(exc).__name__}: {exc}"
            if attempt == self.retries:
                break
            if wait is None:
                wait = self.backoff * 2**attempt
            self.sleep(min(wait, self.max_wait))
        raise ArxivError(f"{url} failed after {self.retries + 1} tries: {last_error}",
                         fix="try again later; finished downloads are cached and reused")

    def _cached(self, path: Path, fetch: Callable[[], bytes]) -> bytes:
        if path.is_file():
            return path.read_bytes()
        data = fetch()
        _write_atomic(path, data)
        return data

    def listing(self, query: str, start: int, max_results: int) -> Listing:
        """One page of a query, sorted by submission date (cached by its URL)."""
        params = urllib.parse.urlencode({
            "search_query": query, "start": start, "max_results": max_results,
            "sortBy": "submittedDate", "sortOrder": "ascending",
        })
        url = f"{self.base_url.rstrip('/')}/api/query?{params}"
        key = hashlib.sha256(url.removeprefix(self.base_url).encode()).hexdigest()
        path = self.cache / "api" / f"{key}.xml"
        data = self._cached(path, lambda: self._get(url, MAX_FEED_BYTES, api=True))
        try:
            return parse_feed(data)
        except ArxivError:
            path.unlink(missing_ok=True)  # never keep an error page in the cache
            raise

    def source(self, entry: Entry) -> bytes:
        """The source package of ``entry`` at its pinned version (cached)."""
        url = f"{self.base_url.rstrip('/')}/e-print/{entry.versioned}"
        path = self.cache / "e-print" / (entry.versioned.replace("/", "_") + ".bin")
        return self._cached(path, lambda: self._get(url, self.max_source_bytes, api=False))

    def source_url(self, entry: Entry) -> str:
        return f"{self.base_url.rstrip('/')}/e-print/{entry.versioned}"
