"""Ctrl-C during `refig evaluate`, for real: a subprocess gets SIGINT while a metric is in
flight, says what was kept and how to resume, exits 130, and the rerun finishes the work."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from PIL import Image
from pptx import Presentation
from refig.models import Asset, Attempt, AttemptStatus, Configuration, MetricValue, Task
from refig.store import RunStore

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed"),
]

HELD = '''
"""A metric that says it started, then waits until the test lets it go."""
import os
import time
from pathlib import Path

from refig.plugin import Metric, MetricRecord, MetricValue, hookimpl


class Held(Metric):
    version = "1"

    def compute(self, artifact):
        Path(os.environ["REFIG_HELD_STARTED"]).write_text("started")
        release = Path(os.environ["REFIG_HELD_RELEASE"])
        while not release.exists():
            time.sleep(0.05)
        yield MetricValue(artifact_sha256=artifact.sha256, metric="held", name="done", value=1.0,
                          version="1")


@hookimpl
def refig_metrics():
    yield MetricRecord(name="held", description="waits for the test", factory=lambda **_: Held(),
                       default=False)
'''


def test_an_interrupted_evaluation_says_how_to_resume_and_resumes(tmp_path, plugin_installer):
    plugin_installer("refig_metric_held", "refig-metric-held", HELD)
    store = RunStore.create(tmp_path / "run")
    figure = tmp_path / "figure.png"
    Image.new("RGB", (64, 48), "white").save(figure)
    prs = Presentation()
    prs.slides.add_slide(prs.slide_layouts[6])
    prs.save(tmp_path / "slide.pptx")
    config = Configuration(model="m", harness="h", workflow="direct")
    task = Task(id="t", family="figure-to-slide", inputs={
        "figure": Asset(path="figure.png", sha256=store.objects.put_bytes(figure.read_bytes()))})
    slide = store.objects.put_bytes((tmp_path / "slide.pptx").read_bytes())
    store.put_many([config, task, Attempt(task_id="t", config_id=config.id,
                                          status=AttemptStatus.SUCCEEDED,
                                          outputs={"slide": slide})])
    started, release = tmp_path / "started", tmp_path / "release"
    site = next(p for p in sys.path if Path(p, "refig_metric_held").is_dir())
    env = {**os.environ, "REFIG_HELD_STARTED": str(started), "REFIG_HELD_RELEASE": str(release),
           "PYTHONPATH": site}
    argv = [str(Path(sys.executable).parent / "refig"), "evaluate", str(store.root),
            "--metric", "held", "-q"]
    process = subprocess.Popen(argv, env=env, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(iter(
        lambda: process.stderr.read(1), "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        while not started.exists():  # the metric is in flight
            assert process.poll() is None, "".join(said)
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        give_up = time.monotonic() + 120  # a bound on waiting, not a measured time
        while "to resume" not in " ".join("".join(said).split()) and time.monotonic() < give_up:
            time.sleep(0.05)
        release.write_text("go")  # only now may the worker thread end (it is not waited for)
        process.wait(timeout=300)
        reader.join(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    stderr = "".join(said)
    assert process.returncode == 130, stderr
    said = " ".join(stderr.split())
    assert f"interrupted: the work finished is stored in {store.root}" in said
    assert "run the same command again to resume" in said
    assert "Traceback" not in said
    assert store.query(MetricValue, metric="held") == []  # the value in flight was not kept
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert [v.value for v in store.query(MetricValue, metric="held")] == [1.0]
