"""A small threaded HTTP server on 127.0.0.1: the recording gateway's listener, and the base of
the test stand-ins for model providers (:mod:`refig_toolkit_testing`).

It runs in a background thread, hands each request to a handler function, records every request,
and can answer with JSON, server-sent events (streamed in HTTP/1.1 chunks), a delay, or a connection
cut mid-stream. API-specific behaviour (OpenAI, Anthropic) lives in handlers built on top of it.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass(frozen=True)
class Request:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    received_at: float

    def json(self) -> Any:
        return json.loads(self.body or b"null")


@dataclass
class Response:
    """What to answer. ``chunks`` streams the body; ``cut_after`` drops the connection early."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    chunks: Iterable[bytes] | None = None
    delay: float = 0.0
    cut_after: int | None = None

    @classmethod
    def json(cls, payload: Any, status: int = 200, headers: dict[str, str] | None = None,
             delay: float = 0.0) -> Response:
        return cls(status=status, body=json.dumps(payload).encode(),
                   headers={"Content-Type": "application/json", **(headers or {})}, delay=delay)

    @classmethod
    def sse(cls, events: Iterable[tuple[str | None, Any]], *, delay: float = 0.0,
            cut_after: int | None = None) -> Response:
        """Server-sent events: ``(event name or None, data)``; data that is not str is JSON."""

        def encode() -> Iterable[bytes]:
            for name, data in events:
                text = data if isinstance(data, str) else json.dumps(data)
                prefix = f"event: {name}\n" if name else ""
                yield f"{prefix}data: {text}\n\n".encode()

        return cls(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"},
                   chunks=encode(), delay=delay, cut_after=cut_after)


Handler = Callable[[Request], Response]

#: Largest request body read (the agent writes the requests a gateway relays; images included, a
#: real model call stays far below this).
MAX_REQUEST_BYTES = 256 << 20


class CutStream(Exception):
    """Raised by a chunk iterator to drop the connection mid-stream (as a broken upstream does)."""


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up mid-answer (a killed agent, a cut stream) is normal here."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LocalServer:
    """Serve ``handler`` on 127.0.0.1 (a free port by default) until :meth:`stop`.

    ``keep_requests=False`` leaves :attr:`requests` empty (for proxies that see large bodies).
    """

    def __init__(self, handler: Handler, *, host: str = "127.0.0.1", port: int = 0,
                 keep_requests: bool = True):
        self.handler = handler
        self.keep_requests = keep_requests
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._server = _QuietServer((host, port), self._make_handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (also when :meth:`start` was never called)."""
        if self._thread.is_alive():
            self._server.shutdown()  # waits for serve_forever, which never returns if not started
        self._server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _record(self, request: Request) -> None:
        if not self.keep_requests:  # a long-lived proxy must not hold every body in memory
            return
        with self._lock:
            self.requests.append(request)

    def _make_handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes; with Nagle on, the client's delayed ACK
            # adds ~40 ms to every response.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # quiet in tests
                return

            def _serve(self) -> None:
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                except ValueError:
                    self.send_error(400, "bad Content-Length")
                    return
                if not 0 <= length <= MAX_REQUEST_BYTES:
                    self.send_error(413, f"request body over {MAX_REQUEST_BYTES} bytes")
                    return
                body = self.rfile.read(length) if length else b""
                request = Request(self.command, self.path, dict(self.headers.items()), body,
                                  time.time())
                server._record(request)
                response = server.handler(request)
                if response.delay:
                    time.sleep(response.delay)
                self.send_response(response.status)
                for name, value in response.headers.items():
                    self.send_header(name, value)
                if response.chunks is None:
                    self.send_header("Content-Length", str(len(response.body)))
                    self.end_headers()
                    self.wfile.write(response.body)
                    return
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for index, chunk in enumerate(response.chunks):
                        if response.cut_after is not None and index >= response.cut_after:
                            raise CutStream
                        self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                        self.wfile.flush()
                except CutStream:
                    self.close_connection = True
                    self.wfile.flush()
                    self.connection.shutdown(2)
                    return
                self.wfile.write(b"0\r\n\r\n")

            do_GET = do_POST = do_PUT = do_DELETE = _serve

        return _Handler
