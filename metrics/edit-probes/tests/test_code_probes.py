"""Code probes on real programs run by the figure-to-code realiser (Python in its sandbox): a
program that draws its figure passes them, one that shows an embedded picture fails them."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import numpy as np
import pytest
from refig.models import GateResult, Task
from refig.plugin import RenderJob, renderer_for
from refig.protocols import Artifact
from refig_metric_edit_probes import code
from refig_metric_edit_probes.metric import EditProbes

FIGURE_TO_CODE = "figure-to-code"

pytestmark = pytest.mark.slow

PLOT = """import matplotlib.pyplot as plt

values = [4.0, 7.5, 3.2, 6.1, 5.4]
labels = ['North', 'South', 'East', 'West', 'Centre']
fig, ax = plt.subplots(figsize=(6.4, 4.8))
ax.bar(labels, values, color='#1f77b4')
ax.set_title('Rainfall by Region')
ax.set_ylabel('Millimetres')
"""

SMUGGLE = """import base64, io
import matplotlib.pyplot as plt

picture = plt.imread(io.BytesIO(base64.b64decode('{data}')))
fig = plt.figure(figsize=(6.4, 4.8), dpi=100)
fig.figimage(picture)
"""


def run(program: str, folder: Path) -> Artifact:
    """Write and run a program with the realiser; the artifact the metric sees."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "figure.py"
    path.write_text(program)
    [output] = renderer_for("program").render([RenderJob(path)], folder / "out")
    if output.png is None:
        pytest.skip(f"the program realiser cannot run Python here: {output.error}")
    return Artifact(
        path=path,
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        gate=GateResult(passed=True),
        family=FIGURE_TO_CODE,
        pages=(output.png,),
    )


def probes(artifact: Artifact) -> tuple[float | None, dict[str, dict]]:
    values = {v.name: v for v in EditProbes().compute(artifact)}  # programs start no office
    score = values["probe_score"]
    return score.value, {p["probe"]: p for p in score.detail["probes"]}


def test_a_program_that_draws_its_figure_passes_every_probe(tmp_path: Path) -> None:
    score, found = probes(run(PLOT, tmp_path / "plot"))
    assert {name: p.get("passed") for name, p in found.items()} == {
        "string": True,
        "data": True,
        "colour": True,
    }, found
    assert found["string"]["evidence"]["old"] == "Millimetres"  # the longest word OCR read
    assert found["data"]["evidence"]["old"] == "3.2"
    assert score == 1.0
    # each probe keeps the program's image before its edit and the edited program's after
    befores = {p["renders"]["before"] for p in found.values()}
    assert len(befores) == 1 and all(p["renders"]["after"] not in befores for p in found.values())


def test_an_embedded_picture_of_the_figure_fails(tmp_path: Path) -> None:
    drawn = run(PLOT, tmp_path / "plot")
    data = base64.b64encode(drawn.pages[0].read_bytes()).decode()
    score, found = probes(run(SMUGGLE.format(data=data), tmp_path / "smuggle"))
    assert found["string"]["applicable"] and found["string"]["passed"] is False
    assert not found["data"]["applicable"]  # no sequence of numbers to change
    assert not found["colour"]["applicable"]
    assert score == 0.0


def test_the_edits_change_what_they_name() -> None:
    edited = code.data_edit("x = [1, 2, 3]\ny = [10.5, 20.0, 30.25, 40.0]\n")
    assert isinstance(edited, code.Edited)
    assert edited.text == "x = [1, 2, 3]\ny = [10.5, 20.0, 45.375, 40.0]\n"
    tex = code.string_edit(r"\node {Encoder}; \textbf{Decoder}", "Encoder textbf Decoder", True)
    assert isinstance(tex, code.Edited) and tex.evidence["old"] == "Encoder"  # not \textbf
    ocr_joined = code.string_edit(
        "ax.set_title('Quartz mathematical')", "Quartzmathematical", False
    )
    assert isinstance(ocr_joined, code.Edited) and ocr_joined.evidence["old"] == "mathematical"
    matlab = code.colours("plot(x, y, 'Color', [0.122 0.467 0.706]);", matlab=True)
    assert [rgb for _, rgb in matlab] == [(31, 119, 180)]


def test_a_stored_program_without_suffix_is_read_in_its_tasks_language() -> None:
    # The run store keeps a program under its hash: a LaTeX program's words are its text.
    task = Task(id="t", family=FIGURE_TO_CODE, inputs={}, params={"language": "latex"})
    stored = Path("objects/ab/0123abcd")
    assert code.program_suffix(stored, task) == ".tex"
    assert code.program_suffix(Path("figure.R"), None) == ".r"


def test_a_value_that_sizes_the_canvas_moves_no_mark() -> None:
    edited = code.Edited("data", "", {})
    before, after = np.zeros((48, 64, 3), np.uint8), np.zeros((72, 64, 3), np.uint8)
    assert code.check(edited, before, after)[0] is False
