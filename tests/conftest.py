"""Fixtures shared by the cross-package tests."""

from __future__ import annotations

import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PROBE_HOOKS = '''
"""A metric that reports fixed values and logs every call (to see what a rerun recomputes)."""
import os

from refig import hookimpl
from refig.models import MetricValue
from refig.protocols import Metric
from refig.records import MetricRecord


class Probe(Metric):
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


class Plain(Metric):
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


def refig_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``refig ARGS`` as a user runs it: this environment's entry point, in a new process."""
    command = [str(Path(sys.executable).parent / "refig"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=900,
                          check=False)


def install_plugin(site: Path, monkeypatch: pytest.MonkeyPatch, module: str, dist: str,
                   hooks: str) -> None:
    """Install ``hooks`` as the ``hooks`` module of a real (entry-point) distribution ``dist``
    in ``site``, which goes on ``sys.path``: plugins load from it as in production."""
    package = site / module
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "hooks.py").write_text(textwrap.dedent(hooks))
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[refig]\n{dist} = {module}.hooks\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()


@pytest.fixture
def plugin_installer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``install(module, dist, hooks)``: :func:`install_plugin` into this test's own site; the
    modules it imported are forgotten afterwards."""
    modules: list[str] = []

    def install(module: str, dist: str, hooks: str) -> None:
        install_plugin(tmp_path / f"{module}-site", monkeypatch, module, dist, hooks)
        modules.append(module)

    yield install
    for name in [m for m in sys.modules if m.split(".")[0] in modules]:
        del sys.modules[name]


@pytest.fixture
def probe_metric(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugin_installer) -> Path:
    """Install the ``probe`` metric as a real distribution; return the file its calls go to.

    Plugins load as in production (entry points), limited to the renderer and the probe so
    other packages' plugins do not change these tests.
    """
    plugin_installer("refig_metric_probe", "refig-metric-probe", PROBE_HOOKS)
    log = tmp_path / "probe.log"
    log.write_text("")
    monkeypatch.setenv("REFIG_PROBE_LOG", str(log))
    monkeypatch.setenv(
        "REFIG_LOAD_PLUGINS",
        "refig-renderer-libreoffice,refig-metric-probe,"
        "refig-family-figure-to-slide",
    )
    return log
