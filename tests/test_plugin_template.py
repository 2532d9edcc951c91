"""The cookiecutter template bakes a working plugin of every kind.

Each kind is baked, installed with refig's core into a fresh virtual environment, listed by
`refig list-plugins --json` as active, and its own generated tests are run there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
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


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_template_bakes_installs_lists_and_passes_its_tests(tmp_path, kind):
    name = f"probe-{kind}"
    baked = Path(cookiecutter(str(TEMPLATE), no_input=True, output_dir=str(tmp_path),
                              extra_context={"kind": kind, "name": name}))
    distribution = f"refig-{kind}-{name}"
    assert baked.name == distribution
    assert not (baked / "_kinds").exists()
    hooks = (baked / "src" / f"refig_{kind}_probe_{kind}" / "hooks.py").read_text()
    assert "@hookimpl" in hooks

    venv = tmp_path / "venv"
    uv = _uv()
    _run(uv, "venv", "--quiet", "--python", sys.executable, venv)
    python = venv / "bin" / "python"
    _run(uv, "pip", "install", "--quiet", "--python", python, ROOT / "core", f"{baked}[test]")

    listed = json.loads(_run(venv / "bin" / "refig", "list-plugins", "--json").stdout)
    assert [p for p in listed if p["name"] == distribution] == [{
        "name": distribution, "version": "0.1.0", "status": "active",
        "provides": [f"{kind}:{name}"], "hooks": [f"refig_{_hook(kind)}"], "error": None,
    }]
    _run(venv / "bin" / "pytest", "-q", "-p", "no:cacheprovider", baked / "tests", cwd=baked)


def _hook(kind: str) -> str:
    return {"harness": "harnesses"}.get(kind, f"{kind}s")
