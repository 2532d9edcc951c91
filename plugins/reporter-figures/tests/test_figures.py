"""The figures reporter: real PNG and SVG files from matplotlib, and a reason for each skipped."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from PIL import Image
from refig.models import Configuration
from refig_reporter_figures.plots import Figure, Skipped, write_figures
from refig_toolkit_analysis.analysis import Options, analyse
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

CONFIGS = [
    Configuration(model="m", harness=h, workflow=w)
    for h, w in (("h1", "direct"), ("h1", "specialized"), ("h2", "direct"))
]


def test_every_figure_is_drawn_on_a_full_run(tmp_path: Path) -> None:
    spec = SyntheticSpec(
        configs=CONFIGS, quality=[[0.5] * 5, [0.7] * 5, [0.3] * 5], tasks=10, votes=60, images=False
    )
    analysis = analyse(synthetic_run(tmp_path / "run", spec), Options(resamples=300))
    found = write_figures(analysis, tmp_path / "fig")
    assert all(isinstance(f, Figure) for f in found), found
    assert {f.name for f in found} == {
        "effects_forest",
        "axis_effects_forest",
        "judge_vs_elo",
        "axis_bars",
        "score_distributions",
    }
    for figure in found:
        assert isinstance(figure, Figure)
        with Image.open(figure.png) as image:
            assert image.width > 300 and image.height > 150
        assert ET.parse(figure.svg).getroot().tag.endswith("svg")
        assert figure.pdf.read_bytes().startswith(b"%PDF")


def test_figures_without_data_are_skipped_with_a_reason(tmp_path: Path) -> None:
    spec = SyntheticSpec(configs=CONFIGS[:1], quality=[[0.5] * 5], tasks=4, votes=0, images=False)
    analysis = analyse(synthetic_run(tmp_path / "run", spec), Options(resamples=200))
    found = {f.name: f for f in write_figures(analysis, tmp_path / "fig")}
    assert isinstance(found["effects_forest"], Skipped)
    assert isinstance(found["axis_effects_forest"], Skipped)
    assert isinstance(found["judge_vs_elo"], Skipped) and "Elo" in found["judge_vs_elo"].reason
    assert isinstance(found["axis_bars"], Figure)
    assert not (tmp_path / "fig" / "judge_vs_elo.png").exists()
