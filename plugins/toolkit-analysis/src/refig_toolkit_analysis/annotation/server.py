"""The annotation page's HTTP server: the static page, JSON actions and the run's images.

A threaded ``http.server``: ``GET /`` the page, ``GET /static/<file>`` its scripts and style
(``page.js`` is the session's own: votes or ratings),
``GET /api/session`` and ``GET /api/state?annotator=NAME``, ``POST /api/vote`` and
``POST /api/undo`` (JSON bodies; in rating mode ``POST /api/rate`` instead of votes and the
rating page at ``/``), ``GET /img/<sha256>`` an image of the plan (source figures and
renderings only, with the content type read from the file). Bodies are capped; POSTs must be JSON
(a cross-site form cannot send that without a CORS preflight, which is never granted); on a
loopback address the ``Host`` header must name the loopback too (no DNS rebinding).
"""

from __future__ import annotations

import json
import shutil
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from refig.console import err

from refig_toolkit_analysis.annotation.rating_session import RatingSession
from refig_toolkit_analysis.annotation.session import ActionError, Session
from refig_toolkit_analysis.loopback import LoopbackServer

MAX_BODY_BYTES = 16_384
#: Seconds a connection may sit idle or send a request slowly before it is dropped (a body
#: shorter than its Content-Length would otherwise hold a thread for ever).
IDLE_SECONDS = 60.0
PAGE_FILES = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "rate.js": "text/javascript; charset=utf-8",
    "common.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
}


def _page(name: str) -> bytes:
    return (resources.files("refig_toolkit_analysis.annotation") / "page" / name).read_bytes()


class AnnotationServer(LoopbackServer):
    """Serve a :class:`Session` (votes) or :class:`RatingSession` (ratings) on ``host:port``
    (port 0: any free port)."""

    def __init__(self, session: Session | RatingSession, host: str = "127.0.0.1", port: int = 0):
        self.session = session
        self.pages = {name: _page(name) for name in PAGE_FILES}
        super().__init__(_handler(self), host, port)


def _handler(server: AnnotationServer) -> type[BaseHTTPRequestHandler]:
    session = server.session

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # else the client's delayed ACK adds ~40 ms per response
        server_version = "refig-annotate"
        timeout = IDLE_SECONDS

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            self._dispatch(self._get)

        def do_POST(self) -> None:
            self._dispatch(self._post)

        def _dispatch(self, action: Any) -> None:
            try:
                if not server.allowed_host(self.headers.get("Host")):
                    self._json({"error": "unknown host"}, HTTPStatus.MISDIRECTED_REQUEST)
                    return
                action(urlsplit(self.path))
            except ActionError as exc:
                self._json({"error": str(exc)}, exc.status)
            except (BrokenPipeError, ConnectionResetError, TimeoutError):
                self.close_connection = True  # the client left or stalled: nobody to answer
            except Exception as exc:  # a bug must not take the page down; say what broke
                err.print(f"[red]annotation server error:[/] {type(exc).__name__}: {exc}")
                self._json({"error": "internal error; see the terminal"}, 500)
            finally:
                session.store.close()  # each request runs on its own thread

        def _get(self, url: Any) -> None:
            path = url.path
            if path in ("/", "/index.html"):
                self._bytes(server.pages["index.html"], PAGE_FILES["index.html"], cache=False)
            elif path.startswith("/static/") and (path[8:] in PAGE_FILES or path[8:] == "page.js"):
                name = session.script if path[8:] == "page.js" else path[8:]
                self._bytes(server.pages[name], PAGE_FILES[name], cache=False)
            elif path == "/api/session":
                self._json(session.info())
            elif path == "/api/state":
                query = parse_qs(url.query)
                self._json(session.state(query.get("annotator", [""])[0]))
            elif path.startswith("/img/"):
                self._image(path[5:])
            else:
                self._json({"error": "not found"}, HTTPStatus.NOT_FOUND)

        def _post(self, url: Any) -> None:
            body = self._body()
            annotator = str(body.get("annotator") or "")
            given_id = body.get("id") if isinstance(body.get("id"), str) else None
            seconds = body.get("seconds")
            seconds = seconds if isinstance(seconds, int | float) else None
            if url.path == "/api/rate" and isinstance(session, RatingSession):
                self._json(session.rate(annotator, str(body.get("token") or ""),
                                        body.get("scores"), given_id, seconds))
            elif url.path == "/api/vote" and isinstance(session, Session):
                self._json(session.vote(annotator, str(body.get("token") or ""),
                                        str(body.get("choice") or ""), given_id, seconds))
            elif url.path == "/api/undo":
                self._json(session.undo(annotator))
            else:
                self._json({"error": "not found"}, HTTPStatus.NOT_FOUND)

        def _body(self) -> dict[str, Any]:
            try:
                length = int(self.headers.get("Content-Length") or "0")
            except ValueError:
                length = -1
            if length < 0 or length > MAX_BODY_BYTES:
                self.close_connection = True  # the body is left unread
                raise ActionError(f"a request body is at most {MAX_BODY_BYTES} bytes", 413)
            raw = self.rfile.read(length)
            kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if kind != "application/json":
                raise ActionError("send JSON (Content-Type: application/json)", 415)
            try:
                body = json.loads(raw or b"{}")
            except ValueError as exc:
                raise ActionError("the body is not JSON", 400) from exc
            if not isinstance(body, dict):
                raise ActionError("the body must be a JSON object", 400)
            return body

        def _image(self, sha: str) -> None:
            found = session.image(sha)
            path, kind = found if found is not None else (None, "")
            if path is None or not path.is_file():
                self._json({"error": "no such image in this plan"}, HTTPStatus.NOT_FOUND)
                return
            with path.open("rb") as handle:
                size = path.stat().st_size
                self._head(HTTPStatus.OK, kind, size, cache=True)
                shutil.copyfileobj(handle, self.wfile, 1 << 16)

        def _json(self, payload: Any, status: int = 200) -> None:
            self._bytes(json.dumps(payload).encode(), "application/json", status, cache=False)

        def _bytes(self, data: bytes, kind: str, status: int = 200, *, cache: bool) -> None:
            self._head(status, kind, len(data), cache=cache)
            self.wfile.write(data)

        def _head(self, status: int, kind: str, length: int, *, cache: bool) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(length))
            # images are addressed by their hash, so they never change
            self.send_header(
                "Cache-Control", "private, max-age=31536000, immutable" if cache else "no-store"
            )
            for name, value in SECURITY_HEADERS.items():
                self.send_header(name, value)
            self.end_headers()

    return Handler
