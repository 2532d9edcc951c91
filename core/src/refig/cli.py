"""The ``refig`` command line, built by a factory from a plugin registry.

Nothing here runs at import time: :func:`create_app` assembles the app from the command modules
in :mod:`refig.commands` (each exposes ``register(app, registry)``) and from plugins'
``refig_commands`` hooks, and :func:`main` turns refig's errors into a message and an exit code.
"""

from __future__ import annotations

import importlib
import pkgutil
import sqlite3
import sys
from types import SimpleNamespace
from typing import Any

import typer
from rich.markup import escape

from refig import __version__, commands
from refig.console import err
from refig.errors import RefigError
from refig.plugins import Registry
from refig.store_marks import unreadable_store

HELP_OPTIONS = ["-h", "--help"]


def create_app(registry: Registry) -> typer.Typer:
    """Build the ``refig`` app for a registry."""
    app = typer.Typer(
        name="refig",
        help="Evaluate agents that rebuild figures as editable documents.",
        no_args_is_help=True,
        pretty_exceptions_show_locals=False,
        rich_markup_mode="rich",
        context_settings={"help_option_names": HELP_OPTIONS},
    )

    def _version(value: bool) -> None:
        if value:
            typer.echo(f"refig {__version__}")
            raise typer.Exit()

    @app.callback()
    def _root(
        # Eager, so it answers before click asks for a command ("Missing command.", exit 2).
        version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                     help="Print the version and exit."),
    ) -> None:
        """Evaluate agents that rebuild figures as editable documents."""

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(app, registry)
    registry.add_commands(app)
    # The help lists commands by name, whether the core or a plugin added them.
    app.registered_commands.sort(
        key=lambda c: c.name or getattr(c.callback, "__name__", "").replace("_", "-"))
    app.registered_groups.sort(key=lambda g: g.name or "")
    return app


def _hide_flag_types(command: Any) -> Any:
    """Show a flag as just its name in ``--help``: typer labels every flag, ``--help`` too,
    ``<bool>``, which reads as if it took a value."""
    names = SimpleNamespace(help_option_names=HELP_OPTIONS)  # all get_help_option reads
    helper = command.get_help_option(names)
    for param in [*command.params, *([helper] if helper else [])]:
        if getattr(param, "is_flag", False) and not getattr(param, "count", False):
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        _hide_flag_types(sub)
    return command


def run(argv: list[str] | None = None) -> int:
    """Run the CLI with ``argv``; return the exit code instead of exiting."""
    try:
        app = create_app(Registry.load())
        _hide_flag_types(typer.main.get_command(app))(args=argv, prog_name="refig")
    except RefigError as exc:
        return _report(exc)
    except sqlite3.DatabaseError as exc:  # damage found past the store's opening checks
        return _report(unreadable_store(exc))
    except SystemExit as exc:  # typer's standalone mode reports every ending this way
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


def _report(exc: RefigError) -> int:
    # soft wrap: the terminal folds long lines, so a path in the message copies whole
    err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    return exc.exit_code


def main() -> None:
    """Console-script entry point."""
    sys.exit(run())
