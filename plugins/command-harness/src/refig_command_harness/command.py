"""``refig harness``: install the pinned harness CLIs and list what is installed."""

from __future__ import annotations

import json
from typing import Any

import typer
from refig.plugin import RefigError, UsageError, err, out, print_table
from refig_toolkit_agent.install import harness_clis, install, pinned_cli, pinned_clis
from rich.table import Table


def register(app: typer.Typer, registry: Any) -> None:
    """Add ``refig harness``; ``registry`` is the loaded plugins the hook receives."""
    group = typer.Typer(help="Install and list the harness CLIs (Claude Code, Codex, ...).",
                        no_args_is_help=True)
    app.add_typer(group, name="harness")

    @group.command("install")
    def install_cmd(
        names: list[str] = typer.Argument(None, help="Harnesses to install (default: all)."),
        force: bool = typer.Option(False, "--force", help="Reinstall even when present."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Print nothing on success."),
    ) -> None:
        """Install each harness's pinned CLI with npm into refig's own prefix."""
        pins = pinned_clis(registry)
        chosen = [(name, pinned_cli(pins, name)) for name in names or sorted(pins)]
        for name, pin in chosen:
            if not quiet:
                err.print(f"installing {pin.package}@{pin.version} for harness {name} ...")
            result = install(name, pin, force=force)
            if not quiet:
                out.print(f"[green]ok[/] {name}: {pin.bin} {result.found} at {result.path}")

    @group.command("list")
    def list_cmd(
        as_json: bool = typer.Option(False, "--json", help="Print a JSON list."),
    ) -> None:
        """Each harness CLI: the pinned version, what is installed, and the fix when it differs."""
        rows = harness_clis(registry)
        if as_json:
            typer.echo(json.dumps([r.as_json() for r in rows], indent=2))
            return
        table = Table(title="harness CLIs", title_justify="left")
        for column in ("harness", "package", "pinned", "installed", "where", "fix"):
            table.add_column(column, overflow="fold")
        for row in rows:
            style = "green" if row.ok else "bold red"
            table.add_row(row.harness, row.package, row.pinned,
                          f"[{style}]{row.found or 'missing'}[/]", row.path or "", row.fix or "")
        print_table(out, table)

    @group.command("check")
    def check_cmd(
        name: str = typer.Argument(..., help="The harness to check."),
        fault: str | None = typer.Option(
            None, "--fault", help="Inject a fault on every call: 400, 429, 500, malformed, cut."),
        timeout: float = typer.Option(300.0, "--timeout", min=1.0,
                                      help="Seconds before the deadline."),
        sandbox: str = typer.Option("auto", "--sandbox", help="auto, bwrap or none."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON summary."),
    ) -> None:
        """Run the harness's real CLI offline against refig's scripted model server.

        It proves the CLI, the gateway and the sandbox work here: the agent must write and run a
        python-pptx program, and the attempt's turns and tokens must equal what the server served.
        """
        from refig_toolkit_pptx.gate import inspect_structure
        from refig_toolkit_testing.selfcheck import FAULTS, Fault, check_harness

        pinned_cli(pinned_clis(registry), name)
        if fault is not None and fault not in FAULTS:
            raise UsageError(f"unknown fault {fault!r}; faults: {', '.join(FAULTS)}")
        harness = registry.resolve("harness", name).create()
        options = {"max_retries": "0"} if fault else {}
        with check_harness(harness, faults=[Fault(fault)] if fault else [],
                           timeout=timeout, sandbox=sandbox, options=options) as outcome:
            result = outcome.result
            gate = inspect_structure(outcome.slide).gate if outcome.slide else None
            recorded = {"turns": result.turns or 0, **result.usage.model_dump()}
            served = {k: v for k, v in outcome.totals.items() if k in recorded}
            problems = outcome.mismatches()
            summary = {
                "harness": name, "cli_version": result.cli_version, "seconds": outcome.seconds,
                "error": result.error.model_dump() if result.error else None,
                "slide_gate": gate.model_dump(mode="json") if gate else None,
                "recorded": recorded, "served": served, "match": not problems,
                "mismatches": problems,
            }
        if as_json:
            typer.echo(json.dumps(summary, indent=2))
        else:
            verdict = result.error.kind if result.error else "succeeded"
            out.print(f"{name} {result.cli_version}: {verdict} in {outcome.seconds:.1f}s; "
                      f"slide gate: {'pass' if gate and gate.passed else 'fail'}; "
                      f"recorded {recorded} vs served {served}: "
                      f"{'[green]match[/]' if summary['match'] else '[bold red]differ[/]'}")
        expected_fail = fault is not None
        if summary["match"] is not True or (result.error is not None) != expected_fail or (
                not expected_fail and not (gate and gate.passed)):
            raise RefigError(f"harness {name} failed its offline check",
                             fix=f"see `refig harness list`; reinstall with "
                                 f"`refig harness install {name} --force`")

