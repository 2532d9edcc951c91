"""Family panels: the installed families', and one a third-party family's record adds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from refig.models import Inspection
from refig.plugin import (
    Attempt,
    AttemptStatus,
    Deliverable,
    GateResult,
    MetricValue,
    TaskFamilyRecord,
)
from refig.plugins import Registry
from refig.records import PluginKind
from refig_reporter_html import panels as registry
from refig_reporter_html.panels import PanelInput
from refig_toolkit_analysis import Outcome
from refig_toolkit_pptx import Endpoint, ObjectKind, ObjectTree, SlideObject


@pytest.fixture(autouse=True)
def fresh_registry() -> Iterator[None]:
    registry.panels.cache_clear()
    yield
    registry.panels.cache_clear()


def _outcome(outputs: dict[str, str], inspection: Inspection | None = None) -> Outcome:
    attempt = Attempt(task_id="t", config_id="m@h/w", status=AttemptStatus.SUCCEEDED,
                      outputs=outputs)
    return Outcome("t", "m@h/w", attempt, outputs.get("slide"), inspection)


def test_the_slide_panel_is_the_object_audit() -> None:
    tree = ObjectTree(slide_width=10, slide_height=10, objects=(
        SlideObject(id=2, kind=ObjectKind.AUTO_SHAPE, name="box", text="Encoder"),
        SlideObject(id=3, kind=ObjectKind.AUTO_SHAPE, name="box2", hidden=True),
        SlideObject(id=4, kind=ObjectKind.CONNECTOR, start=Endpoint(shape_id=2, site=1),
                    end=Endpoint(shape_id=3, site=0)),
    ))
    inspection = Inspection(artifact_sha256="a" * 64, inspector="x",
                            gate=GateResult(passed=True), structure=tree.model_dump(mode="json"))
    blocks = registry.panels().view("figure-to-slide").panel(PanelInput(
        None, _outcome({"slide": "a" * 64}, inspection), {}, [], None, lambda _: None))
    counts = dict(blocks[0]["rows"])
    assert counts == {"auto shapes": "1", "connectors": "1", "bound connectors": "0"}
    objects = blocks[1]["rows"]
    assert ["2", "auto_shape", "box", "Encoder", "", "", ""] in objects
    assert objects[1][-1] == "hidden" and objects[2][5] == "2:1 → 3:0"


def test_the_code_panel_shows_the_program() -> None:
    program = "p" * 64
    texts = {program: "import matplotlib\nplt.bar([1], [2])\n"}
    blocks = registry.panels().view("figure-to-code").panel(PanelInput(
        None, _outcome({"program": program}), {}, [], None, texts.get))
    assert blocks[0] == {"kind": "code", "title": "Program", "text": texts[program], "lead": True}


def test_a_family_plugin_adds_its_panel_through_its_record(
        monkeypatch: pytest.MonkeyPatch, fresh_registry: None,
        capsys: pytest.CaptureFixture[str]) -> None:
    class View:
        title = "Poster"
        key_metrics = (("poster", "coverage", "coverage"),)

        @staticmethod
        def panel(found):
            return [{"kind": "note", "text": "poster audit"}]

    def broken() -> object:
        raise ImportError("no module named posterview")

    def family(name: str, viewer: object) -> TaskFamilyRecord:
        return TaskFamilyRecord(name=name, description="test", factory=object, inputs=(),
                                deliverables=(Deliverable("poster", "poster.pdf", primary=True),),
                                renderer="none", viewer=viewer)

    installed = Registry.load(warn=lambda _: None)
    records = [family("poster", View), family("broken", broken),
               *installed.records(PluginKind.FAMILY)]
    monkeypatch.setattr(registry, "installed_records", lambda kind: records)
    view = registry.panels().view("poster")
    assert view.title == "Poster" and view.key_metrics == (("poster", "coverage", "coverage"),)
    assert view.panel(None) == [{"kind": "note", "text": "poster audit"}]  # type: ignore[arg-type]
    assert "viewer panel of 'broken' skipped" in " ".join(capsys.readouterr().err.split())
    assert registry.panels().view("figure-to-slide").title == "Slide"  # the installed stay


def test_an_unknown_family_gets_its_metrics_listed() -> None:
    view = registry.panels().view("spreadsheet")
    assert view.key_metrics == () and view.family == "spreadsheet"


def test_the_slide_panel_shows_each_edit_probe_before_and_after() -> None:
    before, after = "b" * 64, "c" * 64
    score = MetricValue(artifact_sha256="a" * 64, metric="edit-probes", name="probe_score",
                        value=0.5, detail={"probes": [
                            {"probe": "move", "applicable": True, "passed": False, "slide": 0,
                             "evidence": {"text": "Encoder", "ink_kept_at_old_place": 0.9},
                             "renders": {"before": before, "after": after}},
                            {"probe": "recolour", "applicable": False,
                             "reason": "the node has no fill to change", "slide": 0}]})
    found = PanelInput(None, _outcome({"slide": "a" * 64}), {("edit-probes", "probe_score"): score},
                       [], None, lambda _: None)
    blocks = registry.panels().view("figure-to-slide").panel(found)
    assert blocks[0] == {"kind": "note", "text": "not inspected yet"}  # the audit comes first
    summary, move = blocks[1], blocks[2]
    assert summary["title"] == "Edit probes: score 0.5, edits on “Encoder”"
    assert summary["rows"] == [["move", "failed; ink kept at old place 0.9"],
                               ["recolour", "not applicable: the node has no fill to change"]]
    assert move["kind"] == "images" and move["title"] == "move: failed; ink kept at old place 0.9"
    assert move["items"] == [{"label": "before the move", "sha256": before},
                             {"label": "after the move (the node drawn hidden: its lines show "
                                       "where they went)", "sha256": after}]
    assert len(blocks) == 3  # the probe that did not apply has no pictures
    without = registry.panels().view("figure-to-slide").panel(PanelInput(
        None, _outcome({"slide": "a" * 64}), {}, [], None, lambda _: None))
    assert without == [{"kind": "note", "text": "not inspected yet"}]


def test_the_deck_and_code_panels_show_the_edit_probes() -> None:
    before, after = "b" * 64, "c" * 64
    deck = MetricValue(artifact_sha256="a" * 64, metric="edit-probes", name="probe_score",
                       value=1.0, detail={"probes": [
                           {"probe": "delete", "applicable": True, "passed": True, "slide": 2,
                            "evidence": {"text": "Revenue", "ink_kept": 0.01},
                            "renders": {"before": before, "after": after}}]})
    found = PanelInput(None, _outcome({"deck": "a" * 64}), {("edit-probes", "probe_score"): deck},
                       [], None, lambda _: None)
    blocks = registry.panels().view("deck-edit").panel(found)
    summary = next(b for b in blocks if b.get("title", "").startswith("Edit probes"))
    # a deck's probes name the edited slide they ran on (1-based)
    assert summary["title"] == "Edit probes: score 1, edits on “Revenue (slide 3)”"
    assert summary["rows"] == [["delete (slide 3)", "passed; ink kept 0.01"]]
    [pictures] = [b for b in blocks if b.get("title", "").startswith("delete")]
    assert [i["sha256"] for i in pictures["items"]] == [before, after]
    assert not pictures.get("lead") and not pictures.get("folded")
    code = MetricValue(artifact_sha256="a" * 64, metric="edit-probes", name="probe_score",
                       value=0.0, detail={"probes": [
                           {"probe": "string", "applicable": True, "passed": False,
                            "evidence": {"old": "Rainfall", "new": "Harbour"},
                            "renders": {"before": before, "after": after}},
                           {"probe": "data", "applicable": False,
                            "reason": "the program writes no sequence of numbers"}]})
    blocks = registry.panels().view("figure-to-code").panel(PanelInput(
        None, _outcome({"program": "p" * 64}), {("edit-probes", "probe_score"): code}, [], None,
        lambda _: None))
    summary = next(b for b in blocks if b.get("title", "").startswith("Edit probes"))
    assert summary["rows"] == [["string", "failed"],
                               ["data", "not applicable: the program writes no sequence of "
                                        "numbers"]]
    assert any(b.get("title") == "string: failed" and len(b["items"]) == 2 for b in blocks)
