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
        run: Path = typer.Argument(
            ..., help="A run directory, or a folder of runs (such as refig demo's output) shown "
            "as one collection; either may still be running."),
        host: str = typer.Option(
            "127.0.0.1", "--host", help="Address to bind; beyond loopback, others can read it."
        ),
        port: int = typer.Option(
            DEFAULT_PORT, "--port", "-p", min=0, max=65535, help="Port; 0 picks a free one."
        ),
        judge: str | None = typer.Option(
            None, "--judge", help="The main judge of the summary (default: the most complete)."
        ),
        count_failures: bool = typer.Option(
            False, "--count-failures",
            help="Score attempts that failed for the provider or the set-up (API errors, "
            "provider timeouts, missing keys) 0 instead of leaving them out of every mean, as "
            "`refig report --count-failures` does.",
        ),
        judge_run: int | None = typer.Option(
            None, "--judge-run", min=1,
            help="Show judging run N alone (repeat N-1) on every page and table, as "
            "`refig report --judge-run N` does; default: each artifact's mean over its "
            "repeats. One run only, not a folder of runs.",
        ),
        quiet: bool = typer.Option(False, "-q", "--quiet", help="Only the address."),
    ) -> None:
        """Browse a run: samples with scores and status, pictures, transcripts, files, plots.

        Read-only (SQLite opened with mode=ro, nothing written), on one port of 127.0.0.1 by
        default; the pages follow the run as attempts, renders, metrics and judgments land.
        Given a folder of runs, one sample list covers them all, with run and family columns.
        """
        from refig.plugin import RefigError, UsageError, err, out
        from refig_toolkit_analysis import LOOPBACK, collection_runs

        from refig_reporter_html.collection import CollectionSite, LiveFolder
        from refig_reporter_html.server import ViewServer
        from refig_reporter_html.site import Pages, live_site
        from refig_reporter_html.snapshot import LiveRun

        site: Pages
        if collection_runs(run) is not None:
            if judge_run is not None:
                raise UsageError(f"--judge-run {judge_run}: {run} is a folder of runs, whose "
                                 "judging runs may differ",
                                 fix="view one run with --judge-run, or leave it out")
            folder = LiveFolder(run, judge=judge, count_failures=count_failures)
            site = CollectionSite(run.resolve().name, folder.members, live=True)
            datas = [m.site.state().snap.data for m in folder.members()]
            what = f"{run}: {len(datas)} runs,"
        else:
            try:
                source = LiveRun(run, judge=judge, count_failures=count_failures,
                                 judge_run=judge_run)
            except UsageError as exc:  # say what else view accepts, which a run's reader cannot
                if exc.message.startswith("--judge-run"):
                    raise
                raise UsageError(exc.message, path=exc.path, fix=(
                    "give a run directory (it holds refig.db, made by `refig run --out DIR`) or a "
                    "folder of runs, one in each subfolder (such as `refig demo`'s output)"
                )) from exc
            site = live_site(source)
            datas = [source.snapshot().data]
            what = f"{datas[0].root}:"
        try:
            server = ViewServer(site, host, port)
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
            err.print(f"viewing {what} {sum(len(d.outcomes) for d in datas)} samples of "
                      f"{sum(len(d.task_order) for d in datas)} tasks; read-only; Ctrl-C stops")
        server.serve_until_interrupted()
