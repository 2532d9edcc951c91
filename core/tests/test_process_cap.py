"""The process cap of sandboxed programs, tried for real with fork bombs under a small cap: each
bomb fails inside its sandbox, the cap says how it held, and nothing of it outlives the call."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from refig.errors import UsageError
from refig.running import process_cap as caps
from refig.running.programs import cap_holds, run_sandboxed
from refig_toolkit_testing.processes import processes_in

PYTHON_BOMB = "import os\nwhile True:\n    os.fork()\n"
SHELL_BOMB = "b() { b | b & }; b; sleep 1\n"  # the parent stays while the bomb grows
#: Small, so a bomb under the cap loads the host's two cores little, and briefly.
CAP = 16


def _refig_groups() -> list[str]:
    root = caps.pids_root()
    return [] if root is None else [p.name for p in root.iterdir()
                                    if p.name.startswith(f"refig-{os.getpid()}-")]


def _usable(mechanism: str) -> None:
    if mechanism == "cgroup" and caps.pids_root() is None:
        pytest.skip("no writable pids cgroup here")
    if mechanism == "uid" and (os.geteuid() != 0 or not shutil.which("setpriv")):
        pytest.skip("the uid mechanism is for root (with setpriv)")
    if mechanism == "rlimit" and os.geteuid() == 0:
        pytest.skip("RLIMIT_NPROC does not hold for root")
    # proven on a harmless program (40 sleeps) before any bomb runs under it
    assert cap_holds(mechanism), f"the {mechanism} cap does not hold here"


@pytest.mark.parametrize("mechanism", ["cgroup", "uid", "rlimit"])
@pytest.mark.parametrize("bomb", ["python", "shell"])
def test_a_fork_bomb_fails_inside_its_cap(mechanism: str, bomb: str, tmp_path: Path) -> None:
    _usable(mechanism)
    if bomb == "python":
        (tmp_path / "bomb.py").write_text(PYTHON_BOMB)
        argv = [sys.executable, "-I", "bomb.py"]
    else:
        (tmp_path / "bomb.sh").write_text(SHELL_BOMB)
        argv = ["/bin/sh", "bomb.sh"]
    result = run_sandboxed(argv, workdir=tmp_path, deadline_s=15, memory_mb=512,
                           max_processes=CAP, cap_mechanism=mechanism)
    assert result.process_cap == f"{mechanism}:{CAP}"
    if bomb == "python":  # the interpreter's own fork was refused: a traceback, not a deadline
        assert not result.timed_out and result.exit_code != 0
        assert b"Resource temporarily unavailable" in result.stderr
    else:  # the shell says each refused fork
        assert b"fork" in result.stderr.lower()
    if mechanism == "cgroup":
        assert result.process_limit_reached is True
    assert _refig_groups() == []
    assert processes_in(tmp_path) == []  # not nobody's task count: other programs may run as nobody


def test_a_program_within_its_cap_runs_and_the_record_says_none_was_refused(
        tmp_path: Path) -> None:
    result = run_sandboxed(["/bin/sh", "-c", "true & true & wait; echo done"], workdir=tmp_path,
                           deadline_s=15, max_processes=CAP)
    assert result.exit_code == 0 and result.stdout == b"done\n"
    assert result.process_cap == f"{caps.resolve()}:{CAP}"
    assert result.process_limit_reached in (False, None)


def test_the_uid_mechanism_can_write_its_workspace(tmp_path: Path) -> None:
    _usable("uid")
    work = tmp_path / "work"
    work.mkdir()
    (work / "given.txt").write_text("x")
    result = run_sandboxed(["/bin/sh", "-c", "id -u; echo y >> given.txt; echo z > new.txt"],
                           workdir=work, deadline_s=15, cap_mechanism="uid")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == str(caps.SANDBOX_UID).encode()
    assert (work / "new.txt").read_text() == "z\n"


def test_the_probe_tells_a_cap_that_holds_from_none() -> None:
    assert cap_holds("none") is False
    assert cap_holds() is (caps.resolve() != "none")


def test_an_unknown_or_powerless_mechanism_is_refused() -> None:
    with pytest.raises(UsageError):
        caps.resolve("ulimit")
    if os.geteuid() == 0:
        with pytest.raises(UsageError, match="root"):
            caps.resolve("rlimit")


def test_an_attempt_command_is_capped_by_a_pids_cgroup(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """What a harness CLI runs through ``run_command`` (an agent's tools) is capped too, when a
    pids cgroup is writable; the cap is lowered here so the bomb stays small."""
    import time

    from refig.models import Task
    from refig.protocols import AttemptContext, Prompt
    from refig.running import sandbox
    from refig.running.workspace import AttemptDirs, attempt_env

    _usable("cgroup")
    if caps.agent_mechanism() != "cgroup":  # REFIG_PROCESS_CAP chose another: no cap, no bomb
        pytest.skip("attempts are not capped here")
    monkeypatch.setattr(sandbox, "AGENT_MAX_PROCESSES", CAP)
    dirs = AttemptDirs.create(tmp_path / "attempts", "bomb")
    (dirs.workspace / "bomb.py").write_text(PYTHON_BOMB)
    ctx = AttemptContext(
        task=Task(id="t0", family="figure-to-slide"), workspace=dirs.workspace,
        source=None, prompt=Prompt("p"), model="none", deadline=time.monotonic() + 15,
        env=attempt_env(dirs, "bomb.attempt"), log=dirs.log, attempt_id="bomb.attempt",
        home=dirs.home, outputs_dir=dirs.outputs, sandbox=sandbox.SandboxPolicy.create("auto"))
    result = sandbox.run_command(ctx, [sys.executable, "-I", "bomb.py"])
    assert not result.timed_out and result.exit_code != 0
    log = dirs.log.read_text()
    assert f"processes: cgroup:{CAP}]" in log and "process cap reached" in log
    assert _refig_groups() == []


@pytest.mark.parametrize("mechanism", ["cgroup", "uid"])
def test_a_capped_program_can_write_its_temp_dir(mechanism: str, tmp_path: Path) -> None:
    # As nobody (the uid mechanism), a private /tmp owned by root with mode 755 was read-only
    # to the program, and R died at start with "cannot create 'R_TempDir'".
    _usable(mechanism)
    result = run_sandboxed(["/bin/sh", "-c", "mktemp -p /tmp && echo wrote"], workdir=tmp_path,
                           deadline_s=20, max_processes=CAP, cap_mechanism=mechanism)
    assert result.exit_code == 0 and b"wrote" in result.stdout, result.stderr


@pytest.mark.parametrize("mechanism", ["cgroup", "uid"])
def test_a_capped_program_can_reach_the_system_files_it_is_shown(mechanism: str,
                                                                 tmp_path: Path) -> None:
    # bwrap made the folders above its binds (/etc, the parents of the workspace) with mode 0700:
    # as nobody, access() failed on every file below them, and Octave, not finding gnuplot
    # through /etc/alternatives, refused to plot (the demo failed on a machine with no pids cgroup)
    _usable(mechanism)
    work = tmp_path / "deep" / "work"
    work.mkdir(parents=True)
    probe = ("import os\n"  # access() as Octave calls it: by the real uid, capabilities aside
             "assert os.access('/etc/passwd', os.R_OK) and os.access('/etc', os.X_OK)\n"
             "assert os.access('.', os.W_OK) and os.access('..', os.X_OK)\nprint('reached')\n")
    result = run_sandboxed([sys.executable, "-I", "-c", probe], workdir=work, deadline_s=20,
                           max_processes=CAP, cap_mechanism=mechanism)
    assert result.exit_code == 0 and b"reached" in result.stdout, result.stderr


def test_the_environment_can_name_the_mechanism_auto_takes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(caps.ENV_VAR, "none")
    assert caps.resolve() == "none" and caps.resolve("cgroup") == "cgroup"
    monkeypatch.setenv(caps.ENV_VAR, "ulimit")
    with pytest.raises(UsageError, match="ulimit"):
        caps.resolve()


def test_a_mechanism_named_without_its_tools_is_refused_with_the_fix(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # REFIG_PROCESS_CAP=uid with no prlimit on PATH started programs that died with
    # FileNotFoundError ('prlimit'); refig doctor crashed the same way
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv(caps.ENV_VAR, "uid")
    with pytest.raises(UsageError, match="prlimit and setpriv") as refused:
        caps.resolve()
    assert refused.value.fix == "sudo apt-get install util-linux"
    from refig.doctor import process_cap_check

    check = process_cap_check()
    assert check.status == "warn" and "prlimit" in check.detail
