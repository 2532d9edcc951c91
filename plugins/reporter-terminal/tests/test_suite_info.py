"""`refig suite info`: a suite's inputs by role and its images' statistics, as tables, JSON and a
plot."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from PIL import Image
from refig.cli import run
from refig.plugin import SuiteWriter
from refig_toolkit_testing.suites import tiny_suite


@pytest.fixture
def suite_dir(tmp_path):
    return tiny_suite(tmp_path / "s")


def test_info_table_json_and_plot(suite_dir, tmp_path, capsys):
    assert run(["suite", "info", str(suite_dir)]) == 0
    table = capsys.readouterr().out
    assert "cs.CV" in table and "cs.CL" in table
    plot = tmp_path / "info.png"
    assert run(["suite", "info", str(suite_dir), "--json", "--plot", str(plot)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["all"]["count"] == 3 and info["all"]["distinct_resolutions"] == 3
    assert info["all"]["aspect"]["median"] == pytest.approx(3.0)
    assert info["by_field"]["cs.CV"]["count"] == 2
    assert Image.open(plot).size[0] > 500


def test_info_of_a_suite_without_images_describes_its_inputs(tmp_path, capsys):
    writer = SuiteWriter(tmp_path / "d", name="decks", family="deck-edit", builder="test",
                         created_at=datetime(2020, 1, 1, tzinfo=UTC))
    for task_id, size in (("a", 1000), ("b", 3000)):
        writer.add_task(task_id, {"deck": writer.asset(f"{task_id}.pptx", b"x" * size),
                                  "target": writer.asset(f"{task_id}-t.pptx", b"y" * size,
                                                         visible=False)})
    writer.finish()
    assert run(["suite", "info", str(tmp_path / "d")]) == 0
    table = capsys.readouterr().out
    assert "source images" not in table and "no image sources" in table
    assert "no (hidden)" in table
    assert run(["suite", "info", str(tmp_path / "d"), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["inputs"]["deck"] == {"tasks": 2, "visible": True, "bytes": {
        "min": 1000.0, "p25": 1500.0, "median": 2000.0, "p75": 2500.0, "max": 3000.0}}
    assert info["inputs"]["target"]["visible"] is False
