"""The plugins a process builds once and shares: task families, renderers (warm between
calls), metrics. Stage callables run in executor workers (threads, or Ray processes) and find
their plugins here by name, so only names cross a process boundary."""

from __future__ import annotations

import threading
from typing import Any

from refig.errors import UnknownPluginError
from refig.plugins import Registry
from refig.protocols import Renderer, TaskFamily
from refig.records import PluginKind

_plugins: dict[tuple[str, str], Any] = {}
_plugins_lock = threading.Lock()
_registry: Registry | None = None


def use_registry(registry: Registry) -> None:
    """Let stage callables in this process use an already loaded registry."""
    global _registry
    _registry = registry


def registry() -> Registry:
    """This process's registry (loaded on first use when none was given)."""
    global _registry
    if _registry is None:
        _registry = Registry.load()
    return _registry


def plugin(kind: PluginKind, name: str) -> Any:
    """The plugin object for ``name``, created on first use in this process (thread-safe)."""
    with _plugins_lock:
        key = (kind.value, name)
        if key not in _plugins:
            _plugins[key] = registry().resolve(kind, name).create()
        return _plugins[key]


def family_for(name: str) -> TaskFamily:
    """This process's task family object ``name`` (unknown names exit 2)."""
    return plugin(PluginKind.FAMILY, name)


def installed_family(name: str) -> TaskFamily | None:
    """The task family ``name``, or None when no installed plugin provides it."""
    try:
        return family_for(name)
    except UnknownPluginError:
        return None


def renderer_for(name: str) -> Renderer:
    """This process's renderer ``name`` (warm between calls until :func:`close_plugins`)."""
    return plugin(PluginKind.RENDERER, name)


def close_plugins() -> None:
    """Close the renderers (and anything else closable) this process created."""
    with _plugins_lock:
        for made in _plugins.values():
            close = getattr(made, "close", None)
            if callable(close):
                close()
        _plugins.clear()
