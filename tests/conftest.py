"""Fixtures shared by the cross-package tests."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

PROBE_HOOKS = '''
"""A metric that reports fixed values and logs every call (to see what a rerun recomputes)."""
import os

from refig import hookimpl
from refig.models import MetricValue
from refig.records import MetricRecord


class Probe:
    version = "1"

    def compute(self, artifact):
        with open(os.environ["REFIG_PROBE_LOG"], "a") as log:
            log.write(artifact.sha256 + "\\n")
        figure = artifact.task.input("figure") if artifact.task else None
        reference = figure.sha256 if figure else None
        has_render = artifact.render is not None and artifact.render.is_file()
        for name, value in (
            ("raster_area_ratio", 0.25),
            ("flattened", 1.0),
            ("saw_render", float(has_render)),
            ("saw_source", float(artifact.source is not None)),
        ):
            yield MetricValue(artifact_sha256=artifact.sha256, metric="probe", name=name,
                              value=value, reference_sha256=reference, version="1")


class Plain:
    """Like a connector audit: never reads the source, so its values carry no reference."""

    version = "1"

    def compute(self, artifact):
        with open(os.environ["REFIG_PROBE_LOG"], "a") as log:
            log.write("plain:" + artifact.sha256 + "\\n")
        yield MetricValue(artifact_sha256=artifact.sha256, metric="plain", name="count",
                          value=1.0, version="1")


@hookimpl
def refig_metrics():
    yield MetricRecord(name="probe", description="test probe", factory=lambda **_: Probe(),
                       default=False)
    yield MetricRecord(name="plain", description="test metric without a reference",
                       factory=lambda **_: Plain(), default=False)
'''


@pytest.fixture
def probe_metric(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Install the ``probe`` metric as a real distribution; return the file its calls go to.

    Plugins load as in production (entry points), limited to the renderer and the probe so
    other packages' plugins do not change these tests.
    """
    site = tmp_path / "probe-site"
    package = site / "refig_metric_probe"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "hooks.py").write_text(textwrap.dedent(PROBE_HOOKS))
    info = site / "refig_metric_probe-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: refig-metric-probe\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text("[refig]\nprobe = refig_metric_probe.hooks\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    log = tmp_path / "probe.log"
    log.write_text("")
    monkeypatch.setenv("REFIG_PROBE_LOG", str(log))
    monkeypatch.setenv(
        "REFIG_LOAD_PLUGINS",
        "refig-renderer-libreoffice,refig-metric-probe,"
        "refig-family-figure-to-slide",
    )
    yield log
    for name in [m for m in sys.modules if m.startswith("refig_metric_probe")]:
        del sys.modules[name]
