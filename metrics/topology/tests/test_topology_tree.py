"""The topology metric on object trees built directly: correct, reversed, missing, unbound links."""

from __future__ import annotations

from pathlib import Path

import pytest
from refig.models import Asset, GateReason, GateResult, Task
from refig.protocols import Artifact
from refig_metric_topology.metric import TopologyMetric
from refig_metric_topology.topology import score
from refig_toolkit_pptx import Endpoint, ObjectKind, ObjectTree, Rect, SlideObject

# A small pipeline: A -> B -> C, B -> D (dashed), D <-> C; two nodes share a label.
ANNOTATION = {
    "schema": "refig.figure-annotation/1",
    "image": {"width": 2000, "height": 800},
    "nodes": [
        {"id": "a", "text": "Image Encoder", "box": [100, 100, 400, 200]},
        {"id": "b", "text": "Cross-Attention", "box": [700, 100, 1000, 200]},
        {"id": "c", "text": "Linear", "box": [1300, 100, 1600, 200]},
        {"id": "d", "text": "Linear", "box": [1300, 500, 1600, 600]},
        {"id": "e", "text": "+", "box": [1750, 130, 1790, 170]},
    ],
    "edges": [
        {"id": "e1", "source": "a", "target": "b", "style": "solid", "bidirectional": False},
        {"id": "e2", "source": "b", "target": "c", "style": "solid", "bidirectional": False},
        {"id": "e3", "source": "b", "target": "d", "style": "dashed", "bidirectional": False},
        {"id": "e4", "source": "d", "target": "c", "style": "solid", "bidirectional": True},
        {"id": "e5", "source": "c", "target": "e", "style": "solid", "bidirectional": False},
    ],
}
SCALE, OFFSET = 4000.0, (300_000.0, 900_000.0)  # EMU per pixel, and where the figure sits


def _emu(x: float, y: float) -> tuple[float, float]:
    return (x * SCALE + OFFSET[0], y * SCALE + OFFSET[1])


def _shape(node: dict, shape_id: int, text: str | None = None) -> SlideObject:
    x0, y0 = _emu(*node["box"][:2])
    x1, y1 = _emu(*node["box"][2:])
    return SlideObject(
        id=shape_id,
        kind=ObjectKind.AUTO_SHAPE,
        geometry="roundRect",
        text=node["text"] if text is None else text,
        rect=Rect(x=x0, y=y0, w=x1 - x0, h=y1 - y0),
    )


def _side(node: dict, towards: dict) -> tuple[float, float]:
    """The middle of the side of ``node`` that faces ``towards``, in pixels."""
    x0, y0, x1, y1 = node["box"]
    tx0, ty0, tx1, _ty1 = towards["box"]
    if tx0 >= x1:
        return (x1, (y0 + y1) / 2)
    if tx1 <= x0:
        return (x0, (y0 + y1) / 2)
    return ((x0 + x1) / 2, y1) if ty0 >= y1 else ((x0 + x1) / 2, y0)


def _line(
    shape_id: int,
    start: tuple[float, float],
    end: tuple[float, float],
    *,
    start_arrow: str | None = None,
    end_arrow: str | None = "triangle",
    dash: str | None = None,
    bind: tuple[int, int] | None = None,
) -> SlideObject:
    (sx, sy), (ex, ey) = _emu(*start), _emu(*end)
    return SlideObject(
        id=shape_id,
        kind=ObjectKind.CONNECTOR,
        geometry="straightConnector1",
        rect=Rect(x=min(sx, ex), y=min(sy, ey), w=abs(ex - sx), h=abs(ey - sy)),
        flip_h=ex < sx,
        flip_v=ey < sy,
        start_arrow=start_arrow,
        end_arrow=end_arrow,
        dash=dash,
        start=Endpoint(shape_id=bind[0], site=1) if bind else None,
        end=Endpoint(shape_id=bind[1], site=3) if bind else None,
    )


def _slide(mode: str = "correct", *, bind: bool = True, drop: set[str] = frozenset()) -> ObjectTree:
    nodes = {n["id"]: n for n in ANNOTATION["nodes"]}
    ids = {key: 2 + i for i, key in enumerate(nodes)}
    objects = [_shape(n, ids[key]) for key, n in nodes.items()]
    for k, edge in enumerate(ANNOTATION["edges"]):
        if edge["id"] in drop:
            continue
        s, t = nodes[edge["source"]], nodes[edge["target"]]
        heads = {"start_arrow": None, "end_arrow": "triangle"}
        if edge["bidirectional"]:
            heads = {"start_arrow": "triangle", "end_arrow": "triangle"}
        elif mode == "reversed":
            heads = {"start_arrow": "triangle", "end_arrow": None}
        elif mode == "plain":
            heads = {"start_arrow": None, "end_arrow": None}
        objects.append(
            _line(
                20 + k,
                _side(s, t),
                _side(t, s),
                **heads,
                dash="dash" if edge["style"] == "dashed" else None,
                bind=(ids[edge["source"]], ids[edge["target"]]) if bind else None,
            )
        )
    return ObjectTree(slide_width=12_192_000, slide_height=6_858_000, objects=tuple(objects))


def test_a_faithful_slide_scores_full_marks():
    values = score(_slide(), ANNOTATION).values
    assert values["node_recall"] == 1.0
    assert values["edge_recall"] == values["edge_precision"] == values["edge_f1"] == 1.0
    assert values["reversed_share"] == 0.0 and values["undirected_share"] == 0.0
    assert values["style_agreement"] == 1.0


def test_reversed_arrows_score_low_however_many_objects():
    result = score(_slide("reversed"), ANNOTATION)
    values = result.values
    assert values["node_recall"] == 1.0  # the boxes are all there
    assert values["edge_recall"] == pytest.approx(1 / 5)  # only the bidirectional edge survives
    assert values["edge_precision"] == pytest.approx(1 / 5)
    assert values["reversed_share"] == pytest.approx(4 / 5)
    assert result.edges["e1"]["drawn"] == "reversed"


def test_missing_and_undirected_edges():
    values = score(_slide(drop={"e2", "e3"}), ANNOTATION).values
    assert values["edge_recall"] == pytest.approx(3 / 5)
    assert values["edge_precision"] == 1.0
    plain = score(_slide("plain"), ANNOTATION).values
    # the bidirectional edge keeps its heads; the four others lose theirs
    assert plain["edge_recall"] == pytest.approx(1 / 5)
    assert plain["undirected_share"] == pytest.approx(4 / 5)


def test_unbound_connectors_resolve_by_their_nearest_ends():
    result = score(_slide(bind=False), ANNOTATION)
    assert result.values["edge_recall"] == 1.0
    assert all(link["found_by"] == ["nearest", "nearest"] for link in result.links)


def test_duplicate_labels_are_told_apart_by_position():
    result = score(_slide(), ANNOTATION)
    assert result.nodes["c"]["shape_id"] != result.nodes["d"]["shape_id"]
    assert result.edges["e3"]["drawn"] == "forward"  # b -> the lower "Linear"


def test_style_disagreement_is_reported():
    tree = _slide()
    objects = [
        o.model_copy(update={"dash": None}) if o.kind is ObjectKind.CONNECTOR else o
        for o in tree.objects
    ]
    values = score(tree.model_copy(update={"objects": tuple(objects)}), ANNOTATION).values
    assert values["edge_recall"] == 1.0
    assert values["dashed_agreement"] == pytest.approx(4 / 5)
    assert values["style_agreement"] == pytest.approx(4 / 5)


def test_a_text_box_over_a_bare_shape_and_a_bound_connector():
    nodes = ANNOTATION["nodes"]
    objects = []
    for i, node in enumerate(nodes[:2]):
        objects.append(_shape(node, 10 + i, text=""))  # the shape, bound by the connector
        objects.append(_shape(node, 30 + i).model_copy(update={"kind": ObjectKind.TEXT_BOX}))
    objects.append(_line(50, (420, 150), (680, 150), bind=(10, 11)))
    tree = ObjectTree(slide_width=12_192_000, slide_height=6_858_000, objects=tuple(objects))
    result = score(tree, ANNOTATION)
    assert result.edges["e1"]["drawn"] == "forward"
    assert result.links[0]["found_by"] == ["binding", "binding"]


def test_block_arrows_count_with_their_direction():
    nodes = {n["id"]: n for n in ANNOTATION["nodes"]}
    objects = [_shape(nodes["a"], 2), _shape(nodes["b"], 3)]
    x0, y0 = _emu(410, 130)
    x1, y1 = _emu(690, 170)
    arrow = SlideObject(
        id=9,
        kind=ObjectKind.AUTO_SHAPE,
        geometry="rightArrow",
        rect=Rect(x=x0, y=y0, w=x1 - x0, h=y1 - y0),
    )
    tree = ObjectTree(slide_width=12_192_000, slide_height=6_858_000, objects=(*objects, arrow))
    assert score(tree, ANNOTATION).edges["e1"]["drawn"] == "forward"
    reverse = arrow.model_copy(update={"flip_h": True})
    flipped = tree.model_copy(update={"objects": (*objects, reverse)})
    assert score(flipped, ANNOTATION).edges["e1"]["drawn"] == "reversed"


def _artifact(
    tree: ObjectTree | None, gate: GateResult, annotation=ANNOTATION, task: Task | None = None
) -> Artifact:
    return Artifact(
        path=Path("x.pptx"), sha256="0" * 64, gate=gate, structure=tree, annotation=annotation,
        task=task,
    )


def test_plugin_values_and_gate_failures():
    metric = TopologyMetric()
    values = {v.name: v for v in metric.compute(_artifact(_slide(), GateResult(passed=True)))}
    assert values["edge_recall"].value == 1.0 and values["edge_recall"].metric == "topology"
    assert values["edge_recall"].detail["edges"]["e1"]["drawn"] == "forward"
    failed = {
        v.name: v.value
        for v in metric.compute(
            _artifact(None, GateResult(passed=False, reason=GateReason.CORRUPT))
        )
    }
    assert failed["edge_recall"] == 0.0 and failed["reversed_share"] is None
    assert list(metric.compute(_artifact(_slide(), GateResult(passed=True), None))) == []
    broken = {
        v.name: v
        for v in metric.compute(
            _artifact(_slide(), GateResult(passed=True), {"nodes": [{"id": 1}]})
        )
    }
    assert broken["edge_recall"].value is None
    assert "unusable" in broken["edge_recall"].detail["reason"]


@pytest.mark.parametrize(
    "annotation",
    [
        {"nodes": [{"id": "a", "text": "A", "box": [0, 0, 10]}]},
        {"image": {"width": 0, "height": 0}, "nodes": [{"id": "a", "box": [0, 0, 0, 0]}]},
        {"nodes": [{"id": "a", "box": [0, 0, 10, 10]}], "edges": [{"source": "a", "target": "z"}]},
    ],
)
def test_a_malformed_annotation_is_unusable_not_a_crash(annotation):
    metric = TopologyMetric()
    values = list(metric.compute(_artifact(_slide(), GateResult(passed=True), annotation)))
    assert values and all(v.value is None for v in values)
    assert all("unusable annotation" in v.detail["reason"] for v in values)


def test_values_are_keyed_by_the_task_source_the_annotation_describes():
    """`refig evaluate` looks stored values up, and `load_artifacts` hands them to the judges, by
    the task's source hash: a value keyed by the annotation's hash would be neither found nor
    handed on."""
    task = Task(
        id="t",
        family="figure-to-slide",
        inputs={
            "figure": Asset(path="figure.png", sha256="a" * 64),
            "annotation": Asset(path="annotations/t.json", sha256="b" * 64, visible=False),
        },
    )
    values = list(TopologyMetric().compute(_artifact(_slide(), GateResult(passed=True), task=task)))
    assert values and {v.reference_sha256 for v in values} == {"a" * 64}
