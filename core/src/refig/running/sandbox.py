"""The sandbox every attempt command runs in, and the helper harness adapters call to run one.

With bubblewrap (``bwrap``), a command sees a fresh root: read-only binds of the system (``/usr``,
the merged-usr links, a short list of ``/etc`` files), of the Python environment refig runs from
and of any paths the harness adds; a private ``/tmp``, ``/proc`` and ``/dev``; its own PID, IPC
and UTS namespaces; and, writable, only the attempt's workspace and private home. The suite, the
run directory and the other attempts' directories are not in it (when a bound path contains one
of them, an empty tmpfs masks it). The PID namespace dies with bwrap, so killing bwrap ends every
process inside. Without bwrap, commands run directly: the same deadline, process-tree kill and
secret redaction hold, the workspace still starts with only the source and the workflow's files,
but the agent can read whatever the user running refig can read; so ``auto`` refuses to start an
agent there (:func:`resolve_mode`), and only ``none``, asked for, runs one that way.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from refig.errors import UsageError, did_you_mean
from refig.running.process_cap import AGENT_MAX_PROCESSES, agent_mechanism, process_cap
from refig.running.processes import ProcessResult, run_process

if TYPE_CHECKING:
    from refig.protocols import AttemptContext

MODES = ("auto", "bwrap", "none")
#: Where an attempt's commands may connect (``--network``). ``gateway``: under bwrap they have
#: their own network namespace and reach only the recording gateway (see
#: :mod:`refig_toolkit_agent.tunnel`); ``host``: they share the host's network.
EGRESS = ("gateway", "host")

#: Top-level system directories that merged-usr systems keep as symlinks into /usr.
_ROOT_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: What of /etc a program needs: name resolution, TLS roots, users, fonts, locale, linker.
_ETC = (
    "/etc/alternatives", "/etc/ca-certificates", "/etc/ssl", "/etc/pki", "/etc/resolv.conf",
    "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/nsswitch.conf", "/etc/passwd",
    "/etc/group", "/etc/localtime", "/etc/timezone", "/etc/ld.so.cache", "/etc/ld.so.conf",
    "/etc/ld.so.conf.d", "/etc/fonts", "/etc/mime.types", "/etc/papersize",
    "/etc/libreoffice", "/etc/java-17-openjdk", "/etc/os-release",
)


@functools.cache
def _bwrap() -> str | None:
    """Where bubblewrap is, found once: a policy chosen while it was on PATH must still find it
    after PATH changed (doctor probes the process cap with a restricted PATH)."""
    return shutil.which("bwrap")


@functools.cache
def bwrap_works() -> bool:
    """True when bubblewrap is installed and can create namespaces here (containers may forbid)."""
    binary = _bwrap()
    if binary is None:
        return False
    try:
        probe = subprocess.run(
            [binary, "--ro-bind", "/", "/", "--unshare-pid", "--die-with-parent", "true"],
            capture_output=True, timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


#: How to get a working bubblewrap, or go without it on purpose.
BWRAP_FIX = ("sudo apt-get install bubblewrap (in a container, allow user namespaces), or pass "
             "--sandbox none to run unsandboxed on purpose")


def resolve_mode(requested: str, *, agent: bool = False) -> str:
    """``auto`` -> ``bwrap`` when it works here, else ``none``; ``bwrap`` must work, and so must
    ``auto`` when ``agent`` (the commands run an agent): no agent runs unsandboxed by accident."""
    if requested not in MODES:
        raise UsageError(f"unknown sandbox {requested!r}{did_you_mean(requested, MODES)}; "
                         f"choose one of: {', '.join(MODES)}")
    if requested == "none":
        return "none"
    if bwrap_works():
        return "bwrap"
    if requested == "bwrap":
        raise UsageError("--sandbox bwrap was asked for, but bubblewrap is not installed or "
                         "cannot create namespaces here", fix=BWRAP_FIX)
    if agent:
        raise UsageError(
            "bubblewrap is not installed or cannot create namespaces here, and --sandbox auto "
            "starts no agent without it: unsandboxed, an agent reads every file and every "
            "process environment (API keys) the user running refig can", fix=BWRAP_FIX)
    return "none"


def _python_paths() -> list[Path]:
    """The interpreter, its prefixes and every import path of this process."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}
    executable = Path(sys.executable)
    paths |= {executable.parent, executable.resolve().parent.parent}
    paths |= {Path(p) for p in sys.path if p and Path(p).is_absolute()}
    return sorted(p for p in paths if p.exists())


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """Drop paths that lie inside another path of the list."""
    kept: list[Path] = []
    for path in sorted({p.absolute() for p in paths}, key=lambda p: len(p.parts)):
        if not any(_under(path, k) for k in kept):
            kept.append(path)
    return kept


@dataclass
class _Folders:
    """The folders bwrap must make in the fresh root before a path is bound there.

    bwrap makes a missing parent with mode 0700, which only root may search: a program running
    as ``nobody`` (the process cap's ``uid`` mechanism) then fails ``access()`` on every bound
    file below it (Octave found no gnuplot under ``/etc/alternatives``). So each missing parent
    is made first, with mode 0755. ``host`` are the binds so far: below them, folders exist."""

    host: list[Path]
    made: set[Path] = field(default_factory=set)

    def before(self, path: Path) -> list[str]:
        """bwrap arguments making ``path``'s missing parents searchable by anyone."""
        args: list[str] = []
        for parent in reversed(path.absolute().parents[:-1]):
            if parent in self.made or any(_under(parent, h) for h in self.host):
                continue
            self.made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
        self.host.append(path.absolute())
        return args


@dataclass(frozen=True)
class SandboxPolicy:
    """How an attempt's commands are isolated.

    ``mode`` is ``bwrap`` or ``none`` (see :func:`resolve_mode`). ``readable`` are host paths
    exposed read-only beyond the system ones and the Python environment of the process that runs
    the command (a Ray worker's may differ from the driver's); ``protected`` paths are never
    visible (the suite, the run directory, the root holding every attempt's directory).
    """

    mode: str = "none"
    readable: tuple[Path, ...] = ()
    protected: tuple[Path, ...] = field(default_factory=tuple)
    #: False: commands get no network at all (under bwrap), whatever the caller asks.
    network: bool = True
    egress: str = "gateway"

    @property
    def reach(self) -> str:
        """What an attempt could reach, as recorded on it: ``gateway`` only, or ``host``."""
        return self.egress if self.mode == "bwrap" else "host"

    @classmethod
    def create(
        cls, requested: str = "auto", *, protected: Iterable[Path] = (),
        readable: Iterable[Path] = (), network: bool = True, egress: str = "gateway",
        agent: bool = False,
    ) -> SandboxPolicy:
        """A policy for this machine: ``readable`` exposed, ``protected`` hidden; ``agent``: the
        commands run an agent (see :func:`resolve_mode`)."""
        if egress not in EGRESS:
            raise UsageError(f"unknown --network {egress!r}; choose one of: "
                             f"{', '.join(EGRESS)}")
        mode = resolve_mode(requested, agent=agent)
        shielded = tuple(Path(p).resolve() for p in protected)
        exposed = [p for p in map(Path, readable)
                   if not any(_under(p.resolve(), s) for s in shielded)]
        return cls(mode=mode, readable=tuple(_outermost(exposed)), protected=shielded,
                   network=network, egress=egress)

    def wrap(
        self, argv: Sequence[str], *, cwd: Path, writable: Sequence[Path],
        readable: Sequence[Path] = (), network: bool = True, interpreter: bool = True,
        pid_one: bool = False,
    ) -> list[str]:
        """``argv`` as a bwrap command line (unchanged when ``mode`` is ``none``); without
        ``interpreter`` the Python environment refig runs from is not exposed (a command that
        needs only the system, such as LibreOffice). With ``pid_one`` the command is its PID
        namespace's first process, not a reaper bwrap adds: then its CPU time (and that of the
        children it waited for) reaches the caller's ``RUSAGE_CHILDREN`` when it ends, which
        bwrap's reaper loses."""
        if self.mode != "bwrap":
            return list(argv)
        binary = _bwrap()
        if binary is None:
            raise UsageError("bubblewrap disappeared", fix="apt-get install bubblewrap")
        args = [binary, "--ro-bind", "/usr", "/usr"]
        for link in _ROOT_LINKS:
            path = Path(link)
            if path.is_symlink():
                args += ["--symlink", str(path.readlink()), link]
            elif path.is_dir():
                args += ["--ro-bind", link, link]
        folders = _Folders([Path("/usr"), *map(Path, _ROOT_LINKS)])
        for item in _ETC:
            args += [*folders.before(Path(item)), "--ro-bind-try", item, item]
        # /tmp is private and open to whatever uid the command runs as (the process cap's
        # ``uid`` mechanism runs it as nobody: R cannot start without a writable temp dir)
        args += ["--ro-bind-try", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--tmpfs", "/tmp"]
        folders.host += [Path("/sys"), Path("/proc"), Path("/dev")]
        folders.made.add(Path("/tmp"))  # a tmpfs with its own mode: folders below it are made
        extra = [Path(p).absolute() for p in readable]
        shielded = [p for p in extra if any(_under(p.resolve(), s) for s in self.protected)]
        if shielded:
            raise UsageError(f"refusing to expose {shielded[0]} to an attempt: it holds the "
                             "suite, the run store or other attempts")
        # An import path that holds /tmp or a writable directory (a script run from /tmp puts
        # /tmp on sys.path) would be bound read-only over them: the interpreter needs none.
        scratch = [Path("/tmp"), *(Path(w).absolute() for w in writable)]
        python = [p for p in (_python_paths() if interpreter else [])
                  if not any(_under(p.resolve(), s) for s in self.protected)
                  and not any(_under(w, p) for w in scratch)]
        bound = _outermost(p for p in [*python, *self.readable, *extra]
                           if not _under(p, Path("/usr")))
        for path in bound:
            args += [*folders.before(path), "--ro-bind-try", str(path), str(path)]
        for secret in self.protected:
            if any(_under(secret, b) for b in [Path("/usr"), *bound]):
                args += ["--tmpfs", str(secret)]
        for path in map(Path, writable):
            args += [*folders.before(path), "--bind", str(path), str(path)]
        args += ["--chdir", str(cwd), "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                 "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        if not (network and self.network):
            args.append("--unshare-net")
        if pid_one:
            args.append("--as-pid-1")
        return [*args, "--", *argv]


def run_command(
    ctx: AttemptContext,
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdout: IO[bytes] | Path | None = None,
    stderr: IO[bytes] | Path | None = None,
    stdin_data: bytes | None = None,
    readable: Sequence[Path] = (),
    writable: Sequence[Path] = (),
    network: bool | None = None,
) -> ProcessResult:
    """Run one command of an attempt: in the sandbox, in the workspace, until the deadline.

    This is what harness adapters call to start their CLI. ``env`` defaults to ``ctx.env`` (start
    from it when adding variables: it carries the marker that lets refig end stray processes).
    ``stdout``/``stderr`` (open binary files or paths) default to the attempt log. ``readable``
    and ``writable`` add host paths to the sandbox (an npm prefix, a cache); paths holding the
    suite or run store are refused. ``network`` (default: the policy's, so none at all under bwrap
    with the ``gateway`` policy) False gives the command no network (under bwrap), True the
    host's. At most ``AGENT_MAX_PROCESSES`` tasks may exist at once when a pids cgroup is
    writable (see :mod:`refig.running.process_cap`; the log line says). Whatever happens, every
    process the command started is ended before this returns. How the command was confined
    (``bwrap`` or ``none``) is appended to ``ctx.processes``, which the attempt records.
    """
    policy = ctx.sandbox or SandboxPolicy()
    if network is None:
        network = policy.egress == "host"
    workdir = cwd or ctx.workspace
    own = [p for p in (ctx.workspace, ctx.home) if p is not None]
    command = policy.wrap(argv, cwd=workdir, writable=[*own, *writable], readable=readable,
                          network=network)
    ctx.processes.append(policy.mode)
    with ExitStack() as stack:
        cap = stack.enter_context(process_cap(AGENT_MAX_PROCESSES, agent_mechanism()))
        command = cap.outer(command)
        log = stack.enter_context(ctx.log.open("ab")) if ctx.log is not None else None
        if log is not None:
            where = "host" if (network and policy.network) or policy.mode != "bwrap" else "none"
            log.write(f"$ {' '.join(argv)}  [sandbox: {policy.mode}, network: {where}, "
                      f"processes: {cap.record}]\n".encode())
            log.flush()

        def sink(target: IO[bytes] | Path | None) -> IO[bytes] | None:
            if isinstance(target, Path):
                return stack.enter_context(target.open("ab"))
            return target if target is not None else log

        result = run_process(
            command, cwd=workdir, env=dict(ctx.env if env is None else env),
            deadline=ctx.deadline, marker=ctx.attempt_id or "refig-unmarked",
            stdout=sink(stdout), stderr=sink(stderr), stdin_data=stdin_data,
        )
        if log is not None:
            status = "deadline reached" if result.timed_out else f"exit {result.exit_code}"
            reached = ", process cap reached" if cap.reached() else ""
            log.write(f"# {status} after {result.seconds:.2f}s{reached}\n".encode())
    return result
