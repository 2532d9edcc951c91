"""The sample suite: deterministic bytes, realistic sizes, and annotations that match the pixels."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from PIL import Image
from refig.errors import UsageError
from refig.suite import Suite, check_suite
from refig_suite_sample import build_sample
from refig_suite_sample.build import CREATED_AT
from refig_suite_sample.difficulty import PRESETS, Difficulty


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture(scope="module")
def medium(tmp_path_factory) -> Suite:
    return build_sample(tmp_path_factory.mktemp("medium"), n=3, seed=7, difficulty="medium")


def test_same_seed_gives_identical_bytes(tmp_path, medium):
    again = build_sample(tmp_path / "again", n=3, seed=7, difficulty="medium")
    first, second = _files(medium.root), _files(again.root)
    assert sorted(first) == sorted(second)
    assert len(first) == 2 + 3 + 3  # suite.json, tasks.jsonl, 3 images, 3 annotations
    for name in first:
        assert first[name] == second[name], name
    assert medium.manifest.created_at == CREATED_AT


def test_other_seed_differs_and_prefix_is_stable(tmp_path, medium):
    other = build_sample(tmp_path / "other", n=3, seed=8, difficulty="medium")
    first = "assets/sample-000.png"
    assert _files(other.root)[first] != _files(medium.root)[first]
    prefix = build_sample(tmp_path / "prefix", n=2, seed=7, difficulty="medium")
    for name in ("assets/sample-000.png", "assets/sample-001.png", "annotations/sample-001.json"):
        assert _files(prefix.root)[name] == _files(medium.root)[name]


def test_suite_validates_and_records_its_parameters(medium):
    check = check_suite(medium.root)
    assert check.ok, check.problems
    assert (check.tasks, check.images) == (3, 3)
    assert medium.manifest.params["seed"] == 7
    assert all(t.input("annotation") for t in medium.tasks)


@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
def test_sizes_are_realistic(tmp_path, difficulty):
    suite = build_sample(tmp_path, n=3, seed=1, difficulty=difficulty)
    counts = []
    for task in suite.tasks:
        with Image.open(suite.input_path(task, "figure")) as image:
            width, height = image.size
        assert 1600 <= width <= 3000
        assert 1.5 <= width / height <= 3.5 + 1e-9
        annotation = suite.annotation(task)
        assert annotation["image"] == {"width": width, "height": height}
        counts.append(len(annotation["nodes"]))
        assert annotation["edges"], "every figure has arrows"
    if difficulty == "hard":
        assert min(counts) >= 5


def test_a_width_range_sets_the_sizes_and_is_recorded(tmp_path):
    suite = build_sample(tmp_path / "small", n=3, seed=1, difficulty="medium", width=(900, 1000))
    assert suite.manifest.params["width"] == [900, 1000]
    for task in suite.tasks:
        with Image.open(suite.input_path(task, "figure")) as image:
            assert 900 <= image.width <= 1000
        assert check_suite(suite.root).ok


def test_the_difficultys_own_width_range_gives_the_default_figures(tmp_path, medium):
    """Only the recorded parameters differ: a suite built without ``width`` is unchanged."""
    same = build_sample(tmp_path / "same", n=3, seed=7, difficulty="medium",
                        width=PRESETS[Difficulty.MEDIUM].width)
    first, second = _files(medium.root), _files(same.root)
    assert "width" not in medium.manifest.params
    for name in first:
        if name.startswith(("assets/", "annotations/")):
            assert first[name] == second[name], name


@pytest.mark.parametrize("width", [(700, 900), (2000, 1000), (900, 7000)])
def test_a_width_range_out_of_bounds_is_a_usage_error(tmp_path, width):
    with pytest.raises(UsageError, match="--width"):
        build_sample(tmp_path, n=1, width=width)


def _ink(image: Image.Image, x: float, y: float) -> int:
    """Darkness (0 white .. 255 black) of the pixel at ``(x, y)``."""
    r, g, b = image.getpixel((round(x), round(y)))
    return 255 - (r + g + b) // 3


def test_arrow_heads_sit_at_the_annotated_ends(tmp_path):
    suite = build_sample(tmp_path, n=4, seed=3, difficulty="hard")
    checked = 0
    for task in suite.tasks:
        annotation = suite.annotation(task)
        image = Image.open(suite.input_path(task, "figure")).convert("RGB")
        size = annotation["font"]["size"]
        head_length, half_width = round(size * 0.55), round(size * 0.45) / 2
        for edge in annotation["edges"]:
            ends = [("end", edge["points"][-1], edge["points"][-2]),
                    ("start", edge["points"][0], edge["points"][1])]
            for which, tip, before in ends:
                dx, dy = tip[0] - before[0], tip[1] - before[1]
                d = math.hypot(dx, dy)
                ux, uy = dx / d, dy / d
                # a point inside the head, off the line: dark only where a head is drawn
                bx, by = tip[0] - ux * head_length * 0.75, tip[1] - uy * head_length * 0.75
                px, py = bx - uy * half_width * 0.55, by + ux * half_width * 0.55
                has_head = which in edge["heads"]
                assert (_ink(image, px, py) > 90) == has_head, (task.id, edge["id"], which)
                checked += 1
    assert checked >= 20


def test_node_boxes_hold_their_outline_and_nothing_else(medium):
    for task in medium.tasks:
        annotation = medium.annotation(task)
        image = Image.open(medium.input_path(task, "figure")).convert("RGB")
        for node in annotation["nodes"]:
            if node["shape"] not in ("box", "rounded"):
                continue
            x0, y0, x1, y1 = node["box"]
            cy = (y0 + y1) / 2
            assert _ink(image, x0 + 1, cy) > 40, node  # the left border is drawn
            assert _ink(image, x0 - 4, y0 + (y1 - y0) * 0.12) < 40, node  # nothing just outside
            fill = image.getpixel((int(x0 + (x1 - x0) * 0.06), int(cy)))
            expected = tuple(int(node["fill"][i:i + 2], 16) for i in (1, 3, 5))
            assert max(abs(a - b) for a, b in zip(fill, expected, strict=True)) < 12, node


def test_ocr_reads_the_annotated_labels_inside_their_boxes(medium):
    ocr = pytest.importorskip("refig_toolkit_imaging.ocr")
    pytest.importorskip("rapidocr_onnxruntime")
    from rapidfuzz import fuzz

    task = medium.tasks[0]
    annotation = medium.annotation(task)
    lines = ocr.read_text(medium.input_path(task, "figure"))
    labelled = [n for n in annotation["nodes"] if len(n["text"]) > 3]
    found = 0
    for node in labelled:
        x0, y0, x1, y1 = node["text_box"]
        pad = annotation["font"]["size"]
        for line in lines:
            cx, cy = (line.box[0] + line.box[2]) / 2, (line.box[1] + line.box[3]) / 2
            inside = x0 - pad <= cx <= x1 + pad and y0 - pad <= cy <= y1 + pad
            if inside and fuzz.partial_ratio(line.text.lower(), node["text"].lower()) >= 80:
                found += 1
                break
    assert found >= 0.8 * len(labelled), (found, [n["text"] for n in labelled], lines)


def test_annotation_schema(medium):
    annotation = medium.annotation(medium.tasks[0])
    assert annotation["schema"] == "refig.figure-annotation/1"
    ids = {n["id"] for n in annotation["nodes"]}
    for edge in annotation["edges"]:
        assert edge["source"] in ids and edge["target"] in ids and edge["source"] != edge["target"]
        assert edge["style"] in ("solid", "dashed")
        assert edge["routing"] == ("straight" if len(edge["points"]) == 2 else "elbow")
    for group in annotation["groups"]:
        assert set(group["members"]) <= ids and len(group["members"]) >= 2
        gx0, gy0, gx1, gy1 = group["box"]
        for member in (n for n in annotation["nodes"] if n["id"] in group["members"]):
            x0, y0, x1, y1 = member["box"]
            assert gx0 <= x0 and gy0 <= y0 and x1 <= gx1 and y1 <= gy1
    json.dumps(annotation)  # plain JSON
