"""A threaded ``http.server`` bound to one host and port, for refig's local pages (the annotation
page, the run viewer): IPv4 or IPv6 by the host's form, the URL to print, and a background
thread for tests. Each page brings its own request handler."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self
from urllib.parse import urlsplit

#: The host names that mean this machine only.
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class _IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


class LoopbackServer:
    """Serve ``handler`` on ``host:port`` (port 0: any free port)."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1",
                 port: int = 0):
        self.host = host
        server_class = _IPv6Server if ":" in host else ThreadingHTTPServer
        self._httpd = server_class((host, port), handler)
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    def allowed_host(self, header: str | None) -> bool:
        """On a loopback address, only a ``Host`` header naming the loopback is answered (no DNS
        rebinding); parsed as a URL's authority, so ``127.0.0.1:1@evil.com`` names evil.com."""
        if self.host not in LOOPBACK:
            return True
        try:
            name = urlsplit(f"//{header or ''}").hostname or ""
        except ValueError:  # an unclosed IPv6 bracket
            return False
        return name in LOOPBACK

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        if host in ("0.0.0.0", "[::]"):
            host = "127.0.0.1"
        return f"http://{host}:{self.port}/"

    def serve_forever(self) -> None:
        """Serve in this thread until :meth:`stop` (or Ctrl-C)."""
        self._httpd.serve_forever()

    def serve_until_interrupted(self) -> None:
        """Serve in this thread until Ctrl-C, then close: a command's foreground page."""
        try:
            self.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def start(self) -> Self:
        """Serve from a background thread."""
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
