"""What LibreOffice may see while it renders an untrusted deck: only an inert copy of the deck.

Every office (warm or batch) runs inside bubblewrap: its own network namespace with no way out
(only a loopback of its own), a private ``/tmp``, read-only system directories (``/usr``, a short
list of ``/etc``, the fontconfig cache) and, writable, only its own scratch folder and profile.
The deck it converts is a copy in that folder whose links out of the package were made inert
(:func:`refig_toolkit_pptx.links.write_inert_copy`); the original's folder is never visible, so a
link that slipped through would find nothing beside the file, nothing of the host and no network.

``REFIG_RENDER_SANDBOX=none`` (or the renderer option ``sandbox="none"``) is the explicit
opt-out for a machine where bubblewrap cannot run (some containers forbid user namespaces):
links are still made inert, but LibreOffice then runs with the user's own view of the host and
network.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from refig.plugin import ErrorInfo, RefigError, SandboxPolicy, UsageError
from refig_toolkit_pptx import write_inert_copy

SANDBOXES = ("bwrap", "none")
#: The environment variable that opts out where no renderer option reaches (``refig check``).
SANDBOX_VARIABLE = "REFIG_RENDER_SANDBOX"
#: Read-only beyond the system directories the sandbox always binds: fonts' caches.
_READABLE = (Path("/var/cache/fontconfig"), Path("/usr/local/share/fonts"))
#: The PATH LibreOffice runs with: its ``soffice`` is a shell script that needs the system's
#: tools (``dirname``), whatever PATH refig itself was started with.
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
#: What of refig's environment reaches LibreOffice: locale and fontconfig's configuration
#: (never keys), so that LibreOffice sees the fonts ``fc-list`` reports to refig.
_PASSTHROUGH = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "FONTCONFIG_FILE", "FONTCONFIG_PATH")


def office_policy(sandbox: str | None = None) -> SandboxPolicy:
    """The sandbox every office runs in (``sandbox``, else ``$REFIG_RENDER_SANDBOX``, else
    ``bwrap``); bubblewrap must work unless it is ``none``."""
    sandbox = sandbox or os.environ.get(SANDBOX_VARIABLE) or "bwrap"
    if sandbox not in SANDBOXES:
        raise UsageError(
            f"unknown renderer sandbox {sandbox!r} (the option sandbox or "
            f"{SANDBOX_VARIABLE}); choose one of: {', '.join(SANDBOXES)}"
        )
    if sandbox == "none":
        return SandboxPolicy(mode="none", network=False)
    try:
        return SandboxPolicy.create("bwrap", network=False)
    except UsageError as exc:
        raise UsageError(
            "the libreoffice renderer runs LibreOffice inside bubblewrap, which is not "
            "installed or cannot create namespaces here",
            fix="apt-get install bubblewrap (in a container, allow user namespaces); or, "
            f"knowing that LibreOffice then sees the host and its network, {SANDBOX_VARIABLE}"
            "=none",
        ) from exc


@dataclass(frozen=True)
class Confinement:
    """Runs LibreOffice commands under ``policy`` with a clean environment."""

    policy: SandboxPolicy

    @property
    def mode(self) -> str:
        """``bwrap`` or ``none``: how each office is confined."""
        return self.policy.mode

    def command(self, argv: Sequence[str], *, folder: Path, writable: Sequence[Path]) -> list[str]:
        """``argv`` confined: ``folder`` (its scratch) and ``writable`` are all it may write."""
        for path in writable:  # a profile is made on first use, and again after a reset
            path.mkdir(parents=True, exist_ok=True)
        readable = [p for p in (*_READABLE, *_fontconfig_paths()) if p.exists()]
        # pid_one: LibreOffice's CPU time is accounted to refig when it ends (stage CPU)
        return self.policy.wrap(
            argv,
            cwd=folder,
            writable=[folder, *writable],
            readable=readable,
            network=False,
            interpreter=False,
            pid_one=True,
        )

    def env(self, folder: Path) -> dict[str, str]:
        """The whole environment of a confined office: a path, the locale, its own home."""
        env = {k: os.environ[k] for k in _PASSTHROUGH if k in os.environ}
        return env | {
            "PATH": SYSTEM_PATH,
            "HOME": str(folder),
            "TMPDIR": str(folder),
        }


def _fontconfig_paths() -> list[Path]:
    """The configuration ``FONTCONFIG_FILE`` and ``FONTCONFIG_PATH`` name, made readable in the
    sandbox so that LibreOffice reads the configuration they point it at."""
    paths = [Path(os.environ["FONTCONFIG_FILE"])] if os.environ.get("FONTCONFIG_FILE") else []
    paths += [Path(p) for p in os.environ.get("FONTCONFIG_PATH", "").split(os.pathsep) if p]
    return [p.absolute() for p in paths]


def inert_copy(source: Path, folder: Path) -> Path | ErrorInfo:
    """A copy of ``source`` in ``folder`` with its outside links made inert, or why none can be
    made (then LibreOffice must not see the file at all)."""
    dest = folder / f"{uuid.uuid4().hex}.pptx"
    try:
        write_inert_copy(Path(source), dest)
    except RefigError as exc:
        dest.unlink(missing_ok=True)
        return ErrorInfo(
            kind="render_failed", message=f"refig cannot check the links of the file: {exc.message}"
        )
    except OSError as exc:
        dest.unlink(missing_ok=True)
        return ErrorInfo(kind="render_failed", message=f"cannot copy the file to render: {exc}")
    return dest
