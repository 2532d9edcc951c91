"""`refig evaluate RUN` over a run store: inspections, renders with a real LibreOffice, the final
gate, metrics from an installed plugin, resumption, and the artifacts later stages read back."""

from __future__ import annotations

import hashlib
import io
import shutil

import pytest
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE
from pptx.util import Emu
from refig.cli import run as refig
from refig.context import RunContext
from refig.evaluation import load_artifacts
from refig.models import (
    Asset,
    Attempt,
    AttemptStatus,
    Configuration,
    Inspection,
    MetricValue,
    Render,
    Task,
)
from refig.plugins import Registry
from refig.store import RunStore
from refig_toolkit_pptx import ObjectTree, object_tree

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed"),
]


def png(color: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (320, 180), color).save(buffer, format="PNG")
    return buffer.getvalue()


def deck(slides: int = 1, label: str = "box") -> bytes:
    prs = Presentation()
    prs.slide_width, prs.slide_height = Emu(12_192_000), Emu(6_858_000)
    for _ in range(slides):
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        shape = slide.shapes.add_shape(MSO_SHAPE.OVAL, Emu(0), Emu(0), Emu(2_000_000), Emu(900_000))
        shape.text = label
    buffer = io.BytesIO()
    prs.save(buffer)
    return buffer.getvalue()


@pytest.fixture
def run(tmp_path):
    """A run of two configurations over three tasks; one attempt left no slide, the store lost
    another's (a store error: every evaluation exits 1 naming it, and scores the rest)."""
    store = RunStore.create(tmp_path / "run")
    sources = {name: store.objects.put_bytes(png(c)) for name, c in (("a", "red"), ("b", "blue"))}
    for task_id, source in (("t1", "a"), ("t2", "a"), ("t3", "b")):
        store.put(
            Task(
                id=task_id,
                family="figure-to-slide",
                inputs={"figure": Asset(path=f"{source}.png", sha256=sources[source])},
            )
        )
    configs = [Configuration(model="m", harness="h", workflow=w) for w in ("direct", "plan")]
    store.put_many(configs)
    good, other = store.objects.put_bytes(deck()), store.objects.put_bytes(deck(label="other"))
    two = store.objects.put_bytes(deck(slides=2))
    lost = hashlib.sha256(b"never stored").hexdigest()
    outputs = {
        ("t1", 0): good,
        ("t2", 0): good,
        ("t3", 0): two,
        ("t1", 1): other,
        ("t2", 1): None,
        ("t3", 1): lost,
    }
    for (task_id, c), slide in outputs.items():
        store.put(
            Attempt(
                task_id=task_id,
                config_id=configs[c].id,
                status=AttemptStatus.SUCCEEDED if slide else AttemptStatus.FAILED,
                outputs={"slide": slide} if slide else {},
            )
        )
    return {
        "store": store,
        "good": good,
        "other": other,
        "two": two,
        "lost": lost,
        "sources": sources,
    }


def gate_values(store: RunStore) -> dict[str, tuple[float, str | None]]:
    return {
        v.artifact_sha256: (v.value, v.detail["reason"])
        for v in store.iter(MetricValue, metric="gate", name="passed")
    }


def test_evaluate_stores_everything_and_resumes(run, probe_metric, capsys) -> None:
    store: RunStore = run["store"]
    argv = ["evaluate", str(store.root), "--metric", "probe", "--metric", "plain", "-j", "2", "-q"]
    assert refig(argv) == 1
    assert run["lost"][:16] in " ".join(capsys.readouterr().err.split())

    inspections = {i.artifact_sha256: i for i in store.iter(Inspection)}
    assert set(inspections) == {run["good"], run["other"], run["two"]}  # the lost one: no verdict
    assert inspections[run["good"]].parsed(ObjectTree).counts()["auto_shapes"] == 1
    renders = {r.artifact_sha256: r for r in store.iter(Render)}
    assert set(renders) == {run["good"], run["other"]}  # only what passed the structure
    for render in renders.values():
        assert render.renderer == "libreoffice" and render.error is None
        assert store.objects.exists(render.png_sha256)
        assert (render.first.width_px, render.first.height_px) == (1600, 900)
        assert render.renderer_version.startswith("LibreOffice") and "Carlito" in render.fonts
    assert gate_values(store) == {
        run["good"]: (1.0, None),
        run["other"]: (1.0, None),
        run["two"]: (0.0, "multiple_slides"),
    }
    # the probe measured each (artifact, source) pair once, against the task's source
    probes = store.query(MetricValue, metric="probe", name="saw_render")
    pairs = {(v.artifact_sha256, v.reference_sha256) for v in probes}
    a = run["sources"]["a"]
    assert pairs == {(run["good"], a), (run["other"], a)}  # the two-slide deck has no tree
    assert all(v.value == 1.0 for v in probes)
    calls = probe_metric.read_text().split()
    # the slide shared by t1 and t2 (one source) is measured once; "plain" once per slide
    assert sorted(calls) == sorted(
        [run["good"], run["other"], "plain:" + run["good"], "plain:" + run["other"]]
    )

    # a second evaluation finds everything stored and does nothing again
    rendered_at = dict(store.db.execute("SELECT artifact_sha256, created_at FROM renders"))
    assert refig(argv) == 1
    assert probe_metric.read_text().split() == calls
    assert dict(store.db.execute("SELECT artifact_sha256, created_at FROM renders")) == rendered_at

    # losing one render (a killed run) re-renders exactly that one
    store.db.execute("DELETE FROM renders WHERE artifact_sha256 = ?", (run["other"],))
    assert refig(argv) == 1
    after = dict(store.db.execute("SELECT artifact_sha256, created_at FROM renders"))
    assert after[run["good"]] == rendered_at[run["good"]] and run["other"] in after

    # values of an older version of a metric are measured again (a new version changed them)
    old = store.get(MetricValue, artifact_sha256=run["good"], metric="plain", name="count",
                    reference_sha256=None)
    store.put(old.model_copy(update={"version": "0"}), replace=True)
    probe_metric.write_text("")
    assert refig(argv) == 1
    assert probe_metric.read_text().split() == ["plain:" + run["good"]]
    assert store.get(MetricValue, artifact_sha256=run["good"], metric="plain", name="count",
                     reference_sha256=None).version == "1"


def test_load_artifacts_for_the_judges(run, probe_metric) -> None:
    store: RunStore = run["store"]
    assert refig(["evaluate", str(store.root), "--metric", "probe", "-q"]) == 1  # one is lost
    artifacts = load_artifacts(RunContext.of(Registry.load(), store))
    pairs = sorted((a.sha256, a.task.id) for a in artifacts)
    assert pairs == sorted(
        [
            (run["good"], "t1"),
            (run["good"], "t2"),
            (run["two"], "t3"),
            (run["other"], "t1"),
        ]
    )
    by_pair = {(a.sha256, a.task.id): a for a in artifacts}
    good = by_pair[(run["good"], "t1")]
    assert good.gate.passed and object_tree(good) is not None and good.render.is_file()
    assert good.source.read_bytes() == png("red")
    assert good.metrics["probe.raster_area_ratio"] == 0.25 and good.metrics["gate.passed"] == 1.0
    two = by_pair[(run["two"], "t3")]
    assert not two.gate.passed and two.gate.reason == "multiple_slides" and two.render is None


@pytest.mark.parametrize(
    ("option", "name"), [("--metric", "x"), ("--renderer", "x"), ("--executor", "x")]
)
def test_unknown_names_exit_2_and_touch_nothing(run, probe_metric, capsys, option, name) -> None:
    store: RunStore = run["store"]
    assert refig(["evaluate", str(store.root), option, name]) == 2
    assert "available" in capsys.readouterr().err
    assert store.count(Inspection) == 0 and store.count(Render) == 0


def test_not_a_run(tmp_path, probe_metric, capsys) -> None:
    assert refig(["evaluate", str(tmp_path / "nothing")]) == 2
    assert "not a refig run" in capsys.readouterr().err


def test_metric_options_reach_the_metric_and_bad_ones_exit_2(run, probe_metric, capsys,
                                                              monkeypatch) -> None:
    from refig_metric_image.lpips_weights import CHECKPOINT, weights_dir

    store: RunStore = run["store"]
    monkeypatch.setenv("REFIG_LOAD_PLUGINS", "refig-renderer-libreoffice,refig-metric-probe,"
                       "refig-metric-image,refig-family-figure-to-slide")
    root = str(store.root)
    for bad, said in ((["--metric-opt", "lpips=true"], "METRIC:KEY=VALUE"),
                      (["--metric-opt", "probe:x=1"], "not a selected metric"),
                      (["--metric-opt", "image:nope=1"], "nope")):
        assert refig(["evaluate", root, "--metric", "image", *bad, "-q"]) == 2
        assert said in " ".join(capsys.readouterr().err.split())
    assert store.count(Inspection) == 0  # refused before any work
    if not (weights_dir() / CHECKPOINT).is_file():
        pytest.skip("no LPIPS weights: run refig-lpips-weights")
    assert refig(["evaluate", root, "--metric", "image", "-q"]) == 1  # one deck is lost
    off = store.query(MetricValue, metric="image", name="lpips")
    assert off and all(v.value is None for v in off)
    assert refig(["evaluate", root, "--metric", "image", "--metric-opt", "image:lpips=true",
                  "-q"]) == 1
    on = [v for v in store.query(MetricValue, metric="image", name="lpips")
          if v.version.endswith("+lpips")]
    assert len(on) == len(off) and all(v.value is not None and v.value >= 0 for v in on)
