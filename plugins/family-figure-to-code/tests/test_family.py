"""The family object: structural gate, structure, gate folding, judge evidence; the records."""

from __future__ import annotations

from pathlib import Path

from refig.models import Page
from refig.plugin import Asset, ErrorInfo, GateResult, Render, Task
from refig.plugins import Registry
from refig_family_figure_to_code.family import CodeFamily
from refig_family_figure_to_code.structure import ProgramStructure

SHA = "c" * 64


def task(language: str = "python") -> Task:
    return Task(id="t1", family="figure-to-code", params={"language": language},
                inputs={"figure": Asset(path="assets/t1/figure.png", sha256=SHA),
                        "reference_code": Asset(path="assets/t1/reference/figure.py",
                                                sha256="d" * 64, visible=False)})


def test_gate_reads_the_program_without_running_it(tmp_path: Path) -> None:
    family = CodeFamily()
    program = tmp_path / "figure.py"
    program.write_text("import matplotlib.pyplot as plt\nplt.imshow(plt.imread('source.png'))\n")
    gate, structure = family.inspect(program, task())
    assert gate.passed and isinstance(structure, ProgramStructure)
    assert structure.plotting_calls == ("imshow",) and "reads_image" in structure.smuggling
    assert "names_figure" in structure.smuggling
    wrong = tmp_path / "figure.R"
    wrong.write_text("plot(1)")
    assert family.inspect(wrong, task())[0].reason == "syntax_error"
    assert family.inspect(tmp_path / "absent.py", task())[0].reason == "missing"
    empty = tmp_path / "empty" / "figure.py"
    empty.parent.mkdir()
    empty.write_text("  \n")
    assert family.inspect(empty, task())[0].reason == "no_image"


def test_fold_gate_takes_the_execution_failure(tmp_path: Path) -> None:
    family = CodeFamily()
    ok = GateResult(passed=True)
    failed = Render(artifact_sha256=SHA, renderer="program", settings="s",
                    error=ErrorInfo(kind="timeout", message="past 60 s"))
    assert family.fold_gate(ok, failed).reason == "timeout"
    rendered = Render(artifact_sha256=SHA, renderer="program", settings="s",
                      pages=(Page(index=0, png_sha256=SHA, width_px=4, height_px=4),))
    assert family.fold_gate(ok, rendered).passed
    assert family.fold_gate(ok, None).reason == "no_image"
    changed = task().model_copy(update={"inputs": {**task().inputs, "reference_code": Asset(
        path="assets/t1/reference/figure.py", sha256="e" * 64, visible=False)}})
    assert family.reference_key(task()) == family.reference_key(task())
    assert family.reference_key(task()) != family.reference_key(changed)


def test_the_family_and_its_plugins_are_registered() -> None:
    registry = Registry.load(warn=lambda _: None)
    record = registry.family("figure-to-code").record
    assert [d.role for d in record.deliverables] == ["program"] and record.renderer == "program"
    assert {i.role: i.visible for i in record.inputs}["reference_code"] is False
    assert record.rubric is not None and record.rubric.is_file()
