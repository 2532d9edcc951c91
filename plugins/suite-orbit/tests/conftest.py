"""A stand-in for the arXiv query API and e-print service, on a real HTTP server (127.0.0.1),
serving source packages that the tests build."""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

import pytest
from refig_toolkit_agent.httpserver import LocalServer, Request, Response


def _entry(paper: Any, base: str) -> str:
    cats = "".join(f'<category term="{c}" scheme="http://arxiv.org/schemas/atom"/>'
                   for c in paper.categories)
    license_xml = f"<arxiv:license>{paper.license}</arxiv:license>" if paper.license else ""
    return (f"<entry><id>http://arxiv.org/abs/{paper.arxiv_id}v{paper.version}</id>"
            f"<published>{paper.day:%Y-%m-%d}T10:00:00Z</published>"
            f"<title>{escape(paper.title)}</title><summary>Abstract.</summary>"
            f"<author><name>A. Author</name></author>"
            f'<arxiv:primary_category term="{paper.categories[0]}"/>{cats}{license_xml}'
            f'<link href="{base}/abs/{paper.arxiv_id}v{paper.version}" rel="alternate"/></entry>')


@dataclass
class FakeArxiv:
    """Answers ``/api/query`` like the arXiv API and ``/e-print/IDvN`` with packages."""

    papers: list[Any] = field(default_factory=list)  # test_orbit.Paper
    inject: dict[str, list[Response]] = field(default_factory=dict)
    server: LocalServer | None = None

    def handle(self, request: Request) -> Response:
        parsed = urllib.parse.urlparse(request.path)
        for prefix, queue in self.inject.items():
            if parsed.path.startswith(prefix) and queue:
                return queue.pop(0)
        if parsed.path == "/api/query":
            return self._query(urllib.parse.parse_qs(parsed.query))
        match = re.fullmatch(r"/e-print/(.+)v(\d+)", parsed.path)
        if match:
            for paper in self.papers:
                if (paper.arxiv_id, paper.version) == (match[1], int(match[2])):
                    return Response(headers={"Content-Type": "application/x-eprint-tar"},
                                    body=paper.package)
        return Response(status=404, body=b"not found")

    def _query(self, params: dict[str, list[str]]) -> Response:
        query = params["search_query"][0]
        match = re.fullmatch(r"cat:(\S+) AND submittedDate:\[(\d{8})0000 TO (\d{8})2359\]", query)
        if match is None:  # arXiv answers malformed queries with HTTP 200 and an error entry
            body = ('<feed xmlns="http://www.w3.org/2005/Atom"><entry>'
                    '<id>http://arxiv.org/api/errors#bad</id><title>Error</title>'
                    '<summary>malformed query</summary></entry></feed>')
            return Response(body=body.encode())
        low, high = match[2], match[3]
        hits = sorted((p for p in self.papers if match[1] in p.categories
                       and low <= f"{p.day:%Y%m%d}" <= high), key=lambda p: (p.day, p.arxiv_id))
        start, size = int(params["start"][0]), int(params["max_results"][0])
        base = self.server.url if self.server else ""
        entries = "".join(_entry(p, base) for p in hits[start:start + size])
        body = ('<?xml version="1.0" encoding="UTF-8"?>'
                '<feed xmlns="http://www.w3.org/2005/Atom" '
                'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
                'xmlns:arxiv="http://arxiv.org/schemas/atom">'
                f"<title>ArXiv Query</title><opensearch:totalResults>{len(hits)}"
                f"</opensearch:totalResults><opensearch:startIndex>{start}</opensearch:startIndex>"
                f"{entries}</feed>")
        return Response(headers={"Content-Type": "application/atom+xml"}, body=body.encode())

    @property
    def requests(self) -> list[Request]:
        assert self.server is not None
        return self.server.requests


@pytest.fixture
def arxiv():
    fake = FakeArxiv()
    with LocalServer(fake.handle) as server:
        fake.server = server
        yield fake
