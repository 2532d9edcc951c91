"""A fork bomb in each of the four languages ends, within its deadline, with a typed failure
under a small process cap, and leaves nothing running; LaTeX cannot start one at all."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from types import ModuleType

import pytest
from refig.running import process_cap as caps
from refig.running.programs import cap_holds
from refig_family_figure_to_code.execution import Limits, execute
from refig_family_figure_to_code.warm import WarmInterpreter
from refig_toolkit_testing.processes import processes_in

BOMBS = {
    "python": "import os\nwhile True:\n    os.fork()\n",
    "r": "repeat parallel:::mcfork()\n",
    # Octave's fork() returns -1 when refused; this bomb then stops, as Python's and R's do,
    # rather than spinning on every core until its deadline.
    "matlab": "while true\n  if fork() < 0\n    error('fork refused');\n  end\nend\n",
}
#: With shell escape on, this writes escaped.flag, then fails on finding it (and forks away).
LATEX_ESCAPE = ("\\documentclass{standalone}\n\\begin{document}\n"
                "\\immediate\\write18{echo x > escaped.flag; b() { b | b & }; b}\n"
                "\\IfFileExists{escaped.flag}{\\errmessage{shell escape ran}}{}x\n"
                "\\end{document}\n")
TOOL = {"python": "python3", "r": "Rscript", "matlab": "octave", "latex": "xelatex"}
#: A small cap and deadline, so the bombs load the host's two cores little, and briefly.
LIMITS = Limits(deadline_s=20, memory_mb=1024, max_processes=16)


def _leftovers() -> list[str]:
    root = caps.pids_root()
    return [] if root is None else [p.name for p in root.iterdir()
                                    if p.name.startswith(f"refig-{os.getpid()}-")]


@pytest.mark.parametrize("language", sorted(BOMBS))
def test_a_fork_bomb_is_a_typed_failure_within_its_deadline(
        language: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if language != "python" and shutil.which(TOOL[language]) is None:
        pytest.skip(f"{TOOL[language]} is not installed (scripts/bootstrap.sh --test)")
    mechanism = caps.resolve()
    if mechanism == "none":
        pytest.skip("no process cap is available here (refig doctor says why)")
    assert cap_holds(), "the process cap does not hold: no bomb is run"
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the bomb's workspace is in here
    result = execute(BOMBS[language], language, limits=LIMITS)
    log = result.log.decode(errors="replace")
    assert result.error is not None, log
    expected = {"process_limit", "runtime_error", "timeout"}
    if mechanism == "cgroup":  # the cgroup says the cap was reached, so the failure says so
        expected = {"process_limit"}
    assert result.error.kind in expected, log
    assert result.seconds < LIMITS.deadline_s + 10
    assert f"refig: process cap {mechanism}:16" in log
    assert _leftovers() == []
    # not nobody's task count: other tests' programs run as nobody too, at the same time
    assert _settled(tmp_path) == []


def _settled(folder: Path, bound: float = 30.0) -> list[int]:
    """The processes still in ``folder`` once none is left or ``bound`` seconds have passed (a
    bound, not a measurement: twice in CI runs of one day, killed bombs were still in their
    folder when the check ran, one and then eleven of them; a bomb that escaped would still be
    there after the bound)."""
    until = time.monotonic() + bound
    while (left := processes_in(folder)) and time.monotonic() < until:
        time.sleep(0.1)
    return left


def test_latex_shell_escape_is_off() -> None:
    """A program that would start a fork bomb through \\write18 (and first leave a flag file,
    which the same program then checks for and fails on) runs and makes its image."""
    if shutil.which("xelatex") is None:
        pytest.skip("xelatex is not installed (scripts/bootstrap.sh --test)")
    result = execute(LATEX_ESCAPE, "latex", limits=LIMITS)
    assert result.ok, result.log.decode(errors="replace")


def test_a_fork_bomb_in_the_warm_interpreter_is_typed_and_the_next_program_runs(
        kit: ModuleType) -> None:
    if caps.resolve() == "none":
        pytest.skip("no process cap is available here (refig doctor says why)")
    assert cap_holds(), "the process cap does not hold: no bomb is run"
    with WarmInterpreter("python", limits=LIMITS) as warm:
        bombed = warm.execute(BOMBS["python"])
        assert bombed.error is not None and bombed.error.kind in {
            "process_limit", "runtime_error", "timeout"}, bombed.log.decode()
        after = warm.execute(kit.REFERENCE["python"])
        assert after.ok, after.log.decode()
    assert _leftovers() == []
