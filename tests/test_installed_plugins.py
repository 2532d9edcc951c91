"""Plugins as users install them: into a fresh virtual environment, beside refig's core.

The cookiecutter template bakes a working plugin of every kind: each is installed, listed by
`refig list-plugins --json` as active, and its own generated tests are run there. A broken plugin
installed beside a good one is listed as failed while the command line keeps working.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from cookiecutter.main import cookiecutter

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "plugin-template"
KINDS = json.loads((TEMPLATE / "cookiecutter.json").read_text())["kind"]


def _uv() -> str:
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH (scripts/bootstrap.sh installs it)")
    return uv


def _run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env.pop("REFIG_LOAD_PLUGINS", None)
    result = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, f"{args}\n{result.stdout}\n{result.stderr}"
    return result


def _toolkits(project: Path) -> list[Path]:
    """The workspace's toolkit folders ``project`` depends on, directly or through another."""
    found: list[Path] = []
    for requirement in tomllib.loads((project / "pyproject.toml").read_text())["project"][
            "dependencies"]:
        name = re.split(r"[\[<>=~ ]", requirement)[0]
        if name.startswith("refig-toolkit-"):
            folder = ROOT / "plugins" / name.removeprefix("refig-")
            found += [folder, *(p for p in _toolkits(folder) if p not in found)]
    return list(dict.fromkeys(found))


def _venv(tmp_path: Path, *packages: str | Path) -> Path:
    """A fresh virtual environment with refig's core and ``packages`` installed by uv."""
    venv, uv = tmp_path / "venv", _uv()
    _run(uv, "venv", "--quiet", "--python", sys.executable, venv)
    _run(uv, "pip", "install", "--quiet", "--python", venv / "bin" / "python", ROOT / "core",
         *packages)
    return venv


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_template_bakes_installs_lists_and_passes_its_tests(tmp_path, kind):
    name = f"probe-{kind}"
    # quotes and a backslash in the description: it must still bake valid Python and TOML
    description = 'A "probe" plugin\\ of kind ' + kind
    baked = Path(cookiecutter(str(TEMPLATE), no_input=True, output_dir=str(tmp_path),
                              extra_context={"kind": kind, "name": name,
                                             "description": description}))
    distribution = f"refig-{kind}-{name}"
    assert baked.name == distribution
    assert not (baked / "_kinds").exists()
    hooks = (baked / "src" / f"refig_{kind}_probe_{kind}" / "hooks.py").read_text()
    assert "@hookimpl" in hooks

    venv = _venv(tmp_path, *_toolkits(baked), f"{baked}[test]")

    listed = json.loads(_run(venv / "bin" / "refig", "list-plugins", "--json").stdout)
    assert [p for p in listed if p["name"] == distribution] == [{
        "name": distribution, "version": "0.1.0", "status": "active",
        "provides": [f"{kind}:{name}"], "hooks": [f"refig_{_hook(kind)}"], "error": None,
    }]
    _run(venv / "bin" / "pytest", "-q", "-p", "no:cacheprovider", baked / "tests", cwd=baked)
    from importlib.metadata import Distribution

    installed = Distribution.at(next((venv / "lib").glob(
        f"python*/site-packages/{distribution.replace('-', '_')}-0.1.0.dist-info")))
    assert installed.metadata["Summary"] == description


def _hook(kind: str) -> str:
    return {"harness": "harnesses", "family": "task_families"}.get(kind, f"{kind}s")


BROKEN_PYPROJECT = """
[project]
name = "refig-judge-broken"
version = "0.0.1"
[project.entry-points.refig]
broken = "refig_judge_broken.hooks"
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"
[tool.hatch.build.targets.wheel]
packages = ["src/refig_judge_broken"]
"""


@pytest.mark.slow
def test_a_broken_installed_plugin_is_listed_failed_and_the_cli_works(tmp_path):
    broken = tmp_path / "refig-judge-broken"
    module = broken / "src" / "refig_judge_broken"
    module.mkdir(parents=True)
    (broken / "pyproject.toml").write_text(BROKEN_PYPROJECT)
    (module / "__init__.py").write_text("")
    (module / "hooks.py").write_text("import a_dependency_nobody_installed\n")
    good = Path(cookiecutter(str(TEMPLATE), no_input=True, output_dir=str(tmp_path),
                             extra_context={"kind": "judge", "name": "good"}))
    renderer = Path(cookiecutter(str(TEMPLATE), no_input=True, output_dir=str(tmp_path),
                                 extra_context={"kind": "renderer", "name": "thumb"}))
    toolkits = dict.fromkeys([*_toolkits(good), *_toolkits(renderer)])
    venv = _venv(tmp_path, *toolkits, broken, good, renderer)
    refig = venv / "bin" / "refig"

    listed = subprocess.run([refig, "list-plugins", "--json"], capture_output=True, text=True)
    assert listed.returncode == 0
    plugins = {p["name"]: p for p in json.loads(listed.stdout)}
    assert plugins["refig-judge-broken"]["status"] == "failed"
    assert "a_dependency_nobody_installed" in plugins["refig-judge-broken"]["error"]
    assert plugins["refig-judge-good"]["status"] == "active"
    assert "refig-judge-broken" in listed.stderr  # one line on stderr says what failed

    unknown = subprocess.run([refig, "evaluate", str(tmp_path), "--renderer", "thumb",
                              "--judge", "nope"], capture_output=True, text=True)
    assert unknown.returncode == 2
    assert "unknown judge 'nope'" in unknown.stderr and "good" in unknown.stderr

    strict = subprocess.run([refig, "list-plugins"], capture_output=True, text=True,
                            env={**os.environ, "REFIG_STRICT_PLUGINS": "1"})
    assert strict.returncode == 1 and "refig-judge-broken" in strict.stderr
