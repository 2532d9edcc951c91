"""``refig report RUN --paper NAME --latex DIR``: the paper's files named as in the paper, the
same numbers as the JSON (Table 2 the first judging run's), a LaTeX document that compiles, and
one line naming what the run cannot make and why."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from refig.cli import run as cli
from refig.errors import UsageError
from refig.models import Configuration
from refig_family_figure_to_code.paper import FIGCODEBENCH
from refig_toolkit_analysis.papers import (
    NotMade,
    Part,
    paper_for,
    part_heading,
    part_options,
    tables_of,
)
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

FAST = ["--resamples", "200", "--elo-resamples", "20", "--seed", "3"]
CONFIGS = [
    Configuration(model="m", harness=h, workflow=w)
    for h, w in (("h1", "direct"), ("h1", "specialized"), ("h2", "direct"))
]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A run judged three times with human votes, its paper written with the JSON report of
    the mean of runs, and the JSON report of the first judging run alone."""
    root = tmp_path_factory.mktemp("paper")
    spec = SyntheticSpec(configs=CONFIGS, quality=[[0.5] * 5, [0.7] * 5, [0.3] * 5], tasks=10,
                         votes=60, images=False)
    run = str(synthetic_run(root / "run", spec).root)
    out = root / "tex"
    reports = {}
    for name, extra in (("paper", ["--paper", "refigbench", "--latex", str(out)]),
                        ("first", ["--judge-run", "1"])):
        reports[name] = _json_report([run, *extra, *FAST])
    return {"run": run, "out": out, **reports}


def _json_report(args: list[str]) -> dict[str, Any]:
    """``refig report ARGS --json`` run in a subprocess: its JSON document and its stderr."""
    done = subprocess.run(["refig", "report", *args, "--json"], capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return {"json": json.loads(done.stdout), "stderr": done.stderr}


def _line(tex: str, config: str) -> str:
    return next(line for line in tex.splitlines() if line.startswith(config.replace("_", r"\_")))


def _cell(estimate: dict[str, float], digits: int) -> str:
    value, low, high = (estimate[k] for k in ("estimate", "low", "high"))
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def test_the_papers_files_are_named_as_in_the_paper(written: dict[str, Any]) -> None:
    names = sorted(p.name for p in written["out"].iterdir())
    assert {"table2.tex", "table6.tex", "table18.tex", "table20.tex", "figure4.pdf",
            "paper.tex"} <= set(names)
    assert not (written["out"] / "tables").exists()  # the paper replaces the report's layout
    assert (written["out"] / "figure4.pdf").read_bytes().startswith(b"%PDF")


def test_table2_is_the_first_judging_run_and_table18_the_runs_side_by_side(
        written: dict[str, Any]) -> None:
    table2 = (written["out"] / "table2.tex").read_text()
    table18 = (written["out"] / "table18.tex").read_text()
    first = written["first"]["json"]["tables"]["means"]["rows"]
    mean = written["paper"]["json"]["tables"]["means"]["rows"]
    runs = written["paper"]["json"]["tables"]["run_means"]["rows"]
    differs = 0
    for row, pooled, per_run in zip(first, mean, runs, strict=True):
        line = _line(table2, row["config"])
        assert _cell(row["total"], 1) in line
        assert _cell(row["editability"], 1) in line
        # run 1 of the per-run table is the same number as Table 2, computed on its own
        assert per_run["run_1"]["estimate"] == pytest.approx(row["total"]["estimate"])
        assert _cell(per_run["run_1"], 1) in _line(table18, row["config"])
        differs += round(row["total"]["estimate"], 1) != round(pooled["total"]["estimate"], 1)
    assert differs, "the judge varies between repeats, so run 1 differs from the mean of runs"
    assert "scores: judging run 1 of 3" in table2
    assert r"\label{tab:refigbench-table2}" in table2


def test_table6_holds_both_columns_of_the_paper(written: dict[str, Any]) -> None:
    table6 = (written["out"] / "table6.tex").read_text()
    first, rest = table6.split(r"\end{table}")[:2]
    assert "first judging run, every decisive vote" in first
    assert "mean of judging runs, zero margins excluded" in rest
    for column, report in ((first, "first"), (rest, "paper")):
        rows = written[report]["json"]["tables"]["direction"]["rows"]
        total = next(r for r in rows if r["judge"] == "judge-a" and r["bucket"] == "all")
        assert f"judge-a & all & {total['decisive']} & {total['matches']} & " in column
    # the paper's first-run column keeps every decisive vote, the mean-of-runs one leaves out
    # the votes on pairs the judge scored level (ReFigBench's rule for each column)
    assert written["first"]["json"]["options"]["zero_margin"] == "disagree"
    assert written["paper"]["json"]["options"]["zero_margin"] == "exclude"


def test_the_line_names_what_the_run_cannot_make_and_why(written: dict[str, Any]) -> None:
    stderr = written["paper"]["stderr"]
    assert "refigbench: cannot make 1 of 10: scores-by-field: fields: Too little data" in (
        " ".join(stderr.split()))
    assert not (written["out"] / "scores-by-field.tex").exists()
    assert "% cannot make scores-by-field:" in (written["out"] / "paper.tex").read_text()


def test_the_paper_compiles(written: dict[str, Any], tmp_path: Path) -> None:
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed; the files were checked as text")
    shutil.copytree(written["out"], tmp_path / "tex")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=tmp_path / "tex", capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "tex" / "paper.pdf").stat().st_size > 0


def test_tables_not_computed_by_refig_say_so() -> None:
    made = {item.name: tables_of(item, Path("."), {}) for item in FIGCODEBENCH.items
            if item.missing is not None}
    assert set(made) == {"figure1"}
    for result in made.values():
        assert isinstance(result, NotMade) and "not computed by this refig" in result.reason


def test_a_paper_of_another_family_or_unknown_exits_2_naming_the_papers() -> None:
    with pytest.raises(UsageError) as other:
        paper_for("pptarena", "figure-to-slide")
    assert "refigbench" in str(other.value.fix)
    with pytest.raises(UsageError) as unknown:
        paper_for("nope", "figure-to-slide")
    assert "figcodebench, pptarena, refigbench" in str(unknown.value.fix)


def test_paper_without_latex_or_unknown_exits_2(written: dict[str, Any], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["report", str(tmp_path), "--paper", "refigbench"]) == 2
    assert "add --latex DIR" in capsys.readouterr().err
    assert cli(["report", written["run"], "--json", "--paper", "nope", "--latex",
                str(tmp_path / "tex")]) == 2
    assert "--paper is one of: figcodebench, pptarena, refigbench" in " ".join(
        capsys.readouterr().err.split())


def test_parts_that_fix_a_judging_run_read_it_with_the_papers_direction_rule() -> None:
    options = {"resamples": 200, "zero_margin": "exclude", "judge_run": None}
    assert part_options(options, Part("means", 1)) == {
        "resamples": 200, "zero_margin": "disagree", "judge_run": 1}
    assert part_options(options, Part("run_means")) == options
    column = Part("direction", None, "mean of judging runs, zero margins excluded")
    assert part_heading(column, options) == column.heading
    assert part_heading(column, {**options, "judge_run": 2}) == "judging run 2 (--judge-run)"
    assert part_heading(Part("direction", 1, "first run"), {"judge_run": 2}) == "first run"
