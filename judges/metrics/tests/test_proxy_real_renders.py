"""The proxy judge on real LibreOffice renders of a generated figure: blank space earns nothing.

An empty slide, a slide holding one word, a raster paste of the source and a native rebuild made
from the figure's exact annotation are gated, rendered and measured by the real metrics, then
scored; their totals must come in that order, with the empty slide at zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pptx import Presentation
from pptx.enum.dml import MSO_LINE
from pptx.enum.shapes import MSO_CONNECTOR, MSO_SHAPE
from pptx.oxml.ns import qn
from pptx.util import Emu, Pt
from refig.judging import SelectedJudge, judge_artifacts
from refig.models import GateResult, Judgment
from refig.plugins import Registry
from refig.protocols import Artifact
from refig.records import PluginKind
from refig.rubric import load_rubric
from refig.store import RunStore
from refig_judge_metrics.proxy import MetricsJudge
from refig_metric_text.metric import TextRecall
from refig_metric_topology.metric import TopologyMetric
from refig_toolkit_pptx.gate import inspect_structure

pytestmark = pytest.mark.slow
SLIDE_W = 12_192_000


def _deck(path: Path, annotation: dict[str, Any], fill: Any) -> Path:
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(SLIDE_W), Emu(6_858_000)
    slide = prs.slides.add_slide(prs.slide_layouts[6])
    fill(slide, annotation)
    prs.save(str(path))
    return path


def _one_word(slide: Any, annotation: dict[str, Any]) -> None:
    word = annotation["nodes"][0]["text"].split()[0]
    slide.shapes.add_textbox(Emu(600_000), Emu(600_000), Emu(2_000_000), Emu(500_000)) \
        .text_frame.text = word


def _rebuild(slide: Any, annotation: dict[str, Any]) -> None:
    """Every node as a labelled native shape where the figure draws it, every edge a bound
    connector, titles as text boxes: the reference answer."""
    image = annotation["image"]
    scale = min(SLIDE_W / image["width"], 6_858_000 / image["height"])

    def emu(box: list[float]) -> tuple[Emu, Emu, Emu, Emu]:
        x0, y0, x1, y1 = (round(v * scale) for v in box)
        return Emu(x0), Emu(y0), Emu(x1 - x0), Emu(y1 - y0)

    size = Pt(max(6, annotation["font"]["size"] * scale / 12_700 * 0.8))
    shapes = {}
    for node in annotation["nodes"]:
        shape = slide.shapes.add_shape(MSO_SHAPE.ROUNDED_RECTANGLE, *emu(node["box"]))
        shape.fill.solid()
        shape.fill.fore_color.rgb = _rgb(node["fill"])
        shape.line.color.rgb = _rgb(node["stroke"])
        shape.text_frame.text = node["text"]
        for run in shape.text_frame.paragraphs[0].runs:
            run.font.size, run.font.color.rgb = size, _rgb("#000000")
        shapes[node["id"]] = shape
    for edge in annotation["edges"]:
        line = slide.shapes.add_connector(MSO_CONNECTOR.STRAIGHT, 0, 0, 0, 0)
        line.begin_connect(shapes[edge["source"]], 3)
        line.end_connect(shapes[edge["target"]], 1)
        if edge["style"] == "dashed":
            line.line.dash_style = MSO_LINE.DASH
        outline = line.line._get_or_add_ln()
        for end in ("head", "tail"):  # the arrow heads the figure draws
            if {"head": "start", "tail": "end"}[end] in edge["heads"]:
                outline.append(outline.makeelement(qn(f"a:{end}End"), {"type": "triangle"}))
    for item in [*annotation["panels"], *annotation["groups"]]:
        if item.get("title") and item.get("title_box"):
            box = slide.shapes.add_textbox(*emu(item["title_box"]))
            box.text_frame.text = item["title"]


def _rgb(hex_colour: str) -> Any:
    from pptx.dml.color import RGBColor

    return RGBColor.from_string(hex_colour.lstrip("#"))


def _paste(slide: Any, annotation: dict[str, Any]) -> None:
    slide.shapes.add_picture(str(annotation["_source"]), 0, 0, Emu(SLIDE_W))


def test_empty_below_one_word_below_a_paste_below_the_rebuild(tmp_path: Path) -> None:
    from refig.commands.check import check_files
    from refig.engine.files import check_task

    registry = Registry.load(warn=lambda line: None)
    registry.resolve(PluginKind.SUITE, "sample").create()(tmp_path / "suite", n=1, seed=3,
                                                           quiet=True)
    task = json.loads((tmp_path / "suite" / "tasks.jsonl").read_text().splitlines()[0])
    source = tmp_path / "suite" / task["inputs"]["figure"]["path"]
    annotation = json.loads((tmp_path / "suite" / task["inputs"]["annotation"]["path"]).read_text())
    decks = {
        name: _deck(tmp_path / f"{name}.pptx", {**annotation, "_source": source}, fill)
        for name, fill in (("empty", lambda s, a: None), ("one word", _one_word),
                           ("paste", _paste), ("rebuild", _rebuild))
    }
    metrics = [registry.resolve(PluginKind.METRIC, name)
               for name in ("image", "flattening", "connector-audit")]
    task = check_task("figure-to-slide", {"figure": source}, {})
    reports, _ = check_files([str(p) for p in decks.values()], family="figure-to-slide", task=task,
                             renderer=registry.resolve(PluginKind.RENDERER, "libreoffice"),
                             metrics=metrics,
                             executor=registry.resolve(PluginKind.EXECUTOR, "local"),
                             jobs=1, quiet=True)
    totals, judged, capped, artifacts = {}, {}, {}, {}
    for name, report in zip(decks, reports, strict=True):
        assert report["gate"]["passed"], (name, report["gate"])
        values = {f"{m}.{k}": v for m, found in report["metrics"].items()
                  for k, v in found.items()}
        tree = inspect_structure(decks[name]).tree
        artifact = Artifact(path=decks[name], sha256=report["sha256"], gate=GateResult(passed=True),
                            family="figure-to-slide",
                            structure=tree, references={"figure": source}, annotation=annotation)
        # Text and topology against the figure's exact annotation, as `refig evaluate` does.
        text = {f"{v.metric}.{v.name}": v.value
                for metric in (TextRecall(), TopologyMetric()) for v in metric.compute(artifact)}
        assert text["text.reference"] == 1.0  # the exact labels, not OCR
        artifact = Artifact(path=decks[name], sha256=report["sha256"], gate=GateResult(passed=True),
                            family="figure-to-slide",
                            structure=tree, references={"figure": source}, annotation=annotation,
                            metrics={**values, **text})
        artifacts[name] = artifact
    store = RunStore.create(tmp_path / "run")
    judge_artifacts(store, artifacts.values(), [SelectedJudge("metrics", MetricsJudge())],
                    quiet=True, rubric=load_rubric(family="figure-to-slide"))
    by_sha = {j.artifact_sha256: j for j in store.query(Judgment)}
    for name, artifact in artifacts.items():
        judgment = by_sha[artifact.sha256]
        judged[name] = {s.axis: s.score for s in judgment.scores}
        totals[name] = judgment.total
        capped[name] = judgment.capped
    assert totals["empty"] == 0, judged["empty"]
    assert totals["empty"] < totals["one word"] < totals["paste"] < totals["rebuild"], judged
    # Blank space earns no layout or visual detail; one word earns no editability to speak of.
    assert judged["one word"]["layout"] == judged["one word"]["visual_detail"] == 0, judged
    assert judged["one word"]["editability"] <= 2, judged
    assert judged["paste"]["editability"] == 0 and judged["paste"]["text"] == 0
    assert capped == {"empty": False, "one word": False, "paste": True, "rebuild": False}
    assert judged["rebuild"]["text"] == 20 and judged["rebuild"]["editability"] >= 20, judged
    assert judged["rebuild"]["semantic_structure"] >= 25, judged  # against the annotation
