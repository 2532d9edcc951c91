"""The canary's environment, and the program renderer's manifest entries, read the same in two
processes of one machine: one started as the ``refig`` command is, one set up as pytest's
process is after a test hid the toolchains from ``PATH`` for a while (the cause of a run
refused on the machine that made it: the first probe's answer was kept for the process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

READ = """
import json, os, sys, tempfile
from refig_command_canary.environment import canary_environment
from refig_family_figure_to_code.realiser import ProgramRenderer

renderer = ProgramRenderer()
if "--hide-first" in sys.argv:  # as test_canary's missing interpreter: no toolchain on PATH
    path = os.environ["PATH"]
    os.environ["PATH"] = tempfile.mkdtemp()
    renderer.version, renderer.environment()
    os.environ["PATH"] = path
print(json.dumps({"canary": canary_environment({"program": renderer}),
                  "manifest": dict(renderer.environment())}))
"""


def _read(env: dict[str, str], *args: str) -> dict[str, dict[str, str]]:
    done = subprocess.run([sys.executable, "-c", READ, *args], capture_output=True, text=True,
                          env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_two_processes_of_one_machine_read_one_environment(tmp_path: Path) -> None:
    plain = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "LC_"))}
    as_the_command = _read(plain | {"LANG": "C.UTF-8"})
    site = tmp_path / "site"
    site.mkdir()
    as_pytest = _read(plain | {"LANG": "C", "PYTHONPATH": str(site), "PYTEST_XDIST_WORKER": "gw1",
                               "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
                      "--hide-first")
    assert as_pytest == as_the_command
    assert as_the_command["canary"]["program"].startswith("python: ")
