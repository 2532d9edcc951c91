"""Reference, blank, smuggling and broken programs in all four languages, through the family's
gate, the real `program` realiser, the `code` metric and the `code-metrics` proxy: the right
verdicts, values and caps."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from refig.plugin import Artifact, JudgeRequest, Render, RenderJob, load_rubric
from refig_family_figure_to_code.family import CodeFamily
from refig_family_figure_to_code.languages import Language, spec
from refig_family_figure_to_code.realiser import ProgramRenderer
from refig_family_figure_to_code.suites.code_sample import build_code_sample
from refig_harness_code_baselines.programs import blank, smuggle
from refig_judge_mmos.proxy import CodeMetricsProxy
from refig_metric_code.metric import CodeMetrics

BROKEN = {"python": "import matplotlib.pyplot as plt\nplt.plot([1, 2\n",
          "r": "plot(1:3\n", "matlab": "plot([1 2 3);\n",
          "latex": "\\documentclass{standalone}\\begin{document}\\foo\\end{document}\n"}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    for tool in ("Rscript", "octave", "xelatex"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (scripts/bootstrap.sh)")
    return build_code_sample(tmp_path_factory.mktemp("suite"), categories=("relational",))


def evaluate(suite, task, program: str, tmp: Path) -> tuple[dict[str, float | None], Artifact]:  # type: ignore[no-untyped-def]
    family = CodeFamily()
    language = Language.parse(task.params["language"])
    path = tmp / spec(language).program_file
    path.write_text(program)
    gate, structure = family.inspect(path, task)
    references = {role: suite.input_path(task, role) for role in task.inputs}
    visible = {role: references[role] for role in task.visible_inputs()}
    job = RenderJob(path=path, task=task, inputs=visible)
    [out] = ProgramRenderer(deadline_s=60).render([job], tmp / "pages")
    render = Render(artifact_sha256="0" * 64, renderer="program", settings="t", pages=(),
                    error=out.error) if out.error else None
    if render is None:
        from refig.models import Page

        render = Render(artifact_sha256="0" * 64, renderer="program", settings="t",
                        pages=(Page(index=0, png_sha256="1" * 64, width_px=1, height_px=1),))
    gate = family.fold_gate(gate, render)
    artifact = Artifact(path=path, sha256="a" * 64, gate=gate, family="figure-to-code",
                        files={"program": path}, structure=structure, pages=out.pages,
                        references=references, task=task)
    # k = 500 trivial n-grams would cover every 1- and 2-gram of this one-program-a-language suite
    # (CrystalBLEU 0 even for the reference itself); a real suite has hundreds of programs.
    metric = CodeMetrics(trivial_k=50)
    values = {f"code.{v.name}": v.value for v in metric.compute(artifact)}
    return values, Artifact(**{**artifact.__dict__, "metrics": values})


@pytest.mark.slow
@pytest.mark.parametrize("language", ["python", "r", "matlab", "latex"])
def test_baselines_and_broken_programs_get_their_verdicts(suite, language: str,  # type: ignore[no-untyped-def]
                                                          tmp_path: Path) -> None:
    task = next(t for t in suite.tasks if t.params["language"] == language)
    lang = Language.parse(language)
    figure = suite.input_path(task, "figure")
    reference = suite.input_path(task, "reference_code").read_text()
    width, height = task.params["width"], task.params["height"]
    workspace = tmp_path / "ws"
    workspace.mkdir()
    shutil.copyfile(figure, workspace / f"source{figure.suffix}")
    rubric = load_rubric(None, family="figure-to-code")
    proxy = CodeMetricsProxy()

    def run(name: str, program: str):  # type: ignore[no-untyped-def]
        sub = tmp_path / name
        sub.mkdir()
        values, artifact = evaluate(suite, task, program, sub)
        judgment = proxy.judge(JudgeRequest(artifact=artifact,
                                            evidence=CodeFamily().evidence(artifact), repeat=0))
        scored = rubric.finish(judgment.scores, flattened=rubric.is_flattened(values))
        return values, artifact, scored

    ref, ref_artifact, ref_scored = run("reference", reference)
    assert ref_artifact.gate.passed and ref["code.execution"] == 1.0
    assert ref["code.crystalbleu_sentence"] == pytest.approx(1.0) and ref["code.ast"] == 1.0
    assert ref["code.api_f1"] == 1.0 and ref["code.smuggling"] == 0.0
    assert ref["code.psnr"] == 100.0 and ref["code.ssim"] == pytest.approx(1.0)
    assert ref["code.fcf"] > 0.99 and ref_scored.total == pytest.approx(100.0)

    empty, _, empty_scored = run("blank", blank(lang, width, height))
    assert empty["code.execution"] == 1.0 and empty["code.smuggling"] == 0.0
    assert empty["code.ssim"] < ref["code.ssim"] and empty["code.fcf"] < ref["code.fcf"]
    assert empty_scored.total < ref_scored.total - 10

    cheat, cheat_artifact, cheat_scored = run("smuggle", smuggle(lang, workspace /
                                                                 f"source{figure.suffix}",
                                                                 width, height))
    assert cheat_artifact.gate.passed, cheat_artifact.gate.detail
    assert cheat["code.smuggling"] == 1.0
    assert cheat["code.fcf"] > 0.0  # FCF is the formula and does not see smuggling...
    assert cheat["code.ssim"] > empty["code.ssim"]  # it did reproduce the figure...
    assert cheat_scored.capped and cheat_scored.total == 0.0  # ...the rubric's cap does

    broken, broken_artifact, _ = run("broken", BROKEN[language])
    assert not broken_artifact.gate.passed
    assert broken_artifact.gate.reason == "syntax_error"
    assert broken["code.execution"] == 0.0 and broken["code.psnr"] is None
    assert broken["code.psnr_weighted"] == 0.0
    # the worst LPIPS when LPIPS can run here; unknown, not the worst, when it cannot
    assert broken["code.lpips_weighted"] == (None if ref["code.lpips"] is None else 1.0)
    assert broken["code.ciede2000_weighted"] == 100.0 and broken["code.fcf"] == 0.0
