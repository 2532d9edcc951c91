"""The viewer answers only requests whose ``Host`` names the loopback, parsed as a URL authority
(the annotation server's rule, one function): ``127.0.0.1:PORT@evil.com`` names evil.com."""

from __future__ import annotations

import http.client

import pytest
from refig_reporter_html.server import ViewServer
from refig_reporter_html.site import NotFound, Resource


class OnePage:
    """A site with one page at ``/``: enough to see which requests the server answers."""

    live = False

    def get(self, path: str) -> Resource:
        if path != "/":
            raise NotFound(path)
        return Resource(b"<p>run</p>", "text/html; charset=utf-8")


def _status(server: ViewServer, host: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.putrequest("GET", "/", skip_host=True)
        conn.putheader("Host", host)
        conn.endheaders()
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.fixture
def server():
    with ViewServer(OnePage()) as running:
        yield running


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "127.0.0.1",
                                  "LOCALHOST:{port}"])
def test_a_loopback_host_is_answered(server: ViewServer, host: str) -> None:
    assert _status(server, host.format(port=server.port)) == 200


@pytest.mark.parametrize("host", ["127.0.0.1:{port}@evil.com", "localhost@evil.com",
                                  "evil.com", "evil.com:{port}", "[::1", "",
                                  "127.0.0.1.evil.com:{port}"])
def test_a_host_naming_another_machine_is_refused(server: ViewServer, host: str) -> None:
    assert _status(server, host.format(port=server.port)) == 421


def test_the_viewer_and_the_annotation_page_share_one_host_rule() -> None:
    from refig_toolkit_analysis.annotation.server import AnnotationServer

    assert ViewServer.allowed_host is AnnotationServer.allowed_host
