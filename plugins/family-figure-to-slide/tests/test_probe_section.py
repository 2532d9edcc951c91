"""The report's edit-probes table: per configuration, beside the editability axis."""

from __future__ import annotations

from pathlib import Path

from refig.models import Attempt, Configuration, MetricValue
from refig_toolkit_analysis.analysis import Options, analyse
from refig_toolkit_analysis.analysis.tables import Estimate
from refig_toolkit_testing.synthetic import SyntheticSpec, synthetic_run

LOW = Configuration(model="m", harness="paste", workflow="direct")
HIGH = Configuration(model="m", harness="native", workflow="direct")


def run(tmp_path: Path, *, probes: bool):
    spec = SyntheticSpec(
        configs=[LOW, HIGH],
        quality=[[0.5] * 3 + [0.2, 0.5], [0.5] * 3 + [0.9, 0.5]],
        tasks=8,
        judges=("solo",),
        repeats=1,
        votes=0,
        images=False,
        gate_failures=0.0,
        failed_judgments=0.0,
    )
    store = synthetic_run(tmp_path / "run", spec)
    if probes:
        store.put_many(
            [
                MetricValue(
                    artifact_sha256=a.outputs["slide"],
                    metric="edit-probes",
                    name="probe_score",
                    value=0.25 if a.config_id == LOW.id else 1.0,
                )
                for a in store.query(Attempt)
                if "slide" in a.outputs
            ]
        )
    return analyse(store, Options(resamples=200))


def test_probe_scores_sit_beside_the_editability_axis(tmp_path: Path) -> None:
    table = run(tmp_path, probes=True).table("probes")
    rows = {row["config"]: row for row in table.rows}
    assert rows[LOW.id]["probed"] == rows[HIGH.id]["probed"] == 8
    low, high = rows[LOW.id]["probe_score"], rows[HIGH.id]["probe_score"]
    assert isinstance(low, Estimate) and low.value == 0.25 and high.value == 1.0
    assert rows[HIGH.id]["editability"].value > rows[LOW.id]["editability"].value
    [note] = table.notes
    assert "Spearman" in note and "16 (task, configuration) pairs" in note


def test_without_probe_values_the_table_says_how_to_get_them(tmp_path: Path) -> None:
    table = run(tmp_path, probes=False).table("probes")
    assert "refig evaluate RUN -m edit-probes" in (table.insufficient or "")


def test_each_probe_has_its_pass_rate_where_it_applied(tmp_path: Path) -> None:
    store = synthetic_run(tmp_path / "run", SyntheticSpec(
        configs=[LOW], quality=[[0.5] * 5], tasks=4, judges=(), repeats=1, votes=0,
        images=False, gate_failures=0.0, failed_judgments=0.0))
    probes = [{"probe": "move", "applicable": True, "passed": True},
              {"probe": "delete", "applicable": True, "passed": False},
              {"probe": "recolour", "applicable": False, "reason": "no fill"}]
    slides = [a.outputs["slide"] for a in store.query(Attempt) if "slide" in a.outputs]
    store.put_many([MetricValue(artifact_sha256=sha, metric="edit-probes", name="probe_score",
                                value=0.5, detail={"probes": probes}) for sha in slides])
    [row] = analyse(store, Options(resamples=50)).table("probes").rows
    assert row["pass_move"] == 1.0 and row["pass_delete"] == 0.0
    assert row["pass_recolour"] is None  # it never applied: no rate, not a pass or a failure
    assert row["probed"] == len(slides) == 4


def test_every_family_the_probes_serve_reports_them() -> None:
    from refig.engine.plugins import installed_family

    for family in ("figure-to-slide", "figure-to-code", "deck-edit"):
        found = installed_family(family)
        assert found is not None
        assert "probes" in [section[0] for section in found.report_sections()], family
