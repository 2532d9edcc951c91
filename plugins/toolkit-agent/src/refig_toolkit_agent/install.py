"""Pinned harness CLIs: install them from npm into a refig-managed prefix, find them, list them.

Each pinned CLI lives in ``<refig home>/harnesses/<name>/<version>/`` (an npm prefix), so two
versions never clash and a run always drives the version its adapter was tested with. A binary
on ``PATH`` is used only when its ``--version`` reports exactly the pinned version.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from refig.doctor import Check, Status
from refig.errors import RefigError, UsageError, did_you_mean
from refig.home import refig_home
from refig.plugins import Registry
from refig.records import CliPin, HarnessRecord, PluginKind

VERSION_TIMEOUT = 30.0
INSTALL_TIMEOUT = 900.0


def prefix(name: str, pin: CliPin) -> Path:
    """The npm prefix that holds ``pin`` for harness ``name``."""
    return refig_home() / "harnesses" / name / pin.version


@dataclass(frozen=True)
class InstalledCli:
    """What ``refig doctor`` and ``refig harness list`` report for one harness CLI."""

    harness: str
    package: str
    pinned: str
    found: str | None
    path: str | None
    source: str  # "refig", "path" or "missing"
    fix: str | None = None

    @property
    def ok(self) -> bool:
        return self.found == self.pinned

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "ok": self.ok}


#: The variables a CLI's ``--version`` check inherits (the CLI is not yet sandboxed there).
_VERSION_PASSTHROUGH = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")


def _version_env() -> dict[str, str]:
    """What ``--version`` may see: where to find programs and a home, never a key."""
    kept = {name: os.environ[name] for name in _VERSION_PASSTHROUGH if name in os.environ}
    return {**kept, "NO_COLOR": "1"}


def cli_version(binary: Path | str, pin: CliPin) -> str | None:
    """The version ``binary --version`` reports, or None when it does not run."""
    try:
        done = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT,
            stdin=subprocess.DEVNULL, env=_version_env(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(pin.version_pattern, done.stdout + done.stderr)
    return match.group(1) if done.returncode == 0 and match else None


def install_command(name: str) -> str:
    """The command that installs harness ``name``'s pinned CLI."""
    return f"refig harness install {name}"


def locate(name: str, pin: CliPin) -> InstalledCli:
    """Find harness ``name``'s CLI: the refig-managed install first, then ``PATH``."""
    managed = prefix(name, pin) / "node_modules" / ".bin" / pin.bin
    if managed.exists():
        found = cli_version(managed, pin)
        return InstalledCli(name, pin.package, pin.version, found, str(managed), "refig",
                            None if found == pin.version else install_command(name))
    on_path = shutil.which(pin.bin)
    if on_path:
        found = cli_version(on_path, pin)
        fix = None if found == pin.version else (
            f"{install_command(name)}  (PATH has {pin.bin} {found}, the adapter pins {pin.version})"
        )
        return InstalledCli(name, pin.package, pin.version, found, on_path, "path", fix)
    return InstalledCli(name, pin.package, pin.version, None, None, "missing",
                        install_command(name))


def cli_checks(name: str, pin: CliPin) -> Iterator[Check]:
    """``refig doctor``'s line for harness ``name``: its pinned CLI against what is installed (a
    CLI harness's record names this as its ``checks``)."""
    cli = locate(name, pin)
    if cli.ok:
        yield Check(f"{cli.harness} CLI", Status.OK, f"{cli.package} {cli.found} ({cli.path})")
    else:
        found = f"found {cli.found}" if cli.found else "not installed"
        yield Check(f"{cli.harness} CLI", Status.WARN,
                    f"{cli.package} {cli.pinned} pinned, {found}", cli.fix)


def require(name: str, pin: CliPin) -> InstalledCli:
    """The pinned CLI (``path`` set, ``ok``), or a RefigError that says how to install it."""
    found = locate(name, pin)
    if not found.ok or found.path is None:
        have = f"found {pin.bin} {found.found} at {found.path}" if found.path else "not installed"
        raise RefigError(
            f"harness {name} needs {pin.package}@{pin.version} ({have})", fix=found.fix
        )
    return found


def install(name: str, pin: CliPin, *, force: bool = False) -> InstalledCli:
    """Install ``pin`` with npm into refig's prefix for ``name``; idempotent unless ``force``."""
    target = prefix(name, pin)
    current = locate(name, pin)
    if current.ok and current.source == "refig" and not force:
        return current
    npm = shutil.which("npm")
    if npm is None:
        raise RefigError(
            f"installing harness {name} needs npm (Node.js), which is not on PATH",
            fix="apt-get install nodejs npm  (or install Node.js 20+ another way)",
        )
    target.mkdir(parents=True, exist_ok=True)
    command = [npm, "install", "--prefix", str(target), "--no-audit", "--no-fund",
               "--save-exact", f"{pin.package}@{pin.version}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise RefigError(f"npm install of {pin.package}@{pin.version} took over "
                         f"{INSTALL_TIMEOUT:.0f} s", path=target,
                         fix="check access to the npm registry, then run it again") from exc
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-8:])
        raise RefigError(f"npm install of {pin.package}@{pin.version} failed:\n{tail}",
                         path=target, fix="check access to the npm registry, then run it again")
    result = locate(name, pin)
    if not result.ok:
        raise RefigError(
            f"{pin.package}@{pin.version} installed but `{pin.bin} --version` reports "
            f"{result.found!r}", path=target, fix=f"{install_command(name)} --force",
        )
    return result


def pinned_clis(registry: Registry) -> dict[str, CliPin]:
    """Harness name -> the CLI its adapter pins, for every harness that drives one."""
    pins: dict[str, CliPin] = {}
    for record in registry.records(PluginKind.HARNESS):
        if isinstance(record, HarnessRecord) and record.cli is not None:
            pins[record.name] = record.cli
    return pins


def pinned_cli(pins: dict[str, CliPin], name: str) -> CliPin:
    """The pin of harness ``name``, or a UsageError listing the harnesses that drive a CLI."""
    if name not in pins:
        raise UsageError(
            f"unknown harness CLI {name!r}{did_you_mean(name, pins)}; harnesses with a CLI: "
            f"{', '.join(sorted(pins)) or 'none installed'}",
            fix="`refig harness list` shows them",
        )
    return pins[name]


def harness_clis(registry: Registry) -> list[InstalledCli]:
    """Each harness CLI with its pinned and installed versions (``refig harness list``)."""
    return [locate(name, pin) for name, pin in sorted(pinned_clis(registry).items())]
