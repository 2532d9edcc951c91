"""``refig view RUN``: the live, read-only viewer of a run (added by this plugin's
``refig_commands`` hook, beside the static ``refig report --html`` it shares its pages with)."""

from __future__ import annotations

import errno
import sys
from pathlib import Path

import typer

DEFAULT_PORT = 8766


def register(app: typer.Typer) -> None:
    """Add ``view`` to the ``refig`` app."""

    @app.command("view")
    def view(
        run: Path = typer.Argument(..., help="The run directory (it may still be running)."),
        host: str = typer.Option(
            "127.0.0.1", "--host", help="Address to bind; beyond loopback, others can read it."
        ),
        port: int = typer.Option(
            DEFAULT_PORT, "--port", "-p", min=0, max=65535, help="Port; 0 picks a free one."
        ),
        judge: str | None = typer.Option(
            None, "--judge", help="The main judge of the summary (default: the most complete)."
        ),
        quiet: bool = typer.Option(False, "-q", "--quiet", help="Only the address."),
    ) -> None:
        """Browse a run: samples with scores and status, pictures, transcripts, files, plots.

        Read-only (SQLite opened with mode=ro, nothing written), on one port of 127.0.0.1 by
        default; the pages follow the run as attempts, renders, metrics and judgments land.
        """
        from refig.plugin import RefigError, err, out

        from refig_reporter_html.server import LOOPBACK, ViewServer
        from refig_reporter_html.site import live_site
        from refig_reporter_html.snapshot import LiveRun

        source = LiveRun(run, judge=judge)
        try:
            server = ViewServer(live_site(source), host, port)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise RefigError(f"port {port} on {host} is in use",
                                 fix="pass another --port, or --port 0 for any free one") from exc
            raise RefigError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
        if host not in LOOPBACK:
            err.print(f"[bold yellow]warning:[/] listening on {host}: anyone who can reach this "
                      "address can read the run (there is no login). Bind to 127.0.0.1 and use "
                      "an SSH tunnel unless this network is trusted.")
        out.print(f"serving {server.url}", soft_wrap=True)
        sys.stdout.flush()
        if not quiet:
            data = source.snapshot().data
            err.print(f"viewing {data.root}: {len(data.outcomes)} samples of "
                      f"{len(data.task_order)} tasks; read-only; Ctrl-C stops")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.stop()
