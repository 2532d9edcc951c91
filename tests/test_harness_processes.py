"""Every first-party harness, and the plugin template's, starts processes only through refig's
sandbox helper (``run_command``): a walk of their sources finds no other way to start one
(``subprocess``, ``os.system``, ``os.exec*``/``os.spawn*``, ``pty``, asyncio subprocesses...).

A process started any other way would run outside the attempt's sandbox, with refig's own
environment (the API keys) and the user's files, while the attempt record said ``bwrap``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE_HARNESS = ROOT / "plugin-template" / "{{cookiecutter.distribution}}" / "_kinds" / \
    "harness" / "plugin.py"
#: Modules that run inside the sandbox, as the process their harness starts with run_command
#: (``python -m refig_harness_baseline.<baseline>``): what they start is confined with them.
INSIDE = {
    "harnesses/baseline/src/refig_harness_baseline/agent.py":
        "harnesses/baseline/src/refig_harness_baseline/harness.py",
}
MODULES = {"subprocess", "pty", "multiprocessing", "pexpect", "sh", "plumbum"}
OS_CALLS = {"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp"}
OS_PREFIXES = ("exec", "spawn")
ASYNCIO_CALLS = {"create_subprocess_exec", "create_subprocess_shell"}


def _starts_process(name: str, module: str) -> bool:
    if module == "os":
        return name in OS_CALLS or name.startswith(OS_PREFIXES)
    return module == "asyncio" and name in ASYNCIO_CALLS


def process_starts(source: str) -> list[str]:
    """Each way ``source`` could start a process without the sandbox helper, with its line."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names
                      if a.name.split(".")[0] in MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module:
            top = node.module.split(".")[0]
            if top in MODULES:
                found.append(f"{node.lineno}: from {node.module} import ...")
            found += [f"{node.lineno}: from {top} import {a.name}" for a in node.names
                      if _starts_process(a.name, top)]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and _starts_process(node.attr, node.value.id)):
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "__import__"):
            found.append(f"{node.lineno}: __import__(...)")
    return found


#: The core's base of the CLI harnesses (claude-code, codex, qwen-code): it starts their CLIs.
CLI_BASE = ROOT / "plugins" / "toolkit-agent" / "src" / "refig_toolkit_agent" / "adapter.py"


def harness_sources() -> list[Path]:
    return [*sorted((ROOT / "harnesses").glob("*/src/**/*.py")), CLI_BASE, TEMPLATE_HARNESS]


def test_the_walk_sees_every_way_to_start_a_process() -> None:
    caught = process_starts(
        "import subprocess\nimport os\nfrom os import execvp\nfrom subprocess import run\n"
        "import asyncio\nos.system('x')\nos.spawnlp(0, 'x')\nasyncio.create_subprocess_exec()\n"
        "__import__('subprocess')\nimport pty\n")
    assert sorted(int(c.split(":")[0]) for c in caught) == [1, 3, 4, 6, 7, 8, 9, 10], caught
    assert process_starts("from refig.plugin import run_command\nimport os\n"
                          "os.environ.get('X')\nos.path.join('a')\n") == []


@pytest.mark.parametrize("path", harness_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_harnesses_start_processes_only_through_the_sandbox_helper(path: Path) -> None:
    relative = path.relative_to(ROOT).as_posix()
    if relative in INSIDE:
        starter = (ROOT / INSIDE[relative]).read_text()
        assert "run_command(" in starter and '"-m"' in starter, (
            f"{relative} may start processes only because {INSIDE[relative]} runs it in the "
            "sandbox with run_command")
        return
    assert process_starts(path.read_text()) == [], (
        f"{relative} starts a process outside refig's sandbox: use "
        "refig.plugin.run_command (docs/plugins.md says why)")


def test_the_walk_covers_every_harness_and_the_template() -> None:
    packages = {p.relative_to(ROOT).parts[1] for p in harness_sources()[:-2]}
    assert packages == {p.name for p in (ROOT / "harnesses").iterdir()
                        if (p / "src").is_dir()}
    assert CLI_BASE.is_file() and TEMPLATE_HARNESS.is_file()
    assert "run_command(" in CLI_BASE.read_text()
