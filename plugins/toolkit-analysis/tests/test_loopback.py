"""A command's foreground page serves until Ctrl-C, then closes its socket and returns."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import textwrap

SERVE = textwrap.dedent("""
    from http.server import BaseHTTPRequestHandler
    from refig_toolkit_analysis.loopback import LoopbackServer

    server = LoopbackServer(BaseHTTPRequestHandler, "127.0.0.1", 0)
    print(server.port, flush=True)
    server.serve_until_interrupted()
    print("returned", flush=True)
""")


def test_ctrl_c_ends_serving_closes_the_socket_and_returns() -> None:
    process = subprocess.Popen([sys.executable, "-c", SERVE], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            conn.sendall(b"GET / HTTP/1.0\r\n\r\n")
            assert conn.recv(12).startswith(b"HTTP/")  # an answer: it is serving
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert out.strip() == "returned" and "KeyboardInterrupt" not in err
    probe = socket.socket()
    try:
        assert probe.connect_ex(("127.0.0.1", port)) != 0  # nobody listens any more
    finally:
        probe.close()
