"""The plugins a process builds once and shares: task families, renderers (warm between
calls), metrics. Stage callables run in executor workers (threads, or Ray processes) and find
their plugins here by name, so only names cross a process boundary."""

from __future__ import annotations

import functools
import threading
from typing import Any

from refig.errors import UnknownPluginError
from refig.once import OncePerKey
from refig.plugins import Registry
from refig.protocols import Renderer, TaskFamily
from refig.records import PluginKind, PluginRecord

#: Made once per (kind, name): a renderer starting in the background (its probes, its offices)
#: does not hold up the task family an inspecting worker asks for meanwhile.
_plugins: OncePerKey[tuple[str, str], Any] = OncePerKey()
_registry_lock = threading.Lock()
_registry: Registry | None = None


def use_registry(registry: Registry) -> None:
    """Let stage callables in this process use an already loaded registry."""
    global _registry
    _registry = registry


def registry() -> Registry:
    """This process's registry (loaded on first use when none was given)."""
    global _registry
    with _registry_lock:
        if _registry is None:
            _registry = Registry.load()
        return _registry


def plugin(kind: PluginKind, name: str) -> Any:
    """The plugin object for ``name``, created once on first use in this process (thread-safe;
    only callers of the same plugin wait for its creation)."""
    def make() -> Any:
        from refig.metric_options import metric_options

        options = metric_options(name) if kind is PluginKind.METRIC else {}
        return registry().resolve(kind, name).create(**options)

    return _plugins.get((kind.value, name), make)


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


@functools.cache
def _quietly_loaded() -> Registry:
    return Registry.load(warn=lambda _line: None)


def _installed() -> Registry:
    """This process's registry when a command gave one, else the installed plugins loaded once
    without warnings (the command that started the process has printed them)."""
    return _registry if _registry is not None else _quietly_loaded()


def installed_records(kind: PluginKind | str) -> list[PluginRecord]:
    """The installed plugins' records of one kind, sorted by name."""
    return _installed().records(kind)


def make_plugin(kind: PluginKind | str, name: str, **options: Any) -> Any:
    """A new plugin object ``name`` made with ``options``, its own (:func:`renderer_for` gives
    the one this process shares); an unknown name exits 2 naming those that exist."""
    return _installed().resolve(kind, name).create(**options)


def close_plugins() -> None:
    """Close the renderers (and anything else closable) this process created."""
    for made in _plugins.clear():
        close = getattr(made, "close", None)
        if callable(close):
            close()
