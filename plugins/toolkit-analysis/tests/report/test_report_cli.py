"""`refig report` on the hand-built run: tables printed, JSON, LaTeX and figures exported, and
its usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from refig.cli import run as cli
from refig.console import out as console


def test_report_cli_prints_tables_and_exports(
    hand, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console, "width", 220)
    root = str(hand.store.root)
    assert cli(["report", root, "--judge", "j1", "--resamples", "500", "-q"]) == 0
    text = capsys.readouterr().out
    for title in (
        "Configuration means (judge j1)",
        "Structural audit",
        "Workflow economics",
        "Paired effects",
        "Judge repeatability",
        "Cross-judge rank agreement",
        "Human preference Elo",
        "Judge vs human direction agreement",
        "Editability weight sensitivity",
    ):
        assert title in text
    assert "* best in column" in text
    assert cli(["report", root, "--json", "--resamples", "500"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["judge"] == "j1"  # the judge with the most scored cells
    assert document["options"]["buckets"][-1] is None  # strict JSON: no Infinity
    assert {"means", "effects", "elo", "direction", "weights", "task_scores"} <= set(
        document["tables"]
    )
    means = document["tables"]["means"]
    assert {"estimate", "low", "high"} == set(means["rows"][0]["total"])
    latex, figures = tmp_path / "tex", tmp_path / "fig"
    assert (
        cli(
            [
                "report",
                root,
                "--latex",
                str(latex),
                "--figures",
                str(figures),
                "-q",
                "--resamples",
                "500",
            ]
        )
        == 0
    )
    capsys.readouterr()
    tex = (latex / "tables" / "means.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex and "m@h1/direct" in tex
    assert (latex / "report.tex").read_text().count("\\input{tables/") >= 9
    assert (figures / "effects_forest.png").stat().st_size > 0
    assert (figures / "effects_forest.svg").read_text().lstrip().startswith("<?xml")


def test_report_cli_errors(hand, tmp_path: Path, capsys) -> None:
    assert cli(["report", str(hand.store.root), "--judge", "nope", "-q"]) == 2
    assert "choose one of: j1, j2" in capsys.readouterr().err
    assert cli(["report", str(tmp_path / "absent")]) == 2
    assert cli(["report", str(hand.store.root), "--reporter", "no-such-reporter"]) == 2
    capsys.readouterr()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    # a file given as the folder is refused before the analysis, as a usage error
    assert cli(["report", str(hand.store.root), "--latex", str(blocker), "-q", "--json"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert f"{blocker} is a file, not a folder for the latex report" in said
    # a folder that cannot be made (below a file) fails when the reporter writes it
    inside = blocker / "tables"
    assert cli(["report", str(hand.store.root), "--latex", str(inside), "-q", "--json"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "cannot write the latex report" in said and str(blocker) in said
    assert "Traceback" not in said


def test_one_report_analyses_the_run_once_for_all_its_reporters(
    hand, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    from refig_toolkit_analysis.analysis import report

    made = []

    def counted(*args, **kwargs):
        made.append(analysis := analyse(*args, **kwargs))
        return analysis

    analyse = report.analyse
    monkeypatch.setattr(report, "analyse", counted)
    root = str(hand.store.root)
    # terminal, latex and figures: three reporters, one analysis
    assert cli(["report", root, "--latex", str(tmp_path / "tex"), "--figures",
                str(tmp_path / "fig"), "-q", "--resamples", "200"]) == 0
    assert "Configuration means" in capsys.readouterr().out
    assert len(made) == 1
    assert (tmp_path / "tex" / "report.tex").is_file()
    assert (tmp_path / "fig" / "effects_forest.png").is_file()
    # the next report analyses afresh, with its own options
    assert cli(["report", root, "--json", "--resamples", "300"]) == 0
    assert json.loads(capsys.readouterr().out)["options"]["resamples"] == 300
    assert len(made) == 2 and made[1].context.options.resamples == 300
    # a reporter called on its own, without a cache, analyses each time
    assert report.analysis_for(hand.store.root, {"resamples": 200}) is not made[0]
    assert len(made) == 3
