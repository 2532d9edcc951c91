"""An attempt whose only way out is the recording gateway.

Under bubblewrap with the ``gateway`` network policy a harness CLI runs in its own network
namespace (``--unshare-net``: a loopback interface and nothing else). The gateway keeps
listening on the host's 127.0.0.1; a Unix socket in a directory bound into the sandbox leads to
it, and a small forwarder inside the sandbox (:mod:`refig_toolkit_agent.forward`) listens on the
same loopback port the harness was told, so the CLI's base URL works unchanged while a direct
connection to anything else (a model server on the host's loopback, the internet) fails.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from refig.protocols import CommandPolicy

from refig_toolkit_agent import forward

SOCKET_NAME = "gateway.sock"


@dataclass
class GatewayTunnel:
    """The host end: a Unix socket relayed to the gateway's TCP port, while open."""

    url: str
    policy: CommandPolicy
    directory: Path | None = None
    _listener: socket.socket | None = None
    _thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def active(self) -> bool:
        """True when commands run without a network of their own (bwrap, gateway policy)."""
        return self.policy.mode == "bwrap" and self.policy.egress == "gateway"

    @property
    def port(self) -> int:
        port = urlsplit(self.url).port
        if port is None:
            raise ValueError(f"the gateway URL {self.url} names no port")
        return port

    def __enter__(self) -> GatewayTunnel:
        if not self.active:
            return self
        # A short path: Unix socket paths are limited to about 100 bytes.
        self.directory = Path(tempfile.mkdtemp(prefix="refig-gw-", dir="/tmp"))
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(self.directory / SOCKET_NAME))
        listener.listen(64)
        self._listener = listener
        target = ("127.0.0.1", self.port)
        self._thread = threading.Thread(
            target=forward.serve, args=(listener, lambda: socket.create_connection(target)),
            name="refig-gateway-tunnel", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` started behind the in-sandbox forwarder (unchanged when not active)."""
        if not self.active or self.directory is None:
            return argv
        return [sys.executable, "-I", forward.__file__, str(self.port),
                str(self.directory / SOCKET_NAME), "--", *argv]

    @property
    def writable(self) -> list[Path]:
        """The socket's directory, to bind into the sandbox."""
        return [self.directory] if self.active and self.directory is not None else []
