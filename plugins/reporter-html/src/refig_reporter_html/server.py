"""``refig view``'s HTTP server: the site of a live run, read-only, on one loopback port.

A threaded ``http.server`` answering GET and HEAD only (anything else is 405), from
:class:`refig_reporter_html.site.Site`. The store is opened with SQLite ``mode=ro``; objects are
served by hash after their bytes are checked. On a loopback address the ``Host`` header must name
the loopback (no DNS rebinding); the pages carry a strict content security policy.
"""

from __future__ import annotations

import shutil
import socket
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from refig_reporter_html.site import NotFound, Resource, Site

LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: Seconds a connection may sit idle or send its request slowly before it is dropped.
IDLE_SECONDS = 60.0
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'",
}


class _IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


class ViewServer:
    """Serve a :class:`Site` on ``host:port`` (port 0: a free one, for tests)."""

    def __init__(self, site: Site, host: str = "127.0.0.1", port: int = 0):
        self.site = site
        self.host = host
        server_class = _IPv6Server if ":" in host else ThreadingHTTPServer
        self._httpd = server_class((host, port), _handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        if host in ("0.0.0.0", "[::]"):
            host = "127.0.0.1"
        return f"http://{host}:{self.port}/"

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def start(self) -> ViewServer:
        """Serve in a background thread (tests, benchmarks)."""
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ViewServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


def _host_allowed(server: ViewServer, host_header: str | None) -> bool:
    if server.host not in LOOPBACK:
        return True
    if not host_header:
        return False
    name = host_header.rsplit(":", 1)[0] if not host_header.startswith("[") else \
        host_header[1:].split("]", 1)[0]
    return name in LOOPBACK


def _handler(server: ViewServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = IDLE_SECONDS
        server_version = "refig-view"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: a viewer left open must not fill the terminal."""

        def _send(self, status: HTTPStatus, resource: Resource | None, head: bool) -> None:
            if resource is None:
                body: bytes | Path = f"{status.value} {status.phrase}\n".encode()
                kind = "text/plain; charset=utf-8"
            else:
                body, kind = resource.body, resource.content_type
            size = body.stat().st_size if isinstance(body, Path) else len(body)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(size))
            for key, value in HEADERS.items():
                self.send_header(key, value)
            self.end_headers()
            if head:
                return
            try:
                if isinstance(body, Path):
                    with body.open("rb") as handle:
                        shutil.copyfileobj(handle, self.wfile, 1 << 20)
                else:
                    self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the browser went elsewhere before the body was sent

        def _get(self, head: bool) -> None:
            if not _host_allowed(server, self.headers.get("Host")):
                self._send(HTTPStatus.MISDIRECTED_REQUEST, None, head)
                return
            path = unquote(urlsplit(self.path).path)
            try:
                resource = server.site.get(path)
            except NotFound:
                self._send(HTTPStatus.NOT_FOUND, None, head)
                return
            self._send(HTTPStatus.OK, resource, head)

        def do_GET(self) -> None:
            self._get(head=False)

        def do_HEAD(self) -> None:
            self._get(head=True)

        def _refuse(self) -> None:
            self._send(HTTPStatus.METHOD_NOT_ALLOWED, None, head=False)

        do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # a read-only viewer

    return Handler
