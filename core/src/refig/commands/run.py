"""``refig run``: one configuration (model, harness, workflow) over a suite into a run directory."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.markup import escape

from refig.console import err, format_duration, out, print_table
from refig.errors import UsageError, docs
from refig.plugins import Registry


def _options(pairs: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--harness-opt {pair!r} is not KEY=VALUE", fix="e.g. effort=high")
        options[key.strip()] = value
    return options


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """Let SIGTERM unwind like Ctrl-C while attempts run, so they are ended, not orphaned."""

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def register(app: typer.Typer, registry: Registry) -> None:
    @app.command("run")
    def run(
        suite: Path = typer.Option(..., "--suite", help="The suite directory."),
        harness: str = typer.Option(..., "--harness", help="Harness name (refig list-plugins)."),
        out_dir: Path = typer.Option(..., "--out", help="The run directory (created if new)."),
        workflow: str = typer.Option("direct", "--workflow", help="Workflow name."),
        model: str | None = typer.Option(
            None, "--model", help="Model for the harness; baselines take none."
        ),
        executor: str = typer.Option("local", "--executor", help="local or ray."),
        ray_address: str | None = typer.Option(
            None, "--ray-address", help="Ray cluster address (default $REFIG_RAY_ADDRESS, "
            "else a local cluster)."
        ),
        jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Attempts at once."),
        limit: int | None = typer.Option(None, "--limit", min=1, help="Only the first N tasks."),
        timeout: float = typer.Option(
            1800.0, "--timeout", min=1.0, help="Deadline of each attempt, in seconds."
        ),
        retry_failed: bool = typer.Option(
            False, "--retry-failed", help="Run a new try of attempts that failed retryably."
        ),
        max_tries: int = typer.Option(3, "--max-tries", min=1, help="Tries per task at most."),
        redo: bool = typer.Option(
            False, "--redo", help="Run every task again as a new try, done or not (after a "
            "change to the harness's code); each task's latest succeeded try counts."
        ),
        harness_opt: list[str] = typer.Option(
            [], "--harness-opt", help="KEY=VALUE passed to the harness; part of the "
            "configuration id. Repeatable."
        ),
        sandbox: str = typer.Option(
            "auto", "--sandbox", help="auto (bwrap when installed), bwrap, or none."
        ),
        network: str = typer.Option(
            "gateway", "--network", help="gateway (under bwrap the agent reaches only the "
            "recording gateway) or host (the host's network, for an agent that needs it)."
        ),
        workspace_root: Path | None = typer.Option(
            None, "--workspace-root", help="Where attempt directories are made "
            "(default $REFIG_WORKSPACE_ROOT, else attempts in $REFIG_CACHE_DIR or ~/.cache/refig)."
        ),
        keep_workspaces: bool = typer.Option(
            False, "--keep-workspaces", help="Keep each attempt's directory (secrets redacted)."
        ),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
        as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    ) -> None:
        """Run one configuration over a suite; re-running resumes where it stopped."""
        from refig.running.runner import execute, make_request

        request = make_request(
            registry, suite=suite, out=out_dir, harness=harness, workflow=workflow,
            model=model, executor=executor, ray_address=ray_address,
            options=_options(harness_opt), jobs=jobs, limit=limit, timeout=timeout,
            retry_failed=retry_failed, max_tries=max_tries, redo=redo, sandbox=sandbox,
            network=network,
            workspace_root=workspace_root, keep_workspaces=keep_workspaces,
        )
        try:
            with _sigterm_interrupts():
                summary = execute(request, quiet=quiet or as_json)
        except KeyboardInterrupt:
            # typer would end with a silent exit 130; say what was kept and how to go on
            err.print(f"interrupted: finished attempts are kept in {escape(str(out_dir))}, "
                      "attempts in flight are discarded; run the same command again to resume")
            raise typer.Exit(130) from None
        if as_json:
            typer.echo(json.dumps(summary.as_json(), indent=2))
            return
        from rich.table import Table

        # escape: an id's options suffix ``[key=value]`` would otherwise be read as rich markup
        table = Table(title=f"refig run: {escape(summary.config_id)}", title_justify="left",
                      show_header=False)
        table.add_column(style="bold")
        table.add_column(overflow="fold")
        errors = ", ".join(f"{k} x{n}" for k, n in sorted(summary.errors.items())) or "-"
        wall = summary.median_wall
        already = str(summary.skipped_done) + (
            f" (and {summary.skipped_failed} failed)" if summary.skipped_failed else "")
        rows = [
            ("run", str(summary.run)),
            ("tasks", str(summary.tasks)),
            ("already done", already),
            ("ran now", str(summary.planned)),
            ("succeeded", f"[green]{summary.succeeded}[/]"),
            ("failed", f"[red]{summary.failed}[/]" if summary.failed else "0"),
            ("errors", errors),
            ("median wall", format_duration(wall) if wall is not None else "-"),
            ("turns", str(summary.turns)),
            ("tokens in / out / cached", f"{summary.usage.input_tokens:,} / "
             f"{summary.usage.output_tokens:,} / {summary.usage.cached_tokens:,}"),
            ("cost", f"${summary.cost_usd:.4f}" if summary.cost_usd is not None
             else f"unknown ({summary.unpriced} attempts used unpriced models; see "
                  f"{docs('harnesses.md')} on price overrides)"),
        ]
        for key, value in rows:
            table.add_row(key, value)
        print_table(out, table)
        out.print(f"sandbox: {summary.sandbox}, network: {summary.network}, "
                  f"executor: {summary.executor}")
        if summary.skipped_done and not summary.planned:
            out.print("every task was done before; --redo runs them again (after a change to "
                      "the harness's code)")
        if summary.skipped_failed and not retry_failed:
            out.print(f"{summary.skipped_failed} task(s) failed before; --retry-failed retries "
                      "those whose error is retryable")
        for path in summary.kept_workspaces:
            out.print(f"kept {path}")
