"""The `program` renderer: jobs with their task's inputs, cold and warm, page and log."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from refig.plugin import Asset, RenderJob, Task
from refig_family_figure_to_code.realiser import ProgramRenderer, workspace_inputs

PROGRAM = ("import matplotlib.pyplot as plt\nimport csv\n"
           "rows = list(csv.DictReader(open('data/values.csv')))\n"
           "plt.bar([r['label'] for r in rows], [float(r['value']) for r in rows])\n"
           "print('drew', len(rows))\n")


def test_inputs_are_laid_out_as_the_agent_saw_them(tmp_path: Path) -> None:
    figure, data = tmp_path / "figure.png", tmp_path / "values.csv"
    named = workspace_inputs({"figure": figure, "data/values.csv": data})
    assert named == {"source.png": figure, "data/values.csv": data, "values.csv": data}


@pytest.mark.parametrize("warm", [False, True])
def test_a_job_renders_one_page_with_its_log(tmp_path: Path, warm: bool) -> None:
    data = tmp_path / "values.csv"
    data.write_text("label,value\na,1\nb,3\n")
    program = tmp_path / "figure.py"
    program.write_text(PROGRAM)
    task = Task(id="t", family="figure-to-code",
                params={"language": "python", "width": 320, "height": 240},
                inputs={"data/values.csv": Asset(path="x/values.csv", sha256="e" * 64)})
    broken = tmp_path / "broken.py"
    broken.write_text("plt.plot(\n")
    renderer = ProgramRenderer(deadline_s=60, warm=warm)
    try:
        good, bad = renderer.render([RenderJob(path=program, task=task,
                                               inputs={"data/values.csv": data}),
                                     RenderJob(path=broken, task=task)], tmp_path / "out")
    finally:
        renderer.close()
    assert good.error is None and len(good.pages) == 1 and b"drew 2" in good.log
    assert Image.open(good.pages[0]).size == (320, 240)
    assert bad.error is not None and bad.error.kind == "syntax_error" and not bad.pages


@pytest.mark.slow
def test_its_environment_names_every_toolchain_and_rs_packages() -> None:
    import shutil

    from refig_family_figure_to_code.realiser import toolchain_environment

    found = ProgramRenderer().environment()
    assert found["settings"].startswith("program/") and "matplotlib" in found["toolchains"]
    assert {k: v for k, v in found.items() if k != "settings"} == toolchain_environment()
    if shutil.which("Rscript"):
        assert int(found["r.packages"]) > 0 and len(found["r.packages_sha256"]) == 64
        assert found["r.ggplot2"][0].isdigit()  # the family's R programs draw with it
    if shutil.which("octave") and not shutil.which("matlab"):
        assert found["octave.graphics_toolkit"] in ("gnuplot", "qt", "fltk")


def test_matlabs_version_is_read_from_its_installation_without_starting_it(
        tmp_path: Path) -> None:
    from refig_family_figure_to_code.realiser import matlab_version

    matlab = tmp_path / "R2023a" / "bin" / "matlab"
    matlab.parent.mkdir(parents=True)
    matlab.write_text("#!/bin/sh\nexit 1\n")  # never run
    assert matlab_version(str(matlab)).startswith("MATLAB (no ")
    (tmp_path / "R2023a" / "VersionInfo.xml").write_text(
        "<MathWorks_version_info>\n  <version>9.14.0.2206163</version>\n"
        "  <release>R2023a</release>\n</MathWorks_version_info>\n")
    assert matlab_version(str(matlab)) == "MATLAB 9.14.0.2206163 (R2023a)"
