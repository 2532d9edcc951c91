"""A folder of runs with one damaged run: the others are still reported, listed and served, the
damaged one is named with its fix, and `refig report` ends with exit 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from refig.cli import run as cli
from refig.models import Configuration
from refig_reporter_html.collection import LiveFolder
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

PAGE = 4096


def _folder(tmp_path: Path, *, damage: str) -> Path:
    """Two small synthetic runs, ``good`` and ``bad``; ``bad``'s database scribbled over either
    past its header (``open``: refused when opened) or past its schema page (``rows``: found
    only when its rows are read)."""
    spec = SyntheticSpec(configs=[Configuration(model="m", harness="h", workflow="direct")],
                         quality=[[0.5] * 5], tasks=3, repeats=1, votes=0)
    for name in ("good", "bad"):
        synthetic_run(tmp_path / "runs" / name, spec).close()  # its rows in refig.db, not the WAL
    db = tmp_path / "runs" / "bad" / "refig.db"
    data = bytearray(db.read_bytes())
    start, step = (100, 997) if damage == "open" else (2 * PAGE + 50, 61)
    for at in range(start, len(data), step):
        data[at] = 0xAB
    db.write_bytes(bytes(data))
    return tmp_path / "runs"


@pytest.mark.parametrize("damage", ["open", "rows"])
def test_the_static_report_of_a_folder_leaves_out_only_the_damaged_run(tmp_path, capsys, damage):
    folder = _folder(tmp_path, damage=damage)
    out = tmp_path / "html"
    assert cli(["report", str(folder), "--html", str(out), "--resamples", "200", "-q"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "bad is left out" in said and "Traceback" not in said
    assert f"1 of 2 runs in {folder} could not be read: bad" in said
    script = (out / "data/rows.js").read_text()
    rows = json.loads(script.removeprefix("window.REFIG_ROWS = ").rstrip().rstrip(";"))["rows"]
    assert rows and {row["run"] for row in rows} == {"good"}
    assert (out / "summary.html").read_text().count('class="run-summary"') == 1
    assert [page.parent.name.split("-")[0] for page in out.glob("runs/*/index.html")] == ["good"]


def test_the_terminal_report_of_a_folder_reports_the_other_runs(tmp_path, capsys):
    folder = _folder(tmp_path, damage="rows")
    assert cli(["report", str(folder), "--resamples", "200"]) == 1
    captured = capsys.readouterr()
    said = " ".join(captured.err.split())
    assert said.count("bad is left out") == 1
    assert "1 of 2 runs" in said
    assert "good" in said  # its heading; its tables follow
    assert "Traceback" not in said


def test_the_viewer_serves_the_other_runs_and_names_the_damaged_one_once(tmp_path, capsys):
    folder = _folder(tmp_path, damage="rows")
    live = LiveFolder(folder, scan_every=0.0, background=False)
    assert [m.name for m in live.members()] == ["good"]
    assert [m.name for m in live.members()] == ["good"]  # looked at again
    said = " ".join(capsys.readouterr().err.split())
    assert said.count("is left out until it can be read") == 1
