"""``refig annotate``: the blinded pairwise comparison page, and moving votes between machines.

``refig annotate RUN`` serves the page; ``refig annotate export RUN`` and ``refig annotate import
RUN FILE`` move votes as JSON lines. See ``docs/annotation.md``.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from refig.plugin import RefigError, UsageError, err, out
from typer.core import TyperGroup

if TYPE_CHECKING:  # typer vendors click; only annotations use it here
    from collections import Counter

    from refig_toolkit_analysis import RunStore
    from refig_toolkit_analysis.annotation.rating_session import RatingSession
    from refig_toolkit_analysis.annotation.session import Session
    from typer._click import Context

DEFAULT_PORT = 8765


class _ServeByDefault(TyperGroup):
    """``refig annotate RUN ...`` means ``refig annotate serve RUN ...``."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["serve", *args]
        return super().parse_args(ctx, args)


def _can_open_browser() -> bool:
    """A desktop is there to open a browser on (never a terminal browser on a bare server)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def register(app: typer.Typer) -> None:
    annotate = typer.Typer(
        cls=_ServeByDefault,
        no_args_is_help=True,
        help="Blinded human judgments: `refig annotate RUN` serves the pairwise page, "
        "`--rate` the rating page; `export` and `import` move votes and ratings.",
    )
    app.add_typer(annotate, name="annotate")

    @annotate.command("serve")
    def serve(
        run: Path = typer.Argument(..., help="The run directory (evaluated: gate and renders)."),
        port: int = typer.Option(
            DEFAULT_PORT, "--port", "-p", min=0, max=65535, help="Port; 0 picks a free one."
        ),
        host: str = typer.Option(
            "127.0.0.1", "--host", help="Address to bind; beyond loopback, others can reach it."
        ),
        annotator: str | None = typer.Option(
            None, "--annotator", help="Default annotator name (else entered on the page)."
        ),
        seed: int = typer.Option(0, "--seed", help="Seed of the plan order and left/right coins."),
        replication: int = typer.Option(
            2, "--replication", min=1, help="Annotators each comparison is planned for."
        ),
        open_browser: bool = typer.Option(
            True, "--open/--no-open", help="Open the page in a browser (when there is a desktop)."
        ),
        quiet: bool = typer.Option(False, "-q", "--quiet", help="Only print the page's address."),
        rate: bool = typer.Option(
            False, "--rate", help="Absolute ratings on the task family's rubric axes (whole "
            "points per axis) instead of pairwise votes.",
        ),
        audit_verdicts: bool = typer.Option(
            False, "--audit-verdicts", help="Add derived verdicts (source pasted, flattened, text "
            "recall) to the object counts under each slide; recorded with every vote.",
        ),
    ) -> None:
        """Serve the comparison page for RUN (`refig annotate RUN`): A / B / tie, undo, progress;
        with --rate, the rating page (points per rubric axis)."""
        from refig_toolkit_analysis import RunStore
        from refig_toolkit_analysis.annotation.server import AnnotationServer
        from refig_toolkit_analysis.annotation.session import ActionError, check_annotator
        from refig_toolkit_analysis.loopback import LOOPBACK

        store = RunStore.open(run)
        if annotator is not None:
            try:
                check_annotator(annotator)
            except ActionError as exc:
                raise UsageError(f"--annotator {annotator!r}: {exc}") from exc
        session, described, skipped = (
            _rating_session(store, seed, replication, annotator, quiet) if rate
            else _vote_session(store, seed, replication, annotator, audit_verdicts))
        try:
            server = AnnotationServer(session, host, port)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise RefigError(
                    f"port {port} on {host} is in use", fix="pass --port 0 for any free port"
                ) from exc
            raise RefigError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
        if not quiet:
            err.print(f"[bold]annotating[/] {store.root}: {described}")
            if skipped:
                left_out = ", ".join(f"{n} {why}" for why, n in sorted(skipped.items()))
                err.print(f"left out (task x configuration): {left_out}")
        if host not in LOOPBACK:
            err.print(
                f"[bold yellow]warning:[/] listening on {host}: anyone who can reach this "
                "address can see the figures and vote (there is no login). Bind to 127.0.0.1 "
                "and use an SSH tunnel unless this network is trusted."
            )
        out.print(f"serving {server.url}", soft_wrap=True)
        sys.stdout.flush()
        if not quiet:
            err.print("several annotators can open it at once; Ctrl-C stops")
        if open_browser and _can_open_browser():
            import webbrowser

            webbrowser.open(server.url)
        try:
            server.serve_until_interrupted()
        finally:
            if not quiet:
                noun = "ratings" if rate else "votes"
                err.print(f"stopped: {session.stored} {noun} stored in this session")

    @annotate.command("export")
    def export(
        run: Path = typer.Argument(..., help="The run directory."),
        output: Path | None = typer.Option(
            None, "--out", "-o", help="JSONL file to write (default: stdout)."
        ),
        ratings: bool = typer.Option(False, "--ratings", help="Export ratings, not votes."),
    ) -> None:
        """Write every vote (or rating; undone ones included, as retractions) as JSON lines."""
        from refig_toolkit_analysis import RunStore
        from refig_toolkit_analysis.annotation.ratings import export_ratings
        from refig_toolkit_analysis.annotation.votes import export_votes

        store = RunStore.open(run)
        write = export_ratings if ratings else export_votes
        if output is None:
            n = write(store, sys.stdout)
        else:
            try:
                with output.open("w", encoding="utf-8") as handle:
                    n = write(store, handle)
            except OSError as exc:
                raise RefigError(
                    f"cannot write the votes: {exc.strerror or exc}",
                    path=output,
                    fix="give --out a file in a directory that exists and you can write",
                ) from exc
        noun = "ratings" if ratings else "votes"
        err.print(f"exported {n} {noun}" + (f" to {output}" if output else ""), soft_wrap=True)

    @annotate.command("import")
    def import_(
        run: Path = typer.Argument(..., help="The run directory to merge into."),
        file: Path = typer.Argument(..., help="A JSONL file from `refig annotate export`."),
        ratings: bool = typer.Option(False, "--ratings", help="The file holds ratings."),
    ) -> None:
        """Merge votes (or ratings) exported elsewhere (by id: importing twice adds nothing)."""
        from refig_toolkit_analysis import RunStore
        from refig_toolkit_analysis.annotation.ratings import import_ratings
        from refig_toolkit_analysis.annotation.votes import import_votes

        store = RunStore.open(run)
        result = (import_ratings if ratings else import_votes)(store, file)
        noun = "ratings" if ratings else "votes"
        err.print(
            f"imported {file}: {result.added} new {noun}, {result.retracted} retractions, "
            f"{result.unchanged} already in the run"
        )


def _vote_session(store: RunStore, seed: int, replication: int, annotator: str | None,
                  verdicts: bool) -> tuple[Session, str, Counter[str]]:
    """The pairwise page's session, its one-line description and what was left out."""
    from refig_toolkit_analysis.annotation.candidates import load_candidates
    from refig_toolkit_analysis.annotation.planner import build_plan
    from refig_toolkit_analysis.annotation.session import Session

    candidates = load_candidates(store, verdicts=verdicts)
    plan = build_plan(candidates, seed)
    if not plan.items:
        raise candidates.why_empty()
    session = Session(store, candidates, plan, replication=replication,
                      default_annotator=annotator)
    return session, plan.describe(), candidates.skipped


def _rating_session(store: RunStore, seed: int, replication: int, annotator: str | None,
                    quiet: bool) -> tuple[RatingSession, str, Counter[str]]:
    """The rating page's session, its one-line description and what was left out."""
    from refig_toolkit_analysis.annotation.rating_items import load_rating_items
    from refig_toolkit_analysis.annotation.rating_session import RatingSession

    found = load_rating_items(store, quiet=quiet)
    if not found.items:
        raise found.why_empty()
    session = RatingSession(store, found, seed=seed, replication=replication,
                            default_annotator=annotator)
    configs = {item.config_id for item in found.items}
    tasks = {item.task_id for item in found.items}
    axes = "; ".join(sorted({", ".join(f"{a.id} 0-{a.max}" for a in item.axes)
                             for item in found.items}))
    return session, (f"{len(found.items)} ratings planned: {len(configs)} configurations over "
                     f"{len(tasks)} tasks, axes {axes}"), found.skipped
