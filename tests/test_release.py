"""scripts/release: every wheel built, checked (metadata, names, requirements, entry points,
contents) and a plugin installed with --find-links into a clean environment."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "release"


def _release():
    loader = importlib.machinery.SourceFileLoader("refig_release", str(SCRIPT))
    spec = importlib.util.spec_from_loader("refig_release", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _member(tmp_path: Path) -> Path:
    folder = tmp_path / "metrics" / "probe"
    (folder / "src" / "refig_metric_probe").mkdir(parents=True)
    (folder / "src" / "refig_metric_probe" / "hooks.py").write_text("")
    (folder / "src" / "refig_metric_probe" / "rubric.toml").write_text("")
    (folder / "pyproject.toml").write_text(
        '[project]\nname = "refig-metric-probe"\nversion = "0.1.0"\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["src/refig_metric_probe"]\n'
    )
    return folder


def _wheel(tmp_path: Path, metadata: str, entry_points: str, files: list[str]) -> Path:
    wheel = tmp_path / "refig_metric_probe-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("refig_metric_probe-0.1.0.dist-info/METADATA", metadata)
        archive.writestr("refig_metric_probe-0.1.0.dist-info/entry_points.txt", entry_points)
        for name in files:
            archive.writestr(name, "")
    return wheel


GOOD = (
    "Metadata-Version: 2.4\nName: refig-metric-probe\nVersion: 0.1.0\nSummary: a probe\n"
    "Requires-Python: >=3.11\nRequires-Dist: refig-core\n"
    "Requires-Dist: refig-toolkit-imaging[ocr]\n\n"
)
POINTS = "[refig]\nprobe = refig_metric_probe.hooks\n"
EXTRAS = {"refig-toolkit-analysis": {"plot"}, "refig-toolkit-imaging": {"ocr", "locate"}}
FILES = ["refig_metric_probe/hooks.py", "refig_metric_probe/rubric.toml"]


def test_a_good_wheel_has_no_problem(tmp_path: Path) -> None:
    release = _release()
    wheel = _wheel(tmp_path, GOOD, POINTS, FILES)
    assert release.check_wheel(wheel, _member(tmp_path), EXTRAS) == []


def test_each_problem_of_a_wheel_is_named(tmp_path: Path) -> None:
    release = _release()
    bad = GOOD.replace("Summary: a probe\n", "").replace(
        "Requires-Dist: refig-toolkit-imaging[ocr]\n",
        "Requires-Dist: refig[ocr]\nRequires-Dist: refig-toolkit-imaging[nope]\n",
    )
    wheel = _wheel(
        tmp_path,
        bad,
        "[refig]\nprobe = refig_metric_probe.gone\n",
        ["refig_metric_probe/hooks.py", "tests/test_x.py"],
    )
    said = "\n".join(release.check_wheel(wheel, _member(tmp_path), EXTRAS))
    assert "no Summary" in said
    assert "requires 'refig[ocr]'" in said and "unrelated" in said
    assert "refig-toolkit-imaging extras ['nope']" in said
    assert "names refig_metric_probe.gone, which the wheel does not hold" in said
    assert "lacks 1 file(s)" in said and "rubric.toml" in said
    assert "tests/test_x.py" in said


def test_a_toolkit_wheel_has_no_refig_entry_point(tmp_path: Path) -> None:
    folder = tmp_path / "plugins" / "toolkit-probe"
    (folder / "src" / "refig_toolkit_probe").mkdir(parents=True)
    (folder / "src" / "refig_toolkit_probe" / "__init__.py").write_text("")
    (folder / "pyproject.toml").write_text(
        '[project]\nname = "refig-toolkit-probe"\nversion = "0.1.0"\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["src/refig_toolkit_probe"]\n'
    )
    metadata = GOOD.replace("refig-metric-probe", "refig-toolkit-probe")
    files = ["refig_toolkit_probe/__init__.py"]
    release = _release()
    assert release.check_wheel(_wheel(tmp_path, metadata, "", files), folder, EXTRAS) == []
    hooked = release.check_wheel(_wheel(tmp_path, metadata, POINTS, files), folder, EXTRAS)
    assert any("a toolkit registers no hooks" in problem for problem in hooked)


@pytest.mark.slow
def test_release_builds_checks_and_installs_a_plugin(tmp_path: Path) -> None:
    if shutil.which("uv") is None:
        pytest.skip("uv is not on PATH")
    done = subprocess.run(
        [str(SCRIPT), "--out", str(tmp_path / "dist")],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "ready to publish" in done.stderr
    wheels = sorted(p.name for p in (tmp_path / "dist").glob("*.whl"))
    assert "refig_core-0.1.0-py3-none-any.whl" in wheels and len(wheels) >= 20
