from pathlib import Path

from refig.plugin import Artifact, Asset, GateResult, Task, TaskFamily
from refig.plugins import Registry

from {{ cookiecutter.module }}.plugin import Caption, CaptionFamily


def _task():
    figure = Asset(path="assets/fig.png", sha256="a" * 64)
    return Task(id="t", family="{{ cookiecutter.name }}", inputs={"figure": figure})


def test_the_gate_reads_a_caption_and_refuses_what_is_not_one(tmp_path):
    family = CaptionFamily()
    good = tmp_path / "caption.txt"
    good.write_text("An encoder feeds a decoder.")
    gate, structure = family.inspect(good, _task())
    assert gate.passed and structure == Caption(words=("An", "encoder", "feeds", "a", "decoder."))
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    assert family.inspect(binary, None)[0].reason == "not_text"
    assert family.inspect(tmp_path / "absent.txt", None)[0].reason == "missing"
    empty = tmp_path / "empty.txt"
    empty.write_text("  ")
    assert family.inspect(empty, None)[0].reason == "empty"


def test_a_judge_is_shown_the_figure_and_the_caption(tmp_path):
    figure = tmp_path / "fig.png"
    figure.write_bytes(b"png")
    artifact = Artifact(path=tmp_path / "caption.txt", sha256="b" * 64,
                        gate=GateResult(passed=True), family="{{ cookiecutter.name }}",
                        structure=Caption(words=("a", "caption")),
                        references={"figure": figure})
    evidence = CaptionFamily().evidence(artifact)
    assert evidence.images == (("The figure", figure),) and evidence.text == "a caption"
    assert CaptionFamily().check_row(artifact) == {"words": 2}
    assert CaptionFamily().reference_key(_task()) == "a" * 64


def test_refig_loads_the_installed_family():
    env = {"REFIG_STRICT_PLUGINS": "1", "REFIG_LOAD_PLUGINS": "{{ cookiecutter.distribution }}"}
    chosen = Registry.load(environ=env).resolve("family", "{{ cookiecutter.name }}")
    family = chosen.create()
    assert isinstance(family, TaskFamily) and chosen.record.primary.pattern == "caption.txt"
    assert [section.name for section in family.report_sections()] == ["captions"]
