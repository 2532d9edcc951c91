"""Registers the `refig plan` command; the analysis toolkit loads only when it runs."""

from __future__ import annotations

import typer
from refig.plugin import hookimpl


@hookimpl
def refig_commands(app: typer.Typer) -> None:
    from refig_command_plan.command import register

    register(app)
