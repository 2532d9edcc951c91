"""A program's image is read like a deliverable (no link followed, nothing outside its
workspace), and an image that copies a visible input is smuggling in every language, however
the file's name was built; the reference, which draws its figure, is not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from refig.plugin import Artifact, GateResult, RenderJob
from refig_family_figure_to_code.execution import execute
from refig_family_figure_to_code.realiser import ProgramRenderer
from refig_family_figure_to_code.suites.code_sample import build_code_sample
from refig_metric_code.metric import CodeMetrics
from refig_metric_code.smuggling import detect

TOOL = {"r": "Rscript", "matlab": "octave", "latex": "xelatex"}
#: Each copies the task's figure to its output under a name assembled at run time.
COPY = {
    "python": "import shutil\nshutil.copyfile('sour' + 'ce' + chr(46) + '{ext}', 'out.{ext}')\n",
    "r": "file.copy(paste0('sour', 'ce', '.', '{ext}'), 'out.{ext}')\n",
    "matlab": "copyfile(['sour', 'ce', '.', '{ext}'], 'out.{ext}');\n",
    "latex": "\\documentclass{{standalone}}\n\\usepackage{{graphicx}}\n\\begin{{document}}\n"
             "\\csname includegraphics\\endcsname{{sour\\detokenize{{ce}}.{ext}}}\n"
             "\\end{{document}}\n",
}


def need(language: str) -> None:
    if language in TOOL and shutil.which(TOOL[language]) is None:
        pytest.skip(f"{TOOL[language]} is not installed (scripts/bootstrap.sh --test)")


def host_image(path: Path) -> Path:
    image = Image.new("RGB", (200, 150), (250, 10, 10))
    ImageDraw.Draw(image).text((20, 60), "HOST SECRET", fill="white")
    image.save(path)
    return path


@pytest.mark.parametrize("language", ["python", "r"])
def test_a_link_left_as_the_image_is_refused_not_followed(language: str, tmp_path: Path) -> None:
    need(language)
    secret = host_image(tmp_path / "host.png")
    program = {"python": f"import os\nos.symlink({str(secret)!r}, 'zz_output.png')\n",
               "r": f"file.symlink('{secret}', 'zz_output.png')\n"}[language]
    result = execute(program, language)
    assert result.error is not None and result.error.kind == "output_refused", result.log
    assert "zz_output.png" in result.error.message and result.png is None


def test_a_link_beside_a_drawn_figure_is_refused_too(tmp_path: Path) -> None:
    """The file a program saves is preferred to its open figure, so a saved link is the image
    it handed in: refused, never replaced by a guess."""
    secret = host_image(tmp_path / "host.png")
    program = ("import os\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\n"
               f"os.symlink({str(secret)!r}, 'zz_output.png')\n")
    result = execute(program, "python")
    assert result.error is not None and result.error.kind == "output_refused"
    assert f"a link to {secret}" in result.error.message


def test_a_copy_that_refuses_any_other_input_is_still_a_copy(tmp_path: Path) -> None:
    """A program that copies the figure only when its hash is the real one's, and fails on a
    decoy, follows its input all the same."""
    import hashlib

    figure = host_image(tmp_path / "figure.png")
    digest = hashlib.sha256(figure.read_bytes()).hexdigest()
    program = ("import hashlib, shutil\nname = 'sour' + 'ce' + chr(46) + 'png'\n"
               f"if hashlib.sha256(open(name, 'rb').read()).hexdigest() != {digest!r}:\n"
               "    raise SystemExit(1)\nshutil.copyfile(name, 'out.png')\n")
    result = execute(program, "python", inputs={"source.png": figure})
    assert result.ok and result.copied_input == "source.png", result.log
    assert b"refig: the image copies the input source.png" in result.log


def test_a_program_that_draws_the_figure_copies_nothing(tmp_path: Path) -> None:
    drawn = execute("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\n", "python")
    figure = tmp_path / "source.png"
    figure.write_bytes(drawn.png)  # the figure is exactly what the program draws
    result = execute("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\n", "python",
                     inputs={"source.png": figure})
    assert result.ok and result.copied_input is None


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    for tool in TOOL.values():
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (scripts/bootstrap.sh)")
    return build_code_sample(tmp_path_factory.mktemp("suite"), categories=("relational",))


def smuggling(suite, task, program: str, tmp: Path) -> tuple[float | None, list[str]]:  # type: ignore[no-untyped-def]
    path = tmp / "program"
    path.write_text(program)
    references = {role: suite.input_path(task, role) for role in task.inputs}
    visible = {role: references[role] for role in task.visible_inputs()}
    [out] = ProgramRenderer().render([RenderJob(path=path, task=task, inputs=visible)],
                                     tmp / "pages")
    assert out.error is None and out.pages, out.log
    artifact = Artifact(path=path, sha256="a" * 64, gate=GateResult(passed=True),
                        family="figure-to-code", files={"program": path}, pages=out.pages,
                        references=references, task=task)
    [value] = [v for v in CodeMetrics(trivial_k=50).compute(artifact) if v.name == "smuggling"]
    return value.value, value.detail["reasons"]


@pytest.mark.slow
@pytest.mark.parametrize("language", ["python", "r", "matlab", "latex"])
def test_copying_the_figure_is_smuggling_and_the_reference_is_not(
        suite, language: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    task = next(t for t in suite.tasks if t.params["language"] == language)
    ext = suite.input_path(task, "figure").suffix.lstrip(".")
    program = COPY[language].format(ext=ext)
    assert not detect(program, language, figure_names=(f"figure.{ext}", f"source.{ext}")
                      ).flagged  # nothing in the text gives it away
    (tmp_path / "copy").mkdir()
    flagged, reasons = smuggling(suite, task, program, tmp_path / "copy")
    assert flagged == 1.0 and reasons == ["copies_input"]
    (tmp_path / "reference").mkdir()
    reference = suite.input_path(task, "reference_code").read_text()
    assert smuggling(suite, task, reference, tmp_path / "reference") == (0.0, [])
