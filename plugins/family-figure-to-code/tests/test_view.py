"""The family's task-page panel, as the viewer loads it through the family's record."""

from __future__ import annotations

from types import SimpleNamespace

from refig.plugin import Attempt, AttemptStatus, MetricValue
from refig.plugins import Registry
from refig_toolkit_analysis import Outcome

PROGRAM, LOG = "p" * 64, "l" * 64
TEXTS = {PROGRAM: "x <- c(1, 2\nplot(x))\n", LOG: "Error: unexpected symbol in:\n\"plot\"\n"}


def _value(name: str, value: float | None, **detail: object) -> MetricValue:
    return MetricValue(artifact_sha256="a" * 64, metric="code", name=name, value=value,
                       detail=detail)


def test_the_panel_shows_the_program_its_output_the_failure_and_the_metrics() -> None:
    record = Registry.load(warn=lambda _: None).family("figure-to-code").record
    view = record.viewer()
    assert ("code", "fcf", "FCF") in view.key_metrics
    attempt = Attempt(task_id="t", config_id="m@model/answer", status=AttemptStatus.SUCCEEDED,
                      outputs={"program": PROGRAM})
    outcome = Outcome("t", "m@model/answer", attempt, "a" * 64, None,
                      gate_reason="syntax_error", gate_detail="unexpected symbol (line 2)")
    metrics = {("code", v.name): v for v in (
        _value("execution", 0.0),
        _value("crystalbleu_sentence", None,
               not_meaningful="the 500 ignored n-grams cover every 1-gram"),
        _value("smuggling", 0.0, reasons=[]), _value("psnr", None))}
    found = SimpleNamespace(task=None, outcome=outcome, metrics=metrics, pages=[],
                            log_sha256=LOG, read_text=TEXTS.get)
    blocks = view.panel(found)
    # what decides the verdict leads the page: the failure, the metrics, the program, its output
    assert all(block["lead"] for block in blocks)
    assert dict(blocks[0]["rows"]) == {"failure": "syntax_error",
                                       "message": "unexpected symbol (line 2)"}
    assert blocks[2] == {"kind": "code", "title": "Program", "text": TEXTS[PROGRAM],
                         "lead": True}
    assert blocks[3]["text"] == TEXTS[LOG] and "stderr" in blocks[3]["title"]
    shown = dict(blocks[1]["rows"])
    assert shown["ran"] == "0" and shown["PSNR (dB)"] == "—"
    assert shown["CrystalBLEU (program)"].startswith("not meaningful: the 500 ignored")
