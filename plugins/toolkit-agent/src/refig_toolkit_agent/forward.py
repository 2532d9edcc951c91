"""Inside the sandbox: listen on the loopback port the harness was told, pass each connection to
the gateway's Unix socket, and run the command. Standard library only, run as a script
(``python -I forward.py PORT SOCKET -- ARGV...``), so it starts in milliseconds.

In the attempt's own network namespace nothing else answers: this is the agent's only way out.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
from collections.abc import Callable

CHUNK = 64 * 1024


def pump(source: socket.socket, target: socket.socket) -> None:
    """Copy bytes one way until the source ends, then end the target's writing side."""
    try:
        while data := source.recv(CHUNK):
            target.sendall(data)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            target.shutdown(socket.SHUT_WR)


def splice(left: socket.socket, right: socket.socket) -> None:
    """Relay two connected sockets both ways; close both when both directions ended."""
    back = threading.Thread(target=pump, args=(right, left), daemon=True)
    back.start()
    pump(left, right)
    back.join()
    left.close()
    right.close()


def serve(listener: socket.socket, connect: Callable[[], socket.socket]) -> None:
    """Accept forever; relay each connection to a fresh one from ``connect()``."""
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        try:
            upstream = connect()
        except OSError:
            client.close()
            continue
        threading.Thread(target=splice, args=(client, upstream), daemon=True).start()


def main(argv: list[str]) -> int:
    port, path, rest = int(argv[0]), argv[1], argv[argv.index("--") + 1:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)

    def connect() -> socket.socket:
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.connect(path)
        return unix

    threading.Thread(target=serve, args=(listener, connect), daemon=True).start()
    try:
        return subprocess.call(rest)
    except OSError as exc:
        print(f"refig forwarder: cannot start {rest[0]}: {exc}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
