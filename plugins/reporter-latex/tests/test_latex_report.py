"""The LaTeX reporter: booktabs tables with every special character escaped, compiled when a TeX
installation is present."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from refig.cli import run as cli
from refig.models import Configuration
from refig_reporter_latex.tex import escape, table_tex
from refig_toolkit_analysis.analysis import Column, Estimate, Table
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run


def test_escape_covers_specials_and_report_symbols() -> None:
    assert escape("a_b & 50% #1 {x} ~^ $") == (
        r"a\_b \& 50\% \#1 \{x\} \textasciitilde{}\textasciicircum{} \$"
    )
    assert escape("Δ ρ τ − ≥ ½ —") == r"$\Delta$ $\rho$ $\tau$ $-$ $\geq$ $\frac{1}{2}$ ---"
    assert escape("\\input{x}") == r"\textbackslash{}input\{x\}"


def test_table_is_booktabs_with_best_in_bold() -> None:
    table = Table(
        "means",
        "Means",
        [Column("config", "configuration"), Column("total", "total", "estimate", best="max")],
        [
            {"config": "gpt_5@codex/direct[x=1]", "total": Estimate(50.0, 45.0, 55.0)},
            {"config": "b%", "total": Estimate(60.0, 52.5, 67.5)},
        ],
    )
    tex = table_tex(table)
    lines = tex.splitlines()
    assert lines.index(r"\toprule") < lines.index(r"\midrule") < lines.index(r"\bottomrule")
    assert r"\begin{tabular}{lr}" in tex
    assert r"gpt\_5@codex/direct[x=1] & 50.0 [45.0, 55.0] \\" in tex
    assert r"b\% & \textbf{60.0 [52.5, 67.5]} \\" in tex
    assert r"\label{tab:refig-means}" in tex
    short = Table("elo", "Elo", [], insufficient="3 votes; needs 10")
    assert "Too little data: 3 votes; needs 10." in table_tex(short)


def test_latex_report_of_a_run(tmp_path: Path) -> None:
    configs = [Configuration(model="m_1", harness="h", workflow=w) for w in ("direct", "spec")]
    spec = SyntheticSpec(
        configs=configs, quality=[[0.5] * 5, [0.6] * 5], tasks=8, votes=20, images=False
    )
    store = synthetic_run(tmp_path / "run", spec)
    out = tmp_path / "tex"
    assert (
        cli(["report", str(store.root), "--latex", str(out), "--json", "--resamples", "300"]) == 0
    )
    names = sorted(p.stem for p in (out / "tables").glob("*.tex"))
    assert {"means", "effects", "structural", "elo", "weights"} <= set(names)
    assert "task_scores" not in names  # detail tables stay out of the paper
    means = (out / "tables" / "means.tex").read_text()
    assert r"m\_1@h/direct" in means and r"\textbf{" in means
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed; the tables were checked as text")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    assert (out / "report.pdf").stat().st_size > 0
