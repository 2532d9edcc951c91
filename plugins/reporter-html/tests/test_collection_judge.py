"""``--judge J`` over a folder of runs in the HTML pages: a run J did not judge says so on its
page and on stderr (and shows its own main judge); J judging none of them is a usage error."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.cli import run as cli
from refig.models import Configuration
from refig.plugin import UsageError
from refig_reporter_html.collection import LiveFolder
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

NOTICE = "b/run: judge 'judge-a' did not judge this run, so its tables use the run's own main judge"


def _folder(root: Path, *judges: tuple[str, ...]) -> Path:
    for name, held in zip(("a/run", "b/run"), judges, strict=True):
        spec = SyntheticSpec(configs=[Configuration(model="m", harness="h", workflow="direct")],
                             quality=[[0.5] * 5], tasks=3, judges=held, repeats=1, votes=0,
                             images=False, gate_failures=0.0, failed_judgments=0.0)
        synthetic_run(root / name, spec)
    return root


def test_the_static_pages_say_which_run_the_judge_did_not_judge(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path / "runs", ("judge-a", "judge-b"), ("judge-b",))
    out = tmp_path / "html"
    assert cli(["report", str(folder), "--judge", "judge-a", "--html", str(out), "-q",
                "--resamples", "100"]) == 0
    assert NOTICE in " ".join(capsys.readouterr().err.split())
    for page in ("summary.html", "index.html"):
        text = " ".join((out / page).read_text().split())
        assert 'class="note judge-fallback"' in text, page
        assert NOTICE.replace("'", "&#39;") in text, page
        assert "a/run: judge" not in text
    flagged = {page.parent.name for page in (out / "runs").glob("*/summary.html")
               if 'class="note judge-fallback"' in page.read_text()}
    assert len(flagged) == 1 and "b" in next(iter(flagged))  # the run's own pages say so too


def test_a_judge_that_judged_none_is_refused_by_the_pages_and_the_viewer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path / "runs", ("judge-a",), ("judge-b",))
    assert cli(["report", str(folder), "--judge", "judge-x", "--html", str(tmp_path / "html"),
                "-q"]) == 2
    assert "judged none of the 2 runs" in " ".join(capsys.readouterr().err.split())
    with pytest.raises(UsageError, match="judged none of the 2 runs"):
        LiveFolder(folder, judge="judge-x", background=False)
    live = LiveFolder(folder, judge="judge-a", background=False)
    assert [(m.name, m.note is not None) for m in live.members()] == [("a/run", False),
                                                                     ("b/run", True)]
