"""Slides that look alike and differ in editability, scored by ``refig check -m edit-probes
--json`` as a user runs it: the scores order as a person would rank the slides."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def checked(lookalikes: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """Every look-alike checked in one ``refig check`` (one process, one warm office)."""
    refig = Path(sys.executable).with_name("refig")
    done = subprocess.run(
        [str(refig), "check", "-q", "-m", "edit-probes", "--json", *map(str, lookalikes.values())],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = {Path(row["file"]).stem: row for row in json.loads(done.stdout)}
    return {style: rows[style]["metrics"]["edit-probes"] for style in lookalikes}


def test_glued_above_touching_above_a_picture_under_labels(checked) -> None:
    scores = {style: values["probe_score"] for style, values in checked.items()}
    print(json.dumps(scores))
    assert scores["glued"] == 1.0
    assert scores["glued"] > scores["touching"] > scores["picture_under_labels"]


def test_grouping_keeps_a_figure_editable(checked) -> None:
    assert checked["grouped"]["probe_score"] == checked["glued"]["probe_score"]


def test_text_boxes_over_drawn_boxes_rank_below_real_nodes(checked) -> None:
    assert checked["text_over_boxes"]["probe_score"] < checked["touching"]["probe_score"]


def test_a_table_used_as_a_grid_has_no_node_to_probe(checked) -> None:
    # Its cells are not shapes: nothing applies, and nothing applicable is never a pass.
    assert checked["table_grid"] == {"probe_score": None, "probes_applicable": 0.0}
