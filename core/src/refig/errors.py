"""Errors a user sees: each names the cause, the file when there is one, and the fix."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


class RefigError(Exception):
    """A failure refig explains instead of printing a traceback."""

    exit_code = 1

    def __init__(self, message: str, *, path: Path | str | None = None, fix: str | None = None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.fix = fix

    def __str__(self) -> str:
        parts = [self.message]
        if self.path is not None:
            parts.append(f"file: {self.path}")
        if self.fix:
            parts.append(f"fix: {self.fix}")
        return "\n".join(parts)


class UsageError(RefigError):
    """The command line asked for something that does not exist or does not fit."""

    exit_code = 2


class UnknownPluginError(UsageError):
    """A selector (``--judge x``) names no registered plugin."""

    def __init__(self, kind: str, selector: str, available: Iterable[str]):
        names = sorted(available)
        listing = ", ".join(names) if names else "none installed"
        plural = kind + ("es" if kind.endswith("s") else "s")
        super().__init__(
            f"unknown {kind} {selector!r}; available {plural}: {listing}",
            fix="`refig list-plugins --all` shows every plugin and what it provides",
        )
        self.kind = kind
        self.selector = selector
        self.available = names


class PluginLoadError(RefigError):
    """A plugin failed to load while ``REFIG_STRICT_PLUGINS=1``."""
