"""The value stamping the metric plugins share."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
from PIL import Image
from refig.metric_values import ValueMaker, source_sha256, unavailable
from refig.models import GateReason, GateResult
from refig.protocols import Artifact


def test_value_maker_stamps_and_reports_missing(tmp_path: Path) -> None:
    source = tmp_path / "fig.png"
    Image.fromarray(np.zeros((4, 4, 3), dtype=np.uint8)).save(source)
    artifact = Artifact(
        path=tmp_path / "x.pptx", sha256="d" * 64, gate=GateResult(passed=True),
        references={"figure": source},
    )
    reference = source_sha256(artifact)
    assert reference == hashlib.sha256(source.read_bytes()).hexdigest()
    make = ValueMaker(artifact, "demo", "3", reference)
    value = make.value("score", 2, kept="yes", dropped=None)
    assert (value.metric, value.version, value.value, value.detail) == (
        "demo",
        "3",
        2.0,
        {"kept": "yes"},
    )
    missing = list(make.missing(["a", "b"], "no render"))
    assert [(v.name, v.value, v.detail["reason"]) for v in missing] == [
        ("a", None, "no render"),
        ("b", None, "no render"),
    ]


def test_a_missing_input_says_when_the_gate_failed(tmp_path: Path) -> None:
    passed = Artifact(path=tmp_path / "x.pptx", sha256="e" * 64, gate=GateResult(passed=True))
    failed = Artifact(
        path=tmp_path / "x.pptx",
        sha256="e" * 64,
        gate=GateResult(passed=False, reason=GateReason.RENDER_TIMEOUT),
    )
    assert unavailable("no rendering", passed) == "no rendering"
    assert unavailable("no rendering", failed) == "no rendering (gate failed)"
    assert source_sha256(passed) is None  # no task, no source file
