"""The core's shape, measured: its size, its dependencies, that it names no family and imports no
toolkit, that toolkits are libraries, that plugins declare the toolkits they import, and that the
core's wheel alone gives a working ``refig``. Read from the source (``ast``, ``tomllib``); only the
wheel test builds and runs anything."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core" / "src" / "refig"
PLUGIN_ROOTS = ("plugins", "harnesses", "judges", "metrics")
#: The core's runtime dependencies: the plugin machinery, the CLI, terminal output, the records.
CORE_DEPENDENCIES = {"pluggy", "typer", "rich", "pydantic"}
#: Lines of code (blank and comment lines aside) the core stays under.
CORE_BUDGET = 10_000
FAMILIES = ("figure-to-slide", "deck-edit", "figure-to-code")


def _code_lines(path: Path) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#"))


def _requirement_name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _project(folder: Path) -> dict:
    return tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _distributions() -> list[Path]:
    return sorted(p.parent for root in PLUGIN_ROOTS for p in (ROOT / root).glob("*/pyproject.toml"))


def test_the_core_is_under_its_line_budget() -> None:
    total = sum(_code_lines(p) for p in CORE.rglob("*.py"))
    assert total < CORE_BUDGET, f"core/src/refig holds {total} lines of code"


def test_the_core_depends_on_the_plugin_machinery_and_the_cli_only() -> None:
    names = {_requirement_name(r) for r in _project(ROOT / "core")["dependencies"]}
    assert names <= CORE_DEPENDENCIES, sorted(names - CORE_DEPENDENCIES)
    assert not _project(ROOT / "core").get("optional-dependencies")


def test_no_family_is_named_in_the_core() -> None:
    found = [f"{p.relative_to(ROOT)}:{n}: {family}"
             for p in sorted(CORE.rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             for family in FAMILIES if family in line]
    assert not found, "\n".join(found)


def _imported_packages(src: Path) -> set[str]:
    """Top-level packages imported anywhere under ``src`` (function-level imports included)."""
    found: set[str] = set()
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
            elif isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
    return found


def test_the_core_imports_no_toolkit_and_no_plugin() -> None:
    outside = {p for p in _imported_packages(CORE) if p.startswith("refig_")}
    assert not outside, sorted(outside)


def test_toolkits_are_libraries_and_plugins_are_named_by_kind() -> None:
    toolkits = [d for d in _distributions() if d.name.startswith("toolkit-")]
    assert toolkits, "no toolkit distribution found"
    for folder in _distributions():
        project = _project(folder)
        registers = "refig" in project.get("entry-points", {})
        kind = {"plugins": "", "harnesses": "harness-", "judges": "judge-", "metrics": "metric-"}
        expected = f"refig-{kind[folder.parent.name]}{folder.name}"
        assert project["name"] == expected, f"{folder}: named {project['name']}, not {expected}"
        if folder.name.startswith("toolkit-"):
            assert not registers, f"{folder.name} is a toolkit, yet registers hooks"
            assert (folder / "README.md").is_file(), f"{folder.name} documents no API"
        else:
            assert registers, f"{folder.name} is a plugin, yet registers no hooks"


def test_every_distribution_declares_the_toolkits_it_imports() -> None:
    missing = []
    for folder in _distributions():
        declared = {_requirement_name(r) for r in _project(folder).get("dependencies", [])}
        for package in sorted(_imported_packages(folder / "src")):
            if not package.startswith("refig_toolkit_"):
                continue
            distribution = package.replace("_", "-")
            if distribution not in declared and distribution != _project(folder)["name"]:
                missing.append(f"{folder.relative_to(ROOT)} imports {package} "
                               f"without depending on {distribution}")
    assert not missing, "\n".join(missing)


@pytest.mark.slow
def test_the_core_wheel_alone_gives_a_working_cli(tmp_path: Path) -> None:
    """Built and installed into a fresh virtual environment with nothing else: ``refig --help``
    and ``refig list-plugins`` work, and nothing beyond the core's dependencies came with it."""
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, capture_output=True, text=True, timeout=600, check=False,
                              cwd=ROOT)

    built = run("uv", "build", "--wheel", "--package", "refig-core", "--out-dir",
                str(tmp_path / "dist"))
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("refig_core-*.whl")
    venv = tmp_path / "venv"
    assert run("uv", "venv", "--quiet", "--python", sys.executable, str(venv)).returncode == 0
    installed = run("uv", "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"),
                    str(wheel))
    assert installed.returncode == 0, installed.stderr
    for command in (["--help"], ["list-plugins"]):
        done = run(str(venv / "bin" / "refig"), *command)
        assert done.returncode == 0, done.stdout + done.stderr
    listed = run("uv", "pip", "list", "--format", "freeze", "--python",
                 str(venv / "bin" / "python")).stdout
    names = {_requirement_name(line) for line in listed.splitlines() if line}
    heavy = {"lxml", "pillow", "numpy", "pypdfium2", "scipy", "krippendorff", "litellm", "httpx",
             "opencv-python-headless", "onnxruntime", "python-pptx"}
    assert "refig-core" in names and not names & heavy, sorted(names)
