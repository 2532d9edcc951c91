"""What this machine has for refig, what is missing, and the command that fixes each gap.

Core checks the tools every run touches (uv, Node, bubblewrap, API keys); plugins add their own
through the ``checks`` field of their records, a function yielding :class:`Check` lines (what a
renderer or a metric needs beyond Python packages; a harness's pinned CLI, listed beside the
core's checks).
"""

from __future__ import annotations

import itertools
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path

from refig import __version__
from refig.errors import UsageError, docs
from refig.plugins import Registry
from refig.records import HarnessRecord, PluginKind, PluginRecord

#: Credentials refig reads and what needs each; doctor says whether each is set, never its value.
KEYS = {
    "ANTHROPIC_API_KEY": "the claude-code harness",
    "OPENAI_API_KEY": "the codex and qwen-code harnesses and the gpt-5.4 and litellm:openai/* "
                      "judges",
}
#: Endpoints refig reads with a default, and where calls go when each is unset.
ENDPOINTS = {
    "ANTHROPIC_BASE_URL": "calls go to the Anthropic API",
    "OPENAI_BASE_URL": "calls go to the OpenAI API",
}
#: Endpoints without a default: unset, what needs them is not configured.
REQUIRED_ENDPOINTS = {
    "REFIG_QWEN_API_BASE": ("the qwen judge", "export REFIG_QWEN_API_BASE=http://HOST:8000/v1 "
                            "(a vLLM, SGLang or Ollama server), or pass --judge-opt api_base=URL"),
}


class Status(StrEnum):
    """``missing`` is for what ``refig demo`` needs; an optional gap is a ``warn``."""

    OK = "ok"
    WARN = "warn"
    MISSING = "missing"


@dataclass(frozen=True)
class Check:
    """One line of ``refig doctor``: a component, its state, and how to fix it.

    ``required`` marks what ``refig demo`` cannot work without; a required component that is
    missing makes ``refig doctor`` exit 1.
    """

    component: str
    status: Status
    detail: str = ""
    fix: str | None = None
    required: bool = False

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "status": self.status.value}


def apt_fix(*packages: str) -> str:
    """The exact apt command that installs ``packages`` on this machine."""
    sudo = "" if os.geteuid() == 0 else "sudo "
    return f"{sudo}apt-get install -y --no-install-recommends {' '.join(packages)}"


def command_version(*argv: str, timeout: float = 20) -> str | None:
    """The first line ``argv`` prints, or None when it is missing or fails."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if done.returncode == 0 and text else None


def tool(component: str, argv: tuple[str, ...], fix: str, *, required: bool = False,
         purpose: str = "") -> Check:
    """A check that a command-line tool runs, reporting its version."""
    version = command_version(*argv)
    if version is None:
        detail = f"not found{f' ({purpose})' if purpose else ''}"
        return Check(component, Status.MISSING if required else Status.WARN, detail, fix,
                     required)
    return Check(component, Status.OK, version)


def core_checks(registry: Registry) -> Iterator[Check]:
    """The checks refig itself makes, whatever plugins are installed."""
    yield Check("python", Status.OK, f"{platform.python_version()} at {sys.executable}")
    yield Check("refig", Status.OK, __version__)
    for info in registry.plugins:
        if info.status == "failed":
            yield Check(f"plugin {info.name}", Status.WARN, info.error or "failed to load",
                        f"reinstall it, or hide it with REFIG_DISABLE_PLUGINS={info.name}")
    yield tool("uv", ("uv", "--version"), uv_fix())
    yield command_check()
    yield tool("node", ("node", "--version"), apt_fix("nodejs", "npm"),
               purpose="the harness CLIs run on Node.js 20 or newer")
    yield sandbox_check()
    yield process_cap_check()
    yield from harness_checks(registry)
    for name, use in KEYS.items():
        if os.environ.get(name):
            yield Check(name, Status.OK, f"set, for {use}")
        else:
            yield Check(name, Status.WARN, f"not set; needed for {use}", f"export {name}=...")
    for name, unset in ENDPOINTS.items():
        value = os.environ.get(name)
        yield Check(name, Status.OK, value or f"unset: {unset}")
    for name, (use, fix) in REQUIRED_ENDPOINTS.items():
        value = os.environ.get(name)
        if value:
            yield Check(name, Status.OK, value)
        else:
            yield Check(name, Status.WARN, f"not configured: {use} needs it", fix)


def in_virtualenv() -> bool:
    """True when this Python is a virtual environment's (where ``pip install --user`` fails)."""
    return sys.prefix != sys.base_prefix


def uv_fix() -> str:
    """How to install uv from here: into this virtual environment, else the user's site."""
    if in_virtualenv():
        return f"{sys.executable} -m pip install uv"
    return "python3 -m pip install --user uv"


def command_check() -> Check:
    """Whether a shell finds the ``refig`` command that refig's hints name (``refig view ...``):
    under ``uv run`` (which puts the environment's bin first on PATH) the PATH without it."""
    here = Path(sys.executable).parent
    path = os.environ.get("PATH", "")
    if os.environ.get("UV"):  # set by `uv run`, which added `here` for this command only
        path = os.pathsep.join(p for p in path.split(os.pathsep) if Path(p) != here)
    found = shutil.which("refig", path=path)
    if found:
        return Check("refig command", Status.OK, found)
    return Check("refig command", Status.WARN,
                 "not on PATH: the commands refig prints (refig view DIR, refig harness install "
                 "NAME) need it; meanwhile prefix them with `uv run`",
                 f"ln -s {here / 'refig'} ~/.local/bin/refig and put ~/.local/bin on PATH (in a "
                 "clone of refig, scripts/put-on-path does both)")


def sandbox_check() -> Check:
    """Whether bubblewrap is installed and can create namespaces here (``--sandbox auto``)."""
    from refig.running.sandbox import bwrap_works

    found = tool("bubblewrap", ("bwrap", "--version"), apt_fix("bubblewrap"),
                 purpose="without it refig run starts no agent (only model-free baselines, "
                 f"unsandboxed) unless given --sandbox none; see {docs('running.md')}")
    if found.status is Status.OK and not bwrap_works():
        return Check("bubblewrap", Status.WARN,
                     f"{found.detail} cannot create namespaces here, so refig run starts no "
                     "agent unless given --sandbox none",
                     "allow user namespaces (sysctl kernel.unprivileged_userns_clone=1; in "
                     "Docker, --security-opt seccomp=unconfined), or pass --sandbox none "
                     "knowingly")
    return found


def process_cap_check() -> Check:
    """How the processes of a sandboxed program (a family's generated program) are capped here."""
    from refig.running.process_cap import describe, resolve
    from refig.running.programs import cap_holds

    fix = (apt_fix("util-linux") + " (prlimit, setpriv), or run refig where a pids cgroup "
           "is writable")
    try:
        mechanism = resolve()
    except UsageError as error:  # REFIG_PROCESS_CAP names one this machine cannot hold
        return Check("process cap", Status.WARN, error.message, error.fix or fix)
    if mechanism == "none":
        return Check("process cap", Status.WARN, f"none: {describe(mechanism)}", fix)
    if not cap_holds(mechanism):
        return Check("process cap", Status.WARN, f"{mechanism}: {describe(mechanism)}, but a "
                     "probe of 40 children under a cap of 16 started them all", fix)
    return Check("process cap", Status.OK, f"{mechanism}: {describe(mechanism)}")


def harness_checks(registry: Registry) -> Iterator[Check]:
    """Each harness CLI against its pinned version: the checks of the harness records that pin
    a CLI, by harness name."""
    pinned = [r for r in registry.records(PluginKind.HARNESS) if _pins_cli(r)]
    for record in sorted(pinned, key=lambda r: r.name):
        yield from _record_checks(PluginKind.HARNESS, record)


def _pins_cli(record: object) -> bool:
    return isinstance(record, HarnessRecord) and record.cli is not None


def plugin_checks(registry: Registry) -> Iterator[Check]:
    """What each plugin reports through its records' ``checks`` (a harness CLI's come earlier,
    with the core's)."""
    for kind in PluginKind:
        for record in registry.records(kind):
            if not _pins_cli(record):
                yield from _record_checks(kind, record)


def _record_checks(kind: PluginKind, record: PluginRecord) -> Iterator[Check]:
    """The checks ``record`` declares; a check that raises is reported, never fatal."""
    if record.checks is None:
        return
    try:
        yield from record.checks()
    except Exception as exc:  # a plugin's check must not take the doctor down
        yield Check(f"{kind} {record.name}", Status.WARN,
                    f"its check raised {type(exc).__name__}: {exc}")


def run_checks(registry: Registry) -> list[Check]:
    """Every check, core first, without duplicates (plugins may share a component)."""
    seen: dict[str, Check] = {}
    for check in itertools.chain(core_checks(registry), plugin_checks(registry)):
        seen.setdefault(check.component, check)
    return list(seen.values())
