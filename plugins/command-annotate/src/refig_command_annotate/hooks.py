"""Registers the `refig annotate` command; the annotation pages load only when it runs."""

from __future__ import annotations

import typer
from refig.plugin import hookimpl


@hookimpl
def refig_commands(app: typer.Typer) -> None:
    from refig_command_annotate.command import register

    register(app)
