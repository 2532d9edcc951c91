"""``refig canary``: every installed family's golden canary realised here and compared."""

from __future__ import annotations

import json
from typing import Any

import typer

#: How each page's result is drawn in the table.
_STYLE = {"identical": "green", "similar": "green", "differs": "red", "failed": "red",
          "skipped": "yellow"}


def golden_sets(registry: Any, families: list[str]) -> list[tuple[Any, list[str]]]:
    """The golden sets of ``families`` (every installed family's when empty), each once with the
    families that declare it (two families sharing a set realise it once)."""
    from refig.plugin import UsageError, docs

    from refig_command_canary.golden import GoldenSet

    records = [registry.family(name).record for name in families] if families else [
        r for r in registry.records("family")]
    sets: dict[tuple[str, str, str], tuple[GoldenSet, list[str]]] = {}
    for record in records:
        if record.canary is None:
            if families:
                raise UsageError(f"the family {record.name} declares no golden canary",
                                 fix=f"see {docs('reproducibility.md')}, The golden canary")
            continue
        golden = record.canary()
        sets.setdefault(golden.key, (golden, []))[1].append(record.name)
    return list(sets.values())


def register(app: typer.Typer, registry: Any) -> None:
    @app.command("canary")
    def canary(
        family: list[str] = typer.Option(
            [], "--family", help="Only this family's golden set (repeatable); default: every "
            "installed family's."
        ),
        update: bool = typer.Option(
            False, "--update", help="Maintainers: record this machine's results as the "
            "expected ones (in the package folders of a checkout), then commit them."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    ) -> None:
        """Check this machine against the golden canary: each family's golden documents (slides
        with CJK text, connectors, gradients and groups; a program per language) realised again
        and compared with the results recorded on a machine set up as docs/reproducibility.md
        says, pixel for pixel or by SSIM above each document's bound. Exits 1 when a page
        differs or a required font is missing; another version of the realiser or a toolchain
        is printed as what differs, but the pixels decide. A document whose toolchain is not
        installed is skipped, never passed.
        """
        from refig.plugin import out

        from refig_command_canary.checking import run_set, update_set

        outcomes = [((update_set if update else run_set)(golden), names)
                    for golden, names in golden_sets(registry, family)]
        if as_json:
            typer.echo(json.dumps([_as_json(o, names) for o, names in outcomes], indent=2))
        else:
            _print(out, outcomes, updated=update)
        if not all(outcome.passed for outcome, _ in outcomes):
            raise typer.Exit(1)


def _as_json(outcome: Any, families: list[str]) -> dict[str, Any]:
    verdict = outcome.verdict()
    return {"set": outcome.golden.name, "families": families,
            "renderer": outcome.golden.renderer, "passed": verdict.passed,
            "environment_digest": verdict.environment, "environment": outcome.environment,
            "failures": outcome.differences.failures,
            "versions": outcome.differences.versions, "notes": outcome.differences.notes,
            "pages": [{"document": p.document.file, "page": p.page + 1, "status": p.status,
                       "check": p.document.check, "detail": p.detail} for p in outcome.pages]}


def _print(console: Any, outcomes: list[tuple[Any, list[str]]], *, updated: bool) -> None:
    """One table per golden set, then what differs from the environment of its expected
    results and its verdict."""
    from refig.plugin import print_table
    from rich.table import Table

    for outcome, names in outcomes:
        golden = outcome.golden
        title = f"golden canary {golden.name} ({', '.join(names)}; {golden.renderer})"
        table = Table(title=title + (": expected results recorded" if updated else ""))
        for column in ("document", "page", "check", "result"):
            table.add_column(column, no_wrap=column == "page")
        for result in outcome.pages:
            style = _STYLE.get(result.status, "")
            said = result.status + (f": {result.detail}" if result.detail else "")
            table.add_row(f"{result.document.file}\n[dim]{result.document.cases}[/]",
                          str(result.page + 1), result.document.check,
                          f"[{style}]{said}[/]" if style else said)
        print_table(console, table)
        for line in outcome.differences.failures:
            console.print(f"[red]differs: {line}[/]", highlight=False)
        for line in outcome.differences.versions:
            console.print(f"[yellow]version differs: {line}[/]", highlight=False)
        for line in outcome.differences.notes:
            console.print(f"[dim]note: {line}[/]", highlight=False)
        state = "[green]passed[/]" if outcome.passed else "[red]FAILED[/]"
        skipped = sum(p.status == "skipped" for p in outcome.pages)
        console.print(f"{golden.name}: {state}" + (f" ({skipped} skipped: not checked)"
                                                   if skipped else ""), highlight=False)
