"""The family record and object: schema, gate folding, check rows and the installed plugins."""

from __future__ import annotations

from refig.plugin import Artifact, Asset, Render, Task
from refig.plugins import Registry
from refig.records import PluginKind
from refig_family_deck_edit.family import DeckEdit


def test_the_installed_distribution_registers_every_contribution():
    registry = Registry.load()
    family = registry.resolve(PluginKind.FAMILY, "deck-edit").record
    roles = {spec.role: spec.visible for spec in family.inputs}
    assert roles == {"deck": True, "target": False, "style_target": False, "edit_spec": False}
    assert (family.primary.role, family.primary.pattern) == ("deck", "edited.pptx")
    assert family.rubric.is_file() and set(family.prompts) == {"direct", "hybrid"}
    assert all(p.parent.name == "prompts" and p.parent.is_dir() for p in family.prompts.values())
    for kind, name in ((PluginKind.SUITE, "deck-sample"), (PluginKind.SUITE, "pptarena"),
                       (PluginKind.METRIC, "deck-diff"), (PluginKind.JUDGE, "deck-llm"),
                       (PluginKind.JUDGE, "deck-metrics"), (PluginKind.HARNESS, "identity"),
                       (PluginKind.HARNESS, "oracle")):
        record = registry.resolve(kind, name).record
        assert record.families == frozenset({"deck-edit"}), name


def test_gate_render_fold_and_check_row(write_case, tmp_path):
    family = DeckEdit()
    _, original, _ = write_case("footers")
    gate, structure = family.inspect(original, None)
    assert gate.passed and gate.slides == 10 and "1 hidden slide" in gate.detail
    job = family.render_job(original, None)
    assert job.pages == "all" and job.hidden
    failed = Render(artifact_sha256="0" * 64, renderer="libreoffice", settings="s",
                    error={"kind": "timeout", "message": "too slow"})
    folded = family.fold_gate(gate, failed)
    assert (folded.passed, folded.reason, folded.slides) == (False, "render_timeout", 10)
    empty = tmp_path / "empty.pptx"
    from pptx import Presentation

    Presentation().save(empty)
    gate, structure = family.inspect(empty, None)
    assert (gate.passed, gate.reason, structure) == (False, "no_slides", None)
    assert family.inspect(tmp_path / "absent.pptx", None)[0].reason == "missing"


def test_check_row_reads_the_diff_when_the_references_are_there(write_case):
    family = DeckEdit()
    _, original, target = write_case("table-cell")
    gate, structure = family.inspect(original, None)
    artifact = Artifact(path=original, sha256="0" * 64, gate=gate, family="deck-edit",
                        structure=structure, references={"deck": original, "target": target})
    row = family.check_row(artifact)
    assert (row["passed"], row["slides"], row["hidden_slides"]) == (True, 10, 1)
    assert (row["edit_recall"], row["edit_precision"], row["collateral"]) == (0.0, None, 0)
    bare = family.check_row(Artifact(path=original, sha256="0" * 64, gate=gate,
                                     family="deck-edit", structure=structure))
    assert "edit_recall" not in bare and bare["objects"] == structure.object_count


def test_the_reference_key_follows_both_decks():
    family = DeckEdit()

    def task(deck: str, target: str) -> Task:
        return Task(id="t", family="deck-edit", inputs={
            "deck": Asset(path="d.pptx", sha256=deck * 64),
            "target": Asset(path="t.pptx", sha256=target * 64, visible=False)})

    assert family.reference_key(task("a", "b")) == family.reference_key(task("a", "b"))
    assert family.reference_key(task("a", "b")) != family.reference_key(task("a", "c"))
