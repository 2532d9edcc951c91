"""Registers ``refig canary``; the command's module is imported when the app is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from refig.plugin import hookimpl

if TYPE_CHECKING:
    import typer


@hookimpl
def refig_commands(app: typer.Typer, registry: Any) -> None:
    from refig_command_canary.command import register

    register(app, registry)
