"""Errors a user sees: each names the cause, the file when there is one, and the fix."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


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


def refuse_file_as_folder(path: Path, said: str, *, noun: str = "a folder",
                          fix: str = "give a folder (refig makes it when missing)") -> None:
    """A usage error (``{said} is a file, not {noun}``), before any work, when ``path`` is a
    file where refig is to write a folder."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{said} is a file, not {noun}", path=path, fix=fix)


def problems(exc: ValidationError, *, most: int = 5) -> str:
    """A pydantic error as a user reads it: ``field: what is wrong`` for each problem (at most
    ``most``), without pydantic's echo of the input and its links."""
    found = []
    for error in exc.errors(include_url=False, include_input=False)[:most]:
        place = ".".join(str(part) for part in error["loc"])
        found.append(f"{place}: {error['msg']}" if place else error["msg"])
    more = exc.error_count() - len(found)
    return "; ".join(found) + (f"; and {more} more" if more > 0 else "")


def docs(page: str) -> str:
    """Where a page of refig's documentation is (``docs("running.md")``): the file, in a clone
    of refig; else the address refig-core's metadata gives (``Documentation``), as the wheels
    hold no ``docs/``."""
    here = Path(__file__).resolve().parents[3] / "docs" / page  # core/src/refig -> the clone
    if here.is_file():
        return str(here)
    from importlib import metadata

    urls = metadata.metadata("refig-core").get_all("Project-URL") or []
    base = next((u.split(",", 1)[1].strip() for u in urls if u.startswith("Documentation,")),
                "")
    return f"{base.rstrip('/')}/{page}" if base else f"docs/{page} in refig's repository"


def install_fix(requirement: str) -> str:
    """The command that installs an optional part: ``requirement`` names a distribution that
    exists (``refig-toolkit-imaging[ocr]``; never ``refig[...]``, an unrelated project on PyPI)."""
    return f"pip install '{requirement}' into refig's environment (in a clone: uv pip install " \
           f"'{requirement}')"


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the names closest to a mistyped ``name``, else ``""``:
    every place refig resolves a name appends it to its "unknown" message."""
    close = difflib.get_close_matches(name, sorted(set(names)), n=2, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(repr(c) for c in close) + "?)"


def plural(kind: str) -> str:
    """``judge`` -> ``judges``, ``family`` -> ``families``."""
    if kind.endswith("y"):
        return kind[:-1] + "ies"
    return kind + ("es" if kind.endswith("s") else "s")


class UnknownPluginError(UsageError):
    """A selector (``--judge x``) names no registered plugin."""

    def __init__(self, kind: str, selector: str, available: Iterable[str]):
        names = sorted(available)
        listing = ", ".join(names) if names else "none installed"
        super().__init__(
            f"unknown {kind} {selector!r}{did_you_mean(selector, names)}; "
            f"available {plural(kind)}: {listing}",
            fix="`refig list-plugins --all` shows every plugin and what it provides",
        )
        self.kind = kind
        self.selector = selector
        self.available = names


class FamilyMismatchError(UsageError):
    """A selected plugin that does not serve the task family at hand (exit 2)."""

    def __init__(self, kind: str, selector: str, family: str, serving: Iterable[str]):
        self.kind, self.selector, self.family = kind, selector, family
        self.serving = sorted(serving)
        names = ", ".join(self.serving) or "none is installed"
        super().__init__(
            f"{kind} {selector!r} does not serve the {family} family; "
            f"{plural(kind)} that do: {names}",
            fix=f"choose a {kind} that serves {family} (`refig list-plugins --kind {kind}`)",
        )


class PluginLoadError(RefigError):
    """A plugin failed to load while ``REFIG_STRICT_PLUGINS=1``."""
