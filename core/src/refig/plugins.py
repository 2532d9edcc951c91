"""The plugin registry: the only code in refig that talks to pluggy.

Plugins are modules named by entry points in group ``refig`` (plus refig's own built-ins). Each is
loaded on its own: one that fails to import, implements an unknown hook, raises in a registration
hook or returns something that is not a record is reported as ``failed`` (with the file and line
where it failed; the whole traceback under ``REFIG_DEBUG=1``) and skipped, unless
``REFIG_STRICT_PLUGINS=1``. ``REFIG_LOAD_PLUGINS`` (comma-separated distributions; empty means
built-ins only) and ``REFIG_DISABLE_PLUGINS`` choose which distributions load. A name two
distributions claim stays with the one installed first; the newcomer loses only that name.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
import re
import sys
import traceback
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, cast

import pluggy

from refig import hookspecs
from refig.errors import FamilyMismatchError, PluginLoadError, RefigError, UnknownPluginError
from refig.records import RECORD_TYPES, PluginKind, PluginRecord

ENTRY_POINT_GROUP = "refig"
CORE_DISTRIBUTION = "refig-core"
BUILTIN_MODULES = ("refig.builtins.executors",)

REGISTRATION_HOOKS: dict[str, PluginKind] = {
    "refig_task_families": PluginKind.FAMILY,
    "refig_suites": PluginKind.SUITE,
    "refig_harnesses": PluginKind.HARNESS,
    "refig_workflows": PluginKind.WORKFLOW,
    "refig_executors": PluginKind.EXECUTOR,
    "refig_renderers": PluginKind.RENDERER,
    "refig_metrics": PluginKind.METRIC,
    "refig_judges": PluginKind.JUDGE,
    "refig_reporters": PluginKind.REPORTER,
}

Status = Literal["active", "failed", "disabled"]
#: Code that is not the plugin's own: a failure's place is the innermost frame outside these.
_NOT_THE_PLUGIN = (
    *(str(Path(m.__file__ or "").parent) + os.sep for m in (hookspecs, pluggy, importlib)),
    "<frozen ",
    "<string>",
)


def _truthy(value: str | None) -> bool:
    return (value or "") in {"1", "true", "yes"}


def where(exc: BaseException) -> str:
    """``file:line`` of the plugin's code that ``exc`` came from (the line of a syntax error;
    else the innermost frame outside refig's loader, pluggy and importlib), or ``""``."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}"
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [f for f in frames if not f.filename.startswith(_NOT_THE_PLUGIN)]
    return f"{mine[-1].filename}:{mine[-1].lineno}" if mine else ""


def installed_at(ep: metadata.EntryPoint) -> float:
    """When ``ep``'s distribution was installed (its metadata's time; 0 when unknown): of two
    distributions claiming one name, the one installed first keeps it."""
    found = getattr(ep.dist, "_path", None)  # a PathDistribution's .dist-info directory
    try:
        return Path(found).stat().st_mtime if found else 0.0
    except OSError:
        return 0.0


def canonical(name: str) -> str:
    """Normalise a distribution name the way packaging does (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _names_from_env(value: str | None) -> set[str] | None:
    if value is None:
        return None
    return {canonical(part) for part in value.split(",") if part.strip()}


@dataclass
class PluginInfo:
    """One distribution's standing in the registry, as ``refig list-plugins`` shows it."""

    name: str
    version: str
    status: Status = "active"
    provides: list[str] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)
    error: str | None = None
    builtin: bool = False
    #: Names this distribution claims that another, installed first, holds (each a sentence).
    lost: list[str] = field(default_factory=list)
    installed: float = 0.0

    def may_provide(self, kind: str) -> bool:
        """True when the plugin provides ``kind``, lost a name of that kind to another, or
        failed before it could say and its registration hooks or its name
        (``refig-<kind>-<name>``) say it is of that kind."""
        if any(p.startswith(f"{kind}:") for p in self.provides):
            return True
        if any(lost.startswith(f"{kind} ") for lost in self.lost):
            return True
        if self.status != "failed":
            return False
        hooked = {REGISTRATION_HOOKS[h].value for h in self.hooks if h in REGISTRATION_HOOKS}
        return kind in hooked or f"-{kind}-" in f"-{self.name.lower().replace('_', '-')}-"

    def as_json(self) -> dict[str, Any]:
        """The documented ``--json`` shape: exactly these six keys."""
        return {
            "name": self.name,
            "version": self.version,
            "status": self.status,
            "provides": sorted(self.provides),
            "hooks": sorted(self.hooks),
            "error": self.error or ("; ".join(self.lost) if self.lost else None),
        }


@dataclass(frozen=True)
class Selection:
    """A resolved selector: the record, the distribution behind it and any ``:argument``."""

    record: PluginRecord
    distribution: str
    argument: str | None = None

    @property
    def label(self) -> str:
        """The selector as the user wrote it, with the canonical name."""
        return f"{self.record.name}:{self.argument}" if self.argument else self.record.name

    def create(self, **options: Any) -> Any:
        """Call the record's factory (the heavy import happens here); a factory that returns
        nothing is the plugin's bug, said with its name rather than as a later AttributeError."""
        if self.record.accepts_argument:
            options["argument"] = self.argument
        made = self.record.factory(**options)
        if made is None:
            kind, name = self.record.kind, self.record.name
            raise RefigError(
                f"plugin {self.distribution}: the factory of {kind} {name!r} returned None, "
                f"not a {kind}",
                fix=f"make it return the {kind} object (the plugin's author must fix it; "
                f"REFIG_DISABLE_PLUGINS={self.distribution} hides it)",
            )
        return made


@dataclass
class _Loaded:
    info: PluginInfo
    modules: list[ModuleType]
    records: list[PluginRecord] = field(default_factory=list)


class Registry:
    """Typed access to everything plugins registered."""

    def __init__(
        self,
        *,
        strict: bool = False,
        warn: Callable[[str], None] | None = None,
        debug: bool = False,
    ):
        self._pm = pluggy.PluginManager(hookspecs.PROJECT)
        self._pm.add_hookspecs(hookspecs)
        self._strict = strict
        self._debug = debug
        self._warn = warn or (lambda line: print(line, file=sys.stderr))
        self._loaded: dict[str, _Loaded] = {}
        self._by_name: dict[PluginKind, dict[str, tuple[PluginRecord, str]]] = defaultdict(dict)

    # --- loading --------------------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        *,
        environ: Mapping[str, str] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> Registry:
        """Load built-ins and installed plugins, honouring the ``REFIG_*_PLUGINS`` variables."""
        env = os.environ if environ is None else environ
        registry = cls(
            strict=_truthy(env.get("REFIG_STRICT_PLUGINS")),
            warn=warn,
            debug=_truthy(env.get("REFIG_DEBUG")),
        )
        registry._load_builtins()
        allow = _names_from_env(env.get("REFIG_LOAD_PLUGINS"))
        deny = _names_from_env(env.get("REFIG_DISABLE_PLUGINS")) or set()
        by_dist: dict[str, list[metadata.EntryPoint]] = defaultdict(list)
        for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
            by_dist[canonical(ep.dist.name) if ep.dist else ep.name].append(ep)
        for dist, group in sorted(by_dist.items()):
            if dist == CORE_DISTRIBUTION:
                continue
            version = group[0].dist.version if group[0].dist else "unknown"
            if dist in deny or (allow is not None and dist not in allow):
                info = PluginInfo(name=dist, version=version, status="disabled")
                registry._loaded[dist] = _Loaded(info, [])
                continue
            registry._load_distribution(dist, version, group)
            registry._loaded[dist].info.installed = installed_at(group[0])
        registry._resolve_conflicts()
        return registry

    def _load_builtins(self) -> None:
        version = metadata.version(CORE_DISTRIBUTION)
        info = PluginInfo(name=CORE_DISTRIBUTION, version=version, builtin=True)
        loaded = _Loaded(info, [])
        for module_name in BUILTIN_MODULES:
            module = importlib.import_module(module_name)
            self._pm.register(module, name=module_name)
            loaded.modules.append(module)
        loaded.records = self._collect(loaded)
        self._add(loaded)

    def _load_distribution(
        self, dist: str, version: str, entry_points: list[metadata.EntryPoint]
    ) -> None:
        loaded = _Loaded(PluginInfo(name=dist, version=version), [])
        self._loaded[dist] = loaded
        try:
            for ep in entry_points:
                module = ep.load()
                self._pm.register(module, name=f"{dist}:{ep.name}")
                loaded.modules.append(module)
                unknown = [
                    caller.name
                    for caller in self._pm.get_hookcallers(module) or ()
                    if caller.spec is None
                ]
                if unknown:
                    raise ValueError(f"implements unknown hook(s) {', '.join(unknown)}")
                self._warn_unmarked(dist, ep, module)
            loaded.records = self._collect(loaded)
        except Exception as exc:  # a broken plugin must never take the CLI down
            place = where(exc)
            self._fail(
                loaded, f"{type(exc).__name__}: {exc}" + (f" ({place})" if place else ""), exc
            )
            return
        self._add(loaded)

    def _warn_unmarked(self, dist: str, ep: metadata.EntryPoint, module: ModuleType) -> None:
        """Warn about hook functions pluggy ignores because they lack ``@hookimpl``, and about a
        module that implements no hook at all (it would be listed active, providing nothing)."""
        hooked = {caller.name for caller in self._pm.get_hookcallers(module) or ()}
        unmarked = sorted(
            name
            for name, value in vars(module).items()
            if callable(value) and hasattr(self._pm.hook, name) and name not in hooked
        )
        if unmarked:
            self._warn(
                f"refig: plugin {dist}: {module.__name__} defines {', '.join(unmarked)} "
                "without @hookimpl, so refig ignores them (decorate each with "
                "`@hookimpl`, from refig.plugin)"
            )
        elif not hooked:
            self._warn(
                f"refig: plugin {dist}: its entry point {ep.name} = {ep.value} names a "
                "module that implements no refig hook, so it provides nothing"
            )

    def _collect(self, loaded: _Loaded) -> list[PluginRecord]:
        """Call the plugin's registration hooks one by one and check what they return."""
        records: list[PluginRecord] = []
        for module in loaded.modules:
            for caller in self._pm.get_hookcallers(module) or ():
                loaded.info.hooks.append(caller.name)
                kind = REGISTRATION_HOOKS.get(caller.name)
                if kind is None:
                    continue
                impl = next(i for i in caller.get_hookimpls() if i.plugin is module)
                # pluggy types a hook as returning object; each record is checked here
                for record in cast("Iterable[object]", impl.function() or ()):
                    expected = RECORD_TYPES[kind]
                    if not isinstance(record, expected):
                        raise TypeError(
                            f"{caller.name} returned {type(record).__name__}, "
                            f"expected {expected.__name__}"
                        )
                    for part in ("factory", "checks"):
                        value = getattr(record, part)
                        if not callable(value) and (part == "factory" or value is not None):
                            raise TypeError(
                                f"{caller.name}: {kind} {record.name!r} has a {part} that is not "
                                f"callable ({type(value).__name__}); give a function or class"
                            )
                    records.append(record)
        loaded.info.hooks = sorted(set(loaded.info.hooks))
        return records

    def _add(self, loaded: _Loaded) -> None:
        self._loaded[loaded.info.name] = loaded
        loaded.info.provides = [f"{r.kind}:{r.name}" for r in loaded.records]

    def _fail(self, loaded: _Loaded, error: str, cause: BaseException | None = None) -> None:
        dist = loaded.info.name
        if self._debug and cause is not None:
            self._warn("".join(traceback.format_exception(cause)).rstrip())
        if self._strict:
            raise PluginLoadError(f"plugin {dist} failed to load: {error}") from cause
        for module in loaded.modules:
            if self._pm.is_registered(module):
                self._pm.unregister(module)
        loaded.info.status = "failed"
        loaded.info.error = error
        loaded.info.provides = []
        loaded.records = []
        self._warn(
            f"refig: plugin {dist} failed and was skipped: {error} "
            f"(REFIG_DISABLE_PLUGINS={dist} hides it)"
        )

    def _resolve_conflicts(self) -> None:
        """A name two distributions claim stays with the built-ins, else with the distribution
        installed first; the newcomer loses that name only (an alias, or the record whose name
        it is), with a warning naming both. Under ``REFIG_STRICT_PLUGINS=1`` it is an error."""

        def seniority(dist: str) -> tuple[bool, float, str]:
            info = self._loaded[dist].info
            return (not info.builtin, info.installed, dist)

        while True:
            claims: dict[tuple[PluginKind, str], list[str]] = defaultdict(list)
            for dist, loaded in self._loaded.items():
                for record in loaded.records:
                    for name in set(record.names):
                        claims[(record.kind, name)].append(dist)
            clash = next(((k, d) for k, d in sorted(claims.items()) if len(d) > 1), None)
            if clash is None:
                break
            (kind, name), dists = clash
            holder, newcomer = sorted(dists, key=seniority)[:2]
            loaded = self._loaded[newcomer]
            record = [r for r in loaded.records if r.kind == kind and name in r.names][-1]
            lost = (
                f"{kind} {name!r}"
                if name == record.name
                else f"the alias {name!r} of its {kind} {record.name!r}"
            )
            message = (
                f"{kind} {name!r} is claimed by both {holder} and {newcomer}; {holder} "
                f"(installed first) keeps it, so {newcomer} loses {lost}"
                if holder != newcomer
                else f"{kind} {name!r} is claimed twice by {holder}; its second claim is lost"
            )
            if self._strict:
                raise PluginLoadError(
                    message,
                    fix=f"uninstall one of them, or hide one with REFIG_DISABLE_PLUGINS={newcomer}",
                )
            loaded.records = [
                r
                if r is not record
                else dataclasses.replace(r, aliases=tuple(a for a in r.aliases if a != name))
                for r in loaded.records
                if r is not record or name != record.name
            ]
            loaded.info.provides = [f"{r.kind}:{r.name}" for r in loaded.records]
            loaded.info.lost.append(message)
            self._warn(f"refig: {message} (REFIG_DISABLE_PLUGINS={newcomer} hides it)")
        self._by_name.clear()
        for dist, loaded in self._loaded.items():
            for record in loaded.records:
                for name in record.names:
                    self._by_name[record.kind][name] = (record, dist)

    # --- queries --------------------------------------------------------------------------------

    @property
    def plugins(self) -> list[PluginInfo]:
        """Every distribution seen, built-ins first."""
        infos = [loaded.info for loaded in self._loaded.values()]
        return sorted(infos, key=lambda info: (not info.builtin, info.name))

    def records(self, kind: PluginKind | str) -> list[PluginRecord]:
        """The records of one kind, sorted by name."""
        seen = {id(r): r for r, _ in self._by_name[PluginKind(kind)].values()}
        return sorted(seen.values(), key=lambda r: r.name)

    def names(self, kind: PluginKind | str) -> list[str]:
        """The canonical names of one kind."""
        return [r.name for r in self.records(kind)]

    def resolve(self, kind: PluginKind | str, selector: str) -> Selection:
        """Find ``name`` or ``name:argument``; unknown names raise :class:`UnknownPluginError`."""
        kind = PluginKind(kind)
        table = self._by_name[kind]
        if selector in table:
            record, dist = table[selector]
            return Selection(record, dist)
        prefix, sep, argument = selector.partition(":")
        if sep and prefix in table and table[prefix][0].accepts_argument and argument:
            record, dist = table[prefix]
            return Selection(record, dist, argument)
        raise UnknownPluginError(kind.value, selector, self.names(kind))

    def serving(self, kind: PluginKind | str, family: str) -> list[PluginRecord]:
        """The records of one kind that serve ``family``."""
        return [r for r in self.records(kind) if r.serves(family)]

    def resolve_for(self, kind: PluginKind | str, selector: str, family: str) -> Selection:
        """:meth:`resolve`, refusing a contribution that does not serve ``family``: the one
        place every kind's ``families`` is enforced (:class:`FamilyMismatchError`, exit 2)."""
        selection = self.resolve(kind, selector)
        check_serves(self, selection, family)
        return selection

    def family(self, name: str) -> Selection:
        """The task family ``name`` (unknown names exit 2 listing the installed families)."""
        return self.resolve(PluginKind.FAMILY, name)

    def add_commands(self, app: Any) -> None:
        """Let every active plugin add subcommands; a failing one is reported and skipped."""
        for loaded in list(self._loaded.values()):
            for module in loaded.modules:
                hook = getattr(module, "refig_commands", None)
                if hook is None or not self._pm.is_registered(module):
                    continue
                wanted = inspect.signature(hook).parameters
                before = _command_names(app)
                try:
                    hook(**{name: value for name, value in (("app", app), ("registry", self))
                            if name in wanted})
                except Exception as exc:
                    self._fail(loaded, f"refig_commands raised {type(exc).__name__}: {exc}", exc)
                    self._resolve_conflicts()
                    break
                loaded.info.provides += [f"command:{n}" for n in _command_names(app) - before]


def _command_names(app: Any) -> set[str]:
    """The names of the commands and command groups a typer app holds."""
    commands = {c.name or c.callback.__name__.replace("_", "-")
                for c in app.registered_commands if c.callback is not None}
    return commands | {g.name for g in app.registered_groups if g.name}


def check_serves(registry: Registry, selection: Selection, family: str) -> None:
    """Raise :class:`FamilyMismatchError` unless ``selection`` serves ``family``, naming the
    contributions of its kind that do."""
    record = selection.record
    if not record.serves(family):
        serving = [r.name for r in registry.serving(record.kind, family)]
        raise FamilyMismatchError(record.kind.value, selection.label, family, serving)


def distribution_version(distribution: str) -> str:
    """The installed version of ``distribution`` ("unknown" when it is not installed)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"
